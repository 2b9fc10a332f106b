/* trsv / trsm entry point: checks, the mapping of every case onto one
 * left-side solve with a lower or upper M, the floating-point environment
 * and the thread split over right-hand sides (trsm_engine.inc solves them). */
#include "gemm_kernels.h"
#include "level3.h"

#include "../../common/fp_env.h"
#include "order/order.h"
#include "partition.h"
#include "thread.h"

/* Right-hand sides are split among threads in multiples of RB_TRSM_SPLIT. */
enum { RB_TRSM_SPLIT = 16 };

typedef struct {
  int (*solve)(const void *job, int64_t k0, int64_t k1);
  const void *job;
  int64_t units, nrhs, item;
  int status[RB_MAX_PARTS];
} trsm_split;

/* A part's right-hand sides go item by item (whole panels, about
 * TRSM_ITEM_WORK multiply-adds), with a stop poll before each; every
 * right-hand side is solved alone, so the cuts never change a bit. */
#define TRSM_ITEM_WORK ((int64_t)1 << 26)
static int64_t trsm_item(int64_t nsys, int64_t nb) {
  const int64_t unit = (nb + RB_TRSM_SPLIT - 1) / RB_TRSM_SPLIT * RB_TRSM_SPLIT;
  const int64_t per_rhs = nsys / 2 * nsys + 1, per_unit = unit * per_rhs;
  return per_unit >= TRSM_ITEM_WORK ? unit : TRSM_ITEM_WORK / per_unit * unit;
}

static void trsm_part(void *ctx, int part, int parts) {
  trsm_split *s = ctx;
  const rb_share sh = rb_part_share(s->nrhs, RB_TRSM_SPLIT, part, parts);
  const int64_t lo = sh.lo, hi = sh.hi;
  s->status[part] = 0;
  for (int64_t k0 = lo; k0 < hi && s->status[part] == 0 && !rb_stop_poll(); k0 += s->item)
    s->status[part] = s->solve(s->job, k0, hi - k0 < s->item ? hi : k0 + s->item);
}

#define RB_TRSM_RUN(SFX, TT)                                                                \
  do {                                                                                      \
    const rb_l3_kernels_##SFX *kt = table;                                                  \
    rb_trsm_job_##SFX job = {nsys, nrhs, a, m_rs, m_cs, b, x_rs, x_cs,                     \
                             alpha ? *(const TT *)alpha : 1, alpha != NULL, lower, unit,   \
                             order, cx->trsm_mb, cx->trsm_nb, 0, 0, 0};                      \
    rb_l3_blocks(cx, sizeof(TT), &job.mc, &job.nc, &job.kc);                              \
    s.solve = kt->trsm;                                                                     \
    s.job = &job;                                                                           \
    rb_parallel(parts, trsm_part, &s);                                                      \
  } while (0)

int rb_trsm(int dtype, int order, const rb_context *cfg, int right, int lower, int trans, int unit,
            int64_t m, int64_t n, const void *alpha, const void *a, int64_t a_rs, int64_t a_cs,
            void *b, int64_t b_rs, int64_t b_cs) {
  const void *table = rb_l3_table(dtype, cfg->isa);
  if (!table || (order != RB_SEQUENTIAL && order != RB_PAIRWISE) || m < 0 || n < 0) return -1;
  if (m == 0 || n == 0) return 0;
  /* Left: M = op(A), the columns of B are the right-hand sides. Right: row i
   * solves X[i, :] op(A) = B[i, :], i.e. op(A)^T X[i, :]^T = B[i, :]^T, so
   * M = op(A)^T and the rows of B are the right-hand sides. A transpose
   * swaps M's strides and turns lower into upper. */
  const int t = (trans != 0) != (right != 0);
  const int64_t m_rs = t ? a_cs : a_rs, m_cs = t ? a_rs : a_cs;
  lower = (lower != 0) != t;
  const int64_t nsys = right ? n : m, nrhs = right ? m : n;
  const int64_t x_rs = right ? b_cs : b_rs, x_cs = right ? b_rs : b_cs;
  rb_context tmp;
  const rb_context *cx = rb_context_use(cfg, &tmp);
  trsm_split s;
  s.units = (nrhs + RB_TRSM_SPLIT - 1) / RB_TRSM_SPLIT;
  s.nrhs = nrhs;
  s.item = trsm_item(nsys, cx->trsm_nb);
  int parts = rb_part_count(nsys * nsys / 2 * nrhs, cx->min_work, cx->threads, s.units);
  cr_fenv_t saved = cr_fenv_enter();
  if (dtype == RB_F32)
    RB_TRSM_RUN(f32, float);
  else
    RB_TRSM_RUN(f64, double);
  cr_fenv_leave(saved);
  if (rb_stopped()) return RB_STOPPED; /* skipped parts set no status */
  for (int p = 0; p < parts; ++p)
    if (s.status[p] != 0) return -2;
  return 0;
}
