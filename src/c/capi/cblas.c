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

#define RB_CAT3_(a, b, c) a##b##c
#define RB_CAT3(a, b, c) RB_CAT3_(a, b, c)

#define P s
#define T float
#define PS "S"
#define PL "cblas_s"
#include "cblas_typed.inc"
#undef P
#undef T
#undef PS
#undef PL

#define P d
#define T double
#define PS "D"
#define PL "cblas_d"
#include "cblas_typed.inc"
#undef P
#undef T
#undef PS
#undef PL

/* The routines of one type only. */
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
