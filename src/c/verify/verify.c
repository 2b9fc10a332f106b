#include "verify.h"

#include <float.h>
#include <math.h>
#include <string.h>

#include "../common/fp_env.h"
#include "../crlibm/crlibm_core.h"
#include "mpfr_dl.h"

#define VF_NAN 0x7FC00000u
#define VF_PINF 0x7F800000u
#define VF_NINF 0xFF800000u
#define VF_ONE 0x3F800000u
#define VF_MONE 0xBF800000u

static uint32_t bits_of(float x) { uint32_t u; memcpy(&u, &x, sizeof u); return u; }
static float float_of(uint32_t u) { float x; memcpy(&x, &u, sizeof x); return x; }

/* The registry's tokens for result bit patterns (functions.def). */
#define VF_R_nan VF_NAN
#define VF_R_pinf VF_PINF
#define VF_R_ninf VF_NINF
#define VF_R_pzero 0u
#define VF_R_nzero 0x80000000u
#define VF_R_one VF_ONE
#define VF_R_mone VF_MONE

/* A special input's class: a column of the registry's CR_SPECIALS row. */
enum { VF_C_pinf, VF_C_ninf, VF_C_pzero, VF_C_nzero, VF_C_negative, VF_C_none };

/* Result of one column: 1 and *out, or 0 where the row says none. */
#define VF_ROW_none(out) 0
#define VF_ROW_(tok, out) (*(out) = VF_R_##tok, 1)
#define VF_ROW_nan(out) VF_ROW_(nan, out)
#define VF_ROW_pinf(out) VF_ROW_(pinf, out)
#define VF_ROW_ninf(out) VF_ROW_(ninf, out)
#define VF_ROW_pzero(out) VF_ROW_(pzero, out)
#define VF_ROW_nzero(out) VF_ROW_(nzero, out)
#define VF_ROW_one(out) VF_ROW_(one, out)
#define VF_ROW_mone(out) VF_ROW_(mone, out)
#define CR_SPECIALS(pinf, ninf, pzero, nzero, negative)                  \
  switch (cls) {                                                         \
  case VF_C_pinf: return VF_ROW_##pinf(out);                             \
  case VF_C_ninf: return VF_ROW_##ninf(out);                             \
  case VF_C_pzero: return VF_ROW_##pzero(out);                           \
  case VF_C_nzero: return VF_ROW_##nzero(out);                           \
  case VF_C_negative: return VF_ROW_##negative(out);                     \
  default: return 0;                                                     \
  }

static int special_class(uint32_t u) {
  uint32_t mag = u & 0x7FFFFFFFu, neg = u >> 31;
  if (mag == VF_PINF) return neg ? VF_C_ninf : VF_C_pinf;
  if (mag == 0) return neg ? VF_C_nzero : VF_C_pzero;
  return neg ? VF_C_negative : VF_C_none;
}

/* docs/contract.md §1 table (the registry's specials row): NaN, infinite and
 * zero inputs, and the domain errors. */
static int special_table(int fn, uint32_t u, uint32_t *out) {
  if ((u & 0x7FFFFFFFu) > VF_PINF) { *out = VF_NAN; return 1; }
  const int cls = special_class(u);
  switch (fn) {
#define CR_FUNCTION(name, folder, lanes, avx2, mpfr, reference, ulps, specials, ...) \
  case CR_FN_ID_##name: { specials }
#include "../crlibm/functions.def"
#undef CR_FUNCTION
  }
  return 0;
}
#undef CR_SPECIALS

/* The registry's saturation: exp(x) > 2^128 for x >= 89 > 128 ln2, so +inf;
 * exp(x) < 2^-150, below half the least subnormal, for x <= -104 < -150 ln2,
 * so +0. This keeps the ~2^31 saturating inputs away from MPFR: there glibc
 * returns inf, zero or a subnormal double, which the relative bound cannot
 * decide. */
