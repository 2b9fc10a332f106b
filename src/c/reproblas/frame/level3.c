/* Level-2/3 entry points: checks, floating-point environment, the thread
 * split over output tiles, the frame's block walk (gemm_blocks.c) with the
 * path's kernels (gemm_engine.inc). */
#include "level3.h"

#include <pthread.h>
#include <stdlib.h>

#include "../../common/fp_env.h"
#include "../../common/isa.h"
#include "exact_reduce.h"
#include "kahan_kernels.h"
#include "gemm_kernels.h"
#include "partition.h"
#include "thread.h"

/* A gemv multiply-add reads its element of A from memory and runs 8-16x
 * slower than a gemm one, so it counts 16: two threads from 2^16 terms
 * (n = 384 square). With gemm's threshold, 2-thread gemv stayed on one
 * thread up to n = 1024 (float32, AMD EPYC: n = 512 / 768 / 1024 went from
 * 14 / 16 / 16 GFLOP/s to 27 / 31 / 31, OpenBLAS 29 / 56 / 58). */
#define RB_GEMV_WEIGHT 16

#if defined(__x86_64__)
#define RB_TABLES(sfx) {&rb_l3_##sfx##_scalar, &rb_l3_##sfx##_avx2, &rb_l3_##sfx##_avx512}
#else
#define RB_TABLES(sfx) {&rb_l3_##sfx##_scalar, NULL, NULL}
#endif
static const rb_l3_kernels_f32 *const l3_f32[CR_ISA_COUNT] = RB_TABLES(f32);
static const rb_l3_kernels_f64 *const l3_f64[CR_ISA_COUNT] = RB_TABLES(f64);

/* Per-thread scratch through a pthread key, so that the buffers of threads
 * that end (rb_parallel's fallback threads) are freed. */
typedef struct {
  void *buf;
  size_t size;
} l3_scratch;
static pthread_key_t scratch_key;
static pthread_once_t scratch_once = PTHREAD_ONCE_INIT;

static void scratch_free(void *p) {
  l3_scratch *s = p;
  free(s->buf);
  free(s);
}
static void scratch_init(void) { pthread_key_create(&scratch_key, scratch_free); }

void *rb_l3_scratch(size_t bytes) {
  pthread_once(&scratch_once, scratch_init);
  l3_scratch *s = pthread_getspecific(scratch_key);
  if (!s) {
    s = calloc(1, sizeof *s);
    if (!s || pthread_setspecific(scratch_key, s) != 0) {
      free(s);
      return NULL;
    }
  }
  if (bytes > s->size) {
    free(s->buf);
    s->size = (bytes + 4095) / 4096 * 4096;
    s->buf = aligned_alloc(64, s->size);
    if (!s->buf) s->size = 0;
  }
  return s->buf;
}

static int l3_ok(int dtype, const rb_context *cfg) {
  return (dtype == RB_F32 || dtype == RB_F64) && cfg->isa >= 0 && cfg->isa < CR_ISA_COUNT &&
         (dtype == RB_F32 ? l3_f32[cfg->isa] != NULL : l3_f64[cfg->isa] != NULL) &&
         cr_isa_supported(cfg->isa);
}

const void *rb_l3_table(int dtype, int isa) {
  rb_context cfg = {.isa = isa, .threads = 1};
  if (!l3_ok(dtype, &cfg)) return NULL;
  return dtype == RB_F32 ? (const void *)l3_f32[isa] : (const void *)l3_f64[isa];
}

void rb_l3_blocks(const rb_context *cx, int64_t elem_size, int64_t *mc, int64_t *nc,
                  int64_t *kc) {
  *mc = cx->mc, *nc = cx->nc, *kc = cx->kc ? cx->kc : 1024 / elem_size;
}

const void *rb_l3_one(int dtype) {
  static const float one32 = 1;
  static const double one64 = 1;
  return dtype == RB_F32 ? (const void *)&one32 : (const void *)&one64;
}
const void *rb_l3_zero(int dtype) {
  static const float zero32 = 0;
  static const double zero64 = 0;
  return dtype == RB_F32 ? (const void *)&zero32 : (const void *)&zero64;
}

