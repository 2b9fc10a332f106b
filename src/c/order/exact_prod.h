/* The exact order for products (docs/contract.md §5.4): cumprod's prefix k is
 * RN of the exact real product t_0 ... t_k. Plain integer code, no
 * floating-point operation; the driver is src/c/reproblas/frame/exact_cumprod.c,
 * the proof docs/design/exact_cumprod.md.
 *
 * A finite nonzero term is ±m 2^e with m odd (m < 2^53). The running product
 * has two forms:
 *
 *  - fast: a 192-bit integer M (three 64-bit limbs, top limb nonzero, so
 *    M >= 2^128) and an exponent E, with the exact product P = M 2^E (1 + η).
 *    Each term multiplies M by m exactly (256 bits) and keeps the top three
 *    nonzero limbs, dropping (truncating) at most one: that step's relative
 *    error f / M' lies in [0, 2^-128), f < 1 the dropped part, M' >= 2^128.
 *    j counts the steps that dropped a nonzero limb; 0 <= η <= (1 + 2^-128)^j - 1
 *    < 2j 2^-128, and η > 0 once j > 0. With L = bitlen(M), the exact value in
 *    units of M's last bit is in [M, M + j 2^(L-127)), inside [M, M + 2^w) for
 *    w = L - 127 + bitlen(j); it is M when j = 0.
 *  - exact: the product B of the odd parts of the terms so far, a bignum of
 *    64-bit limbs (the driver's buffer), exponent the sum of the terms'
 *    exponents: P = B 2^esum, exactly.
 *
 * Rounding (rb_xprod_round_limbs) reads the format's grid at M's leading bit:
 * s is the position in M of the result's ulp (reduced precision for
 * subnormals), c = M >> s, R = M mod 2^s, half = 2^(s-1). RN is monotone, and
 * every value of [M, M + 2^w) with 2^w <= half rounds the same way when
 *   R >= half: the exact value exceeds half (η > 0) and stays below
 *              2^s + half, so it rounds to c + 1;
 *   R + 2^w <= half, which holds when the bits of M in [w, s - 1) are not all
 *              ones (and bit s - 1 is 0): it rounds to c.
 * Otherwise (R within 2^w below half) the fast form cannot decide, and the
 * driver rounds the exact form B 2^esum instead, then restarts the fast form
 * from B's top limbs (j back to 0 or 1). With j = 0 M is the exact value and
 * ties go to even. A carry of c into 2^p (a new binade) lands on a grid point
 * of both binades, so the grid read at M's leading bit serves the whole
 * interval. Overflow: c 2^f >= 2^(emax + 1) after rounding, which is IEEE's
 * threshold (2 - 2^-p) 2^emax. */
#ifndef RB_EXACT_PROD_H
#define RB_EXACT_PROD_H

#include <stdint.h>

#if defined(__CUDACC__) /* also the CUDA kernels (src/cuda/reproblas/exact_prod.cuh) */
#define RB_XPFN static __host__ __device__ inline
#else
#define RB_XPFN static inline
#endif

enum { RB_XP_LIMBS = 3 };

/* A format: precision, least subnormal exponent, the bits of +inf, of the
 * NaN results and of the sign. */
typedef struct {
  int prec;
  int qmin;
  uint64_t inf_bits, nan_bits, sign_bit;
} rb_xfmt;

RB_XPFN rb_xfmt rb_xfmt_of(int is_f32) {
  rb_xfmt f32 = {24, -149, 0x7F800000ull, 0x7FC00000ull, 0x80000000ull};
  rb_xfmt f64 = {53, -1074, 0x7FF0000000000000ull, 0x7FF8000000000000ull, 1ull << 63};
  return is_f32 ? f32 : f64;
}

/* One term from its bits: class 0 finite nonzero (value ±m 2^e, m odd), 1
 * zero, 2 infinity, 3 NaN. */
typedef struct {
  uint64_t m;
  int64_t e;
  int neg, cls;
} rb_xterm;

