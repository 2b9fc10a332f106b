/* Correctly rounded rsqrtf(x) = 1/sqrt(x), on float lanes.
 *
 * The fast path runs in float arithmetic (8 lanes per AVX2 vector, twice the
 * double lanes of the other functions) and needs no division or sqrt:
 *
 * 1. Scale: for a positive normal x, x = 4^j * xs with xs in [1/2, 2) (keep
 *    the mantissa and the exponent's low bit), so r = x^-1/2 = 2^-j rs with
 *    rs = xs^-1/2 in (0.7, 1.42]; 2^-j is applied exactly to the result's
 *    exponent (r lies in [2^-64, 2^74.5], always a normal float). Every
 *    intermediate then stays far from overflow and underflow.
 * 2. t ~ rs: an integer first guess and two Newton steps, |t/rs - 1| < 1e-5.
 * 3. Residual: t^2 = h + l exactly (fma), so rho/2 = (1 - xs t^2)/2 is
 *    computed from two fmas with an absolute error ~2^-42, and
 *    rs = t (1 - rho)^-1/2 = t + d,  d = t (rho/2) (1 + 1.5 rho/2),
 *    with the next term (5/16 rho^3) below 2^-49.
 * 4. Rounding: t + d is within 2^-40 of rs (checked for every xs, i.e. for
 *    every float: all inputs with the same xs take the same path). Rounding
 *    t + (d + W) and t + (d - W), W = 2^-38, gives the same float unless a
 *    float midpoint lies within ~W of t + d; then that float is round(rs).
 *    Lanes where the two differ (~1e-4 of them) go to the special path,
 *    which decides exactly. So do x <= 0, subnormal x, +inf and NaN.
 *
 * The special path's exact decision, for a double y with |y/r - 1| < 2^-25:
 * round(r) is y truncated to a float, t, or its successor, and the midpoint
 * m = t + ulp/2 decides:
 *   r > m  <=>  1/x > m^2  <=>  m^2 * x - 1 < 0;
 * m*m is exact (50 bits), so fma(m*m, x, -1) has the sign of the exact
 * m^2*x - 1 (which is never 0: x = 1/m^2 is not a dyadic number).
 */
#ifndef CR_RSQRT_H
#define CR_RSQRT_H

#include <math.h>
#include "../fputil.h"

#define CR_RSQRT_MIN_NORMAL 0x00800000 /* bits of 2^-126 */
#define CR_RSQRT_INF 0x7F800000
#define CR_RSQRT_SCALE_MASK 0x00FFFFFF /* mantissa and the exponent's low bit */
#define CR_RSQRT_HALF 0x3F000000       /* bits of 1/2 */
/* First guess bits MAGIC - bits(xs)/2 (relative error < 0.035). */
#define CR_RSQRT_MAGIC 0x5F37642F
#define CR_RSQRT_WINDOW 0x1p-38f

CR_FN vf cr_rsqrt_fast_f32(vf x, vmf *special) {
  vi bx = vf_as_vi(x);
  /* Positive normal x  <=>  bits(x) - MIN_NORMAL < INF - MIN_NORMAL as
   * unsigned integers, which the sign flip turns into one signed compare. */
  vi key = vi_xor(vi_sub(bx, vi_set(CR_RSQRT_MIN_NORMAL)), vi_set(INT32_MIN));
  vmf out_of_range = vi_gt(key, vi_set((CR_RSQRT_INF - CR_RSQRT_MIN_NORMAL - 1) ^ INT32_MIN));
  vi bxs = vi_or(vi_and(bx, vi_set(CR_RSQRT_SCALE_MASK)), vi_set(CR_RSQRT_HALF));
  vi j_exp = vi_sra(vi_sub(bx, bxs), 1); /* j in the exponent field */
  vf mhx = vf_mul(vi_as_vf(bxs), vf_set(-0.5f)); /* -xs/2, exact */
  vf t = vi_as_vf(vi_sub(vi_set(CR_RSQRT_MAGIC), vi_shr(bxs, 1)));
  for (int i = 0; i < 2; ++i) {
    /* t += t * (1 - xs t^2) / 2 */
    vf e = vf_fma(vf_mul(mhx, t), t, vf_set(0.5f));
    t = vf_fma(t, e, t);
  }
  vf h = vf_mul(t, t);
  vf l = vf_fma(t, t, vf_neg(h)); /* t^2 - h, exact */
  vf half_rho = vf_fma(mhx, l, vf_fma(mhx, h, vf_set(0.5f)));
  vf d = vf_mul(vf_mul(t, half_rho), vf_fma(half_rho, vf_set(1.5f), vf_set(1.0f)));
  vf hi = vf_add(t, vf_add(d, vf_set(CR_RSQRT_WINDOW)));
  vf lo = vf_add(t, vf_sub(d, vf_set(CR_RSQRT_WINDOW)));
  *special = vmf_or(out_of_range, vf_ne(hi, lo));
  return vi_as_vf(vi_sub(vf_as_vi(hi), j_exp));
}

#if VFW == 1
/* The one-lane form of the common interface (CUDA kernels, scalar calls). */
CR_FN vd cr_rsqrt_fast(vd x, vm *special) {
  vmf s;
  vf r = cr_rsqrt_fast_f32((vf)x, &s); /* exact: x holds a float */
  *special = s;
  return (vd)r;
}
#endif

/* Bits of a double below a float's 24-bit significand (52 - 23 = 29 bits). */
#define CR_RSQRT_LOW_MASK 0x1FFFFFFFLL
#define CR_RSQRT_HALF_ULP 0x10000000LL /* half a float ulp, in double bits */

/* round(1/sqrt(x)) for positive finite x, from y with |y/r - 1| < 2^-25. */
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
  /* Subnormal x, or a fast-path lane near a midpoint: sqrt(x)/x, two
   * roundings, gives |y/r - 1| < 2^-51. (1/sqrt(x) would do as well, but nvcc
   * turns a division of the constant 1 into rcp.rn.f64, which the PTX lint
   * rejects.) */
  double xd = (double)x;
  return cr_rsqrt_decide(xd, sqrt(xd) / xd);
}

#endif /* CR_RSQRT_H */