/* The split units (rows or columns of C, tile multiples) of every batch
 * entry, numbered entry by entry: a part owns units [u0, u1), i.e. whole
 * rectangles of C in one or more entries, each computed start to finish by
 * one thread. Entry e's operands are offset by its batch index (e unravelled
 * over shape, C order) times each operand's batch strides. */
typedef struct {
  int (*block)(const void *job, int64_t i0, int64_t i1, int64_t j0, int64_t j1);
  const void *job; /* the template: entry 0 */
  int64_t m, n, unit, units, batch;
  int64_t item_m, item_n; /* the work items' rows and columns (l3_items) */
  int by_rows, nd;
  const int64_t *shape, *a_bs, *b_bs, *c_bs;
  int status[RB_MAX_PARTS];
} l3_split;

/* The rectangle [i0, i1) x [j0, j1) of C as work items of item_m x item_n,
 * each a call of the engine's block with a stop poll before it (rb_stop_poll).
 * The items are the engine's own row and column blocks (l3_item_sizes), so a
 * rectangle costs the packing it costs in one call; the bits never depend on
 * who computes an element or in which call (contract §0). */
static int l3_items(const l3_split *s, const void *job, int64_t i0, int64_t i1, int64_t j0,
                    int64_t j1) {
  for (int64_t jc = j0; jc < j1; jc += s->item_n)
    for (int64_t ic = i0; ic < i1; ic += s->item_m) {
      if (rb_stop_poll()) return 0; /* the entry point reports the stop */
      const int st = s->block(job, ic, i1 - ic < s->item_m ? i1 : ic + s->item_m, jc,
                              j1 - jc < s->item_n ? j1 : jc + s->item_n);
      if (st != 0) return st;
    }
  return 0;
}

/* The frame's blocks (gemm_blocks.inc): a packed kc x nc block of op(B) serves mw rows
 * (sequential; pairwise: mc) and a packed A block nc columns, so items of mw
 * (mc) x nc add no packing. gemv items: about L3_GEMV_ITEM multiply-adds. */
#define L3_PW_NC_MAX 512 /* gemm_blocks.c's RB_PW_NC_MAX */
#define L3_GEMV_ITEM ((int64_t)1 << 26)
static int64_t l3_round_down(int64_t v, int64_t unit) { return v < unit ? unit : v / unit * unit; }
static void l3_item_sizes(l3_split *s, int pw, int64_t k, int64_t mr, int64_t nr, int64_t mc,
                          int64_t nc, int64_t ws) {
  if (s->n == 1) {
    const int64_t rows = L3_GEMV_ITEM / (k > 0 ? k : 1);
    s->item_m = rows > mr ? (rows + mr - 1) / mr * mr : mr;
    s->item_n = 1;
    return;
  }
  if (s->m <= mr && s->n <= nr) { /* one item whatever the sizes (each >= mr x nr) */
    s->item_m = mr;
    s->item_n = nr;
    return;
  }
  mc = l3_round_down(mc, mr);
  nc = l3_round_down(pw && nc > L3_PW_NC_MAX ? L3_PW_NC_MAX : nc, nr);
  s->item_m = pw || ws < 1 ? mc : l3_round_down(ws / nc, mc);
  s->item_n = nc;
}

#define RB_L3_PART(SFX)                                                                        \
  static void l3_part_##SFX(void *ctx, int part, int parts) {                                  \
    l3_split *s = ctx;                                                                         \
    const int64_t total = s->units * s->batch;                                                 \
    const rb_share sh = rb_part_share(total, 1, part, parts);                                  \
    int64_t u = sh.lo;                                                                         \
    const int64_t u_end = sh.hi;                                                               \
    s->status[part] = 0;                                                                       \
    while (u < u_end && s->status[part] == 0) {                                                \
      const int64_t e = u / s->units, first = e * s->units;                                    \
      const int64_t next = first + s->units < u_end ? first + s->units : u_end;                \
      rb_gemm_job_##SFX job = *(const rb_gemm_job_##SFX *)s->job;                              \
      for (int64_t d = s->nd - 1, rest = e; d >= 0; --d) {                                     \
        const int64_t idx = rest % s->shape[d];                                                \
        rest /= s->shape[d];                                                                   \
        job.a += idx * s->a_bs[d], job.b += idx * s->b_bs[d], job.c += idx * s->c_bs[d];       \
      }                                                                                        \
      const int64_t lim = s->by_rows ? s->m : s->n, lo = (u - first) * s->unit;                \
      const int64_t hi = (next - first) * s->unit < lim ? (next - first) * s->unit : lim;      \
      s->status[part] = s->by_rows ? l3_items(s, &job, lo, hi, 0, s->n)                        \
                                   : l3_items(s, &job, 0, s->m, lo, hi);                       \
      u = next;                                                                                \
    }                                                                                          \
  }
