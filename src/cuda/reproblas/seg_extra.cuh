/* The segmented routines in the orders kahan (docs/contract.md §5.5) and exact
 * (§5.4) on CUDA, a thread per segment (grid-stride loops, so the grid never
 * changes an operation):
 *   rb_kreduce_segments: segment s's kahan sum (reproblas.sum / asum / dot over
 *     it): the lanes and chunk trees of order/kahan.h, the chunks' pairwise
 *     tree by a binary counter, S = s - c; when S is not finite, the pairwise
 *     sum of the same terms;
 *   rb_xreduce_segments: RN of the exact sum of segment s (order/exact.h);
 *   rb_xscan_segments: each prefix of segment s rounded from a copy of the
 *     running exact accumulator (scan_driver.inc's sk_exact); a long segment in
 *     pieces (rb_xscan_parts, _starts, _pieces).
 * Segments of at least `big` terms are left to the host (reproblas/
 * _scan_cuda_extra.py), which sums them with the level-1 kernels. */
#ifndef RB_CUDA_SEG_EXTRA_CUH
#define RB_CUDA_SEG_EXTRA_CUH

#include "exact.cuh"
#include "kahan.cuh"
#include "scan.cuh"

template <class T>
__device__ T rb_kahan_serial(int term, const T *x, const T *y, long long n) {
  typedef typename rb_kpair_of<T>::type P;
  if (n == 0) return T(0);
  const long long chunks = (n + RB_KAHAN_CHUNK - 1) / RB_KAHAN_CHUNK;
  P stack[64], acc;
  for (long long j = 0; j < chunks; ++j) {
    const long long o = j * RB_KAHAN_CHUNK;
    const int q = n - o < RB_KAHAN_CHUNK ? (int)(n - o) : RB_KAHAN_CHUNK;
    const int lanes = q < RB_KAHAN_LANES ? q : RB_KAHAN_LANES;
    P lst[8], v;
    for (int l = 0; l < lanes; ++l) {
      T s = rb_kahan_term(term, x, y, T(1), o + l), c = T(0);
      for (int k = l + RB_KAHAN_LANES; k < q; k += RB_KAHAN_LANES)
        RB_KAHAN_STEP(s, c, rb_kahan_term(term, x, y, T(1), o + k), RB_KADD, RB_KSUB);
      P w;
      w.s = s, w.c = c;
      RB_COUNTER_PUSH(lst, l, w, rb_kjoin_t);
    }
    RB_COUNTER_JOIN(v, lst, lanes, rb_kjoin_t);
    RB_COUNTER_PUSH(stack, j, v, rb_kjoin_t);
  }
  RB_COUNTER_JOIN(acc, stack, chunks, rb_kjoin_t);
  const T r = acc.s - acc.c;
  if (r - r == 0) return r;
  T pw[64], sum; /* not finite: the pairwise sum of the terms */
  for (long long i = 0; i < n; ++i) {
    T t = rb_kahan_term(term, x, y, T(1), i);
    RB_COUNTER_PUSH(pw, i, t, RB_PLUS);
  }
  RB_COUNTER_JOIN(sum, pw, n, RB_PLUS);
  return sum;
}

/* Terms 0 .. n - 1 of x (and y) into a (kind: rb_exact_kind). */
template <class T>
__device__ void rb_xacc_terms(rb_xacc *a, int term, const T *x, const T *y, long long n) {
  if (sizeof(T) == 8) rb_xacc_run_f64(a, term, (const double *)x, (const double *)y, n);
  else rb_xacc_run_f32(a, term, (const float *)x, (const float *)y, n);
}

/* Term k into a, not normalized (the caller normalizes every RB_XACC_BATCH terms). */
template <class T>
__device__ void rb_xacc_term(rb_xacc *a, int term, const T *x, const T *y, long long k) {
  if (sizeof(T) == 8) {
    const double *xd = (const double *)x, *yd = (const double *)y;
    if (term == RB_TERM_XY) rb_xacc_add_f64_prod(a, a->limb, xd[k], yd[k]);
    else rb_xacc_add_f64(a, a->limb, rb_xbits64(xd[k]) &
                                         (term == RB_TERM_ABS ? 0x7FFFFFFFFFFFFFFFull : ~0ull));
  } else {
    const float *xf = (const float *)x, *yf = (const float *)y;
    if (term == RB_TERM_XY) rb_xacc_add_f32_prod(a, a->limb, xf[k], yf[k]);
    else rb_xacc_add_f32(a, a->limb, rb_xbits32(xf[k]) &
                                         (term == RB_TERM_ABS ? 0x7FFFFFFFu : 0xFFFFFFFFu));
  }
}

