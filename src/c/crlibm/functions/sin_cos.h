/* Correctly rounded sinf and cosf, sharing one reduction.
 *
 * x = k*pi/N + r, |r| <= pi/(2N), j = k mod 2N, T[j] = sin(j*pi/N):
 *   sin(x) = T[j]*cos(r) + T[j+N/2]*sin(r),   cos(x) = the same with j+N/2.
 *
 * Fast path, N = 8 so that T is 16 doubles (one register permute on
 * AVX-512 instead of a gather): k = rint(x*8/pi), whose low bits index the
 * tables directly (shifter trick). For |x| < 2^32, r = x - k*pi/8 with pi/8
 * in three parts, one fma each (x - k*P0 is exact: both are multiples of
 * ulp(P0) and the difference is below 2^-2). Larger finite x take the
 * vectorised reduction cr_sincos_reduce_big (a vector holding such a lane
 * computes both and blends). With A = T[j], B = T[j+4] (a
 * second table, so both use the same index), u = r^2 and minimax
 * pc(u) ~ (cos(r)-1)/u, ps(u) ~ (sin(r)/r-1)/u,
 *   y = A + (B*r + u*(A*pc(u) + B*r*ps(u))).
 * Relative error of y < 2^-50.3: |A| <= 2|y| and |B*r| <= |y| bound how the
 * errors of the table (2^-53), of r (2^-52), of the polynomials (2^-53.1 and
 * 2^-57.6 absolute) and of the last two roundings (2^-53 each) grow. A lane
 * whose y lies within 16 double ulps (>= 2^-49 |y|) of a float midpoint may
 * round wrongly, so it is flagged and recomputed by the accurate path; so
 * are NaN, inf, and sin(+-0) (whose sign the reduction loses). The rounding
 * test stays because the polynomials are minimax fits, not RLIBM fits.
 *
 * Accurate path (scalar): exact reduction by pi/64 (reduce_pi.h), then the
 * same formula with N = 64 in double-double, the table's lo parts and Taylor
 * series: relative error about 2^-76 (estimated bound 2^-75; 2^-76.05 the
 * largest measured on 160000 random inputs), while no float input has its
 * sin (cos) closer than 2^-54.2 (2^-55.9) to a midpoint (relative distance,
 * exhaustive search), so rounding the double-double to float is correct.
 */
#ifndef CR_SIN_COS_H
#define CR_SIN_COS_H

#include <math.h>
#include "../fputil.h"
#include "../reduce_pi.h"
/* coeffs/sincos_poly.h comes with reduce_pi.h (generated headers have no guards) */
#include "../coeffs/sincos_table.h"
#include "../coeffs/sincos_big.h"

#define CR_SINCOS_INV_PI8 0x1.45f306dc9c883p+1 /* 8/pi */
#define CR_SINCOS_BIG 0x1p32                   /* Cody-Waite reduction below */
#define CR_SINCOS_BIG_EXP (1023 + 32)          /* biased exponent of row 0 of sincos_big.h */
#define CR_SINCOS_BIG_ROWS 127                 /* row mask: 128 rows */

/* ---- fast path ------------------------------------------------------- */

/* r = x - k*pi/8 for 2^32 <= |x| < 2^128 (Payne-Hanek in double lanes);
 * returns r and sets *t to x*8/pi rounded to an integer plus shift, like the
 * Cody-Waite path. With x*8/pi = P0 + P1 + P2 + P3 mod 16 (sincos_big.h:
 * P0..P2 exact products, multiples of 2^-24, 2^-52, 2^-80; |P3| < 2^-56):
 * k = rint(P0 + P1), f1 = (P0 - k) + P1 is exact (a multiple of 2^-52 below
 * 1 in magnitude), and f = f1 + P2 + P3 is kept as a double-double, so
 * |f - (x*8/pi - k)| < 2^-106 while |x*8/pi - k| >= 2^-29.86 for every
 * float >= 2^32 (exhaustive search; the closest is 0x6e79be45), so f is
 * accurate to 2^-76 relative. The product by pi/8 then gives r to about
 * 2^-53 relative, as the Cody-Waite path does. Lanes with
 * smaller x, inf or NaN compute garbage from in-range table rows. */
