/* order="kahan" scans on CUDA (docs/contract.md §5.5): prefix k of a row or a
 * run is the kahan sum of its terms 0 .. k, bit for bit. A thread scans one
 * segment with the CPU's one-pass state (order/kahan_scan.h, compiled for the
 * device: the same operations in the same order); a prefix whose S is not
 * finite is the pairwise sum of its terms, the state's second counter. Launch
 * geometry: reproblas/_scan_cuda_extra.py. */
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

/* Each segment [off[s], off[s + 1]) scanned on its own by one thread (exclusive:
 * shifted by one after +0). */
template <class T>
__device__ void rb_kscan_segments_body(int term, int exclusive, const T *x, const T *y,
                                       const long long *off, long long nseg, T *out) {
  RB_GRID_STRIDE(s, nseg) {
    const long long lo = off[s], hi = off[s + 1], shift = exclusive ? 1 : 0;
    if (hi == lo) continue;
    typename rb_kscan_of<T>::type st;
    rb_kscan_init_t(&st);
    rb_kscan_range<T>(&st, term, x + lo, y + lo, out + lo + shift, 0, hi - lo - shift);
    if (exclusive) out[lo] = T(0);
  }
}

#define RB_DEFINE_KSCAN_KERNELS(T, sfx)                                                      \
  extern "C" __global__ void rb_kscan_segments_##sfx(int term, int exclusive, const T *x,    \
                                                     const T *y, const long long *off,         \
                                                     long long nseg, T *out) {                 \
    rb_kscan_segments_body<T>(term, exclusive, x, y, off, nseg, out);                         \
  }

#define RB_KSCAN_KERNEL_LIST(X) X(rb_kscan_segments_f32) X(rb_kscan_segments_f64)

#endif /* RB_CUDA_KAHAN_SCAN_CUH */
