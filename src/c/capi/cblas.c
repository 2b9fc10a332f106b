/* libreproblas_blas: the CBLAS interface (cblas_sgemm, ..., CblasRowMajor and CblasColMajor)
 * over the same checked routines as the Fortran symbols (blas_fortran.c). A row-major call is
 * the column-major call on the transposed problem, as in the reference CBLAS; an argument the
 * CBLAS layer checks itself (layout, transpose, uplo, diag, side) is reported through
 * cblas_xerbla with its CBLAS position, the others through xerbla_ with the CBLAS globals set
 * (docs/blas.md). */
#include <stddef.h>

#include "blas_internal.h"

enum { RB_ROW = 101, RB_COL = 102, RB_NOTRANS = 111, RB_TRANS = 112, RB_CONJTRANS = 113,
       RB_UPPER = 121, RB_LOWER = 122, RB_NONUNIT = 131, RB_UNIT = 132, RB_LEFT = 141,
       RB_RIGHT = 142 };

/* 'N'/'T' for a valid CBLAS transpose (swapped: the transposed problem's), else 0. */
static char rb_trans(int t, int swapped) {
  if (t == RB_NOTRANS) return swapped ? 'T' : 'N';
  if (t == RB_TRANS) return swapped ? 'N' : 'T';
  if (t == RB_CONJTRANS) return swapped ? 'N' : 'C';
  return 0;
}
static char rb_uplo(int u, int swapped) {
  if (u == RB_UPPER) return swapped ? 'L' : 'U';
  if (u == RB_LOWER) return swapped ? 'U' : 'L';
  return 0;
}
static char rb_diag(int d) { return d == RB_UNIT ? 'U' : d == RB_NONUNIT ? 'N' : 0; }
static char rb_side(int s, int swapped) {
  if (s == RB_LEFT) return swapped ? 'R' : 'L';
  if (s == RB_RIGHT) return swapped ? 'L' : 'R';
  return 0;
}

#define RB_BAD_LAYOUT(name, layout) cblas_xerbla(1, name, "Illegal layout setting, %d\n", layout)

RB_BLAS_API void cblas_sgemm(int layout, int transa, int transb, int m, int n, int k, float alpha,
                             const float *a, int lda, const float *b, int ldb, float beta, float *c,
                             int ldc) {
  if (layout != RB_COL && layout != RB_ROW) {
    RB_BAD_LAYOUT("cblas_sgemm", layout);
    return;
  }
  int row = layout == RB_ROW;
  char ta = rb_trans(transa, 0), tb = rb_trans(transb, 0);
  if (!ta) {
    cblas_xerbla(2, "cblas_sgemm", "Illegal TransA setting, %d\n", transa);
    return;
  }
  if (!tb) {
    cblas_xerbla(3, "cblas_sgemm", "Illegal TransB setting, %d\n", transb);
    return;
  }
  int info = row ? rb_blas_sgemm(tb, ta, n, m, k, alpha, b, ldb, a, lda, beta, c, ldc)
                 : rb_blas_sgemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  if (info) rb_blas_error("SGEMM ", info, 1, row);
}

RB_BLAS_API void cblas_sgemv(int layout, int trans, int m, int n, float alpha, const float *a,
                             int lda, const float *x, int incx, float beta, float *y, int incy) {
  if (layout != RB_COL && layout != RB_ROW) {
    RB_BAD_LAYOUT("cblas_sgemv", layout);
    return;
  }
  int row = layout == RB_ROW;
  char t = rb_trans(trans, row);
  if (!t) {
    cblas_xerbla(2, "cblas_sgemv", "Illegal TransA setting, %d\n", trans);
    return;
  }
  int info = row ? rb_blas_sgemv(t, n, m, alpha, a, lda, x, incx, beta, y, incy)
                 : rb_blas_sgemv(t, m, n, alpha, a, lda, x, incx, beta, y, incy);
  if (info) rb_blas_error("SGEMV ", info, 1, row);
}

RB_BLAS_API void cblas_sger(int layout, int m, int n, float alpha, const float *x, int incx,
                            const float *y, int incy, float *a, int lda) {
  if (layout != RB_COL && layout != RB_ROW) {
    RB_BAD_LAYOUT("cblas_sger", layout);
    return;
  }
  int row = layout == RB_ROW;
  int info = row ? rb_blas_sger(n, m, alpha, y, incy, x, incx, a, lda)
                 : rb_blas_sger(m, n, alpha, x, incx, y, incy, a, lda);
  if (info) rb_blas_error("SGER  ", info, 1, row);
}

