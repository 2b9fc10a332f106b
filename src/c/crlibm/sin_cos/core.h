/* Correctly rounded sinf and cosf, sharing one reduction.
 *
 * x = k*pi/8 + r, |r| <= pi/16, j = k + off mod 16 (off = 0 for sin, 4 for
 * cos), A = sin(j*pi/8), B = cos(j*pi/8), u = r^2:
 *   y = A + (B*r + u*(A*pc(u) + B*r*ps(u)))  ~  A*cos(r) + B*sin(r),
 * rounded once to float. pc ~ (cos(r)-1)/u and ps ~ (sin(r)/r-1)/u (one pair
 * per function) are fitted jointly by the RLIBM generator
 * (tools/polygen/sincos.py): y is linear in the coefficients of both, so one
 * LP takes them all, and for every float input the LP's
 * constraint is the interval of values of the polynomial part that make
 * this very code (reduction, table values, rounding of the last two
 * operations) return the correctly rounded result; every input was then
 * checked through this code in C. So there is no rounding test and no
 * accurate path: only NaN and inf (and sin(+-0), whose sign the reduction
 * loses) leave the fast path.
 *
 * The table has 16 rows (A, B) so that a lookup is two register permutes on
 * AVX-512 (one 16-byte load per lane on AVX2) instead of gathers:
 * k = rint(x*8/pi), whose low bits index the table directly (shifter trick). For |x| < 2^32,
 * r = x - k*pi/8 with pi/8 in three parts, one fma each (x - k*P0 is exact:
 * both are multiples of ulp(P0) and the difference is below 2^-2). Larger
 * finite x take the vectorised reduction cr_sincos_reduce_big (a vector
 * holding such a lane computes both and blends). |x| < 2^-12 need no special
 * case (k = 0, r = x): sin(x) rounds to x and cos(x) to 1, more than 2^-27
 * relative away from the float midpoints around them, and y is far closer
 * to them than that (the generator leaves them out of its domain; the
 * exhaustive verification checks them with the rest).
 */
#ifndef CR_SIN_COS_H
#define CR_SIN_COS_H

#include <math.h>
#include "../fputil.h"
#include "poly.h"
#include "table.h"
#include "big.h"

#define CR_SINCOS_INV_PI8 0x1.45f306dc9c883p+1 /* 8/pi */
#define CR_SINCOS_BIG 0x1p32                   /* Cody-Waite reduction below */
#define CR_SINCOS_BIG_EXP (1023 + 32)          /* biased exponent of row 0 of big.h */
#define CR_SINCOS_BIG_ROWS 127                 /* row mask: 128 rows */

/* r = x - k*pi/8 for 2^32 <= |x| < 2^128 (Payne-Hanek in double lanes);
 * returns r and sets *t to x*8/pi rounded to an integer plus shift, like the
 * Cody-Waite path. With x*8/pi = P0 + P1 + P2 + P3 mod 16 (big.h:
 * P0..P2 exact products, multiples of 2^-24, 2^-52, 2^-80; |P3| < 2^-56):
 * k = rint(P0 + P1), f1 = (P0 - k) + P1 is exact (a multiple of 2^-52 below
 * 1 in magnitude), and f = f1 + P2 + P3 is kept as a double-double, so
 * |f - (x*8/pi - k)| < 2^-106 while |x*8/pi - k| >= 2^-29.86 for every
 * float >= 2^32 (exhaustive search; the closest is 0x6e79be45), so f is
 * accurate to 2^-76 relative. The product by pi/8 then gives r to about
 * 2^-53 relative, as the Cody-Waite path does. Lanes with
 * smaller x, inf or NaN compute garbage from in-range table rows. */
