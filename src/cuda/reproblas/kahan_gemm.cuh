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
 * stride of the blocks' groups; every thread of a block runs the same rounds. */
#ifndef RB_CUDA_KAHAN_GEMM_CUH
#define RB_CUDA_KAHAN_GEMM_CUH

#include "kahan.cuh"
#include "exact_gemm.cuh" /* rb_beta_is_zero */

template <class T>
__device__ void rb_kahan_gemm_body(long long m, long long n, long long k, T alpha, const T *a,
                                   long long a_rs, long long a_cs, const T *b, long long b_rs,
                                   long long b_cs, T beta, T *c, long long c_rs, long long c_cs) {
  typedef typename rb_kpair_of<T>::type P;
  __shared__ T ls[RB_KAHAN_THREADS], lc[RB_KAHAN_THREADS];
  const int t = threadIdx.x, l = t % RB_KAHAN_LANES, first = t - l;
  const int slots = blockDim.x / RB_KAHAN_LANES, slot = t / RB_KAHAN_LANES;
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
      if (live && l == 0) {
        P lstack[8], acc;
        for (int g = 0; g < lanes; ++g) {
          P v;
          v.s = ls[first + g], v.c = lc[first + g];
          RB_COUNTER_PUSH(lstack, g, v, rb_kjoin_t);
        }
        RB_COUNTER_JOIN(acc, lstack, lanes, rb_kjoin_t);
        RB_COUNTER_PUSH(stack, ch, acc, rb_kjoin_t);
      }
      __syncthreads(); /* the lanes' slots are free again */
    }
    if (live && l == 0) {
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
      T *out = c + i * c_rs + j * c_cs;
      *out = bz ? alpha * s : rb_fma(beta, *out, alpha * s);
    }
  }
}

#endif /* RB_CUDA_KAHAN_GEMM_CUH */
