/* The executable definition of every reproblas routine (docs/contract.md §2,
 * §3): plain scalar C over order.h's primitives, no SIMD, no blocking, no
 * threads. Test-only: the tests build it into a small shared library and
 * compare every CPU path and the emulated CUDA kernels to it bit for bit.
 *
 * Conventions: `order` is 0 (sequential), 1 (pairwise), 2 (kahan, docs/contract.md §5.5;
 * order/kahan.h) or 3 (exact, §5.4: sum, asum, dot, gemv and gemm only; order/exact.h);
 * every operand has
 * element strides (int64, any sign), matrices a row and a column stride, 4-D
 * tensors four. Outputs are updated in place. Each entry runs in the default
 * floating-point environment (round to nearest, no FTZ/DAZ) and restores the
 * caller's. Suffix _f32 for float, _f64 for double. */
#ifndef RB_REFERENCE_H
#define RB_REFERENCE_H

#include <stdint.h>

#define RB_REF_DECLARE(T, SFX)                                                                  \
  T rb_ref_sum_##SFX(int order, int64_t n, const T *x, int64_t incx);                          \
  T rb_ref_asum_##SFX(int order, int64_t n, const T *x, int64_t incx);                         \
  T rb_ref_dot_##SFX(int order, int64_t n, const T *x, int64_t incx, const T *y, int64_t incy);\
  T rb_ref_nrm2_##SFX(int order, int64_t n, const T *x, int64_t incx);                         \
  int64_t rb_ref_iamax_##SFX(int64_t n, const T *x, int64_t incx);                             \
  void rb_ref_axpy_##SFX(int64_t n, T alpha, const T *x, int64_t incx, T *y, int64_t incy);    \
  void rb_ref_scal_##SFX(int64_t n, T alpha, T *x, int64_t incx);                              \
  void rb_ref_gemv_##SFX(int order, int trans, int64_t m, int64_t n, T alpha, const T *a,      \
                         int64_t sa0, int64_t sa1, const T *x, int64_t incx, T beta, T *y,     \
                         int64_t incy);                                                        \
  void rb_ref_ger_##SFX(int64_t m, int64_t n, T alpha, const T *x, int64_t incx, const T *y,   \
                        int64_t incy, T *a, int64_t sa0, int64_t sa1);                         \
  void rb_ref_gemm_##SFX(int order, int trans_a, int trans_b, int64_t m, int64_t n, int64_t k, \
                         T alpha, const T *a, int64_t sa0, int64_t sa1, const T *b,            \
                         int64_t sb0, int64_t sb1, T beta, T *c, int64_t sc0, int64_t sc1);    \
  void rb_ref_trsv_##SFX(int order, int lower, int trans, int unit, int64_t n, const T *a,     \
                         int64_t sa0, int64_t sa1, T *b, int64_t incb);                        \
  void rb_ref_trsm_##SFX(int order, int right, int lower, int trans, int unit, int64_t m,      \
                         int64_t n, T alpha, const T *a, int64_t sa0, int64_t sa1, T *b,       \
                         int64_t sb0, int64_t sb1);                                            \
  void rb_ref_trmm_##SFX(int order, int right, int lower, int trans, int unit, int64_t m,      \
                         int64_t n, T alpha, const T *a, int64_t sa0, int64_t sa1, T *b,       \
                         int64_t sb0, int64_t sb1);                                            \
  void rb_ref_conv2d_##SFX(int order, const int64_t *geo, const T *x, const int64_t *xs,       \
                           const T *w, const int64_t *ws, const T *bias, int64_t sbias, T *y,  \
                           const int64_t *ys);                                                 \
  void rb_ref_conv2d_grad_input_##SFX(int order, const int64_t *geo, const T *gy,              \
                                      const int64_t *gys, const T *w, const int64_t *ws, T *gx,\
                                      const int64_t *gxs);                                     \
  void rb_ref_conv2d_grad_weight_##SFX(int order, const int64_t *geo, const T *x,              \
                                       const int64_t *xs, const T *gy, const int64_t *gys,     \
                                       T *gw, const int64_t *gws);                             \
  void rb_ref_conv2d_grad_bias_##SFX(int order, const int64_t *geo, const T *gy,               \
                                     const int64_t *gys, T *gb, int64_t sgb);                  \
  void rb_ref_scan_##SFX(int order, int op, int term, int exclusive, int64_t n, const T *x,    \
                         int64_t incx, const T *y, int64_t incy, T *out, int64_t incout);

/* scan (docs/contract.md §5.2): op 0 cumsum, 1 cumprod (term 0 only); term 0 x_k, 1
 * abs(x_k), 2 x_k*y_k; exclusive 0/1; orders 2 (kahan) and 3 (exact) cumsum only, each
 * prefix that order's sum of its terms. out: n elements, never the inputs' memory. */
/* geo, the convolution's geometry: {N, C, H, W, K, groups, R, S, P, Q, sh, sw, ph, pw, dh,
 * dw}: x[N, C, H, W], w[K, C/groups, R, S], y[N, K, P, Q]; ph, pw: the padding before the
 * first row and column (P and Q say where the windows end, so 'same' is any P, Q). */
RB_REF_DECLARE(float, f32)
RB_REF_DECLARE(double, f64)

/* float32 vectors, float64 sums (docs/contract.md §3.5). */
double rb_ref_dsdot(int order, int64_t n, const float *x, int64_t incx, const float *y,
                    int64_t incy);
float rb_ref_sdsdot(int order, int64_t n, float sb, const float *x, int64_t incx,
                    const float *y, int64_t incy);
/* Level 2 on symmetric, triangular, band and packed A (docs/contract.md §3.6); see
 * reference.c for the storage codes. */
#define RB_REF_DECLARE_L2(T, SFX)                                                              \
  void rb_ref_l2mv_##SFX(int order, int kind, int storage, int lower, int trans, int unit,     \
                         int64_t m, int64_t n, int64_t kl, int64_t ku, T alpha, const T *a,    \
                         int64_t rs, int64_t cs, const T *x, int64_t incx, T beta, T *y,       \
                         int64_t incy);                                                        \
  void rb_ref_l2sv_##SFX(int order, int storage, int lower, int trans, int unit, int64_t n,    \
                         int64_t k, const T *a, int64_t rs, int64_t cs, T *b, int64_t incb);   \
  void rb_ref_l2rank_##SFX(int storage, int lower, int64_t n, T alpha, const T *x,             \
                           int64_t incx, const T *y, int64_t incy, T *a, int64_t rs,           \
                           int64_t cs);
RB_REF_DECLARE_L2(float, f32)
RB_REF_DECLARE_L2(double, f64)

#endif /* RB_REFERENCE_H */
