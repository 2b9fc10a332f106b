/* Correctly rounded logf.
 *
 * x = m * 2^e, m in [OFF, 2*OFF) with OFF = 0.6875 - 2^-6, read from the
 * bits of the double x (float subnormals are normal doubles). The top 4 bits
 * of the mantissa of bits(x) - bits(OFF) select c_j ~ 1/m (32 bits, so
 * r = fma(m, c_j, -1) is exact, |r| <= 2^-5), and
 *     log(x) = s + log1p(r),   s = e*ln2 - log(c_j)  (one fma, rounded).
 * The interval holding 1.0 has c = 1 and -log(c) = 0: near 1 the result is
 * log1p(r) with r = x - 1 exact, so no cancellation. The pairs (c_j, -log(c_j))
 * are read together (v64_lookup16_pair: one 16-byte load per lane on AVX2,
 * register permutes on AVX-512), which avoids slow gathers.
 *
 * Fast path: the double y = s + p(r), p(r) = r*(c1 + c2 r + ...) ~ log1p(r),
 * rounded to float. p was fitted (RLIBM, tools/polygen/log.py,
 * docs/polygen.md) to the rounding intervals of every positive finite float,
 * mapped back through this reduction and the final addition, and every
 * input was checked in C -- except those whose y lies within
 * CR_LOG_TEST_ULPS double ulps of a float midpoint: those lanes are flagged
 * and recomputed by the accurate path (double-double, relative error
 * < 2^-67; no float has its log closer than 2^-58 relative to a midpoint).
 * The rounding test stays because one double cannot always resolve the
 * hardest inputs: for |log x| ~ 50 a double has 2^-47 granularity while the
 * exact value can lie 2^-52 from a midpoint, so p would have to be off
 * log1p(r) by up to a double ulp of y in a direction set by each such input,
 * and inputs x 2^k share r: a single polynomial cannot follow them (the
 * pure RLIBM fit leaves at least eight such inputs unsatisfiable). With the test
 * the fit only has to hold outside a band of 2^15 ulps around the midpoints,
 * which lets six coefficients do (relative minimax error 2^-38); the band
 * flags a fraction ~1e-4 of the inputs.
 */
#ifndef CR_LOG_H
#define CR_LOG_H

#include <math.h>
#include "../fputil.h"
#include "poly.h"
#include "table.h"

#define CR_LOG_OFF_BITS 0x3FE5800000000000LL /* bits of 0x1.58p-1 = 0.6875 - 2^-6 */
#define CR_LOG_INDEX_SHIFT 48                /* 52 - 4 index bits */
#define CR_LOG_INDEX_MASK 15
#define CR_LOG_EXP_MASK (0xFFFLL << 52)
/* (t >> 52) is e mod 2^12; xor-ing 2^11 makes it e + 2^11, and the 0x433
 * exponent makes the double 2^52 + 2^11 + e. */
#define CR_LOG_EXP_KEY 0x4330000000000800LL
#define CR_LOG_EXP_BIAS 0x1.00000000008p+52 /* 2^52 + 2^11 */
#define CR_LOG_LN2 0x1.62e42fefa39efp-1
#define CR_LOG_POLY_LEN ((int)(sizeof cr_log_poly / sizeof cr_log_poly[0]))
#define CR_LOG_LN2_HI 0x1.62e42fefa4000p-1 /* ln2 to 40 bits: e*LN2_HI is exact */
#define CR_LOG_LN2_LO -0x1.8432a1b0e2634p-43 /* ln2 - LN2_HI */
#define CR_LOG_THIRD_HI 0x1.5555555555555p-2   /* 1/3 */
#define CR_LOG_THIRD_LO 0x1.5555555555555p-56  /* 1/3 - THIRD_HI */
/* Rounding test: a double whose low 29 mantissa bits are 2^28 is a float
 * midpoint; lanes within CR_LOG_TEST_ULPS of one go to the accurate path. */
#define CR_LOG_TEST_ULPS (1 << 15)
#define CR_LOG_MID_BITS (1LL << 28)
#define CR_LOG_LOW_MASK ((1LL << 29) - 1)

/* r (returned) and s = e*ln2 - log(c_j). Any x gives in-range indices, so
 * lanes outside the domain need no masking. */
CR_FN v64 cr_log_reduce(v64 x, v64 *s) {
  v64i ix = v64_as_v64i(x);
  v64i t = v64i_sub(ix, v64i_set1(CR_LOG_OFF_BITS));
  v64i j = v64i_shr(t, CR_LOG_INDEX_SHIFT); /* the lookup reads its low 4 bits */
  v64 m = v64i_as_v64(v64i_sub(ix, v64i_and(t, v64i_set1(CR_LOG_EXP_MASK))));
  v64 e = v64_sub(v64i_as_v64(v64i_xor(v64i_shr(t, 52), v64i_set1(CR_LOG_EXP_KEY))), v64_set1(CR_LOG_EXP_BIAS));
  v64 c, l;
  v64_lookup16_pair(cr_log_cl, j, &c, &l);
  *s = v64_fma(e, v64_set1(CR_LOG_LN2), l);
  return v64_fma(m, c, v64_set1(-1.0)); /* exact */
}

/* p(r) = r * (c1 + c2 r + ... + cn r^(n-1)) ~ log1p(r). */
CR_FN v64 cr_log_poly_eval(v64 r) { return v64_mul(r, cr_horner(r, cr_log_poly, CR_LOG_POLY_LEN)); }