RB_BLAS_API void cblas_strsv(int layout, int uplo, int trans, int diag, int n, const float *a,
                             int lda, float *x, int incx) {
  if (layout != RB_COL && layout != RB_ROW) {
    RB_BAD_LAYOUT("cblas_strsv", layout);
    return;
  }
  int row = layout == RB_ROW;
  char u = rb_uplo(uplo, row), t = rb_trans(trans, row), d = rb_diag(diag);
  if (!u) {
    cblas_xerbla(2, "cblas_strsv", "Illegal Uplo setting, %d\n", uplo);
    return;
  }
  if (!t) {
    cblas_xerbla(3, "cblas_strsv", "Illegal TransA setting, %d\n", trans);
    return;
  }
  if (!d) {
    cblas_xerbla(4, "cblas_strsv", "Illegal Diag setting, %d\n", diag);
    return;
  }
  int info = rb_blas_strsv(u, t, d, n, a, lda, x, incx);
  if (info) rb_blas_error("STRSV ", info, 1, row);
}

RB_BLAS_API void cblas_strsm(int layout, int side, int uplo, int transa, int diag, int m, int n,
                             float alpha, const float *a, int lda, float *b, int ldb) {
  if (layout != RB_COL && layout != RB_ROW) {
    RB_BAD_LAYOUT("cblas_strsm", layout);
    return;
  }
  int row = layout == RB_ROW;
  char s = rb_side(side, row), u = rb_uplo(uplo, row), t = rb_trans(transa, 0), d = rb_diag(diag);
  if (!s) {
    cblas_xerbla(2, "cblas_strsm", "Illegal Side setting, %d\n", side);
    return;
  }
  if (!u) {
    cblas_xerbla(3, "cblas_strsm", "Illegal Uplo setting, %d\n", uplo);
    return;
  }
  if (!t) {
    cblas_xerbla(4, "cblas_strsm", "Illegal Trans setting, %d\n", transa);
    return;
  }
  if (!d) {
    cblas_xerbla(5, "cblas_strsm", "Illegal Diag setting, %d\n", diag);
    return;
  }
  int info = row ? rb_blas_strsm(s, u, t, d, n, m, alpha, a, lda, b, ldb)
                 : rb_blas_strsm(s, u, t, d, m, n, alpha, a, lda, b, ldb);
  if (info) rb_blas_error("STRSM ", info, 1, row);
}

RB_BLAS_API float cblas_sdot(int n, const float *x, int incx, const float *y, int incy) {
  return rb_blas_sdot(n, x, incx, y, incy);
}
RB_BLAS_API float cblas_sasum(int n, const float *x, int incx) { return rb_blas_sasum(n, x, incx); }
RB_BLAS_API float cblas_snrm2(int n, const float *x, int incx) { return rb_blas_snrm2(n, x, incx); }
/* 0-based, as the reference CBLAS (0 also for n < 1). */
RB_BLAS_API size_t cblas_isamax(int n, const float *x, int incx) {
  int k = rb_blas_isamax(n, x, incx);
  return k ? (size_t)(k - 1) : 0;
}
RB_BLAS_API void cblas_saxpy(int n, float alpha, const float *x, int incx, float *y, int incy) {
  rb_blas_saxpy(n, alpha, x, incx, y, incy);
}
RB_BLAS_API void cblas_sscal(int n, float alpha, float *x, int incx) { rb_blas_sscal(n, alpha, x, incx); }
RB_BLAS_API void cblas_scopy(int n, const float *x, int incx, float *y, int incy) {
  rb_blas_scopy(n, x, incx, y, incy);
}
RB_BLAS_API void cblas_sswap(int n, float *x, int incx, float *y, int incy) {
  rb_blas_sswap(n, x, incx, y, incy);
}
RB_BLAS_API void cblas_srot(int n, float *x, int incx, float *y, int incy, float c, float s) {
  rb_blas_srot(n, x, incx, y, incy, c, s);
}
RB_BLAS_API void cblas_srotm(int n, float *x, int incx, float *y, int incy, const float *param) {
  rb_blas_srotm(n, x, incx, y, incy, param);
}
RB_BLAS_API void cblas_srotg(float *a, float *b, float *c, float *s) { rb_blas_srotg(a, b, c, s); }
RB_BLAS_API void cblas_srotmg(float *d1, float *d2, float *x1, float y1, float *param) {
  rb_blas_srotmg(d1, d2, x1, y1, param);
}

