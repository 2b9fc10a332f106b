/* trmm: B = alpha * op(A) B or alpha * B op(A), in place, A triangular
 * (docs/contract.md §3.1). Every case is mapped onto the left side with a
 * lower or upper M = op(A) (the right side is the transposed problem: the
 * same products), and computed from gemm calls on the gemm frame, rank-1
 * updates (ger) and element-wise joins; each element's terms are the products M_ik B_kj with M_ik in the
 * triangle (the others are absent, not zero), k ascending, the diagonal term
 * B_kj itself when unit.
 *
 * Sequential: every row's chain in one buffer, by recursive halving (a
 * half's triangle, one gemm continuing the chains over the rectangle the
 * other half needs, the other half's triangle; k ascending in every row;
 * rank-1 updates at the leaves), then alpha: nearly all the work in gemm
 * calls (rb_operands.c_chain).
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
 * inside each gemm / ger. */
#include <stdlib.h>
#include <string.h>

#include "../../common/fp_env.h"
#include "gemm_kernels.h"
#include "level3.h"
#include "order/order.h"

/* Rows per block: a power of two (the pairwise blocks above); rows of the
 * sequential recursion's leaves (rank-1 updates). */
enum { RB_TRMM_ROWS = 128, RB_TRMM_LEAF = 16 };

typedef struct {
  int dtype, order, lower, unit;
  const rb_context *cx;
  int64_t m, n;
  const char *a; /* M_ik = a[i*a_rs + k*a_cs] (elements) */
  int64_t a_rs, a_cs;
  char *b; /* B_kj = b[k*b_rs + j*b_cs] */
  int64_t b_rs, b_cs;
  int64_t s_rs, s_cs; /* element strides of the sums' buffer (blk, acc, or the whole S) */
  size_t size;
  char *blk, *acc, *x, *y; /* R x n, R x n, m, RB_TRMM_LEAF x n elements */
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
  /* Rows [k0, k1) of B, contiguous (row k at the result + (k - k0) n): B itself when   \
   * its rows are, else y, gathered along B's contiguous index. */                            \
  static const T *rows_b_##SFX(const trmm_job *t, int64_t k0, int64_t k1) {                    \
    const T *b = (const T *)t->b;                                                               \
    if (t->b_cs == 1 && t->b_rs == t->n) return b + k0 * t->b_rs;                              \
    T *y = (T *)t->y;                                                                           \
    for (int64_t j = 0; j < t->n; ++j)                                                          \
      for (int64_t k = k0; k < k1; ++k) y[(k - k0) * t->n + j] = b[k * t->b_rs + j * t->b_cs]; \
    return y;                                                                                   \
  }                                                                                             \
  static void fill_##SFX(void *dst, int64_t count, T v) {                                       \
    for (int64_t e = 0; e < count; ++e) ((T *)dst)[e] = v;                                      \
  }                                                                                             \
  /* dst = a + dst, element by element (a block joined on the left). */                        \
  static void join_##SFX(void *dst, const void *a, int64_t count) {                             \
    for (int64_t e = 0; e < count; ++e) ((T *)dst)[e] = ((const T *)a)[e] + ((T *)dst)[e];      \
  }                                                                                             \
  /* Rows [i0, i1) of B = alpha * the block's sums (blk, strides s_rs, s_cs), along  \
   * B's contiguous index. */                                                                   \
  static void store_##SFX(const trmm_job *t, const void *alpha, int64_t i0, int64_t i1) {       \
    const T al = *(const T *)alpha, *s = (const T *)t->blk;                                     \
    T *b = (T *)t->b;                                                                           \
    if (t->b_rs == 1 && t->b_cs != 1)                                                           \
      for (int64_t j = 0; j < t->n; ++j)                                                        \
        for (int64_t i = i0; i < i1; ++i)                                                       \
          b[i + j * t->b_cs] = al * s[(i - i0) * t->s_rs + j * t->s_cs];                        \
    else                                                                                        \
      for (int64_t i = i0; i < i1; ++i)                                                         \
        for (int64_t j = 0; j < t->n; ++j)                                                      \
          b[i * t->b_rs + j * t->b_cs] = al * s[(i - i0) * t->s_rs + j * t->s_cs];              \
  }
RB_TRMM_TYPED(float, f32)
RB_TRMM_TYPED(double, f64)

#define TRMM_CALL(t, f, ...) ((t)->dtype == RB_F32 ? f##_f32(__VA_ARGS__) : f##_f64(__VA_ARGS__))

/* dst (rows x n, strides s_rs, s_cs) = the gemm of M[i0.., k0..k0+kb) and
 * B[k0.., :] in the job's order; c_chain: continue the chains dst holds. */
static int trmm_gemm(const trmm_job *t, int64_t i0, int64_t rows, int64_t k0, int64_t kb,
                     void *dst, int c_chain) {
  const rb_operands op = {.a = t->a + (i0 * t->a_rs + k0 * t->a_cs) * t->size,
                          .a_rs = t->a_rs, .a_cs = t->a_cs,
                          .b = t->b + k0 * t->b_rs * t->size, .b_rs = t->b_rs, .b_cs = t->b_cs,
                          .c_chain = c_chain};
  return rb_gemm_ex(t->dtype, t->order, t->cx, RB_FULL, rows, t->n, kb, rb_l3_one(t->dtype), &op,
                    rb_l3_zero(t->dtype), dst, t->s_rs, t->s_cs);
}

