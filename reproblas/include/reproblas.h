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
/* The triangle a routine reads (trsv, trsm, symm) or writes (syrk, syr2k). */
typedef enum { ReproblasUpper = 121, ReproblasLower = 122 } reproblas_uplo;
typedef enum { ReproblasNonUnit = 131, ReproblasUnit = 132 } reproblas_diag;
typedef enum { ReproblasLeft = 141, ReproblasRight = 142 } reproblas_side; /* trsm, symm */
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

/* The rest of the reference BLAS's level 1 (docs/contract.md §3.5). Each operation is rounded
 * once, without fma; x and y are updated element by element in index order. No knob changes a
 * result; a bad one is still reported. */
/* x_k = c*x_k + s*y_k, y_k = c*y_k - s*x_k (old values). */
REPROBLAS_API int reproblas_srot(int64_t n, float *x, int64_t incx, float *y, int64_t incy,
                                 float c, float s);
REPROBLAS_API int reproblas_drot(int64_t n, double *x, int64_t incx, double *y, int64_t incy,
                                 double c, double s);
/* The modified rotation param = {flag, h11, h21, h12, h22}, as the reference BLAS. */
REPROBLAS_API int reproblas_srotm(int64_t n, float *x, int64_t incx, float *y, int64_t incy,
                                  const float *param);
REPROBLAS_API int reproblas_drotm(int64_t n, double *x, int64_t incx, double *y, int64_t incy,
                                  const double *param);
/* Givens rotation of (a, b): c, s; a <- r, b <- z (the reference BLAS's). */
REPROBLAS_API int reproblas_srotg(float *a, float *b, float *c, float *s);
REPROBLAS_API int reproblas_drotg(double *a, double *b, double *c, double *s);
/* Modified Givens rotation: param (5 elements); d1, d2, x1 updated (the reference's). */
REPROBLAS_API int reproblas_srotmg(float *d1, float *d2, float *x1, float y1, float *param);
REPROBLAS_API int reproblas_drotmg(double *d1, double *d2, double *x1, double y1, double *param);
/* Exchange x and y; copy x into y. */
REPROBLAS_API int reproblas_sswap(int64_t n, float *x, int64_t incx, float *y, int64_t incy);
REPROBLAS_API int reproblas_dswap(int64_t n, double *x, int64_t incx, double *y, int64_t incy);
REPROBLAS_API int reproblas_scopy(int64_t n, const float *x, int64_t incx, float *y,
                                  int64_t incy);
REPROBLAS_API int reproblas_dcopy(int64_t n, const double *x, int64_t incx, double *y,
                                  int64_t incy);
/* *result = the ordered float64 sum of the exact products x_k*y_k (float32 x, y). */
REPROBLAS_API int reproblas_dsdot(int64_t n, const float *x, int64_t incx, const float *y,
                                  int64_t incy, double *result, reproblas_order order);
/* *result = the float64 sum of sb, x_0*y_0, ..., in this order, rounded once to float. */
REPROBLAS_API int reproblas_sdsdot(int64_t n, float sb, const float *x, int64_t incx,
                                   const float *y, int64_t incy, float *result,
                                   reproblas_order order);

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

/* The uplo triangle of the n x n C (the other one is neither read nor written)
 * as gemm(alpha, op(A), op(A)^T, beta, C): S_ij the ordered sum over k of
 * op(A)_ik * op(A)_jk; op(A) is A (n x k, trans NoTrans) or A^T (A k x n). */
REPROBLAS_API int reproblas_ssyrk(reproblas_layout layout, reproblas_uplo uplo,
                                  reproblas_transpose trans, int64_t n, int64_t k, float alpha,
                                  const float *a, int64_t lda, float beta, float *c, int64_t ldc,
                                  reproblas_order order);
REPROBLAS_API int reproblas_dsyrk(reproblas_layout layout, reproblas_uplo uplo,
                                  reproblas_transpose trans, int64_t n, int64_t k, double alpha,
                                  const double *a, int64_t lda, double beta, double *c,
                                  int64_t ldc, reproblas_order order);

/* syrk's triangle of alpha*(op(A) op(B)^T + op(B) op(A)^T) + beta*C: for each
 * k the term op(A)_ik * op(B)_jk, then op(B)_ik * op(A)_jk (2k terms, ordered). */
REPROBLAS_API int reproblas_ssyr2k(reproblas_layout layout, reproblas_uplo uplo,
                                   reproblas_transpose trans, int64_t n, int64_t k, float alpha,
                                   const float *a, int64_t lda, const float *b, int64_t ldb,
                                   float beta, float *c, int64_t ldc, reproblas_order order);
