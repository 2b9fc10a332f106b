/* order="kahan" scans on CUDA (docs/contract.md §5.5): prefix k of a row or a
 * run is the kahan sum of its terms 0 .. k, bit for bit. A thread scans one
 * segment with the CPU's one-pass state (order/kahan_scan.h, compiled for the
 * device: the same operations in the same order); a prefix whose S is not
 * finite is the pairwise sum of its terms, the state's second counter. A long
 * segment is cut into aligned pieces of whole chunks, each scanned by a thread from its
 * starting state (below). Launch geometry: reproblas/_scan_cuda_extra.py. */
#ifndef RB_CUDA_KAHAN_SCAN_CUH
#define RB_CUDA_KAHAN_SCAN_CUH

#include "order/kahan_scan.h"
#include "kahan.cuh"
#include "scan.cuh"

template <class T> struct rb_kscan_of;
template <> struct rb_kscan_of<float> { typedef rb_kscan_f32 type; };
template <> struct rb_kscan_of<double> { typedef rb_kscan_f64 type; };
CR_FN void rb_kscan_init_t(rb_kscan_f32 *st) { rb_kscan_init_f32(st); }
CR_FN void rb_kscan_init_t(rb_kscan_f64 *st) { rb_kscan_init_f64(st); }
CR_FN void rb_kscan_open_t(rb_kscan_f32 *st) { rb_kscan_open_f32(st); }
CR_FN void rb_kscan_open_t(rb_kscan_f64 *st) { rb_kscan_open_f64(st); }
CR_FN void rb_kscan_group_t(rb_kscan_f32 *st, const float *t, int m, float *s) {
  rb_kscan_group_f32(st, t, m, s);
}
CR_FN void rb_kscan_group_t(rb_kscan_f64 *st, const double *t, int m, double *s) {
  rb_kscan_group_f64(st, t, m, s);
}
CR_FN void rb_kscan_pw_push_t(rb_kscan_f32 *st, float t) { rb_kscan_pw_push_f32(st, t); }
CR_FN void rb_kscan_pw_push_t(rb_kscan_f64 *st, double t) { rb_kscan_pw_push_f64(st, t); }
CR_FN float rb_kscan_pw_sum_t(const rb_kscan_f32 *st) { return rb_kscan_pw_sum_f32(st); }
CR_FN double rb_kscan_pw_sum_t(const rb_kscan_f64 *st) { return rb_kscan_pw_sum_f64(st); }

/* Prefixes b .. e - 1 of x (and y) into o, st having taken the terms before b (b a
 * multiple of RB_KSCAN_GROUP): scan_driver.inc's kscan_range. o never overlaps x, y
 * (the fallback reads terms again). */
template <class T, class S>
__device__ void rb_kscan_range(S *st, int term, const T *x, const T *y, T *o, long long b,
                               long long e) {
  T t[RB_KSCAN_GROUP], s[RB_KSCAN_GROUP];
  for (long long i0 = b; i0 < e; i0 += RB_KSCAN_GROUP) {
    const int g = e - i0 < RB_KSCAN_GROUP ? (int)(e - i0) : RB_KSCAN_GROUP;
    for (int i = 0; i < g; ++i) t[i] = rb_kahan_term(term, x, y, T(1), i0 + i);
    rb_kscan_group_t(st, t, g, s);
    for (int i = 0; i < g; ++i) {
      if (!(s[i] - s[i] == 0)) {
        while (st->pwn <= i0 + i)
          rb_kscan_pw_push_t(st, rb_kahan_term(term, x, y, T(1), (long long)st->pwn));
        s[i] = rb_kscan_pw_sum_t(st);
      }
      o[i0 + i] = s[i];
    }
  }
}

/* Each segment [off[s], off[s + 1]) of fewer than `big` terms scanned on its own by one
 * thread (exclusive: shifted by one after +0); longer ones are left to the pieces below. */
template <class T>
__device__ void rb_kscan_segments_body(int term, int exclusive, const T *x, const T *y,
                                       const long long *off, long long nseg, long long big,
                                       T *out) {
  RB_GRID_STRIDE(s, nseg) {
    const long long lo = off[s], hi = off[s + 1], shift = exclusive ? 1 : 0;
    if (hi == lo || hi - lo >= big) continue;
    typename rb_kscan_of<T>::type st;
    rb_kscan_init_t(&st);
    rb_kscan_range<T>(&st, term, x + lo, y + lo, out + lo + shift, 0, hi - lo - shift);
    if (exclusive) out[lo] = T(0);
  }
}

/* A long scan of m terms in aligned pieces of P chunks (len = 1024 P terms, P a power of
 * two), scan_driver.inc's kscan_seg_big: the pieces' chunk pairs (rb_kahan_chunks) and
 * perfect trees (rb_kscan_trees), then one thread walks the two counters over them and
 * writes each piece's starting state (rb_kscan_states), then a thread per piece scans it
 * from that state (rb_kscan_pieces): the one pass's operations, piece by piece. States:
 * RB_KSCAN_STATE_BYTES each. */