/* The output compensation the polynomial was fitted through (one rounding). */
CR_FN v64 cr_log_compensate(v64 p, v64 s) { return v64_add(s, p); }

/* Scalar double-double pieces for the accurate path. */
CR_FN double cr_log_two_sum(double a, double b, double *err) {
  double s = a + b, bb = s - a;
  *err = (a - (s - bb)) + (b - bb);
  return s;
}
CR_FN double cr_log_bits_to_double(uint64_t u) { double d; memcpy(&d, &u, sizeof d); return d; }
CR_FN uint64_t cr_log_double_bits(double d) { uint64_t u; memcpy(&u, &d, sizeof u); return u; }

/* log(x) for a positive finite x, to ~2^-67, then correctly rounded to float. */
CR_FN_COLD float cr_log_accurate(double x) {
  uint64_t ix = cr_log_double_bits(x);
  uint64_t t = ix - (uint64_t)CR_LOG_OFF_BITS;
  int j = (int)((t >> CR_LOG_INDEX_SHIFT) & CR_LOG_INDEX_MASK);
  double e = (double)((int64_t)t >> 52);
  double m = cr_log_bits_to_double(ix - (t & (uint64_t)CR_LOG_EXP_MASK));
  double r = fma(m, cr_log_c[j], -1.0); /* exact */
  /* log1p(r) = r - r^2/2 + r^3/3 + r^4 (-1/4 + r/5 - ... - r^10/14): the first
   * omitted term is below 2^-74 relative. r^2/2 and r^3/3 are kept to ~2^-100
   * so that the double evaluation of the rest (~r^4/4) costs < 2^-67. */
  double q = -1.0 / 14;
  for (int k = 13; k >= 4; --k) q = fma(q, r, ((k & 1) ? 1.0 : -1.0) / k);
  double r2 = r * r, r2_lo = fma(r, r, -r2);
  double r3 = r * r2, r3_lo = fma(r, r2, -r3) + r * r2_lo;
  double t3 = r3 * CR_LOG_THIRD_HI;
  double t3_lo = fma(r3, CR_LOG_THIRD_HI, -t3) + r3 * CR_LOG_THIRD_LO + r3_lo * CR_LOG_THIRD_HI;
  double rest = (r2 * r2) * q;
  double e1, e2, e3, e4;
  double s = cr_log_two_sum(e * CR_LOG_LN2_HI, cr_log_l[j], &e1);
  s = cr_log_two_sum(s, r, &e2);
  s = cr_log_two_sum(s, -0.5 * r2, &e3);
  s = cr_log_two_sum(s, t3, &e4);
  double small = e1 + e2 + e3 + e4 + e * CR_LOG_LN2_LO + cr_log_l_lo[j] - 0.5 * r2_lo + t3_lo
                 + rest;
  double lo;
  double hi = cr_log_two_sum(s, small, &lo);
  /* hi is the double nearest hi + lo, so only a hi exactly on a float
   * midpoint can round the wrong way: move it one ulp towards lo. */
  uint64_t hb = cr_log_double_bits(hi);
  if ((hb & CR_LOG_LOW_MASK) == CR_LOG_MID_BITS && lo != 0.0)
    hb += ((lo > 0.0) == (hi > 0.0)) ? 1 : (uint64_t)-1;
  return (float)cr_log_bits_to_double(hb);
}

/* y and the lanes of the rounding test; lanes outside the domain are not
 * flagged (their y is garbage). The low 29 bits of y + TEST - MID, made
 * negative by setting every higher bit, are below 2*TEST + 1 - 2^29 exactly
 * when y is within TEST ulps of a midpoint. (A negative bound: GCC keeps
 * `C > v` as one compare then, while for C > 0 it rewrites it as
 * !(v > C - 1), which costs a second compare on AVX2.) */
CR_FN v64 cr_log_fast_positive(v64 x, v64m *special) {
  v64 s;
  v64 r = cr_log_reduce(x, &s);
  v64 y = cr_log_compensate(cr_log_poly_eval(r), s);
  v64i near = v64i_or(v64i_add(v64_as_v64i(y), v64i_set1(CR_LOG_TEST_ULPS - CR_LOG_MID_BITS)),
                  v64i_set1(~CR_LOG_LOW_MASK));
  *special = v64i_gt(v64i_set1(2 * CR_LOG_TEST_ULPS + 1 - (CR_LOG_LOW_MASK + 1)), near);
  return y;
}

CR_FN v64 cr_log_fast(v64 x, v64m *special) {
  v64 y = cr_log_fast_positive(x, special);
  *special = v64m_or(cr_vd_not_pos_finite(x), *special);
  return y;
}

/* The float lanes outside the fast path's domain (NaN, +-0, negative,
 * +inf): with bits b, b + 2^23 (mod 2^32) is above 2^23 as a signed integer
 * exactly for b in [1, 0x7F7FFFFF], so the others are below 2^23 + 1. The
 * array kernels screen each block this way and run cr_log_fast_positive on
 * blocks with none. */
CR_FN v32m cr_log_outside_f32(v32 x) {
  return v32i_gt(v32i_set1(0x800001), v32i_add(v32_as_v32i(x), v32i_set1(0x800000)));
}

CR_FN_COLD float cr_log_special(float x) {
  if (cr_f32_isnan(x) || x < 0.0f) return cr_f32_nan();
  if (x == 0.0f) return -INFINITY;
  if (x == INFINITY) return INFINITY;
  return cr_log_accurate((double)x);
}

#endif /* CR_LOG_H */