CR_FN v64 cr_sincos_reduce_big(v64 x, v64 shift, v64 *t) {
  v64i row = v64i_and(v64i_sub(v64i_shr(v64_as_v64i(x), 52), v64i_set1(CR_SINCOS_BIG_EXP)),
                  v64i_set1(CR_SINCOS_BIG_ROWS)); /* the sign bit (2^11) drops out */
  v64 c0, c1, c2, c3; /* a row is two pairs: two 16-byte loads per lane on AVX2 */
  v64_gather_pair(cr_sincos_big, v64i_shl(row, 2), &c0, &c1);
  v64_gather_pair(cr_sincos_big + 2, v64i_shl(row, 2), &c2, &c3);
  v64 p0 = v64_mul(x, c0), p1 = v64_mul(x, c1), p2 = v64_mul(x, c2), p3 = v64_mul(x, c3);
  *t = v64_add(v64_add(p0, p1), shift);
  v64 f1 = v64_add(v64_sub(p0, v64_sub(*t, shift)), p1);
  v64 hi = v64_add(f1, p2); /* two-sum: hi + lo = f1 + p2 exactly, then + p3 */
  v64 bb = v64_sub(hi, f1);
  v64 lo = v64_add(v64_add(v64_sub(f1, v64_sub(hi, bb)), v64_sub(p2, bb)), p3);
  /* (hi + lo) * pi/8, pi/8 ~ parts [0] + [1] */
  v64 pi_hi = v64_set1(cr_sincos_pi8[0]), pi_lo = v64_set1(cr_sincos_pi8[1]);
  v64 rh = v64_mul(hi, pi_hi);
  v64 rl = v64_add(v64_fma(hi, pi_hi, v64_neg(rh)), v64_fma(hi, pi_lo, v64_mul(lo, pi_hi)));
  return v64_add(rh, rl);
}

/* How the reduction treats lanes with |x| >= 2^32, inf and NaN ("big"):
 * CR_SINCOS_ANY branches per vector (rare in most data: a branch, not always
 * both); the array kernels decide per block instead (kernels.inc) and use
 * the branch-free forms, which the compiler can interleave across vectors:
 * CR_SINCOS_NONE (the caller checked that no lane is big), CR_SINCOS_ALL
 * (always run the big reduction and blend) or CR_SINCOS_BIGONLY (the caller
 * checked that every lane is big: only the big reduction, no blend). Every
 * lane gets the same bits in each form. */
enum { CR_SINCOS_ANY, CR_SINCOS_NONE, CR_SINCOS_ALL, CR_SINCOS_BIGONLY };

/* The reduction: r (returned) and A = sin(j*pi/8), B = cos(j*pi/8) for
 * x = k*pi/8 + r, j = k + off mod 16, off = 0 (sin) or 4 (cos). Inf and NaN
 * lanes compute garbage (table lookups stay in range whatever the index) and
 * are set in *nonfinite, except in CR_SINCOS_ALL (see cr_sincos_fast). */
CR_FN v64 cr_sincos_reduce_mode(v64 x, double off, v64 *a, v64 *b, v64m *nonfinite, int mode) {
  /* t = rint(x*8/pi) + shifter + off: for |x*8/pi| < 2^51 its low mantissa
   * bits are k + off mod 2^51, which index the tables. */
  v64 shift = v64_set1(CR_SHIFTER + off);
  v64 t, r;
  *nonfinite = v64m_none(); /* no lane is big (NONE, BIGONLY: the caller checked) */
  if (mode == CR_SINCOS_BIGONLY) {
    r = cr_sincos_reduce_big(x, shift, &t);
  } else {
    t = v64_fma(x, v64_set1(CR_SINCOS_INV_PI8), shift);
    v64 kd = v64_sub(t, shift);
    r = v64_fma(kd, v64_set1(-cr_sincos_pi8[0]), x);
    r = v64_fma(kd, v64_set1(-cr_sincos_pi8[1]), r);
    r = v64_fma(kd, v64_set1(-cr_sincos_pi8[2]), r);
  }
  if (mode == CR_SINCOS_ANY || mode == CR_SINCOS_ALL) {
    v64m big = v64m_not(v64_lt(v64_abs(x), v64_set1(CR_SINCOS_BIG)));
    if (mode == CR_SINCOS_ALL || v64m_bits(big) != 0) {
      v64 tb, rb = cr_sincos_reduce_big(x, shift, &tb);
      t = v64_select(big, tb, t);
      r = v64_select(big, rb, r);
      if (mode == CR_SINCOS_ANY) *nonfinite = v64m_not(v64_lt(v64_abs(x), v64_set1(INFINITY)));
    }
  }
  v64_lookup16_pair(cr_sincos_fast_sc, v64_as_v64i(t), a, b);
  return r;
}

CR_FN v64 cr_sincos_reduce(v64 x, double off, v64 *a, v64 *b, v64m *nonfinite) {
  return cr_sincos_reduce_mode(x, off, a, b, nonfinite, CR_SINCOS_ANY);
}

/* The polynomial part u*(A*pc(u) + B*r*ps(u)), u = r^2, with pc(u) ~
 * (cos(r)-1)/u and ps(u) ~ (sin(r)/r-1)/u fitted jointly (RLIBM): the
 * result is linear in the coefficients of both. */
