/* conv2d and its three gradients (contract §3 "Convolution") on contiguous NCHW
 * arrays: the planning that reduces each to the implicit gemms of conv.h
 * (rb_conv_seq, rb_conv_pw) or gemms (level3.h). Shared by the Python
 * extension and the C ABI.
 *
 * Padding positions are absent terms, not zeros, so outputs whose windows are
 * cut by the border cannot share one im2col matrix with the others. Along each
 * spatial axis the output positions are grouped into *classes* with the same
 * set of present kernel taps (for a 3x3 kernel with padding 1: first row,
 * interior rows, last row); each pair of a row class and a column class is one
 * class of the implicit gemm, whose term list holds exactly the present terms,
 * in the contract's order. Within a class the source index separates as base[position] +
 * delta[tap] (delta linear in the tap's rank), which is what makes the
 * offsets toff[t] + coff[j].
 */
#include <stdlib.h>
#include <string.h>

#include "conv.h"
#include "conv_scratch.h"
#include "level3.h"

/* The positions of one class along an axis and its present taps, which are
 * always a progression: tap t is tap0 + t * tap_step and reads source index
 * base[i] + t * delta_step for the class's position pos[i] (the steps are the
 * axis's, conv_axis). Stored as a progression, a class takes O(1) memory
 * besides its positions: with a kernel as wide as the image every border
 * position is a class of its own, and explicit tap lists took O(positions x
 * taps) (an 8191-tap row: 2 GB). */
typedef struct {
  int64_t npos, ntaps, tap0;
  int64_t *pos, *base;
} conv_class;

typedef struct {
  int64_t count, tap_step, delta_step;
  conv_class *cls;
  int64_t *store; /* pos and base of every class */
} conv_axis;

/* The index map of an axis. Forward (conv2d): output position p, tap r ->
 * input index p*stride - pad + r*dil, present when inside the input.
 * Transposed (grad_input): input index h, tap r -> the output position p with
 * h = p*stride - pad + r*dil, present when it exists. */
static int axis_index(int transposed, int64_t size, int64_t out, int64_t stride, int64_t pad,
                      int64_t dil, int64_t i, int64_t r, int64_t *idx) {
  if (!transposed) {
    *idx = i * stride - pad + r * dil;
    return *idx >= 0 && *idx < size;
  }
  const int64_t num = i + pad - r * dil;
  if (num < 0 || num % stride != 0) return 0;
  *idx = num / stride;
  return *idx < out;
}

static int64_t gcd64(int64_t a, int64_t b) {
  while (b) {
    const int64_t t = a % b;
    a = b, b = t;
  }
  return a;
}

static void axis_free(conv_axis *ax) {
  free(ax->cls);
  free(ax->store);
}

/* A position's present taps: the first and how many. */
typedef struct {
  int64_t tap0, ntaps, pos, base;
} tap_set;

static int tap_set_cmp(const void *x, const void *y) {
  const tap_set *a = x, *b = y;
  if (a->tap0 != b->tap0) return a->tap0 < b->tap0 ? -1 : 1;
  if (a->ntaps != b->ntaps) return a->ntaps < b->ntaps ? -1 : 1;
  return (a->pos > b->pos) - (a->pos < b->pos);
}

/* Groups the `count` positions of an axis by their set of present taps.
 * Forward, a position's taps are a range (step 1, index step dil);
 * transposed, the taps r with r*dil = h + pad (mod stride) in a range: step
 * stride/g, index step -dil/g for g = gcd(dil, stride). So two positions
 * have the same set when they have the same first tap and count. Returns 0
 * or -2 (out of memory). */