template <class T>
__device__ T rb_xacc_round_t(rb_xacc *a, int kind, int nterms) {
  if (sizeof(T) == 8) return (T)rb_xacc_round_f64(a, kind, nterms);
  return (T)rb_xacc_round_f32(a, kind, nterms);
}

template <class T>
__device__ void rb_reduce_extra_body(int order, int term, const T *x, const T *y,
                                     const long long *off, long long nseg, long long big,
                                     T *out) {
  RB_GRID_STRIDE(s, nseg) {
    const long long lo = off[s], n = off[s + 1] - lo;
    if (n >= big) continue;
    if (order == 2) { /* RB_KAHAN (level1.h), else RB_EXACT */
      out[s] = rb_kahan_serial<T>(term, x + lo, y + lo, n);
      continue;
    }
    rb_xacc a;
    rb_xacc_init(&a);
    rb_xacc_terms<T>(&a, term, x + lo, y + lo, n);
    out[s] = rb_xacc_round_t<T>(&a, rb_exact_kind(term, sizeof(T) == 8), n > 0);
  }
}

/* The exact prefixes of each segment of fewer than `big` terms (exclusive: shifted by one
 * after +0); longer ones are left to the pieces below. */
template <class T>
__device__ void rb_xscan_segments_body(int term, int exclusive, const T *x, const T *y,
                                       const long long *off, long long nseg, long long big,
                                       T *out) {
  const int kind = rb_exact_kind(term, sizeof(T) == 8), nl = rb_xacc_limbs(kind);
  RB_GRID_STRIDE(s, nseg) {
    const long long lo = off[s], hi = off[s + 1], shift = exclusive ? 1 : 0;
    if (hi == lo || hi - lo >= big) continue;
    rb_xacc acc, t;
    rb_xacc_init(&acc);
    for (long long i = 0; i < hi - lo - shift; ++i) {
      rb_xacc_term<T>(&acc, term, x + lo, y + lo, i);
      for (int l = 0; l < nl; ++l) t.limb[l] = acc.limb[l];
      t.nan = acc.nan, t.pinf = acc.pinf, t.ninf = acc.ninf, t.nonneg0 = acc.nonneg0;
      out[lo + shift + i] = rb_xacc_round_t<T>(&t, kind, 1);
      if ((i + 1) % RB_XACC_BATCH == 0) rb_xacc_normalize(&acc, nl);
    }
    if (exclusive) out[lo] = T(0);
  }
}

/* A long exact scan (m terms) in pieces of len terms: each full piece's terms into its
 * own accumulator (rb_xscan_parts, normalized limbs and flags per piece), the limb-wise
 * prefix sums over the pieces (rb_xscan_starts: integer additions, exact), then a thread
 * per piece continues from its start (rb_xscan_pieces). Every prefix is the rounding of
 * the same exact value as the one pass's (the representation of an accumulator never
 * changes a rounding), so the same bits. Limbs: nl per piece, flags: 4 per piece. */
template <class T>
__device__ void rb_xscan_parts_body(int term, const T *x, const T *y, long long full,
                                    long long len, long long *limbs, int *flags) {
  const int kind = rb_exact_kind(term, sizeof(T) == 8), nl = rb_xacc_limbs(kind);
  RB_GRID_STRIDE(q, full) {
    rb_xacc a;
    rb_xacc_init(&a);
    rb_xacc_terms<T>(&a, term, x + q * len, y + q * len, len); /* normalizes */
    for (int l = 0; l < nl; ++l) limbs[q * nl + l] = (long long)a.limb[l];
    flags[q * 4 + 0] = a.nan, flags[q * 4 + 1] = a.pinf, flags[q * 4 + 2] = a.ninf;
    flags[q * 4 + 3] = a.nonneg0;
  }
}

