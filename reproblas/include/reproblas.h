/* reproblas: the C ABI of the reproducible BLAS (libreproblas.so).
 *
 * Every result is defined bit for bit by the contract (docs/contract.md): the
 * same bits as the Python API, on every thread count and CPU path. Names and
 * argument orders follow CBLAS, with two differences: every routine returns an
 * error code (results of reductions come back through a pointer), and routines
 * that sum take the summation order as their last argument.
 *
 * Compile with  -I$(python -c 'import reproblas; print(reproblas.get_include())')
 * and link with -L<dir> -Wl,-rpath,<dir> -lreproblas, where
 * <dir> = $(python -c 'import reproblas; print(reproblas.get_library_dir())').
 *
 * Environment, read at every call as by the Python API: REPROBLAS_NUM_THREADS
 * (a positive integer; default: every CPU this process may run on) and
 * REPROBLAS_ISA (scalar, avx2, avx512; default: the best this CPU has).
 * Calls may be made from several threads at once.
 *
 * Error codes (the return value of every routine):
 *   0     REPROBLAS_SUCCESS: done.
 *   -i    argument i (1-based, in the prototype's order) is invalid, as LAPACK's
 *         INFO: a negative size, an unknown enum value, an increment of 0, a
 *         leading dimension below its minimum, a NULL pointer to data the call
 *         needs, an increment or leading dimension (the shape, for the
 *         convolutions) that puts an element the call would touch beyond any
 *         64-bit byte offset (below). Nothing was written.
 *   1..5  REPROBLAS_ERR_*: the environment or the system, below. Nothing was
 *         written.
 * reproblas_error_string(code) describes any code. No call aborts the process.
 *
 * Vectors: n elements x[0], x[inc], ..., x[(n-1)*inc]; a negative inc walks the
 * vector backwards from x[(1-n)*inc] as in the reference BLAS; inc = 0 is
 * invalid. Matrices: element (i, j) of a row-major matrix is a[i*lda + j], of a
 * column-major one a[i + j*lda]. Sizes are 64-bit. An operand with elements
 * must be addressable: (its largest element offset + 1) * sizeof(element)
 * <= INT64_MAX, the offset being (n-1)*|inc| for a vector, (rows-1)*ld +
 * cols-1 for a row-major matrix (rows-1 + (cols-1)*ld column-major), and
 * n*c*h*w - 1 for a convolution tensor. Otherwise the call returns the
 * position of that increment or leading dimension (-1, the shape, for a
 * convolution) rather than wrap its index arithmetic.
 */
#ifndef REPROBLAS_H
#define REPROBLAS_H

#include <stdint.h>

#if defined(__GNUC__)
#define REPROBLAS_API __attribute__((visibility("default")))
#else
#define REPROBLAS_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define REPROBLAS_VERSION_MAJOR 0
#define REPROBLAS_VERSION_MINOR 1

/* The values of the CBLAS enums, so a CBLAS value can be passed as it is. */
typedef enum { ReproblasRowMajor = 101, ReproblasColMajor = 102 } reproblas_layout;
/* ConjTrans is Trans: the data are real (as in CBLAS's real routines). */
typedef enum { ReproblasNoTrans = 111, ReproblasTrans = 112, ReproblasConjTrans = 113 }
reproblas_transpose;
/* For the triangular solvers (trsv, trsm). */
typedef enum { ReproblasUpper = 121, ReproblasLower = 122 } reproblas_uplo;
typedef enum { ReproblasNonUnit = 131, ReproblasUnit = 132 } reproblas_diag;
typedef enum { ReproblasLeft = 141, ReproblasRight = 142 } reproblas_side;
/* The summation orders of the contract (§2): left to right, or the fixed binary tree;
 * the compensated order (§5.5), ReproblasKahan, taken by sum, asum, dot, nrm2, gemv and gemm
 * only; and
 * the correctly rounded sum (§5.4), ReproblasExact, taken by sum, asum, dot, gemv and gemm
 * only (any other routine returns the order argument's error code for them). */
