/* order="kahan" (docs/contract.md §5.5) on CUDA for sum, asum, dot and nrm2's
 * scaled sum: 16 threads take a chunk of RB_KAHAN_CHUNK terms (a grid stride
 * of chunks), one lane each with Kahan's step, and the chunk's lanes are
 * joined by their perfect tree, as order/kahan.h's rb_kchunk; one thread then
 * joins the chunks' pairs by the pairwise tree (order.h's binary counter) and
 * gives S = s - c of the root. The host (reproblas/_cuda.py, kahan_sum) takes
 * the pairwise sum instead when S is not finite, and finishes nrm2. The same
 * operations as the CPU's, so the same bits. */
#ifndef RB_CUDA_KAHAN_CUH
#define RB_CUDA_KAHAN_CUH

#include "order/kahan.h"
#include "ops.cuh"

template <class T> struct rb_kpair_of;
template <> struct rb_kpair_of<float> { typedef rb_kpair_f32 type; };
template <> struct rb_kpair_of<double> { typedef rb_kpair_f64 type; };
CR_FN rb_kpair_f32 rb_kjoin_t(rb_kpair_f32 a, rb_kpair_f32 b) { return rb_kjoin_f32(a, b); }
CR_FN rb_kpair_f64 rb_kjoin_t(rb_kpair_f64 a, rb_kpair_f64 b) { return rb_kjoin_f64(a, b); }
#define RB_KSUB(a, b) ((a) - (b))
#define RB_KADD(a, b) ((a) + (b))

/* Term k (terms.h kinds; products rounded, §5.5). */
template <class T>
__device__ __forceinline__ T rb_kahan_term(int term, const T *x, const T *y, T scale,
                                           long long k) {
  switch (term) {
  case RB_TERM_ABS: return rb_abs(x[k]);
  case RB_TERM_XY: return x[k] * y[k];
  case RB_TERM_ZZ: { const T z = x[k] * scale; return z * z; }
  default: return x[k];
  }
}

/* The pairs of the chunks of x[0 .. n) (and y): s[j], c[j] for chunk j. A
 * chunk is 16 consecutive threads, one per lane (so a warp reads two chunks'
 * 64 consecutive bytes per step); the lanes' pairs meet in shared memory and
 * the chunk's first thread joins them by their tree. blockDim.x: a multiple
 * of 16, at most RB_KAHAN_THREADS; every thread of a block runs the same
 * number of rounds (the __syncthreads). */
#define RB_KAHAN_THREADS 256
template <class T>
__device__ __forceinline__ void rb_kahan_chunks_body(int term, const T *x, const T *y, T scale,
                                                     long long n, T *out_s, T *out_c) {
  typedef typename rb_kpair_of<T>::type P;
  __shared__ T ls[RB_KAHAN_THREADS], lc[RB_KAHAN_THREADS];
  const long long chunks = (n + RB_KAHAN_CHUNK - 1) / RB_KAHAN_CHUNK;
  const int per_block = blockDim.x / RB_KAHAN_LANES, l = threadIdx.x % RB_KAHAN_LANES;
  const int first = threadIdx.x - l; /* the chunk's lane 0 */
  for (long long base = (long long)blockIdx.x * per_block; base < chunks;
       base += (long long)gridDim.x * per_block) {
    const long long j = base + threadIdx.x / RB_KAHAN_LANES, o = j * RB_KAHAN_CHUNK;
    const int q = j >= chunks ? 0 : n - o < RB_KAHAN_CHUNK ? (int)(n - o) : RB_KAHAN_CHUNK;
    const int lanes = q < RB_KAHAN_LANES ? q : RB_KAHAN_LANES;
    if (l < lanes) {
      T s = rb_kahan_term(term, x, y, scale, o + l), c = (T)0;
      for (int k = l + RB_KAHAN_LANES; k < q; k += RB_KAHAN_LANES)
        RB_KAHAN_STEP(s, c, rb_kahan_term(term, x, y, scale, o + k), RB_KADD, RB_KSUB);
      ls[threadIdx.x] = s, lc[threadIdx.x] = c;
    }
    __syncthreads();
    if (l == 0 && lanes > 0) {
      P stack[8], acc;
      for (int i = 0; i < lanes; ++i) {
        P v;
        v.s = ls[first + i], v.c = lc[first + i];
        RB_COUNTER_PUSH(stack, i, v, rb_kjoin_t);
      }
      RB_COUNTER_JOIN(acc, stack, lanes, rb_kjoin_t);
      out_s[j] = acc.s;
      out_c[j] = acc.c;
    }
    __syncthreads(); /* the lanes' slots are free again */
  }
}

/* One thread: the chunks' pairwise tree; out[0] = S = s - c of the root. */
template <class T>
__device__ __forceinline__ void rb_kahan_join_body(const T *s, const T *c, long long chunks,
                                                   T *out) {
  typedef typename rb_kpair_of<T>::type P;
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  P stack[64], acc;
  for (long long j = 0; j < chunks; ++j) {
    P v;
    v.s = s[j], v.c = c[j];
    RB_COUNTER_PUSH(stack, j, v, rb_kjoin_t);
  }
  RB_COUNTER_JOIN(acc, stack, chunks, rb_kjoin_t);
  out[0] = acc.s - acc.c;
}

#endif /* RB_CUDA_KAHAN_CUH */
