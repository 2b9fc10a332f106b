/* Correctly rounded erff.
 *
 * erf is odd: evaluate on a = |x| and copy the sign of x back (exact).
 * i = rint(64 a) picks an interval centred on i/64; t = a - i/64 is exact
 * (a has 24 bits, i/64 few, and they are close) with |t| <= 1/128. There
 * erf(a) is a degree-5 polynomial in t. The table holds each interval's six
 * coefficients in one row, read as three adjacent pairs per lane
 * (vd_gather_pair: plain loads, no slow gathers). On interval 0 it is odd, so tiny and
 * subnormal a get c_1*a (2/sqrt(pi) in double is within 2^-56 of exact) with
 * one rounding. From CR_ERF_ONE on every result rounds to 1: such lanes (and
 * +-inf) are clamped to it, and erf(CR_ERF_ONE) itself rounds to 1.
 * The degree is the lowest for which an exhaustive check against MPFR (all
 * 2^32 inputs) finds no wrong result: no hard-case fallback is needed.
 */
#ifndef CR_ERF_H
#define CR_ERF_H

#include "../fputil.h"
#include "../coeffs/erf_poly.h"

#define CR_ERF_K 64                 /* intervals per unit */
#define CR_ERF_INV_K 0x1p-6         /* 1/64 */
#define CR_ERF_ONE 0x1.f5a88ap+1    /* 0x407ad445 ~ 3.9192: least float with erf rounding to 1 */
#define CR_ERF_N 252                /* intervals: rint(64 * CR_ERF_ONE) + 1 */
#define CR_ERF_DEG 5                /* degree of the polynomial in t (odd: pairs fill a row) */


/* t = a - i/64 and the row offset of interval i in the table. */
CR_FN vd cr_erf_split(vd x, vl *row) {
  vd a = vd_abs(x);
  /* NaN fails the compare and is clamped too: the row index stays in range. */
  a = vd_select(vd_lt(a, vd_set(CR_ERF_ONE)), a, vd_set(CR_ERF_ONE));
  vd kd = vd_rint(vd_mul(a, vd_set(CR_ERF_K)));
  *row = cr_vd_to_vl_exact(vd_mul(kd, vd_set(CR_ERF_DEG + 1))); /* exact */
  return vd_sub(a, vd_mul(kd, vd_set(CR_ERF_INV_K)));
}

/* The generator's view (tools/polygen/erf.py): the reduced argument t, and
 * the result is the polynomial's value itself, sign aside. */
CR_FN vd cr_erf_reduce(vd x, vd *comp) {
  vl row;
  *comp = vd_set(0.0);
  return cr_erf_split(x, &row);
}
CR_FN vd cr_erf_compensate(vd p, vd comp) { (void)comp; return p; }

CR_FN vd cr_erf_fast(vd x, vm *special) {
  *special = vd_isnan(x);
  vl row;
  vd t = cr_erf_split(x, &row);
  vd c[CR_ERF_DEG + 1];
  for (int j = 0; j <= CR_ERF_DEG; j += 2) vd_gather_pair(cr_erf_table + j, row, &c[j], &c[j + 1]);
  vd p = c[CR_ERF_DEG];
  for (int j = CR_ERF_DEG - 1; j >= 0; --j) p = vd_fma(p, t, c[j]);
  return cr_copysign_pos(p, x);
}

CR_FN float cr_erf_special(float x) {
  (void)x; /* only NaN lanes are flagged */
  return cr_f32_nan();
}

#endif /* CR_ERF_H */