RB_BLAS_API void cblas_dgemm(int layout, int transa, int transb, int m, int n, int k, double alpha,
                             const double *a, int lda, const double *b, int ldb, double beta, double *c,
                             int ldc) {
  if (layout != RB_COL && layout != RB_ROW) {
    RB_BAD_LAYOUT("cblas_dgemm", layout);
    return;
  }
  int row = layout == RB_ROW;
  char ta = rb_trans(transa, 0), tb = rb_trans(transb, 0);
  if (!ta) {
    cblas_xerbla(2, "cblas_dgemm", "Illegal TransA setting, %d\n", transa);
    return;
  }
  if (!tb) {
    cblas_xerbla(3, "cblas_dgemm", "Illegal TransB setting, %d\n", transb);
    return;
  }
  int info = row ? rb_blas_dgemm(tb, ta, n, m, k, alpha, b, ldb, a, lda, beta, c, ldc)
                 : rb_blas_dgemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  if (info) rb_blas_error("DGEMM ", info, 1, row);
}

RB_BLAS_API void cblas_dgemv(int layout, int trans, int m, int n, double alpha, const double *a,
                             int lda, const double *x, int incx, double beta, double *y, int incy) {
  if (layout != RB_COL && layout != RB_ROW) {
    RB_BAD_LAYOUT("cblas_dgemv", layout);
    return;
  }
  int row = layout == RB_ROW;
  char t = rb_trans(trans, row);
  if (!t) {
    cblas_xerbla(2, "cblas_dgemv", "Illegal TransA setting, %d\n", trans);
    return;
  }
  int info = row ? rb_blas_dgemv(t, n, m, alpha, a, lda, x, incx, beta, y, incy)
                 : rb_blas_dgemv(t, m, n, alpha, a, lda, x, incx, beta, y, incy);
  if (info) rb_blas_error("DGEMV ", info, 1, row);
}

RB_BLAS_API void cblas_dger(int layout, int m, int n, double alpha, const double *x, int incx,
                            const double *y, int incy, double *a, int lda) {
  if (layout != RB_COL && layout != RB_ROW) {
    RB_BAD_LAYOUT("cblas_dger", layout);
    return;
  }
  int row = layout == RB_ROW;
  int info = row ? rb_blas_dger(n, m, alpha, y, incy, x, incx, a, lda)
                 : rb_blas_dger(m, n, alpha, x, incx, y, incy, a, lda);
  if (info) rb_blas_error("DGER  ", info, 1, row);
}

RB_BLAS_API void cblas_dtrsv(int layout, int uplo, int trans, int diag, int n, const double *a,
                             int lda, double *x, int incx) {
  if (layout != RB_COL && layout != RB_ROW) {
    RB_BAD_LAYOUT("cblas_dtrsv", layout);
    return;
  }
  int row = layout == RB_ROW;
  char u = rb_uplo(uplo, row), t = rb_trans(trans, row), d = rb_diag(diag);
  if (!u) {
    cblas_xerbla(2, "cblas_dtrsv", "Illegal Uplo setting, %d\n", uplo);
    return;
  }
  if (!t) {
    cblas_xerbla(3, "cblas_dtrsv", "Illegal TransA setting, %d\n", trans);
    return;
  }
  if (!d) {
    cblas_xerbla(4, "cblas_dtrsv", "Illegal Diag setting, %d\n", diag);
    return;
  }
  int info = rb_blas_dtrsv(u, t, d, n, a, lda, x, incx);
  if (info) rb_blas_error("DTRSV ", info, 1, row);
}