static int axis_classes(conv_axis *ax, int transposed, int64_t count, int64_t size, int64_t out,
                        int64_t k, int64_t stride, int64_t pad, int64_t dil) {
  memset(ax, 0, sizeof *ax);
  const int64_t g = gcd64(dil, stride);
  ax->tap_step = transposed ? stride / g : 1;
  ax->delta_step = transposed ? -(dil / g) : dil;
  tap_set *set = malloc(sizeof(tap_set) * (size_t)(count + 1));
  ax->cls = calloc((size_t)count + 1, sizeof(conv_class));
  ax->store = malloc(sizeof(int64_t) * (size_t)(2 * count + 1));
  if (!set || !ax->cls || !ax->store) {
    free(set);
    axis_free(ax);
    return -2;
  }
  for (int64_t i = 0; i < count; ++i) {
    tap_set *s = &set[i];
    s->tap0 = s->ntaps = s->base = 0, s->pos = i;
    int64_t idx;
    for (int64_t r = 0; r < k; ++r)
      if (axis_index(transposed, size, out, stride, pad, dil, i, r, &idx)) {
        if (!s->ntaps) s->tap0 = r, s->base = idx;
        ++s->ntaps;
      }
  }
  qsort(set, (size_t)count, sizeof *set, tap_set_cmp); /* by set, then position */
  int64_t *next = ax->store;
  for (int64_t i = 0, j; i < count; i = j) { /* set[i, j): one class */
    j = i + 1;
    while (j < count && set[j].tap0 == set[i].tap0 && set[j].ntaps == set[i].ntaps) ++j;
    conv_class *cl = &ax->cls[ax->count++];
    cl->npos = j - i, cl->ntaps = set[i].ntaps, cl->tap0 = set[i].tap0;
    cl->pos = next, cl->base = next + cl->npos, next = cl->base + cl->npos;
    for (int64_t e = i; e < j; ++e) cl->pos[e - i] = set[e].pos, cl->base[e - i] = set[e].base;
  }
  free(set);
  return 0;
}

int rb_conv_shape_ok(const rb_conv_shape *g) {
  const int64_t *v = &g->n;
  for (int i = 0; i < 16; ++i)
    if (v[i] < 0 || v[i] > RB_CONV_MAX_DIM) return 0;
  if (g->stride_h < 1 || g->stride_w < 1 || g->dilation_h < 1 || g->dilation_w < 1 ||
      g->groups < 1 || g->c % g->groups || g->k % g->groups)
    return 0;
  /* p and q: the output sizes of some bottom / right padding >= 0 */
  return g->p >= 1 && g->q >= 1 &&
         g->p * g->stride_h >= g->h + g->pad_top - g->dilation_h * (g->r - 1) &&
         g->q * g->stride_w >= g->w + g->pad_left - g->dilation_w * (g->s - 1);
}

static int64_t conv_size(int dtype) { return dtype == RB_F32 ? 4 : 8; }

/* 1 or 0 of the element type: the gemms' alpha and beta. */
static const void *conv_constant(int dtype, int one) {
  static const float f[2] = {0.0f, 1.0f};
  static const double d[2] = {0.0, 1.0};
  return dtype == RB_F32 ? (const void *)&f[one] : (const void *)&d[one];
}

/* A list of n offsets: v[j] when v is given, else first + j * step. */
typedef struct {
  const int64_t *v;
  int64_t first, step, n;
} offsets;

static int64_t offset_at(const offsets *o, int64_t j) {
  return o->v ? o->v[j] : o->first + j * o->step;
}

/* The sums of the broadcast parts, first outermost: out[(i, j, l)] =
 * i*sa + b[j]*sb + c[l]*sc. */
static void outer3(int64_t na, int64_t sa, offsets b, int64_t sb, offsets c, int64_t sc,
                   int64_t *out) {
  for (int64_t i = 0; i < na; ++i)
    for (int64_t j = 0; j < b.n; ++j)
      for (int64_t l = 0; l < c.n; ++l)
        *out++ = i * sa + offset_at(&b, j) * sb + offset_at(&c, l) * sc;
}

/* A class's taps, its source offsets (from its base), its positions and its
 * bases, as offset lists. */
static offsets class_taps(const conv_axis *ax, const conv_class *cl) {
  return (offsets){NULL, cl->tap0, ax->tap_step, cl->ntaps};
}
static offsets class_deltas(const conv_axis *ax, const conv_class *cl) {
  return (offsets){NULL, 0, ax->delta_step, cl->ntaps};
}
static offsets class_pos(const conv_class *cl) { return (offsets){cl->pos, 0, 0, cl->npos}; }
static offsets class_base(const conv_class *cl) { return (offsets){cl->base, 0, 0, cl->npos}; }

