/* libreproblas_blas: the reference BLAS interfaces (Fortran 77 symbols and CBLAS) over the
 * reproblas core (docs/blas.md). Internal declarations shared by blas_fortran.c, cblas.c and
 * xerbla.c; nothing here is exported except what RB_BLAS_API marks. */
#ifndef RB_BLAS_INTERNAL_H
#define RB_BLAS_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#define RB_BLAS_API __attribute__((visibility("default")))

/* The reference BLAS error handler and the CBLAS one, both overridable (weak here): a
 * program's own definition replaces them, as the netlib testers' do. */
RB_BLAS_API void xerbla_(const char *srname, const int *info, size_t srname_len);
RB_BLAS_API void cblas_xerbla(int info, const char *rout, const char *form, ...);
/* Reference CBLAS's globals, which a CBLAS error handler reads: set only around an error
 * report (RowMajorStrg: the call was row-major; CBLAS_CallFromC: it came through CBLAS). */
RB_BLAS_API extern int RowMajorStrg;
RB_BLAS_API extern int CBLAS_CallFromC;

/* Reports argument `info` of the routine `name6` (upper case, blank-padded to 6) through
 * xerbla_, with the CBLAS globals set when it came from a CBLAS call (cblas != 0). */
void rb_blas_error(const char *name6, int info, int cblas, int row_major);

/* REPROBLAS_ORDER (sequential, the default, or pairwise) as a reproblas_order value. A value
 * that names no order ends the program with a message (docs/blas.md). */
int rb_blas_order(void);

/* A C ABI status that is not success (an environment knob, no memory): the message, then
 * the program ends; the BLAS interface has no way to return it. */
void rb_blas_check(int status, const char *routine);

/* Whether the Fortran character c is `upper` (LSAME: either case). */
static inline int rb_lsame(char c, char upper) { return c == upper || c == upper + ('a' - 'A'); }

