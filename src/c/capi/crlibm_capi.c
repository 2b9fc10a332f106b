/* libcrlibm: the C ABI of crlibm.h, thin wrappers over the kernel dispatcher
 * (dispatch.c) that the Python ufuncs use. */
#include "crlibm.h"

#include <stdint.h>

#include "crlibm_core.h"
#include "env.h"

const char *crlibm_error_string(int code) {
  switch (code) {
  case CRLIBM_SUCCESS: return "success";
  case CRLIBM_ERR_ISA_UNKNOWN: return "CRLIBM_ISA names no CPU path; use scalar, avx2 or avx512";
  case CRLIBM_ERR_ISA_UNSUPPORTED: return "CRLIBM_ISA names a CPU path this CPU cannot run";
  case -1: return "x is NULL but n > 0";
  case -2: return "y is NULL but n > 0";
  case -3: return "n is larger than any float array can be (n * sizeof(float) > PTRDIFF_MAX)";
  default: return "unknown crlibm status code";
  }
}

/* One value on the portable path: every path gives the same bits, and a
 * single element gains nothing from SIMD, so no knob is read and nothing fails. */
static float cr_capi_one(int fn, float x) {
  float y;
  cr_apply_strided(fn, CR_ISA_SCALAR, (const char *)&x, sizeof x, (char *)&y, sizeof y, 1);
  return y;
}

static int cr_capi_array(int fn, const float *x, float *y, size_t n) {
  if (n > 0 && x == NULL) return -1;
  if (n > 0 && y == NULL) return -2;
  /* the kernels form byte offsets i * sizeof(float) as ptrdiff_t */
  if (n > (size_t)PTRDIFF_MAX / sizeof(float)) return -3;
  int isa;
  int status = capi_isa_from_env("CRLIBM_ISA", &isa);
  if (status != 0) return status;
  cr_apply_strided(fn, isa, (const char *)x, sizeof *x, (char *)y, sizeof *y, n);
  return CRLIBM_SUCCESS;
}

/* crlibm_<f>f and crlibm_<f>f_n for every function of the registry
 * (functions.def); crlibm.h declares them (tests/test_capi.py checks the two agree). */
#define CR_FUNCTION(fn, ...)                                                              \
  float crlibm_##fn##f(float x) { return cr_capi_one(CR_FN_ID_##fn, x); }                 \
  int crlibm_##fn##f_n(const float *x, float *y, size_t n) {                              \
    return cr_capi_array(CR_FN_ID_##fn, x, y, n);                                         \
  }
#include "functions.def"
#undef CR_FUNCTION
