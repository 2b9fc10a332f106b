/* Drivers of the fused deep-learning ops (nn.h): checks, the library's
 * floating-point environment, the split over threads (elements in whole
 * chunks, or whole rows) and the per-path kernels (nn_kernels.h). Each row's
 * ordered sums are rb_sum on that row, single-threaded: the bits of the 1-D
 * call (docs/contract.md §4.1 axis=). */
#include "nn.h"

#include <stdlib.h>
#include <string.h>

#include "../../common/fp_env.h"
#include "../../common/isa.h"
#include "crlibm_core.h"
#include "level1.h"
#include "nn_kernels.h"
#include "partition.h"
#include "thread.h"

#if defined(__x86_64__)
static const rb_nn_kernels *const tables[CR_ISA_COUNT] = {&rb_nn_scalar, &rb_nn_avx2,
                                                          &rb_nn_avx512};
#else
static const rb_nn_kernels *const tables[CR_ISA_COUNT] = {&rb_nn_scalar, NULL, NULL};
#endif

static int nn_setup(const rb_context *cfg, rb_nn_cr *cr) {
  if (cfg == NULL || cfg->isa < 0 || cfg->isa >= CR_ISA_COUNT || tables[cfg->isa] == NULL ||
      !cr_isa_supported(cfg->isa))
    return -1;
  cr->exp = cr_kernel(CR_FN_ID_exp, cfg->isa);
  cr->log = cr_kernel(CR_FN_ID_log, cfg->isa);
  cr->sin = cr_kernel(CR_FN_ID_sin, cfg->isa);
  cr->cos = cr_kernel(CR_FN_ID_cos, cfg->isa);
  cr->tanh = cr_kernel(CR_FN_ID_tanh, cfg->isa);
  cr->erf = cr_kernel(CR_FN_ID_erf, cfg->isa);
  cr->rsqrt = cr_kernel(CR_FN_ID_rsqrt, cfg->isa);
  return cr->exp && cr->log && cr->sin && cr->cos && cr->tanh && cr->erf && cr->rsqrt ? 0 : -1;
}

/* Work below which fewer threads are used: the level-1 threshold, over 8 (a
 * crlibm function costs some tens of additions per element). */
static int64_t nn_min_work(const rb_context *cx) {
  return cx->min_per_thread / 8 > 0 ? cx->min_per_thread / 8 : 1;
}

/* ---- elementwise ---- */
typedef struct {
  const rb_nn_kernels *k;
  rb_nn_cr cr;
  int op;
  const float *x, *g;
  float *out;
  int64_t n;
} map_job;

static void map_part(void *ctx, int part, int parts) {
  const map_job *j = ctx;
  const rb_share sh = rb_part_share(j->n, RB_NN_CHUNK, part, parts);
  for (int64_t i = sh.lo; i < sh.hi; i += RB_NN_CHUNK) {
    const int64_t m = sh.hi - i < RB_NN_CHUNK ? sh.hi - i : RB_NN_CHUNK;
    if (m == RB_NN_CHUNK) {
      j->k->chunk(j->op, &j->cr, j->x + i, j->g ? j->g + i : NULL, j->out + i);
    } else { /* the tail through the same chunk code, zero-padded */
      float bx[RB_NN_CHUNK] = {0}, bg[RB_NN_CHUNK] = {0}, bo[RB_NN_CHUNK];
      memcpy(bx, j->x + i, (size_t)m * sizeof(float));
      if (j->g) memcpy(bg, j->g + i, (size_t)m * sizeof(float));
      j->k->chunk(j->op, &j->cr, bx, bg, bo);
      memcpy(j->out + i, bo, (size_t)m * sizeof(float));
    }
  }
}

int rb_nn_map(int op, const rb_context *cfg, const float *x, const float *g, float *out,
              int64_t n) {
  map_job job;
  if (op < 0 || op >= RB_NN_MAP_OPS || n < 0 || nn_setup(cfg, &job.cr) != 0) return -1;
  if (op >= RB_NN_EXP_B && g == NULL) return -1;
  if (n == 0) return 0;
  rb_context tmp;
  const rb_context *cx = rb_context_use(cfg, &tmp);
  job.k = tables[cfg->isa];
  job.op = op;
  job.x = x;
  job.g = op >= RB_NN_EXP_B ? g : NULL;
  job.out = out;
  job.n = n;
  const int parts = rb_part_count(n, nn_min_work(cx), cx->threads,
                                  (n + RB_NN_CHUNK - 1) / RB_NN_CHUNK);
  cr_fenv_t saved = cr_fenv_enter();
  rb_parallel(parts, map_part, &job);
  cr_fenv_leave(saved);
  return 0;
}

