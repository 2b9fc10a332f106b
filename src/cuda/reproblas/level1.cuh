/* Level-1 kernel bodies (templates over T; reproblas.cu instantiates them).
 * The host side (reproblas/_cuda.py) makes the vectors contiguous, cuts
 * pairwise sums into aligned power-of-two items and joins them. */
#ifndef RB_CUDA_LEVEL1_CUH
#define RB_CUDA_LEVEL1_CUH

#include "ops.cuh"

#define RB_L1_THREADS 256
#define RB_SEQ_BYTES 8192 /* staged per buffer and operand (sequential chain) */

/* s continued by the chain over x[0..len) (and y) with terms of kind TERM. */
template <int TERM, class T>
__device__ __forceinline__ T rb_chain_run(const T *x, const T *y, T scale, int len, T s) {
#pragma unroll 8
  for (int i = 0; i < len; ++i) s = rb_chain(TERM, x[i], y[i], scale, s);
  return s;
}

/* Sequential order: one chain, run by thread 0 from shared memory. While it
 * works through one chunk, the block's other warps stage the next chunk in the
 * other buffer with coalesced loads, so the chain waits on neither global
 * memory nor the staging. One block. */
template <class T>
__device__ __forceinline__ void rb_sequential_body(int term, const T *x, const T *y, T scale,
                                                   long long n, T *out) {
  constexpr int RB_SEQ_CHUNK = RB_SEQ_BYTES / sizeof(T); /* 32 KiB of shared memory */
  __shared__ T xs[2][RB_SEQ_CHUNK], ys[2][RB_SEQ_CHUNK];
  const int t = threadIdx.x, stagers = blockDim.x > 32 ? blockDim.x - 32 : blockDim.x;
  const int stager = blockDim.x > 32 ? t - 32 : t; /* < 0: warp 0 keeps the chain */
  const bool two = term == RB_TERM_XY;
  for (int i = t; i < RB_SEQ_CHUNK && i < n; i += blockDim.x) { /* chunk 0: every thread */
    xs[0][i] = x[i];
    if (two) ys[0][i] = y[i];
  }
  __syncthreads();
  T s = RB_CHAIN_START(T);
  int buf = 0;
  for (long long c0 = 0; c0 < n; c0 += RB_SEQ_CHUNK, buf ^= 1) {
    const long long next = c0 + RB_SEQ_CHUNK;
    if (stager >= 0)
      for (long long i = stager; i < RB_SEQ_CHUNK && next + i < n; i += stagers) {
        xs[buf ^ 1][i] = x[next + i];
        if (two) ys[buf ^ 1][i] = y[next + i];
      }
    if (t == 0) {
      const int len = n - c0 < RB_SEQ_CHUNK ? (int)(n - c0) : RB_SEQ_CHUNK;
      switch (term) { /* one loop per kind of term: nothing but the chain inside */
      case RB_TERM_X: s = rb_chain_run<RB_TERM_X>(xs[buf], ys[buf], scale, len, s); break;
      case RB_TERM_ABS: s = rb_chain_run<RB_TERM_ABS>(xs[buf], ys[buf], scale, len, s); break;
      case RB_TERM_XY: s = rb_chain_run<RB_TERM_XY>(xs[buf], ys[buf], scale, len, s); break;
      default: s = rb_chain_run<RB_TERM_ZZ>(xs[buf], ys[buf], scale, len, s);
      }
    }
    __syncthreads();
  }
  if (t == 0) out[0] = n == 0 ? T(0) : s;
}

/* The pairwise items of n terms (rb_block_items, order/order.h: n's binary
 * expansion, largest block first, each block cut into aligned items of
 * min(block, piece) terms, piece a power of two). Item idx: its first term
 * and length. */
CR_FN void rb_pairwise_item(long long n, long long piece, long long idx, long long *first,
                            long long *len) {
  long long start = 0;
  RB_BLOCKS_LARGEST_FIRST(b, n, 63) {
    const long long size = 1LL << b, count = rb_block_items(size, piece);
    if (idx < count) {
      *first = start + idx * (size / count), *len = size / count;
      return;
    }
    idx -= count, start += size;
  }
  *first = *len = 0;
}

/* Pairwise order: block b computes the perfect tree over item b. Thread t
 * takes the aligned leaf block t of len/blockDim terms (a perfect subtree, by
 * a binary counter; 16-byte loads and 8-term trees in registers when the leaf
 * allows), then the block joins the leaves level by level in shared memory: a
 * perfect tree. */
template <class T>
__device__ __forceinline__ void rb_pairwise_body(int term, const T *x, const T *y, T scale,
                                                 long long n_all, long long piece, T *val) {
  constexpr int V = 16 / sizeof(T);
  __shared__ T part[RB_L1_THREADS];
  long long base, n;
  rb_pairwise_item(n_all, piece, blockIdx.x, &base, &n);
  const int t = threadIdx.x;
  const long long nt = n < (long long)blockDim.x ? n : (long long)blockDim.x;
  const long long leaf = n / nt, first = base + t * leaf;
  const bool two = term == RB_TERM_XY;
  const bool vec = leaf % 8 == 0 && (uintptr_t)(x + first) % 16 == 0 &&
                   (!two || (uintptr_t)(y + first) % 16 == 0);
  if (t < nt) {
    T stack[RB_LEVELS];
    if (vec) {
      /* each aligned 8 terms: their perfect tree in registers, then one push at
       * the counter's level 3 (levels 0-2 are empty after every 8th term) */
      for (long long i = 0; i < leaf; i += 8) {
        T xv[8], yv[8] = {}, t8[8];
        for (int u = 0; u < 8; u += V) {
          rb_load16(x + first + i + u, xv + u);
          if (two) rb_load16(y + first + i + u, yv + u);
        }
        for (int u = 0; u < 8; ++u) t8[u] = rb_term(term, xv[u], yv[u], scale);
        RB_TREE_IN_PLACE(int, t8, 8, RB_PLUS);
        rb_push(stack + 3, i / 8, t8[0]);
      }
      part[t] = rb_pop_all(stack + 3, leaf / 8);
    } else {
      for (long long i = 0; i < leaf; ++i)
        rb_push(stack, i, rb_term(term, x[first + i], two ? y[first + i] : T(0), scale));
      part[t] = rb_pop_all(stack, leaf);
    }
  }
  __syncthreads();
  for (int w = 1; w < nt; w *= 2) {
    if (t % (2 * w) == 0 && t + w < nt) part[t] = part[t] + part[t + w];
    __syncthreads();
  }
  if (t == 0) val[blockIdx.x] = part[0];
}

/* Joins the item values of rb_pairwise_item(n, piece, ...) (one thread): for each
 * block of n's binary expansion (its consecutive items, a power of two of
 * them), the perfect tree over its items; then the blocks right to left.
 * Optionally applies nrm2's ending, sqrt(S) * 2^e. */
template <class T>
__device__ __forceinline__ void rb_join_body(T *val, long long n, long long piece, int do_sqrt,
                                             T two_e, T *out) {
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  long long items = 0;
  RB_BLOCKS_SMALLEST_FIRST(b, n, 63) items += rb_block_items(1LL << b, piece);
  T acc = T(0);
  bool first = true;
  RB_BLOCKS_SMALLEST_FIRST(b, n, 63) { /* smallest block (last items) first */
    const long long count = rb_block_items(1LL << b, piece);
    items -= count;
    T *v = val + items;
    RB_TREE_IN_PLACE(long long, v, count, RB_PLUS);
    acc = first ? v[0] : v[0] + acc;
    first = false;
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
