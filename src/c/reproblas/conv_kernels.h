/* Per-CPU-path kernels of the convolution core (conv_kernels.inc). */
#ifndef RB_CONV_KERNELS_H
#define RB_CONV_KERNELS_H

#include <stdint.h>

/* Sequential gather gemm for few columns, reading A in place (no pack):
 * c[j*ldc + i] = the fma chain over t of a[aoff[t] + i] * b[t*ncols + j]
 * (from -0, so the first step is the rounded product), rows i in [i0, i1),
 * columns j < ncols, terms >= 1 (no terms is +0, not -0: the caller's case).
 * a, b, c: float or double by the table entry. */
typedef void (*rb_conv_direct_fn)(int64_t i0, int64_t i1, int64_t ldc, int64_t terms,
                                  int64_t ncols, const void *a, const int64_t *aoff,
                                  const void *b, void *c);
typedef struct {
  rb_conv_direct_fn direct_f32, direct_f64;
} rb_conv_kernels;

extern const rb_conv_kernels rb_conv_scalar, rb_conv_avx2, rb_conv_avx512;

#endif /* RB_CONV_KERNELS_H */