/* ---- rows ---- */
typedef struct {
  const rb_nn_kernels *k;
  rb_nn_cr cr;
  rb_context one; /* the call's context on one thread: each row's sums */
  int op, order, rms;
  const float *x, *g, *w, *b;
  float eps;
  float *gw; /* norm backward: the rows of g ⊗ y0, or NULL */
  float *out, *stats;
  int64_t rows, n;
  int status[RB_MAX_PARTS];
} rows_job;

/* The ordered sum of v[0 .. n) (n >= 1): the 1-D call's bits. */
static float row_sum(const rows_job *j, const float *v) {
  float s = 0;
  rb_sum(RB_F32, j->order, &j->one, v, j->n, &s);
  return s;
}

static void softmax_row(const rows_job *j, const float *x, const float *g, float *out,
                        float *buf) {
  const rb_nn_kernels *k = j->k;
  const int64_t n = j->n;
  switch (j->op) {
    case RB_NN_SOFTMAX: {
      const float m = k->max(x, n) + 0.0f; /* a −0 maximum becomes +0 */
      k->sub_s(x, m, out, n);
      j->cr.exp(out, out, (size_t)n);
      k->div_s(out, row_sum(j, out), out, n);
      return;
    }
    case RB_NN_LOG_SOFTMAX: {
      const float m = k->max(x, n) + 0.0f;
      k->sub_s(x, m, out, n);
      j->cr.exp(out, buf, (size_t)n);
      float s = row_sum(j, buf), l;
      j->cr.log(&s, &l, 1);
      k->sub_s(out, l, out, n);
      return;
    }
    case RB_NN_SOFTMAX_B:
      k->mul(g, x, buf, n);
      k->softmax_b(x, g, row_sum(j, buf), out, n);
      return;
    case RB_NN_LOG_SOFTMAX_B: {
      const float s = row_sum(j, g);
      j->cr.exp(x, buf, (size_t)n);
      k->log_softmax_b(buf, g, s, out, n);
      return;
    }
    default: return;
  }
}

static void norm_row(const rows_job *j, const float *x, float *y, float *stats, float *buf) {
  const rb_nn_kernels *k = j->k;
  const float nf = (float)j->n;
  float mu = 0.0f, v, r;
  const float *d = x;
  if (!j->rms) {
    mu = row_sum(j, x) / nf;
    j->k->sub_s(x, mu, y, j->n);
    d = y;
  }
  k->mul(d, d, buf, j->n);
  v = row_sum(j, buf) / nf + j->eps;
  j->cr.rsqrt(&v, &r, 1);
  k->scale_affine(d, r, j->w, j->rms ? NULL : j->b, y, j->n);
  if (stats) {
    stats[0] = mu;
    stats[1] = r;
  }
}

/* The norms' backward (nn.h), one row; buf holds 2n floats. Plain loops: each statement
 * one IEEE operation per element, rounded as the lanes round. */
static void norm_row_b(const rows_job *j, int64_t row, float *buf) {
  const int64_t n = j->n, o = row * n;
  const float *x = j->x + o, *g = j->g + o, *w = j->w;
  const float nf = (float)n, mu = j->stats[2 * row], r = j->stats[2 * row + 1];
  float *dx = j->out + o, *d = buf, *gy = buf + n;
  for (int64_t i = 0; i < n; ++i) d[i] = j->rms ? x[i] : x[i] - mu;
  for (int64_t i = 0; i < n; ++i) gy[i] = w ? g[i] * w[i] : g[i];
  if (j->gw)
    for (int64_t i = 0; i < n; ++i) j->gw[o + i] = g[i] * (d[i] * r);
  for (int64_t i = 0; i < n; ++i) dx[i] = gy[i] * d[i];
  const float gr = row_sum(j, dx);
  const float gq = (gr * (((r * r) * r) * -0.5f)) / nf;
  for (int64_t i = 0; i < n; ++i) {
    const float p = gq * d[i];
    dx[i] = ((gy[i] * r) + p) + p;
  }
  if (j->rms) return;
  for (int64_t i = 0; i < n; ++i) gy[i] = -dx[i];
  const float gm = row_sum(j, gy) / nf;
  for (int64_t i = 0; i < n; ++i) dx[i] = dx[i] + gm;
}

