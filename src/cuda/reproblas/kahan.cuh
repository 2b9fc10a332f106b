/* order="kahan" (docs/contract.md §5.5) on CUDA for sum, asum, dot and nrm2's
 * scaled sum: each thread takes whole chunks of RB_KAHAN_CHUNK terms (a grid
 * stride of them), runs the chunk's 16 lanes with Kahan's step and joins
 * them by their perfect tree, as order/kahan.h's rb_kchunk; one thread then
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

/* The pairs of the chunks of x[0 .. n) (and y): s[j], c[j] for chunk j. */
template <class T>
__device__ __forceinline__ void rb_kahan_chunks_body(int term, const T *x, const T *y, T scale,
                                                     long long n, T *out_s, T *out_c) {
  typedef typename rb_kpair_of<T>::type P;
  const long long chunks = (n + RB_KAHAN_CHUNK - 1) / RB_KAHAN_CHUNK;
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x; j < chunks; j += stride) {
    const long long o = j * RB_KAHAN_CHUNK;
    const int q = n - o < RB_KAHAN_CHUNK ? (int)(n - o) : RB_KAHAN_CHUNK;
    const int lanes = q < RB_KAHAN_LANES ? q : RB_KAHAN_LANES;
    P stack[8], acc;
    for (int l = 0; l < lanes; ++l) {
      P v;
      v.s = rb_kahan_term(term, x, y, scale, o + l);
      v.c = (T)0;
      for (int k = l + RB_KAHAN_LANES; k < q; k += RB_KAHAN_LANES)
        RB_KAHAN_STEP(v.s, v.c, rb_kahan_term(term, x, y, scale, o + k), RB_KADD, RB_KSUB);
      RB_COUNTER_PUSH(stack, l, v, rb_kjoin_t);
    }
    RB_COUNTER_JOIN(acc, stack, lanes, rb_kjoin_t);
    out_s[j] = acc.s;
    out_c[j] = acc.c;
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
