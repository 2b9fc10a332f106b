/* libreproblas: the C ABI of reproblas.h, thin wrappers over the core entry
 * points the Python extension calls (level1.h, level3.h, conv.h).
 *
 * The wrappers only check arguments (LAPACK numbering: -i for argument i),
 * read the environment knobs, and translate CBLAS conventions (layouts,
 * transposes, leading dimensions, increments) into the core's element
 * strides. Vectors with an increment other than 1 are copied to contiguous
 * buffers for the level-1 core: the same values in the same index order, so
 * the increment never changes a result. Type-independent work lives here; the
 * float and double entry points (reproblas_typed.inc) are one call each.
 */
#include "reproblas.h"

#include <stdlib.h>
#include <string.h>

#include "conv.h"
#include "env.h"
#include "level1.h"
#include "level3.h"
#include "scan.h"
#include "thread.h"

const char *reproblas_error_string(int code) {
  switch (code) {
  case REPROBLAS_SUCCESS: return "success";
  case REPROBLAS_ERR_ISA_UNKNOWN:
    return "REPROBLAS_ISA names no CPU path; use scalar, avx2 or avx512 (or leave it unset)";
  case REPROBLAS_ERR_ISA_UNSUPPORTED: return "REPROBLAS_ISA names a CPU path this CPU cannot run";
  case REPROBLAS_ERR_THREADS: return "REPROBLAS_NUM_THREADS must be a positive integer";
  case REPROBLAS_ERR_NO_MEMORY: return "out of memory for a work buffer";
  case REPROBLAS_ERR_INTERNAL: return "the reproblas core refused checked arguments (a bug)";
  default:
    return code < 0 ? "argument -code (1-based) is invalid" : "unknown reproblas status code";
  }
}

/* ---- shared checks and translations ---- */

static size_t rb_size(int dtype) { return dtype == RB_F32 ? sizeof(float) : sizeof(double); }

/* The knobs, read at every call (contract §4). */
static int rb_capi_config(rb_context *cfg) {
  *cfg = rb_context_default(0, 1);
  int status = capi_isa_from_env("REPROBLAS_ISA", &cfg->isa);
  if (status != 0) return status;
  int set = capi_positive_int_from_env("REPROBLAS_NUM_THREADS", &cfg->threads);
  if (set < 0) return REPROBLAS_ERR_THREADS;
  if (set == 0) cfg->threads = rb_cpu_count();
  return REPROBLAS_SUCCESS;
}

static int rb_capi_status(int core_rc) {
  if (core_rc == 0) return REPROBLAS_SUCCESS;
  return core_rc == -2 ? REPROBLAS_ERR_NO_MEMORY : REPROBLAS_ERR_INTERNAL;
}

static int rb_valid_order(int order) {
  return order == ReproblasSequential || order == ReproblasPairwise;
}
static int rb_core_order(int order) {
  return order == ReproblasPairwise ? RB_PAIRWISE
         : order == ReproblasExact  ? RB_EXACT
         : order == ReproblasKahan  ? RB_KAHAN
                                    : RB_SEQUENTIAL;
}

/* Element 0 of a BLAS vector: a negative inc starts at the far end. */
static const char *rb_first(const void *x, int64_t n, int64_t inc, size_t size) {
  const char *p = (const char *)x;
  return (inc < 0 && n > 1) ? p + (n - 1) * (-inc) * (int64_t)size : p;
}

/* Whether a valid transpose argument transposes: ConjTrans of real data is Trans. */
static int rb_transposed(int trans) { return trans != ReproblasNoTrans; }

/* Element strides of a stored rows x cols matrix seen as op(stored). */
static void rb_strides(int layout, int trans, int64_t ld, int64_t *rs, int64_t *cs) {
  int64_t r = layout == ReproblasRowMajor ? ld : 1, c = layout == ReproblasRowMajor ? 1 : ld;
  *rs = rb_transposed(trans) ? c : r;
  *cs = rb_transposed(trans) ? r : c;
}

/* Smallest valid leading dimension of a stored rows x cols matrix. */
static int rb_ld_ok(int layout, int64_t rows, int64_t cols, int64_t ld) {
  int64_t need = layout == ReproblasRowMajor ? cols : rows;
  return ld >= (need > 1 ? need : 1);
}

static int rb_valid_layout(int v) { return v == ReproblasRowMajor || v == ReproblasColMajor; }
static int rb_valid_trans(int v) {
  return v == ReproblasNoTrans || v == ReproblasTrans || v == ReproblasConjTrans;
}

/* Every pointer the core forms is an operand's start plus an element offset
 * times the element size, in int64_t arithmetic. An operand is addressable
 * when its largest element offset plus one, in bytes, is an int64_t (and
 * always when it has no element); an increment or leading dimension that
 * breaks this names memory no array can occupy, and would wrap the index
 * arithmetic. The one check, overflow-safe: an nd-dimensional array with
 * count[d] elements step[d] apart along dimension d (step NULL: C-contiguous,
 * each step the product of the later counts). */