static void rows_part(void *ctx, int part, int parts) {
  rows_job *j = ctx;
  const rb_share sh = rb_part_share(j->rows, 1, part, parts);
  if (sh.lo >= sh.hi) return;
  float *buf = malloc((size_t)j->n * 2 * sizeof(float));
  if (buf == NULL) {
    j->status[part] = -2;
    return;
  }
  for (int64_t r = sh.lo; r < sh.hi; ++r) {
    const int64_t o = r * j->n;
    if (j->op == -2)
      norm_row_b(j, r, buf);
    else if (j->op < 0)
      norm_row(j, j->x + o, j->out + o, j->stats ? j->stats + 2 * r : NULL, buf);
    else
      softmax_row(j, j->x + o, j->g ? j->g + o : NULL, j->out + o, buf);
  }
  free(buf);
}

static int rows_run(rows_job *j, const rb_context *cfg, int64_t work) {
  if (j->order != RB_SEQUENTIAL && j->order != RB_PAIRWISE && j->order != RB_KAHAN &&
      j->order != RB_EXACT)
    return -1;
  if (j->rows < 0 || j->n < 1 || nn_setup(cfg, &j->cr) != 0) return -1;
  if (j->rows == 0) return 0;
  rb_context tmp;
  const rb_context *cx = rb_context_use(cfg, &tmp);
  j->k = tables[cfg->isa];
  j->one = *cx;
  j->one.threads = 1;
  const int parts = rb_part_count(work, nn_min_work(cx), cx->threads, j->rows);
  for (int p = 0; p < parts; ++p) j->status[p] = 0;
  cr_fenv_t saved = cr_fenv_enter();
  rb_parallel(parts, rows_part, j);
  cr_fenv_leave(saved);
  for (int p = 0; p < parts; ++p)
    if (j->status[p] != 0) return j->status[p];
  return 0;
}

int rb_nn_rows(int op, int order, const rb_context *cfg, const float *x, const float *g,
               float *out, int64_t rows, int64_t n) {
  if (op < 0 || op >= RB_NN_ROW_OPS) return -1;
  if ((op == RB_NN_SOFTMAX_B || op == RB_NN_LOG_SOFTMAX_B) && g == NULL) return -1;
  rows_job *j = calloc(1, sizeof *j);
  if (j == NULL) return -2;
  j->op = op;
  j->order = order;
  j->x = x;
  j->g = g;
  j->out = out;
  j->rows = rows;
  j->n = n;
  const int rc = rows_run(j, cfg, rows * n);
  free(j);
  return rc;
}

int rb_nn_norm(int rms, int order, const rb_context *cfg, const float *x, const float *w,
               const float *b, double eps, float *y, float *stats, int64_t rows, int64_t n) {
  rows_job *j = calloc(1, sizeof *j);
  if (j == NULL) return -2;
  j->op = -1;
  j->rms = rms != 0;
  j->order = order;
  j->x = x;
  j->w = w;
  j->b = b;
  j->out = y;
  j->stats = stats;
  j->rows = rows;
  j->n = n;
  cr_fenv_t saved = cr_fenv_enter();
  j->eps = (float)eps; /* rounded in the library's environment (docs/contract.md §0.3) */
  cr_fenv_leave(saved);
  const int rc = rows_run(j, cfg, rows * n);
  free(j);
  return rc;
}

int rb_nn_norm_backward(int rms, int order, const rb_context *cfg, const float *x,
                        const float *w, const float *g, const float *stats, float *dx,
                        float *gw, int64_t rows, int64_t n) {
  if (x == NULL || g == NULL || stats == NULL || dx == NULL) return -1;
  rows_job *j = calloc(1, sizeof *j);
  if (j == NULL) return -2;
  j->op = -2;
  j->rms = rms != 0;
  j->order = order;
  j->x = x;
  j->w = w;
  j->g = g;
  j->stats = (float *)stats; /* read only here */
  j->out = dx;
  j->gw = gw;
  j->rows = rows;
  j->n = n;
  const int rc = rows_run(j, cfg, rows * n);
  free(j);
  return rc;
}
