/* Correctly rounded expf.
 *
 * exp(x) = 2^(k/64) * exp(r),  k = rint(x * 64/ln2),  r = x - k*ln2/64,
 * |r| <= ln2/128 (a little more, since x*64/ln2 is rounded before rint).
 * 2^(k/64) = 2^(k>>6) * T[k & 63]; exp(r) is a polynomial. The product is
 * a double that rounds to the correctly rounded float: the polynomial
 * coefficients were generated against the rounding intervals of the results.
 */
#ifndef CR_EXP_H
#define CR_EXP_H

#include "../fputil.h"
#include "../coeffs/exp_poly.h"
#include "../coeffs/exp_table.h"

/* Largest float whose exp does not overflow: 0x1.62e42ep+6 ~ 88.7228. */
#define CR_EXP_MAX 0x1.62e42ep+6
/* Below this, exp(x) < 2^-150 rounds to +0 (exp(-104) ~ 6.8e-46 < 2^-150). */
#define CR_EXP_MIN (-104.0)

#define CR_EXP_INV_LN2_64 0x1.71547652b82fep+6 /* 64/ln2 */
#define CR_EXP_LN2_64_HI 0x1.62e42fefa39efp-7  /* ln2/64, high part */
#define CR_EXP_LN2_64_LO 0x1.abc9e3b39803fp-62 /* ln2/64 - HI */

/* r and the scale 2^(k/64) (exact product of a table entry and a power of two). */
CR_FN vd cr_exp_reduce(vd x, vd *scale) {
  vd kd = vd_rint(vd_mul(x, vd_set(CR_EXP_INV_LN2_64)));
  vd r = vd_fma(kd, vd_set(-CR_EXP_LN2_64_HI), x);
  r = vd_fma(kd, vd_set(-CR_EXP_LN2_64_LO), r);
  vl k = cr_vd_to_vl_exact(kd);
  vl j = vl_and(k, vl_set(63));
  /* (k - j) << 46 == (k >> 6) << 52: adds k>>6 to the exponent of T[j]. */
  *scale = vl_as_vd(vl_add(vd_as_vl(vd_gather(cr_exp_table, j)), vl_shl(vl_sub(k, j), 46)));
  return r;
}

CR_FN vd cr_exp_poly_eval(vd r) { return cr_horner(r, cr_exp_poly, 6); }

CR_FN vd cr_exp_fast(vd x, vm *special) {
  /* Ordered compares: NaN lanes fail both and are special. */
  *special = vm_not(vm_and(vd_ge(x, vd_set(CR_EXP_MIN)), vd_le(x, vd_set(CR_EXP_MAX))));
  vd scale;
  vd r = cr_exp_reduce(vd_select(*special, vd_set(0.0), x), &scale);
  return vd_mul(scale, cr_exp_poly_eval(r));
}

CR_FN float cr_exp_special(float x) {
  if (cr_f32_isnan(x)) return cr_f32_nan();
  return x > 0.0f ? cr_f32_from_bits(0x7F800000u) /* +inf */ : 0.0f;
}

#endif /* CR_EXP_H */