static int rb_addressable(int nd, const int64_t *count, const int64_t *step, size_t size) {
  for (int d = 0; d < nd; ++d)
    if (count[d] == 0) return 1;
  int64_t span = 0, inner = 1, t;
  for (int d = nd - 1; d >= 0; --d) {
    const int64_t s = step ? step[d] : inner;
    if (count[d] > 1 && (s == INT64_MIN || __builtin_mul_overflow(count[d] - 1, s < 0 ? -s : s, &t) ||
                         __builtin_add_overflow(span, t, &span)))
      return 0;
    if (!step && d > 0 && __builtin_mul_overflow(inner, count[d], &inner)) return 0;
  }
  return !__builtin_add_overflow(span, 1, &span) &&
         !__builtin_mul_overflow(span, (int64_t)size, &t);
}

/* A BLAS vector of n elements inc apart. */
static int rb_vector_ok(int64_t n, int64_t inc, size_t size) {
  return rb_addressable(1, &n, &inc, size);
}

/* A stored rows x cols matrix with leading dimension ld. */
static int rb_matrix_ok(int layout, int64_t rows, int64_t cols, int64_t ld, size_t size) {
  const int64_t count[2] = {rows, cols};
  int64_t step[2];
  rb_strides(layout, ReproblasNoTrans, ld, &step[0], &step[1]);
  return rb_addressable(2, count, step, size);
}

/* A contiguous view of a vector: x itself for inc = 1 (unless copy), else a
 * malloc'd copy (*owned set). NULL when memory runs out. */
static void *rb_gather(const void *x, int64_t n, int64_t inc, size_t size, int copy,
                       int *owned) {
  *owned = 0;
  if ((inc == 1 && !copy) || n == 0) return (void *)x;
  if ((uint64_t)n > (uint64_t)PTRDIFF_MAX / size) return NULL;
  char *buf = malloc((size_t)n * size);
  if (buf == NULL) return NULL;
  const char *src = rb_first(x, n, inc, size);
  for (int64_t i = 0; i < n; ++i) memcpy(buf + i * (int64_t)size, src + i * inc * (int64_t)size, size);
  *owned = 1;
  return buf;
}

static void rb_scatter(void *x, int64_t n, int64_t inc, size_t size, const void *buf) {
  char *dst = (char *)rb_first(x, n, inc, size);
  for (int64_t i = 0; i < n; ++i)
    memcpy(dst + i * inc * (int64_t)size, (const char *)buf + i * (int64_t)size, size);
}

/* Whether two vectors' memory ranges overlap. */
static int rb_overlap(const void *x, int64_t incx, const void *y, int64_t incy, int64_t n,
                      size_t size) {
  if (n == 0) return 0;
  const char *xlo = (const char *)x, *ylo = (const char *)y;
  const char *xhi = xlo + ((n - 1) * (incx < 0 ? -incx : incx) + 1) * (int64_t)size;
  const char *yhi = ylo + ((n - 1) * (incy < 0 ? -incy : incy) + 1) * (int64_t)size;
  return xlo < yhi && ylo < xhi;
}

/* ---- level 1 ---- */

enum rb_reduction { RB_CAPI_SUM, RB_CAPI_ASUM, RB_CAPI_DOT, RB_CAPI_NRM2 };

/* sum/asum/nrm2 (y == NULL: arguments n, x, incx, result, order) and dot (n, x,
 * incx, y, incy, result, order). */
static int rb_capi_reduce(int kind, int dtype, int64_t n, const void *x, int64_t incx,
                          const void *y, int64_t incy, void *result, int order) {
  int shift = kind == RB_CAPI_DOT ? 2 : 0; /* y and incy come before result */
  size_t size = rb_size(dtype);
  if (n < 0) return -1;
  if (x == NULL && n > 0) return -2;
  if (incx == 0 || !rb_vector_ok(n, incx, size)) return -3;
  if (kind == RB_CAPI_DOT && y == NULL && n > 0) return -4;
  if (kind == RB_CAPI_DOT && (incy == 0 || !rb_vector_ok(n, incy, size))) return -5;
  if (result == NULL) return -4 - shift;
  if (!rb_valid_order(order) && order != ReproblasKahan &&
      !(order == ReproblasExact && kind != RB_CAPI_NRM2))
    return -5 - shift;
  rb_context cfg;
  int status = rb_capi_config(&cfg);
  if (status != 0) return status;
  int own_x, own_y = 0;
  const void *cx = rb_gather(x, n, incx, size, 0, &own_x), *cy = NULL;
  if (cx == NULL && n > 0) return REPROBLAS_ERR_NO_MEMORY;
  if (kind == RB_CAPI_DOT) {
    cy = rb_gather(y, n, incy, size, 0, &own_y);
    if (cy == NULL && n > 0) {
      if (own_x) free((void *)cx);
      return REPROBLAS_ERR_NO_MEMORY;
    }
  }
  int core = rb_core_order(order), rc;
  switch (kind) {
  case RB_CAPI_SUM: rc = rb_sum(dtype, core, &cfg, cx, n, result); break;
  case RB_CAPI_ASUM: rc = rb_asum(dtype, core, &cfg, cx, n, result); break;
  case RB_CAPI_DOT: rc = rb_dot(dtype, core, &cfg, cx, cy, n, result); break;
  default: rc = rb_nrm2(dtype, core, &cfg, cx, n, result); break;
  }
  if (own_x) free((void *)cx);
  if (own_y) free((void *)cy);
  return rb_capi_status(rc);
}

