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

#define RB_CAT3_(a, b, c) a##b##c
#define RB_CAT3(a, b, c) RB_CAT3_(a, b, c)

#define P s
#define T float
#include "reproblas_level1_typed.inc"
#undef P
#undef T

#define P d
#define T double
#include "reproblas_level1_typed.inc"
#undef P
#undef T

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
