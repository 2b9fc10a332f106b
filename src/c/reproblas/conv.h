/* reproblas convolution core: the implicit gemms that conv2d and its
 * gradients reduce to (conv_driver.c builds the operands), one per order:
 *
 *   dst[doff[j] + i*drow] = S_ij  (or S_ij ⊕ bias[i] when bias != NULL),
 *   S_ij = the ordered sum (contract §2) over the class's terms t of
 *          A(i, term[t]) * src[toff[t] + coff[j]].
 *
 * The caller lists only present terms (padding is absent, not zero), so
 * every (t, j) pair addresses a real element of src, read in place (no im2col
 * buffer). Columns are independent: the thread split and the tiles change who
 * computes a column, never its operations. Return 0, -1 for a bad
 * dtype/isa/size or term list, -2 when memory runs out, RB_STOPPED when
 * stopped (thread.h).
 */
#ifndef RB_CONV_H
#define RB_CONV_H

#include <stdint.h>

#include "level1.h"

/* One class of outputs for rb_conv_seq / rb_conv_pw: the same present terms for every
 * column. Term t is term[t] of A's terms (strictly ascending: the contract's order) and
 * reads src[toff[t] + coff[j]] for column j, whose results go to
 * dst[doff[j] + i*drow]. */
typedef struct {
  int64_t nterms, ncols;
  const int64_t *term, *toff, *coff, *doff;
  /* optional (NULL: none; rb_conv_seq): slot[j], column j's rank by doff
   * among all classes' columns, so that results can be stored in runs of
   * consecutive destinations */
  const int64_t *slot;
} rb_conv_class;

/* The sequential order for all classes of a convolution at once (an implicit
 * gemm: B is read from src, never gathered): dst[doff[j] + i*drow] = the fma
 * chain over the class's terms of A(i, term[t]) * src[toff[t] + coff[j]]
 * (⊕ bias[i] when bias != NULL; no terms: +0), for rows i < rows, where
 * A(i, u) = a[i*a_rs + (u / tin)*t_os + u % tin] for u < terms (the weights
 * in place: runs of tin contiguous terms). */
int rb_conv_seq(int dtype, rb_context cfg, int64_t rows, int64_t terms, const void *a,
                int64_t a_rs, int64_t tin, int64_t t_os, int64_t nclasses,
                const rb_conv_class *cls, const void *src, void *dst, int64_t drow,
                const void *bias);

/* The pairwise order for all classes at once, with rb_conv_seq's operands:
 * each output is the tree of docs/contract.md §2 over its class's present
 * terms (⊕ bias[i] when bias != NULL; no terms: +0), B read from src in place
 * (conv_pw.c). */
int rb_conv_pw(int dtype, rb_context cfg, int64_t rows, int64_t terms, const void *a,
               int64_t a_rs, int64_t tin, int64_t t_os, int64_t nclasses,
               const rb_conv_class *cls, const void *src, void *dst, int64_t drow,
               const void *bias);

/* dst[b][j][i] = src[b][i][j] for `batch` contiguous rows x cols matrices
 * (grad_weight's tap-major results to (k, c', r, s)). */
void rb_conv_transpose(int dtype, int64_t batch, int64_t rows, int64_t cols, const void *src,
                       void *dst);

/* A convolution's sizes (NCHW, contiguous): x[n, c, h, w], w[k, c/groups, r, s],
 * y[n, k, p, q], as contract §3 "Convolution". p and q are the output sizes; any
 * bottom / right padding >= 0 is implied by them. */
typedef struct {
  int64_t n, c, h, w, k, r, s, p, q, stride_h, stride_w, pad_top, pad_left, dilation_h,
      dilation_w, groups;
} rb_conv_shape;

/* The largest size or parameter (the index arithmetic stays far from overflow). */
#define RB_CONV_MAX_DIM ((int64_t)1 << 30)

/* Whether a shape is valid: fields in [0, RB_CONV_MAX_DIM], strides, dilations
 * and groups >= 1, groups dividing c and k, and p, q >= 1 the output sizes of
 * some bottom / right padding >= 0 (p*stride_h >= h + pad_top - dilation_h*(r-1)). */
int rb_conv_shape_ok(const rb_conv_shape *g);

/* The four routines of contract §3 on contiguous arrays (bias may be NULL): the
 * planning into implicit gemms (conv_driver.c) that the Python layer and the C
 * ABI share. Return 0, -1 for a bad dtype/order/isa/shape, -2 out of memory,
 * RB_STOPPED when stopped (thread.h; the output partly written). */
int rb_conv2d(int dtype, int order, rb_context cfg, const rb_conv_shape *g, const void *x,
              const void *w, const void *bias, void *y);
int rb_conv2d_grad_input(int dtype, int order, rb_context cfg, const rb_conv_shape *g,
                         const void *grad_y, const void *w, void *grad_x);
int rb_conv2d_grad_weight(int dtype, int order, rb_context cfg, const rb_conv_shape *g,
                          const void *x, const void *grad_y, void *grad_w);
int rb_conv2d_grad_bias(int dtype, int order, rb_context cfg, const rb_conv_shape *g,
                        const void *grad_y, void *grad_b);

#endif /* RB_CONV_H */
