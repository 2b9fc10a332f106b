/* Benchmark baseline: one non-inlined scalar call per element (scalar_calls.c). */
#ifndef CR_SCALAR_CALLS_H
#define CR_SCALAR_CALLS_H

#include <stddef.h>

/* Whether this build and CPU have the baseline (x86-64 with AVX2 and FMA). */
int cr_scalar_calls_available(void);
/* y[i] = f(x[i]) by one call of cr_scalar_<f> per element; contiguous arrays,
 * x may equal y. Does nothing when unavailable. */
void cr_apply_scalar_calls(int fn, const float *x, float *y, size_t n);

#endif /* CR_SCALAR_CALLS_H */