/* The term tables of a batch of class pairs (row class, column class) take
 * at most this many int64 (at least one pair): with a kernel as large as the
 * image every position is a class of its own, and the tables of all pairs
 * together are as large as the whole convolution (a 128 x 128 'same' kernel
 * on a 128 x 128 image: 2.4 GB). Each output belongs to one pair, so batching
 * changes no result; ordinary layers are one batch. */
#define CONV_BATCH_INTS ((int64_t)1 << 23)

typedef struct {
  int dtype, order, transposed;
  rb_context cfg;
  const rb_conv_shape *g;
  const void *w, *src, *bias;
  void *dst;
  int64_t sc, sh, sw, dc, dh, dw, src_cg, rows;
} conv_gather;

/* The ints of pair e's tables (row class e / ax->count, column class
 * e % ax->count): terms and source offsets per present term, source and
 * destination offsets per output column. */
static int64_t pair_ints(const conv_gather *q, const conv_axis *ay, const conv_axis *ax,
                         int64_t e) {
  const conv_class *cy = &ay->cls[e / ax->count], *cx = &ax->cls[e % ax->count];
  return 2 * q->src_cg * cy->ntaps * cx->ntaps + 2 * q->g->n * cy->npos * cx->npos;
}

/* The end e1 of the batch of pairs from e0, and its ints. */
static int64_t batch_end(const conv_gather *q, const conv_axis *ay, const conv_axis *ax, int64_t e0,
                         int64_t *ints) {
  const int64_t npairs = ay->count * ax->count;
  int64_t e1 = e0 + 1;
  *ints = pair_ints(q, ay, ax, e0);
  for (; e1 < npairs; ++e1) {
    const int64_t more = pair_ints(q, ay, ax, e1);
    if (*ints + more > (q->cfg.conv_batch ? q->cfg.conv_batch : CONV_BATCH_INTS)) break;
    *ints += more;
  }
  return e1;
}

/* The class pairs [e0, e1) as classes of the implicit gemm, in cls: their
 * terms, the terms' source offsets, and the columns' source and destination
 * offsets, in buf (room for the batch's ints). */
static void gather_tables(const conv_gather *q, const conv_axis *ay, const conv_axis *ax,
                          int64_t e0, int64_t e1, rb_conv_class *cls, int64_t *buf) {
  const rb_conv_shape *g = q->g;
  const int64_t kr = g->r, ks = g->s;
  int64_t *next = buf;
  for (int64_t e = e0; e < e1; ++e) {
    const conv_class *cy = &ay->cls[e / ax->count], *cx = &ax->cls[e % ax->count];
    rb_conv_class *cl = &cls[e - e0];
    cl->nterms = q->src_cg * cy->ntaps * cx->ntaps;
    cl->ncols = g->n * cy->npos * cx->npos;
    int64_t *term = next, *toff = term + cl->nterms, *coff = toff + cl->nterms,
            *doff = coff + cl->ncols;
    next = doff + cl->ncols;
    outer3(q->src_cg, kr * ks, class_taps(ay, cy), ks, class_taps(ax, cx), 1, term);
    outer3(q->src_cg, q->sh * q->sw, class_deltas(ay, cy), q->sw, class_deltas(ax, cx), 1, toff);
    outer3(g->n, q->sc * q->sh * q->sw, class_base(cy), q->sw, class_base(cx), 1, coff);
    outer3(g->n, q->dc * q->dh * q->dw, class_pos(cy), q->dw, class_pos(cx), 1, doff);
    cl->term = term;
    cl->toff = toff;
    cl->coff = coff;
    cl->doff = doff;
    cl->slot = NULL;
  }
}

typedef struct {
  int64_t doff, col;
} col_dest;

static int col_dest_cmp(const void *x, const void *y) {
  const col_dest *a = x, *b = y;
  return (a->doff > b->doff) - (a->doff < b->doff);
}

/* Each column's rank by destination among the columns of cls[0, n) (all
 * destinations differ: each output belongs to one class), in slots (room for
 * them all), as the classes' slot lists (conv.h). Without memory for the sort
 * the classes keep no slots. */
