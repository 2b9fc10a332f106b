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


RB_BLAS_API void sgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k,
                        const float *alpha, const float *a, const int *lda, const float *b,
                        const int *ldb, const float *beta, float *c, const int *ldc, size_t l1,
                        size_t l2) {
  (void)l1, (void)l2;
  RB_FCHECK("SGEMM ", rb_blas_sgemm(*ta, *tb, *m, *n, *k, *alpha, a, *lda, b, *ldb, *beta, c,
                                        *ldc));
}

RB_BLAS_API void sgemv_(const char *trans, const int *m, const int *n, const float *alpha,
                        const float *a, const int *lda, const float *x, const int *incx,
                        const float *beta, float *y, const int *incy, size_t l1) {
  (void)l1;
  RB_FCHECK("SGEMV ", rb_blas_sgemv(*trans, *m, *n, *alpha, a, *lda, x, *incx, *beta, y, *incy));
}

RB_BLAS_API void sger_(const int *m, const int *n, const float *alpha, const float *x,
                       const int *incx, const float *y, const int *incy, float *a, const int *lda) {
  RB_FCHECK("SGER  ", rb_blas_sger(*m, *n, *alpha, x, *incx, y, *incy, a, *lda));
}

RB_BLAS_API void strsv_(const char *uplo, const char *trans, const char *diag, const int *n,
                        const float *a, const int *lda, float *x, const int *incx, size_t l1,
                        size_t l2, size_t l3) {
  (void)l1, (void)l2, (void)l3;
  RB_FCHECK("STRSV ", rb_blas_strsv(*uplo, *trans, *diag, *n, a, *lda, x, *incx));
}

RB_BLAS_API void strsm_(const char *side, const char *uplo, const char *transa,
                        const char *diag, const int *m, const int *n, const float *alpha,
                        const float *a, const int *lda, float *b, const int *ldb, size_t l1,
                        size_t l2, size_t l3, size_t l4) {
  (void)l1, (void)l2, (void)l3, (void)l4;
  RB_FCHECK("STRSM ", rb_blas_strsm(*side, *uplo, *transa, *diag, *m, *n, *alpha, a, *lda, b,
                                        *ldb));
}

RB_BLAS_API float sdot_(const int *n, const float *x, const int *incx, const float *y,
                      const int *incy) {
  return rb_blas_sdot(*n, x, *incx, y, *incy);
}

RB_BLAS_API float sasum_(const int *n, const float *x, const int *incx) {
  return rb_blas_sasum(*n, x, *incx);
}

RB_BLAS_API float snrm2_(const int *n, const float *x, const int *incx) {
  return rb_blas_snrm2(*n, x, *incx);
}

RB_BLAS_API int isamax_(const int *n, const float *x, const int *incx) {
  return rb_blas_isamax(*n, x, *incx);
}

RB_BLAS_API void saxpy_(const int *n, const float *alpha, const float *x, const int *incx, float *y,
                        const int *incy) {
  rb_blas_saxpy(*n, *alpha, x, *incx, y, *incy);
}

RB_BLAS_API void sscal_(const int *n, const float *alpha, float *x, const int *incx) {
  rb_blas_sscal(*n, *alpha, x, *incx);
}

RB_BLAS_API void scopy_(const int *n, const float *x, const int *incx, float *y, const int *incy) {
  rb_blas_scopy(*n, x, *incx, y, *incy);
}

RB_BLAS_API void sswap_(const int *n, float *x, const int *incx, float *y, const int *incy) {
  rb_blas_sswap(*n, x, *incx, y, *incy);
}

RB_BLAS_API void srot_(const int *n, float *x, const int *incx, float *y, const int *incy,
                       const float *c, const float *s) {
  rb_blas_srot(*n, x, *incx, y, *incy, *c, *s);
}

RB_BLAS_API void srotm_(const int *n, float *x, const int *incx, float *y, const int *incy,
                        const float *param) {
  rb_blas_srotm(*n, x, *incx, y, *incy, param);
}

RB_BLAS_API void srotg_(float *a, float *b, float *c, float *s) { rb_blas_srotg(a, b, c, s); }

RB_BLAS_API void srotmg_(float *d1, float *d2, float *x1, const float *y1, float *param) {
  rb_blas_srotmg(d1, d2, x1, *y1, param);
}

