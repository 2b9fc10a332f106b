/* Drivers of the fused deep-learning ops (nn.h): checks, the library's
 * floating-point environment, the split over threads (elements in whole
 * chunks, or whole rows) and the per-path kernels (nn_kernels.h). Each row's
 * ordered sums have the bits of rb_sum on that row (docs/contract.md §4.1
 * axis=): see the rows section. */
#include "nn.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/fp_env.h"
#include "../../common/isa.h"
#include "crlibm_core.h"
#include "level1.h"
#include "level3.h"
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
  for (int f = 0; f < CR_FUNCTION_COUNT; ++f) {
    cr->f[f] = cr_kernel(f, cfg->isa);
    if (cr->f[f] == NULL) return -1;
  }
  return 0;
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

/* ---- rows ----
 * A part takes its rows in blocks of up to `block` rows. The ordered sums of a block's rows
 * are one rb_gemm with n = 1 against a vector of ones (single-threaded): row i's sum is
 * that of its terms t·1 = t (exact products), which are rb_sum's bits on that row
 * (docs/contract.md §2), and the gemv kernel runs the chains of several rows at once. */
/* The row ops of rows_job beyond rb_nn_row_op (op >= 0). */
enum { RB_NN_OP_NORM = -1, RB_NN_OP_NORM_B = -2, RB_NN_OP_BN = -3, RB_NN_OP_BN_B = -4,
       RB_NN_OP_ATT = -5, RB_NN_OP_ATT_B = -6 };

typedef struct {
  const rb_nn_kernels *k;
  rb_nn_cr cr;
  rb_context one; /* the call's context on one thread: the rows' sums */
  int op, order, rms;
  const float *x, *g, *w, *b, *aux;
  float eps;
  float *out, *stats;
  float *gw; /* norm backward: the rows of g ⊗ y0, or NULL */
  const float *rw, *rb; /* batch norm: the weight and bias per row (channel), or NULL */
  float *dw, *db;       /* batch norm backward: their gradients, or NULL */
  float scale;                /* attention softmax: the scores' factor */
  const unsigned char *mask;  /* attention softmax: one byte per element, or NULL */
  int64_t planes, channels, plane; /* batch norm: x is (planes, channels, plane) */
  const float *ones;
  int64_t rows, n, block;
  int status[RB_MAX_PARTS];
} rows_job;

/* s[i] = the ordered sum of row i of v (c rows of n, row stride n). */
static int block_sums(const rows_job *j, const float *v, int64_t c, float *s) {
  const float one = 1.0f, zero = 0.0f;
  return rb_gemm(RB_F32, j->order, &j->one, RB_FULL, c, 1, j->n, &one, v, j->n, 1, j->ones, 1,
                 1, &zero, s, 1, 1);
}