static void column_slots(rb_conv_class *cls, int64_t n, int64_t *slots) {
  int64_t all = 0;
  for (int64_t c = 0; c < n; ++c) all += cls[c].ncols;
  col_dest *order = malloc(sizeof(col_dest) * (size_t)(all + 1));
  if (!order) return;
  for (int64_t c = 0, k = 0; c < n; ++c)
    for (int64_t j = 0; j < cls[c].ncols; ++j, ++k) order[k] = (col_dest){cls[c].doff[j], k};
  qsort(order, (size_t)all, sizeof *order, col_dest_cmp);
  for (int64_t k = 0; k < all; ++k) slots[order[k].col] = k;
  free(order);
  for (int64_t c = 0, k = 0; c < n; k += cls[c].ncols, ++c) cls[c].slot = slots + k;
}

/* The implicit gemms of the classes cls[0, npairs), one per group. */
static int gather_run(const conv_gather *q, const rb_conv_class *cls, int64_t npairs) {
  const rb_conv_shape *g = q->g;
  const int64_t kr = g->r, ks = g->s, size = conv_size(q->dtype);
  /* A in place in w, per group: forward A(k, (c', r, s)) is row k of w;
   * transposed A(c', (k, r, s)) = w[k, c', r, s], runs of R*S terms */
  const int64_t rs = kr * ks, full = q->src_cg * rs, a_rs = q->transposed ? rs : full,
                tin = q->transposed ? rs : full;
  int rc = 0;
  for (int64_t gi = 0; gi < g->groups && rc == 0; ++gi)
    rc = (q->order == RB_PAIRWISE ? rb_conv_pw : rb_conv_seq)(q->dtype, q->cfg, q->rows, full,
                     (const char *)q->w + gi * q->rows * full * size, a_rs, tin, q->rows * rs,
                     npairs, cls, (const char *)q->src + gi * q->src_cg * q->sh * q->sw * size,
                     (char *)q->dst + gi * q->rows * q->dh * q->dw * size, q->dh * q->dw,
                     q->bias ? (const char *)q->bias + gi * q->rows * size : NULL);
  return rc;
}

static int gather_batch(const conv_gather *q, const conv_axis *ay, const conv_axis *ax, int64_t e0,
                        int64_t e1, int64_t *buf) {
  rb_conv_class *cls = calloc((size_t)(e1 - e0) + 1, sizeof(rb_conv_class));
  if (!cls) return -2;
  gather_tables(q, ay, ax, e0, e1, cls, buf);
  const int rc = gather_run(q, cls, e1 - e0);
  free(cls);
  return rc;
}

/* A cached plan (conv_scratch.h): its classes, then their tables. */
typedef struct {
  int64_t nclasses;
  rb_conv_class cls[];
} conv_plan_data;

/* The cache key of a plan: which tables, and the shape they are for. */
typedef struct {
  int64_t kind; /* 1: gather (conv2d), 2: gather transposed (grad_input), 3: grad_weight */
  int64_t batch; /* the context's conv_batch: a cached plan is one batch */
  rb_conv_shape g;
} conv_plan_key;

static conv_plan_key plan_key(int64_t kind, const rb_context *cfg, const rb_conv_shape *g) {
  conv_plan_key key;
  memset(&key, 0, sizeof key);
  key.kind = kind;
  key.batch = cfg->conv_batch;
  key.g = *g;
  return key;
}

/* conv2d (transposed == 0: src = x, dst = y, the forward index map) or its
 * input gradient (transposed != 0: src = grad_y, dst = grad_x), w the
 * weights (K, C/groups, R, S). */
