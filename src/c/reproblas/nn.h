/* Fused deep-learning kernels of reproblas.torch (docs/contract.md §5.7), float32.
 *
 * Each call computes the graph the contract writes for its op, one IEEE
 * operation per node, the crlibm functions through their array kernels and
 * every ordered sum with rb_sum's bits, inside the library's floating-point
 * environment (fp_env.h). Threads split elements or rows, never an op's
 * graph, so a result does not depend on the thread count or the code path.
 * Return 0, -1 for a bad argument, -2 when scratch memory is missing.
 */
#ifndef RB_NN_H
#define RB_NN_H

#include <stdint.h>

#include "context.h"

/* Elementwise ops. Forward: out = op(x). Backward (_B): out = the gradient
 * for the incoming gradient g; x is the op's input, or its output y for exp,
 * tanh and rsqrt (what the autograd functions save). */
enum rb_nn_map_op {
  RB_NN_EXP = 0, RB_NN_LOG, RB_NN_SIN, RB_NN_COS, RB_NN_TANH, RB_NN_ERF, RB_NN_RSQRT,
  RB_NN_SIGMOID, RB_NN_SILU, RB_NN_GELU, RB_NN_GELU_TANH,
  RB_NN_EXP_B, RB_NN_LOG_B, RB_NN_SIN_B, RB_NN_COS_B, RB_NN_TANH_B, RB_NN_ERF_B,
  RB_NN_RSQRT_B, RB_NN_SIGMOID_B, RB_NN_SILU_B, RB_NN_GELU_B, RB_NN_GELU_TANH_B,
  RB_NN_MAP_OPS
};
int rb_nn_map(int op, const rb_context *cfg, const float *x, const float *g, float *out,
              int64_t n);

/* Row ops over the last axis of a C-ordered (rows, n) array, n >= 1, each row's
 * sums in `order` (level1.h):
 *   SOFTMAX      out = e ⊘ Σ e, e = exp(x ⊖ m), m = max x ⊕ 0
 *   LOG_SOFTMAX  out = z ⊖ log(Σ exp(z)), z = x ⊖ m
 *   SOFTMAX_B    out = y ⊗ (g ⊖ Σ (g ⊗ y))        (x: the forward's y)
 *   LOG_SOFTMAX_B out = g ⊖ (exp(y) ⊗ Σ g)         (x: the forward's y)
 *   LOGSUMEXP    out[row] = log(Σ exp(x ⊖ m)) ⊕ m, m = max x, +0 where it is ±inf
 *   LOGSUMEXP_B  out = g[row] ⊗ exp(x ⊖ r[row])   (r: aux, the forward's result)
 * (g and aux, where read, hold one value per row for the LOGSUMEXP ops.) */
enum rb_nn_row_op { RB_NN_SOFTMAX = 0, RB_NN_LOG_SOFTMAX, RB_NN_SOFTMAX_B, RB_NN_LOG_SOFTMAX_B,
                    RB_NN_LOGSUMEXP, RB_NN_LOGSUMEXP_B, RB_NN_ROW_OPS };
int rb_nn_rows(int op, int order, const rb_context *cfg, const float *x, const float *g,
               const float *aux, float *out, int64_t rows, int64_t n);

/* Attention's softmax over the rows of the scores x (rows, n): t = x ⊗ c where the mask's
 * byte is not 0 and −inf where it is (mask: one byte per element of x, C-ordered; NULL:
 * none masked), out = SOFTMAX of t; c is rounded once to float32 (in the library's
 * environment). Its backward (backward != 0; x: the forward's out, g: the incoming
 * gradient): out = (SOFTMAX_B where the byte is not 0, +0 where it is) ⊗ c. */
int rb_nn_attention_softmax(int backward, int order, const rb_context *cfg, const float *x,
                            const float *g, const unsigned char *mask, double c, float *out,
                            int64_t rows, int64_t n);

/* Cross entropy of the logits x (rows, n) against class indices t (one per row; a row whose
 * index is `ignore` counts for nothing): lp = LOG_SOFTMAX of each row, loss[i] = −lp[i, t_i]
 * (+0 for an ignored row); reduction 1 (sum) or 2 (mean): *total = the loss's rb_sum in
 * `order`, for the mean ⊘ *valid, the rows not ignored (a float). Returns -4 before writing
 * anything where an index other than `ignore` lies outside [0, n) (*bad: the first one). */
int rb_nn_cross_entropy(int order, const rb_context *cfg, const float *x, const int64_t *t,
                        int64_t ignore, int reduction, float *lp, float *loss, float *total,
                        int64_t rows, int64_t n, int64_t *valid, int64_t *bad);

/* Its first-order backward from lp for the loss gradient g[i * gs] of row i (gs 0: one value
 * for all rows), ⊘ div where div != 0 (the mean's count): dlp = +0 but
 * dlp[i, t_i] = +0 ⊕ −(g ⊘ div) (an ignored row: all +0), dx = LOG_SOFTMAX_B(lp, dlp). */
int rb_nn_cross_entropy_backward(int order, const rb_context *cfg, const float *lp,
                                 const int64_t *t, int64_t ignore, const float *g, int64_t gs,
                                 double div, float *dx, int64_t rows, int64_t n);