/* The block of c rows at row r0; buf holds block * n floats, s and t block floats each. */
static int softmax_block(const rows_job *j, int64_t r0, int64_t c, float *buf, float *s,
                         float *t) {
  const rb_nn_kernels *k = j->k;
  const int64_t n = j->n, o = r0 * n;
  const float *x = j->x + o;
  const float *g = j->g && j->op < RB_NN_LOGSUMEXP ? j->g + o : NULL;
  float *out = j->op == RB_NN_LOGSUMEXP ? j->out + r0 : j->out + o;
  int rc = 0;
  switch (j->op) {
    case RB_NN_SOFTMAX:
    case RB_NN_OP_ATT:
      for (int64_t i = 0; i < c; ++i) {
        const float *xi = x + i * n;
        if (j->op == RB_NN_OP_ATT) { /* t = x ⊗ c, −inf where masked, into out */
          if (j->mask) k->scale_mask(xi, j->scale, j->mask + o + i * n, out + i * n, n);
          else k->scale_affine(xi, j->scale, NULL, NULL, out + i * n, n);
          xi = out + i * n;
        }
        const float m = k->max(xi, n) + 0.0f; /* a −0 maximum becomes +0 */
        k->sub_s(xi, m, out + i * n, n);
      }
      j->cr.f[CR_FN_ID_exp](out, out, (size_t)(c * n));
      rc = block_sums(j, out, c, s);
      for (int64_t i = 0; i < c; ++i) k->div_s(out + i * n, s[i], out + i * n, n);
      return rc;
    case RB_NN_LOG_SOFTMAX:
      for (int64_t i = 0; i < c; ++i) {
        const float m = k->max(x + i * n, n) + 0.0f;
        k->sub_s(x + i * n, m, out + i * n, n);
      }
      j->cr.f[CR_FN_ID_exp](out, buf, (size_t)(c * n));
      rc = block_sums(j, buf, c, s);
      j->cr.f[CR_FN_ID_log](s, t, (size_t)c);
      for (int64_t i = 0; i < c; ++i) k->sub_s(out + i * n, t[i], out + i * n, n);
      return rc;
    case RB_NN_SOFTMAX_B: /* x: the forward's y */
    case RB_NN_OP_ATT_B:
      k->mul(g, x, buf, c * n);
      rc = block_sums(j, buf, c, s);
      for (int64_t i = 0; i < c; ++i) {
        float *oi = out + i * n;
        k->softmax_b(x + i * n, g + i * n, s[i], oi, n);
        if (j->op != RB_NN_OP_ATT_B) continue; /* then +0 where masked, ⊗ c */
        if (j->mask) k->mask_scale(oi, j->mask + o + i * n, j->scale, oi, n);
        else k->scale_affine(oi, j->scale, NULL, NULL, oi, n);
      }
      return rc;
    case RB_NN_LOG_SOFTMAX_B:
      rc = block_sums(j, g, c, s);
      j->cr.f[CR_FN_ID_exp](x, buf, (size_t)(c * n));
      for (int64_t i = 0; i < c; ++i)
        k->log_softmax_b(buf + i * n, g + i * n, s[i], out + i * n, n);
      return rc;
    case RB_NN_LOGSUMEXP:
      for (int64_t i = 0; i < c; ++i) {
        float m = k->max(x + i * n, n);
        if (m == (float)INFINITY || m == -(float)INFINITY) m = 0.0f; /* as PyTorch */
        t[i] = m;
        k->sub_s(x + i * n, m, buf + i * n, n);
      }
      j->cr.f[CR_FN_ID_exp](buf, buf, (size_t)(c * n));
      rc = block_sums(j, buf, c, s);
      j->cr.f[CR_FN_ID_log](s, s, (size_t)c);
      for (int64_t i = 0; i < c; ++i) out[i] = s[i] + t[i];
      return rc;
    case RB_NN_LOGSUMEXP_B: /* g ⊗ e, written e ⊗ g (one product, commutative) */
      for (int64_t i = 0; i < c; ++i) k->sub_s(x + i * n, j->aux[r0 + i], buf + i * n, n);
      j->cr.f[CR_FN_ID_exp](buf, buf, (size_t)(c * n));
      for (int64_t i = 0; i < c; ++i)
        k->scale_affine(buf + i * n, j->g[r0 + i], NULL, NULL, out + i * n, n);
      return rc;
    default: return -1;
  }
}

/* The statistics of the norm of c contiguous rows x (nn.h): layer_norm's mu in s and
 * d = x ⊖ mu written to dbuf (which may be x), r in t, and srow (NULL, or 3 floats per row)
 * = (mu, r, Σ (d ⊗ d)) ((+0, r, Σ (x ⊗ x)) for rms_norm). *d (d not NULL): d's rows (x for
 * rms_norm). */
static int norm_stats(const rows_job *j, const float *x, float *dbuf, float *srow, int64_t c,
                      float *buf, float *s, float *t, const float **d) {
  const rb_nn_kernels *k = j->k;
  const int64_t n = j->n;
  const float nf = (float)n;
  int rc = 0;
  const float *dd = x;
  if (!j->rms) {
    rc |= block_sums(j, x, c, s);
    for (int64_t i = 0; i < c; ++i) {
      s[i] = s[i] / nf; /* mu */
      k->sub_s(x + i * n, s[i], dbuf + i * n, n);
    }
    dd = dbuf;
  }
  if (d) *d = dd;
  k->mul(dd, dd, buf, c * n);
  rc |= block_sums(j, buf, c, t);
  for (int64_t i = 0; i < c; ++i) {
    if (srow) srow[3 * i + 2] = t[i];
    t[i] = t[i] / nf + j->eps;
  }
  j->cr.f[CR_FN_ID_rsqrt](t, t, (size_t)c);
  if (srow)
    for (int64_t i = 0; i < c; ++i) {
      srow[3 * i] = j->rms ? 0.0f : s[i];
      srow[3 * i + 1] = t[i];
    }
  return rc;
}