/* In place: row p becomes the sum of rows 0 .. p - 1 (a thread per limb, and per flag). */
template <class T>
__device__ void rb_xscan_starts_body(int term, long long pieces, long long *limbs, int *flags) {
  const int nl = rb_xacc_limbs(rb_exact_kind(term, sizeof(T) == 8));
  RB_GRID_STRIDE(l, nl + 4) { /* limb sums below 2^44: at most 4096 rows of digits */
    long long run = 0;
    for (long long p = 0; p < pieces; ++p) {
      if (l < nl) {
        const long long here = limbs[p * nl + l];
        limbs[p * nl + l] = run;
        run += here;
      } else {
        const int here = flags[p * 4 + (l - nl)];
        flags[p * 4 + (l - nl)] = (int)run;
        run |= here;
      }
    }
  }
}

template <class T>
__device__ void rb_xscan_pieces_body(int term, const T *x, const T *y, long long m,
                                     long long len, const long long *limbs, const int *flags,
                                     T *out) {
  const int kind = rb_exact_kind(term, sizeof(T) == 8), nl = rb_xacc_limbs(kind);
  const long long pieces = (m + len - 1) / len;
  RB_GRID_STRIDE(q, pieces) {
    rb_xacc acc, t;
    rb_xacc_init(&acc);
    for (int l = 0; l < nl; ++l) acc.limb[l] = limbs[q * nl + l];
    acc.nan = flags[q * 4 + 0], acc.pinf = flags[q * 4 + 1], acc.ninf = flags[q * 4 + 2];
    acc.nonneg0 = flags[q * 4 + 3];
    rb_xacc_normalize(&acc, nl);
    const long long lo = q * len, hi = m - lo < len ? m : lo + len;
    for (long long i = lo; i < hi; ++i) {
      rb_xacc_term<T>(&acc, term, x, y, i);
      for (int l = 0; l < nl; ++l) t.limb[l] = acc.limb[l];
      t.nan = acc.nan, t.pinf = acc.pinf, t.ninf = acc.ninf, t.nonneg0 = acc.nonneg0;
      out[i] = rb_xacc_round_t<T>(&t, kind, 1);
      if ((i - lo + 1) % RB_XACC_BATCH == 0) rb_xacc_normalize(&acc, nl);
    }
  }
}

#define RB_DEFINE_SEG_EXTRA_KERNELS(T, sfx)                                                  \
  extern "C" __global__ void rb_reduce_extra_##sfx(int order, int term, const T *x,          \
                                                   const T *y, const long long *off,           \
                                                   long long nseg, long long big, T *out) {    \
    rb_reduce_extra_body<T>(order, term, x, y, off, nseg, big, out);                          \
  }                                                                                            \
  extern "C" __global__ void rb_xscan_segments_##sfx(int term, int exclusive, const T *x,    \
                                                     const T *y, const long long *off,         \
                                                     long long nseg, long long big, T *out) {  \
    rb_xscan_segments_body<T>(term, exclusive, x, y, off, nseg, big, out);                    \
  }                                                                                            \
  extern "C" __global__ void rb_xscan_parts_##sfx(int term, const T *x, const T *y,          \
                                                  long long full, long long len,               \
                                                  long long *limbs, int *flags) {              \
    rb_xscan_parts_body<T>(term, x, y, full, len, limbs, flags);                              \
  }                                                                                            \
  extern "C" __global__ void rb_xscan_starts_##sfx(int term, long long pieces, long long *limbs, \
                                                   int *flags) {                               \
    rb_xscan_starts_body<T>(term, pieces, limbs, flags);                                      \
  }                                                                                            \
  extern "C" __global__ void rb_xscan_pieces_##sfx(int term, const T *x, const T *y,         \
                                                   long long m, long long len,                 \
                                                   const long long *limbs, const int *flags,   \
                                                   T *out) {                                   \
    rb_xscan_pieces_body<T>(term, x, y, m, len, limbs, flags, out);                           \
  }

#define RB_SEG_EXTRA_KERNEL_LIST(X)                                                          \
  X(rb_reduce_extra_f32) X(rb_reduce_extra_f64) X(rb_xscan_segments_f32)                    \
  X(rb_xscan_segments_f64) X(rb_xscan_parts_f32) X(rb_xscan_parts_f64)                      \
  X(rb_xscan_starts_f32) X(rb_xscan_starts_f64) X(rb_xscan_pieces_f32) X(rb_xscan_pieces_f64)

#endif /* RB_CUDA_SEG_EXTRA_CUH */
