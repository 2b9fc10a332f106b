/* Generator harness: one function's scalar fast path, built as a shared
 * library that tools/polygen/core.py loads with ctypes.
 *
 * CR_TABLE is redefined so every coefficient table is a writable exported
 * global: the generator loads candidate coefficients without recompiling.
 * Compiled (by core.Harness) with -ffp-contract=off and, per function:
 *   -DCR_H_HEADER='"crlibm/exp/core.h"'  the function header
 *   -DCR_H_REDUCE=cr_exp_reduce   v64 reduce(v64 x, v64 *comp): returns r
 *   -DCR_H_COMP=cr_exp_compensate v64 comp(v64 p, v64 comp): the result double
 *   -DCR_H_FAST=cr_exp_fast       the fast path
 *   -DCR_H_REF=exp                a libm double function, relative error
 *   -DCR_H_REF_ERR=0x1p-50        below this bound (conservative)
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "common/cr_defs.h"
#undef CR_TABLE
#define CR_TABLE(type, name) type name
#include "lanes/scalar.h"
#include CR_H_HEADER
#ifdef CR_H_EXTRA /* -DCR_H_EXTRA='"/abs/path.h"': the function's own exports */
#include CR_H_EXTRA
#endif

void h_reduce(const float *x, double *r, double *comp, long n) {
  for (long i = 0; i < n; ++i) r[i] = CR_H_REDUCE((double)x[i], &comp[i]);
}

void h_compensate(const double *p, const double *comp, double *out, long n) {
  for (long i = 0; i < n; ++i) out[i] = CR_H_COMP(p[i], comp[i]);
}

/* The fast path's float result and its special flag. */
void h_eval(const float *x, float *y, int *special, long n) {
  for (long i = 0; i < n; ++i) {
    v64m s;
    y[i] = (float)CR_H_FAST((double)x[i], &s);
    special[i] = s;
  }
}

/* The correctly rounded float of f(x), decided from the libm double when the
 * error bound keeps it clear of the float midpoints around its rounding.
 * Returns 0 (undecided) otherwise; NaN results give the canonical NaN. */
static int ref_round(float x, float *out) {
  double e = CR_H_REF((double)x);
  if (e != e) { *out = cr_f32_nan(); return 1; }
  float y = (float)e;
  /* libm's inf is an overflow far past float's range (or f(inf) = inf). */
  if (isinf(e)) { *out = y; return 1; }
  double tol = fabs(e) * CR_H_REF_ERR;
  double yd = y, lo, hi; /* midpoints to the neighbouring floats (exact in double) */
  const double top = 0x1p128 - 0x1p103; /* midpoint of FLT_MAX and 2^128 */
  if (isinf(y)) {
    lo = y > 0 ? top : -INFINITY;
    hi = y > 0 ? INFINITY : -top;
  } else {
    double dn = nextafterf(y, -INFINITY), up = nextafterf(y, INFINITY);
    lo = isinf(dn) ? -top : (yd + dn) / 2;
    hi = isinf(up) ? top : (yd + up) / 2;
  }
  *out = y;
  return e - tol > lo && e + tol < hi;
}

void h_reference(const float *x, float *y, uint8_t *decided, long n) {
  for (long i = 0; i < n; ++i) decided[i] = (uint8_t)ref_round(x[i], &y[i]);
}

/* Every stride-th float with bits in [lo, hi] (inclusive, one sign) that the
 * fast path takes: its result against the reference. Wrong inputs go to bad (the first
 * max_bad of them); undecided ones, with the fast path's result, to und.
 * Returns the number of wrong inputs; *n_und the number of undecided ones. */
long h_check(uint32_t lo, uint32_t hi, uint32_t stride, uint32_t *bad, long max_bad, uint32_t *und, float *und_y,
             long max_und, long *n_und) {
  long n_bad = 0;
  *n_und = 0;
  for (uint64_t b = lo; b <= hi; b += stride) {
    float x = cr_f32_from_bits((uint32_t)b), want, got;
    v64m s;
    got = (float)CR_H_FAST((double)x, &s);
    if (s) continue;
    if (!ref_round(x, &want)) {
      if (*n_und < max_und) { und[*n_und] = (uint32_t)b; und_y[*n_und] = got; }
      ++*n_und;
    } else if (cr_f32_bits(got) != cr_f32_bits(want)) {
      if (n_bad < max_bad) bad[n_bad] = (uint32_t)b;
      ++n_bad;
    }
  }
  return n_bad;
}

/* Inputs with bits in [lo, hi] whose libm value lies within thresh (relative)
 * of a float midpoint: candidates for the hardest cases of the rounding. */
long h_near_midpoint(uint32_t lo, uint32_t hi, double thresh, uint32_t *out, long max_out) {
  long n = 0;
  for (uint64_t b = lo; b <= hi; ++b) {
    float x = cr_f32_from_bits((uint32_t)b);
    double e = CR_H_REF((double)x);
    if (!(fabs(e) > 0x1p-149 && fabs(e) < 0x1p128)) continue;
    float y = (float)e;
    double mid = (double)nextafterf(y, e > (double)y ? INFINITY : -INFINITY);
    mid = ((double)y + mid) / 2;
    if (fabs(e - mid) <= thresh * fabs(e)) {
      if (n < max_out) out[n] = (uint32_t)b;
      ++n;
    }
  }
  return n;
}