/* The norm of c contiguous rows x into y (y may not alias x), stats at srow (3 per row). */
static int norm_rows(const rows_job *j, const float *x, float *y, float *srow, int64_t c,
                     float *buf, float *s, float *t) {
  const float *d;
  const int rc = norm_stats(j, x, y, srow, c, buf, s, t, &d);
  for (int64_t i = 0; i < c; ++i)
    j->k->scale_affine(d + i * j->n, t[i], j->w, j->rms ? NULL : j->b, y + i * j->n, j->n);
  return rc;
}

static int norm_block(const rows_job *j, int64_t r0, int64_t c, float *buf, float *s,
                      float *t) {
  const int64_t o = r0 * j->n;
  return norm_rows(j, j->x + o, j->out + o, j->stats ? j->stats + 3 * r0 : NULL, c, buf, s, t);
}

/* The weight row of row i: the norms' j->w (one for every row), or batch norm's channel
 * scalar j->rw[bn_ch0 + i] spread over wrow (n floats; NULL where there is no weight). */
static const float *row_weight(const rows_job *j, int64_t bn_ch0, int64_t i, float *wrow) {
  if (bn_ch0 < 0 || j->rw == NULL) return bn_ch0 < 0 ? j->w : NULL;
  const float w = j->rw[bn_ch0 + i];
  const int64_t n = j->n, first = n < 16 ? n : 16;
  for (int64_t q = 0; q < first; ++q) wrow[q] = w;
  for (int64_t have = first; have < n; have *= 2) /* doubling copies: a few memcpy calls */
    memcpy(wrow + have, wrow, (size_t)(have < n - have ? have : n - have) * sizeof(float));
  return wrow;
}

/* The norms' backward (nn.h) of c contiguous rows: x, g, their stats at srow, into dx (scratch
 * buf); d and gy are recomputed where needed (the same bits). gw: rows of g ⊗ y0, or NULL;
 * gw_sums: their sums, or NULL (gw may then share dx's memory). bn_ch0 >= 0: the rows are
 * batch norm's channels from bn_ch0 (weights from j->rw through wrow), and the last step
 * writes them to j->out in NCHW, run by run (dx then only holds gd). */
static int norm_rows_b(const rows_job *j, const float *x, const float *g, const float *srow,
                       float *dx, float *gw, float *gw_sums, int64_t c, float *buf, float *s,
                       float *t, int64_t bn_ch0, float *wrow) {
  const rb_nn_kernels *k = j->k;
  const int64_t n = j->n;
  const float nf = (float)n;
  int rc = 0;
  for (int64_t i = 0; i < c; ++i) {
    const int64_t o = i * n;
    k->norm_b1(x + o, g + o, row_weight(j, bn_ch0, i, wrow), srow[3 * i], srow[3 * i + 1],
               j->rms, buf + o, gw ? gw + o : NULL, n);
  }
  rc |= block_sums(j, buf, c, s); /* gr */
  if (gw_sums) rc |= block_sums(j, gw, c, gw_sums);
  for (int64_t i = 0; i < c; ++i) {
    const int64_t o = i * n;
    const float r = srow[3 * i + 1];
    const float gq = (s[i] * (((r * r) * r) * -0.5f)) / nf;
    k->norm_b2(x + o, g + o, row_weight(j, bn_ch0, i, wrow), srow[3 * i], r, gq, j->rms,
               dx + o, buf + o, n);
  }
  if (j->rms) return rc;
  rc |= block_sums(j, buf, c, t); /* Σ (−gd) */
  for (int64_t i = 0; i < c; ++i) { /* dx ⊕ gm, written dx ⊖ (−gm): the same operation */
    const float ngm = -(t[i] / nf);
    if (bn_ch0 < 0) {
      k->sub_s(dx + i * n, ngm, dx + i * n, n);
      continue;
    }
    for (int64_t p = 0; p < j->planes; ++p)
      k->sub_s(dx + i * n + p * j->plane, ngm,
               j->out + (p * j->channels + bn_ch0 + i) * j->plane, j->plane);
  }
  return rc;
}