CR_FN v64 cr_sincos_poly_part(v64 a, v64 b, v64 r, const double *c) {
  v64 u = v64_mul(r, r);
  v64 pc = cr_horner(u, c, CR_SINCOS_NC);
  v64 ps = cr_horner(u, c + CR_SINCOS_NC, CR_SINCOS_NS);
  return v64_mul(u, v64_fma(a, pc, v64_mul(v64_mul(b, r), ps)));
}

/* The double rounded to float: A + (B*r + poly), increasing in poly. */
CR_FN v64 cr_sincos_compensate(v64 poly, v64 a, v64 b, v64 r) {
  return v64_add(a, v64_fma(b, r, poly));
}

/* y ~ sin(x + off*pi/8); only inf and NaN lanes are flagged. Each function
 * has its own pc, ps (sin's block of cr_sincos_poly first). In CR_SINCOS_ALL
 * and CR_SINCOS_BIGONLY they are found from y, one compare instead of two:
 * the big reduction makes r NaN for inf and NaN (x*c0 - (t - shift) is
 * inf - inf or NaN), hence y, while every finite x gives a finite y. */
CR_FN v64 cr_sincos_fast(v64 x, double off, v64m *special, int mode) {
  const double *c = cr_sincos_poly + (off != 0.0 ? CR_SINCOS_NC + CR_SINCOS_NS : 0);
  v64 a, b, r = cr_sincos_reduce_mode(x, off, &a, &b, special, mode);
  v64 y = cr_sincos_compensate(cr_sincos_poly_part(a, b, r, c), a, b, r);
  if (mode == CR_SINCOS_ALL || mode == CR_SINCOS_BIGONLY) *special = v64_isnan(y);
  return y;
}

CR_FN v64 cr_sin_fast_mode(v64 x, v64m *special, int mode) {
  v64 y = cr_sincos_fast(x, 0.0, special, mode);
  *special = v64m_or(*special, v64_eq(x, v64_set1(0.0))); /* y = +0 for x = -0 */
  return y;
}
CR_FN v64 cr_cos_fast_mode(v64 x, v64m *special, int mode) {
  return cr_sincos_fast(x, 4.0, special, mode);
}

CR_FN v64 cr_sin_fast(v64 x, v64m *special) { return cr_sin_fast_mode(x, special, CR_SINCOS_ANY); }
CR_FN v64 cr_cos_fast(v64 x, v64m *special) { return cr_cos_fast_mode(x, special, CR_SINCOS_ANY); }

/* The branch-free forms for the array kernels (see CR_SINCOS_ANY). */
CR_FN v64 cr_sin_fast_small(v64 x, v64m *special) { return cr_sin_fast_mode(x, special, CR_SINCOS_NONE); }
CR_FN v64 cr_sin_fast_big(v64 x, v64m *special) { return cr_sin_fast_mode(x, special, CR_SINCOS_ALL); }
CR_FN v64 cr_cos_fast_small(v64 x, v64m *special) { return cr_cos_fast_mode(x, special, CR_SINCOS_NONE); }
CR_FN v64 cr_cos_fast_big(v64 x, v64m *special) { return cr_cos_fast_mode(x, special, CR_SINCOS_ALL); }
CR_FN v64 cr_sin_fast_bigonly(v64 x, v64m *special) {
  return cr_sin_fast_mode(x, special, CR_SINCOS_BIGONLY);
}
CR_FN v64 cr_cos_fast_bigonly(v64 x, v64m *special) {
  return cr_cos_fast_mode(x, special, CR_SINCOS_BIGONLY);
}

/* The big lanes of float inputs: |x| >= 2^32, inf or NaN, i.e. magnitude
 * bits above those of the float below 2^32 (the array kernels' block screen). */
CR_FN v32m cr_sincos_big_f32(v32 x) {
  return v32i_gt(v32i_and(v32_as_v32i(x), v32i_set1(0x7FFFFFFF)), v32i_set1(0x4F7FFFFF));
}

/* Only NaN, +-inf and, for sin, +-0 reach these (see cr_sin_fast). */
CR_FN int cr_sincos_nonfinite(float x) { return (cr_f32_bits(x) & 0x7FFFFFFFu) >= 0x7F800000u; }
CR_FN float cr_sin_special(float x) { return cr_sincos_nonfinite(x) ? cr_f32_nan() : x; }
CR_FN float cr_cos_special(float x) { return cr_sincos_nonfinite(x) ? cr_f32_nan() : 1.0f; }

#endif /* CR_SIN_COS_H */