/* Normalisations over the last n elements of each row (docs/contract.md §5.7):
 * layer_norm (rms = 0): mu = Σ x ⊘ n, d = x ⊖ mu, r = rsqrt((Σ (d ⊗ d) ⊘ n) ⊕ eps),
 * y = d ⊗ r, then ⊗ w, ⊕ b where given (NULL: absent; eps rounded once to float32,
 * in the library's environment); rms_norm (rms = 1):
 * r = rsqrt((Σ (x ⊗ x) ⊘ n) ⊕ eps), y = x ⊗ r, then ⊗ w. stats (NULL, or
 * 3 floats per row) receives (mu, r, Σ (d ⊗ d)) (rms_norm: (+0, r, Σ (x ⊗ x))). */
int rb_nn_norm(int rms, int order, const rb_context *cfg, const float *x, const float *w,
               const float *b, double eps, float *y, float *stats, int64_t rows, int64_t n);

/* Their first-order backward, as PyTorch's autograd computes it over the graph above, for the
 * incoming gradient g and the forward's stats: dx, and where gw is not NULL the rows of
 * g ⊗ y0 (y0 = d ⊗ r, or x ⊗ r; the weight's gradient is their ordered sum over the rows).
 * layer_norm: gy = g ⊗ w (g without w), gr = Σ (gy ⊗ d),
 * gq = (gr ⊗ (((r ⊗ r) ⊗ r) ⊗ −0.5)) ⊘ n, gd = ((gy ⊗ r) ⊕ (gq ⊗ d)) ⊕ (gq ⊗ d),
 * dx = gd ⊕ (Σ (−gd) ⊘ n); rms_norm: the same with x for d, and dx = gd. */
int rb_nn_norm_backward(int rms, int order, const rb_context *cfg, const float *x,
                        const float *w, const float *g, const float *stats, float *dx,
                        float *gw, int64_t rows, int64_t n);

/* Training batch norm of x (planes, channels, plane), C-ordered, plane >= 1: channel c's
 * row is x[p, c, q] in C order of (p, q), n = planes·plane values, normalised as layer_norm
 * above (stats per channel), then ⊗ w[c] and ⊕ b[c] where given (NULL: absent). */
int rb_nn_batch_norm(int order, const rb_context *cfg, const float *x, const float *w,
                     const float *b, double eps, float *y, float *stats, int64_t planes,
                     int64_t channels, int64_t plane);

/* Its first-order backward for the incoming g (x's shape) and the forward's stats: dx, and
 * where not NULL dw[c] = Σ (g ⊗ y0) and db[c] = Σ g over channel c's row (y0 = d ⊗ r);
 * the layer_norm backward above runs on gy = g ⊗ w[c] (g where w is NULL), w absent. */
int rb_nn_batch_norm_backward(int order, const rb_context *cfg, const float *x, const float *w,
                              const float *g, const float *stats, float *dx, float *dw,
                              float *db, int64_t planes, int64_t channels, int64_t plane);

/* Training batch norm's running statistics, in place (rm or rv NULL: not updated), from
 * the forward's mu and s = Σ (d ⊗ d) per channel, the doubles rounded to float32 once:
 * rm = (rm ⊗ keep) ⊕ (mu ⊗ momentum), rv = (rv ⊗ keep) ⊕ ((s ⊘ nm1) ⊗ momentum). */
int rb_nn_batch_norm_running(const rb_context *cfg, const float *mu, const float *s,
                             int64_t channels, double keep, double momentum, double nm1,
                             float *rm, float *rv);

/* Batch norm in evaluation (x as rb_nn_batch_norm's): r = rsqrt(rv[c] ⊕ eps), then
 * y = ((x ⊖ rm[c]) ⊗ r) ⊗ w[c] ⊕ b[c] (w, b NULL: absent), each element on its own. */
int rb_nn_batch_norm_eval(const rb_context *cfg, const float *x, const float *rm, const float *rv,
                          const float *w, const float *b, double eps, float *y, int64_t planes,
                          int64_t channels, int64_t plane);

/* One optimizer step over n float32 elements, in place (docs/contract.md §5.7
 * "Optimizers"); the scalars arrive rounded to float32, as where they meet a tensor.
 * SGD: g = grad (−grad with maximize), g ⊕ (p ⊗ wd) (has_wd); with momentum (buf not NULL)
 * buf = g (first) or (buf ⊗ mu) ⊕ (g ⊗ damp1) (g alone without has_damp), then
 * g = g ⊕ (buf ⊗ mu) (nesterov) or buf; p = p ⊖ (g ⊗ lr). */
typedef struct {
  float lr, wd, mu, damp1;
  int maximize, has_wd, nesterov, first, has_damp;
} rb_nn_sgd_args;
int rb_nn_sgd(const rb_context *cfg, const rb_nn_sgd_args *args, float *p, const float *grad,
              float *buf, int64_t n);

/* Adam: g as SGD's; has_wd: p = p ⊗ decay (decoupled, AdamW) or g = g ⊕ (p ⊗ wd);
 * m = (m ⊗ b1) ⊕ (g ⊗ one_b1), v = (v ⊗ b2) ⊕ ((g ⊗ g) ⊗ one_b2),
 * p = p ⊖ ((m ⊘ ((sqrt(v) ⊘ c2) ⊕ eps)) ⊗ s). */
typedef struct {
  float decay, wd, b1, one_b1, b2, one_b2, c2, eps, s;
  int maximize, decoupled, has_wd;
} rb_nn_adam_args;
int rb_nn_adam(const rb_context *cfg, const rb_nn_adam_args *args, float *p, const float *grad,
               float *m, float *v, int64_t n);

#endif /* RB_NN_H */
