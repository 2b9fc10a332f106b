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
