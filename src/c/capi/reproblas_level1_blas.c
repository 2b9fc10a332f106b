/* The C ABI's rest of level 1 (reproblas.h): rot, rotm, rotg, rotmg, swap, copy, sdsdot,
 * dsdot (docs/contract.md §3.5). The same code as the drop-in BLAS (blas_impl.c) behind the C
 * ABI's conventions: a status return, LAPACK-style argument positions, inc = 0 invalid, the
 * environment knobs checked at every call, and the order as an argument. */
#include <stdint.h>

#include "blas_internal.h"
#include "env.h"
#include "reproblas.h"

/* The knobs (contract §4.2), checked as by every C ABI call although no result here depends
 * on them: a bad value is the same status everywhere. */
static int rb_knobs_status(void) {
  int isa, threads;
  int status = capi_isa_from_env("REPROBLAS_ISA", &isa);
  if (status != 0) return status;
  return capi_positive_int_from_env("REPROBLAS_NUM_THREADS", &threads) < 0
             ? REPROBLAS_ERR_THREADS : REPROBLAS_SUCCESS;
}

/* n elements inc apart, addressable as reproblas.h says (inc = 0 invalid). */
static int rb_vec_ok(int64_t n, int64_t inc, size_t size) {
  if (inc == 0 || inc == INT64_MIN) return 0;
  if (n <= 1) return 1;
  int64_t span, bytes;
  return !__builtin_mul_overflow(n - 1, inc < 0 ? -inc : inc, &span) &&
         !__builtin_add_overflow(span, 1, &span) &&
         !__builtin_mul_overflow(span, (int64_t)size, &bytes);
}

/* Arguments n, x, incx, y, incy at positions 1-5. */
static int rb_pair_check(int64_t n, const void *x, int64_t incx, const void *y, int64_t incy,
                         size_t size) {
  if (n < 0) return -1;
  if (x == NULL && n > 0) return -2;
  if (!rb_vec_ok(n, incx, size)) return -3;
  if (y == NULL && n > 0) return -4;
  if (!rb_vec_ok(n, incy, size)) return -5;
  return rb_knobs_status();
}

int reproblas_srot(int64_t n, float *x, int64_t incx, float *y, int64_t incy, float c, float s) {
  int status = rb_pair_check(n, x, incx, y, incy, sizeof(float));
  if (status == 0) rb_blas_srot(n, x, incx, y, incy, c, s);
  return status;
}

int reproblas_srotm(int64_t n, float *x, int64_t incx, float *y, int64_t incy, const float *param) {
  int status = rb_pair_check(n, x, incx, y, incy, sizeof(float));
  if (status == 0 && param == NULL) status = -6;
  if (status == 0) rb_blas_srotm(n, x, incx, y, incy, param);
  return status;
}

int reproblas_sswap(int64_t n, float *x, int64_t incx, float *y, int64_t incy) {
  int status = rb_pair_check(n, x, incx, y, incy, sizeof(float));
  if (status == 0) rb_blas_sswap(n, x, incx, y, incy);
  return status;
}

int reproblas_scopy(int64_t n, const float *x, int64_t incx, float *y, int64_t incy) {
  int status = rb_pair_check(n, x, incx, y, incy, sizeof(float));
  if (status == 0) rb_blas_scopy(n, x, incx, y, incy);
  return status;
}

int reproblas_srotg(float *a, float *b, float *c, float *s) {
  if (a == NULL) return -1;
  if (b == NULL) return -2;
  if (c == NULL) return -3;
  if (s == NULL) return -4;
  int status = rb_knobs_status();
  if (status == 0) rb_blas_srotg(a, b, c, s);
  return status;
}

int reproblas_srotmg(float *d1, float *d2, float *x1, float y1, float *param) {
  if (d1 == NULL) return -1;
  if (d2 == NULL) return -2;
  if (x1 == NULL) return -3;
  if (param == NULL) return -5;
  int status = rb_knobs_status();
  if (status == 0) rb_blas_srotmg(d1, d2, x1, y1, param);
  return status;
}

int reproblas_drot(int64_t n, double *x, int64_t incx, double *y, int64_t incy, double c, double s) {
  int status = rb_pair_check(n, x, incx, y, incy, sizeof(double));
  if (status == 0) rb_blas_drot(n, x, incx, y, incy, c, s);
  return status;
}

int reproblas_drotm(int64_t n, double *x, int64_t incx, double *y, int64_t incy, const double *param) {
  int status = rb_pair_check(n, x, incx, y, incy, sizeof(double));
  if (status == 0 && param == NULL) status = -6;
  if (status == 0) rb_blas_drotm(n, x, incx, y, incy, param);
  return status;
}

int reproblas_dswap(int64_t n, double *x, int64_t incx, double *y, int64_t incy) {
  int status = rb_pair_check(n, x, incx, y, incy, sizeof(double));
  if (status == 0) rb_blas_dswap(n, x, incx, y, incy);
  return status;
}

int reproblas_dcopy(int64_t n, const double *x, int64_t incx, double *y, int64_t incy) {
  int status = rb_pair_check(n, x, incx, y, incy, sizeof(double));
  if (status == 0) rb_blas_dcopy(n, x, incx, y, incy);
  return status;
}

int reproblas_drotg(double *a, double *b, double *c, double *s) {
  if (a == NULL) return -1;
  if (b == NULL) return -2;
  if (c == NULL) return -3;
  if (s == NULL) return -4;
  int status = rb_knobs_status();
  if (status == 0) rb_blas_drotg(a, b, c, s);
  return status;
}

int reproblas_drotmg(double *d1, double *d2, double *x1, double y1, double *param) {
  if (d1 == NULL) return -1;
  if (d2 == NULL) return -2;
  if (x1 == NULL) return -3;
  if (param == NULL) return -5;
  int status = rb_knobs_status();
  if (status == 0) rb_blas_drotmg(d1, d2, x1, y1, param);
  return status;
}

int reproblas_dsdot(int64_t n, const float *x, int64_t incx, const float *y, int64_t incy,
                    double *result, reproblas_order order) {
  int status = rb_pair_check(n, x, incx, y, incy, sizeof(float));
  if (status != 0) return status;
  if (result == NULL) return -6;
  if (order != ReproblasSequential && order != ReproblasPairwise) return -7;
  return rb_blas_widened_dot(n, 0, 0.0f, x, incx, y, incy, order, result);
}

int reproblas_sdsdot(int64_t n, float sb, const float *x, int64_t incx, const float *y,
                     int64_t incy, float *result, reproblas_order order) {
  /* positions: n 1, sb 2, x 3, incx 4, y 5, incy 6, result 7, order 8 */
  int status = rb_pair_check(n, x, incx, y, incy, sizeof(float));
  if (status < 0) return status - (status <= -2); /* shifted by sb */
  if (status != 0) return status;
  if (result == NULL) return -7;
  if (order != ReproblasSequential && order != ReproblasPairwise) return -8;
  double r;
  status = rb_blas_widened_dot(n, 1, sb, x, incx, y, incy, order, &r);
  if (status == 0) *result = (float)r;
  return status;
}
