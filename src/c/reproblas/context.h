/* A call's context: the code path, the thread count and every block size and
 * threshold the drivers use, passed down by pointer instead of process globals,
 * so that calls with different settings can run at once.
 *
 * None of these values changes a result bit (docs/contract.md §0): block and
 * part boundaries only decide who computes an element and when. Tests set
 * small values to put block edges and thread splits inside small operands.
 * rb_context_default gives the tuned defaults; rb_context_fix, which every
 * entry point applies, replaces a value < 1 (and an invalid one) by its
 * default, so a context with only isa and threads set is valid.
 */
#ifndef RB_CONTEXT_H
#define RB_CONTEXT_H

#include <stdint.h>

typedef struct rb_context {
  int isa;     /* enum cr_isa; each entry point checks it */
  int threads; /* < 1: 1 */
  /* level 1 (level1.c): the subtree size pairwise reductions hand to threads
   * (a power of two), and the elements below which fewer threads are used */
  int64_t piece, min_per_thread;
  /* gemm (level3.c, gemm_engine.inc): cache blocks (kc 0: 1 KiB of k by
   * dtype), the multiply-adds below which fewer threads are used, and the
   * sequential gemm's partial sums per thread (elements) */
  int64_t mc, nc, kc, min_work, ws;
  /* trsm (trsm.c): rows of a diagonal block (rounded down to a power of two)
   * and right-hand sides per panel */
  int64_t trsm_mb, trsm_nb;
  /* convolution (conv_seq.c, conv_pw.c, conv_driver.c): columns per
   * chunk, terms per kc block, the multiply-adds below which one thread is
   * used, rows per mc block of the sequential path, table ints per batch of
   * row classes; 0: chosen by size */
  int64_t conv_chunk, conv_kc, conv_min_work, conv_mc, conv_batch;
} rb_context;

/* The defaults for a code path and thread count (the thread thresholds a
 * quarter as large while calls run on an OpenMP team, thread.h). */
rb_context rb_context_default(int isa, int threads);

/* c with each value < 1 or invalid replaced by its default (threads: 1). */
rb_context rb_context_fix(rb_context c);

/* The entry points' form of rb_context_fix: c itself when fixing would change
 * nothing (a context from rb_context_default, the common case), else *tmp =
 * rb_context_fix(*c) and tmp. Copies nothing in the common case, which
 * matters for calls on a few elements. */
const rb_context *rb_context_use(const rb_context *c, rb_context *tmp);

#endif /* RB_CONTEXT_H */
