/* Correctly rounded expf.
 *
 * exp(x) = 2^(k/N) * exp(r),  k = rint(x * N/ln2),  r = x - k*ln2/N,
 * N = 2^CR_EXP_TABLE_BITS, |r| <= ~ln2/(2N). 2^(k/N) = 2^(k>>b) * T[k & (N-1)];
 * exp(r) is a polynomial p. The double scale*p rounds to the correctly
 * rounded float: p's coefficients were fitted (tools/polygen.py exp, see
 * docs/polygen.md) to the rounding intervals of every result, mapped back
 * through this very reduction, and checked on every input of the domain.
 */
#ifndef CR_EXP_H
#define CR_EXP_H

#include "../fputil.h"
#include "poly.h"
#include "table.h"

/* Largest float whose exp does not overflow: 0x1.62e42ep+6 ~ 88.7228. */
#define CR_EXP_MAX 0x1.62e42ep+6
/* Below this, exp(x) < 2^-150 rounds to +0 (exp(-104) ~ 6.8e-46 < 2^-150). */
#define CR_EXP_MIN (-104.0)

#define CR_EXP_INV_LN2 0x1.71547652b82fep+0 /* 1/ln2 */
#define CR_EXP_LN2_HI 0x1.62e42fefa39efp-1  /* ln2, high part */
#define CR_EXP_LN2_LO 0x1.abc9e3b39803fp-56 /* ln2 - HI */

/* Powers of two times the N = 1 constants: exact. */
#define CR_EXP_N (1 << CR_EXP_TABLE_BITS)
#define CR_EXP_INV_LN2_N (CR_EXP_INV_LN2 * CR_EXP_N) /* N/ln2 */
#define CR_EXP_LN2_N_HI (CR_EXP_LN2_HI / CR_EXP_N)
#define CR_EXP_LN2_N_LO (CR_EXP_LN2_LO / CR_EXP_N)
#define CR_EXP_POLY_LEN ((int)(sizeof cr_exp_poly / sizeof cr_exp_poly[0]))

/* x = k ln2 + r without a table: r (|r| <= ~ln2/2) and *scale = 2^k, for
 * -1022 <= k <= 1023. t = x/ln2 + 1.5*2^52 + 1023 rounds to the integer
 * k + 1023 (one fma), which lands in t's low mantissa bits; shifted into the
 * exponent field it is 2^k. Used by tanh, and by exp with a 0-bit table. */
CR_FN v64 cr_exp_reduce_pow2(v64 x, v64 *scale) {
  const double shifter = CR_SHIFTER + 1023.0;
  v64 t = v64_fma(x, v64_set1(CR_EXP_INV_LN2), v64_set1(shifter));
  v64 kd = v64_sub(t, v64_set1(shifter));
  v64 r = v64_fma(kd, v64_set1(-CR_EXP_LN2_HI), x);
  *scale = v64i_as_v64(v64i_shl(v64_as_v64i(t), 52));
  return v64_fma(kd, v64_set1(-CR_EXP_LN2_LO), r);
}

#if CR_EXP_TABLE_BITS > 0
/* T[j], j = k mod N, k in t's low bits (tb = t's bits). A 16-entry table is
 * v64_lookup16: on AVX-512 one two-register permute, which reads only the low
 * 4 bits of each index (no mask); a vgatherqpd cost 40 % of exp's time on
 * AMD Zen 4. */
CR_FN v64 cr_exp_entry(v64i tb) {
#if CR_EXP_TABLE_BITS == 4
  return v64_lookup16(cr_exp_table, tb);
#else
  return v64_gather(cr_exp_table, v64i_and(tb, v64i_set1(CR_EXP_N - 1)));
#endif
}
#endif

/* r and the scale 2^(k/N) (exact product of a table entry and a power of two).
 * t = x*N/ln2 + 1.5*2^52 rounds the product to the integer k (one fma) and
 * leaves k in two's complement in t's low mantissa bits. Any x gives in-range
 * table indices (k & (N-1)), so out-of-domain lanes need no masking. */
CR_FN v64 cr_exp_reduce(v64 x, v64 *scale) {
#if CR_EXP_TABLE_BITS == 0
  return cr_exp_reduce_pow2(x, scale);
#else
  v64 t = v64_fma(x, v64_set1(CR_EXP_INV_LN2_N), v64_set1(CR_SHIFTER));
  v64 kd = v64_sub(t, v64_set1(CR_SHIFTER));
  v64 r = v64_fma(kd, v64_set1(-CR_EXP_LN2_N_HI), x);
  r = v64_fma(kd, v64_set1(-CR_EXP_LN2_N_LO), r);
  v64i tb = v64_as_v64i(t);
  /* t << (52 - b) == k << (52 - b) (mod 2^64: the shifter's own bits shift
   * out) == ((k >> b) << 52) + (j << (52 - b)). The table stores the bits of
   * 2^(j/N) minus j << (52 - b), so the sum is 2^(j/N) scaled by 2^(k >> b),
   * and the shift does not wait for j. */
  v64i e = v64i_shl(tb, 52 - CR_EXP_TABLE_BITS);
  *scale = v64i_as_v64(v64i_add(v64_as_v64i(cr_exp_entry(tb)), e));
  return r;
#endif
}

CR_FN v64 cr_exp_poly_eval(v64 r) { return cr_horner(r, cr_exp_poly, CR_EXP_POLY_LEN); }

/* The output compensation the polynomial was fitted through (one rounding). */
CR_FN v64 cr_exp_compensate(v64 p, v64 scale) { return v64_mul(scale, p); }

/* exp(x) for every x of the fast path's domain, CR_EXP_MIN <= x <= CR_EXP_MAX
 * (any other lane gives some value and reads the table in range). */
CR_FN v64 cr_exp_body(v64 x) {
  v64 scale;
  v64 r = cr_exp_reduce(x, &scale);
  return cr_exp_compensate(cr_exp_poly_eval(r), scale);
}

CR_FN v64 cr_exp_fast(v64 x, v64m *special) {
  /* Ordered compares: NaN lanes fail both and are special. */
  *special = v64m_not(v64m_and(v64_ge(x, v64_set1(CR_EXP_MIN)), v64_le(x, v64_set1(CR_EXP_MAX))));
  return cr_exp_body(x);
}

/* The lanes cr_exp_fast flags (x outside [CR_EXP_MIN, CR_EXP_MAX] or NaN),
 * tested on the float inputs: V32_W lanes per compare, twice V64_W, in the array
 * kernels. Both bounds are floats, so the float compares agree with the
 * double ones. */
CR_FN v32m cr_exp_special_f32(v32 x) {
  return v32m_or(v32_nge(x, v32_set1((float)CR_EXP_MIN)), v32_nle(x, v32_set1((float)CR_EXP_MAX)));
}

CR_FN float cr_exp_special(float x) {
  if (cr_f32_isnan(x)) return cr_f32_nan();
  return x > 0.0f ? cr_f32_from_bits(0x7F800000u) /* +inf */ : 0.0f;
}

#endif /* CR_EXP_H */