static int norm_block_b(const rows_job *j, int64_t r0, int64_t c, float *buf, float *s,
                        float *t) {
  const int64_t o = r0 * j->n;
  return norm_rows_b(j, j->x + o, j->g + o, j->stats + 3 * r0, j->out + o, j->gw ? j->gw + o : NULL,
                     NULL, c, buf, s, t, -1, NULL);
}

/* ---- batch norm: the rows are the channels of (planes, C, plane) ----
 * Channel ch's row is x[p, ch, q] in C order of (p, q), gathered into a contiguous block,
 * so every sum has the bits of rb_sum on that row; results go back run by run. */
static void bn_gather(const rows_job *j, const float *src, int64_t ch0, int64_t c, float *dst) {
  for (int64_t i = 0; i < c; ++i)
    for (int64_t p = 0; p < j->planes; ++p)
      memcpy(dst + i * j->n + p * j->plane, src + (p * j->channels + ch0 + i) * j->plane,
             (size_t)j->plane * sizeof(float));
}

/* Forward: layer_norm of each channel's row (w, b absent), then y ⊗ w[c], y ⊕ b[c]. The
 * gathered row feeds the sums (d in place, then d ⊗ d); the output, ((x ⊖ mu) ⊗ r) ⊗ w ⊕ b,
 * is written from x to y run by run in NCHW (the same operations as through d, without a
 * block for y and its scatter). */
static int bn_block(const rows_job *j, int64_t ch0, int64_t c, float *buf, float *s, float *t) {
  float *xb = buf + c * j->n;
  bn_gather(j, j->x, ch0, c, xb);
  const int rc = norm_stats(j, xb, xb, j->stats + 3 * ch0, c, buf, s, t, NULL); /* d in place */
  for (int64_t i = 0; i < c; ++i) {
    const float *w = j->rw ? j->rw + ch0 + i : NULL, *b = j->rb ? j->rb + ch0 + i : NULL;
    for (int64_t p = 0; p < j->planes; ++p) {
      const int64_t o = (p * j->channels + ch0 + i) * j->plane;
      j->k->channel_affine(j->x + o, s[i], t[i], w, b, j->out + o, j->plane);
    }
  }
  return rc;
}

/* Backward: dw[c] = Σ (g ⊗ y0), db[c] = Σ g over the row; gy = g ⊗ w[c] (g without w) into
 * the layer_norm backward (w absent), gy formed where it is used (norm_rows_b's wrow). */
static int bn_block_b(const rows_job *j, int64_t ch0, int64_t c, float *buf, float *s,
                      float *t) {
  const int64_t n = j->n;
  float *xb = buf + c * n, *gb = xb + c * n, *db = gb + c * n;
  float *wrow = t + j->block; /* n floats after t (rows_part) */
  bn_gather(j, j->x, ch0, c, xb);
  bn_gather(j, j->g, ch0, c, gb);
  int rc = j->db ? block_sums(j, gb, c, j->db + ch0) : 0;
  /* the rows of g ⊗ (d ⊗ r) in db, summed into dw before db takes gd */
  rc |= norm_rows_b(j, xb, gb, j->stats + 3 * ch0, db, j->dw ? db : NULL,
                    j->dw ? j->dw + ch0 : NULL, c, buf, s, t, ch0, wrow);
  return rc;
}

static void rows_part(void *ctx, int part, int parts) {
  rows_job *j = ctx;
  const rb_share sh = rb_part_share(j->rows, 1, part, parts);
  if (sh.lo >= sh.hi) return;
  const int64_t blocks = j->op == RB_NN_OP_BN_B ? 4 : j->op == RB_NN_OP_BN ? 2 : 1;
  const int64_t wrow = j->op == RB_NN_OP_BN_B ? j->n : 0; /* bn_block_b's weight row */
  float *buf = malloc((size_t)(blocks * j->block * j->n + 2 * j->block + wrow) * sizeof(float));
  if (buf == NULL) {
    j->status[part] = -2;
    return;
  }
  float *s = buf + blocks * j->block * j->n, *t = s + j->block;
  for (int64_t r = sh.lo; r < sh.hi && j->status[part] == 0; r += j->block) {
    const int64_t c = sh.hi - r < j->block ? sh.hi - r : j->block;
    int rc;
    switch (j->op) {
      case RB_NN_OP_NORM: rc = norm_block(j, r, c, buf, s, t); break;
      case RB_NN_OP_NORM_B: rc = norm_block_b(j, r, c, buf, s, t); break;
      case RB_NN_OP_BN: rc = bn_block(j, r, c, buf, s, t); break;
      case RB_NN_OP_BN_B: rc = bn_block_b(j, r, c, buf, s, t); break;
      default: rc = softmax_block(j, r, c, buf, s, t);
    }
    if (rc != 0) j->status[part] = rc < 0 ? rc : -1;
  }
  free(buf);
}