typedef enum {
  ReproblasSequential = 0,
  ReproblasPairwise = 1,
  ReproblasKahan = 2,
  ReproblasExact = 3
} reproblas_order;

enum reproblas_status {
  REPROBLAS_SUCCESS = 0,
  REPROBLAS_ERR_ISA_UNKNOWN = 1,     /* REPROBLAS_ISA names no CPU path */
  REPROBLAS_ERR_ISA_UNSUPPORTED = 2, /* REPROBLAS_ISA names a path this CPU lacks */
  REPROBLAS_ERR_THREADS = 3,         /* REPROBLAS_NUM_THREADS is not a positive integer */
  REPROBLAS_ERR_NO_MEMORY = 4,       /* a work buffer could not be allocated */
  REPROBLAS_ERR_INTERNAL = 5         /* the core refused checked arguments: a bug, please report */
};

/* A static English description of a return code (also for unknown codes). */
REPROBLAS_API const char *reproblas_error_string(int code);

/* ---- level 1 ---- */

/* *result = the ordered sum of x_k (n = 0: +0). */
REPROBLAS_API int reproblas_ssum(int64_t n, const float *x, int64_t incx, float *result,
                                 reproblas_order order);
REPROBLAS_API int reproblas_dsum(int64_t n, const double *x, int64_t incx, double *result,
                                 reproblas_order order);
/* *result = the ordered sum of abs(x_k). */
REPROBLAS_API int reproblas_sasum(int64_t n, const float *x, int64_t incx, float *result,
                                  reproblas_order order);
REPROBLAS_API int reproblas_dasum(int64_t n, const double *x, int64_t incx, double *result,
                                  reproblas_order order);
/* *result = the ordered sum of x_k*y_k (sequential: fma chain; pairwise: rounded products). */
REPROBLAS_API int reproblas_sdot(int64_t n, const float *x, int64_t incx, const float *y,
                                 int64_t incy, float *result, reproblas_order order);
REPROBLAS_API int reproblas_ddot(int64_t n, const double *x, int64_t incx, const double *y,
                                 int64_t incy, double *result, reproblas_order order);
/* *result = the scaled Euclidean norm of the contract (§3). */
REPROBLAS_API int reproblas_snrm2(int64_t n, const float *x, int64_t incx, float *result,
                                  reproblas_order order);
REPROBLAS_API int reproblas_dnrm2(int64_t n, const double *x, int64_t incx, double *result,
                                  reproblas_order order);
/* *index = the 0-based index of the first NaN, else the smallest k with abs(x_k)
 * maximal. n = 0 is invalid (-1): an empty vector has no largest element. */
REPROBLAS_API int reproblas_isamax(int64_t n, const float *x, int64_t incx, int64_t *index);
REPROBLAS_API int reproblas_idamax(int64_t n, const double *x, int64_t incx, int64_t *index);
/* y_k = fma(alpha, x_k, y_k). x and y must not overlap unless they are the same vector. */
REPROBLAS_API int reproblas_saxpy(int64_t n, float alpha, const float *x, int64_t incx, float *y,
                                  int64_t incy);
REPROBLAS_API int reproblas_daxpy(int64_t n, double alpha, const double *x, int64_t incx,
                                  double *y, int64_t incy);
/* x_k = alpha * x_k. */
REPROBLAS_API int reproblas_sscal(int64_t n, float alpha, float *x, int64_t incx);
REPROBLAS_API int reproblas_dscal(int64_t n, double alpha, double *x, int64_t incx);

/* ---- level 2 ---- */

/* y = alpha*S (beta == 0: y is not read) or fma(beta, y, alpha*S), S_i the ordered
 * sum over j of op(A)_ij * x_j. A is m x n; op(A) is A or its transpose. */
