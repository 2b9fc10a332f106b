/* The per-CPU-path micro-kernels of reproblas (BLIS-style split).
 *
 * A kernel works on one contiguous stretch of memory, single-threaded, in the
 * floating-point environment its caller set up; it knows nothing of orders
 * over the whole vector, threads or strides. The drivers (level1.c) cut the
 * work into pieces whose results combine in contract §2's fixed order, so the
 * result does not depend on which path or how many threads computed them.
 * There is one table per (element type, CPU path); later levels (gemv, gemm)
 * add their own tables beside these.
 */
#ifndef RB_KERNELS_H
#define RB_KERNELS_H

#include <stdint.h>

#include "../common/isa.h"
#include "terms.h"

#define RB_DECLARE_L1_TABLE(T, SFX)                                                     \
  typedef struct {                                                                      \
    /* Perfect binary tree of t_0..t_{n-1}; n a power of two (n >= 1). */              \
    T (*pairwise_block)(int term, const T *x, const T *y, T scale, int64_t n);         \
    /* The same tree of x_k * x_k, with max abs(x_k) and min nonzero abs(x_k) (+inf */ \
    /* if none) of the same x_k; a NaN x_k makes the tree NaN. */                       \
    T (*squares_range)(const T *x, int64_t n, T *max, T *min_nz);                      \
    /* Left-to-right chain over t_0..t_{n-1} (n >= 1), contract §2 "sequential". */        \
    T (*sequential)(int term, const T *x, const T *y, T scale, int64_t n);             \
    /* max abs(x_k) and min nonzero abs(x_k) (+inf if none) over the non-NaN    */  \
    /* lanes, and whether any x_k is NaN (n >= 0). */                                  \
    void (*abs_range)(const T *x, int64_t n, T *max, T *min_nz, int *has_nan);         \
    /* First k with abs(x_k) == target, or the first NaN if target is NaN; -1 if none. */ \
    int64_t (*find_first)(const T *x, int64_t n, T target);                            \
    void (*axpy)(T alpha, const T *x, T *y, int64_t n); /* y_k = fma(alpha, x_k, y_k) */ \
    void (*scal)(T alpha, T *x, int64_t n);             /* x_k = alpha * x_k */          \
  } rb_l1_kernels_##SFX;

RB_DECLARE_L1_TABLE(float, f32)
RB_DECLARE_L1_TABLE(double, f64)

extern const rb_l1_kernels_f32 rb_l1_f32_scalar, rb_l1_f32_avx2, rb_l1_f32_avx512;
extern const rb_l1_kernels_f64 rb_l1_f64_scalar, rb_l1_f64_avx2, rb_l1_f64_avx512;

#endif /* RB_KERNELS_H */