static int rb_capi_iamax(int dtype, int64_t n, const void *x, int64_t incx, int64_t *index) {
  if (n < 1) return -1;
  if (x == NULL) return -2;
  if (incx == 0 || !rb_vector_ok(n, incx, rb_size(dtype))) return -3;
  if (index == NULL) return -4;
  rb_context cfg;
  int status = rb_capi_config(&cfg);
  if (status != 0) return status;
  int own;
  const void *cx = rb_gather(x, n, incx, rb_size(dtype), 0, &own);
  if (cx == NULL) return REPROBLAS_ERR_NO_MEMORY;
  int64_t k = rb_iamax(dtype, &cfg, cx, n);
  if (own) free((void *)cx);
  if (k < 0) return REPROBLAS_ERR_INTERNAL;
  *index = k;
  return REPROBLAS_SUCCESS;
}

/* axpy (y != NULL: n, alpha, x, incx, y, incy) or scal (y == NULL: n, alpha, x, incx). */
static int rb_capi_update(int dtype, int64_t n, const void *alpha, const void *x, int64_t incx,
                          void *y, int64_t incy, int is_axpy) {
  size_t size = rb_size(dtype);
  if (n < 0) return -1;
  if (x == NULL && n > 0) return -3;
  if (incx == 0 || !rb_vector_ok(n, incx, size)) return -4;
  if (is_axpy && y == NULL && n > 0) return -5;
  if (is_axpy && (incy == 0 || !rb_vector_ok(n, incy, size))) return -6;
  rb_context cfg;
  int status = rb_capi_config(&cfg);
  if (status != 0) return status;
  if (n == 0) return REPROBLAS_SUCCESS;
  void *target = is_axpy ? y : (void *)x;
  int64_t inc = is_axpy ? incy : incx;
  int own_t, own_x = 0;
  void *work = rb_gather(target, n, inc, size, 0, &own_t);
  if (work == NULL) return REPROBLAS_ERR_NO_MEMORY;
  const void *cx = x;
  if (is_axpy) {
    /* y is written in place while x is read: x keeps its old values (as in the
     * Python API) unless it is y itself, which the kernel reads before writing. */
    int aliased = !own_t && x != y && rb_overlap(x, incx, y, incy, n, size);
    cx = rb_gather(x, n, incx, size, aliased, &own_x);
    if (cx == NULL) {
      if (own_t) free(work);
      return REPROBLAS_ERR_NO_MEMORY;
    }
  }
  int rc = is_axpy ? rb_axpy(dtype, &cfg, alpha, cx, work, n)
                   : rb_scal(dtype, &cfg, alpha, work, n);
  if (own_t) {
    if (rc == 0) rb_scatter(target, n, inc, size, work);
    free(work);
  }
  if (own_x) free((void *)cx);
  return rb_capi_status(rc);
}

/* ---- level 2 and 3 ---- */

static int rb_capi_gemv(int dtype, int layout, int trans, int64_t m, int64_t n,
                        const void *alpha, const void *a, int64_t lda, const void *x,
                        int64_t incx, const void *beta, void *y, int64_t incy, int order) {
  size_t size = rb_size(dtype);
  if (!rb_valid_layout(layout)) return -1;
  if (!rb_valid_trans(trans)) return -2;
  if (m < 0) return -3;
  if (n < 0) return -4;
  if (a == NULL && m > 0 && n > 0) return -6;
  if (!rb_ld_ok(layout, m, n, lda) || !rb_matrix_ok(layout, m, n, lda, size)) return -7;
  int64_t rows = rb_transposed(trans) ? n : m, cols = rb_transposed(trans) ? m : n;
  const int64_t nx = rows > 0 ? cols : 0; /* x is read only when y has elements */
  if (x == NULL && nx > 0) return -8;
  if (incx == 0 || !rb_vector_ok(nx, incx, size)) return -9;
  if (y == NULL && rows > 0) return -11;
  if (incy == 0 || !rb_vector_ok(rows, incy, size)) return -12;
  if (!rb_valid_order(order) && order != ReproblasExact && order != ReproblasKahan) return -13;
  rb_context cfg;
  int status = rb_capi_config(&cfg);
  if (status != 0) return status;
  int64_t a_rs, a_cs;
  rb_strides(layout, trans, lda, &a_rs, &a_cs);
  /* x is op(A)'s right-hand cols x 1 matrix, y the rows x 1 result. */
  return rb_capi_status(rb_gemm(dtype, rb_core_order(order), &cfg, RB_FULL, rows, 1, cols, alpha, a, a_rs,
                                a_cs, rb_first(x, nx, incx, size), incx, 0, beta,
                                (void *)rb_first(y, rows, incy, size), incy, 0));
}

