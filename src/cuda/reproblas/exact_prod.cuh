/* cumprod(order="exact") on CUDA (docs/contract.md §5.4): a thread per row runs
 * the fast form of order/exact_prod.h (the CPU's code, compiled for the device)
 * and rounds every prefix from it. Where the fast form cannot decide a prefix
 * (its error interval meets a rounding boundary; with `check`, every inexact
 * prefix, as REPROBLAS_EXACT_PROD_CHECK=1 on the CPU), the row stops and
 * fail[row] is that prefix's index, else -1: the host finishes those rows with
 * the C core (reproblas/_scan_cuda_extra.py), whose prefixes are the same
 * correctly rounded values. No bignum on the device. A long row is cut into pieces
 * (below). */
#ifndef RB_CUDA_EXACT_PROD_CUH
#define RB_CUDA_EXACT_PROD_CUH

#include "order/exact.h"
#include "order/exact_prod.h"
#include "scan.cuh"

CR_FN uint64_t rb_xp_bits_of(float v) { return rb_xbits32(v); }
CR_FN uint64_t rb_xp_bits_of(double v) { return rb_xbits64(v); }
CR_FN void rb_xp_put(float *o, uint64_t bits) { *o = rb_xfloat32((uint32_t)bits); }
CR_FN void rb_xp_put(double *o, uint64_t bits) { *o = rb_xfloat64(bits); }

/* Prefix `i`'s bits from s into o[i]; 0 when the row must be finished on the host. */
template <class T>
__device__ int rb_xcumprod_emit(const rb_xprod *s, const rb_xfmt *f, int check, T *o,
                                long long i) {
  uint64_t bits;
  if (!rb_xprod_round(s, f, &bits) || (check && s->j && rb_xprod_finite(s))) return 0;
  rb_xp_put(o + i, bits);
  return 1;
}

template <class T>
__device__ void rb_xcumprod_body(int exclusive, int check, const T *x, long long rows,
                                 long long n, T *out, long long *fail) {
  const rb_xfmt f = rb_xfmt_of(sizeof(T) == 4);
  RB_GRID_STRIDE(r, rows) {
    const T *row = x + r * n;
    T *o = out + r * n;
    rb_xprod s;
    rb_xprod_init(&s);
    long long bad = -1;
    for (long long i = 0; i < n; ++i) {
      const rb_xterm t = rb_xterm_of(rb_xp_bits_of(row[i]), &f);
      if (exclusive && !rb_xcumprod_emit<T>(&s, &f, check, o, i)) {
        bad = i;
        break;
      }
      rb_xprod_mul(&s, &t);
      if (!exclusive && !rb_xcumprod_emit<T>(&s, &f, check, o, i)) {
        bad = i;
        break;
      }
    }
    fail[r] = bad;
  }
}

/* A long row (m terms) in pieces of len terms: each full piece's own running product
 * (rb_xprod_parts, a thread each), one thread joins them into each piece's starting
 * product (rb_xprod_starts, rb_xprod_join: a bounded fast form, as the one pass's), then
 * a thread per piece rounds its prefixes from there (rb_xprod_pieces); fail[q] as above.
 * A decided prefix is the correctly rounded product whatever fast form decided it. */
template <class T>
__device__ void rb_xprod_parts_body(const T *x, long long full, long long len, rb_xprod *part) {
  const rb_xfmt f = rb_xfmt_of(sizeof(T) == 4);
  RB_GRID_STRIDE(q, full) {
    rb_xprod s;
    rb_xprod_init(&s);
    for (long long i = q * len; i < (q + 1) * len; ++i) {
      const rb_xterm t = rb_xterm_of(rb_xp_bits_of(x[i]), &f);
      rb_xprod_mul(&s, &t);
    }
    part[q] = s;
  }
}

/* In place: part[q] becomes the product of the pieces before q. */
__device__ inline void rb_xprod_starts_body(long long pieces, rb_xprod *part) {
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  rb_xprod run;
  rb_xprod_init(&run);
  for (long long q = 0; q < pieces; ++q) {
    const rb_xprod here = part[q];
    part[q] = run;
    if (q + 1 < pieces) rb_xprod_join(&run, &here);
  }
}

template <class T>
__device__ void rb_xprod_pieces_body(int check, const T *x, long long m, long long len,
                                     const rb_xprod *start, T *out, long long *fail) {
  const rb_xfmt f = rb_xfmt_of(sizeof(T) == 4);
  const long long pieces = (m + len - 1) / len;
  RB_GRID_STRIDE(q, pieces) {
    rb_xprod s = start[q];
    const long long lo = q * len, hi = m - lo < len ? m : lo + len;
    long long bad = -1;
    for (long long i = lo; i < hi; ++i) {
      const rb_xterm t = rb_xterm_of(rb_xp_bits_of(x[i]), &f);
      rb_xprod_mul(&s, &t);
      if (!rb_xcumprod_emit<T>(&s, &f, check, out, i)) {
        bad = i;
        break;
      }
    }
    fail[q] = bad;
  }
}

#define RB_DEFINE_XCUMPROD_KERNELS(T, sfx)                                                   \
  extern "C" __global__ void rb_xcumprod_##sfx(int exclusive, int check, const T *x,         \
                                               long long rows, long long n, T *out,            \
                                               long long *fail) {                              \
    rb_xcumprod_body<T>(exclusive, check, x, rows, n, out, fail);                             \
  }                                                                                            \
  extern "C" __global__ void rb_xprod_parts_##sfx(const T *x, long long full, long long len,  \
                                                  rb_xprod *part) {                            \
    rb_xprod_parts_body<T>(x, full, len, part);                                               \
  }                                                                                            \
  extern "C" __global__ void rb_xprod_pieces_##sfx(int check, const T *x, long long m,       \
                                                   long long len, const rb_xprod *start,       \
                                                   T *out, long long *fail) {                  \
    rb_xprod_pieces_body<T>(check, x, m, len, start, out, fail);                              \
  }

#define RB_DEFINE_XPROD_STARTS                                                               \
  extern "C" __global__ void rb_xprod_starts(long long pieces, rb_xprod *part) {              \
    rb_xprod_starts_body(pieces, part);                                                       \
  }

#define RB_XPROD_STATE_BYTES 64 /* sizeof(rb_xprod): reproblas/_scan_cuda_extra.py */
static_assert(sizeof(rb_xprod) == RB_XPROD_STATE_BYTES, "RB_XPROD_STATE_BYTES");

#define RB_XCUMPROD_KERNEL_LIST(X)                                                           \
  X(rb_xcumprod_f32) X(rb_xcumprod_f64) X(rb_xprod_parts_f32) X(rb_xprod_parts_f64)         \
  X(rb_xprod_pieces_f32) X(rb_xprod_pieces_f64) X(rb_xprod_starts)

#endif /* RB_CUDA_EXACT_PROD_CUH */