static int gather_convolution(int dtype, int order, rb_context cfg, const rb_conv_shape *g,
                              int transposed, const void *w, const void *src,
                              const void *bias, void *dst) {
  cfg = rb_context_fix(cfg);
  conv_gather q = {dtype, order, transposed, cfg, g, w, src, bias, dst,
                   transposed ? g->k : g->c, transposed ? g->p : g->h, transposed ? g->q : g->w,
                   transposed ? g->c : g->k, transposed ? g->h : g->p, transposed ? g->w : g->q,
                   0, 0};
  q.src_cg = q.sc / g->groups;
  q.rows = q.dc / g->groups;
  const conv_plan_key key = plan_key(1 + !!transposed, &cfg, g);
  const conv_plan_data *hit = rb_conv_plan_find(&key, sizeof key);
  if (hit) return gather_run(&q, hit->cls, hit->nclasses);
  conv_axis ay, ax;
  if (axis_classes(&ay, transposed, q.dh, g->h, g->p, g->r, g->stride_h, g->pad_top,
                   g->dilation_h))
    return -2;
  if (axis_classes(&ax, transposed, q.dw, g->w, g->q, g->s, g->stride_w, g->pad_left,
                   g->dilation_w)) {
    axis_free(&ay);
    return -2;
  }
  /* one buffer for the largest batch, reused (a fresh one per batch doubled
   * the time of the 128 x 128 case above in page faults) */
  const int64_t npairs = ay.count * ax.count;
  int64_t most = 0, ints;
  for (int64_t e0 = 0, e1; e0 < npairs; e0 = e1) {
    e1 = batch_end(&q, &ay, &ax, e0, &ints);
    if (ints > most) most = ints;
  }
  /* one batch (ordinary layers): planned into a cache entry when it is small,
   * with the columns' slots (the sequential engine's staged store) */
  const int64_t all_cols = g->n * q.dh * q.dw;
  conv_plan_data *plan =
      batch_end(&q, &ay, &ax, 0, &ints) == npairs && npairs
          ? rb_conv_plan_new(&key, sizeof key,
                             sizeof(conv_plan_data) + (size_t)npairs * sizeof(rb_conv_class) +
                                 (size_t)(most + all_cols) * sizeof(int64_t))
          : NULL;
  if (plan) {
    int64_t *tables = (int64_t *)(plan->cls + npairs);
    plan->nclasses = npairs;
    gather_tables(&q, &ay, &ax, 0, npairs, plan->cls, tables);
    column_slots(plan->cls, npairs, tables + most);
    axis_free(&ay);
    axis_free(&ax);
    return gather_run(&q, plan->cls, npairs);
  }
  int64_t *buf = malloc(sizeof(int64_t) * (size_t)(most + 1));
  int rc = buf ? 0 : -2;
  for (int64_t e0 = 0, e1; e0 < npairs && rc == 0; e0 = e1) {
    e1 = batch_end(&q, &ay, &ax, e0, &ints);
    rc = gather_batch(&q, &ay, &ax, e0, e1, buf);
  }
  free(buf);
  axis_free(&ay);
  axis_free(&ax);
  return rc;
}

static int conv_args_ok(int dtype, int order, const rb_conv_shape *g) {
  return (dtype == RB_F32 || dtype == RB_F64) && (order == RB_SEQUENTIAL || order == RB_PAIRWISE) &&
         rb_conv_shape_ok(g);
}

int rb_conv2d(int dtype, int order, rb_context cfg, const rb_conv_shape *g, const void *x,
              const void *w, const void *bias, void *y) {
  if (!conv_args_ok(dtype, order, g)) return -1;
  if (g->n == 0 || g->k == 0) return 0;
  return gather_convolution(dtype, order, cfg, g, 0, w, x, bias, y);
}

int rb_conv2d_grad_input(int dtype, int order, rb_context cfg, const rb_conv_shape *g,
                         const void *grad_y, const void *w, void *grad_x) {
  if (!conv_args_ok(dtype, order, g)) return -1;
  if (g->n == 0 || g->c == 0 || g->h == 0 || g->w == 0) return 0;
  return gather_convolution(dtype, order, cfg, g, 1, w, grad_y, NULL, grad_x);
}

/* The present outputs of tap r along an axis are a range [*p0, *p0 + count),
 * reading the inputs *h0, *h0 + stride, ... */
static int64_t tap_range(int64_t size, int64_t out, int64_t stride, int64_t pad, int64_t dil,
                         int64_t r, int64_t *p0, int64_t *h0) {
  const int64_t shift = r * dil - pad; /* input index of output 0 */
  int64_t lo = shift >= 0 ? 0 : (-shift + stride - 1) / stride;
  int64_t hi = size - 1 - shift < 0 ? 0 : (size - 1 - shift) / stride + 1;
  if (hi > out) hi = out;
  *p0 = lo;
  *h0 = lo * stride + shift;
  return hi > lo ? hi - lo : 0;
}

/* dst[i*nq + j] = src[i*rs + j*cs] for i < np, j < nq (elements of `size`
 * bytes): one copy when the rectangle is contiguous, inline copies for short
 * rows (a call per 7-element row cost more than the copy). */