static int rb_capi_ger(int dtype, int layout, int64_t m, int64_t n, const void *alpha,
                       const void *x, int64_t incx, const void *y, int64_t incy, void *a,
                       int64_t lda) {
  size_t size = rb_size(dtype);
  if (!rb_valid_layout(layout)) return -1;
  if (m < 0) return -2;
  if (n < 0) return -3;
  const int any = m > 0 && n > 0; /* x, y, A are read only when A has elements */
  if (x == NULL && any) return -5;
  if (incx == 0 || !rb_vector_ok(any ? m : 0, incx, size)) return -6;
  if (y == NULL && any) return -7;
  if (incy == 0 || !rb_vector_ok(any ? n : 0, incy, size)) return -8;
  if (a == NULL && any) return -9;
  if (!rb_ld_ok(layout, m, n, lda) || !rb_matrix_ok(layout, m, n, lda, size)) return -10;
  rb_context cfg;
  int status = rb_capi_config(&cfg);
  if (status != 0 || !any) return status;
  int own_x, own_y = 0;
  const void *cx = rb_gather(x, m, incx, size, 0, &own_x);
  const void *cy = cx != NULL ? rb_gather(y, n, incy, size, 0, &own_y) : NULL;
  int rc = -2;
  if (cx != NULL && cy != NULL) { /* m, n > 0 here */
    int64_t a_rs, a_cs;
    rb_strides(layout, ReproblasNoTrans, lda, &a_rs, &a_cs);
    rc = rb_ger(dtype, &cfg, m, n, alpha, cx, cy, a, a_rs, a_cs);
  }
  if (own_x) free((void *)cx);
  if (own_y) free((void *)cy);
  return rb_capi_status(rc);
}

static int rb_capi_gemm(int dtype, int layout, int trans_a, int trans_b, int64_t m, int64_t n,
                        int64_t k, const void *alpha, const void *a, int64_t lda, const void *b,
                        int64_t ldb, const void *beta, void *c, int64_t ldc, int order) {
  if (!rb_valid_layout(layout)) return -1;
  if (!rb_valid_trans(trans_a)) return -2;
  if (!rb_valid_trans(trans_b)) return -3;
  if (m < 0) return -4;
  if (n < 0) return -5;
  if (k < 0) return -6;
  int ta = rb_transposed(trans_a), tb = rb_transposed(trans_b);
  size_t size = rb_size(dtype);
  /* A and B are read only when C has elements */
  const int64_t ar = ta ? k : m, ac = ta ? m : k, br = tb ? n : k, bc = tb ? k : n;
  const int64_t used = m > 0 && n > 0;
  if (a == NULL && m > 0 && k > 0) return -8;
  if (!rb_ld_ok(layout, ar, ac, lda) || !rb_matrix_ok(layout, ar * used, ac, lda, size)) return -9;
  if (b == NULL && k > 0 && n > 0) return -10;
  if (!rb_ld_ok(layout, br, bc, ldb) || !rb_matrix_ok(layout, br * used, bc, ldb, size)) return -11;
  if (c == NULL && m > 0 && n > 0) return -13;
  if (!rb_ld_ok(layout, m, n, ldc) || !rb_matrix_ok(layout, m, n, ldc, size)) return -14;
  if (!rb_valid_order(order) && order != ReproblasExact && order != ReproblasKahan) return -15;
  rb_context cfg;
  int status = rb_capi_config(&cfg);
  if (status != 0) return status;
  int64_t a_rs, a_cs, b_rs, b_cs, c_rs, c_cs;
  rb_strides(layout, trans_a, lda, &a_rs, &a_cs);
  rb_strides(layout, trans_b, ldb, &b_rs, &b_cs);
  rb_strides(layout, ReproblasNoTrans, ldc, &c_rs, &c_cs);
  return rb_capi_status(rb_gemm(dtype, rb_core_order(order), &cfg, RB_FULL, m, n, k, alpha, a, a_rs, a_cs,
                                b, b_rs, b_cs, beta, c, c_rs, c_cs));
}

/* ---- syrk: gemm(alpha, op(A), op(A)^T, beta, C) on one triangle of C ---- */