RB_L3_PART(f32)
RB_L3_PART(f64)

/* Whether to split C by rows (else by columns) over `parts` threads: the
 * direction whose largest part has fewer tiles, rows on a tie. A row part
 * packs only its rows of A, and B once per mc rows, as one thread would; a
 * column part packs all of A again. (2 threads, float32, n = 256-1024, one
 * thread timing its own part: rows 1-5% faster; columns split 43 tiles 22:21
 * at n = 256.) */
static int l3_rows_first(int64_t batch, int64_t m, int64_t n, int64_t mr, int64_t nr, int parts) {
  const int64_t um = batch * ((m + mr - 1) / mr), un = batch * ((n + nr - 1) / nr);
  const int64_t rows_cost = (um + parts - 1) / parts * ((n + nr - 1) / nr);
  const int64_t cols_cost = (un + parts - 1) / parts * ((m + mr - 1) / mr);
  return rows_cost <= cols_cost;
}

#define RB_GEMM_RUN(SFX, TT)                                                                  \
  do {                                                                                        \
    const rb_l3_kernels_##SFX *kt = l3_##SFX[cfg->isa];                                       \
    rb_gemm_job_##SFX job = {.m = m, .n = n, .k = k, .a = op.a, .a_rs = op.a_rs,             \
                             .a_cs = op.a_cs, .b = op.b, .b_rs = op.b_rs, .b_cs = op.b_cs,    \
                             .c = c, .c_rs = c_rs, .c_cs = c_cs, .alpha = *(const TT *)alpha, \
                             .beta = *(const TT *)beta, .beta_zero = *(const TT *)beta == 0,  \
                             .order = order, .uplo = uplo, .a_sym = op.a_sym,                 \
                             .b_sym = op.b_sym, .a2 = op.a2, .a2_rs = op.a2_rs,               \
                             .a2_cs = op.a2_cs, .b2 = op.b2, .b2_rs = op.b2_rs,               \
                             .b2_cs = op.b2_cs, .ws = cx->ws,                                 \
                             .kt = kt};                                                       \
    rb_l3_blocks(cx, sizeof(TT), &job.mc, &job.nc, &job.kc);                                 \
    int o = order == RB_PAIRWISE;                                                             \
    s.block = rb_gemm_block_##SFX;                                                            \
    s.job = &job;                                                                             \
    if (n == 1) {                                                                             \
      s.by_rows = 1, s.unit = kt->gemv_mr[o];                                                 \
    } else {                                                                                  \
      s.by_rows = l3_rows_first(batch, m, n, kt->mr[o], kt->nr[o], cx->threads);               \
      s.unit = s.by_rows ? kt->mr[o] : kt->nr[o];                                             \
    }                                                                                         \
    s.units = ((s.by_rows ? m : n) + s.unit - 1) / s.unit;                                   \
    l3_item_sizes(&s, o, k, n == 1 ? kt->gemv_mr[o] : kt->mr[o], kt->nr[o], job.mc, job.nc,  \
                  job.ws);                                                                    \
    parts = rb_part_count((n == 1 ? RB_GEMV_WEIGHT : 1) * batch * m * n * (k > 0 ? k : 1),    \
                          cx->min_work, cx->threads, batch * s.units);                          \
    job.threaded = parts > 1;                                                                 \
    rb_parallel(parts, l3_part_##SFX, &s);                                                    \
  } while (0)

/* rb_gemm_batched and rb_gemm_ex: the batch (nd = 0: one product), the
 * operands (op: taken by value, swapped for a row times a matrix). */