#define RB_KSCAN_STATE_BYTES 4096
static_assert(sizeof(rb_kscan_f64) <= RB_KSCAN_STATE_BYTES, "RB_KSCAN_STATE_BYTES");

/* tree[q]: the perfect pairwise tree of the terms of full piece q (the fallback's). */
template <class T>
__device__ void rb_kscan_trees_body(int term, const T *x, const T *y, long long full,
                                    long long len, T *tree) {
  RB_GRID_STRIDE(q, full) {
    T stack[64], acc;
    for (long long i = 0; i < len; ++i) {
      T t = rb_kahan_term(term, x, y, T(1), q * len + i);
      RB_COUNTER_PUSH(stack, i, t, RB_PLUS);
    }
    RB_COUNTER_JOIN(acc, stack, len, RB_PLUS);
    tree[q] = acc;
  }
}

template <class T>
__device__ void rb_kscan_states_body(const T *cs, const T *cc, const T *tree, long long pieces,
                                     long long P, unsigned char *states) {
  typedef typename rb_kscan_of<T>::type S;
  typedef typename rb_kpair_of<T>::type K;
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  K cst[64];
  T pc[64];
  for (int l = 0; l < 64; ++l) cst[l].s = cst[l].c = T(0), pc[l] = T(0);
  const long long len = P * RB_KAHAN_CHUNK;
  const int l0 = rb_bit_length(len) - 1; /* the term counter's level of a piece */
  for (long long p = 0; p < pieces; ++p) {
    S *st = (S *)(states + p * RB_KSCAN_STATE_BYTES);
    rb_kscan_init_t(st);
    st->closed = p * P;
    st->n = st->pwn = p * len;
    for (int l = 0; l < 64; ++l) st->cst[l] = cst[l];
    for (int l = 0; l < 64; ++l) st->pw[l] = l >= l0 ? pc[l - l0] : T(0);
    rb_kscan_open_t(st);
    if (p == pieces - 1) break;
    for (long long c = p * P; c < (p + 1) * P; ++c) {
      K v;
      v.s = cs[c], v.c = cc[c];
      RB_COUNTER_PUSH(cst, c, v, rb_kjoin_t);
    }
    T w = tree[p];
    RB_COUNTER_PUSH(pc, p, w, RB_PLUS);
  }
}

template <class T>
__device__ void rb_kscan_pieces_body(int term, const T *x, const T *y, long long m,
                                     long long len, const unsigned char *states, T *out) {
  typedef typename rb_kscan_of<T>::type S;
  const long long pieces = (m + len - 1) / len;
  RB_GRID_STRIDE(q, pieces) {
    S st = *(const S *)(states + q * RB_KSCAN_STATE_BYTES);
    const long long lo = q * len;
    rb_kscan_range<T>(&st, term, x, y, out, lo, m - lo < len ? m : lo + len);
  }
}

#define RB_DEFINE_KSCAN_KERNELS(T, sfx)                                                      \
  extern "C" __global__ void rb_kscan_segments_##sfx(int term, int exclusive, const T *x,    \
                                                     const T *y, const long long *off,         \
                                                     long long nseg, long long big, T *out) {  \
    rb_kscan_segments_body<T>(term, exclusive, x, y, off, nseg, big, out);                    \
  }                                                                                            \
  extern "C" __global__ void rb_kscan_trees_##sfx(int term, const T *x, const T *y,          \
                                                  long long full, long long len, T *tree) {     \
    rb_kscan_trees_body<T>(term, x, y, full, len, tree);                                      \
  }                                                                                            \
  extern "C" __global__ void rb_kscan_states_##sfx(const T *cs, const T *cc, const T *tree,  \
                                                   long long pieces, long long P,              \
                                                   unsigned char *states) {                    \
    rb_kscan_states_body<T>(cs, cc, tree, pieces, P, states);                                 \
  }                                                                                            \
  extern "C" __global__ void rb_kscan_pieces_##sfx(int term, const T *x, const T *y,         \
                                                   long long m, long long len,                 \
                                                   const unsigned char *states, T *out) {      \
    rb_kscan_pieces_body<T>(term, x, y, m, len, states, out);                                 \
  }

#define RB_KSCAN_KERNEL_LIST(X)                                                              \
  X(rb_kscan_segments_f32) X(rb_kscan_trees_f32) X(rb_kscan_states_f32)                     \
  X(rb_kscan_pieces_f32) X(rb_kscan_segments_f64) X(rb_kscan_trees_f64)                     \
  X(rb_kscan_states_f64) X(rb_kscan_pieces_f64)

#endif /* RB_CUDA_KAHAN_SCAN_CUH */
