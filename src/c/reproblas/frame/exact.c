/* order="exact" for sum, asum and dot (docs/contract.md §5.4). Each part of
 * the vector goes into its own exact accumulator (order/exact.h); the
 * accumulators are added limb by limb, which is exact, and the total is
 * rounded once. So the thread count, the parts' bounds and the code path
 * cannot change a bit: there is nothing to round before the end. */
#include "exact_reduce.h"

#include <math.h>
#include <stdlib.h>

#include "../../common/isa.h"
#include "exact_kernels.h"
#include "order/exact.h"
#include "partition.h"
#include "terms.h"
#include "thread.h"
#include "level1.h"

#if defined(__x86_64__)
static const rb_exact_kernels *const tables[CR_ISA_COUNT] = {
    &rb_exact_kernels_scalar, &rb_exact_kernels_avx2, &rb_exact_kernels_avx512};
#else
static const rb_exact_kernels *const tables[CR_ISA_COUNT] = {&rb_exact_kernels_scalar, NULL,
                                                             NULL};
#endif

typedef struct {
  const rb_exact_kernels *k;
  int dtype, term;
  const void *x, *y;
  int64_t n;
  rb_xacc *acc; /* one per part */
} xjob;

static void xpart(void *ctx, int part, int parts) {
  const xjob *j = ctx;
  const rb_share sh = rb_part_share(j->n, 1, part, parts);
  rb_xacc *a = &j->acc[part];
  rb_xacc_init(a);
  if (j->dtype == RB_F32)
    j->k->run_f32(a, j->term, (const float *)j->x + sh.lo,
                    j->y ? (const float *)j->y + sh.lo : NULL, sh.hi - sh.lo);
  else
    j->k->run_f64(a, j->term, (const double *)j->x + sh.lo,
                    j->y ? (const double *)j->y + sh.lo : NULL, sh.hi - sh.lo);
}

void rb_exact_reduce(int dtype, const rb_context *cx, int term, const void *x, const void *y,
                     int64_t n, void *out) {
  const int kind = dtype == RB_F32 ? (term == RB_TERM_XY ? RB_XK_F32_PROD : RB_XK_F32)
                                   : (term == RB_TERM_XY ? RB_XK_F64_PROD : RB_XK_F64);
  int parts = rb_part_count(n, cx->min_per_thread, cx->threads, n);
  rb_xacc one;
  rb_xacc *acc = parts > 1 ? malloc(sizeof(rb_xacc) * (size_t)parts) : &one;
  if (acc == NULL) { /* no memory for the parts: one part gives the same bits */
    acc = &one;
    parts = 1;
  }
  xjob job = {tables[cx->isa], dtype, term, x, term == RB_TERM_XY ? y : NULL, n, acc};
  rb_parallel(parts, xpart, &job);
  const int nl = rb_xacc_limbs(kind);
  for (int p = 1; p < parts; ++p) rb_xacc_merge(&acc[0], &acc[p], nl); /* each normalized */
  if (dtype == RB_F32) *(float *)out = rb_xacc_round_f32(&acc[0], kind, n > 0);
  else *(double *)out = rb_xacc_round_f64(&acc[0], kind, n > 0);
  if (acc != &one) free(acc);
}

/* ---- gemv and gemm: each element an exact dot (docs/contract.md §5.4) ---- */

typedef struct {
  const rb_exact_kernels *k;
  int dtype;
  int64_t m, n, kk;
  const void *alpha, *a, *b, *beta;
  int64_t a_rs, a_cs, b_rs, b_cs, c_rs, c_cs;
  void *c;
  int failed[RB_MAX_PARTS];
} xgemm_job;

/* beta's bits all clear but the sign (docs/contract.md §2.4) */
static int beta_zero(int dtype, const void *beta) {
  if (dtype == RB_F32) return (rb_xbits32(*(const float *)beta) << 1) == 0;
  return (rb_xbits64(*(const double *)beta) << 1) == 0;
}

#define XG_BODY(T, RUN, ROUND, KIND, FMA)                                                        \
  do {                                                                                           \
    const T *A = j->a, *B = j->b;                                                                \
    T *C = j->c;                                                                                 \
    const T al = *(const T *)j->alpha, be = *(const T *)j->beta;                                 \
    const int bz = beta_zero(j->dtype, j->beta);                                                 \
    T *row = NULL, *col = NULL;                                                                  \
    if (j->kk > 0 && (j->a_cs != 1 || j->b_rs != 1)) {                                           \
      row = malloc(sizeof(T) * (size_t)j->kk * 2);                                               \
      if (row == NULL) {                                                                         \
        j->failed[part] = 1;                                                                     \
        return;                                                                                  \
      }                                                                                          \
      col = row + j->kk;                                                                         \
    }                                                                                            \
    for (int64_t e = sh.lo; e < sh.hi && !rb_stop_poll(); ++e) { /* Ctrl-C: the entry reports */\
      const int64_t i = e / j->n, jj = e % j->n;                                                 \
      const T *x = A + i * j->a_rs, *y = B + jj * j->b_cs;                                       \
      if (row) {                                                                                 \
        for (int64_t l = 0; l < j->kk; ++l) row[l] = x[l * j->a_cs], col[l] = y[l * j->b_rs];    \
        x = row, y = col;                                                                        \
      }                                                                                          \
      rb_xacc acc;                                                                               \
      rb_xacc_init(&acc);                                                                        \
      RUN;                                                                                       \
      const T s = ROUND(&acc, KIND, j->kk > 0);                                                  \
      T *out = &C[i * j->c_rs + jj * j->c_cs];                                                   \
      *out = bz ? al * s : FMA(be, *out, al * s);                                                \
    }                                                                                            \
    free(row);                                                                                   \
  } while (0)