/* Rows per block: about 64 KiB of each operand, at most 32 rows, but at least 16 (the gemv
 * kernel interleaves the sequential chains of that many rows: one long row alone is a chain
 * of additions, latency-bound) while the scratch block stays within 8 MiB. */
enum { RB_NN_BLOCK_FLOATS = 16384, RB_NN_BLOCK_ROWS = 32, RB_NN_BLOCK_MIN_ROWS = 16,
       RB_NN_SCRATCH_FLOATS = 1 << 21 };

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
  j->block = RB_NN_BLOCK_FLOATS / j->n;
  if (j->block > RB_NN_BLOCK_ROWS) j->block = RB_NN_BLOCK_ROWS;
  if (j->block < RB_NN_BLOCK_MIN_ROWS) j->block = RB_NN_BLOCK_MIN_ROWS;
  if (j->block > RB_NN_SCRATCH_FLOATS / j->n) j->block = RB_NN_SCRATCH_FLOATS / j->n;
  if (j->block > j->rows) j->block = j->rows;
  if (j->block < 1) j->block = 1;
  float *ones = malloc((size_t)j->n * sizeof(float));
  if (ones == NULL) return -2;
  for (int64_t q = 0; q < j->n; ++q) ones[q] = 1.0f;
  j->ones = ones;
  const int parts = rb_part_count(work, nn_min_work(cx), cx->threads, j->rows);
  for (int p = 0; p < parts; ++p) j->status[p] = 0;
  cr_fenv_t saved = cr_fenv_enter();
  rb_parallel(parts, rows_part, j);
  cr_fenv_leave(saved);
  free(ones);
  for (int p = 0; p < parts; ++p)
    if (j->status[p] != 0) return j->status[p];
  return 0;
}

/* Runs the row job `init` (the fields it does not name zero) from the heap: its status
 * array is RB_MAX_PARTS long. */
static int rows_start(rows_job init, const rb_context *cfg, int64_t work) {
  rows_job *j = malloc(sizeof *j);
  if (j == NULL) return -2;
  *j = init;
  const int rc = rows_run(j, cfg, work);
  free(j);
  return rc;
}

int rb_nn_rows(int op, int order, const rb_context *cfg, const float *x, const float *g,
               const float *aux, float *out, int64_t rows, int64_t n) {
  if (op < 0 || op >= RB_NN_ROW_OPS) return -1;
  if ((op == RB_NN_SOFTMAX_B || op == RB_NN_LOG_SOFTMAX_B || op == RB_NN_LOGSUMEXP_B) &&
      g == NULL)
    return -1;
  if (op == RB_NN_LOGSUMEXP_B && aux == NULL) return -1;
  return rows_start((rows_job){.op = op, .order = order, .x = x, .g = g, .aux = aux, .out = out,
                               .rows = rows, .n = n},
                    cfg, rows * n);
}

int rb_nn_attention_softmax(int backward, int order, const rb_context *cfg, const float *x,
                            const float *g, const unsigned char *mask, double c, float *out,
                            int64_t rows, int64_t n) {
  if (x == NULL || out == NULL || (backward && g == NULL)) return -1;
  return rows_start((rows_job){.op = backward ? RB_NN_OP_ATT_B : RB_NN_OP_ATT, .order = order,
                               .x = x, .g = g, .mask = mask, .scale = cr_round_f32(c),
                               .out = out, .rows = rows, .n = n},
                    cfg, rows * n);
}

