/* Correctly rounded rsqrtf(x) = 1/sqrt(x), on float lanes.
 *
 * The fast path runs in float arithmetic, 8 lanes per AVX2 vector (twice the
 * double lanes of the other functions):
 *
 * 1. Scale: a positive normal x is 4^j * xs with xs in [1/2, 2) (keep the
 *    mantissa and the exponent's low bit), so r = x^-1/2 = 2^-j rs with
 *    rs = xs^-1/2 in (0.7, 1.42]; 2^-j goes exactly into the result's
 *    exponent (r lies in [2^-64, 2^74.5], always a normal float), and every
 *    intermediate below stays far from overflow and underflow.
 * 2. t = sqrt(xs) / xs, two roundings: |t/rs - 1| < 2^-22.9.
 * 3. Residual: t^2 = h + l exactly (fma), so rho/2 = (1 - xs t^2)/2 comes
 *    out of two fmas with an absolute error below 2^-47, and
 *    rs = t (1 - rho)^-1/2 = t + d,  d = t rho/2  (next term 3/8 rho^2 t).
 * 4. Rounding: t + d is within 2^-44 of rs. Rounding t + (d + W) and
 *    t + (d - W), W = 2^-40, gives the same float unless a float midpoint
 *    lies within ~W of t + d, and then that float is round(rs). Lanes where
 *    the two differ (~2e-5 of them) go to the special path, which decides
 *    exactly; so do x <= 0, subnormal x, +inf and NaN.
 * Every input with the same xs takes the same path, so running the fast path
 * on all 2^24 values of xs checks it for every float (with W = 2^-45 it is
 * still always right); crlibm_py.verify checks all 2^32 inputs.
 *
 * The special path's exact decision, for a double y with |y/r - 1| < 2^-25:
 * round(r) is y truncated to a float, t, or its successor, and the midpoint
 * m = t + ulp/2 decides:
 *   r > m  <=>  1/x > m^2  <=>  m^2 * x - 1 < 0;
 * m*m is exact (50 bits), so fma(m*m, x, -1) has the sign of the exact
 * m^2*x - 1 (which is never 0: x = 1/m^2 is not a dyadic number).
 *
 * sqrt(x)/x rather than 1/sqrt(x): nvcc turns a division of the constant 1
 * into rcp.rn, which the PTX lint rejects.
 */
#ifndef CR_RSQRT_H
#define CR_RSQRT_H

#include <math.h>
#include "../fputil.h"

#define CR_RSQRT_MIN_NORMAL 0x00800000 /* bits of 2^-126 */
#define CR_RSQRT_INF 0x7F800000
#define CR_RSQRT_SCALE_MASK 0x00FFFFFF /* mantissa and the exponent's low bit */
#define CR_RSQRT_HALF 0x3F000000       /* bits of 1/2 */
#define CR_RSQRT_WINDOW 0x1p-40f

CR_FN v32 cr_rsqrt_fast_f32(v32 x, v32m *special) {
  v32i bx = v32_as_v32i(x);
  /* Positive normal x  <=>  bits(x) - MIN_NORMAL < INF - MIN_NORMAL as
   * unsigned integers, which the sign flip turns into one signed compare. */
  v32i key = v32i_xor(v32i_sub(bx, v32i_set1(CR_RSQRT_MIN_NORMAL)), v32i_set1(INT32_MIN));
  v32m out_of_range = v32i_gt(key, v32i_set1((CR_RSQRT_INF - CR_RSQRT_MIN_NORMAL - 1) ^ INT32_MIN));
  v32i bxs = v32i_or(v32i_and(bx, v32i_set1(CR_RSQRT_SCALE_MASK)), v32i_set1(CR_RSQRT_HALF));
  v32i j_exp = v32i_sra(v32i_sub(bx, bxs), 1); /* j, in the exponent field */
  v32 xs = v32i_as_v32(bxs);
  v32 t = v32_div(v32_sqrt(xs), xs);
  v32 mhx = v32_mul(xs, v32_set1(-0.5f)); /* exact */
  v32 h = v32_mul(t, t);
  v32 l = v32_fms(t, t, h); /* t^2 - h, exact */
  v32 half_rho = v32_fma(mhx, l, v32_fma(mhx, h, v32_set1(0.5f)));
  v32 d = v32_mul(t, half_rho);
  v32 hi = v32_add(t, v32_add(d, v32_set1(CR_RSQRT_WINDOW)));
  v32 lo = v32_add(t, v32_sub(d, v32_set1(CR_RSQRT_WINDOW)));
  *special = v32m_or(out_of_range, v32_ne(hi, lo));
  return v32i_as_v32(v32i_sub(v32_as_v32i(hi), j_exp));
}

#if V32_W == 1
/* The one-lane form of the common interface (CUDA kernels, scalar calls). */
CR_FN v64 cr_rsqrt_fast(v64 x, v64m *special) {
  v32m s;
  v32 r = cr_rsqrt_fast_f32((v32)x, &s); /* exact: x holds a float */
  *special = s;
  return (v64)r;
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

CR_FN_COLD float cr_rsqrt_special(float x) {
  uint32_t u = cr_f32_bits(x);
  if (u == 0x00000000u) return cr_f32_from_bits(0x7F800000u); /* +0 -> +inf */
  if (u == 0x80000000u) return cr_f32_from_bits(0xFF800000u); /* -0 -> -inf (contract §1) */
  if (u == 0x7F800000u) return 0.0f;                          /* +inf -> +0 */
  if (u >= 0x7F800000u) return cr_f32_nan();                  /* NaN, x < 0 */
  /* Subnormal x, or a fast-path lane near a midpoint: sqrt(x)/x, two
   * roundings, gives |y/r - 1| < 2^-51. */
  double xd = (double)x;
  return cr_rsqrt_decide(xd, sqrt(xd) / xd);
}

#endif /* CR_RSQRT_H */
