/* The exact order (docs/contract.md §5.4): an exact accumulator of the
 * terms, rounded once at the end. For the CPU kernels (C11), the reference
 * (src/c/order/reference.c), and the CUDA kernels and their host emulation
 * (C++): plain integer code, no floating-point operation but the IEEE
 * product of a non-finite term.
 *
 * The accumulator is a fixed-point number: limb i (an int64) holds digits of
 * weight 2^(32 i + base). Every finite term is an integer m times a power of
 * two (a float: m < 2^24, a float x float product: m < 2^48, double: 2^53,
 * double x double: 2^106), so it is added exactly as 32-bit digits, each
 * added to (or subtracted from) one limb. A limb moves by less than 2^32 per
 * term, so 2^30 terms fit in an int64 before rb_xacc_normalize has to move
 * the carries up (RB_XACC_BATCH). Normalized limbs are digits in [0, 2^32),
 * the top limb signed: then any number of accumulators up to 2^30 can be added
 * limb by limb (rb_xacc_merge), exactly, so how the terms are split among
 * threads, blocks or lanes never changes the sum, hence never the result.
 *
 * Kinds (rb_xacc_kind): where limb 0 sits (the lowest term bit) and how many
 * limbs cover the largest term plus 64 bits of carries:
 *   float terms          base 2^-149,  11 limbs
 *   float products       base 2^-298,  20 limbs
 *   double terms         base 2^-1074, 68 limbs
 *   double products      base 2^-2148, 134 limbs
 *
 * Non-finite terms are counted apart (NaN, +inf, -inf) and decide the result
 * as IEEE addition would: NaN if any NaN or both infinities. A zero result is
 * -0 only when every term is -0 (IEEE's sequential sum started from -0). */
#ifndef RB_EXACT_H
#define RB_EXACT_H

#include <stdint.h>

#if !defined(__CUDA_ARCH__)
#include <string.h> /* memcpy: the bits of a float on the host */
#endif
#if defined(__CUDACC__)
#define RB_XFN static __host__ __device__ inline
#define RB_XFN_INLINE static __host__ __device__ __forceinline__
#else
#define RB_XFN static inline
#define RB_XFN_INLINE static inline __attribute__((always_inline))
#endif

enum rb_xacc_kind { RB_XK_F32 = 0, RB_XK_F32_PROD = 1, RB_XK_F64 = 2, RB_XK_F64_PROD = 3 };
enum { RB_XACC_LIMBS = 134, RB_XACC_BATCH = 1 << 30 };

typedef struct {
  int64_t limb[RB_XACC_LIMBS];
  int32_t nan, pinf, ninf; /* non-finite terms seen */
  int32_t nonneg0;         /* a term other than -0 was seen */
} rb_xacc;

RB_XFN int rb_xacc_limbs(int kind) {
  return kind == RB_XK_F32 ? 11 : kind == RB_XK_F32_PROD ? 20 : kind == RB_XK_F64 ? 68 : 134;
}
RB_XFN int rb_xacc_base(int kind) {
  return kind == RB_XK_F32 ? -149 : kind == RB_XK_F32_PROD ? -298 : kind == RB_XK_F64 ? -1074
                                                                                       : -2148;
}

RB_XFN uint32_t rb_xbits32(float x) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(x);
#else
  uint32_t u;
  memcpy(&u, &x, 4);
  return u;
#endif
}
RB_XFN uint64_t rb_xbits64(double x) {
#if defined(__CUDA_ARCH__)
  return (uint64_t)__double_as_longlong(x);
#else
  uint64_t u;
  memcpy(&u, &x, 8);
  return u;
#endif
}
RB_XFN float rb_xfloat32(uint32_t u) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  float x;
  memcpy(&x, &u, 4);
  return x;
#endif
}
RB_XFN double rb_xfloat64(uint64_t u) {
#if defined(__CUDA_ARCH__)
  return __longlong_as_double((long long)u);
#else
  double x;
  memcpy(&x, &u, 8);
  return x;
#endif
}

RB_XFN void rb_xacc_init(rb_xacc *a) {
  for (int i = 0; i < RB_XACC_LIMBS; ++i) a->limb[i] = 0;
  a->nan = a->pinf = a->ninf = a->nonneg0 = 0;
}