REPROBLAS_API int reproblas_sgemv(reproblas_layout layout, reproblas_transpose trans, int64_t m,
                                  int64_t n, float alpha, const float *a, int64_t lda,
                                  const float *x, int64_t incx, float beta, float *y,
                                  int64_t incy, reproblas_order order);
REPROBLAS_API int reproblas_dgemv(reproblas_layout layout, reproblas_transpose trans, int64_t m,
                                  int64_t n, double alpha, const double *a, int64_t lda,
                                  const double *x, int64_t incx, double beta, double *y,
                                  int64_t incy, reproblas_order order);
/* A_ij = fma(x_i, alpha*y_j, A_ij); A is m x n. */
REPROBLAS_API int reproblas_sger(reproblas_layout layout, int64_t m, int64_t n, float alpha,
                                 const float *x, int64_t incx, const float *y, int64_t incy,
                                 float *a, int64_t lda);
REPROBLAS_API int reproblas_dger(reproblas_layout layout, int64_t m, int64_t n, double alpha,
                                 const double *x, int64_t incx, const double *y, int64_t incy,
                                 double *a, int64_t lda);

/* ---- level 3 ---- */

/* C = alpha*S (beta == 0: C is not read) or fma(beta, C, alpha*S), C m x n, S_ij the
 * ordered sum over k of op(A)_ik * op(B)_kj; op(A) is m x k, op(B) k x n. */
REPROBLAS_API int reproblas_sgemm(reproblas_layout layout, reproblas_transpose trans_a,
                                  reproblas_transpose trans_b, int64_t m, int64_t n, int64_t k,
                                  float alpha, const float *a, int64_t lda, const float *b,
                                  int64_t ldb, float beta, float *c, int64_t ldc,
                                  reproblas_order order);
REPROBLAS_API int reproblas_dgemm(reproblas_layout layout, reproblas_transpose trans_a,
                                  reproblas_transpose trans_b, int64_t m, int64_t n, int64_t k,
                                  double alpha, const double *a, int64_t lda, const double *b,
                                  int64_t ldb, double beta, double *c, int64_t ldc,
                                  reproblas_order order);

/* ---- triangular solves ---- */

/* Solves op(A) x = b in place (x holds b on entry): row by row (top-down for a
 * lower op(A), bottom-up for an upper one), x_i = (b_i - S_i) / op(A)_ii with
 * S_i the ordered sum of op(A)_ij * x_j over the solved j, ascending (no
 * division for ReproblasUnit, whose diagonal is not read). A is n x n; only
 * the triangle uplo names is read. A zero diagonal gives inf/NaN (IEEE), not
 * an error. A must not overlap x. */
REPROBLAS_API int reproblas_strsv(reproblas_layout layout, reproblas_uplo uplo,
                                  reproblas_transpose trans, reproblas_diag diag, int64_t n,
                                  const float *a, int64_t lda, float *x, int64_t incx,
                                  reproblas_order order);
REPROBLAS_API int reproblas_dtrsv(reproblas_layout layout, reproblas_uplo uplo,
                                  reproblas_transpose trans, reproblas_diag diag, int64_t n,
                                  const double *a, int64_t lda, double *x, int64_t incx,
                                  reproblas_order order);
/* Solves op(A) X = alpha*B (ReproblasLeft; A m x m) or X op(A) = alpha*B
 * (ReproblasRight; A n x n) in place of B (m x n), alpha*B rounded first: each
 * column (left) or row (right) of X is the trsv of its own right-hand side.
 * A must not overlap B. */
REPROBLAS_API int reproblas_strsm(reproblas_layout layout, reproblas_side side,
                                  reproblas_uplo uplo, reproblas_transpose trans_a,
                                  reproblas_diag diag, int64_t m, int64_t n, float alpha,
                                  const float *a, int64_t lda, float *b, int64_t ldb,
                                  reproblas_order order);
