/* Level 2 on symmetric, triangular, band and packed matrices
 * (docs/contract.md §3.6): one thread per output row (products), one
 * thread per element (rank updates), one thread for a whole band/packed
 * solve. The logical matrix M, its present terms and where M_ik is read
 * are those of src/c/reproblas/level2/terms.h; every row's terms go through
 * rb_accum in k order, so the bits are the CPU's. Storage codes (kind:
 * 0 general, 1 symmetric, 2 triangular; storage: 0 full, 1 band, 2 packed)
 * and strides as rb_l2_matrix (src/c/reproblas/level2.h). */
#ifndef RB_CUDA_LEVEL2_CUH
#define RB_CUDA_LEVEL2_CUH

#include "accum.cuh"

struct rb_l2_desc {
  int kind, storage, lower, trans, unit;
  long long m, n, kl, ku, rs, cs;
};

/* The stored A_rc's offset. */
__device__ __forceinline__ long long rb_l2_off(const rb_l2_desc &d, long long r, long long c) {
  if (d.storage == 1) return (d.ku + r - c) * d.rs + c * d.cs;
  if (d.storage == 2) return (d.lower ? r + (2 * d.n - c - 1) * c / 2 : r + c * (c + 1) / 2) * d.rs;
  return r * d.rs + c * d.cs;
}

/* Row i of op(M): the present k in [*lo, *hi). */
__device__ __forceinline__ void rb_l2_range(const rb_l2_desc &d, long long i, long long *lo,
                                            long long *hi) {
  const bool band = d.storage == 1;
  long long below, above, cols = d.n;
  if (d.kind == 0) {
    const long long kl = band ? d.kl : d.m, ku = band ? d.ku : d.n;
    below = d.trans ? ku : kl, above = d.trans ? kl : ku;
    if (d.trans) cols = d.m;
  } else {
    const long long kd = band ? (d.lower ? d.kl : d.ku) : d.n;
    below = above = kd;
    if (d.kind == 2) {
      if ((d.lower != 0) != (d.trans != 0)) above = 0;
      else below = 0;
    }
  }
  *lo = i - below > 0 ? i - below : 0;
  *hi = i + above + 1 < cols ? i + above + 1 : cols;
  if (*hi < *lo) *hi = *lo;
}

/* op(M)_ik, a present term. */
template <class T>
__device__ __forceinline__ T rb_l2_coef(const rb_l2_desc &d, const T *a, long long i, long long k) {
  long long r = i, c = k;
  if (d.kind == 1) {
    if (d.lower ? r < c : r > c) r = k, c = i;
  } else if (d.trans) {
    r = k, c = i;
  }
  if (d.kind == 2 && d.unit && r == c) return T(1);
  return a[rb_l2_off(d, r, c)];
}

/* y_i = alpha S_i (beta 0: y not read) or fma(beta, y_i, alpha S_i); x, y contiguous. */
template <class T, bool PAIRWISE>
__device__ __forceinline__ void rb_l2mv_body(rb_l2_desc d, T alpha, const T *a, const T *x,
                                             T beta, T *y) {
  const long long rows = d.kind == 0 && d.trans ? d.n : d.m;
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= rows) return;
  long long lo, hi;
  rb_l2_range(d, i, &lo, &hi);
  rb_accum<T, PAIRWISE> acc;
  for (long long k = lo; k < hi; ++k) acc.add(rb_l2_coef(d, a, i, k), x[k]);
  const T v = alpha * acc.sum();
  y[i] = beta != T(0) ? rb_fma(beta, y[i], v) : v;
}

/* op(M) x = b in place of the contiguous b (triangular band or packed M),
 * the trsv recurrence over the present, solved terms; one thread. */
template <class T, bool PAIRWISE>
__device__ __forceinline__ void rb_l2sv_body(rb_l2_desc d, const T *a, T *b) {
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  const long long n = d.n;
  const bool low = (d.lower != 0) != (d.trans != 0);
  for (long long t = 0; t < n; ++t) {
    const long long i = low ? t : n - 1 - t;
    long long lo, hi;
    rb_l2_range(d, i, &lo, &hi);
    if (low) hi = i;
    else lo = i + 1;
    rb_accum<T, PAIRWISE> acc;
    for (long long j = lo; j < hi; ++j) acc.add(rb_l2_coef(d, a, i, j), b[j]);
    T v = b[i] - acc.sum();
    if (!d.unit) v = v / rb_l2_coef(d, a, i, i);
    b[i] = v;
  }
}

/* The stored triangle's (i, j): fma(x_i, alpha x_j, A_ij) (has_y: x_i alpha
 * y_j, then y_i alpha x_j); x, y contiguous. Threads (j along x, i along y). */
template <class T>
__device__ __forceinline__ void rb_l2rank_body(rb_l2_desc d, T alpha, const T *x, const T *y,
                                               int has_y, T *a) {
  const long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const long long i = (long long)blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= d.n || j >= d.n || (d.lower ? i < j : i > j)) return;
  T *e = a + rb_l2_off(d, i, j);
  if (has_y) {
    *e = rb_fma(y[i], alpha * x[j], rb_fma(x[i], alpha * y[j], *e));
  } else {
    *e = rb_fma(x[i], alpha * x[j], *e);
  }
}

#define RB_DEFINE_LEVEL2(T, sfx, kind, PW)                                                    \
  extern "C" __global__ void rb_l2mv_##kind##_##sfx(                                          \
      int k_, int st, int lower, int trans, int unit, long long m, long long n, long long kl,  \
      long long ku, long long rs, long long cs, T alpha, const T *a, const T *x, T beta,      \
      T *y) {                                                                                  \
    rb_l2mv_body<T, PW>(rb_l2_desc{k_, st, lower, trans, unit, m, n, kl, ku, rs, cs}, alpha,  \
                        a, x, beta, y);                                                        \
  }                                                                                            \
  extern "C" __global__ void rb_l2sv_##kind##_##sfx(                                          \
      int k_, int st, int lower, int trans, int unit, long long m, long long n, long long kl,  \
      long long ku, long long rs, long long cs, const T *a, T *b) {                            \
    rb_l2sv_body<T, PW>(rb_l2_desc{k_, st, lower, trans, unit, m, n, kl, ku, rs, cs}, a, b);  \
  }

#define RB_DEFINE_LEVEL2_RANK(T, sfx)                                                         \
  extern "C" __global__ void rb_l2rank_##sfx(                                                 \
      int k_, int st, int lower, int trans, int unit, long long m, long long n, long long kl,  \
      long long ku, long long rs, long long cs, T alpha, const T *x, const T *y, int has_y,   \
      T *a) {                                                                                  \
    rb_l2rank_body<T>(rb_l2_desc{k_, st, lower, trans, unit, m, n, kl, ku, rs, cs}, alpha, x, \
                      y, has_y, a);                                                            \
  }

#define RB_LEVEL2_LIST(X, sfx)                                                                \
  X(rb_l2mv_seq_##sfx) X(rb_l2mv_pw_##sfx) X(rb_l2sv_seq_##sfx) X(rb_l2sv_pw_##sfx)           \
  X(rb_l2rank_##sfx)

#endif /* RB_CUDA_LEVEL2_CUH */
