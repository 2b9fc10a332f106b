/* The gemm frame's block walk (gemm_blocks.inc), compiled once per dtype:
 * rb_gemm_block_f32 and rb_gemm_block_f64 (gemm_kernels.h). */
#include <stdlib.h>
#include <string.h>

#include "../gemm_kernels.h"
#include "../level3.h"
#include "order/order.h"

#define RB_CAT_(a, b) a##b
#define RB_CAT(a, b) RB_CAT_(a, b)
#define RB_GN(name) RB_CAT(name, RB_CAT(_, RB_TSFX))

static int64_t rb_round_down(int64_t v, int64_t unit) { return v < unit ? unit : v / unit * unit; }
static int64_t rb_round_up(int64_t v, int64_t unit) { return (v + unit - 1) / unit * unit; }
static int64_t rb_clamp(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : v > hi ? hi : v; }
/* RB_PW_NC_MAX bounds the pairwise workspaces (one mc x nc per level);
 * RB_GEMV_SLAB_BYTES: packed gemv slab of k, L1-sized. */
enum { RB_PACK_B_SLAB = 8, RB_GEMV_SLAB_BYTES = 32768, RB_PW_NC_MAX = 512 };

/* syr2k's interleaved terms: of the k' in [k0, k0 + kb), those of parity s
 * (term 2t + s); the first of them in *first, their count returned. */
static int64_t rb_parity_run(int64_t k0, int64_t kb, int s, int64_t *first) {
  *first = k0 + ((k0 & 1) != s);
  return *first < k0 + kb ? (k0 + kb - *first + 1) / 2 : 0;
}

/* A symmetric operand's lines k in [k, k_end) for the elements x in [x0, x0 +
 * len) of the other index: element (x, k) is in the stored triangle when
 * x >= k (x_ge_k) or x <= k. Returns the end of the run of lines starting at
 * k that are all stored (*kind 1) or all mirrored (*kind -1), or k + 1 for a
 * line crossing the diagonal (*kind 0). */
static int64_t rb_sym_run(int x_ge_k, int64_t x0, int64_t len, int64_t k, int64_t k_end,
                          int *kind) {
  const int64_t x1 = x0 + len - 1; /* the last x */
  int64_t end = k + 1;
  if (x_ge_k ? k <= x0 : k >= x1)
    *kind = 1, end = x_ge_k ? x0 + 1 : k_end;
  else if (x_ge_k ? k > x1 : k < x0)
    *kind = -1, end = x_ge_k ? k_end : x0;
  else
    *kind = 0;
  return end < k_end ? end : k_end;
}

#define T float
#define RB_TSFX f32
#include "gemm_blocks.inc"
#undef T
#undef RB_TSFX

#define T double
#define RB_TSFX f64
#include "gemm_blocks.inc"
#undef T
#undef RB_TSFX