static void copy_rect(int64_t size, char *dst, const char *src, int64_t np, int64_t nq, int64_t rs,
                      int64_t cs) {
  if (cs == 1 && (rs == nq || np == 1)) {
    memcpy(dst, src, (size_t)(np * nq * size));
    return;
  }
  if (size == 4) {
    float *d = (float *)dst;
    const float *s = (const float *)src;
    for (int64_t i = 0; i < np; ++i, d += nq, s += rs)
      if (cs == 1 && nq >= 32)
        memcpy(d, s, (size_t)nq * sizeof(float));
      else
        for (int64_t j = 0; j < nq; ++j) d[j] = s[j * cs];
  } else {
    double *d = (double *)dst;
    const double *s = (const double *)src;
    for (int64_t i = 0; i < np; ++i, d += nq, s += rs)
      if (cs == 1 && nq >= 16)
        memcpy(d, s, (size_t)nq * sizeof(double));
      else
        for (int64_t j = 0; j < nq; ++j) d[j] = s[j * cs];
  }
}

/* The ints of tap e's class for grad_weight_seq: its terms and their source
 * offsets, and its columns' destinations. */
static int64_t tap_ints(const rb_conv_shape *g, int64_t e, int64_t cg) {
  int64_t p0, h0, q0, v0;
  const int64_t np = tap_range(g->h, g->p, g->stride_h, g->pad_top, g->dilation_h, e / g->s, &p0,
                               &h0);
  const int64_t nq = tap_range(g->w, g->q, g->stride_w, g->pad_left, g->dilation_w, e % g->s, &q0,
                               &v0);
  return 2 * g->n * np * nq + cg;
}

/* The end of the batch of taps from e0: at most `cap` table ints (at least
 * one tap); their ints in *ints. */
static int64_t tap_batch_end(const rb_conv_shape *g, int64_t e0, int64_t cg, int64_t cap,
                             int64_t *ints) {
  int64_t e1 = e0 + 1;
  for (*ints = tap_ints(g, e0, cg); e1 < g->r * g->s; ++e1) {
    const int64_t more = tap_ints(g, e1, cg);
    if (*ints + more > cap) break;
    *ints += more;
  }
  return e1;
}

/* The classes of taps [e0, e1) in cls, their tables in buf (the batch's
 * ints) and coff (cg ints, shared). */
static void tap_tables(const rb_conv_shape *g, int64_t cg, int64_t e0, int64_t e1,
                       rb_conv_class *cls, int64_t *buf, int64_t *coff) {
  const int64_t hw = g->h * g->w, rs = g->r * g->s;
  for (int64_t j = 0; j < cg; ++j) coff[j] = j * hw; /* column c': plane c' of the group's x */
  int64_t *next = buf;
  for (int64_t e = e0; e < e1; ++e) {
    int64_t p0, h0, q0, v0;
    const int64_t np = tap_range(g->h, g->p, g->stride_h, g->pad_top, g->dilation_h, e / g->s,
                                 &p0, &h0);
    const int64_t nq = tap_range(g->w, g->q, g->stride_w, g->pad_left, g->dilation_w, e % g->s,
                                 &q0, &v0);
    int64_t *term = next, *toff = term + g->n * np * nq, *doff = toff + g->n * np * nq;
    next = doff + cg;
    int64_t t = 0;
    for (int64_t n = 0; n < g->n; ++n)
      for (int64_t i = 0; i < np; ++i)
        for (int64_t j = 0; j < nq; ++j, ++t) {
          term[t] = (n * g->p + p0 + i) * g->q + q0 + j;
          toff[t] = n * g->c * hw + (h0 + i * g->stride_h) * g->w + v0 + j * g->stride_w;
        }
    for (int64_t j = 0; j < cg; ++j) doff[j] = rs > 1 ? e * cg + j : j;
    cls[e - e0] = (rb_conv_class){t, cg, term, toff, coff, doff};
  }
}

/* grad_weight as an implicit gemm (rb_conv_seq, or rb_conv_pw for the
 * pairwise order): A = grad_y, k rows by all (n, p, q) terms, packed once for
 * every tap; tap (r, s) is a class of cg columns (c') whose terms are its
 * present (n, p, q), reading
 * x[n, c', h, v] in place. (Per-tap gemms of gathered operands packed both
 * once per tap: at 64 channels that cost as much as the multiply-adds.) Taps
 * are planned in batches of at most CONV_BATCH_INTS table ints; each output
 * belongs to one tap, so batching changes no result. One batch of small
 * tables is planned once per thread and shape (conv_scratch.h). */