static void xgemm_part(void *ctx, int part, int parts) {
  xgemm_job *j = ctx;
  const rb_share sh = rb_part_share(j->m * j->n, 1, part, parts);
  if (j->dtype == RB_F32)
    XG_BODY(float, j->k->run_f32(&acc, RB_TERM_XY, x, y, j->kk), rb_xacc_round_f32,
            RB_XK_F32_PROD, fmaf);
  else
    XG_BODY(double, rb_xacc_run_f64(&acc, RB_TERM_XY, x, y, j->kk), rb_xacc_round_f64,
            RB_XK_F64_PROD, fma);
}

int rb_exact_gemm(int dtype, const rb_context *cx, int64_t m, int64_t n, int64_t k,
                  const void *alpha, const void *a, int64_t a_rs, int64_t a_cs, const void *b,
                  int64_t b_rs, int64_t b_cs, const void *beta, void *c, int64_t c_rs,
                  int64_t c_cs) {
  if (m == 0 || n == 0) return 0;
  xgemm_job *job = malloc(sizeof *job);
  if (job == NULL) return -2;
  *job = (xgemm_job){tables[cx->isa], dtype, m, n, k, alpha, a, b, beta,
                     a_rs, a_cs, b_rs, b_cs, c_rs, c_cs, c, {0}};
  const int parts = rb_part_count(m * n * (k > 0 ? k : 1), cx->min_work, cx->threads, m * n);
  rb_parallel(parts, xgemm_part, job);
  int rc = 0;
  for (int p = 0; p < parts; ++p)
    if (job->failed[p]) rc = -2;
  free(job);
  return rc;
}

/* ---- cumsum: each prefix an exact sum (docs/contract.md §5.4) ---- */

typedef struct {
  int dtype, exclusive;
  const void *x;
  void *out;
  int64_t rows, n;
} xscan_job;

/* The rounded value of acc, which stays as it is (rounding normalizes its
 * operand and may negate it). */
static void xscan_emit(const rb_xacc *acc, int kind, int nl, int nterms, void *out, int64_t i) {
  rb_xacc t;
  for (int l = 0; l < nl; ++l) t.limb[l] = acc->limb[l];
  t.nan = acc->nan, t.pinf = acc->pinf, t.ninf = acc->ninf, t.nonneg0 = acc->nonneg0;
  if (kind == RB_XK_F32) ((float *)out)[i] = rb_xacc_round_f32(&t, kind, nterms);
  else ((double *)out)[i] = rb_xacc_round_f64(&t, kind, nterms);
}

static void xscan_part(void *ctx, int part, int parts) {
  const xscan_job *j = ctx;
  const rb_share sh = rb_part_share(j->rows, 1, part, parts);
  const int kind = j->dtype == RB_F32 ? RB_XK_F32 : RB_XK_F64, nl = rb_xacc_limbs(kind);
  for (int64_t r = sh.lo; r < sh.hi && !rb_stop_poll(); ++r) {
    const int64_t row = r * j->n;
    rb_xacc acc;
    rb_xacc_init(&acc);
    for (int64_t i = 0; i < j->n; ++i) {
      /* the term is read before out[row + i], which may be it, is written */
      const float xf = kind == RB_XK_F32 ? ((const float *)j->x)[row + i] : 0;
      const double xd = kind == RB_XK_F32 ? 0 : ((const double *)j->x)[row + i];
      if (j->exclusive) xscan_emit(&acc, kind, nl, i > 0, j->out, row + i);
      if (kind == RB_XK_F32) rb_xacc_add_f32(&acc, acc.limb, rb_xbits32(xf));
      else rb_xacc_add_f64(&acc, acc.limb, rb_xbits64(xd));
      if (!j->exclusive) xscan_emit(&acc, kind, nl, 1, j->out, row + i);
      if ((i + 1) % RB_XACC_BATCH == 0) rb_xacc_normalize(&acc, nl);
      if ((i & 0xFFFF) == 0xFFFF && rb_stop_poll()) return;
    }
  }
}

int rb_exact_scan(int dtype, const rb_context *cx, const void *x, int64_t rows, int64_t n,
                  int exclusive, void *out) {
  xscan_job job = {dtype, exclusive, x, out, rows, n};
  rb_parallel(rb_part_count(rows * n, cx->min_per_thread, cx->threads, rows), xscan_part, &job);
  return 0;
}
