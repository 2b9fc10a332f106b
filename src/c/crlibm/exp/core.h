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
CR_FN vd cr_exp_reduce_pow2(vd x, vd *scale) {
  const double shifter = CR_SHIFTER + 1023.0;
  vd t = vd_fma(x, vd_set(CR_EXP_INV_LN2), vd_set(shifter));
  vd kd = vd_sub(t, vd_set(shifter));
  vd r = vd_fma(kd, vd_set(-CR_EXP_LN2_HI), x);
  *scale = vl_as_vd(vl_shl(vd_as_vl(t), 52));
  return vd_fma(kd, vd_set(-CR_EXP_LN2_LO), r);
}

#if CR_EXP_TABLE_BITS > 0
/* T[j], j = k mod N, k in t's low bits (tb = t's bits). A 16-entry table is
 * vd_lookup16: on AVX-512 one two-register permute, which reads only the low
 * 4 bits of each index (no mask); a vgatherqpd cost 40 % of exp's time on
 * AMD Zen 4. */
CR_FN vd cr_exp_entry(vl tb) {
#if CR_EXP_TABLE_BITS == 4
  return vd_lookup16(cr_exp_table, tb);
#else
  return vd_gather(cr_exp_table, vl_and(tb, vl_set(CR_EXP_N - 1)));
#endif
}
#endif

/* r and the scale 2^(k/N) (exact product of a table entry and a power of two).
 * t = x*N/ln2 + 1.5*2^52 rounds the product to the integer k (one fma) and
 * leaves k in two's complement in t's low mantissa bits. Any x gives in-range
 * table indices (k & (N-1)), so out-of-domain lanes need no masking. */
CR_FN vd cr_exp_reduce(vd x, vd *scale) {
#if CR_EXP_TABLE_BITS == 0
  return cr_exp_reduce_pow2(x, scale);
#else
  vd t = vd_fma(x, vd_set(CR_EXP_INV_LN2_N), vd_set(CR_SHIFTER));
  vd kd = vd_sub(t, vd_set(CR_SHIFTER));
  vd r = vd_fma(kd, vd_set(-CR_EXP_LN2_N_HI), x);
  r = vd_fma(kd, vd_set(-CR_EXP_LN2_N_LO), r);
  vl tb = vd_as_vl(t);
  /* t << (52 - b) == k << (52 - b) (mod 2^64: the shifter's own bits shift
   * out) == ((k >> b) << 52) + (j << (52 - b)). The table stores the bits of
   * 2^(j/N) minus j << (52 - b), so the sum is 2^(j/N) scaled by 2^(k >> b),
   * and the shift does not wait for j. */
  vl e = vl_shl(tb, 52 - CR_EXP_TABLE_BITS);
  *scale = vl_as_vd(vl_add(vd_as_vl(cr_exp_entry(tb)), e));
  return r;
#endif
}

CR_FN vd cr_exp_poly_eval(vd r) { return cr_horner(r, cr_exp_poly, CR_EXP_POLY_LEN); }

/* The output compensation the polynomial was fitted through (one rounding). */
CR_FN vd cr_exp_compensate(vd p, vd scale) { return vd_mul(scale, p); }

/* exp(x) for every x of the fast path's domain, CR_EXP_MIN <= x <= CR_EXP_MAX
 * (any other lane gives some value and reads the table in range). */
CR_FN vd cr_exp_body(vd x) {
  vd scale;
  vd r = cr_exp_reduce(x, &scale);
  return cr_exp_compensate(cr_exp_poly_eval(r), scale);
}

CR_FN vd cr_exp_fast(vd x, vm *special) {
  /* Ordered compares: NaN lanes fail both and are special. */
  *special = vm_not(vm_and(vd_ge(x, vd_set(CR_EXP_MIN)), vd_le(x, vd_set(CR_EXP_MAX))));
  return cr_exp_body(x);
}

/* The lanes cr_exp_fast flags (x outside [CR_EXP_MIN, CR_EXP_MAX] or NaN),
 * tested on the float inputs: VFW lanes per compare, twice VW, in the array
 * kernels. Both bounds are floats, so the float compares agree with the
 * double ones. */
CR_FN vmf cr_exp_special_f32(vf x) {
  return vmf_or(vf_nge(x, vf_set((float)CR_EXP_MIN)), vf_nle(x, vf_set((float)CR_EXP_MAX)));
}

CR_FN float cr_exp_special(float x) {
  if (cr_f32_isnan(x)) return cr_f32_nan();
  return x > 0.0f ? cr_f32_from_bits(0x7F800000u) /* +inf */ : 0.0f;
}

#endif /* CR_EXP_H */