/* limb[i] += d, or -= d when neg is all ones (d < 2^32). */
#define RB_XPUT(l, i, d, neg) ((l)[i] += ((int64_t)(d) ^ (neg)) - (neg))
#define RB_XM32 0xFFFFFFFFull

/* A non-finite term (its IEEE value). */
RB_XFN void rb_xacc_special(rb_xacc *a, int is_nan, int negative) {
  if (is_nan) a->nan = 1;
  else if (negative) a->ninf = 1;
  else a->pinf = 1;
}

/* Term bits u of a float (sum: x_k; asum: the caller clears the sign). */
RB_XFN_INLINE void rb_xacc_add_f32(rb_xacc *a, int64_t *l, uint32_t u) {
  const uint32_t e = (u >> 23) & 0xFF;
  if (e == 0xFF) {
    rb_xacc_special(a, (u & 0x7FFFFF) != 0, (int)(u >> 31));
    return;
  }
  a->nonneg0 |= u != 0x80000000u;
  const uint64_t m = (u & 0x7FFFFF) | (e ? 0x800000u : 0);
  const int p = e ? (int)e - 1 : 0; /* x = m 2^(p - 149) */
  const uint64_t v = m << (p & 31);  /* < 2^55 */
  const int64_t neg = -(int64_t)(u >> 31);
  RB_XPUT(l, p >> 5, v & RB_XM32, neg);
  RB_XPUT(l, (p >> 5) + 1, v >> 32, neg);
}

/* m 2^(p + base), m < 2^64, as up to three digits from limb p >> 5. */
RB_XFN_INLINE void rb_xput64(int64_t *l, int p, uint64_t m, int64_t neg) {
  const int i = p >> 5, s = p & 31;
  RB_XPUT(l, i, (m << s) & RB_XM32, neg);
  RB_XPUT(l, i + 1, (m >> (32 - s)) & RB_XM32, neg);
  RB_XPUT(l, i + 2, (m >> 32) >> (32 - s), neg);
}

/* The product x·y of two floats, exactly: m_x m_y < 2^48. */
RB_XFN_INLINE void rb_xacc_add_f32_prod(rb_xacc *a, int64_t *l, float x, float y) {
  const uint32_t ux = rb_xbits32(x), uy = rb_xbits32(y);
  const uint32_t ex = (ux >> 23) & 0xFF, ey = (uy >> 23) & 0xFF;
  const uint32_t neg = (ux ^ uy) >> 31;
  if (ex == 0xFF || ey == 0xFF) { /* IEEE's product: NaN, or an infinity */
    const float pr = x * y;
    rb_xacc_special(a, pr != pr, (int)(rb_xbits32(pr) >> 31));
    return;
  }
  const uint64_t mx = (ux & 0x7FFFFF) | (ex ? 0x800000u : 0);
  const uint64_t my = (uy & 0x7FFFFF) | (ey ? 0x800000u : 0);
  a->nonneg0 |= !(neg && (mx == 0 || my == 0)); /* -0 exactly: a zero factor, signs differ */
  const int p = (ex ? (int)ex - 1 : 0) + (ey ? (int)ey - 1 : 0); /* x y = m 2^(p - 298) */
  rb_xput64(l, p, mx * my, -(int64_t)neg);
}

/* Term bits u of a double. */
RB_XFN_INLINE void rb_xacc_add_f64(rb_xacc *a, int64_t *l, uint64_t u) {
  const uint32_t e = (uint32_t)(u >> 52) & 0x7FF;
  if (e == 0x7FF) {
    rb_xacc_special(a, (u & 0xFFFFFFFFFFFFFull) != 0, (int)(u >> 63));
    return;
  }
  a->nonneg0 |= u != 0x8000000000000000ull;
  const uint64_t m = (u & 0xFFFFFFFFFFFFFull) | (e ? 0x10000000000000ull : 0);
  rb_xput64(l, e ? (int)e - 1 : 0, m, -(int64_t)(u >> 63)); /* x = m 2^(p - 1074) */
}

/* hi:lo = a·b. */
RB_XFN_INLINE void rb_xmul64(uint64_t a, uint64_t b, uint64_t *hi, uint64_t *lo) {
#if defined(__CUDA_ARCH__)
  *lo = a * b;
  *hi = __umul64hi(a, b);
#else
  const unsigned __int128 r = (unsigned __int128)a * b;
  *lo = (uint64_t)r;
  *hi = (uint64_t)(r >> 64);
#endif
}

