/* Correctly rounded erff.
 *
 * erf is odd: evaluate on a = |x| and copy the sign of x back (exact).
 * From CR_ERF_ONE on every result rounds to 1: such lanes (and +-inf) are
 * clamped to it, and erf(CR_ERF_ONE) itself rounds to 1. The rest, [0, 4),
 * is cut into 16 intervals [i/4, (i+1)/4): i = floor(4a), t = a - i/4 (exact,
 * 0 <= t < 1/4), and
 *
 *   erf(a) = m * P_i(t),  m = min(a, 1/4),
 *
 * P_i a degree-9 polynomial. The factor m makes interval 0 a fit of erf(a)/a
 * (relative accuracy down to the subnormals; the product has one rounding)
 * and scales the others by 4 (exact). The generator writes the 16 x 10
 * coefficients twice, by value and by row (v64_lookup16_n): AVX-512 reads
 * them with ten two-register permutes per vector, AVX2 each lane's row with
 * 16-byte loads of value pairs. Each P_i is an
 * RLIBM fit through this reduction and compensation (tools/polygen/erf.py):
 * for every input the double result rounds to the correctly rounded float,
 * so no hard-case fallback is needed.
 *
 * The former design, 252 intervals of width 1/64 with degree 5, read each
 * lane's row by plain loads; on AVX-512 those loads made erf 2.2x slower
 * than tanh (docs/design/crlibm-erf-intervals.md).
 */
#ifndef CR_ERF_H
#define CR_ERF_H

#include "../fputil.h"
#include "poly.h"

#define CR_ERF_ONE 0x1.f5a88ap+1 /* 0x407ad445 ~ 3.9192: least float with erf rounding to 1 */
#define CR_ERF_K 4               /* intervals per unit: 16 intervals cover [0, 4) */
#define CR_ERF_M 0.25            /* m = min(a, CR_ERF_M): interval 0 ends at 1/K */
#define CR_ERF_TERMS ((int)(sizeof cr_erf_poly / sizeof cr_erf_poly[0]) / 16) /* coefficients per interval */

/* t = a - i/4 for a = min(|x|, CR_ERF_ONE), *row = i (in the low bits), *m. */
CR_FN v64 cr_erf_split(v64 x, v64i *row, v64 *m) {
  /* v64_min gives NaN lanes CR_ERF_ONE too: i stays in 0..15. */
  v64 a = v64_min(v64_abs(x), v64_set1(CR_ERF_ONE));
  v64 kd = v64_floor(v64_mul(a, v64_set1(CR_ERF_K)));
  *row = v64_as_v64i(v64_add(kd, v64_set1(CR_SHIFTER)));
  *m = v64_min(a, v64_set1(CR_ERF_M));
  return v64_fma(kd, v64_set1(-1.0 / CR_ERF_K), a); /* exact */
}

/* P_i(t), Horner on the coefficients of each lane's interval. */
CR_FN v64 cr_erf_poly_eval(v64 t, v64i row) {
  v64 c[CR_ERF_TERMS];
  v64_lookup16_n(cr_erf_poly, cr_erf_rows, row, CR_ERF_TERMS, c);
  v64 p = c[CR_ERF_TERMS - 1];
#pragma GCC unroll 16
  for (int j = CR_ERF_TERMS - 2; j >= 0; --j) p = v64_fma(p, t, c[j]);
  return p;
}

/* The generator's view (tools/polygen/erf.py): the reduced argument t with
 * *comp = m, and the result m * p from the polynomial's value p. */
CR_FN v64 cr_erf_reduce(v64 x, v64 *comp) {
  v64i row;
  return cr_erf_split(x, &row, comp);
}
CR_FN v64 cr_erf_compensate(v64 p, v64 m) { return v64_mul(m, p); }

CR_FN v64 cr_erf_fast(v64 x, v64m *special) {
  *special = v64_isnan(x);
  v64i row;
  v64 m;
  v64 t = cr_erf_split(x, &row, &m);
  return cr_copysign_pos(cr_erf_compensate(cr_erf_poly_eval(t, row), m), x);
}

CR_FN float cr_erf_special(float x) {
  (void)x; /* only NaN lanes are flagged */
  return cr_f32_nan();
}

#endif /* CR_ERF_H */
