/* trmm: B = alpha * op(A) B or alpha * B op(A), in place, A triangular
 * (docs/contract.md §3.1). Every case is mapped onto the left side with a
 * lower or upper M = op(A) (the right side is the transposed problem: the
 * same products), and computed from gemm calls on the gemm frame, rank-1
 * updates (ger) and element-wise joins; each element's terms are the products M_ik B_kj with M_ik in the
 * triangle (the others are absent, not zero), k ascending, the diagonal term
 * B_kj itself when unit.
 *
 * Sequential: one call of the gemm frame with M marked triangular
 * (rb_gemm_job.a_tri): every row's chain runs over its k ascending, tiles
 * crossing the diagonal through the masked micro-kernel, and the frame
 * writes alpha * S straight into B (its row blocks bottom-up for a lower M,
 * top-down for an upper one, so that no row of B is overwritten before the
 * last block that reads it). Threads take whole columns (a column of the
 * result reads only its own column of B).
 * Pairwise, lower M (row i: k = 0..i), by blocks of the rows i with i + 1 in
 * [r0, r0 + R), r0 a multiple of R (a power of two), so that row i's term
 * count is r0 + d, d < R, with no carry between the two: the blocks of r0's
 * binary expansion are aligned perfect subtrees shared by the block's rows
 * (one pairwise gemm each), the last d terms a pairwise gemm per row, and all
 * blocks are joined right to left (order/order.h), as for any other sum of
 * r0 + d terms.
 * Pairwise, upper M (row i: k = i..m-1): row i's terms start at k = i, so no
 * two rows share an aligned block: one pairwise gemm per row.
 * In the pairwise blocks, the block order (bottom-up for lower M, top-down
 * for upper) keeps the rows of B a block still reads unwritten. Threads work
 * inside each gemm. */
#include <stdlib.h>
#include <string.h>

#include "../../common/fp_env.h"
#include "gemm_kernels.h"
#include "level3.h"
#include "order/order.h"
#include "partition.h"
#include "thread.h"

/* Rows per block: a power of two (the pairwise blocks above). */
enum { RB_TRMM_ROWS = 128 };

typedef struct {
  int dtype, order, lower, unit;
  const rb_context *cx;
  int64_t m, n;
  const char *a; /* M_ik = a[i*a_rs + k*a_cs] (elements) */
  int64_t a_rs, a_cs;
  char *b; /* B_kj = b[k*b_rs + j*b_cs] */
  int64_t b_rs, b_cs;
  size_t size;
  char *blk, *acc, *x; /* R x n, R x n, m elements */
} trmm_job;

#define RB_TRMM_TYPED(T, SFX)                                                                   \
  /* x[0..len) = M[i0 + t*di, k0 + t*dk] for t < len, 1 on the diagonal when unit. */          \
  static void gather_m_##SFX(const trmm_job *t, int64_t i0, int64_t k0, int64_t di, int64_t dk, \
                             int64_t len) {                                                     \
    const T *a = (const T *)t->a;                                                               \
    T *x = (T *)t->x;                                                                           \
    for (int64_t s = 0; s < len; ++s) {                                                         \
      const int64_t i = i0 + s * di, k = k0 + s * dk;                                           \
      x[s] = t->unit && i == k ? (T)1 : a[i * t->a_rs + k * t->a_cs];                          \
    }                                                                                           \
  }                                                                                             \
  /* dst = a + dst, element by element (a block joined on the left). */                        \
  static void join_##SFX(void *dst, const void *a, int64_t count) {                             \
    for (int64_t e = 0; e < count; ++e) ((T *)dst)[e] = ((const T *)a)[e] + ((T *)dst)[e];      \
  }                                                                                             \
  /* Rows [i0, i1) of B = alpha * the block's sums (blk, rows of n), along B's        \
   * contiguous index. */                                                                       \
  static void store_##SFX(const trmm_job *t, const void *alpha, int64_t i0, int64_t i1) {       \
    const T al = *(const T *)alpha, *s = (const T *)t->blk;                                     \
    T *b = (T *)t->b;                                                                           \
    if (t->b_rs == 1 && t->b_cs != 1)                                                           \
      for (int64_t j = 0; j < t->n; ++j)                                                        \
        for (int64_t i = i0; i < i1; ++i)                                                       \
          b[i + j * t->b_cs] = al * s[(i - i0) * t->n + j];                        \
    else                                                                                        \
      for (int64_t i = i0; i < i1; ++i)                                                         \
        for (int64_t j = 0; j < t->n; ++j)                                                      \
          b[i * t->b_rs + j * t->b_cs] = al * s[(i - i0) * t->n + j];              \
  }
RB_TRMM_TYPED(float, f32)
RB_TRMM_TYPED(double, f64)

#define TRMM_CALL(t, f, ...) ((t)->dtype == RB_F32 ? f##_f32(__VA_ARGS__) : f##_f64(__VA_ARGS__))

