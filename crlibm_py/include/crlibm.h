/* crlibm: the C ABI of the correctly rounded float32 functions (libcrlibm.so).
 *
 * Each function returns, for every float32 input, the float32 nearest to the
 * exact value (ties to even), with the special values of the contract
 * (docs/contract.md, §1); every NaN returned is the quiet NaN 0x7FC00000. The
 * bits are those of the Python API (crlibm_py.exp, ...) on every CPU path.
 *
 * Compile with  -I$(python -c 'import crlibm_py; print(crlibm_py.get_include())')
 * and link with -L<dir> -Wl,-rpath,<dir> -lcrlibm, where
 * <dir> = $(python -c 'import crlibm_py; print(crlibm_py.get_library_dir())').
 *
 * Two forms per function:
 *   float crlibm_expf(float x)    one value. It runs the portable path (every
 *                                 path gives the same bits) and does not read
 *                                 CRLIBM_ISA, so it cannot fail.
 *   int crlibm_expf_n(const float *x, float *y, size_t n)
 *                                 y[i] = exp(x[i]) for i < n, on the path that
 *                                 CRLIBM_ISA names (read at every call; default:
 *                                 the best this CPU has). y may equal x (in
 *                                 place); other overlaps are not allowed.
 * Neither depends on the caller's rounding mode or FTZ/DAZ bits, and both leave
 * them (and the sticky exception flags) as they were.
 *
 * Return codes of the _n forms:
 *   0   CRLIBM_SUCCESS.
 *   -1  x is NULL and n > 0.    -2  y is NULL and n > 0.   (argument i: -i)
 *   -3  n > PTRDIFF_MAX / sizeof(float): no array has that many floats.
 *   1   CRLIBM_ERR_ISA_UNKNOWN: CRLIBM_ISA names no CPU path.
 *   2   CRLIBM_ERR_ISA_UNSUPPORTED: CRLIBM_ISA names a path this CPU lacks.
 * On an error nothing is written. crlibm_error_string(code) describes a code.
 */
#ifndef CRLIBM_H
#define CRLIBM_H

#include <stddef.h>

#if defined(__GNUC__)
#define CRLIBM_API __attribute__((visibility("default")))
#else
#define CRLIBM_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define CRLIBM_VERSION_MAJOR 0
#define CRLIBM_VERSION_MINOR 1

enum crlibm_status {
  CRLIBM_SUCCESS = 0,
  CRLIBM_ERR_ISA_UNKNOWN = 1,    /* CRLIBM_ISA names no CPU path */
  CRLIBM_ERR_ISA_UNSUPPORTED = 2 /* CRLIBM_ISA names a path this CPU lacks */
};

/* A static English description of a return code (also for unknown codes). */
CRLIBM_API const char *crlibm_error_string(int code);

/* One pair per function of the registry (src/c/crlibm/functions.def); rsqrt(x) is
 * 1/sqrt(x), with rsqrt(-0) = -inf. */
/* BEGIN FUNCTIONS: written by python tools/crlibm_registry.py --write */
CRLIBM_API float crlibm_expf(float x);
CRLIBM_API float crlibm_logf(float x);
CRLIBM_API float crlibm_sinf(float x);
CRLIBM_API float crlibm_cosf(float x);
CRLIBM_API float crlibm_tanhf(float x);
CRLIBM_API float crlibm_erff(float x);
CRLIBM_API float crlibm_rsqrtf(float x);

CRLIBM_API int crlibm_expf_n(const float *x, float *y, size_t n);
CRLIBM_API int crlibm_logf_n(const float *x, float *y, size_t n);
CRLIBM_API int crlibm_sinf_n(const float *x, float *y, size_t n);
CRLIBM_API int crlibm_cosf_n(const float *x, float *y, size_t n);
CRLIBM_API int crlibm_tanhf_n(const float *x, float *y, size_t n);
CRLIBM_API int crlibm_erff_n(const float *x, float *y, size_t n);
CRLIBM_API int crlibm_rsqrtf_n(const float *x, float *y, size_t n);
/* END FUNCTIONS */

#ifdef __cplusplus
}
#endif

#endif /* CRLIBM_H */
