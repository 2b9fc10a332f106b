/* Correctly rounded erff.
 *
 * erf is odd: evaluate on a = |x| and copy the sign of x back (exact).
 * i = rint(32 a) picks an interval centred on i/32; t = a - i/32 is exact
 * (a has 24 bits, i/32 few, and they are close) with |t| <= 1/64. There
 *   erf(a) = a0 + t*H + t*L(t),
 * every coefficient gathered per lane from a coefficient-major table. On
 * interval 0, a0 = 0 and H + L(0) is 2/sqrt(pi) as two doubles, so tiny and
 * subnormal results come from one rounding of a nearly exact product; on the
 * others H = 0 and the last fma is exact. From CR_ERF_ONE on every result
 * rounds to 1: such lanes (and +-inf) are clamped to it, and erf(CR_ERF_ONE)
 * itself rounds to 1.
 */
#ifndef CR_ERF_H
#define CR_ERF_H

#include "../fputil.h"
#include "tanh.h" /* cr_copysign_pos */
#include "../coeffs/erf_poly.h"

#define CR_ERF_K 32                 /* intervals per unit */
#define CR_ERF_INV_K 0x1p-5         /* 1/32 */
#define CR_ERF_ONE 0x1.f5a88ap+1    /* 0x407ad445 ~ 3.9192: least float with erf rounding to 1 */
#define CR_ERF_N 126                /* intervals: rint(32 * CR_ERF_ONE) + 1 */
#define CR_ERF_DEG 7                /* degree of the polynomial in t */

/* Slot j (a0, H, L_0, L_1, ...) of each lane's interval. */
CR_FN vd cr_erf_coef(int j, vl i) { return vd_gather(cr_erf_table + j * CR_ERF_N, i); }

CR_FN vd cr_erf_fast(vd x, vm *special) {
  *special = vd_isnan(x);
  vd a = vd_abs(x);
  /* NaN fails the compare and is clamped too: the gather index stays in range. */
  a = vd_select(vd_lt(a, vd_set(CR_ERF_ONE)), a, vd_set(CR_ERF_ONE));
  vd kd = vd_rint(vd_mul(a, vd_set(CR_ERF_K)));
  vl i = cr_vd_to_vl_exact(kd);
  vd t = vd_sub(a, vd_mul(kd, vd_set(CR_ERF_INV_K)));
  vd l = cr_erf_coef(CR_ERF_DEG + 1, i);
  for (int j = CR_ERF_DEG; j >= 2; --j) l = vd_fma(l, t, cr_erf_coef(j, i));
  vd y = vd_fma(t, cr_erf_coef(1, i), vd_fma(t, l, cr_erf_coef(0, i)));
  return cr_copysign_pos(y, x);
}

CR_FN float cr_erf_special(float x) {
  (void)x; /* only NaN lanes are flagged */
  return cr_f32_nan();
}

#endif /* CR_ERF_H */