/* dst (rows x n, rows of n) = the gemm of M[i0.., k0..k0+kb) and B[k0.., :]
 * in the job's order. */
static int trmm_gemm(const trmm_job *t, int64_t i0, int64_t rows, int64_t k0, int64_t kb,
                     void *dst) {
  return rb_gemm(t->dtype, t->order, t->cx, RB_FULL, rows, t->n, kb, rb_l3_one(t->dtype),
                 t->a + (i0 * t->a_rs + k0 * t->a_cs) * t->size, t->a_rs, t->a_cs,
                 t->b + k0 * t->b_rs * t->size, t->b_rs, t->b_cs, rb_l3_zero(t->dtype), dst, t->n,
                 1);
}

/* dst row (1 x n) = the pairwise / sequential sum of M[i, k0..k0+kb) B[k0.., :]
 * (x: the gathered row of M). */
static int trmm_row(const trmm_job *t, int64_t i, int64_t k0, int64_t kb, void *dst) {
  TRMM_CALL(t, gather_m, t, i, k0, 0, 1, kb);
  return rb_gemm(t->dtype, t->order, t->cx, RB_FULL, 1, t->n, kb, rb_l3_one(t->dtype), t->x, 0, 1,
                 t->b + k0 * t->b_rs * t->size, t->b_rs, t->b_cs, rb_l3_zero(t->dtype), dst, t->n,
                 1);
}

/* Pairwise, lower M: the rows i with i + 1 in [r0, r0 + R) into blk. Row r0 - 1 (i0
 * when r0 > 0) has its diagonal among the first r0 terms and is computed
 * alone; the others' first r0 terms lie strictly below the diagonal. */
static int trmm_lower_block(trmm_job *t, int64_t r0, int64_t i0, int64_t i1) {
  int rc = 0;
  int64_t first = i0;
  if (r0 > 0) {
    if ((rc = trmm_row(t, i0, 0, r0, t->blk)) != 0) return rc;
    first = i0 + 1;
  }
  const int64_t rows = i1 - first;
  char *dst = t->blk + (first - i0) * t->n * t->size;
  if (rows <= 0) return 0;
  /* the innermost block, each row's last i + 1 - r0 terms; then
   * r0's blocks, smallest (innermost) first, each joined on the left */
  for (int64_t i = first; i < i1 && rc == 0; ++i)
    rc = trmm_row(t, i, r0, i + 1 - r0, dst + (i - first) * t->n * t->size);
  RB_BLOCKS_SMALLEST_FIRST(bit, r0, 62) {
    if (rc != 0) break;
    const int64_t size = (int64_t)1 << bit, k0 = rb_block_first(r0, size);
    if ((rc = trmm_gemm(t, first, rows, k0, size, t->acc)) == 0)
      TRMM_CALL(t, join, dst, t->acc, rows * t->n);
  }
  return rc;
}

/* Sequential: the columns of B a thread computes, in items of the frame's
 * blocks (nc columns x the rows whose sums a thread keeps), with a stop poll
 * before each. In place: a lower M's row blocks bottom-up, an upper one's
 * top-down (a row block reads B's rows up to, or from, its own). */
typedef struct {
  int dtype, lower;
  const void *job;
  int64_t m, n, unit, item, rows;
  int status[RB_MAX_PARTS];
} trmm_split;

static void trmm_part(void *ctx, int part, int parts) {
  trmm_split *s = ctx;
  const rb_share sh = rb_part_share(s->n, s->unit, part, parts);
  const int64_t blocks = (s->m + s->rows - 1) / s->rows;
  s->status[part] = 0;
  for (int64_t j = sh.lo; j < sh.hi; j += s->item) {
    const int64_t j1 = sh.hi - j < s->item ? sh.hi : j + s->item;
    for (int64_t bi = 0; bi < blocks; ++bi) {
      if (rb_stop_poll()) return; /* rb_trmm reports the stop */
      const int64_t i0 = (s->lower ? blocks - 1 - bi : bi) * s->rows;
      const int64_t i1 = s->m - i0 < s->rows ? s->m : i0 + s->rows;
      s->status[part] = s->dtype == RB_F32 ? rb_gemm_block_f32(s->job, i0, i1, j, j1)
                                           : rb_gemm_block_f64(s->job, i0, i1, j, j1);
      if (s->status[part] != 0) return;
    }
  }
}