#if defined(__CUDA_ARCH__)
RB_XPFN int rb_xp_ctz(uint64_t v) { return __ffsll((long long)v) - 1; }
RB_XPFN int rb_xp_bitlen(uint64_t v) { return 64 - __clzll((long long)v); }
#else
RB_XPFN int rb_xp_ctz(uint64_t v) { return __builtin_ctzll(v); }
RB_XPFN int rb_xp_bitlen(uint64_t v) { return v ? 64 - __builtin_clzll(v) : 0; }
#endif

/* a * m + c = hi 2^64 + lo, exactly (it fits: (2^64 - 1)^2 + 2^64 - 1 < 2^128); returns lo. */
RB_XPFN uint64_t rb_xp_mac(uint64_t a, uint64_t m, uint64_t c, uint64_t *hi) {
#if defined(__CUDA_ARCH__)
  const uint64_t lo = a * m, r = lo + c;
  *hi = __umul64hi(a, m) + (r < lo);
  return r;
#else
  const unsigned __int128 acc = (unsigned __int128)a * m + c;
  *hi = (uint64_t)(acc >> 64);
  return (uint64_t)acc;
#endif
}

RB_XPFN rb_xterm rb_xterm_of(uint64_t bits, const rb_xfmt *f) {
  rb_xterm t;
  const int fb = f->prec - 1; /* fraction bits */
  const uint64_t frac = bits & ((1ull << fb) - 1);
  const uint64_t field = (bits & ~f->sign_bit) >> fb, top = f->inf_bits >> fb;
  t.neg = (bits & f->sign_bit) != 0;
  t.cls = field == top ? (frac ? 3 : 2) : (field == 0 && frac == 0) ? 1 : 0;
  t.m = field ? frac | (1ull << fb) : frac;
  t.e = (field ? (int64_t)field - 1 : 0) + f->qmin;
  if (t.cls == 0) {
    const int z = rb_xp_ctz(t.m);
    t.m >>= z;
    t.e += z;
  }
  return t;
}

/* ---- bit access on little-endian 64-bit limb arrays (bits past the top are 0) ---- */

RB_XPFN int rb_xp_bit(const uint64_t *a, int64_t n, int64_t pos) {
  if (pos < 0 || pos >= 64 * n) return 0;
  return (int)((a[pos >> 6] >> (pos & 63)) & 1);
}

/* a >> s, for a result below 2^64; s >= 0 */
RB_XPFN uint64_t rb_xp_shr(const uint64_t *a, int64_t n, int64_t s) {
  const int64_t k = s >> 6;
  const int sh = (int)(s & 63);
  if (k >= n) return 0;
  uint64_t c = a[k] >> sh;
  if (sh && k + 1 < n) c |= a[k + 1] << (64 - sh);
  return c;
}

/* whether a bit below pos is set */
RB_XPFN int rb_xp_sticky(const uint64_t *a, int64_t n, int64_t pos) {
  if (pos <= 0) return 0;
  const int64_t k = pos >> 6 < n ? pos >> 6 : n;
  for (int64_t i = 0; i < k; ++i)
    if (a[i]) return 1;
  const int sh = (int)(pos & 63);
  return k < n && sh && (a[k] & ((1ull << sh) - 1)) != 0;
}

/* whether every bit in [lo, hi) is set (true when empty) */
RB_XPFN int rb_xp_all_ones(const uint64_t *a, int64_t n, int64_t lo, int64_t hi) {
  if (lo < 0) lo = 0;
  if (lo >= hi) return 1;
  if (hi > 64 * n) return 0;
  for (int64_t i = lo >> 6; i <= (hi - 1) >> 6; ++i) {
    const int64_t b0 = i * 64 > lo ? i * 64 : lo, b1 = (i + 1) * 64 < hi ? (i + 1) * 64 : hi;
    const int w = (int)(b1 - b0), sh = (int)(b0 - i * 64);
    const uint64_t mask = (w == 64 ? ~0ull : ((1ull << w) - 1)) << sh;
    if ((a[i] & mask) != mask) return 0;
  }
  return 1;
}