static int rb_capi_syrk(int dtype, int layout, int uplo, int trans, int64_t n, int64_t k,
                        const void *alpha, const void *a, int64_t lda, const void *beta, void *c,
                        int64_t ldc, int order) {
  if (!rb_valid_layout(layout)) return -1;
  if (uplo != ReproblasUpper && uplo != ReproblasLower) return -2;
  if (!rb_valid_trans(trans)) return -3;
  if (n < 0) return -4;
  if (k < 0) return -5;
  const int ta = rb_transposed(trans);
  const size_t size = rb_size(dtype);
  const int64_t ar = ta ? k : n, ac = ta ? n : k, used = n > 0; /* A is read when C has elements */
  if (a == NULL && n > 0 && k > 0) return -7;
  if (!rb_ld_ok(layout, ar, ac, lda) || !rb_matrix_ok(layout, ar * used, ac, lda, size)) return -8;
  if (c == NULL && n > 0) return -10;
  if (!rb_ld_ok(layout, n, n, ldc) || !rb_matrix_ok(layout, n, n, ldc, size)) return -11;
  if (!rb_valid_order(order)) return -12;
  rb_context cfg;
  int status = rb_capi_config(&cfg);
  if (status != 0) return status;
  int64_t a_rs, a_cs, c_rs, c_cs;
  rb_strides(layout, trans, lda, &a_rs, &a_cs);
  rb_strides(layout, ReproblasNoTrans, ldc, &c_rs, &c_cs);
  /* op(B) = op(A)^T: the same elements with the strides swapped */
  return rb_capi_status(rb_gemm(dtype, rb_core_order(order), &cfg,
                                uplo == ReproblasLower ? RB_LOWER : RB_UPPER, n, n, k, alpha, a,
                                a_rs, a_cs, a, a_cs, a_rs, beta, c, c_rs, c_cs));
}

/* syr2k: the syrk product of op(A), op(B) with op(B) op(A)^T's terms interleaved. */
static int rb_capi_syr2k(int dtype, int layout, int uplo, int trans, int64_t n, int64_t k,
                         const void *alpha, const void *a, int64_t lda, const void *b,
                         int64_t ldb, const void *beta, void *c, int64_t ldc, int order) {
  if (!rb_valid_layout(layout)) return -1;
  if (uplo != ReproblasUpper && uplo != ReproblasLower) return -2;
  if (!rb_valid_trans(trans)) return -3;
  if (n < 0) return -4;
  if (k < 0) return -5;
  const int ta = rb_transposed(trans);
  const size_t size = rb_size(dtype);
  const int64_t rows = ta ? k : n, cols = ta ? n : k, used = n > 0;
  if (a == NULL && n > 0 && k > 0) return -7;
  if (!rb_ld_ok(layout, rows, cols, lda) || !rb_matrix_ok(layout, rows * used, cols, lda, size))
    return -8;
  if (b == NULL && n > 0 && k > 0) return -9;
  if (!rb_ld_ok(layout, rows, cols, ldb) || !rb_matrix_ok(layout, rows * used, cols, ldb, size))
    return -10;
  if (c == NULL && n > 0) return -12;
  if (!rb_ld_ok(layout, n, n, ldc) || !rb_matrix_ok(layout, n, n, ldc, size)) return -13;
  if (!rb_valid_order(order)) return -14;
  rb_context cfg;
  int status = rb_capi_config(&cfg);
  if (status != 0) return status;
  int64_t a_rs, a_cs, b_rs, b_cs, c_rs, c_cs;
  rb_strides(layout, trans, lda, &a_rs, &a_cs);
  rb_strides(layout, trans, ldb, &b_rs, &b_cs);
  rb_strides(layout, ReproblasNoTrans, ldc, &c_rs, &c_cs);
  /* terms per index: op(A)_ik op(B)^T_kj, then op(B)_ik op(A)^T_kj */
  const rb_operands op = {.a = a, .a_rs = a_rs, .a_cs = a_cs, .b = b, .b_rs = b_cs, .b_cs = b_rs,
                          .a2 = b, .a2_rs = b_rs, .a2_cs = b_cs, .b2 = a, .b2_rs = a_cs,
                          .b2_cs = a_rs};
  return rb_capi_status(rb_gemm_ex(dtype, rb_core_order(order), &cfg,
                                   uplo == ReproblasLower ? RB_LOWER : RB_UPPER, n, n, 2 * k,
                                   alpha, &op, beta, c, c_rs, c_cs));
}