#define TRMM_SEQ(SFX, TT)                                                                    \
  do {                                                                                       \
    rb_gemm_job_##SFX job = {.m = m, .n = n, .k = m, .a = a, .a_rs = a_rs, .a_cs = a_cs,      \
                             .b = b, .b_rs = b_rs, .b_cs = b_cs, .c = b, .c_rs = b_rs,       \
                             .c_cs = b_cs, .alpha = *(const TT *)alpha, .beta = 0,           \
                             .beta_zero = 1, .order = RB_SEQUENTIAL, .uplo = RB_FULL,         \
                             .a_tri = lower ? RB_LOWER : RB_UPPER, .a_unit = unit,            \
                             .ws = cx->ws, .kt = rb_l3_table(dtype, cx->isa)};               \
    rb_l3_blocks(cx, sizeof(TT), &job.mc, &job.nc, &job.kc);                                 \
    s.unit = n == 1 ? 1 : job.kt->nr[0];                                                     \
    s.item = job.nc < s.unit ? s.unit : job.nc / s.unit * s.unit;                            \
    s.rows = job.ws / s.item < job.mc ? job.mc : job.ws / s.item / job.mc * job.mc;            \
    parts = rb_part_count(m * (m + 1) / 2 * n, cx->min_work, cx->threads,                     \
                          (n + s.unit - 1) / s.unit);                                        \
    job.threaded = parts > 1;                                                                \
    s.job = &job;                                                                            \
    rb_parallel(parts, trmm_part, &s);                                                       \
  } while (0)

/* Sequential: B = alpha * M B in place through the gemm frame. */
static int trmm_seq(int dtype, const rb_context *cfg, int lower, int unit, int64_t m, int64_t n,
                    const void *alpha, const void *a, int64_t a_rs, int64_t a_cs, void *b,
                    int64_t b_rs, int64_t b_cs) {
  rb_context tmp;
  const rb_context *cx = rb_context_use(cfg, &tmp);
  trmm_split s = {.dtype = dtype, .lower = lower, .m = m, .n = n};
  int parts;
  cr_fenv_t saved = cr_fenv_enter();
  if (dtype == RB_F32)
    TRMM_SEQ(f32, float);
  else
    TRMM_SEQ(f64, double);
  cr_fenv_leave(saved);
  if (rb_stopped()) return RB_STOPPED; /* skipped parts set no status */
  for (int p = 0; p < parts; ++p)
    if (s.status[p] != 0) return -2;
  return 0;
}

int rb_trmm(int dtype, int order, const rb_context *cfg, int right, int lower, int trans, int unit,
            int64_t m, int64_t n, const void *alpha, const void *a, int64_t a_rs, int64_t a_cs,
            void *b, int64_t b_rs, int64_t b_cs) {
  if (!rb_l3_table(dtype, cfg->isa) || (order != RB_SEQUENTIAL && order != RB_PAIRWISE) || m < 0 ||
      n < 0)
    return -1;
  if (m == 0 || n == 0) return 0;
  /* M = op(A): trans and the right side (B op(A) = (op(A)^T B^T)^T) each
   * transpose it, which swaps its strides and its triangle */
  if (trans) {
    const int64_t s = a_rs;
    a_rs = a_cs, a_cs = s, lower = !lower;
  }
  if (right) {
    int64_t s = a_rs;
    a_rs = a_cs, a_cs = s, lower = !lower;
    s = b_rs, b_rs = b_cs, b_cs = s;
    s = m, m = n, n = s;
  }
  if (order == RB_SEQUENTIAL)
    return trmm_seq(dtype, cfg, lower, unit, m, n, alpha, a, a_rs, a_cs, b, b_rs, b_cs);
  const size_t size = dtype == RB_F32 ? 4 : 8;
  const int64_t R = RB_TRMM_ROWS < m ? RB_TRMM_ROWS : m;
  trmm_job t = {dtype, order, lower, unit, cfg, m, n, a, a_rs, a_cs, b, b_rs, b_cs, size,
                NULL, NULL, NULL};
  char *buf = malloc((size_t)(2 * (R + 1) * n + m) * size);
  if (!buf) return -2;
  t.blk = buf, t.acc = buf + (R + 1) * n * size, t.x = t.acc + (R + 1) * n * size;
  int rc = 0;
  cr_fenv_t saved = cr_fenv_enter();
  if (lower) { /* bottom-up: block b holds the rows with i + 1 in [b R, b R + R) */
    for (int64_t r0 = (m / RB_TRMM_ROWS) * RB_TRMM_ROWS; r0 >= 0 && rc == 0; r0 -= RB_TRMM_ROWS) {
      const int64_t i0 = r0 > 0 ? r0 - 1 : 0;
      const int64_t i1 = r0 + RB_TRMM_ROWS - 1 < m ? r0 + RB_TRMM_ROWS - 1 : m;
      if (i0 >= i1) continue;
      rc = trmm_lower_block(&t, r0, i0, i1);
      if (rc == 0) TRMM_CALL(&t, store, &t, alpha, i0, i1);
    }
  } else { /* top-down */
    for (int64_t i0 = 0; i0 < m && rc == 0; i0 += R) {
      const int64_t i1 = i0 + R < m ? i0 + R : m;
      for (int64_t i = i0; i < i1 && rc == 0; ++i)
        rc = trmm_row(&t, i, i, m - i, t.blk + (i - i0) * n * size);
      if (rc == 0) TRMM_CALL(&t, store, &t, alpha, i0, i1);
    }
  }
  cr_fenv_leave(saved);
  free(buf);
  return rc;
}