REPROBLAS_API int reproblas_dsyr2k(reproblas_layout layout, reproblas_uplo uplo,
                                   reproblas_transpose trans, int64_t n, int64_t k, double alpha,
                                   const double *a, int64_t lda, const double *b, int64_t ldb,
                                   double beta, double *c, int64_t ldc, reproblas_order order);

/* C = alpha*A*B + beta*C (side Left, A m x m) or alpha*B*A + beta*C (Right, A
 * n x n), A symmetric with only its uplo triangle read: gemm's terms on the
 * whole matrix. */
REPROBLAS_API int reproblas_ssymm(reproblas_layout layout, reproblas_side side,
                                  reproblas_uplo uplo, int64_t m, int64_t n, float alpha,
                                  const float *a, int64_t lda, const float *b, int64_t ldb,
                                  float beta, float *c, int64_t ldc, reproblas_order order);
REPROBLAS_API int reproblas_dsymm(reproblas_layout layout, reproblas_side side,
                                  reproblas_uplo uplo, int64_t m, int64_t n, double alpha,
                                  const double *a, int64_t lda, const double *b, int64_t ldb,
                                  double beta, double *c, int64_t ldc, reproblas_order order);

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

/* B = alpha * op(A) B (side Left) or alpha * B op(A) (Right) in place, A
 * triangular (only its uplo triangle read; unit: diagonal taken as 1): each
 * element alpha * S, S the ordered sum over the entries in the triangle (the
 * others are absent terms, contract §3.1). A must not overlap B. */
REPROBLAS_API int reproblas_strmm(reproblas_layout layout, reproblas_side side,
                                  reproblas_uplo uplo, reproblas_transpose trans_a,
                                  reproblas_diag diag, int64_t m, int64_t n, float alpha,
                                  const float *a, int64_t lda, float *b, int64_t ldb,
                                  reproblas_order order);
