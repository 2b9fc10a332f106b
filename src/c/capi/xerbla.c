/* The error handlers of the BLAS interfaces: xerbla_ (reference BLAS) and cblas_xerbla
 * (reference CBLAS), and the CBLAS globals they read. Both handlers are weak and are called
 * through the dynamic symbol table, so a program's own definition replaces them, as in the
 * reference libraries (the netlib testers rely on it). Unlike the reference, the default
 * handlers print and return instead of stopping the program: the call that found the bad
 * argument then does nothing (docs/blas.md). */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blas_internal.h"

RB_BLAS_API int RowMajorStrg = 0;
RB_BLAS_API int CBLAS_CallFromC = 0;

/* The reference message: " ** On entry to SGEMM  parameter number  8 had an illegal value". */
RB_BLAS_API __attribute__((weak)) void xerbla_(const char *srname, const int *info,
                                               size_t srname_len) {
  char name[16] = {0};
  size_t len = srname_len < 6 ? srname_len : 6; /* the reference's CHARACTER*6 names */
  if (srname != NULL) memcpy(name, srname, len);
  if (CBLAS_CallFromC) { /* reached from a CBLAS call: report it as CBLAS does */
    char rout[24] = "cblas_";
    size_t k = 6;
    for (size_t i = 0; i < len && name[i] != ' '; ++i) rout[k++] = (char)tolower((unsigned char)name[i]);
    rout[k] = '\0';
    cblas_xerbla(*info + 1, rout, "");
    return;
  }
  for (size_t i = len; i < 6; ++i) name[i] = ' ';
  fprintf(stderr, " ** On entry to %.6s parameter number %2d had an illegal value\n", name,
          *info);
}

/* A row-major CBLAS call passes its arguments to the column-major routine in another order;
 * the reported position is the CBLAS argument's (the reference CBLAS's mapping, for the
 * routines this library has). */
static int rb_cblas_row_major_position(int info, const char *rout) {
  if (strstr(rout, "gemm") != NULL) {
    if (info == 5) return 4;
    if (info == 4) return 5;
    if (info == 11) return 9;
    if (info == 9) return 11;
  } else if (strstr(rout, "symm") != NULL) { /* m, n exchanged */
    if (info == 5) return 4;
    if (info == 4) return 5;
  } else if (strstr(rout, "trsm") != NULL || strstr(rout, "trmm") != NULL) {
    if (info == 7) return 6;
    if (info == 6) return 7;
  } else if (strstr(rout, "gbmv") != NULL) { /* m, n and kl, ku exchanged */
    if (info == 4) return 3;
    if (info == 3) return 4;
    if (info == 6) return 5;
    if (info == 5) return 6;
  } else if (strstr(rout, "gemv") != NULL) {
    if (info == 4) return 3;
    if (info == 3) return 4;
  } else if (strstr(rout, "ger") != NULL) {
    if (info == 3) return 2;
    if (info == 2) return 3;
    if (info == 8) return 6;
    if (info == 6) return 8;
  }
  return info;
}

RB_BLAS_API __attribute__((weak)) void cblas_xerbla(int info, const char *rout, const char *form,
                                                    ...) {
  if (RowMajorStrg) info = rb_cblas_row_major_position(info, rout);
  if (info) fprintf(stderr, "Parameter %d to routine %s was incorrect\n", info, rout);
  va_list ap;
  va_start(ap, form);
  vfprintf(stderr, form, ap);
  va_end(ap);
}

void rb_blas_error(const char *name6, int info, int cblas, int row_major) {
  if (cblas) {
    CBLAS_CallFromC = 1;
    RowMajorStrg = row_major;
  }
  xerbla_(name6, &info, 6);
  if (cblas) {
    CBLAS_CallFromC = 0;
    RowMajorStrg = 0;
  }
}
