/* gemv / gemm in order="kahan" (docs/contract.md §5.5) on CUDA: each element
 * S_ij over the rounded products op(A)[i, l] ⊗ op(B)[l, j], then scaled as
 * §2.4 (alpha ⊗ S, or fma(beta, C_old, alpha ⊗ S); beta zero by its bits), as
 * frame/kahan_driver.inc's rb_kahan_gemm.
 *
 * 16 consecutive threads take one element, one Kahan lane each (order/kahan.h:
 * lane l of a chunk takes its terms l, l + 16, ...); per chunk, the lanes'
 * pairs meet in shared memory and the group's first thread joins them by
 * their tree and pushes the chunk's pair into its binary counter (the chunks'
 * pairwise tree). S = s - c of the root; when S is not finite, that thread
 * takes the pairwise sum of the terms instead (§5.5). The elements are a grid
 * stride of the blocks' groups; every thread of a block runs the same rounds.
 * Few elements with many chunks: a group per (element, chunk) writes the
 * chunks' pairs, then a thread per element joins them (the same joins, so the
 * same bits). Host side: reproblas/_cuda.py (extra_gemm). */
#ifndef RB_CUDA_KAHAN_GEMM_CUH
#define RB_CUDA_KAHAN_GEMM_CUH

#include "kahan.cuh"
#include "exact_gemm.cuh" /* rb_beta_is_zero */

/* The pair of chunk ch of the terms ai[l a_cs] * bj[l b_rs], l < k, computed by
 * the 16 threads first .. first + 15 of the block (this one lane l): the lanes'
 * pairs in ls / lc, then the first thread joins them by their tree (its return
 * value; the others return (0, 0)). live: this group has an element. Every thread
 * of the block calls it (two __syncthreads). */
template <class T>
__device__ __forceinline__ typename rb_kpair_of<T>::type
rb_kgemm_chunk(bool live, const T *ai, long long a_cs, const T *bj, long long b_rs, long long k,
               long long ch, T *ls, T *lc) {
  typedef typename rb_kpair_of<T>::type P;
  const int t = threadIdx.x, l = t % RB_KAHAN_LANES, first = t - l;
  const long long o = ch * RB_KAHAN_CHUNK;
  const int q = k - o < RB_KAHAN_CHUNK ? (int)(k - o) : RB_KAHAN_CHUNK;
  const int lanes = q < RB_KAHAN_LANES ? q : RB_KAHAN_LANES;
  if (live && l < lanes) {
    T s = ai[(o + l) * a_cs] * bj[(o + l) * b_rs], cc = (T)0;
    for (int kk = l + RB_KAHAN_LANES; kk < q; kk += RB_KAHAN_LANES)
      RB_KAHAN_STEP(s, cc, ai[(o + kk) * a_cs] * bj[(o + kk) * b_rs], RB_KADD, RB_KSUB);
    ls[t] = s, lc[t] = cc;
  }
  __syncthreads();
  P acc;
  acc.s = acc.c = T(0);
  if (live && l == 0) {
    P lstack[8];
    for (int g = 0; g < lanes; ++g) {
      P v;
      v.s = ls[first + g], v.c = lc[first + g];
      RB_COUNTER_PUSH(lstack, g, v, rb_kjoin_t);
    }
    RB_COUNTER_JOIN(acc, lstack, lanes, rb_kjoin_t);
  }
  __syncthreads(); /* the lanes' slots are free again */
  return acc;
}

/* The element from its chunks' counter: S = s - c of the root, or the pairwise sum of the
 * terms when that is not finite (+0 for k = 0); then scaled into *out (§2.4). */
template <class T>
__device__ __forceinline__ void rb_kgemm_finish(const typename rb_kpair_of<T>::type *stack,
                                                long long chunks, const T *ai, long long a_cs,
                                                const T *bj, long long b_rs, long long k,
                                                T alpha, T beta, int bz, T *out) {
  typedef typename rb_kpair_of<T>::type P;
  T s = T(0); /* no term: +0 */
  if (k > 0) {
    P root;
    RB_COUNTER_JOIN(root, stack, chunks, rb_kjoin_t);
    s = root.s - root.c;
    if (!(s - s == T(0))) { /* not finite: the pairwise sum of the terms */
      T pw[RB_LEVELS];
      for (long long kk = 0; kk < k; ++kk) rb_push(pw, kk, ai[kk * a_cs] * bj[kk * b_rs]);
      s = rb_pop_all(pw, k);
    }
  }
  *out = bz ? alpha * s : rb_fma(beta, *out, alpha * s);
}