/* The product x·y of two doubles, exactly: m_x m_y < 2^106, five digits. */
RB_XFN_INLINE void rb_xacc_add_f64_prod(rb_xacc *a, int64_t *l, double x, double y) {
  const uint64_t ux = rb_xbits64(x), uy = rb_xbits64(y);
  const uint32_t ex = (uint32_t)(ux >> 52) & 0x7FF, ey = (uint32_t)(uy >> 52) & 0x7FF;
  const uint32_t neg = (uint32_t)((ux ^ uy) >> 63);
  if (ex == 0x7FF || ey == 0x7FF) {
    const double pr = x * y;
    rb_xacc_special(a, pr != pr, (int)(rb_xbits64(pr) >> 63));
    return;
  }
  const uint64_t mx = (ux & 0xFFFFFFFFFFFFFull) | (ex ? 0x10000000000000ull : 0);
  const uint64_t my = (uy & 0xFFFFFFFFFFFFFull) | (ey ? 0x10000000000000ull : 0);
  a->nonneg0 |= !(neg && (mx == 0 || my == 0));
  uint64_t hi, lo;
  rb_xmul64(mx, my, &hi, &lo);
  const int p = (ex ? (int)ex - 1 : 0) + (ey ? (int)ey - 1 : 0); /* x y = m 2^(p - 2148) */
  const int i = p >> 5, s = p & 31;
  const int64_t ng = -(int64_t)neg;
  const uint64_t lo_s = lo << s;
  const uint64_t mid = s ? (hi << s) | (lo >> (64 - s)) : hi;
  const uint64_t top = s ? hi >> (64 - s) : 0;
  RB_XPUT(l, i, lo_s & RB_XM32, ng);
  RB_XPUT(l, i + 1, lo_s >> 32, ng);
  RB_XPUT(l, i + 2, mid & RB_XM32, ng);
  RB_XPUT(l, i + 3, mid >> 32, ng);
  RB_XPUT(l, i + 4, top, ng);
}

/* Carries up: limbs 0 .. nl-2 become digits in [0, 2^32), the top one signed. */
RB_XFN void rb_xacc_normalize(rb_xacc *a, int nl) {
  for (int i = 0; i + 1 < nl; ++i) {
    const int64_t c = a->limb[i] >> 32; /* floor: arithmetic shift */
    a->limb[i] -= (int64_t)((uint64_t)c << 32);
    a->limb[i + 1] += c;
  }
}

/* dst += src, both normalized (or within the headroom). */
RB_XFN void rb_xacc_merge(rb_xacc *dst, const rb_xacc *src, int nl) {
  for (int i = 0; i < nl; ++i) dst->limb[i] += src->limb[i];
  dst->nan |= src->nan;
  dst->pinf |= src->pinf;
  dst->ninf |= src->ninf;
  dst->nonneg0 |= src->nonneg0;
}

/* count (<= 53) bits of the normalized magnitude from bit position lo. */
RB_XFN uint64_t rb_xacc_bits(const int64_t *l, int nl, int lo, int count) {
  const int i = lo >> 5, s = lo & 31;
  uint64_t w = (uint64_t)l[i];
  if (i + 1 < nl) w |= (uint64_t)l[i + 1] << 32;
  w >>= s;
  if (s && i + 2 < nl) w |= (uint64_t)l[i + 2] << (64 - s);
  return w & ((1ull << count) - 1);
}

/* Whether any bit below position lo is set. */
RB_XFN int rb_xacc_sticky(const int64_t *l, int lo) {
  if (lo <= 0) return 0;
  const int i = lo >> 5, s = lo & 31;
  for (int k = 0; k < i; ++k)
    if (l[k]) return 1;
  return s && ((uint64_t)l[i] & ((1ull << s) - 1)) != 0;
}

/* RN of the accumulated value in a format of `prec` bits of precision, least
 * subnormal exponent qmin (float: 24, -149; double: 53, -1074), as the
 * format's bits; inf_bits (the bits of +inf) on overflow. nterms: whether
 * there was a term (n = 0 gives +0). a is changed (normalized). */