static int gemm_run(int dtype, int order, const rb_context *cfg, int uplo, int nd,
                    const int64_t *shape, const int64_t *a_bs, const int64_t *b_bs,
                    const int64_t *c_bs, int64_t m, int64_t n, int64_t k, const void *alpha,
                    rb_operands op, const void *beta, void *c, int64_t c_rs, int64_t c_cs) {
  const int structured = op.a_sym || op.b_sym || op.a2 || op.b2;
  const int extra = order == RB_EXACT || order == RB_KAHAN; /* docs/contract.md §5.4-§5.5 */
  if (!l3_ok(dtype, cfg) || (order != RB_SEQUENTIAL && order != RB_PAIRWISE && !extra) || m < 0 ||
      n < 0 || k < 0 || nd < 0 || uplo < RB_FULL || uplo > RB_UPPER || op.a_sym < 0 ||
      op.a_sym > RB_UPPER || op.b_sym < 0 || op.b_sym > RB_UPPER || (!op.a2 != !op.b2) ||
      (op.a2 && k % 2) ||
      (extra && (nd != 0 || uplo != RB_FULL || structured)))
    return -1;
  if (extra) { /* plain gemv and gemm: frame/exact.c, frame/kahan.c */
    rb_context tmp;
    const rb_context *cx = rb_context_use(cfg, &tmp);
    cr_fenv_t saved = cr_fenv_enter();
    int rc;
    if (order == RB_EXACT)
      rc = rb_exact_gemm(dtype, cx, m, n, k, alpha, op.a, op.a_rs, op.a_cs, op.b, op.b_rs,
                         op.b_cs, beta, c, c_rs, c_cs);
    else if (dtype == RB_F32)
      rc = rb_kahan_gemm_f32(cx, m, n, k, *(const float *)alpha, op.a, op.a_rs, op.a_cs, op.b,
                             op.b_rs, op.b_cs, *(const float *)beta,
                             (*(const uint32_t *)beta << 1) == 0, c, c_rs, c_cs);
    else
      rc = rb_kahan_gemm_f64(cx, m, n, k, *(const double *)alpha, op.a, op.a_rs, op.a_cs, op.b,
                             op.b_rs, op.b_cs, *(const double *)beta,
                             (*(const uint64_t *)beta << 1) == 0, c, c_rs, c_cs);
    cr_fenv_leave(saved);
    return rb_stopped() ? RB_STOPPED : rc; /* skipped elements: no result */
  }
  int64_t batch = 1;
  for (int d = 0; d < nd; ++d) {
    if (shape[d] < 0) return -1;
    batch *= shape[d];
  }
  if (m == 0 || n == 0 || batch == 0) return 0;
  if (m == 1 && n > 1 && !structured) {
    /* A row times a matrix: compute C^T = op(B)^T op(A)^T, one column, with
     * the gemv tiles. Each element has the same terms in the same order
     * (a*b and b*a are the same product), so the bits are the same. */
    const void *t = op.a;
    const int64_t *t_bs = a_bs;
    int64_t t_rs = op.a_rs, t_cs = op.a_cs;
    op.a = op.b, op.a_rs = op.b_cs, op.a_cs = op.b_rs, a_bs = b_bs;
    op.b = t, op.b_rs = t_cs, op.b_cs = t_rs, b_bs = t_bs;
    t_rs = c_rs, c_rs = c_cs, c_cs = t_rs;
    m = n, n = 1;
    uplo = uplo == RB_FULL ? RB_FULL : RB_LOWER + RB_UPPER - uplo; /* C^T swaps the triangles */
  }
  /* One column: the lower triangle is all of it, the upper one its first row
   * (the gemv kernels write whole columns). */
  if (n == 1 && uplo != RB_FULL) {
    if (uplo == RB_UPPER) m = 1;
    uplo = RB_FULL;
  }
  rb_context tmp;
  const rb_context *cx = rb_context_use(cfg, &tmp);
  int parts;
  l3_split s;
  s.m = m, s.n = n, s.batch = batch, s.nd = nd;
  s.shape = shape, s.a_bs = a_bs, s.b_bs = b_bs, s.c_bs = c_bs;
  cr_fenv_t saved = cr_fenv_enter();
  if (dtype == RB_F32)
    RB_GEMM_RUN(f32, float);
  else
    RB_GEMM_RUN(f64, double);
  cr_fenv_leave(saved);
  if (rb_stopped()) return RB_STOPPED; /* skipped parts set no status */
  for (int p = 0; p < parts; ++p)
    if (s.status[p] != 0) return -2;
  return 0;
}

