/* Correctly rounded rsqrtf(x) = 1/sqrt(x).
 *
 * For 0 < x < inf (subnormal x included: it is a normal double), the result
 * r = x^-1/2 lies in [2^-64, 2^74.5], always a normal float, never a tie.
 * An integer first guess and three Newton steps (mul/fma only: cheaper than
 * sqrt and div) give y with |y/r - 1| < 2^-34.8 (the largest error over every
 * float in [1, 4), which covers every x: 4x gives exactly y/2). Rounding y to
 * float then gives round(r) unless a float midpoint lies between them, so
 * lanes whose y is that close to a midpoint are sent to the special path,
 * which decides exactly (one lane in ~500):
 *   r > m  <=>  1/x > m^2  <=>  m^2 * x - 1 < 0   for the midpoint m;
 * m*m is exact (50 bits), so fma(m*m, x, -1) has the sign of the exact
 * m^2*x - 1 (which is never 0: x = 1/m^2 is not a dyadic number).
 */
#ifndef CR_RSQRT_H
#define CR_RSQRT_H

#include <math.h>
#include "../fputil.h"

/* Double bits below a float's 24-bit significand (52 - 23 = 29 bits). */
#define CR_RSQRT_LOW_MASK 0x1FFFFFFFLL
#define CR_RSQRT_HALF_ULP 0x10000000LL /* half a float ulp, in double bits */
/* |y - r| < 2^-34.8 y < 2^19 double ulps of y: y farther than that from a
 * midpoint rounds like r. */
#define CR_RSQRT_WINDOW 0x80000LL
/* First guess bits K - bits(x)/2: halves and negates the exponent; K was tuned
 * by a scan over [1,4). Relative error 0.034, then 1.8e-3, 4.6e-6 and 3.2e-11
 * after each Newton step. */
#define CR_RSQRT_GUESS 0x5FE6EB851EB85000LL
#define CR_RSQRT_INF_BITS 0x7FF0000000000000LL

/* y ~ x^-1/2 to 2^-34.8 relative, for positive normal doubles x. */
CR_FN vd cr_rsqrt_approx(vd x) {
  vd y = vl_as_vd(vl_sub(vl_set(CR_RSQRT_GUESS), vl_shr(vd_as_vl(x), 1)));
  vd mhx = vd_mul(x, vd_set(-0.5)); /* exact */
  for (int i = 0; i < 3; ++i) {
    /* y += y * (1 - x*y^2) / 2 */
    vd e = vd_fma(vd_mul(mhx, y), y, vd_set(0.5));
    y = vd_fma(y, e, y);
  }
  return y;
}

CR_FN vd cr_rsqrt_fast(vd x, vm *special) {
  /* 0 < x < inf  <=>  bits(x) - 1 < bits(inf) - 1 as unsigned integers, which
   * the sign flip turns into one signed compare. NaN, zeros, negatives and
   * +inf go to the special path; their lanes compute garbage meanwhile. */
  vl flip = vl_set(INT64_MIN);
  vl key = vl_xor(vl_sub(vd_as_vl(x), vl_set(1)), flip);
  *special = vl_gt(key, vl_set((CR_RSQRT_INF_BITS - 2) ^ INT64_MIN));
  vd y = cr_rsqrt_approx(x);
  /* Distance of y's low bits above (midpoint - window), wrapped: < 2 windows
   * means near the midpoint. */
  vl near = vl_and(vl_sub(vd_as_vl(y), vl_set(CR_RSQRT_HALF_ULP - CR_RSQRT_WINDOW)),
                   vl_set(CR_RSQRT_LOW_MASK));
  *special = vm_or(*special, vl_gt(vl_set(2 * CR_RSQRT_WINDOW), near));
  return y;
}

/* The exact decision for positive finite x, from any y with |y/r - 1| < 2^-25:
 * round(r) is y truncated to a float, t, or its successor (r lies within half
 * an ulp of t's bracket), and the midpoint m = t + ulp/2 decides. */
CR_FN float cr_rsqrt_decide(double x, double y) {
  int64_t t;
  memcpy(&t, &y, sizeof t);
  t &= ~CR_RSQRT_LOW_MASK;
  int64_t mb = t | CR_RSQRT_HALF_ULP;
  double m, out;
  memcpy(&m, &mb, sizeof m);
  /* t + ulp carries into the exponent when t's significand is all ones. */
  if (fma(m * m, x, -1.0) < 0.0) t += 2 * CR_RSQRT_HALF_ULP;
  memcpy(&out, &t, sizeof out);
  return (float)out; /* exact: out has 24 significant bits */
}

CR_FN float cr_rsqrt_special(float x) {
  uint32_t u = cr_f32_bits(x);
  if (u == 0x00000000u) return cr_f32_from_bits(0x7F800000u); /* +0 -> +inf */
  if (u == 0x80000000u) return cr_f32_from_bits(0xFF800000u); /* -0 -> -inf (SPEC) */
  if (u == 0x7F800000u) return 0.0f;                          /* +inf -> +0 */
  if (u >= 0x7F800000u) return cr_f32_nan();                  /* NaN, x < 0 */
  /* A fast-path lane near a midpoint: sqrt(x)/x, two roundings, gives
   * |y/r - 1| < 2^-51. (1/sqrt(x) would do as well, but nvcc turns a division
   * of the constant 1 into rcp.rn.f64, which the PTX lint rejects.) */
  double xd = (double)x;
  return cr_rsqrt_decide(xd, sqrt(xd) / xd);
}

#endif /* CR_RSQRT_H */
