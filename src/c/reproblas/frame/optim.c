/* The optimizers' per-element steps (nn.h; docs/contract.md §5.7 "Optimizers"), float32,
 * in place, in the library's floating-point environment. Each element is the written
 * sequence of roundings, one IEEE operation each (no fma), so any split over threads and
 * any vectorisation the compiler makes of these loops gives the same bits. */
#include <math.h>

#include "../../common/fp_env.h"
#include "nn.h"
#include "partition.h"
#include "thread.h"

/* Elements per work item: a cache-friendly piece of each operand. */
enum { OPTIM_PIECE = 4096 };

typedef struct {
  const rb_nn_sgd_args *sgd;
  const rb_nn_adam_args *adam;
  float *p, *buf, *m, *v;
  const float *grad;
  int64_t n;
} optim_job;

static void sgd_range(const optim_job *j, int64_t lo, int64_t hi) {
  const rb_nn_sgd_args *a = j->sgd;
  float *restrict p = j->p, *restrict buf = j->buf;
  const float *restrict grad = j->grad;
  for (int64_t i = lo; i < hi; ++i) {
    float g = a->maximize ? -grad[i] : grad[i];
    if (a->has_wd) g = g + p[i] * a->wd;
    if (buf) {
      if (a->first)
        buf[i] = g;
      else
        buf[i] = buf[i] * a->mu + (a->has_damp ? g * a->damp1 : g);
      g = a->nesterov ? g + buf[i] * a->mu : buf[i];
    }
    p[i] = p[i] - g * a->lr;
  }
}

static void adam_range(const optim_job *j, int64_t lo, int64_t hi) {
  const rb_nn_adam_args *a = j->adam;
  float *restrict p = j->p, *restrict m = j->m, *restrict v = j->v;
  const float *restrict grad = j->grad;
  for (int64_t i = lo; i < hi; ++i) {
    float g = a->maximize ? -grad[i] : grad[i];
    if (a->has_wd) {
      if (a->decoupled)
        p[i] = p[i] * a->decay;
      else
        g = g + p[i] * a->wd;
    }
    m[i] = m[i] * a->b1 + g * a->one_b1;
    v[i] = v[i] * a->b2 + (g * g) * a->one_b2;
    const float denom = sqrtf(v[i]) / a->c2 + a->eps;
    p[i] = p[i] - (m[i] / denom) * a->s;
  }
}

static void optim_part(void *ctx, int part, int parts) {
  const optim_job *j = ctx;
  const rb_share sh = rb_part_share(j->n, OPTIM_PIECE, part, parts);
  for (int64_t i = sh.lo; i < sh.hi; i += OPTIM_PIECE) { /* no stop: a step is whole */
    const int64_t hi = sh.hi - i < OPTIM_PIECE ? sh.hi : i + OPTIM_PIECE;
    if (j->sgd)
      sgd_range(j, i, hi);
    else
      adam_range(j, i, hi);
  }
}

static int optim_run(optim_job *j, const rb_context *cfg) {
  if (cfg == NULL || j->n < 0 || j->p == NULL || j->grad == NULL) return -1;
  if (j->n == 0) return 0;
  rb_context tmp;
  const rb_context *cx = rb_context_use(cfg, &tmp);
  const int parts = rb_part_count(j->n, cx->min_per_thread, cx->threads,
                                  (j->n + OPTIM_PIECE - 1) / OPTIM_PIECE);
  cr_fenv_t saved = cr_fenv_enter();
  rb_parallel(parts, optim_part, j);
  cr_fenv_leave(saved);
  return 0;
}

int rb_nn_sgd(const rb_context *cfg, const rb_nn_sgd_args *args, float *p, const float *grad,
              float *buf, int64_t n) {
  if (args == NULL) return -1;
  optim_job j = {.sgd = args, .p = p, .buf = buf, .grad = grad, .n = n};
  return optim_run(&j, cfg);
}

int rb_nn_adam(const rb_context *cfg, const rb_nn_adam_args *args, float *p, const float *grad,
               float *m, float *v, int64_t n) {
  if (args == NULL || m == NULL || v == NULL) return -1;
  optim_job j = {.adam = args, .p = p, .m = m, .v = v, .grad = grad, .n = n};
  return optim_run(&j, cfg);
}