/* symm: gemm with the symmetric A (one triangle read) on the left or the right. */
static int rb_capi_symm(int dtype, int layout, int side, int uplo, int64_t m, int64_t n,
                        const void *alpha, const void *a, int64_t lda, const void *b,
                        int64_t ldb, const void *beta, void *c, int64_t ldc, int order) {
  if (!rb_valid_layout(layout)) return -1;
  if (side != ReproblasLeft && side != ReproblasRight) return -2;
  if (uplo != ReproblasUpper && uplo != ReproblasLower) return -3;
  if (m < 0) return -4;
  if (n < 0) return -5;
  const size_t size = rb_size(dtype);
  const int right = side == ReproblasRight;
  const int64_t na = right ? n : m, used = m > 0 && n > 0;
  if (a == NULL && used) return -7;
  if (!rb_ld_ok(layout, na, na, lda) || !rb_matrix_ok(layout, na * used, na, lda, size)) return -8;
  if (b == NULL && used) return -9;
  if (!rb_ld_ok(layout, m, n, ldb) || !rb_matrix_ok(layout, m, n, ldb, size)) return -10;
  if (c == NULL && used) return -12;
  if (!rb_ld_ok(layout, m, n, ldc) || !rb_matrix_ok(layout, m, n, ldc, size)) return -13;
  if (!rb_valid_order(order)) return -14;
  rb_context cfg;
  int status = rb_capi_config(&cfg);
  if (status != 0) return status;
  int64_t a_rs, a_cs, b_rs, b_cs, c_rs, c_cs;
  rb_strides(layout, ReproblasNoTrans, lda, &a_rs, &a_cs);
  rb_strides(layout, ReproblasNoTrans, ldb, &b_rs, &b_cs);
  rb_strides(layout, ReproblasNoTrans, ldc, &c_rs, &c_cs);
  const int tri = uplo == ReproblasLower ? RB_LOWER : RB_UPPER;
  rb_operands op = {.a = a, .a_rs = a_rs, .a_cs = a_cs, .a_sym = tri,
                    .b = b, .b_rs = b_rs, .b_cs = b_cs};
  if (right) /* C = B A */
    op = (rb_operands){.a = b, .a_rs = b_rs, .a_cs = b_cs,
                       .b = a, .b_rs = a_rs, .b_cs = a_cs, .b_sym = tri};
  return rb_capi_status(rb_gemm_ex(dtype, rb_core_order(order), &cfg, RB_FULL, m, n, na, alpha,
                                   &op, beta, c, c_rs, c_cs));
}

/* ---- triangular solves ---- */

static int rb_valid_uplo(int v) { return v == ReproblasUpper || v == ReproblasLower; }
static int rb_valid_diag(int v) { return v == ReproblasNonUnit || v == ReproblasUnit; }

/* trsv (x, incx: the n x 1 right-hand side, copied when incx != 1) and trsm
 * (b, ldb: the m x n right-hand sides) share the core's rb_trsm. */
static int rb_capi_solve(int dtype, int right, int layout, int uplo, int trans, int diag,
                         int64_t m, int64_t n, const void *alpha, const void *a, int64_t lda,
                         void *b, int64_t b_rs, int64_t b_cs, int order, int multiply) {
  rb_context cfg;
  int status = rb_capi_config(&cfg);
  if (status != 0) return status;
  int64_t a_rs, a_cs;
  rb_strides(layout, ReproblasNoTrans, lda, &a_rs, &a_cs);
  return rb_capi_status((multiply ? rb_trmm : rb_trsm)(
      dtype, rb_core_order(order), &cfg, right, uplo == ReproblasLower, rb_transposed(trans),
      diag == ReproblasUnit, m, n, alpha, a, a_rs, a_cs, b, b_rs, b_cs));
}

static int rb_capi_trsv(int dtype, int layout, int uplo, int trans, int diag, int64_t n,
                        const void *a, int64_t lda, void *x, int64_t incx, int order) {
  if (!rb_valid_layout(layout)) return -1;
  if (!rb_valid_uplo(uplo)) return -2;
  if (!rb_valid_trans(trans)) return -3;
  if (!rb_valid_diag(diag)) return -4;
  size_t size = rb_size(dtype);
  if (n < 0) return -5;
  if (a == NULL && n > 0) return -6;
  if (!rb_ld_ok(layout, n, n, lda) || !rb_matrix_ok(layout, n, n, lda, size)) return -7;
  if (x == NULL && n > 0) return -8;
  if (incx == 0 || !rb_vector_ok(n, incx, size)) return -9;
  if (!rb_valid_order(order)) return -10;
  int own;
  void *work = rb_gather(x, n, incx, size, 0, &own);
  if (work == NULL && n > 0) return REPROBLAS_ERR_NO_MEMORY;
  int rc = rb_capi_solve(dtype, 0, layout, uplo, trans, diag, n, 1, NULL, a, lda, work, 1, 1,
                         order, 0);
  if (own) {
    if (rc == REPROBLAS_SUCCESS) rb_scatter(x, n, incx, size, work);
    free(work);
  }
  return rc;
}