RB_BLAS_API void cblas_dtrsm(int layout, int side, int uplo, int transa, int diag, int m, int n,
                             double alpha, const double *a, int lda, double *b, int ldb) {
  if (layout != RB_COL && layout != RB_ROW) {
    RB_BAD_LAYOUT("cblas_dtrsm", layout);
    return;
  }
  int row = layout == RB_ROW;
  char s = rb_side(side, row), u = rb_uplo(uplo, row), t = rb_trans(transa, 0), d = rb_diag(diag);
  if (!s) {
    cblas_xerbla(2, "cblas_dtrsm", "Illegal Side setting, %d\n", side);
    return;
  }
  if (!u) {
    cblas_xerbla(3, "cblas_dtrsm", "Illegal Uplo setting, %d\n", uplo);
    return;
  }
  if (!t) {
    cblas_xerbla(4, "cblas_dtrsm", "Illegal Trans setting, %d\n", transa);
    return;
  }
  if (!d) {
    cblas_xerbla(5, "cblas_dtrsm", "Illegal Diag setting, %d\n", diag);
    return;
  }
  int info = row ? rb_blas_dtrsm(s, u, t, d, n, m, alpha, a, lda, b, ldb)
                 : rb_blas_dtrsm(s, u, t, d, m, n, alpha, a, lda, b, ldb);
  if (info) rb_blas_error("DTRSM ", info, 1, row);
}

RB_BLAS_API double cblas_ddot(int n, const double *x, int incx, const double *y, int incy) {
  return rb_blas_ddot(n, x, incx, y, incy);
}
RB_BLAS_API double cblas_dasum(int n, const double *x, int incx) { return rb_blas_dasum(n, x, incx); }
RB_BLAS_API double cblas_dnrm2(int n, const double *x, int incx) { return rb_blas_dnrm2(n, x, incx); }
/* 0-based, as the reference CBLAS (0 also for n < 1). */
RB_BLAS_API size_t cblas_idamax(int n, const double *x, int incx) {
  int k = rb_blas_idamax(n, x, incx);
  return k ? (size_t)(k - 1) : 0;
}
RB_BLAS_API void cblas_daxpy(int n, double alpha, const double *x, int incx, double *y, int incy) {
  rb_blas_daxpy(n, alpha, x, incx, y, incy);
}
RB_BLAS_API void cblas_dscal(int n, double alpha, double *x, int incx) { rb_blas_dscal(n, alpha, x, incx); }
RB_BLAS_API void cblas_dcopy(int n, const double *x, int incx, double *y, int incy) {
  rb_blas_dcopy(n, x, incx, y, incy);
}
RB_BLAS_API void cblas_dswap(int n, double *x, int incx, double *y, int incy) {
  rb_blas_dswap(n, x, incx, y, incy);
}
RB_BLAS_API void cblas_drot(int n, double *x, int incx, double *y, int incy, double c, double s) {
  rb_blas_drot(n, x, incx, y, incy, c, s);
}
RB_BLAS_API void cblas_drotm(int n, double *x, int incx, double *y, int incy, const double *param) {
  rb_blas_drotm(n, x, incx, y, incy, param);
}
RB_BLAS_API void cblas_drotg(double *a, double *b, double *c, double *s) { rb_blas_drotg(a, b, c, s); }
RB_BLAS_API void cblas_drotmg(double *d1, double *d2, double *x1, double y1, double *param) {
  rb_blas_drotmg(d1, d2, x1, y1, param);
}

RB_BLAS_API float cblas_sdsdot(int n, float sb, const float *x, int incx, const float *y,
                               int incy) {
  return rb_blas_sdsdot(n, sb, x, incx, y, incy);
}
RB_BLAS_API double cblas_dsdot(int n, const float *x, int incx, const float *y, int incy) {
  return rb_blas_dsdot(n, x, incx, y, incy);
}

/* x: n complex elements (interleaved re, im), incx counted in complex elements. */
RB_BLAS_API float cblas_scasum(int n, const void *x, int incx) {
  return rb_blas_scasum(n, (const float *)x, incx);
}
RB_BLAS_API float cblas_scnrm2(int n, const void *x, int incx) {
  return rb_blas_scnrm2(n, (const float *)x, incx);
}

/* x: n complex elements (interleaved re, im), incx counted in complex elements. */
RB_BLAS_API double cblas_dzasum(int n, const void *x, int incx) {
  return rb_blas_dcasum(n, (const double *)x, incx);
}
RB_BLAS_API double cblas_dznrm2(int n, const void *x, int incx) {
  return rb_blas_dcnrm2(n, (const double *)x, incx);
}
