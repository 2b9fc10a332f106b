/* Correctly rounded tanhf.
 *
 * tanh is odd: evaluate on a = |x| and copy the sign of x back (exact).
 * Beyond CR_TANH_ONE every result rounds to 1: such lanes (and +-inf) are
 * clamped to it, and tanh(CR_TANH_ONE) itself rounds to 1. One branch-free
 * formula serves every a:
 *
 *   tanh(a) = E / (E + 2),  E = e^(2a) - 1 = s e^r - 1 = fma(s, p, s - 1),
 *
 * with 2a = k ln2/16 + r and s = 2^(k/16) (exp's reduction and 16-entry
 * table, |r| <= ln2/32, 0 <= k <= 416) and p(r) = r Q(r) ~ e^r - 1, of degree
 * 6 (degree 10 without the table, 2a = k ln2 + r: on AVX-512 the table's
 * permute costs less than the four fma it saves, 0.53 -> 0.45 ns per element;
 * AVX2 reads it with four loads and breaks even). For k = 0, s = 1 and
 * E = p keeps its relative accuracy down
 * to tiny and subnormal a, and E/(E + 2) does not amplify relative errors,
 * so no separate small-argument polynomial is needed (the former one cost a
 * mispredicted branch or both paths on mixed vectors). p is an RLIBM fit
 * (tools/polygen/tanh.py) through this reduction and compensation: for every
 * input of the fast path the double result rounds to the correctly rounded
 * float; no hard-case fallback is needed.
 */
#ifndef CR_TANH_H
#define CR_TANH_H

#include "../fputil.h"
#include "../exp/core.h"
#include "poly.h"

#define CR_TANH_ONE 0x1.205968p+3 /* 0x41102cb4 ~ 9.0109: least float with tanh rounding to 1 */
#define CR_TANH_TERMS ((int)(sizeof cr_tanh_poly / sizeof cr_tanh_poly[0]))

/* r with 2a = k ln2/16 + r, and *scale = 2^(k/16) (exact). */
CR_FN v64 cr_tanh_reduce(v64 a, v64 *scale) { return cr_exp_reduce(v64_add(a, a), scale); }

/* p(r) = r Q(r), Q's coefficients c_1, c_2, ...: no constant term, so p is
 * accurate relative to itself for tiny r. */
CR_FN v64 cr_tanh_poly_eval(v64 r) { return v64_mul(r, cr_horner(r, cr_tanh_poly, CR_TANH_TERMS)); }

/* E/(E + 2) with E = scale*p + (scale - 1) (one rounding each): increasing in
 * p while E > -2, so for every p > -1 at any k (the generator's bracket). */
CR_FN v64 cr_tanh_compensate(v64 p, v64 scale) {
  v64 e = v64_fma(scale, p, v64_sub(scale, v64_set1(1.0)));
  return v64_div(e, v64_add(e, v64_set1(2.0)));
}

CR_FN v64 cr_tanh_fast(v64 x, v64m *special) {
  *special = v64_isnan(x);
  /* NaN fails the compare and is clamped too, keeping the reduction finite. */
  v64 a = v64_abs(x);
  a = v64_select(v64_lt(a, v64_set1(CR_TANH_ONE)), a, v64_set1(CR_TANH_ONE));
  v64 scale;
  v64 r = cr_tanh_reduce(a, &scale);
  return cr_copysign_pos(cr_tanh_compensate(cr_tanh_poly_eval(r), scale), x);
}

CR_FN float cr_tanh_special(float x) {
  (void)x; /* only NaN lanes are flagged */
  return cr_f32_nan();
}

#endif /* CR_TANH_H */