static int grad_weight_implicit(int dtype, int order, rb_context cfg, const rb_conv_shape *g,
                                const void *x, const void *grad_y, void *grad_w) {
  const int64_t cg = g->c / g->groups, kg = g->k / g->groups, size = conv_size(dtype);
  const int64_t hw = g->h * g->w, pq = g->p * g->q, rs = g->r * g->s;
  const int64_t cap = cfg.conv_batch ? cfg.conv_batch : CONV_BATCH_INTS;
  /* The chains are stored as gw[k, r, s, c'] (a tap's columns consecutive:
   * whole-vector stores) and transposed once at the end; stored straight into
   * gw[k, c', r, s] (columns rs apart), one element at a time, took a third
   * of the time at 512 channels of 7 x 7. */
  char *tmp = rs > 1 ? rb_conv_scratch(RB_CONV_SCRATCH_CALL, (size_t)(g->k * cg * rs * size))
                     : grad_w;
  if (!tmp) return -2;
  const conv_plan_key key = plan_key(3, &cfg, g);
  conv_plan_data *plan = rb_conv_plan_find(&key, sizeof key);
  int64_t most = 0, ints, *buf = NULL;
  rb_conv_class *cls = NULL;
  if (!plan) {
    for (int64_t e0 = 0, e1; e0 < rs; e0 = e1) {
      e1 = tap_batch_end(g, e0, cg, cap, &ints);
      if (ints > most) most = ints;
    }
    if (tap_batch_end(g, 0, cg, cap, &ints) == rs) {
      plan = rb_conv_plan_new(&key, sizeof key,
                              sizeof(conv_plan_data) + (size_t)rs * sizeof(rb_conv_class) +
                                  (size_t)(most + cg) * sizeof(int64_t));
      if (plan) {
        int64_t *tables = (int64_t *)(plan->cls + rs);
        plan->nclasses = rs;
        tap_tables(g, cg, 0, rs, plan->cls, tables, tables + most);
      }
    }
  }
  if (!plan) {
    buf = malloc(sizeof(int64_t) * (size_t)(most + cg + 1));
    cls = calloc((size_t)rs, sizeof(rb_conv_class));
    if (!buf || !cls) {
      free(buf);
      free(cls);
      if (tmp != grad_w) rb_conv_scratch_done(RB_CONV_SCRATCH_CALL);
      return -2;
    }
  }
  int rc = 0;
  for (int64_t e0 = 0, e1; e0 < rs && rc == 0; e0 = e1) {
    const rb_conv_class *batch = plan ? plan->cls : cls;
    if (plan) {
      e1 = rs;
    } else {
      e1 = tap_batch_end(g, e0, cg, cap, &ints);
      tap_tables(g, cg, e0, e1, cls, buf, buf + most);
    }
    for (int64_t gi = 0; gi < g->groups && rc == 0; ++gi)
      rc = (order == RB_PAIRWISE ? rb_conv_pw : rb_conv_seq)(
          dtype, cfg, kg, g->n * pq, (const char *)grad_y + gi * kg * pq * size, pq, pq,
          g->k * pq, e1 - e0, batch, (const char *)x + gi * cg * hw * size,
          tmp + gi * kg * cg * rs * size, cg * rs, NULL);
  }
  if (tmp != grad_w) {
    if (rc == 0) rb_conv_transpose(dtype, g->k, rs, cg, tmp, grad_w);
    rb_conv_scratch_done(RB_CONV_SCRATCH_CALL);
  }
  free(buf);
  free(cls);
  return rc;
}

/* gw[k, c', r, s] over the terms (n, p, q) of grad_y (k rows) and x (c'
 * rows): grad_weight_implicit; depthwise: per tap (r, s) and group, a gemm
 * of both operands gathered to contiguous rows. */
