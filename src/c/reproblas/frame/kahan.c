/* order="kahan" for sum, asum, dot and nrm2's scaled sum (docs/contract.md
 * §5.5). The chunks' pairwise tree is cut into aligned power-of-two items of
 * chunks (order.h's rb_block_items / rb_item_terms), computed in parallel, each
 * by a binary counter over its chunks' pairs; the items of each block of the
 * chunk count's binary expansion are joined by a perfect tree, the blocks
 * right to left. The pairs are joined with rb_kjoin (order/kahan.h) wherever
 * the pairwise order would add. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>

#include "../../common/isa.h"
#include "kahan_kernels.h"
#include "level1.h"
#include "order/kahan.h"
#include "order/order.h"
#include "partition.h"
#include "thread.h"

enum { RB_KMAX_ITEMS = 1024, RB_KBATCH = 16 /* chunk pairs per kernel call */ };

#define RB_KCAT_(a, b) a##b
#define RB_KCAT(a, b) RB_KCAT_(a, b)
#define RB_KTABLES(sfx) RB_KTABLES_(sfx) /* sfx expanded first */

#if defined(__x86_64__)
#define RB_KTABLES_(sfx) {&rb_kahan_##sfx##_scalar, &rb_kahan_##sfx##_avx2, &rb_kahan_##sfx##_avx512}
#else
#define RB_KTABLES_(sfx) {&rb_kahan_##sfx##_scalar, NULL, NULL}
#endif

#define T float
#define SFX f32
#define KFMA fmaf
#include "kahan_driver.inc"
#undef T
#undef SFX
#undef KFMA

#define T double
#define SFX f64
#define KFMA fma
#include "kahan_driver.inc"