REPROBLAS_API int reproblas_dtrmm(reproblas_layout layout, reproblas_side side,
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

/* ---- scans and segmented sums (docs/contract.md §5.2, §5.3) ---- */

/* y[k] = the k-th prefix sum (product) of x in the order: sequential
 * s_k = s_(k-1) + x_k (the bits of NumPy's cumsum), pairwise the blocks of k+1's
 * binary expansion joined from the left, exact (§5.4) the float nearest to the exact
 * sum (product) of x_0 .. x_k, kahan (cumsum only, §5.5) reproblas_?sum of x_0 .. x_k in
 * that order. exclusive (0 or 1): y[0] = +0 (cumprod: 1), y[k]
 * = prefix k-1. y may be x (in place, both increments 1); any other
 * overlap reads x's old values. */
REPROBLAS_API int reproblas_scumsum(int64_t n, const float *x, int64_t incx, float *y,
                                    int64_t incy, int exclusive, reproblas_order order);
REPROBLAS_API int reproblas_dcumsum(int64_t n, const double *x, int64_t incx, double *y,
                                    int64_t incy, int exclusive, reproblas_order order);
REPROBLAS_API int reproblas_scumprod(int64_t n, const float *x, int64_t incx, float *y,
                                     int64_t incy, int exclusive, reproblas_order order);
REPROBLAS_API int reproblas_dcumprod(int64_t n, const double *x, int64_t incx, double *y,
                                     int64_t incy, int exclusive, reproblas_order order);
/* result[s] = the ordered sum of x[offsets[s] .. offsets[s+1]) (contiguous x), the bits
 * of reproblas_?sum on that slice; +0 for an empty segment. offsets: nseg + 1
 * non-decreasing entries in [0, n] (else -4). */
REPROBLAS_API int reproblas_ssegment_sum(int64_t n, const float *x, int64_t nseg,
                                         const int64_t *offsets, float *result,
                                         reproblas_order order);
REPROBLAS_API int reproblas_dsegment_sum(int64_t n, const double *x, int64_t nseg,
                                         const int64_t *offsets, double *result,
                                         reproblas_order order);
/* The same with the terms abs(x_k) (asum per segment) and x_k*y_k (dot per segment: y is
 * contiguous, as long as x; x == y gives the squares). */
REPROBLAS_API int reproblas_ssegment_asum(int64_t n, const float *x, int64_t nseg,
                                          const int64_t *offsets, float *result,
                                          reproblas_order order);
REPROBLAS_API int reproblas_dsegment_asum(int64_t n, const double *x, int64_t nseg,
                                          const int64_t *offsets, double *result,
                                          reproblas_order order);
REPROBLAS_API int reproblas_ssegment_dot(int64_t n, const float *x, const float *y,
                                         int64_t nseg, const int64_t *offsets, float *result,
                                         reproblas_order order);
REPROBLAS_API int reproblas_dsegment_dot(int64_t n, const double *x, const double *y,
                                         int64_t nseg, const int64_t *offsets, double *result,
                                         reproblas_order order);
/* Each segment of x scanned on its own into y (contiguous, x's length; y may be x):
 * scan_by_key with the segments as runs. Elements outside every segment are not
 * written. Offsets as segment_sum. The segmented sums and scans take every order,
 * ReproblasKahan and ReproblasExact included (each prefix that order's sum). */
REPROBLAS_API int reproblas_ssegment_cumsum(int64_t n, const float *x, int64_t nseg,
                                            const int64_t *offsets, float *y, int exclusive,
                                            reproblas_order order);
REPROBLAS_API int reproblas_dsegment_cumsum(int64_t n, const double *x, int64_t nseg,
                                            const int64_t *offsets, double *y, int exclusive,
                                            reproblas_order order);
/* ---- level 2 on symmetric, triangular, band and packed matrices (contract §3.6) ----
 * CBLAS's arguments and storage (band: lda >= kl + ku + 1, resp. k + 1; packed: the
 * triangle row by row for ReproblasRowMajor, column by column for ReproblasColMajor),
 * plus the order of the reductions. Products: y = alpha*S (+ beta*y) as gemv, S_i
 * over the present terms of row i, k ascending: symv/spmv/sbmv the symmetric matrix
 * of the stored triangle (sbmv: |i - k| <= k only), gbmv the band only, trmv/tpmv/tbmv
 * the triangle (in place of x; ReproblasUnit: the diagonal term is 1*x_i). tbsv/tpsv
 * solve as trsv over the present terms. syr/spr: A_ij = fma(x_i, alpha*x_j, A_ij) on
 * the stored triangle; syr2/spr2: A_ij = fma(y_i, alpha*x_j, fma(x_i, alpha*y_j, A_ij)).
 * Errors: -i for argument i; the vectors must not overlap A. */
REPROBLAS_API int reproblas_ssymv(reproblas_layout layout, reproblas_uplo uplo, int64_t n,
                                  float alpha, const float *a, int64_t lda, const float *x,
                                  int64_t incx, float beta, float *y, int64_t incy,
                                  reproblas_order order);
REPROBLAS_API int reproblas_ssbmv(reproblas_layout layout, reproblas_uplo uplo, int64_t n,
                                  int64_t k, float alpha, const float *a, int64_t lda,
                                  const float *x, int64_t incx, float beta, float *y, int64_t incy,
                                  reproblas_order order);
REPROBLAS_API int reproblas_sspmv(reproblas_layout layout, reproblas_uplo uplo, int64_t n,
                                  float alpha, const float *ap, const float *x, int64_t incx,
                                  float beta, float *y, int64_t incy, reproblas_order order);
REPROBLAS_API int reproblas_sgbmv(reproblas_layout layout, reproblas_transpose trans,
                                  int64_t m, int64_t n, int64_t kl, int64_t ku, float alpha,
                                  const float *a, int64_t lda, const float *x, int64_t incx,
                                  float beta, float *y, int64_t incy, reproblas_order order);
REPROBLAS_API int reproblas_strmv(reproblas_layout layout, reproblas_uplo uplo,
                                  reproblas_transpose trans, reproblas_diag diag, int64_t n,
                                  const float *a, int64_t lda, float *x, int64_t incx,
                                  reproblas_order order);
REPROBLAS_API int reproblas_stbmv(reproblas_layout layout, reproblas_uplo uplo,
                                  reproblas_transpose trans, reproblas_diag diag, int64_t n,
                                  int64_t k, const float *a, int64_t lda, float *x, int64_t incx,
                                  reproblas_order order);
REPROBLAS_API int reproblas_stpmv(reproblas_layout layout, reproblas_uplo uplo,
                                  reproblas_transpose trans, reproblas_diag diag, int64_t n,
                                  const float *ap, float *x, int64_t incx, reproblas_order order);
REPROBLAS_API int reproblas_stbsv(reproblas_layout layout, reproblas_uplo uplo,
                                  reproblas_transpose trans, reproblas_diag diag, int64_t n,
                                  int64_t k, const float *a, int64_t lda, float *x, int64_t incx,
                                  reproblas_order order);
REPROBLAS_API int reproblas_stpsv(reproblas_layout layout, reproblas_uplo uplo,
                                  reproblas_transpose trans, reproblas_diag diag, int64_t n,
                                  const float *ap, float *x, int64_t incx, reproblas_order order);
REPROBLAS_API int reproblas_ssyr(reproblas_layout layout, reproblas_uplo uplo, int64_t n,
                                 float alpha, const float *x, int64_t incx, float *a, int64_t lda);
REPROBLAS_API int reproblas_sspr(reproblas_layout layout, reproblas_uplo uplo, int64_t n,
                                 float alpha, const float *x, int64_t incx, float *ap);
REPROBLAS_API int reproblas_ssyr2(reproblas_layout layout, reproblas_uplo uplo, int64_t n,
                                  float alpha, const float *x, int64_t incx, const float *y,
                                  int64_t incy, float *a, int64_t lda);
REPROBLAS_API int reproblas_sspr2(reproblas_layout layout, reproblas_uplo uplo, int64_t n,
                                  float alpha, const float *x, int64_t incx, const float *y,
                                  int64_t incy, float *ap);
REPROBLAS_API int reproblas_dsymv(reproblas_layout layout, reproblas_uplo uplo, int64_t n,
                                  double alpha, const double *a, int64_t lda, const double *x,
                                  int64_t incx, double beta, double *y, int64_t incy,
                                  reproblas_order order);
REPROBLAS_API int reproblas_dsbmv(reproblas_layout layout, reproblas_uplo uplo, int64_t n,
                                  int64_t k, double alpha, const double *a, int64_t lda,
                                  const double *x, int64_t incx, double beta, double *y, int64_t incy,
                                  reproblas_order order);
REPROBLAS_API int reproblas_dspmv(reproblas_layout layout, reproblas_uplo uplo, int64_t n,
                                  double alpha, const double *ap, const double *x, int64_t incx,
                                  double beta, double *y, int64_t incy, reproblas_order order);
REPROBLAS_API int reproblas_dgbmv(reproblas_layout layout, reproblas_transpose trans,
                                  int64_t m, int64_t n, int64_t kl, int64_t ku, double alpha,
                                  const double *a, int64_t lda, const double *x, int64_t incx,
                                  double beta, double *y, int64_t incy, reproblas_order order);
REPROBLAS_API int reproblas_dtrmv(reproblas_layout layout, reproblas_uplo uplo,
                                  reproblas_transpose trans, reproblas_diag diag, int64_t n,
                                  const double *a, int64_t lda, double *x, int64_t incx,
                                  reproblas_order order);
REPROBLAS_API int reproblas_dtbmv(reproblas_layout layout, reproblas_uplo uplo,
                                  reproblas_transpose trans, reproblas_diag diag, int64_t n,
                                  int64_t k, const double *a, int64_t lda, double *x, int64_t incx,
                                  reproblas_order order);
REPROBLAS_API int reproblas_dtpmv(reproblas_layout layout, reproblas_uplo uplo,
                                  reproblas_transpose trans, reproblas_diag diag, int64_t n,
                                  const double *ap, double *x, int64_t incx, reproblas_order order);
REPROBLAS_API int reproblas_dtbsv(reproblas_layout layout, reproblas_uplo uplo,
                                  reproblas_transpose trans, reproblas_diag diag, int64_t n,
                                  int64_t k, const double *a, int64_t lda, double *x, int64_t incx,
                                  reproblas_order order);
REPROBLAS_API int reproblas_dtpsv(reproblas_layout layout, reproblas_uplo uplo,
                                  reproblas_transpose trans, reproblas_diag diag, int64_t n,
                                  const double *ap, double *x, int64_t incx, reproblas_order order);
REPROBLAS_API int reproblas_dsyr(reproblas_layout layout, reproblas_uplo uplo, int64_t n,
                                 double alpha, const double *x, int64_t incx, double *a, int64_t lda);
REPROBLAS_API int reproblas_dspr(reproblas_layout layout, reproblas_uplo uplo, int64_t n,
                                 double alpha, const double *x, int64_t incx, double *ap);
REPROBLAS_API int reproblas_dsyr2(reproblas_layout layout, reproblas_uplo uplo, int64_t n,
                                  double alpha, const double *x, int64_t incx, const double *y,
                                  int64_t incy, double *a, int64_t lda);
REPROBLAS_API int reproblas_dspr2(reproblas_layout layout, reproblas_uplo uplo, int64_t n,
                                  double alpha, const double *x, int64_t incx, const double *y,
                                  int64_t incy, double *ap);

#ifdef __cplusplus
}
#endif

#endif /* REPROBLAS_H */