int rb_gemm_batched(int dtype, int order, const rb_context *cfg, int uplo, int nd,
                    const int64_t *shape, const int64_t *a_bs, const int64_t *b_bs,
                    const int64_t *c_bs, int64_t m, int64_t n, int64_t k, const void *alpha,
                    const void *a, int64_t a_rs, int64_t a_cs, const void *b, int64_t b_rs,
                    int64_t b_cs, const void *beta, void *c, int64_t c_rs, int64_t c_cs) {
  const rb_operands op = {.a = a, .a_rs = a_rs, .a_cs = a_cs, .b = b, .b_rs = b_rs, .b_cs = b_cs};
  return gemm_run(dtype, order, cfg, uplo, nd, shape, a_bs, b_bs, c_bs, m, n, k, alpha, op, beta,
                  c, c_rs, c_cs);
}

int rb_gemm_ex(int dtype, int order, const rb_context *cfg, int uplo, int64_t m, int64_t n,
               int64_t k, const void *alpha, const rb_operands *op, const void *beta, void *c,
               int64_t c_rs, int64_t c_cs) {
  if (!op) return -1;
  return gemm_run(dtype, order, cfg, uplo, 0, NULL, NULL, NULL, NULL, m, n, k, alpha, *op, beta, c,
                  c_rs, c_cs);
}

int rb_gemm(int dtype, int order, const rb_context *cfg, int uplo, int64_t m, int64_t n, int64_t k,
            const void *alpha, const void *a, int64_t a_rs, int64_t a_cs, const void *b,
            int64_t b_rs, int64_t b_cs, const void *beta, void *c, int64_t c_rs, int64_t c_cs) {
  return rb_gemm_batched(dtype, order, cfg, uplo, 0, NULL, NULL, NULL, NULL, m, n, k, alpha, a,
                         a_rs, a_cs, b, b_rs, b_cs, beta, c, c_rs, c_cs);
}

/* ---- ger ---- */

typedef struct {
  void (*ger)(int64_t m, int64_t n, const void *x, const void *ay, void *a, int64_t rs,
              int64_t cs);
  int64_t m, n, rs, cs, size;
  const char *x, *ay;
  char *a;
  int by_rows;
} ger_split;

static void ger_part(void *ctx, int part, int parts) {
  const ger_split *g = ctx;
  const rb_share sh = rb_part_share(g->by_rows ? g->m : g->n, 1, part, parts);
  const int64_t lo = sh.lo, hi = sh.hi;
  if (g->by_rows)
    g->ger(hi - lo, g->n, g->x + lo * g->size, g->ay, g->a + lo * g->rs * g->size, g->rs, g->cs);
  else
    g->ger(g->m, hi - lo, g->x, g->ay + lo * g->size, g->a + lo * g->cs * g->size, g->rs, g->cs);
}

int rb_ger(int dtype, const rb_context *cfg, int64_t m, int64_t n, const void *alpha, const void *x,
           const void *y, void *a, int64_t a_rs, int64_t a_cs) {
  if (!l3_ok(dtype, cfg) || m < 0 || n < 0) return -1;
  if (m == 0 || n == 0) return 0;
  const int64_t size = dtype == RB_F32 ? 4 : 8;
  void *ay = malloc((size_t)(n * size));
  if (!ay) return -2;
  rb_context tmp;
  const rb_context *cx = rb_context_use(cfg, &tmp);
  /* split along the strided index, so each thread's writes are contiguous runs */
  int by_rows = a_cs == 1 || a_rs != 1;
  int parts = rb_part_count(m * n * 8, cx->min_work, cx->threads, by_rows ? m : n);
  ger_split g = {NULL, m, n, a_rs, a_cs, size, x, ay, a, by_rows};
  cr_fenv_t saved = cr_fenv_enter();
  if (dtype == RB_F32) {
    float al = *(const float *)alpha;
    for (int64_t j = 0; j < n; ++j) ((float *)ay)[j] = al * ((const float *)y)[j];
    g.ger = l3_f32[cfg->isa]->ger;
  } else {
    double al = *(const double *)alpha;
    for (int64_t j = 0; j < n; ++j) ((double *)ay)[j] = al * ((const double *)y)[j];
    g.ger = l3_f64[cfg->isa]->ger;
  }
  rb_parallel(parts, ger_part, &g);
  cr_fenv_leave(saved);
  free(ay);
  return 0;
}