RB_XFN uint64_t rb_xacc_round_bits(rb_xacc *a, int kind, int prec, int qmin, uint64_t inf_bits,
                                   uint64_t nan_bits, int nterms) {
  const uint64_t sign_bit = 1ull << (prec == 24 ? 31 : 63);
  if (a->nan || (a->pinf && a->ninf)) return nan_bits;
  if (a->pinf) return inf_bits;
  if (a->ninf) return inf_bits | sign_bit;
  const int nl = rb_xacc_limbs(kind), base = rb_xacc_base(kind);
  int64_t *l = a->limb;
  rb_xacc_normalize(a, nl);
  uint64_t sign = 0;
  if (l[nl - 1] < 0) { /* magnitude: negate, carry again */
    for (int i = 0; i < nl; ++i) l[i] = -l[i];
    rb_xacc_normalize(a, nl);
    sign = sign_bit;
  }
  int top = nl - 1;
  while (top >= 0 && l[top] == 0) --top;
  if (top < 0) return (nterms && !a->nonneg0) ? sign_bit : 0; /* exact zero */
  int hb = 31; /* the leading bit: position 32 top + hb */
  while (!(((uint64_t)l[top] >> hb) & 1)) --hb;
  const int lead = 32 * top + hb;
  int q = lead + base - prec + 1; /* the ulp's exponent */
  if (q < qmin) q = qmin;
  const int qr = q - base; /* >= 0: base <= qmin for every kind */
  uint64_t m = rb_xacc_bits(l, nl, qr, lead - qr + 1);
  const int half = qr > 0 && (rb_xacc_bits(l, nl, qr - 1, 1) != 0);
  const int rest = qr > 1 && rb_xacc_sticky(l, qr - 1);
  if (half && (rest || (m & 1))) ++m; /* ties to even */
  /* m 2^q in the format: a carry to 2^prec moves into the exponent field */
  const uint64_t bits = ((uint64_t)(q - qmin) << (prec - 1)) + m;
  return (bits >= inf_bits ? inf_bits : bits) | sign;
}

RB_XFN float rb_xacc_round_f32(rb_xacc *a, int kind, int nterms) {
  return rb_xfloat32((uint32_t)rb_xacc_round_bits(a, kind, 24, -149, 0x7F800000u, 0x7FC00000u,
                                                  nterms));
}
RB_XFN double rb_xacc_round_f64(rb_xacc *a, int kind, int nterms) {
  return rb_xfloat64(rb_xacc_round_bits(a, kind, 53, -1074, 0x7FF0000000000000ull,
                                        0x7FF8000000000000ull, nterms));
}

/* The terms of x[0 .. n) (and y) into a (the term kinds of terms.h: 0 x_k,
 * 1 abs(x_k), 2 x_k·y_k), normalizing every RB_XACC_BATCH terms. */
RB_XFN void rb_xacc_run_f32(rb_xacc *a, int term, const float *x, const float *y, int64_t n) {
  const int nl = rb_xacc_limbs(term == 2 ? RB_XK_F32_PROD : RB_XK_F32);
  for (int64_t c = 0; c < n; c += RB_XACC_BATCH) {
    const int64_t e = n - c < RB_XACC_BATCH ? n : c + RB_XACC_BATCH;
    if (term == 2)
      for (int64_t k = c; k < e; ++k) rb_xacc_add_f32_prod(a, a->limb, x[k], y[k]);
    else {
      const uint32_t mask = term == 1 ? 0x7FFFFFFFu : 0xFFFFFFFFu;
      for (int64_t k = c; k < e; ++k) rb_xacc_add_f32(a, a->limb, rb_xbits32(x[k]) & mask);
    }
    rb_xacc_normalize(a, nl);
  }
}
RB_XFN void rb_xacc_run_f64(rb_xacc *a, int term, const double *x, const double *y, int64_t n) {
  const int nl = rb_xacc_limbs(term == 2 ? RB_XK_F64_PROD : RB_XK_F64);
  for (int64_t c = 0; c < n; c += RB_XACC_BATCH) {
    const int64_t e = n - c < RB_XACC_BATCH ? n : c + RB_XACC_BATCH;
    if (term == 2)
      for (int64_t k = c; k < e; ++k) rb_xacc_add_f64_prod(a, a->limb, x[k], y[k]);
    else {
      const uint64_t mask = term == 1 ? 0x7FFFFFFFFFFFFFFFull : ~0ull;
      for (int64_t k = c; k < e; ++k) rb_xacc_add_f64(a, a->limb, rb_xbits64(x[k]) & mask);
    }
    rb_xacc_normalize(a, nl);
  }
}

#endif /* RB_EXACT_H */