int rb_nn_cross_entropy(int order, const rb_context *cfg, const float *x, const int64_t *t,
                        int64_t ignore, int reduction, float *lp, float *loss, float *total,
                        int64_t rows, int64_t n, int64_t *valid, int64_t *bad) {
  if (x == NULL || t == NULL || lp == NULL || loss == NULL || valid == NULL || bad == NULL ||
      rows < 0 || n < 1 || reduction < 0 || reduction > 2 || (reduction != 0 && total == NULL))
    return -1;
  *valid = 0;
  for (int64_t i = 0; i < rows; ++i) {
    if (t[i] == ignore) continue;
    if (t[i] < 0 || t[i] >= n) {
      *bad = t[i];
      return -4;
    }
    ++*valid;
  }
  int rc = rb_nn_rows(RB_NN_LOG_SOFTMAX, order, cfg, x, NULL, NULL, lp, rows, n);
  if (rc != 0) return rc;
  for (int64_t i = 0; i < rows; ++i) /* where(valid, −lp[t], 0): a sign flip, exact */
    loss[i] = t[i] == ignore ? 0.0f : -lp[i * n + t[i]];
  if (reduction == 0) return 0;
  rc = rb_sum(RB_F32, order, cfg, loss, rows, total);
  if (rc != 0 || reduction == 1) return rc;
  const cr_fenv_t saved = cr_fenv_enter();
  *total = *total / cr_round_f32((double)*valid);
  cr_fenv_leave(saved);
  return 0;
}

int rb_nn_cross_entropy_backward(int order, const rb_context *cfg, const float *lp,
                                 const int64_t *t, int64_t ignore, const float *g, int64_t gs,
                                 double div, float *dx, int64_t rows, int64_t n) {
  if (lp == NULL || t == NULL || g == NULL || dx == NULL || rows < 0 || n < 1 ||
      (rows > 0 && n > INT64_MAX / rows))
    return -1;
  if (rows == 0) return 0;
  float *dlp = calloc((size_t)(rows * n), sizeof(float)); /* +0 */
  if (dlp == NULL) return -2;
  const cr_fenv_t saved = cr_fenv_enter();
  const float d = div != 0 ? cr_round_f32(div) : 0.0f;
  for (int64_t i = 0; i < rows; ++i) {
    if (t[i] == ignore) continue; /* +0 ⊕ −(+0) = +0 */
    const float v = div != 0 ? g[i * gs] / d : g[i * gs];
    dlp[i * n + t[i]] = 0.0f + -v; /* the scatter-add into zeros */
  }
  cr_fenv_leave(saved);
  const int rc = rb_nn_rows(RB_NN_LOG_SOFTMAX_B, order, cfg, lp, dlp, NULL, dx, rows, n);
  free(dlp);
  return rc;
}

int rb_nn_norm(int rms, int order, const rb_context *cfg, const float *x, const float *w,
               const float *b, double eps, float *y, float *stats, int64_t rows, int64_t n) {
  /* eps rounded in the library's environment (docs/contract.md §0.3) */
  return rows_start((rows_job){.op = RB_NN_OP_NORM, .rms = rms != 0, .order = order, .x = x,
                               .w = w, .b = b, .out = y, .stats = stats, .rows = rows, .n = n,
                               .eps = cr_round_f32(eps)},
                    cfg, rows * n);
}

int rb_nn_norm_backward(int rms, int order, const rb_context *cfg, const float *x,
                        const float *w, const float *g, const float *stats, float *dx,
                        float *gw, int64_t rows, int64_t n) {
  if (x == NULL || g == NULL || stats == NULL || dx == NULL) return -1;
  return rows_start((rows_job){.op = RB_NN_OP_NORM_B, .rms = rms != 0, .order = order, .x = x,
                               .w = w, .g = g, .stats = (float *)stats /* read only */,
                               .out = dx, .gw = gw, .rows = rows, .n = n},
                    cfg, rows * n);
}

/* A batch-norm job over x (planes, channels, plane): each channel one row. */
static int bn_start(rows_job init, const rb_context *cfg, int64_t planes, int64_t channels,
                    int64_t plane) {
  if (planes < 1 || channels < 0 || plane < 1 || channels > INT64_MAX / planes ||
      plane > INT64_MAX / planes || (channels > 0 && planes * plane > INT64_MAX / channels))
    return -1;
  init.planes = planes;
  init.channels = channels;
  init.plane = plane;
  init.rows = channels;
  init.n = planes * plane;
  return rows_start(init, cfg, channels * init.n);
}

