/* The routines behind the BLAS interfaces (blas_fortran.c, cblas.c) and the C ABI's rest of
 * level 1 (reproblas_level1_blas.c): the reference BLAS's checks, quick returns and vector
 * conventions over the C ABI (reproblas.h), and the elementwise and scalar routines themselves
 * (docs/contract.md §3.5). Nothing here is exported. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blas_internal.h"
#include "reproblas.h"

#define RB_CAT_(a, b) a##b
#define RB_CAT(a, b) RB_CAT_(a, b)
#define RB_CAT3_(a, b, c) a##b##c
#define RB_CAT3(a, b, c) RB_CAT3_(a, b, c)

#define P s
#define T float
#define PS "S"
#define RB_FMA_SUFFIX f
#define RB_SQRT sqrtf
#define RB_SAFMIN 0x1p-126f
#define RB_SAFMAX 0x1p127f
#define RB_GAMSQ 1.67772E7f
#define RB_RGAMSQ 5.96046E-8f
#include "blas_typed.inc"
#undef P
#undef T
#undef PS
#undef RB_FMA_SUFFIX
#undef RB_SQRT
#undef RB_SAFMIN
#undef RB_SAFMAX
#undef RB_GAMSQ
#undef RB_RGAMSQ

#define P d
#define T double
#define PS "D"
#define RB_FMA_SUFFIX
#define RB_SQRT sqrt
#define RB_SAFMIN 0x1p-1022
#define RB_SAFMAX 0x1p1023
#define RB_GAMSQ 16777216.0
#define RB_RGAMSQ 5.9604645e-8
#include "blas_typed.inc"
#undef P
#undef T
#undef PS

int rb_blas_order(void) {
  const char *s = getenv("REPROBLAS_ORDER");
  if (s == NULL || s[0] == '\0' || strcmp(s, "sequential") == 0) return ReproblasSequential;
  if (strcmp(s, "pairwise") == 0) return ReproblasPairwise;
  fprintf(stderr,
          "libreproblas_blas: REPROBLAS_ORDER='%s' is not a summation order; use sequential "
          "or pairwise (or leave it unset for sequential)\n", s);
  exit(EXIT_FAILURE);
}

void rb_blas_check(int status, const char *routine) {
  if (status == REPROBLAS_SUCCESS) return;
  fprintf(stderr, "libreproblas_blas: %s: %s\n", routine, reproblas_error_string(status));
  exit(EXIT_FAILURE);
}

/* dsdot: the float products, exact in double, summed in double in the chosen order; sdsdot:
 * the same over the n + 1 terms sb, x_0*y_0, ..., rounded once to float (docs/contract.md
 * §3.5). Both are ddot on the values widened to double. */
int rb_blas_widened_dot(int64_t n, int with_sb, float sb, const float *x, int64_t incx,
                        const float *y, int64_t incy, int order, double *out) {
  int64_t len = n + with_sb;
  if (len == 0) {
    *out = 0.0;
    return REPROBLAS_SUCCESS;
  }
  if ((uint64_t)len > (uint64_t)PTRDIFF_MAX / (2 * sizeof(double))) return REPROBLAS_ERR_NO_MEMORY;
  double *buf = malloc(2 * (size_t)len * sizeof(double));
  if (buf == NULL) return REPROBLAS_ERR_NO_MEMORY;
  double *wx = buf, *wy = buf + len;
  if (with_sb) {
    wx[0] = sb;
    wy[0] = 1.0;
  }
  ptrdiff_t ix = incx < 0 ? (ptrdiff_t)(n - 1) * -incx : 0;
  ptrdiff_t iy = incy < 0 ? (ptrdiff_t)(n - 1) * -incy : 0;
  for (int64_t i = 0; i < n; ++i, ix += incx, iy += incy) {
    wx[with_sb + i] = x[ix];
    wy[with_sb + i] = y[iy];
  }
  int status = reproblas_ddot(len, wx, 1, wy, 1, out, (reproblas_order)order);
  free(buf);
  return status;
}

double rb_blas_dsdot(int n, const float *x, int incx, const float *y, int incy) {
  double r = 0.0;
  if (n > 0) rb_blas_check(rb_blas_widened_dot(n, 0, 0, x, incx, y, incy, rb_blas_order(), &r),
                           "DSDOT");
  return r;
}

float rb_blas_sdsdot(int n, float sb, const float *x, int incx, const float *y, int incy) {
  double r = sb;
  if (n > 0) rb_blas_check(rb_blas_widened_dot(n, 1, sb, x, incx, y, incy, rb_blas_order(), &r),
                           "SDSDOT");
  return (float)r;
}
