/* Correctly rounded rsqrtf(x) = 1/sqrt(x).
 *
 * For 0 < x < inf (subnormal x included: it is a normal double), the result
 * r = x^-1/2 lies in [2^-64, 2^74.5], always a normal float, never a tie.
 * A candidate y with |y/r - 1| < 2^-34 comes from an integer first guess and
 * three Newton steps (mul/fma only: cheaper than sqrt and div). Any
 * |y/r - 1| < 2^-25 makes round(r) either t or its successor, t being y
 * truncated to a float (r lies within half an ulp of t's bracket), and the midpoint
 * m = t + ulp/2 (25 significant bits) decides exactly:
 *   r > m  <=>  1/x > m^2  <=>  m^2 * x - 1 < 0.
 * m*m is exact (50 bits), so fma(m*m, x, -1) has the sign of the exact
 * m^2*x - 1 (which is never 0: x = 1/m^2 is not a dyadic number).
 */
#ifndef CR_RSQRT_H
#define CR_RSQRT_H

#include "../fputil.h"

/* Double bits below a float's 24-bit significand (52 - 23 = 29 bits). */
#define CR_RSQRT_LOW_MASK 0x1FFFFFFFLL
#define CR_RSQRT_HALF_ULP 0x10000000LL /* half a float ulp, in double bits */
#define CR_RSQRT_ULP 0x20000000LL      /* one float ulp, in double bits */
/* First guess bits K - bits(x)/2: halves and negates the exponent; K was tuned
 * by a scan over [1,4), which covers every x since 4x gives exactly y/2. On a
 * 2e6-point grid of [1,4) the relative error is 0.034, then 1.8e-3, 4.6e-6 and
 * 3.2e-11 after each Newton step (even 0.05 would end below 2^-30). */
#define CR_RSQRT_GUESS 0x5FE6EB851EB85000LL

/* y ~ x^-1/2 to 3.3e-11 relative, for positive normal doubles x. */
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
  /* Ordered compares: NaN, zeros, negatives and +inf go to the scalar path. */
  *special = vm_not(vm_and(vd_gt(x, vd_set(0.0)), vd_lt(x, vd_set(0x1p128))));
  x = vd_select(*special, vd_set(1.0), x);
  vd y = cr_rsqrt_approx(x);
  vl t = vl_and(vd_as_vl(y), vl_set(~CR_RSQRT_LOW_MASK));
  vd m = vl_as_vd(vl_or(t, vl_set(CR_RSQRT_HALF_ULP)));
  vd d = vd_fma(vd_mul(m, m), x, vd_set(-1.0));
  /* t + ulp carries into the exponent when t's significand is all ones. */
  vl up = vl_add(t, vl_set(CR_RSQRT_ULP));
  return vd_select(vd_lt(d, vd_set(0.0)), vl_as_vd(up), vl_as_vd(t));
}

CR_FN float cr_rsqrt_special(float x) {
  uint32_t u = cr_f32_bits(x);
  if (u == 0x00000000u) return cr_f32_from_bits(0x7F800000u); /* +0 -> +inf */
  if (u == 0x80000000u) return cr_f32_from_bits(0xFF800000u); /* -0 -> -inf (SPEC) */
  if (u == 0x7F800000u) return 0.0f;                          /* +inf -> +0 */
  return cr_f32_nan(); /* NaN, x < 0 */
}

#endif /* CR_RSQRT_H */