REPROBLAS_API int reproblas_dtrsm(reproblas_layout layout, reproblas_side side,
                                  reproblas_uplo uplo, reproblas_transpose trans_a,
                                  reproblas_diag diag, int64_t m, int64_t n, double alpha,
                                  const double *a, int64_t lda, double *b, int64_t ldb,
                                  reproblas_order order);

/* ---- convolution (PyTorch's conv2d conventions, contract §3) ---- */

/* The sizes of one convolution on contiguous NCHW arrays: x[n][c][h][w],
 * w[k][c/groups][r][s], bias[k], y[n][k][p][q]. p and q are the output sizes,
 * which fix the bottom / right padding: p = (h + pad_top + pad_bottom -
 * dilation_h*(r-1) - 1) / stride_h + 1 (the same for q), so PyTorch's
 * padding='same' with an odd total (the extra row at the bottom) is pad_top =
 * total/2 with that p. Valid: every field in [0, 2^30]; strides, dilations and
 * groups >= 1; groups divides c and k; p, q >= 1 and the output sizes of some
 * bottom / right padding >= 0 (p*stride_h >= h + pad_top - dilation_h*(r-1));
 * otherwise the routines return -1. */
typedef struct {
  int64_t n, c, h, w, k, r, s, p, q, stride_h, stride_w, pad_top, pad_left, dilation_h,
      dilation_w, groups;
} reproblas_conv2d_shape;

/* y[n][k][p][q] = the ordered sum over (c', r, s) of x[n][c][p*stride_h - pad_top
 * + r*dilation_h][q*stride_w - pad_left + s*dilation_w] * w[k][c'][r][s] (c: the
 * channel c' of k's group; padding terms absent, not zero), plus bias[k] (one
 * rounding) unless bias is NULL. */
REPROBLAS_API int reproblas_sconv2d(const reproblas_conv2d_shape *shape, const float *x,
                                    const float *w, const float *bias, float *y,
                                    reproblas_order order);
REPROBLAS_API int reproblas_dconv2d(const reproblas_conv2d_shape *shape, const double *x,
                                    const double *w, const double *bias, double *y,
                                    reproblas_order order);
/* grad_x[n][c][h][w] = the ordered sum over (k, r, s) (k in c's group) of
 * grad_y[n][k][p][q] * w[k][c'][r][s] where (h, w) is read by tap (r, s) of a
 * valid output (p, q). */
REPROBLAS_API int reproblas_sconv2d_grad_input(const reproblas_conv2d_shape *shape,
                                               const float *grad_y, const float *w,
                                               float *grad_x, reproblas_order order);
REPROBLAS_API int reproblas_dconv2d_grad_input(const reproblas_conv2d_shape *shape,
                                               const double *grad_y, const double *w,
                                               double *grad_x, reproblas_order order);
/* grad_w[k][c'][r][s] = the ordered sum over (n, p, q) of grad_y[n][k][p][q] *
 * x[n][c][h][w] for the outputs whose tap (r, s) reads the input. */
REPROBLAS_API int reproblas_sconv2d_grad_weight(const reproblas_conv2d_shape *shape,
                                                const float *x, const float *grad_y,
                                                float *grad_w, reproblas_order order);
REPROBLAS_API int reproblas_dconv2d_grad_weight(const reproblas_conv2d_shape *shape,
                                                const double *x, const double *grad_y,
                                                double *grad_w, reproblas_order order);
/* grad_b[k] = the ordered sum over (n, p, q) of grad_y[n][k][p][q]. */
REPROBLAS_API int reproblas_sconv2d_grad_bias(const reproblas_conv2d_shape *shape,
                                              const float *grad_y, float *grad_b,
                                              reproblas_order order);
REPROBLAS_API int reproblas_dconv2d_grad_bias(const reproblas_conv2d_shape *shape,
                                              const double *grad_y, double *grad_b,
                                              reproblas_order order);

#ifdef __cplusplus
}
#endif

#endif /* REPROBLAS_H */
