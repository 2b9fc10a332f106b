/* The per-CPU-path kernels of order="exact" (kernels/exact.inc): the float32
 * and float64 terms into an exact accumulator (order/exact.h), faster than its scalar
 * loop. Exact on every path, so a path changes no bit. */
#ifndef RB_EXACT_KERNELS_H
#define RB_EXACT_KERNELS_H

#include <stdint.h>

#include "order/exact.h"

typedef struct {
  /* term 0: x_k, 1: abs(x_k), 2: x_k·y_k; a is left normalized */
  void (*run_f32)(rb_xacc *a, int term, const float *x, const float *y, int64_t n);
  /* the same for float64 terms */
  void (*run_f64)(rb_xacc *a, int term, const double *x, const double *y, int64_t n);
} rb_exact_kernels;

extern const rb_exact_kernels rb_exact_kernels_scalar, rb_exact_kernels_avx2,
    rb_exact_kernels_avx512;

#endif /* RB_EXACT_KERNELS_H */
