/* The per-CPU-path kernel of the sequential segmented sums (kernels/seg.inc,
 * driven by frame/scan_driver.inc's reduce_seq_lanes): RB_SEG_LANES segments'
 * chains side by side, docs/contract.md §5.3. */
#ifndef RB_SEG_KERNELS_H
#define RB_SEG_KERNELS_H

#include <stdint.h>

#include "terms.h"

/* 8 segments side by side: 16 streams (16 segments) are read from memory
 * slower than 8, which the shorter chains do not make up for. */
enum { RB_SEG_LANES = 8 };

#define RB_DECLARE_SEG_TABLE(T, SFX)                                                           \
  typedef struct {                                                                             \
    /* acc[l] = (((acc[l] + t(p[l][0])) + t(p[l][1])) ...) + t(p[l][m - 1]) for each of the */ \
    /* RB_SEG_LANES lanes, t the term (RB_TERM_X or RB_TERM_ABS): exactly each lane's */       \
    /* chain alone. Returns how many steps it took, a multiple of its width (<= m): the */    \
    /* caller takes the rest. */                                                               \
    int64_t (*steps)(int term, T *acc, const T *const *p, int64_t m);                         \
  } rb_seg_kernels_##SFX;

RB_DECLARE_SEG_TABLE(float, f32)
RB_DECLARE_SEG_TABLE(double, f64)

extern const rb_seg_kernels_f32 rb_seg_f32_scalar, rb_seg_f32_avx2, rb_seg_f32_avx512;
extern const rb_seg_kernels_f64 rb_seg_f64_scalar, rb_seg_f64_avx2, rb_seg_f64_avx512;

#endif /* RB_SEG_KERNELS_H */