/* trsm, and trmm (multiply): the same arguments and checks. */
static int rb_capi_trsm(int dtype, int layout, int side, int uplo, int trans, int diag,
                        int64_t m, int64_t n, const void *alpha, const void *a, int64_t lda,
                        void *b, int64_t ldb, int order, int multiply) {
  if (!rb_valid_layout(layout)) return -1;
  if (side != ReproblasLeft && side != ReproblasRight) return -2;
  if (!rb_valid_uplo(uplo)) return -3;
  if (!rb_valid_trans(trans)) return -4;
  if (!rb_valid_diag(diag)) return -5;
  if (m < 0) return -6;
  if (n < 0) return -7;
  int64_t na = side == ReproblasRight ? n : m;
  size_t size = rb_size(dtype);
  const int64_t used = m > 0 && n > 0; /* A is read only when B has elements */
  if (a == NULL && na > 0 && m > 0 && n > 0) return -9;
  if (!rb_ld_ok(layout, na, na, lda) || !rb_matrix_ok(layout, na * used, na, lda, size))
    return -10;
  if (b == NULL && m > 0 && n > 0) return -11;
  if (!rb_ld_ok(layout, m, n, ldb) || !rb_matrix_ok(layout, m, n, ldb, size)) return -12;
  if (!rb_valid_order(order)) return -13;
  int64_t b_rs, b_cs;
  rb_strides(layout, ReproblasNoTrans, ldb, &b_rs, &b_cs);
  return rb_capi_solve(dtype, side == ReproblasRight, layout, uplo, trans, diag, m, n, alpha, a,
                       lda, b, b_rs, b_cs, order, multiply);
}

/* ---- convolution ---- */

enum rb_capi_conv { RB_CAPI_CONV2D, RB_CAPI_GRAD_INPUT, RB_CAPI_GRAD_WEIGHT, RB_CAPI_GRAD_BIAS };

/* The prototypes' order: (shape, in1, in2, [bias,] out, order); in2 is NULL
 * for grad_bias (shape, grad_y, grad_b, order). */
static int rb_capi_conv(int kind, int dtype, const reproblas_conv2d_shape *shape,
                        const void *in1, const void *in2, const void *bias, void *out,
                        int order) {
  if (shape == NULL) return -1;
  const rb_conv_shape g = {shape->n, shape->c, shape->h, shape->w, shape->k, shape->r,
                           shape->s, shape->p, shape->q, shape->stride_h, shape->stride_w,
                           shape->pad_top, shape->pad_left, shape->dilation_h,
                           shape->dilation_w, shape->groups};
  if (!rb_conv_shape_ok(&g)) return -1;
  /* x[n][c][h][w], w[k][c/groups][r][s], y[n][k][p][q]: grad_bias reads y only */
  const int64_t dims[3][4] = {{g.n, g.c, g.h, g.w}, {g.k, g.c / g.groups, g.r, g.s},
                              {g.n, g.k, g.p, g.q}};
  for (int t = kind == RB_CAPI_GRAD_BIAS ? 2 : 0; t < 3; ++t)
    if (!rb_addressable(4, dims[t], NULL, rb_size(dtype))) return -1;
  /* whether x, w, y are non-empty (no products: the fields may be large) */
  const int nx = g.n && g.c && g.h && g.w, nw = g.k && g.c && g.r && g.s,
            ny = g.n && g.k; /* p, q >= 1 */
  /* (in1, in2, out) must be non-NULL when non-empty */
  const int sizes[4][3] = {{nx, nw, ny}, {ny, nw, nx}, {nx, ny, nw}, {ny, 0, g.k > 0}};
  const int *need = sizes[kind];
  const int last = kind == RB_CAPI_GRAD_BIAS ? 4 : kind == RB_CAPI_CONV2D ? 6 : 5; /* order */
  if (in1 == NULL && need[0]) return -2;
  if (kind != RB_CAPI_GRAD_BIAS && in2 == NULL && need[1]) return -3;
  if (out == NULL && need[2]) return -(last - 1);
  if (!rb_valid_order(order)) return -last;
  rb_context cfg;
  int status = rb_capi_config(&cfg);
  if (status != 0) return status;
  int core = rb_core_order(order), rc;
  switch (kind) {
  case RB_CAPI_CONV2D: rc = rb_conv2d(dtype, core, cfg, &g, in1, in2, bias, out); break;
  case RB_CAPI_GRAD_INPUT: rc = rb_conv2d_grad_input(dtype, core, cfg, &g, in1, in2, out); break;
  case RB_CAPI_GRAD_WEIGHT:
    rc = rb_conv2d_grad_weight(dtype, core, cfg, &g, in1, in2, out);
    break;
  default: rc = rb_conv2d_grad_bias(dtype, core, cfg, &g, in1, out); break;
  }
  return rb_capi_status(rc);
}

/* ---- the float and double entry points ---- */

#define RB_CAT3_(a, b, c) a##b##c
#define RB_CAT3(a, b, c) RB_CAT3_(a, b, c)

/* ---- scans and segmented sums (docs/contract.md §5.2, §5.3) ---- */