#define CR_NO_SATURATION
#define CR_SATURATES(lo, lo_result, hi, hi_result)         \
  if (x >= (hi)) { *out = VF_R_##hi_result; return 1; }     \
  if (x <= (lo)) { *out = VF_R_##lo_result; return 1; }

/* Results known without evaluating f: the contract's table, and the saturation. */
static int known_result(int fn, uint32_t u, uint32_t *out) {
  if (special_table(fn, u, out)) return 1;
  const float x = float_of(u);
  (void)x;
  switch (fn) {
#define CR_FUNCTION(name, folder, lanes, avx2, mpfr, reference, ulps, specials, override, \
                    saturation, ...)                                                     \
  case CR_FN_ID_##name: { saturation } break;
#include "../crlibm/functions.def"
#undef CR_FUNCTION
  }
  return 0;
}
#undef CR_SATURATES
#undef CR_NO_SATURATION

/* glibc's double function at x (the registry's reference). Returns 1 when
 * the declared relative bound applies: a finite, normal, non-zero result (an
 * exact zero or a subnormal double is left to MPFR rather than trusted). */
static int reference(int fn, float x, const vf_hooks *h, double *r) {
  double d = x, v = NAN;
  switch (fn) {
#define CR_FUNCTION(name, folder, lanes, avx2, mpfr, reference, ...) \
  case CR_FN_ID_##name: v = reference; break;
#include "../crlibm/functions.def"
#undef CR_FUNCTION
  }
  if (h != NULL && h->ref_shift != 0.0) v *= 1.0 + h->ref_shift;
  *r = v;
  return isfinite(v) && fabs(v) >= DBL_MIN;
}

/* Whether the contract's table replaces MPFR's value at u (the registry's
 * mpfr_override: rsqrt(-0) = -inf, where MPFR says +inf). */
#define VF_OVERRIDE_none (-1)
#define VF_OVERRIDE_pinf VF_C_pinf
#define VF_OVERRIDE_ninf VF_C_ninf
#define VF_OVERRIDE_pzero VF_C_pzero
#define VF_OVERRIDE_nzero VF_C_nzero
static int mpfr_overridden(int fn, uint32_t u) {
  const int cls = (u & 0x7FFFFFFFu) > VF_PINF ? VF_C_none : special_class(u);
  switch (fn) {
#define CR_FUNCTION(name, folder, lanes, avx2, mpfr, reference, ulps, specials, override, ...) \
  case CR_FN_ID_##name: return cls == VF_OVERRIDE_##override;
#include "../crlibm/functions.def"
#undef CR_FUNCTION
  }
  return 0;
}

/* If every real within bound*|y| of r (y: the exact value) rounds to the
 * same float, that float. The half-width |r|*(bound + 2^-51) covers:
 * |y| <= |r|/(1 - bound), so bound*|y| <= bound*|r| + 2*bound^2*|r|; the
 * product and the two sums below are each rounded (3 * 2^-53 * |r| at most
 * together). With bound <= 2^-30 the 2^-51*|r| margin exceeds both terms. */
static int decide(double r, double bound, uint32_t *out) {
  double d = fabs(r) * (bound + 0x1p-51);
  uint32_t lo = bits_of((float)(r - d)), hi = bits_of((float)(r + d));
  if (lo != hi) return 0;
  *out = lo;
  return 1;
}

/* MPFR's correctly rounded float result with the contract's overrides: gmpy2's
 * ieee(32) context (precision 24, emin -148, emax 128, subnormalized). */
static uint32_t mpfr_expected(int fn, uint32_t u) {
  uint32_t spec;
  if (mpfr_overridden(fn, u) && special_table(fn, u, &spec)) return spec;
  const vf_mpfr_api *m = vf_mpfr();
  static vf_mpfr_t x, y; /* one pair per process, reused: no allocation per input */
  static int ready;
  if (!ready) {
    m->init2(x, 24);
    m->init2(y, 24);
    ready = 1;
  }
  long emin = m->get_emin(), emax = m->get_emax();
  m->set_emin(-148);
  m->set_emax(128);
  m->set_flt(x, float_of(u), VF_MPFR_RNDN); /* exact: every float fits this range */
  int t = m->fn[fn](y, x, VF_MPFR_RNDN);
  t = m->check_range(y, t, VF_MPFR_RNDN);
  m->subnormalize(y, t, VF_MPFR_RNDN);
  uint32_t r = bits_of(m->get_flt(y, VF_MPFR_RNDN));
  m->set_emin(emin);
  m->set_emax(emax);
  return (r & 0x7FFFFFFFu) > VF_PINF ? VF_NAN : r;
}

int vf_expected(int fn, uint32_t u, int tier, double bound, const vf_hooks *hooks,
                uint32_t *out, int *how) {
  if (fn < 0 || fn >= CR_FUNCTION_COUNT) return VF_ERR_ARGS;
  if (tier == VF_TIER_FAST) {
    double r;
    if (known_result(fn, u, out)) { *how = VF_BY_TABLE; return VF_OK; }
    if (reference(fn, float_of(u), hooks, &r) && decide(r, bound, out)) {
      *how = VF_BY_BOUND;
      return VF_OK;
    }
  }
  if (vf_mpfr() == NULL) return VF_ERR_NO_MPFR;
  *out = mpfr_expected(fn, u);
  *how = VF_BY_MPFR;
  return VF_OK;
}

enum { VF_BLOCK = 2048 };

int vf_check_range(int fn, uint64_t lo, uint64_t hi, unsigned isa_mask, int tier, double bound,
                   const vf_hooks *hooks, vf_result *res) {
  if (fn < 0 || fn >= CR_FUNCTION_COUNT || lo > hi || hi > (1ull << 32) ||
      (tier != VF_TIER_FAST && tier != VF_TIER_STRICT) || !(bound >= 0.0 && bound < 0x1p-30))
    return VF_ERR_ARGS;
  for (int isa = 0; isa < CR_ISA_COUNT; ++isa)
    if (((isa_mask >> isa) & 1) && (cr_kernel(fn, isa) == NULL || !cr_isa_supported(isa)))
      return VF_ERR_NO_KERNEL;
  if (vf_mpfr() == NULL) return VF_ERR_NO_MPFR;
  static const vf_hooks no_hooks = {-1, 0, 0.0};
  if (hooks == NULL) hooks = &no_hooks;

  float x[VF_BLOCK], got[VF_BLOCK];
  uint32_t want[VF_BLOCK];
  /* The references, MPFR and the kernels all run in round to nearest
   * without FTZ/DAZ, whatever the calling process set. */
  cr_fenv_t env = cr_fenv_enter();
  for (uint64_t base = lo; base < hi; base += VF_BLOCK) {
    size_t n = hi - base < VF_BLOCK ? (size_t)(hi - base) : VF_BLOCK;
    for (size_t i = 0; i < n; ++i) {
      uint32_t u = (uint32_t)(base + i);
      int how;
      x[i] = float_of(u);
      vf_expected(fn, u, tier, bound, hooks, &want[i], &how);
      res->undecided += tier == VF_TIER_FAST && how == VF_BY_MPFR;
    }
    for (int isa = 0; isa < CR_ISA_COUNT; ++isa) {
      if (!((isa_mask >> isa) & 1)) continue;
      cr_kernel(fn, isa)(x, got, n);
      for (size_t i = 0; i < n; ++i) {
        uint32_t u = (uint32_t)(base + i), g = bits_of(got[i]);
        if (isa == hooks->corrupt_isa && hooks->corrupt_mod && u % hooks->corrupt_mod == 0) g ^= 1u;
        if (g == want[i]) continue;
        res->wrong[isa]++;
        if (res->len[isa] < res->cap) {
          size_t k = isa * res->cap + res->len[isa]++;
          res->w_in[k] = u;
          res->w_got[k] = g;
          res->w_exp[k] = want[i];
        }
      }
    }
    res->checked += n;
  }
  cr_fenv_leave(env);
  return VF_OK;
}

int vf_bound_sample(int fn, const uint32_t *xs, size_t n, const vf_hooks *hooks,
                    double *max_rel, uint32_t *worst, size_t *used) {
  if (fn < 0 || fn >= CR_FUNCTION_COUNT) return VF_ERR_ARGS;
  const vf_mpfr_api *m = vf_mpfr();
  if (m == NULL) return VF_ERR_NO_MPFR;
  vf_mpfr_t xm, ym, rm, dm;
  m->init2(xm, 24);
  m->init2(ym, 256);
  m->init2(rm, 256);
  m->init2(dm, 256);
  long emin = m->get_emin(), emax = m->get_emax();
  m->set_emin(-(1L << 30) + 1); /* MPFR's default range: no under/overflow here */
  m->set_emax((1L << 30) - 1);
  cr_fenv_t env = cr_fenv_enter();
  *max_rel = 0.0;
  *worst = 0;
  *used = 0;
  for (size_t i = 0; i < n; ++i) {
    uint32_t spec;
    double r;
    if (known_result(fn, xs[i], &spec) || !reference(fn, float_of(xs[i]), hooks, &r)) continue;
    m->set_flt(xm, float_of(xs[i]), VF_MPFR_RNDN);
    m->fn[fn](ym, xm, VF_MPFR_RNDN);
    m->set_d(rm, r, VF_MPFR_RNDN);
    m->sub(dm, rm, ym, VF_MPFR_RNDN);
    m->div(dm, dm, ym, VF_MPFR_RNDN); /* y != 0: f has no zero at a finite non-zero float */
    double rel = fabs(m->get_d(dm, VF_MPFR_RNDN));
    if (!(rel <= *max_rel)) { *max_rel = rel; *worst = xs[i]; }
    ++*used;
  }
  cr_fenv_leave(env);
  m->set_emin(emin);
  m->set_emax(emax);
  m->clear(xm);
  m->clear(ym);
  m->clear(rm);
  m->clear(dm);
  return VF_OK;
}
