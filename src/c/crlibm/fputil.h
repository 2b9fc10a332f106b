/* Small floating-point utilities on top of the lane abstraction. Include a
 * lanes/<isa>.h header first. */
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
CR_FN v64i cr_vd_to_vl_exact(v64 kd) {
  return v64i_sub(v64_as_v64i(v64_add(kd, v64_set1(CR_SHIFTER))), v64_as_v64i(v64_set1(CR_SHIFTER)));
}

/* Horner's rule with one fma per step: c[0] + r*(c[1] + r*(... + r*c[n-1])). */
CR_FN v64 cr_horner(v64 r, const double *c, int n) {
  v64 p = v64_set1(c[n - 1]);
#pragma GCC unroll 32
  for (int i = n - 2; i >= 0; --i) p = v64_fma(p, r, v64_set1(c[i]));
  return p;
}

/* The sign bit of x put on the non-negative y (odd functions). */
CR_FN v64 cr_copysign_pos(v64 y, v64 x) {
  return v64i_as_v64(v64i_or(v64_as_v64i(y), v64i_and(v64_as_v64i(x), v64_as_v64i(v64_set1(-0.0)))));
}

/* Lanes where x is not a positive finite double (NaN, zeros, negatives, +inf):
 * 0 < x < inf  <=>  bits(x) - 1 < bits(inf) - 1 as unsigned integers, which
 * the sign flip turns into one signed compare. Subtracting 1 and flipping
 * the sign bit is adding 2^63 - 1 (mod 2^64): one operation. */
CR_FN v64m cr_vd_not_pos_finite(v64 x) {
  const int64_t inf_bits = 0x7FF0000000000000LL;
  v64i key = v64i_add(v64_as_v64i(x), v64i_set1(INT64_MAX));
  return v64i_gt(key, v64i_set1((inf_bits - 2) ^ INT64_MIN));
}

/* Float bit access for the scalar special paths. */
CR_FN uint32_t cr_f32_bits(float x) { uint32_t u; memcpy(&u, &x, sizeof u); return u; }
CR_FN float cr_f32_from_bits(uint32_t u) { float x; memcpy(&x, &u, sizeof x); return x; }

/* The canonical quiet NaN every crlibm function returns (contract §0). */
CR_FN float cr_f32_nan(void) { return cr_f32_from_bits(0x7FC00000u); }
CR_FN int cr_f32_isnan(float x) { return (cr_f32_bits(x) & 0x7FFFFFFFu) > 0x7F800000u; }

#endif /* CR_FPUTIL_H */
