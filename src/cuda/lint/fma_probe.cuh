/* Lint build only (-DCR_LINT_FMA, tools/ptx_lint.py): every fma the sources
 * ask for goes through these out-of-line functions, so in the PTX of that
 * build an fma instruction anywhere else is one the compiler made up by
 * contracting a multiply and an add. */
#ifndef CR_LINT_FMA_PROBE_CUH
#define CR_LINT_FMA_PROBE_CUH
#include <math.h>

__device__ __noinline__ double cr_lint_fma(double a, double b, double c) {
  return __fma_rn(a, b, c);
}
__device__ __noinline__ float cr_lint_fmaf(float a, float b, float c) {
  return __fmaf_rn(a, b, c);
}
#define fma(a, b, c) cr_lint_fma(a, b, c)
#define fmaf(a, b, c) cr_lint_fmaf(a, b, c)
#define __fma_rn(a, b, c) cr_lint_fma(a, b, c)
#define __fmaf_rn(a, b, c) cr_lint_fmaf(a, b, c)
#endif