/* cumsum/cumprod: arguments n, x, incx, y, incy, exclusive, order. */
static int rb_capi_scan(int op, int dtype, int64_t n, const void *x, int64_t incx, void *y,
                        int64_t incy, int exclusive, int order) {
  size_t size = rb_size(dtype);
  if (n < 0) return -1;
  if (x == NULL && n > 0) return -2;
  if (incx == 0 || !rb_vector_ok(n, incx, size)) return -3;
  if (y == NULL && n > 0) return -4;
  if (incy == 0 || !rb_vector_ok(n, incy, size)) return -5;
  if (exclusive != 0 && exclusive != 1) return -6;
  if (!rb_valid_order(order) && order != ReproblasExact &&
      !(op == RB_SCAN_SUM && order == ReproblasKahan)) /* exact: both ops; kahan: cumsum */
    return -7;
  rb_context cfg;
  int status = rb_capi_config(&cfg);
  if (status != 0 || n == 0) return status;
  /* contiguous views; x copied when y overlaps it otherwise than in place */
  const int in_place = x == y && incx == 1 && incy == 1;
  int own_x, own_y;
  const void *cx = rb_gather(x, n, incx, size, !in_place && rb_overlap(x, incx, y, incy, n, size),
                             &own_x);
  if (cx == NULL) return REPROBLAS_ERR_NO_MEMORY;
  void *cy = incy == 1 ? y : malloc((size_t)n * size);
  own_y = incy != 1;
  if (cy == NULL) {
    if (own_x) free((void *)cx);
    return REPROBLAS_ERR_NO_MEMORY;
  }
  int rc = rb_scan(dtype, op, rb_core_order(order), 0, exclusive, &cfg, cx, NULL, 1, n, cy);
  if (rc == 0 && own_y) rb_scatter(y, n, incy, size, cy);
  if (own_x) free((void *)cx);
  if (own_y) free(cy);
  return rb_capi_status(rc);
}

/* The offsets' checks: nseg + 1 non-decreasing entries in [0, n]. */
static int rb_offsets_ok(const int64_t *offsets, int64_t nseg, int64_t n) {
  if (offsets == NULL || offsets[0] < 0 || offsets[nseg] > n) return 0;
  for (int64_t s = 0; s < nseg; ++s)
    if (offsets[s + 1] < offsets[s]) return 0;
  return 1;
}

/* segment_sum / asum (y NULL, no y argument: n, x, nseg, offsets, result, order) and
 * segment_dot (n, x, y, nseg, offsets, result, order). */
static int rb_capi_segment_reduce(int term, int dtype, int64_t n, const void *x, const void *y,
                                  int64_t nseg, const int64_t *offsets, void *result, int order) {
  const int shift = term == 2 ? 1 : 0; /* dot: y is argument 3 */
  if (n < 0 || !rb_vector_ok(n, 1, rb_size(dtype))) return -1;
  if (x == NULL && n > 0) return -2;
  if (term == 2 && y == NULL && n > 0) return -3;
  if (nseg < 0) return -3 - shift;
  if (!rb_offsets_ok(offsets, nseg, n)) return -4 - shift;
  if (result == NULL && nseg > 0) return -5 - shift;
  if (!rb_valid_order(order) && order != ReproblasKahan && order != ReproblasExact)
    return -6 - shift;
  rb_context cfg;
  int status = rb_capi_config(&cfg);
  if (status != 0 || nseg == 0) return status;
  return rb_capi_status(rb_segment_reduce(dtype, rb_core_order(order), term, &cfg, x, y, n,
                                          offsets, nseg, result));
}

/* segment_cumsum: arguments n, x, nseg, offsets, y, exclusive, order. */
static int rb_capi_segment_scan(int dtype, int64_t n, const void *x, int64_t nseg,
                                const int64_t *offsets, void *y, int exclusive, int order) {
  if (n < 0 || !rb_vector_ok(n, 1, rb_size(dtype))) return -1;
  if (x == NULL && n > 0) return -2;
  if (nseg < 0) return -3;
  if (!rb_offsets_ok(offsets, nseg, n)) return -4;
  if (y == NULL && n > 0) return -5;
  if (exclusive != 0 && exclusive != 1) return -6;
  if (!rb_valid_order(order) && order != ReproblasKahan && order != ReproblasExact) return -7;
  rb_context cfg;
  int status = rb_capi_config(&cfg);
  if (status != 0 || nseg == 0 || n == 0) return status;
  return rb_capi_status(rb_segment_scan(dtype, rb_core_order(order), 0, exclusive, &cfg, x, NULL,
                                        n, offsets, nseg, y));
}

#define P s
#define T float
#define DT RB_F32
#include "reproblas_typed.inc"
#undef P
#undef T
#undef DT

#define P d
#define T double
#define DT RB_F64
#include "reproblas_typed.inc"

/* level 2 on symmetric, triangular, band and packed matrices */
#include "reproblas_level2.inc"