CR_FN vd cr_sincos_reduce_big(vd x, vd shift, vd *t) {
  vl row = vl_and(vl_sub(vl_shr(vd_as_vl(x), 52), vl_set(CR_SINCOS_BIG_EXP)),
                  vl_set(CR_SINCOS_BIG_ROWS)); /* the sign bit (2^11) drops out */
  vd p0 = vd_mul(x, vd_gather(cr_sincos_big_c0, row));
  vd p1 = vd_mul(x, vd_gather(cr_sincos_big_c1, row));
  vd p2 = vd_mul(x, vd_gather(cr_sincos_big_c2, row));
  vd p3 = vd_mul(x, vd_gather(cr_sincos_big_c3, row));
  *t = vd_add(vd_add(p0, p1), shift);
  vd f1 = vd_add(vd_sub(p0, vd_sub(*t, shift)), p1);
  vd hi = vd_add(f1, p2); /* two-sum: hi + lo = f1 + p2 exactly, then + p3 */
  vd bb = vd_sub(hi, f1);
  vd lo = vd_add(vd_add(vd_sub(f1, vd_sub(hi, bb)), vd_sub(p2, bb)), p3);
  /* (hi + lo) * pi/8, pi/8 = 8*(pi/64 parts [0] + [1]) */
  vd pi_hi = vd_set(8 * cr_sincos_pi_n[0]), pi_lo = vd_set(8 * cr_sincos_pi_n[1]);
  vd rh = vd_mul(hi, pi_hi);
  vd rl = vd_add(vd_fma(hi, pi_hi, vd_neg(rh)), vd_fma(hi, pi_lo, vd_mul(lo, pi_hi)));
  return vd_add(rh, rl);
}

/* y ~ sin(x + off*pi/8) for off = 0 (sin) or 4 (cos). */
CR_FN vd cr_sincos_fast(vd x, double off, vm *special) {
  /* t = rint(x*8/pi) + shifter + off: for |x*8/pi| < 2^51 its low mantissa
   * bits are k + off mod 2^51, which index the tables. */
  vd shift = vd_set(CR_SHIFTER + off);
  vd t = vd_fma(x, vd_set(CR_SINCOS_INV_PI8), shift);
  vd kd = vd_sub(t, shift);
  /* pi/8 = 8*pi/64: the three parts scale exactly. */
  vd r = vd_fma(kd, vd_set(-8 * cr_sincos_pi_n[0]), x);
  r = vd_fma(kd, vd_set(-8 * cr_sincos_pi_n[1]), r);
  r = vd_fma(kd, vd_set(-8 * cr_sincos_pi_n[2]), r);
  vm big = vm_not(vd_lt(vd_abs(x), vd_set(CR_SINCOS_BIG)));
  if (vm_bits(big) != 0) { /* rare in most data: a branch, not always both */
    vd tb, rb = cr_sincos_reduce_big(x, shift, &tb);
    t = vd_select(big, tb, t);
    r = vd_select(big, rb, r);
  }
  /* Inf and NaN lanes compute garbage (table lookups stay in range whatever
   * the index) and are flagged. */
  vm finite = vd_lt(vd_abs(x), vd_set(INFINITY));
  vd a = vd_lookup16(cr_sincos_fast_sin, vd_as_vl(t));
  vd b = vd_lookup16(cr_sincos_fast_cos, vd_as_vl(t));
  vd u = vd_mul(r, r);
  vd pc = cr_horner(u, cr_sincos_cos_poly, 4);
  vd ps = cr_horner(u, cr_sincos_sin_poly, 4);
  vd small = vd_mul(u, vd_fma(a, pc, vd_mul(vd_mul(b, r), ps)));
  vd y = vd_add(a, vd_fma(b, r, small));
  /* Low 29 bits of y (those dropped by the rounding to float) within 16 of
   * 2^28, i.e. y within 16 ulps of a midpoint. */
  vl low = vl_and(vl_add(vd_as_vl(y), vl_set(16 - (1 << 28))), vl_set((1 << 29) - 1));
  *special = vm_or(vm_not(finite), vl_gt(vl_set(32), low));
  return y;
}

CR_FN vd cr_sin_fast(vd x, vm *special) {
  vd y = cr_sincos_fast(x, 0.0, special);
  *special = vm_or(*special, vd_eq(x, vd_set(0.0)));
  return y;
}

CR_FN vd cr_cos_fast(vd x, vm *special) { return cr_sincos_fast(x, 4.0, special); }

/* ---- accurate path --------------------------------------------------- */

