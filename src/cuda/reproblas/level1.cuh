/* Level-1 kernel bodies (templates over T; reproblas.cu instantiates them).
 * The host side (reproblas/_cuda.py) makes the vectors contiguous, cuts
 * pairwise sums into aligned power-of-two items and joins them. */
#ifndef RB_CUDA_LEVEL1_CUH
#define RB_CUDA_LEVEL1_CUH

#include "ops.cuh"

#define RB_L1_THREADS 256
#define RB_SEQ_CHUNK 2048 /* elements staged per round of the sequential chain */

/* Sequential order: one chain, run by thread 0. The whole block stages the
 * next chunk in shared memory with coalesced loads, so the chain waits on
 * shared memory instead of global-memory latency. One block. */
template <class T>
__device__ __forceinline__ void rb_sequential_body(int term, const T *x, const T *y, T scale,
                                                   long long n, T *out) {
  __shared__ T xs[RB_SEQ_CHUNK], ys[RB_SEQ_CHUNK];
  T s = T(-0.0);
  for (long long c0 = 0; c0 < n; c0 += RB_SEQ_CHUNK) {
    const int len = n - c0 < RB_SEQ_CHUNK ? (int)(n - c0) : RB_SEQ_CHUNK;
    for (int i = threadIdx.x; i < len; i += blockDim.x) {
      xs[i] = x[c0 + i];
      if (term == RB_TERM_XY) ys[i] = y[c0 + i];
    }
    __syncthreads();
    if (threadIdx.x == 0)
      for (int i = 0; i < len; ++i) s = rb_chain(term, xs[i], ys[i], scale, s);
    __syncthreads();
  }
  if (threadIdx.x == 0) out[0] = n == 0 ? T(0) : s;
}

/* Pairwise order: block b computes the perfect tree over the len[b] (a power
 * of two) terms starting at off[b]. Thread t takes the aligned leaf block t
 * of len/blockDim terms (a perfect subtree, by a binary counter), then the
 * block joins the leaves level by level in shared memory: a perfect tree. */
template <class T>
__device__ __forceinline__ void rb_pairwise_body(int term, const T *x, const T *y, T scale,
                                                 const long long *off, const long long *len,
                                                 T *val) {
  __shared__ T part[RB_L1_THREADS];
  const long long n = len[blockIdx.x], base = off[blockIdx.x];
  const int t = threadIdx.x;
  const long long nt = n < (long long)blockDim.x ? n : (long long)blockDim.x;
  const long long leaf = n / nt;
  if (t < nt) {
    T stack[RB_LEVELS];
    for (long long i = 0; i < leaf; ++i)
      rb_push(stack, i, rb_term(term, x, y, scale, base + t * leaf + i));
    part[t] = rb_pop_all(stack, leaf);
  }
  __syncthreads();
  for (int w = 1; w < nt; w *= 2) {
    if (t % (2 * w) == 0 && t + w < nt) part[t] = part[t] + part[t + w];
    __syncthreads();
  }
  if (t == 0) val[blockIdx.x] = part[0];
}

/* Joins the item values (one thread): for each block of n's binary expansion
 * (count[b] consecutive items, a power of two), the perfect tree over its
 * items; then the blocks right to left. Optionally applies nrm2's ending,
 * sqrt(S) * 2^e. */
template <class T>
__device__ __forceinline__ void rb_join_body(T *val, const long long *count, int nblocks,
                                             int do_sqrt, T two_e, T *out) {
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  T acc = T(0);
  long long pos = 0;
  for (int b = 0; b < nblocks; ++b) pos += count[b];
  for (int b = nblocks - 1; b >= 0; --b) {
    pos -= count[b];
    T *v = val + pos;
    for (long long w = 1; w < count[b]; w *= 2)
      for (long long i = 0; i < count[b]; i += 2 * w) v[i] = v[i] + v[i + w];
    acc = b == nblocks - 1 ? v[0] : v[0] + acc;
  }
  out[0] = do_sqrt ? rb_sqrt(acc) * two_e : acc;
}

/* max abs(x_k) per block (exact, any order) and whether x has a NaN. */
template <class T>
__device__ __forceinline__ void rb_max_abs_body(const T *x, long long n, T *block_max,
                                                int *has_nan) {
  __shared__ T part[RB_L1_THREADS];
  const int t = threadIdx.x;
  T m = T(0);
  int nan = 0;
  for (long long i = (long long)blockIdx.x * blockDim.x + t; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    const T a = rb_abs(x[i]);
    nan |= a != a;
    m = a > m ? a : m;
  }
  part[t] = m;
  if (nan) atomicOr(has_nan, 1);
  __syncthreads();
  for (int w = blockDim.x / 2; w > 0; w /= 2) {
    if (t < w) part[t] = part[t + w] > part[t] ? part[t + w] : part[t];
    __syncthreads();
  }
  if (t == 0) block_max[blockIdx.x] = part[0];
}

/* The smallest k with abs(x_k) == target (or x_k NaN when want_nan). */
template <class T>
__device__ __forceinline__ void rb_find_first_body(const T *x, long long n, T target,
                                                   int want_nan, unsigned long long *first) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    const T a = rb_abs(x[i]);
    if (want_nan ? a != a : a == target) {
      atomicMin(first, (unsigned long long)i);
      return;
    }
  }
}

template <class T>
__device__ __forceinline__ void rb_axpy_body(T alpha, const T *x, T *y, long long n) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x)
    y[i] = rb_fma(alpha, x[i], y[i]);
}

template <class T>
__device__ __forceinline__ void rb_scal_body(T alpha, T *x, long long n) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x)
    x[i] = alpha * x[i];
}

/* a_ij <- fma(x_i, alpha * y_j, a_ij); element (i, j) at a[i*rs + j*cs]. Rows
 * grid-stride (gridDim.y is limited to 65535). */
template <class T>
__device__ __forceinline__ void rb_ger_body(long long m, long long n, T alpha, const T *x,
                                            const T *y, T *a, long long rs, long long cs) {
  const long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= n) return;
  const T ay = alpha * y[j];
  for (long long i = (long long)blockIdx.y * blockDim.y + threadIdx.y; i < m;
       i += (long long)gridDim.y * blockDim.y)
    a[i * rs + j * cs] = rb_fma(x[i], ay, a[i * rs + j * cs]);
}

#endif /* RB_CUDA_LEVEL1_CUH */
