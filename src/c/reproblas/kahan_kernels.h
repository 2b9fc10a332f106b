/* The per-CPU-path kernels of order="kahan" (kernels/kahan.inc) and its
 * driver (frame/kahan.c): docs/contract.md §5.5, order/kahan.h. */
#ifndef RB_KAHAN_KERNELS_H
#define RB_KAHAN_KERNELS_H

#include <stdint.h>

#include "context.h"
#include "order/kahan.h"
#include "terms.h"

#define RB_DECLARE_KAHAN_TABLE(T, SFX)                                                          \
  typedef struct {                                                                              \
    /* The pairs of `count` whole chunks of terms (kind term of terms.h; scale: nrm2's) */      \
    /* starting at x (and y): out[i] for the chunk at x + i * RB_KAHAN_CHUNK. */                \
    void (*chunks)(int term, const T *x, const T *y, T scale, int64_t count,                   \
                   rb_kpair_##SFX *out);                                                        \
  } rb_kahan_kernels_##SFX;                                                                     \
  /* *out = S of the terms (the entry point's environment set); 0 when S is not finite */    \
  /* (the caller then gives the pairwise sum, §5.5), else 1. */                                \
  int rb_kahan_reduce_##SFX(const rb_context *cx, int term, const T *x, const T *y, T scale,  \
                            int64_t n, T *out);                                                \
  /* C = alpha op(A) op(B) [+ beta C] (docs/contract.md §2.4), every S_ij in this order; */    \
  /* strides as rb_exact_gemm's. 0, or -2 when a work buffer cannot be allocated. */           \
  int rb_kahan_gemm_##SFX(const rb_context *cx, int64_t m, int64_t n, int64_t k, T alpha,      \
                          const T *a, int64_t a_rs, int64_t a_cs, const T *b, int64_t b_rs,    \
                          int64_t b_cs, T beta, int beta_zero, T *c, int64_t c_rs,             \
                          int64_t c_cs);

RB_DECLARE_KAHAN_TABLE(float, f32)
RB_DECLARE_KAHAN_TABLE(double, f64)

extern const rb_kahan_kernels_f32 rb_kahan_f32_scalar, rb_kahan_f32_avx2, rb_kahan_f32_avx512;
extern const rb_kahan_kernels_f64 rb_kahan_f64_scalar, rb_kahan_f64_avx2, rb_kahan_f64_avx512;

#endif /* RB_KAHAN_KERNELS_H */