/* ---- rounding a ±a 2^e (n limbs, top limb nonzero) to the format ---- */

/* The bits of the result into *out; returns 0 (nothing written) when the value
 * lies in [a, a + 2^w) (j > 0, w = bitlen(a) - 127 + bitlen(j): the fast form)
 * and that interval meets a rounding boundary. j = 0: a is exact. */
RB_XPFN int rb_xprod_round_limbs(const uint64_t *a, int64_t n, int64_t e, uint64_t j, int neg,
                                 const rb_xfmt *f, uint64_t *out) {
  const int64_t L = 64 * (n - 1) + rb_xp_bitlen(a[n - 1]);
  const int64_t lead = L - 1 + e; /* the value is in [2^lead, 2^(lead + 1)) */
  int64_t q = lead - f->prec + 1; /* the ulp's exponent */
  if (q < f->qmin) q = f->qmin;
  const int64_t s = q - e; /* the ulp's position in a */
  uint64_t c;
  if (s <= 0) { /* exact: a has at most prec bits (j = 0 here: L >= 129 otherwise) */
    c = a[0] << -s;
  } else {
    c = rb_xp_shr(a, n, s);
    const int half = rb_xp_bit(a, n, s - 1);
    if (j == 0) {
      if (half && (rb_xp_sticky(a, n, s - 1) || (c & 1))) ++c; /* ties to even */
    } else {
      const int64_t w = L - 127 + rb_xp_bitlen(j);
      if (w > s - 1) return 0;
      if (half) ++c;
      else if (rb_xp_all_ones(a, n, w, s - 1)) return 0;
    }
  }
  const uint64_t sign = neg ? f->sign_bit : 0;
  const int64_t field = q - f->qmin, top = (int64_t)(f->inf_bits >> (f->prec - 1));
  if (field >= top) {
    *out = f->inf_bits | sign;
    return 1;
  }
  /* c 2^q in the format (c = 0 only when q = qmin); a carry to 2^prec moves
   * into the exponent field */
  const uint64_t bits = ((uint64_t)field << (f->prec - 1)) + c;
  *out = (bits >= f->inf_bits ? f->inf_bits : bits) | sign;
  return 1;
}

/* ---- the running product ---- */

typedef struct {
  uint64_t m[RB_XP_LIMBS]; /* fast form M, top limb nonzero */
  int64_t e;               /* its exponent */
  uint64_t j;              /* truncating steps: 0 while M is exact */
  int64_t esum;            /* the exact form's exponent: sum of the terms' e */
  int nan, inf, zero, neg; /* terms seen: NaN, infinity, zero; sign parity */
} rb_xprod;

RB_XPFN void rb_xprod_init(rb_xprod *s) {
  s->m[0] = s->m[1] = 0;
  s->m[2] = 1; /* 1 = 2^128 2^-128 */
  s->e = -128;
  s->j = 0;
  s->esum = 0;
  s->nan = s->inf = s->zero = s->neg = 0;
}

/* whether the product is finite and nonzero so far (the fast and exact forms
 * are only needed then) */
RB_XPFN int rb_xprod_finite(const rb_xprod *s) { return !(s->nan | s->inf | s->zero); }

RB_XPFN void rb_xprod_mul(rb_xprod *s, const rb_xterm *t) {
  s->neg ^= t->neg;
  if (t->cls) {
    s->nan |= t->cls == 3;
    s->inf |= t->cls == 2;
    s->zero |= t->cls == 1;
    return;
  }
  if (!rb_xprod_finite(s)) return;
  s->esum += t->e;
  s->e += t->e;
  if (t->m == 1) return;
  uint64_t p[RB_XP_LIMBS + 1], carry = 0;
  for (int i = 0; i < RB_XP_LIMBS; ++i) p[i] = rb_xp_mac(s->m[i], t->m, carry, &carry);
  p[RB_XP_LIMBS] = carry;
  const int drop = p[RB_XP_LIMBS] != 0;
  if (drop && p[0]) ++s->j;
  for (int i = 0; i < RB_XP_LIMBS; ++i) s->m[i] = p[i + drop];
  s->e += 64 * drop;
}

