/* Small floating-point utilities on top of the lane abstraction. Include a
 * vec/<isa>.h header first. */
#ifndef CR_FPUTIL_H
#define CR_FPUTIL_H

#include "../common/cr_defs.h"

/* For the rare special paths: keeping them out of line lets the block loop
 * keep its constants in registers. */
#ifndef CR_FN_COLD
#if defined(__CUDACC__)
#define CR_FN_COLD static __host__ __device__ __noinline__
#else
#define CR_FN_COLD static __attribute__((noinline, cold))
#endif
#endif

/* Adding 0x1.8p52 to a double of magnitude < 2^51 that is an integer puts
 * that integer, in two's complement, into the low mantissa bits. */
#define CR_SHIFTER 0x1.8p52

/* The integer value of kd (an integral double, |kd| < 2^51) as a 64-bit lane. */
CR_FN vl cr_vd_to_vl_exact(vd kd) {
  return vl_sub(vd_as_vl(vd_add(kd, vd_set(CR_SHIFTER))), vd_as_vl(vd_set(CR_SHIFTER)));
}

/* Horner's rule with one fma per step: c[0] + r*(c[1] + r*(... + r*c[n-1])). */
CR_FN vd cr_horner(vd r, const double *c, int n) {
  vd p = vd_set(c[n - 1]);
#pragma GCC unroll 32
  for (int i = n - 2; i >= 0; --i) p = vd_fma(p, r, vd_set(c[i]));
  return p;
}

/* The sign bit of x put on the non-negative y (odd functions). */
CR_FN vd cr_copysign_pos(vd y, vd x) {
  return vl_as_vd(vl_or(vd_as_vl(y), vl_and(vd_as_vl(x), vd_as_vl(vd_set(-0.0)))));
}

/* Lanes where x is not a positive finite double (NaN, zeros, negatives, +inf):
 * 0 < x < inf  <=>  bits(x) - 1 < bits(inf) - 1 as unsigned integers, which
 * the sign flip turns into one signed compare. Subtracting 1 and flipping
 * the sign bit is adding 2^63 - 1 (mod 2^64): one operation. */
CR_FN vm cr_vd_not_pos_finite(vd x) {
  const int64_t inf_bits = 0x7FF0000000000000LL;
  vl key = vl_add(vd_as_vl(x), vl_set(INT64_MAX));
  return vl_gt(key, vl_set((inf_bits - 2) ^ INT64_MIN));
}

/* Float bit access for the scalar special paths. */
CR_FN uint32_t cr_f32_bits(float x) { uint32_t u; memcpy(&u, &x, sizeof u); return u; }
CR_FN float cr_f32_from_bits(uint32_t u) { float x; memcpy(&x, &u, sizeof x); return x; }

/* The canonical quiet NaN every crlibm function returns (contract §0). */
CR_FN float cr_f32_nan(void) { return cr_f32_from_bits(0x7FC00000u); }
CR_FN int cr_f32_isnan(float x) { return (cr_f32_bits(x) & 0x7FFFFFFFu) > 0x7F800000u; }

#endif /* CR_FPUTIL_H */
