/* Benchmark baseline: a scalar correctly rounded libm called once per element.
 *
 * Each function's own code, instantiated on the one-lane layer (lanes/scalar.h)
 * and compiled for AVX2+FMA so that fma and rint are single instructions,
 * behind a non-inlined `float cr_scalar_<f>(float)`; the loop calls it once
 * per element, as a program calling a scalar correctly rounded libm (glibc's
 * expf, CORE-MATH, ...) would. Only tools/bench_crlibm.py uses it (through
 * crlibm_py._ufuncs.apply_scalar_calls); it gives the same bits as the array
 * kernels. Built only on x86-64 and called only on CPUs with AVX2 and FMA. */
#if defined(__x86_64__)
#pragma GCC target("avx2,fma")
#include "lanes/scalar.h"
#include "crlibm_core.h"
#include "../common/fp_env.h"
#include "cores.h"
#include "scalar_calls.h"

#define CR_DEFINE_SCALAR(fn)                                      \
  __attribute__((noinline)) float cr_scalar_##fn(float x) {       \
    v64m special;                                                 \
    double y = cr_##fn##_fast((double)x, &special);               \
    return special ? cr_##fn##_special(x) : (float)y;             \
  }
#define CR_FUNCTION(name, ...) CR_DEFINE_SCALAR(name)
#include "functions.def"
#undef CR_FUNCTION

static float (*const scalar_table[CR_FUNCTION_COUNT])(float) = {
#define CR_FUNCTION(name, ...) cr_scalar_##name,
#include "functions.def"
#undef CR_FUNCTION
};

int cr_scalar_calls_available(void) { return cr_isa_supported(CR_ISA_AVX2); }

void cr_apply_scalar_calls(int fn, const float *x, float *y, size_t n) {
  if (fn < 0 || fn >= CR_FUNCTION_COUNT || !cr_scalar_calls_available()) return;
  float (*const f)(float) = scalar_table[fn];
  cr_fenv_t saved = cr_fenv_enter();
  for (size_t i = 0; i < n; ++i) y[i] = f(x[i]);
  cr_fenv_leave(saved);
}
#else
#include "scalar_calls.h"
int cr_scalar_calls_available(void) { return 0; }
void cr_apply_scalar_calls(int fn, const float *x, float *y, size_t n) {
  (void)fn, (void)x, (void)y, (void)n;
}
#endif
