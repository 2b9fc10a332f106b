/* Per-CPU-path kernels of the fused deep-learning ops (nn.h), float32: the
 * template nn_kernels.inc instantiated in kernels/<isa>/nn.c. Each works on
 * contiguous memory, single-threaded, in the caller's (the driver's)
 * floating-point environment. */
#ifndef RB_NN_KERNELS_H
#define RB_NN_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "functions.h"

/* The elements one call of `chunk` maps (a multiple of every path's lane count). */
enum { RB_NN_CHUNK = 512 };

/* The crlibm array kernels of one path (crlibm_core.h's cr_kernel_fn), by function id. */
typedef void (*rb_nn_crfn)(const float *x, float *y, size_t n);
typedef struct {
  rb_nn_crfn f[CR_FUNCTION_COUNT];
} rb_nn_cr;

typedef struct {
  /* out[0 .. RB_NN_CHUNK) = op (nn.h's rb_nn_map_op) of x (and g) */
  void (*chunk)(int op, const rb_nn_cr *cr, const float *x, const float *g, float *out);
  /* The maximum of x[0 .. n), n >= 1; NaN if any x_k is NaN; (any zero when the
   * maximum is a zero: callers add +0). */
  float (*max)(const float *x, int64_t n);
  void (*sub_s)(const float *x, float s, float *y, int64_t n);  /* y = x ⊖ s */
  void (*add_s)(const float *x, float s, float *y, int64_t n);  /* y = x ⊕ s */
  void (*div_s)(const float *x, float s, float *y, int64_t n);  /* y = x ⊘ s */
  void (*mul)(const float *a, const float *b, float *y, int64_t n); /* y = a ⊗ b */
  /* out = y ⊗ (g ⊖ s) */
  void (*softmax_b)(const float *y, const float *g, float s, float *out, int64_t n);
  /* out = g ⊖ (e ⊗ s) */
  void (*log_softmax_b)(const float *e, const float *g, float s, float *out, int64_t n);
  /* y = (x ⊗ r), then ⊗ w, ⊕ b where not NULL */
  void (*scale_affine)(const float *x, float r, const float *w, const float *b, float *y,
                       int64_t n);
  /* y = ((x ⊖ mu) ⊗ r), then ⊗ *w, ⊕ *b where not NULL (one channel's scalars) */
  void (*channel_affine)(const float *x, float mu, float r, const float *w, const float *b,
                         float *y, int64_t n);
  /* y = x ⊗ c where the byte m[i] is not 0, −inf where it is */
  void (*scale_mask)(const float *x, float c, const unsigned char *m, float *y, int64_t n);
  /* y = (m[i] ? x : +0) ⊗ c */
  void (*mask_scale)(const float *x, const unsigned char *m, float c, float *y, int64_t n);
  /* The norms' backward (nn.h), d = x ⊖ mu (x where rms), gy = g ⊗ w (g where w is NULL):
   * p = gy ⊗ d, and gw = g ⊗ (d ⊗ r) where gw is not NULL */
  void (*norm_b1)(const float *x, const float *g, const float *w, float mu, float r, int rms,
                  float *p, float *gw, int64_t n);
  /* dx = ((gy ⊗ r) ⊕ (gq ⊗ d)) ⊕ (gq ⊗ d), neg = −dx */
  void (*norm_b2)(const float *x, const float *g, const float *w, float mu, float r, float gq,
                  int rms, float *dx, float *neg, int64_t n);
} rb_nn_kernels;

extern const rb_nn_kernels rb_nn_scalar, rb_nn_avx2, rb_nn_avx512;

#endif /* RB_NN_KERNELS_H */
