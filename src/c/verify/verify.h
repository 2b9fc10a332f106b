/* The exhaustive verifier's C core: expected results (the contract's special-value table,
 * glibc double reference with a relative error bound, MPFR) and the
 * bit-for-bit comparison of every CPU path's kernel against them. */
#ifndef VF_VERIFY_H
#define VF_VERIFY_H

#include <stddef.h>
#include <stdint.h>

#include "../common/isa.h"

enum vf_tier { VF_TIER_FAST = 0, VF_TIER_STRICT = 1 };

/* How an expected value was obtained: the contract's table (or exp saturation), glibc
 * reference decided by its bound, or MPFR. */
enum vf_how { VF_BY_TABLE = 0, VF_BY_BOUND = 1, VF_BY_MPFR = 2 };

enum vf_error {
  VF_OK = 0,
  VF_ERR_NO_MPFR = -1,   /* MPFR is needed and not loaded */
  VF_ERR_NO_KERNEL = -2, /* a selected path is not built or not supported here */
  VF_ERR_ARGS = -3,
};

/* Self-test hooks: each one makes a correct implementation look wrong, so
 * tests can show that the verifier detects errors. All off when zero/-1. */
typedef struct {
  int corrupt_isa;      /* path whose results get bit 0 flipped, or -1 */
  uint32_t corrupt_mod; /* ... for inputs whose bit pattern is a multiple of this */
  double ref_shift;     /* the glibc reference is multiplied by (1 + ref_shift) */
} vf_hooks;

/* Counts of one range, and for each path its first `cap` wrong results,
 * stored in the caller's arrays at [isa * cap, isa * cap + len[isa]). */
typedef struct {
  uint64_t checked;
  uint64_t undecided; /* fast tier: inputs the bound did not decide, sent to MPFR */
  uint64_t wrong[CR_ISA_COUNT];
  size_t cap, len[CR_ISA_COUNT];
  uint32_t *w_in, *w_got, *w_exp; /* CR_ISA_COUNT * cap entries each */
} vf_result;

/* Compare f(x) on every path in isa_mask (bit i = path i) with the expected
 * value, for x over the bit patterns [lo, hi) (hi <= 2^32). */
int vf_check_range(int fn, uint64_t lo, uint64_t hi, unsigned isa_mask, int tier, double bound,
                   const vf_hooks *hooks, vf_result *res);

/* The expected bits of f(x) for one input, and how they were obtained. */
int vf_expected(int fn, uint32_t x, int tier, double bound, const vf_hooks *hooks,
                uint32_t *out, int *how);

/* Over the inputs xs[0..n) where the fast tier relies on the glibc bound:
 * the largest relative error of the reference against MPFR (256 bits), the
 * input where it occurs, and how many inputs were measured. */
int vf_bound_sample(int fn, const uint32_t *xs, size_t n, const vf_hooks *hooks,
                    double *max_rel, uint32_t *worst, size_t *used);

#endif /* VF_VERIFY_H */
