/* libreproblas_blas: the reference BLAS's Fortran 77 interface (sgemm_, ..., 32-bit INTEGER,
 * every argument by reference, CHARACTER lengths passed last and ignored) over the checked
 * routines of blas_impl.c. docs/blas.md lists the routines and what each does beyond the
 * reference. */
#include <stddef.h>

#include "blas_internal.h"

/* ---- the Fortran symbols ---- */
#define RB_FCHECK(name, call)                                                                    \
  do {                                                                                           \
    int info_ = (call);                                                                          \
    if (info_ != 0) rb_blas_error(name, info_, 0, 0);                                            \
  } while (0)

#define RB_CAT3_(a, b, c) a##b##c
#define RB_CAT3(a, b, c) RB_CAT3_(a, b, c)

#define P s
#define T float
#define PS "S"
#include "blas_fortran_typed.inc"
#undef P
#undef T
#undef PS

#define P d
#define T double
#define PS "D"
#include "blas_fortran_typed.inc"
#undef P
#undef T
#undef PS

/* The routines of one type only. */
RB_BLAS_API float sdsdot_(const int *n, const float *sb, const float *x, const int *incx,
                          const float *y, const int *incy) {
  return rb_blas_sdsdot(*n, *sb, x, *incx, y, *incy);
}

RB_BLAS_API double dsdot_(const int *n, const float *x, const int *incx, const float *y,
                          const int *incy) {
  return rb_blas_dsdot(*n, x, *incx, y, *incy);
}

RB_BLAS_API float scasum_(const int *n, const float *x, const int *incx) {
  return rb_blas_scasum(*n, x, *incx);
}
RB_BLAS_API float scnrm2_(const int *n, const float *x, const int *incx) {
  return rb_blas_scnrm2(*n, x, *incx);
}

RB_BLAS_API double dzasum_(const int *n, const double *x, const int *incx) {
  return rb_blas_dcasum(*n, x, *incx);
}
RB_BLAS_API double dznrm2_(const int *n, const double *x, const int *incx) {
  return rb_blas_dcnrm2(*n, x, *incx);
}