int rb_conv2d_grad_weight(int dtype, int order, rb_context cfg, const rb_conv_shape *g,
                          const void *x, const void *grad_y, void *grad_w) {
  if (!conv_args_ok(dtype, order, g)) return -1;
  const int64_t cg = g->c / g->groups, kg = g->k / g->groups, size = conv_size(dtype);
  if (g->k == 0 || cg == 0 || g->r == 0 || g->s == 0) return 0;
  /* Fewer than 4 outputs per tap and group (depthwise): the per-group setup
   * of the implicit gemms and their mostly empty row panels cost more than
   * the gathers (1 x 1 channels per group: 2.5x slower), and the per-tap gemms
   * are dot products. */
  if (kg * cg >= 4)
    return grad_weight_implicit(dtype, order, rb_context_fix(cfg), g, x, grad_y, grad_w);
  const int64_t hw = g->h * g->w, pq = g->p * g->q;
  char *a = rb_conv_scratch(RB_CONV_SCRATCH_CALL, (size_t)((kg + cg) * g->n * pq * size + 1));
  if (!a) return -2;
  char *b = a + kg * g->n * pq * size;
  const void *alpha = conv_constant(dtype, 1), *beta = conv_constant(dtype, 0);
  int rc = 0;
  for (int64_t ri = 0; ri < g->r && rc == 0; ++ri)
    for (int64_t si = 0; si < g->s && rc == 0; ++si) {
      int64_t p0, h0, q0, v0;
      const int64_t np = tap_range(g->h, g->p, g->stride_h, g->pad_top, g->dilation_h, ri, &p0, &h0);
      const int64_t nq = tap_range(g->w, g->q, g->stride_w, g->pad_left, g->dilation_w, si, &q0, &v0);
      const int64_t terms = g->n * np * nq;
      for (int64_t gi = 0; gi < g->groups && rc == 0; ++gi) {
        /* row by row of A and B, image by image: the tap's rectangle of a plane */
        for (int64_t k = 0; k < kg; ++k)
          for (int64_t n = 0; n < g->n; ++n)
            copy_rect(size, a + (k * terms + n * np * nq) * size,
                      (const char *)grad_y +
                          (((n * g->k + gi * kg + k) * g->p + p0) * g->q + q0) * size,
                      np, nq, g->q, 1);
        for (int64_t c = 0; c < cg; ++c)
          for (int64_t n = 0; n < g->n; ++n)
            copy_rect(size, b + (c * terms + n * np * nq) * size,
                      (const char *)x + ((n * g->c + gi * cg + c) * hw + h0 * g->w + v0) * size,
                      np, nq, g->stride_h * g->w, g->stride_w);
        const int64_t rs = g->r * g->s;
        rc = rb_gemm(dtype, order, &cfg, RB_FULL, kg, cg, terms, alpha, a, terms, 1, b, 1, terms, beta,
                     (char *)grad_w + ((gi * kg * cg) * rs + ri * g->s + si) * size, cg * rs, rs);
      }
    }
  rb_conv_scratch_done(RB_CONV_SCRATCH_CALL);
  return rc;
}

/* gb[k]: the terms grad_y[n, k, p, q] as a gemv with ones (g ⊗ 1 = g and
 * fma(g, 1, S) = S ⊕ g: the plain terms in order), rows gathered per k. */
int rb_conv2d_grad_bias(int dtype, int order, rb_context cfg, const rb_conv_shape *g,
                        const void *grad_y, void *grad_b) {
  if (!conv_args_ok(dtype, order, g)) return -1;
  if (g->k == 0) return 0;
  const int64_t pq = g->p * g->q, terms = g->n * pq, size = conv_size(dtype);
  char *a = rb_conv_scratch(RB_CONV_SCRATCH_CALL, (size_t)(g->k * terms * size + 1));
  if (!a) return -2;
  for (int64_t n = 0; n < g->n; ++n)
    for (int64_t k = 0; k < g->k; ++k)
      memcpy(a + (k * terms + n * pq) * size, (const char *)grad_y + (n * g->k + k) * pq * size,
             (size_t)(pq * size));
  const void *alpha = conv_constant(dtype, 1), *beta = conv_constant(dtype, 0);
  /* B: a terms x 1 column of ones, read through stride 0 */
  int rc = rb_gemm(dtype, order, &cfg, RB_FULL, g->k, 1, terms, alpha, a, terms, 1, alpha, 0, 0, beta,
                   grad_b, 1, 1);
  rb_conv_scratch_done(RB_CONV_SCRATCH_CALL);
  return rc;
}
