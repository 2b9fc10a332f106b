/* reproblas level-2 C API beyond gemv/ger/trsv: the matrix-vector products
 * (gbmv, symv, sbmv, spmv, trmv, tbmv, tpmv), the solves on band and packed
 * storage (tbsv, tpsv) and the symmetric rank updates (syr, spr, syr2, spr2).
 * Terms and orders: docs/contract.md §3.6.
 *
 * One descriptor names the matrix of every routine: its kind (general,
 * symmetric, triangular), its storage (full, band, packed) and element
 * strides. Return 0, -1 for a bad dtype/order/isa/size, -2 when memory runs
 * out, RB_STOPPED when the caller's stop hook stopped the call. */
#ifndef RB_LEVEL2_H
#define RB_LEVEL2_H

#include <stdint.h>

#include "level1.h"

enum rb_l2_kind { RB_L2_GENERAL = 0, RB_L2_SYMMETRIC = 1, RB_L2_TRIANGULAR = 2 };
enum rb_l2_storage { RB_L2_FULL = 0, RB_L2_BAND = 1, RB_L2_PACKED = 2 };

/* A (m x n; symmetric and triangular: n x n) as stored:
 *  - full:   A_ij = a[i rs + j cs];
 *  - band:   A_ij = a[(ku + i - j) rs + j cs] for -ku <= i - j <= kl (BLAS band
 *            storage; symmetric/triangular: kl = k, ku = 0 when lower, else
 *            kl = 0, ku = k);
 *  - packed: the stored triangle column by column (BLAS packed storage),
 *            element p at a[p rs]: upper A_ij (i <= j) is p = i + j (j + 1) / 2,
 *            lower A_ij (i >= j) is p = i + (2 n - j - 1) j / 2.
 * Full storage has kl = m - 1, ku = n - 1 (any values >= these). */
typedef struct {
  int kind, storage;
  int lower; /* symmetric, triangular: the stored triangle */
  int trans; /* general, triangular: op(A) = A^T; rank updates: the array holds A^T */
  int unit;  /* triangular: the diagonal is 1 and not read */
  int64_t m, n, kl, ku;
  const void *a;
  int64_t rs, cs;
} rb_l2_matrix;

/* y = alpha S (beta == 0: y not read) or fma(beta, y, alpha S), S_i the
 * ordered sum of op(A)_ik x_k over the present k (docs/contract.md §3.6);
 * y has op(A)'s rows, x its columns. x and y: element strides (any sign,
 * element 0 at x, y); x must not overlap y. */
int rb_l2_mv(int dtype, int order, const rb_context *cfg, const rb_l2_matrix *A,
             const void *alpha, const void *x, int64_t incx, const void *beta, void *y,
             int64_t incy);

/* Solves op(A) x = b in place of b (triangular band or packed A; full
 * storage goes to rb_trsm). */
int rb_l2_sv(int dtype, int order, const rb_context *cfg, const rb_l2_matrix *A, void *b,
             int64_t incb);

/* The stored triangle of A (full or packed, n x n) gets
 * A_ij <- fma(x_i, alpha y_j, A_ij) (y NULL: syr/spr, y = x), then with y
 * also A_ij <- fma(y_i, alpha x_j, A_ij) (syr2/spr2). */
int rb_l2_rank(int dtype, const rb_context *cfg, const rb_l2_matrix *A, const void *alpha,
               const void *x, int64_t incx, const void *y, int64_t incy);

#endif /* RB_LEVEL2_H */
