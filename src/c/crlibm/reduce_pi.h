/* Exact argument reduction by pi/64 for any finite float (Payne-Hanek).
 *
 * |x| = m * 2^E with a 24-bit integer m, so |x|*64/pi = m * 2^(E+6) * (1/pi).
 * Bits of 1/pi of weight 2^(E+6-i) >= 128 contribute multiples of 128 to it
 * and are skipped; the next 224 bits, times m, give the rest exactly up to a
 * truncation below 2^-165 (relative to the unit of k). Integer arithmetic
 * only (32x32->64 products), so it is portable to any C or CUDA compiler.
 */
#ifndef CR_REDUCE_PI_H
#define CR_REDUCE_PI_H

#include <math.h>
#include "fputil.h"
#include "coeffs/sincos_invpi.h"
#include "coeffs/sincos_poly.h"

#define CR_RED_LIMBS 7 /* 32-bit limbs of 1/pi used per reduction */

/* Leading zero bits of a non-zero 32-bit word (portable: no builtins). */
CR_FN int cr_clz32(uint32_t v) {
  int n = 0;
  if (!(v & 0xFFFF0000u)) { n += 16; v <<= 16; }
  if (!(v & 0xFF000000u)) { n += 8; v <<= 8; }
  if (!(v & 0xF0000000u)) { n += 4; v <<= 4; }
  if (!(v & 0xC0000000u)) { n += 2; v <<= 2; }
  if (!(v & 0x80000000u)) { n += 1; }
  return n;
}

/* 2^-n as a double, 0 <= n < 1000 (exact: built from the exponent bits). */
CR_FN double cr_pow2_neg(int n) {
  uint64_t b = (uint64_t)(1023 - n) << 52;
  double d;
  memcpy(&d, &b, sizeof d);
  return d;
}

/* For finite |x| >= 2^-6: returns k mod 128 where k is the integer nearest to
 * |x|*64/pi, and sets |x| - k*pi/64 = *rh + *rl (relative error < 2^-100). */
CR_FN int cr_reduce_pi64(float x, double *rh, double *rl) {
  uint32_t u = cr_f32_bits(x) & 0x7FFFFFFFu;
  uint32_t m = (u & 0x7FFFFFu) | 0x800000u;
  int t = (int)(u >> 23) - 150 + 6; /* |x|*64/pi = m * 2^t / pi */
  /* Window: bits t-31 .. t-32+32*LIMBS of 1/pi (table bit g = fraction bit g-64).
   * Then m*window has its binary point 32*(LIMBS-1) bits from the bottom. */
  int g0 = t - 31 + 64, q = (g0 - 1) >> 5, s = (g0 - 1) & 31;
  uint32_t z[CR_RED_LIMBS + 1];
  uint64_t carry = 0;
  for (int j = CR_RED_LIMBS - 1; j >= 0; --j) {
    uint64_t two = ((uint64_t)cr_sincos_invpi[q + j] << 32) | cr_sincos_invpi[q + j + 1];
    uint32_t limb = (uint32_t)(two >> (32 - s));
    uint64_t acc = (uint64_t)m * limb + carry; /* < 2^56 + 2^24: no overflow */
    z[j + 1] = (uint32_t)acc;
    carry = acc >> 32;
  }
  z[0] = (uint32_t)carry;
  /* z[1] holds the low 32 bits of the integer part, z[2..] the fraction. */
  int k = (int)(z[1] & 127u);
  double sign = 1.0;
  if (z[2] & 0x80000000u) { /* fraction >= 1/2: round k up, negate the fraction */
    k = (k + 1) & 127;
    sign = -1.0;
    uint64_t borrow = 1; /* two's complement: ~f + 1 */
    for (int j = CR_RED_LIMBS; j >= 2; --j) {
      uint64_t v = (uint64_t)(uint32_t)~z[j] + borrow;
      z[j] = (uint32_t)v;
      borrow = v >> 32;
    }
  }
  int i = 2;
  while (i <= CR_RED_LIMBS && z[i] == 0) ++i;
  if (i > CR_RED_LIMBS) { *rh = *rl = 0.0; return k; } /* unreachable: pi is irrational */
  /* Normalise four limbs from the first non-zero one into hi:lo (128 bits). */
  uint32_t w[4];
  for (int j = 0; j < 4; ++j) w[j] = (i + j <= CR_RED_LIMBS) ? z[i + j] : 0u;
  int lz = cr_clz32(w[0]);
  uint64_t hi = ((uint64_t)w[0] << 32) | w[1], lo = ((uint64_t)w[2] << 32) | w[3];
  if (lz) { hi = (hi << lz) | (lo >> (64 - lz)); lo <<= lz; }
  /* f = (hi*2^-64 + lo*2^-128) * 2^-(32*(i-2)+lz), split into fh + fl. */
  double scale = cr_pow2_neg(32 * (i - 2) + lz);
  double fh = (double)(hi >> 11) * 0x1p-53;
  double fl = (double)(((hi & 0x7FFu) << 53) | (lo >> 11)) * 0x1p-117;
  /* r = f * pi/64, pi/64 = P0 + P1. */
  double p0 = cr_sincos_pi_n[0], p1 = cr_sincos_pi_n[1];
  double h = fh * p0;
  double l = fma(fh, p0, -h) + (fh * p1 + fl * p0);
  *rh = sign * h * scale;
  *rl = sign * l * scale;
  return k;
}

#endif /* CR_REDUCE_PI_H */