/* dst row (1 x n) = the pairwise / sequential sum of M[i, k0..k0+kb) B[k0.., :]
 * (x: the gathered row of M). */
static int trmm_row(const trmm_job *t, int64_t i, int64_t k0, int64_t kb, void *dst) {
  TRMM_CALL(t, gather_m, t, i, k0, 0, 1, kb);
  return rb_gemm(t->dtype, t->order, t->cx, RB_FULL, 1, t->n, kb, rb_l3_one(t->dtype), t->x, 0, 1,
                 t->b + k0 * t->b_rs * t->size, t->b_rs, t->b_cs, rb_l3_zero(t->dtype), dst, t->n,
                 1);
}

/* Rank-1 updates continuing the chains of dst (rows i0..i1, strides s_rs, s_cs): for k
 * in [k0, k1), the rows i of the triangle get fma(M_ik, B_kj, .). */
static int trmm_band(const trmm_job *t, int64_t i0, int64_t i1, int64_t k0, int64_t k1,
                     char *dst) {
  const char *rows = t->dtype == RB_F32 ? (const char *)rows_b_f32(t, k0, k1)
                                         : (const char *)rows_b_f64(t, k0, k1);
  for (int64_t k = k0; k < k1; ++k) {
    const int64_t lo = t->lower ? (k > i0 ? k : i0) : i0, hi = t->lower ? i1 : k + 1;
    if (lo >= hi) continue;
    TRMM_CALL(t, gather_m, t, lo, k, 1, 0, hi - lo);
    const int rc = rb_ger(t->dtype, t->cx, hi - lo, t->n, rb_l3_one(t->dtype), t->x,
                          rows + (k - k0) * t->n * t->size, dst + (lo - i0) * t->s_rs * t->size,
                          t->s_rs, t->s_cs);
    if (rc != 0) return rc;
  }
  return 0;
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
    if ((rc = trmm_gemm(t, first, rows, k0, size, t->acc, 0)) == 0)
      TRMM_CALL(t, join, dst, t->acc, rows * t->n);
  }
  return rc;
}

/* Sequential: the chains of rows [i0, i1) (dst, started) continued
 * over their terms with k in [i0, i1), recursively: a half's triangle, the
 * rectangle the other half needs (one gemm continuing the chains), the other
 * half's triangle, k ascending for every row; leaves by rank-1 updates. Each
 * level repacks B once, so the gemm calls do nearly all the work. */
static int trmm_seq_rec(const trmm_job *t, int64_t i0, int64_t i1, char *dst) {
  if (i1 - i0 <= RB_TRMM_LEAF) return trmm_band(t, i0, i1, i0, i1, dst);
  const int64_t h = i0 + (i1 - i0) / 2;
  char *upper_rows = dst, *lower_rows = dst + (h - i0) * t->s_rs * t->size;
  int rc;
  if (t->lower) { /* row i: k <= i. Rows [h, i1) need k in [i0, h) before their own triangle */
    if ((rc = trmm_seq_rec(t, i0, h, upper_rows)) != 0) return rc;
    if ((rc = trmm_gemm(t, h, i1 - h, i0, h - i0, lower_rows, 1)) != 0) return rc;
    return trmm_seq_rec(t, h, i1, lower_rows);
  } /* row i: k >= i. Rows [i0, h) take k in [h, i1) after their own triangle */
  if ((rc = trmm_seq_rec(t, i0, h, upper_rows)) != 0) return rc;
  if ((rc = trmm_gemm(t, i0, h - i0, h, i1 - h, upper_rows, 1)) != 0) return rc;
  return trmm_seq_rec(t, h, i1, lower_rows);
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
  const size_t size = dtype == RB_F32 ? 4 : 8;
  const int64_t R = RB_TRMM_ROWS < m ? RB_TRMM_ROWS : m;
  trmm_job t = {dtype, order, lower, unit, cfg, m, n, a, a_rs, a_cs, b, b_rs, b_cs, n, 1, size,
                NULL, NULL, NULL, NULL};
  char *buf = malloc((size_t)(2 * (R + 1) * n + m + RB_TRMM_LEAF * n) * size);
  if (!buf) return -2;
  t.blk = buf, t.acc = buf + (R + 1) * n * size, t.x = t.acc + (R + 1) * n * size;
  t.y = t.x + m * size;
  int rc = 0;
  cr_fenv_t saved = cr_fenv_enter();
  if (order == RB_SEQUENTIAL) { /* every row's chain in one m x n buffer, then alpha */
    char *all = malloc((size_t)(m * n) * size);
    if (!all) {
      rc = -2;
    } else {
      if (b_rs == 1 && b_cs != 1) t.s_rs = 1, t.s_cs = m; /* B's layout: a cheap store */
      TRMM_CALL(&t, fill, all, m * n, RB_CHAIN_START(double));
      rc = trmm_seq_rec(&t, 0, m, all);
      t.blk = all;
      if (rc == 0) TRMM_CALL(&t, store, &t, alpha, 0, m);
      free(all);
    }
  } else if (lower) { /* bottom-up: block b holds the rows with i + 1 in [b R, b R + R) */
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
