/* reproblas level-1 C API (what the Cython layer calls).
 *
 * Operands are contiguous arrays of `float` (RB_F32) or `double` (RB_F64);
 * the Python layer makes strided views contiguous first, which gives the same
 * values in the same index order, so strides never change a result. Every
 * call sets up its own floating-point environment (fp_env.h). Results follow
 * contract §2-§3 bit for bit, on every path and thread count.
 */
#ifndef RB_LEVEL1_H
#define RB_LEVEL1_H

#include <stdint.h>

#include "context.h"

enum rb_dtype { RB_F32 = 0, RB_F64 = 1 };
enum rb_order {
  RB_SEQUENTIAL = 0,
  RB_PAIRWISE = 1,
  /* docs/contract.md §5.5 and §5.4: accepted only by the routines that implement them */
  RB_KAHAN = 2,
  RB_EXACT = 3
};

/* Reductions: *out (a float or a double, by dtype) receives the result.
 * y is only read by rb_dot. Return 0, or -1 for a bad dtype/order/isa. */
int rb_sum(int dtype, int order, const rb_context *cfg, const void *x, int64_t n, void *out);
int rb_asum(int dtype, int order, const rb_context *cfg, const void *x, int64_t n, void *out);
int rb_dot(int dtype, int order, const rb_context *cfg, const void *x, const void *y, int64_t n,
           void *out);
int rb_nrm2(int dtype, int order, const rb_context *cfg, const void *x, int64_t n, void *out);

/* First NaN, else smallest k with abs(x_k) maximal; -1 when n = 0; -2 on a bad argument. */
int64_t rb_iamax(int dtype, const rb_context *cfg, const void *x, int64_t n);

/* y_k = fma(alpha, x_k, y_k); x_k = alpha * x_k. *alpha has the array's type. */
int rb_axpy(int dtype, const rb_context *cfg, const void *alpha, const void *x, void *y, int64_t n);
int rb_scal(int dtype, const rb_context *cfg, const void *alpha, void *x, int64_t n);

#endif /* RB_LEVEL1_H */