/* s times r, r the running product of the terms after s's (both fast forms; the CUDA
 * kernels' long rows, in pieces): the 384-bit M_s M_r cut to its top three nonzero limbs,
 * which drops a relative part below 2^-128 as one term's step does, so
 * P = M 2^E (1 + η) holds with j = j_s + j_r (+ 1 when a nonzero limb is dropped). */
RB_XPFN void rb_xprod_join(rb_xprod *s, const rb_xprod *r) {
  s->neg ^= r->neg;
  s->nan |= r->nan;
  s->inf |= r->inf;
  s->zero |= r->zero;
  if (!rb_xprod_finite(s)) return;
  s->esum += r->esum;
  uint64_t p[2 * RB_XP_LIMBS] = {0};
  for (int i = 0; i < RB_XP_LIMBS; ++i) {
    uint64_t carry = 0;
    for (int k = 0; k < RB_XP_LIMBS; ++k) { /* a b + p + carry < 2^128 */
      uint64_t hi;
      const uint64_t lo = rb_xp_mac(s->m[i], r->m[k], carry, &hi), sum = lo + p[i + k];
      p[i + k] = sum;
      carry = hi + (sum < lo);
    }
    p[i + RB_XP_LIMBS] = carry;
  }
  /* both are at least 2^128: the top nonzero limb is 4 or 5 */
  const int top = p[2 * RB_XP_LIMBS - 1] ? 2 * RB_XP_LIMBS - 1 : 2 * RB_XP_LIMBS - 2;
  const int lo = top - (RB_XP_LIMBS - 1);
  int dropped = 0;
  for (int i = 0; i < lo; ++i) dropped |= p[i] != 0;
  for (int i = 0; i < RB_XP_LIMBS; ++i) s->m[i] = p[lo + i];
  s->e += r->e + 64 * lo;
  s->j += r->j + (uint64_t)dropped;
}

/* The prefix's bits into *out, or 0 when the fast form cannot decide (the
 * product is finite and nonzero then). NaN when a NaN was seen or both an
 * infinity and a zero (the format's default NaN); else ±inf, ±0, or the
 * rounded product, signed by the parity of the terms' signs. */
RB_XPFN int rb_xprod_round(const rb_xprod *s, const rb_xfmt *f, uint64_t *out) {
  const uint64_t sign = s->neg ? f->sign_bit : 0;
  if (s->nan || (s->inf && s->zero)) *out = f->nan_bits;
  else if (s->inf) *out = f->inf_bits | sign;
  else if (s->zero) *out = sign;
  else return rb_xprod_round_limbs(s->m, RB_XP_LIMBS, s->e, s->j, s->neg, f, out);
  return 1;
}

/* ---- the exact form: a bignum of n limbs (top limb nonzero) ---- */

/* b *= m (m < 2^63) in place; b has room for n + 1 limbs. Returns the new n. */
RB_XPFN int64_t rb_xbig_mul(uint64_t *b, int64_t n, uint64_t m) {
  uint64_t top = 0;
  for (int64_t i = 0; i < n; ++i) b[i] = rb_xp_mac(b[i], m, top, &top);
  if (top) b[n++] = top;
  return n;
}

/* The fast form restarted from the exact one (B of n limbs, exponent
 * s->esum): its top three limbs, j = 1 if a nonzero limb is dropped. */
RB_XPFN void rb_xprod_restart(rb_xprod *s, const uint64_t *b, int64_t n) {
  const int64_t lo = n - RB_XP_LIMBS; /* limbs dropped (< 0: zeros shifted in) */
  for (int i = 0; i < RB_XP_LIMBS; ++i) s->m[i] = lo + i >= 0 ? b[lo + i] : 0;
  s->e = s->esum + 64 * lo;
  s->j = 0;
  for (int64_t i = 0; i < lo; ++i)
    if (b[i]) {
      s->j = 1;
      break;
    }
}

#endif /* RB_EXACT_PROD_H */
