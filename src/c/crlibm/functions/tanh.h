/* Correctly rounded tanhf.
 *
 * tanh is odd: evaluate on a = |x| and copy the sign of x back (exact).
 *   a < 0.25:  tanh(a) = a + a^3 Q(a^2). The exact a plus a correction below
 *              a/48 keeps the error near one rounding; tiny and subnormal a
 *              come out as a, as they must.
 *   a >= 0.25: tanh(a) = 1 - 2/(e^(2a) + 1), e^(2a) from exp's reduction and
 *              its table, with our own more accurate polynomial for e^r (the
 *              subtraction from 1 amplifies the error of e^(2a) up to ~3x).
 * Beyond CR_TANH_ONE every result rounds to 1: such lanes (and +-inf) are
 * clamped to it, and tanh(CR_TANH_ONE) itself rounds to 1.
 * Both polynomials are RLIBM fits (tools/polygen/tanh.py): each lands, for
 * every input of its range, where the compensation below rounds to the
 * correctly rounded float; no hard-case fallback is needed.
 */
#ifndef CR_TANH_H
#define CR_TANH_H

#include "../fputil.h"
#include "exp.h"
#include "../coeffs/tanh_poly.h"

#define CR_TANH_SMALL 0.25             /* polynomial below, exp formula above */
#define CR_TANH_ONE 0x1.205968p+3      /* 0x41102cb4 ~ 9.0109: least float with tanh rounding to 1 */
#define CR_TANH_SMALL_TERMS ((int)(sizeof cr_tanh_small_poly / sizeof cr_tanh_small_poly[0]))
#define CR_TANH_EXP_TERMS ((int)(sizeof cr_tanh_exp_poly / sizeof cr_tanh_exp_poly[0]))

/* Each range as reduction, polynomial and compensation (the generator fits
 * the polynomial through the same functions). */
CR_FN vd cr_tanh_small_reduce(vd x, vd *a) {
  *a = vd_abs(x);
  return vd_mul(*a, *a);
}
CR_FN vd cr_tanh_small_compensate(vd q, vd a) { return vd_fma(vd_mul(a, vd_mul(a, a)), q, a); }

CR_FN vd cr_tanh_large_reduce(vd x, vd *scale) {
  vd a = vd_abs(x);
  return cr_exp_reduce(vd_add(a, a), scale);
}
/* 1 - 2/(scale*p + 1), increasing in p. */
CR_FN vd cr_tanh_large_compensate(vd p, vd scale) {
  return vd_sub(vd_set(1.0), vd_div(vd_set(2.0), vd_add(vd_mul(scale, p), vd_set(1.0))));
}

/* a + a^3 Q(a^2), for a < CR_TANH_SMALL. */
CR_FN vd cr_tanh_small(vd a) {
  vd s = cr_tanh_small_reduce(a, &a);
  return cr_tanh_small_compensate(cr_horner(s, cr_tanh_small_poly, CR_TANH_SMALL_TERMS), a);
}

/* 1 - 2/(e^(2a) + 1), e^(2a) = scale * p(r), for CR_TANH_SMALL <= a <= CR_TANH_ONE. */
CR_FN vd cr_tanh_large(vd a) {
  vd scale;
  vd r = cr_tanh_large_reduce(a, &scale);
  return cr_tanh_large_compensate(cr_horner(r, cr_tanh_exp_poly, CR_TANH_EXP_TERMS), scale);
}

CR_FN vd cr_tanh_fast(vd x, vm *special) {
  *special = vd_isnan(x);
  /* NaN fails the compare and is clamped too, keeping the reduction finite. */
  vd a = vd_abs(x);
  a = vd_select(vd_lt(a, vd_set(CR_TANH_ONE)), a, vd_set(CR_TANH_ONE));
  vm small = vd_lt(a, vd_set(CR_TANH_SMALL));
  /* Skipping a side no lane needs changes no lane's bits, only the time.
   * Vectors skip only the small side: a branch for all-small vectors cost
   * more in mispredictions than it saved on mixed data (U[-5,5]). */
  vd y;
  if (vm_bits(small) == 0) {
    y = cr_tanh_large(a);
  } else if (VW == 1) {
    y = cr_tanh_small(a);
  } else {
    y = vd_select(small, cr_tanh_small(a), cr_tanh_large(a));
  }
  return cr_copysign_pos(y, x);
}

CR_FN float cr_tanh_special(float x) {
  (void)x; /* only NaN lanes are flagged */
  return cr_f32_nan();
}

#endif /* CR_TANH_H */
