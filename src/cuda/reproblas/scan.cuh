/* Scan and segmented-reduction kernel bodies (docs/contract.md §5.2, §5.3),
 * templates over T; reproblas.cu instantiates them (RB_DEFINE_SCAN_KERNELS).
 * Launch geometry: reproblas/_scan_cuda.py. Every kernel is a grid-stride
 * loop over independent work items (segments, aligned pieces): a thread runs
 * one item's chain or counter, so the grid never changes an operation. */
#ifndef RB_CUDA_SCAN_CUH
#define RB_CUDA_SCAN_CUH

#include "ops.cuh"

template <class T>
CR_FN T rb_scan_start(int op) {
  return op ? RB_PRODUCT_START(T) : RB_CHAIN_START(T);
}

/* One thread: the prefixes of x[0 .. n) after the prefix c0 at an aligned
 * boundary (c0: the start at a scan's first term); op 0 sum, 1 product. */
template <class T>
__device__ void rb_scan_run(int op, int order, int term, const T *x, const T *y, T *out,
                            long long n, T c0) {
  if (order == 0) {
    T s = c0;
    for (long long i = 0; i < n; ++i) {
      s = op ? s * x[i] : rb_chain(term, x[i], term == RB_TERM_XY ? y[i] : x[i], T(1), s);
      out[i] = s;
    }
    return;
  }
  T stack[RB_LEVELS];
  for (long long i = 0; i < n; ++i) {
    T v = op ? x[i] : rb_term(term, x[i], term == RB_TERM_XY ? y[i] : x[i], T(1));
    if (op)
      RB_SCAN_PUSH(stack, out, i, v, c0, RB_TIMES);
    else
      RB_SCAN_PUSH(stack, out, i, v, c0, RB_PLUS);
  }
}

#define RB_GRID_STRIDE(i, count)                                                              \
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < (count);           \
       i += (long long)gridDim.x * blockDim.x)

/* Each segment [off[s], off[s + 1]) scanned on its own (exclusive: shifted
 * after the start value). */
template <class T>
__device__ void rb_scan_segments_body(int op, int order, int term, int exclusive, const T *x,
                                      const T *y, const long long *off, long long nseg, T *out) {
  RB_GRID_STRIDE(s, nseg) {
    const long long lo = off[s], hi = off[s + 1];
    if (hi == lo) continue;
    const long long shift = exclusive ? 1 : 0;
    rb_scan_run<T>(op, order, term, x + lo, y ? y + lo : y, out + lo + shift, hi - lo - shift,
                   rb_scan_start<T>(op));
    if (exclusive) out[lo] = op ? T(1) : T(0);
  }
}

/* The perfect tree over each full aligned piece of `piece` terms. */
template <class T>
__device__ void rb_scan_trees_body(int op, int term, const T *x, const T *y, long long full,
                                   long long piece, T *tree) {
  RB_GRID_STRIDE(q, full) {
    T stack[RB_LEVELS], v = T(0);
    const T *xq = x + q * piece, *yq = y ? y + q * piece : y;
    for (long long i = 0; i < piece; ++i) {
      v = op ? xq[i] : rb_term(term, xq[i], term == RB_TERM_XY ? yq[i] : xq[i], T(1));
      if (op)
        RB_COUNTER_PUSH(stack, i, v, RB_TIMES);
      else
        RB_COUNTER_PUSH(stack, i, v, RB_PLUS);
    }
    tree[q] = v; /* the last push's carries completed the root */
  }
}

/* Piece q's prefixes after pre[q - 1] (the start for q = 0); the last one of
 * a full piece is pre[q], the scan of the trees (docs/contract.md §5.2). */
template <class T>
__device__ void rb_scan_pieces_body(int op, int term, const T *x, const T *y, long long m,
                                    long long piece, const T *pre, T *out) {
  const long long full = m / piece, items = (m + piece - 1) / piece;
  RB_GRID_STRIDE(q, items) {
    const long long len = m - q * piece < piece ? m - q * piece : piece;
    rb_scan_run<T>(op, 1, term, x + q * piece, y ? y + q * piece : y, out + q * piece, len,
                   q ? pre[q - 1] : rb_scan_start<T>(op));
    if (q < full) out[q * piece + piece - 1] = pre[q];
  }
}

/* out[s]: the level-1 reduction of segment s (sum, asum, dot), +0 if empty. */
template <class T>
__device__ void rb_segment_reduce_body(int order, int term, const T *x, const T *y,
                                       const long long *off, long long nseg, T *out) {
  RB_GRID_STRIDE(s, nseg) {
    const long long lo = off[s], n = off[s + 1] - lo;
    T acc = T(0);
    if (n > 0 && order == 0) {
      acc = RB_CHAIN_START(T);
      for (long long i = lo; i < lo + n; ++i)
        acc = rb_chain(term, x[i], term == RB_TERM_XY ? y[i] : x[i], T(1), acc);
    } else if (n > 0) {
      T stack[RB_LEVELS];
      for (long long i = 0; i < n; ++i)
        rb_push(stack, i, rb_term(term, x[lo + i], term == RB_TERM_XY ? y[lo + i] : x[lo + i], T(1)));
      acc = rb_pop_all(stack, n);
    }
    out[s] = acc;
  }
}

#define RB_DEFINE_SCAN_KERNELS(T, sfx)                                                        \
  extern "C" __global__ void rb_scan_segments_##sfx(int op, int order, int term, int exclusive, \
                                                    const T *x, const T *y,                     \
                                                    const long long *off, long long nseg,       \
                                                    T *out) {                                   \
    rb_scan_segments_body<T>(op, order, term, exclusive, x, y, off, nseg, out);                \
  }                                                                                            \
  extern "C" __global__ void rb_scan_trees_##sfx(int op, int term, const T *x, const T *y,    \
                                                 long long full, long long piece, T *tree) {    \
    rb_scan_trees_body<T>(op, term, x, y, full, piece, tree);                                 \
  }                                                                                            \
  extern "C" __global__ void rb_scan_pieces_##sfx(int op, int term, const T *x, const T *y,   \
                                                  long long m, long long piece, const T *pre,   \
                                                  T *out) {                                     \
    rb_scan_pieces_body<T>(op, term, x, y, m, piece, pre, out);                               \
  }                                                                                            \
  extern "C" __global__ void rb_segment_reduce_##sfx(int order, int term, const T *x,         \
                                                     const T *y, const long long *off,          \
                                                     long long nseg, T *out) {                  \
    rb_segment_reduce_body<T>(order, term, x, y, off, nseg, out);                             \
  }

#define RB_SCAN_KERNEL_LIST(X)                                                                \
  X(rb_scan_segments_f32) X(rb_scan_trees_f32) X(rb_scan_pieces_f32) X(rb_segment_reduce_f32) \
  X(rb_scan_segments_f64) X(rb_scan_trees_f64) X(rb_scan_pieces_f64) X(rb_segment_reduce_f64)

#endif /* RB_CUDA_SCAN_CUH */
