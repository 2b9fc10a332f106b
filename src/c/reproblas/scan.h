/* reproblas scans and segmented reductions (docs/contract.md §5.2, §5.3): the C
 * API the Cython layer and the C ABI call.
 *
 * Operands are contiguous arrays of float (RB_F32) or double (RB_F64); y is
 * read only for product terms (term RB_TERM_XY, terms.h) and has x's layout.
 * Results follow the contract bit for bit on every path and thread count.
 * Return 0, -1 for a bad argument (dtype, order, op, term, isa, a size or an
 * offset), or RB_STOPPED (thread.h). */
#ifndef RB_SCAN_H
#define RB_SCAN_H

#include <stdint.h>

#include "context.h"

enum rb_scan_op { RB_SCAN_SUM = 0, RB_SCAN_PROD = 1 };

/* rows scans of n elements each (row r at x + r * n) into out (the same
 * layout; out may be x itself, for an inclusive or an exclusive scan). op
 * RB_SCAN_PROD takes term RB_TERM_X only. */
int rb_scan(int dtype, int op, int order, int term, int exclusive, const rb_context *cfg,
            const void *x, const void *y, int64_t rows, int64_t n, void *out);

/* The segments [offsets[s], offsets[s + 1]) of x[0 .. n), s < nseg, each
 * scanned on its own (scan_by_key); 0 <= offsets[0] <= ... <= offsets[nseg]
 * <= n, else -1. Elements outside every segment are not written. */
int rb_segment_scan(int dtype, int order, int term, int exclusive, const rb_context *cfg,
                    const void *x, const void *y, int64_t n, const int64_t *offsets,
                    int64_t nseg, void *out);

/* out[s] (nseg results): the level-1 reduction of the segment's terms (sum,
 * asum: RB_TERM_ABS, dot: RB_TERM_XY), that call's bits; +0 for an empty one.
 * Offsets as rb_segment_scan. */
int rb_segment_reduce(int dtype, int order, int term, const rb_context *cfg, const void *x,
                      const void *y, int64_t n, const int64_t *offsets, int64_t nseg,
                      void *out);

#endif /* RB_SCAN_H */
