/* cumprod(order="exact") (docs/contract.md §5.4): prefix k is RN of the exact
 * product t_0 ... t_k. Each row runs the fast form of order/exact_prod.h (a
 * 192-bit running product with a proven error bound) and rounds every prefix
 * from it; when the bound's interval meets a rounding boundary, the prefix is
 * rounded from the exact product (a bignum of the terms' odd significands,
 * brought up to date from where it was last used) and the fast form restarts
 * from it. Both forms are exact or rigorously bounded, so every prefix is the
 * correctly rounded value whatever the path or thread count: the ISA is not
 * consulted. docs/design/exact_cumprod.md has the proof. */
#include "../exact_cumprod.h"

#include <stdlib.h>
#include <string.h>

#include "../level1.h"
#include "order/exact_prod.h"
#include "partition.h"
#include "thread.h"

/* the exact form's bignum, grown on demand; a poll for Ctrl-C every so much work */
typedef struct {
  uint64_t *b;
  int64_t n, cap, done; /* limbs, room, terms multiplied in */
  int64_t work;
} xbig;

typedef struct {
  int f32, exclusive, copy, check;
  const void *x;
  void *out;
  int64_t rows, n;
  int failed[RB_MAX_PARTS];
} xprod_job;

static uint64_t term_bits(const void *row, int f32, int64_t i) {
  if (f32) {
    uint32_t u;
    memcpy(&u, (const float *)row + i, sizeof u);
    return u;
  }
  uint64_t u;
  memcpy(&u, (const double *)row + i, sizeof u);
  return u;
}

/* The exact product of the first `upto` terms of row (all finite and nonzero)
 * into g. Returns 0, -2 (no memory) or 1 (stopped). */
static int big_extend(xbig *g, const void *row, int f32, const rb_xfmt *f, int64_t upto) {
  if (g->b == NULL) {
    g->cap = 64;
    g->b = malloc(sizeof(uint64_t) * (size_t)g->cap);
    if (g->b == NULL) return -2;
    g->b[0] = 1;
    g->n = 1;
    g->done = 0;
  }
  for (; g->done < upto; ++g->done) {
    const rb_xterm t = rb_xterm_of(term_bits(row, f32, g->done), f);
    if (t.m == 1) continue;
    if (g->n + 1 > g->cap) {
      uint64_t *nb = realloc(g->b, sizeof(uint64_t) * (size_t)g->cap * 2);
      if (nb == NULL) return -2;
      g->b = nb;
      g->cap *= 2;
    }
    g->n = rb_xbig_mul(g->b, g->n, t.m);
    g->work += g->n;
    if (g->work >= (1 << 22)) {
      g->work = 0;
      if (rb_stop_poll()) return 1;
    }
  }
  return 0;
}

static void put(void *out, int f32, int64_t i, uint64_t bits) {
  if (f32) {
    const uint32_t u = (uint32_t)bits;
    memcpy((float *)out + i, &u, sizeof u);
  } else {
    memcpy((double *)out + i, &bits, sizeof bits);
  }
}

/* Prefix `upto` (terms [0, upto)) of the row into out[i]. Returns as big_extend. */
static int emit(rb_xprod *s, xbig *g, const void *row, int f32, const rb_xfmt *f, int64_t upto,
                int check, void *out, int64_t i) {
  uint64_t bits;
  if (!rb_xprod_round(s, f, &bits) || (check && s->j && rb_xprod_finite(s))) {
    const int rc = big_extend(g, row, f32, f, upto);
    if (rc) return rc;
    rb_xprod_round_limbs(g->b, g->n, s->esum, 0, s->neg, f, &bits);
    rb_xprod_restart(s, g->b, g->n);
  }
  put(out, f32, i, bits);
  return 0;
}

static void xprod_part(void *ctx, int part, int parts) {
  xprod_job *j = ctx;
  const rb_share sh = rb_part_share(j->rows, 1, part, parts);
  const int f32 = j->f32;
  const size_t size = f32 ? sizeof(float) : sizeof(double);
  const rb_xfmt f = rb_xfmt_of(f32);
  xbig g = {NULL, 0, 0, 0, 0};
  void *copy = NULL;
  if (j->copy && sh.hi > sh.lo) {
    copy = malloc(size * (size_t)j->n);
    if (copy == NULL) {
      j->failed[part] = 1;
      return;
    }
  }
  for (int64_t r = sh.lo; r < sh.hi && !rb_stop_poll(); ++r) {
    const void *row = (const char *)j->x + (size_t)(r * j->n) * size;
    void *orow = (char *)j->out + (size_t)(r * j->n) * size;
    if (copy) { /* out is x: the terms stay readable for the exact form */
      memcpy(copy, row, size * (size_t)j->n);
      row = copy;
    }
    rb_xprod s;
    rb_xprod_init(&s);
    g.done = 0;
    if (g.b) g.b[0] = 1, g.n = 1;
    int rc = 0;
    for (int64_t i = 0; i < j->n && rc == 0; ++i) {
      const rb_xterm t = rb_xterm_of(term_bits(row, f32, i), &f);
      if (j->exclusive) rc = emit(&s, &g, row, f32, &f, i, j->check, orow, i);
      rb_xprod_mul(&s, &t);
      if (!j->exclusive && rc == 0) rc = emit(&s, &g, row, f32, &f, i + 1, j->check, orow, i);
      if ((i & 0xFFFF) == 0xFFFF && rb_stop_poll()) rc = 1;
    }
    if (rc == -2) j->failed[part] = 1;
    if (rc) break;
  }
  free(g.b);
  free(copy);
}

int rb_exact_cumprod(int dtype, const rb_context *cx, const void *x, int64_t rows, int64_t n,
                     int exclusive, void *out) {
  if (rows == 0 || n == 0) return 0;
  const size_t bytes = (size_t)(rows * n) * (dtype == RB_F32 ? sizeof(float) : sizeof(double));
  const char *xb = x, *ob = out;
  xprod_job *job = malloc(sizeof *job);
  if (job == NULL) return -2;
  memset(job, 0, sizeof *job);
  job->f32 = dtype == RB_F32;
  job->exclusive = exclusive != 0;
  job->copy = ob < xb + bytes && xb < ob + bytes;
  job->x = x;
  job->out = out;
  job->rows = rows;
  job->n = n;
  /* tests: every inexact prefix from the exact form, to check it against the fast one */
  const char *check = getenv("REPROBLAS_EXACT_PROD_CHECK");
  job->check = check != NULL && check[0] == '1';
  const int parts = rb_part_count(rows * n, cx->min_per_thread, cx->threads, rows);
  rb_parallel(parts, xprod_part, job);
  int rc = 0;
  for (int p = 0; p < parts; ++p)
    if (job->failed[p]) rc = -2;
  free(job);
  return rc;
}