#define RB_BLAS_DECLARE(P, T)                                                                    \
  int rb_blas_##P##gemm(char ta, char tb, int m, int n, int k, T alpha, const T *a, int lda,    \
                        const T *b, int ldb, T beta, T *c, int ldc);                             \
  int rb_blas_##P##gemv(char trans, int m, int n, T alpha, const T *a, int lda, const T *x,     \
                        int incx, T beta, T *y, int incy);                                       \
  int rb_blas_##P##ger(int m, int n, T alpha, const T *x, int incx, const T *y, int incy, T *a,  \
                       int lda);                                                                 \
  int rb_blas_##P##trsv(char uplo, char trans, char diag, int n, const T *a, int lda, T *x,     \
                        int incx);                                                               \
  int rb_blas_##P##trsm(char side, char uplo, char transa, char diag, int m, int n, T alpha,    \
                        const T *a, int lda, T *b, int ldb);                                     \
  int rb_blas_##P##gbmv(int row, char trans, int m, int n, int kl, int ku, T alpha,           \
                        const T *a, int lda, const T *x, int incx, T beta, T *y, int incy);      \
  int rb_blas_##P##symv(int row, char uplo, int n, T alpha, const T *a, int lda, const T *x,     \
                        int incx, T beta, T *y, int incy);                                       \
  int rb_blas_##P##sbmv(int row, char uplo, int n, int k, T alpha, const T *a, int lda,          \
                        const T *x, int incx, T beta, T *y, int incy);                           \
  int rb_blas_##P##spmv(int row, char uplo, int n, T alpha, const T *ap, const T *x, int incx,   \
                        T beta, T *y, int incy);                                                 \
  int rb_blas_##P##trmv(int row, char uplo, char trans, char diag, int n, const T *a, int lda,   \
                        T *x, int incx);                                                         \
  int rb_blas_##P##tbmv(int row, char uplo, char trans, char diag, int n, int k, const T *a,     \
                        int lda, T *x, int incx);                                                \
  int rb_blas_##P##tpmv(int row, char uplo, char trans, char diag, int n, const T *ap, T *x,     \
                        int incx);                                                               \
  int rb_blas_##P##tbsv(int row, char uplo, char trans, char diag, int n, int k, const T *a,     \
                        int lda, T *x, int incx);                                                \
  int rb_blas_##P##tpsv(int row, char uplo, char trans, char diag, int n, const T *ap, T *x,     \
                        int incx);                                                               \
  int rb_blas_##P##syr(int row, char uplo, int n, T alpha, const T *x, int incx, T *a, int lda); \
  int rb_blas_##P##spr(int row, char uplo, int n, T alpha, const T *x, int incx, T *ap);         \
  int rb_blas_##P##syr2(int row, char uplo, int n, T alpha, const T *x, int incx, const T *y,    \
                        int incy, T *a, int lda);                                                \
  int rb_blas_##P##spr2(int row, char uplo, int n, T alpha, const T *x, int incx, const T *y,    \
                        int incy, T *ap);                                                        \
  int rb_blas_##P##trmm(int row, char side, char uplo, char transa, char diag, int m, int n,  \
                        T alpha, const T *a, int lda, T *b, int ldb);                            \
  int rb_blas_##P##symm(char side, char uplo, int m, int n, T alpha, const T *a, int lda,        \
                        const T *b, int ldb, T beta, T *c, int ldc);                             \
  int rb_blas_##P##syrk(char uplo, char trans, int n, int k, T alpha, const T *a, int lda,       \
                        T beta, T *c, int ldc);                                                  \
  int rb_blas_##P##syr2k(char uplo, char trans, int n, int k, T alpha, const T *a, int lda,      \
                         const T *b, int ldb, T beta, T *c, int ldc);                            \
  int rb_blas_##P##syr2k_row(char uplo, char trans, int n, int k, T alpha, const T *a, int lda,  \
                             const T *b, int ldb, T beta, T *c, int ldc);                        \
  T rb_blas_##P##dot(int n, const T *x, int incx, const T *y, int incy);                        \
  T rb_blas_##P##asum(int n, const T *x, int incx);                                             \
  T rb_blas_##P##nrm2(int n, const T *x, int incx);                                             \
  int rb_blas_i##P##amax(int n, const T *x, int incx);                                          \
  void rb_blas_##P##axpy(int n, T alpha, const T *x, int incx, T *y, int incy);                 \
  void rb_blas_##P##scal(int n, T alpha, T *x, int incx);                                       \
  void rb_blas_##P##copy(int64_t n, const T *x, int64_t incx, T *y, int64_t incy);              \
  void rb_blas_##P##swap(int64_t n, T *x, int64_t incx, T *y, int64_t incy);                    \
  void rb_blas_##P##rot(int64_t n, T *x, int64_t incx, T *y, int64_t incy, T c, T s);           \
  void rb_blas_##P##rotm(int64_t n, T *x, int64_t incx, T *y, int64_t incy, const T *param);    \
  void rb_blas_##P##rotg(T *a, T *b, T *c, T *s);                                               \
  void rb_blas_##P##rotmg(T *d1, T *d2, T *x1, T y1, T *param);                              \
  T rb_blas_##P##casum(int n, const T *x, int incx);                                            \
  T rb_blas_##P##cnrm2(int n, const T *x, int incx);

RB_BLAS_DECLARE(s, float)
RB_BLAS_DECLARE(d, double)
float rb_blas_sdsdot(int n, float sb, const float *x, int incx, const float *y, int incy);
double rb_blas_dsdot(int n, const float *x, int incx, const float *y, int incy);
/* The float64 dot of x, y widened (sdsdot: with the first term sb), in `order` (a
 * reproblas_order): the C ABI's status; *out the sum. */
int rb_blas_widened_dot(int64_t n, int with_sb, float sb, const float *x, int64_t incx,
                        const float *y, int64_t incy, int order, double *out);

#endif /* RB_BLAS_INTERNAL_H */