RB_BLAS_API void dgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k,
                        const double *alpha, const double *a, const int *lda, const double *b,
                        const int *ldb, const double *beta, double *c, const int *ldc, size_t l1,
                        size_t l2) {
  (void)l1, (void)l2;
  RB_FCHECK("DGEMM ", rb_blas_dgemm(*ta, *tb, *m, *n, *k, *alpha, a, *lda, b, *ldb, *beta, c,
                                        *ldc));
}

RB_BLAS_API void dgemv_(const char *trans, const int *m, const int *n, const double *alpha,
                        const double *a, const int *lda, const double *x, const int *incx,
                        const double *beta, double *y, const int *incy, size_t l1) {
  (void)l1;
  RB_FCHECK("DGEMV ", rb_blas_dgemv(*trans, *m, *n, *alpha, a, *lda, x, *incx, *beta, y, *incy));
}

RB_BLAS_API void dger_(const int *m, const int *n, const double *alpha, const double *x,
                       const int *incx, const double *y, const int *incy, double *a, const int *lda) {
  RB_FCHECK("DGER  ", rb_blas_dger(*m, *n, *alpha, x, *incx, y, *incy, a, *lda));
}

RB_BLAS_API void dtrsv_(const char *uplo, const char *trans, const char *diag, const int *n,
                        const double *a, const int *lda, double *x, const int *incx, size_t l1,
                        size_t l2, size_t l3) {
  (void)l1, (void)l2, (void)l3;
  RB_FCHECK("DTRSV ", rb_blas_dtrsv(*uplo, *trans, *diag, *n, a, *lda, x, *incx));
}

RB_BLAS_API void dtrsm_(const char *side, const char *uplo, const char *transa,
                        const char *diag, const int *m, const int *n, const double *alpha,
                        const double *a, const int *lda, double *b, const int *ldb, size_t l1,
                        size_t l2, size_t l3, size_t l4) {
  (void)l1, (void)l2, (void)l3, (void)l4;
  RB_FCHECK("DTRSM ", rb_blas_dtrsm(*side, *uplo, *transa, *diag, *m, *n, *alpha, a, *lda, b,
                                        *ldb));
}

RB_BLAS_API double ddot_(const int *n, const double *x, const int *incx, const double *y,
                      const int *incy) {
  return rb_blas_ddot(*n, x, *incx, y, *incy);
}

RB_BLAS_API double dasum_(const int *n, const double *x, const int *incx) {
  return rb_blas_dasum(*n, x, *incx);
}

RB_BLAS_API double dnrm2_(const int *n, const double *x, const int *incx) {
  return rb_blas_dnrm2(*n, x, *incx);
}

RB_BLAS_API int idamax_(const int *n, const double *x, const int *incx) {
  return rb_blas_idamax(*n, x, *incx);
}

RB_BLAS_API void daxpy_(const int *n, const double *alpha, const double *x, const int *incx, double *y,
                        const int *incy) {
  rb_blas_daxpy(*n, *alpha, x, *incx, y, *incy);
}

RB_BLAS_API void dscal_(const int *n, const double *alpha, double *x, const int *incx) {
  rb_blas_dscal(*n, *alpha, x, *incx);
}

RB_BLAS_API void dcopy_(const int *n, const double *x, const int *incx, double *y, const int *incy) {
  rb_blas_dcopy(*n, x, *incx, y, *incy);
}

RB_BLAS_API void dswap_(const int *n, double *x, const int *incx, double *y, const int *incy) {
  rb_blas_dswap(*n, x, *incx, y, *incy);
}

RB_BLAS_API void drot_(const int *n, double *x, const int *incx, double *y, const int *incy,
                       const double *c, const double *s) {
  rb_blas_drot(*n, x, *incx, y, *incy, *c, *s);
}

RB_BLAS_API void drotm_(const int *n, double *x, const int *incx, double *y, const int *incy,
                        const double *param) {
  rb_blas_drotm(*n, x, *incx, y, *incy, param);
}

RB_BLAS_API void drotg_(double *a, double *b, double *c, double *s) { rb_blas_drotg(a, b, c, s); }

RB_BLAS_API void drotmg_(double *d1, double *d2, double *x1, const double *y1, double *param) {
  rb_blas_drotmg(d1, d2, x1, *y1, param);
}

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