/* Double-double products and sums (hi, lo with |lo| <= ulp(hi)). */
CR_FN void cr_dd_mul(double ah, double al, double bh, double bl, double *h, double *l) {
  double p = ah * bh;
  *l = fma(ah, bh, -p) + (ah * bl + al * bh);
  *h = p;
}
CR_FN void cr_dd_add(double ah, double al, double bh, double bl, double *h, double *l) {
  double s = ah + bh, bb = s - ah;
  double e = (ah - (s - bb)) + (bh - bb); /* two-sum: exact error of s */
  e += al + bl;
  *h = s + e;
  *l = e - (*h - s);
}

/* sin(j*pi/64 + r) for r = rh + rl, |r| <= pi/128 (1 + 2^-12), as a double-double. */
CR_FN void cr_sincos_accurate(int j, double rh, double rl, double *yh, double *yl) {
  const double *s = cr_sincos_acc_sin, *c = cr_sincos_acc_cos;
  double uh, ul, h, l, ch, cl, sh, sl;
  cr_dd_mul(rh, rl, rh, rl, &uh, &ul); /* u = r^2 */
  /* cos(r) = 1 + u*(-1/2 + u*qc(u)) */
  double qc = uh * (c[1] + uh * (c[2] + uh * (c[3] + uh * c[4])));
  cr_dd_add(c[0], 0.0, qc, 0.0, &h, &l);
  cr_dd_mul(uh, ul, h, l, &h, &l);
  cr_dd_add(1.0, 0.0, h, l, &ch, &cl);
  /* sin(r) = r + r*u*(-1/6 + u*qs(u)) */
  double qs = uh * (s[2] + uh * (s[3] + uh * (s[4] + uh * s[5])));
  cr_dd_add(s[0], s[1], qs, 0.0, &h, &l);
  cr_dd_mul(uh, ul, h, l, &h, &l);
  cr_dd_mul(rh, rl, h, l, &h, &l);
  cr_dd_add(rh, rl, h, l, &sh, &sl);
  int ja = j & 127, jb = (j + 32) & 127;
  double ah, al, bh, bl;
  cr_dd_mul(cr_sincos_table_hi[ja], cr_sincos_table_lo[ja], ch, cl, &ah, &al);
  cr_dd_mul(cr_sincos_table_hi[jb], cr_sincos_table_lo[jb], sh, sl, &bh, &bl);
  cr_dd_add(ah, al, bh, bl, yh, yl);
}

/* The float nearest to h + l (|l| <= ulp(h), result a normal float). Only
 * when h is exactly a midpoint between two floats does l decide. */
CR_FN float cr_dd_to_f32(double h, double l) {
  uint64_t b;
  memcpy(&b, &h, sizeof b);
  if ((b & 0x1FFFFFFFu) != 0x10000000u || l == 0.0) return (float)h;
  b &= ~(uint64_t)0x1FFFFFFFu;                /* the float below |h| */
  if ((l > 0) == (h > 0)) b += 0x20000000u;    /* |h + l| above the midpoint */
  memcpy(&h, &b, sizeof h);
  return (float)h;
}

CR_FN float cr_sincos_special(float x, int off) {
  if (cr_f32_isnan(x) || (cr_f32_bits(x) & 0x7FFFFFFFu) == 0x7F800000u) return cr_f32_nan();
  float ax = fabsf(x);
  /* |x| < 2^-12: |x|^3/6 < a quarter ulp of x and x^2/2 < 2^-25, so
   * sin(x) rounds to x and cos(x) to 1 (this also gives sin(-0) = -0). */
  if (ax < 0x1p-12f) return off ? 1.0f : x;
  double rh = ax, rl = 0.0;
  int k = 0; /* |x| < 2^-6: |x|*64/pi < 1/2 */
  if (ax >= 0x1p-6f) k = cr_reduce_pi64(x, &rh, &rl);
  if (x < 0.0f) { k = (128 - k) & 127; rh = -rh; rl = -rl; } /* reduce(-x) = -reduce(x) */
  double yh, yl;
  cr_sincos_accurate(k + off, rh, rl, &yh, &yl);
  return cr_dd_to_f32(yh, yl);
}

CR_FN float cr_sin_special(float x) { return cr_sincos_special(x, 0); }
CR_FN float cr_cos_special(float x) { return cr_sincos_special(x, 32); }

#endif /* CR_SIN_COS_H */