int rb_nn_batch_norm(int order, const rb_context *cfg, const float *x, const float *w,
                     const float *b, double eps, float *y, float *stats, int64_t planes,
                     int64_t channels, int64_t plane) {
  if (x == NULL || y == NULL || stats == NULL) return -1;
  return bn_start((rows_job){.op = RB_NN_OP_BN, .order = order, .x = x, .rw = w, .rb = b,
                             .out = y, .stats = stats, .eps = cr_round_f32(eps)},
                  cfg, planes, channels, plane);
}

int rb_nn_batch_norm_backward(int order, const rb_context *cfg, const float *x, const float *w,
                              const float *g, const float *stats, float *dx, float *dw,
                              float *db, int64_t planes, int64_t channels, int64_t plane) {
  if (x == NULL || g == NULL || stats == NULL || dx == NULL) return -1;
  return bn_start((rows_job){.op = RB_NN_OP_BN_B, .order = order, .x = x, .rw = w, .g = g,
                             .stats = (float *)stats /* read only */, .out = dx, .dw = dw,
                             .db = db},
                  cfg, planes, channels, plane);
}

/* ---- batch norm in evaluation: elementwise per channel ---- */
typedef struct {
  const rb_nn_kernels *k;
  const float *x, *rm, *r, *w, *b;
  float *y;
  int64_t channels, plane, planes;
} bn_eval_job;

static void bn_eval_part(void *ctx, int part, int parts) {
  const bn_eval_job *j = ctx;
  const rb_share sh = rb_part_share(j->planes * j->channels, 1, part, parts);
  for (int64_t q = sh.lo; q < sh.hi; ++q) {
    const int64_t c = q % j->channels;
    const float *x = j->x + q * j->plane;
    float *y = j->y + q * j->plane;
    j->k->channel_affine(x, j->rm[c], j->r[c], j->w ? j->w + c : NULL, j->b ? j->b + c : NULL,
                         y, j->plane);
  }
}

int rb_nn_batch_norm_eval(const rb_context *cfg, const float *x, const float *rm, const float *rv,
                          const float *w, const float *b, double eps, float *y, int64_t planes,
                          int64_t channels, int64_t plane) {
  rb_nn_cr cr;
  if (x == NULL || rm == NULL || rv == NULL || y == NULL || planes < 0 || channels < 0 ||
      plane < 0 || nn_setup(cfg, &cr) != 0)
    return -1;
  if (planes == 0 || channels == 0 || plane == 0) return 0;
  float *r = malloc((size_t)channels * sizeof(float));
  if (r == NULL) return -2;
  rb_context tmp;
  const rb_context *cx = rb_context_use(cfg, &tmp);
  bn_eval_job j = {.k = tables[cfg->isa], .x = x, .rm = rm, .r = r, .w = w, .b = b, .y = y,
                   .channels = channels, .plane = plane, .planes = planes};
  cr_fenv_t saved = cr_fenv_enter();
  const float e = cr_round_f32(eps); /* in the library's environment (§0.3) */
  for (int64_t c = 0; c < channels; ++c) r[c] = rv[c] + e;
  cr.f[CR_FN_ID_rsqrt](r, r, (size_t)channels);
  const int parts = rb_part_count(planes * channels * plane, cx->min_per_thread, cx->threads,
                                  planes * channels);
  rb_parallel(parts, bn_eval_part, &j);
  cr_fenv_leave(saved);
  free(r);
  return 0;
}

int rb_nn_batch_norm_running(const rb_context *cfg, const float *mu, const float *s,
                             int64_t channels, double keep, double momentum, double nm1,
                             float *rm, float *rv) {
  (void)cfg; /* a few values: one thread, no path-specific code */
  if (mu == NULL || s == NULL || channels < 0) return -1;
  const float k = cr_round_f32(keep), m = cr_round_f32(momentum), d = cr_round_f32(nm1);
  cr_fenv_t saved = cr_fenv_enter();
  for (int64_t c = 0; c < channels; ++c) {
    if (rm) rm[c] = rm[c] * k + mu[c] * m;
    if (rv) rv[c] = rv[c] * k + (s[c] / d) * m;
  }
  cr_fenv_leave(saved);
  return 0;
}