/* One group of 16 threads per element, its chunks in turn. */
template <class T>
__device__ void rb_kahan_gemm_body(long long m, long long n, long long k, T alpha, const T *a,
                                   long long a_rs, long long a_cs, const T *b, long long b_rs,
                                   long long b_cs, T beta, T *c, long long c_rs, long long c_cs) {
  typedef typename rb_kpair_of<T>::type P;
  __shared__ T ls[RB_KAHAN_THREADS], lc[RB_KAHAN_THREADS];
  const int l = threadIdx.x % RB_KAHAN_LANES;
  const int slots = blockDim.x / RB_KAHAN_LANES, slot = threadIdx.x / RB_KAHAN_LANES;
  const int bz = rb_beta_is_zero(beta);
  const long long total = m * n, chunks = (k + RB_KAHAN_CHUNK - 1) / RB_KAHAN_CHUNK;
  for (long long e0 = (long long)blockIdx.x * slots; e0 < total;
       e0 += (long long)gridDim.x * slots) {
    const long long e = e0 + slot;
    const bool live = e < total;
    const long long i = live ? e / n : 0, j = live ? e % n : 0;
    const T *ai = a + i * a_rs, *bj = b + j * b_cs;
    P stack[RB_LEVELS]; /* the chunks' counter (the group's first thread) */
    for (long long ch = 0; ch < chunks; ++ch) {
      P v = rb_kgemm_chunk<T>(live, ai, a_cs, bj, b_rs, k, ch, ls, lc);
      if (live && l == 0) RB_COUNTER_PUSH(stack, ch, v, rb_kjoin_t);
    }
    if (live && l == 0)
      rb_kgemm_finish<T>(stack, chunks, ai, a_cs, bj, b_rs, k, alpha, beta, bz,
                         c + i * c_rs + j * c_cs);
  }
}

/* Few elements, long sums: a group of 16 threads per (element, chunk), the chunk's pair
 * into s / c[e * chunks + ch] ... */
template <class T>
__device__ void rb_kahan_gemm_chunks_body(long long m, long long n, long long k, const T *a,
                                          long long a_rs, long long a_cs, const T *b,
                                          long long b_rs, long long b_cs, T *ps, T *pc) {
  __shared__ T ls[RB_KAHAN_THREADS], lc[RB_KAHAN_THREADS];
  const int l = threadIdx.x % RB_KAHAN_LANES;
  const int slots = blockDim.x / RB_KAHAN_LANES, slot = threadIdx.x / RB_KAHAN_LANES;
  const long long chunks = (k + RB_KAHAN_CHUNK - 1) / RB_KAHAN_CHUNK, items = m * n * chunks;
  for (long long w0 = (long long)blockIdx.x * slots; w0 < items;
       w0 += (long long)gridDim.x * slots) {
    const long long w = w0 + slot, e = w / chunks;
    const bool live = w < items;
    const long long i = live ? e / n : 0, j = live ? e % n : 0;
    const typename rb_kpair_of<T>::type v = rb_kgemm_chunk<T>(
        live, a + i * a_rs, a_cs, b + j * b_cs, b_rs, k, live ? w % chunks : 0, ls, lc);
    if (live && l == 0) ps[w] = v.s, pc[w] = v.c;
  }
}

/* ... then a thread per element: the counter over its chunks' pairs, and the rest. */
template <class T>
__device__ void rb_kahan_gemm_join_body(long long m, long long n, long long k, T alpha,
                                        const T *a, long long a_rs, long long a_cs, const T *b,
                                        long long b_rs, long long b_cs, T beta, T *c,
                                        long long c_rs, long long c_cs, const T *ps,
                                        const T *pc) {
  typedef typename rb_kpair_of<T>::type P;
  const int bz = rb_beta_is_zero(beta);
  const long long chunks = (k + RB_KAHAN_CHUNK - 1) / RB_KAHAN_CHUNK;
  for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < m * n;
       e += (long long)gridDim.x * blockDim.x) {
    const long long i = e / n, j = e % n;
    P stack[RB_LEVELS];
    for (long long ch = 0; ch < chunks; ++ch) {
      P v;
      v.s = ps[e * chunks + ch], v.c = pc[e * chunks + ch];
      RB_COUNTER_PUSH(stack, ch, v, rb_kjoin_t);
    }
    rb_kgemm_finish<T>(stack, chunks, a + i * a_rs, a_cs, b + j * b_cs, b_rs, k, alpha, beta,
                       bz, c + i * c_rs + j * c_cs);
  }
}

#endif /* RB_CUDA_KAHAN_GEMM_CUH */
