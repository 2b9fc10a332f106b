/* reproblas level-2/3 C API: gemm (gemv is gemm with n = 1) and ger.
 *
 * Matrices are addressed through element strides, op(A)_ik = a[i*a_rs + k*a_cs]
 * (negative strides allowed; a points at element (0, 0)), so transposes and
 * memory orders need no copy. alpha/beta point to a float or a double (by
 * dtype). Results follow contract §2-§3 bit for bit on every path and thread count.
 * Return 0, -1 for a bad dtype/order/isa/size, -2 when memory runs out,
 * RB_STOPPED when the caller's stop hook stopped the call (thread.h; C
 * partly written).
 */
#ifndef RB_LEVEL3_H
#define RB_LEVEL3_H

#include <stdint.h>

#include "level1.h"
#include "terms.h"

/* C = alpha*S (beta == 0: C is not read) or fma(beta, C, alpha*S), S_ij the
 * ordered sum over k of op(A)_ik * op(B)_kj, for the elements of C that uplo
 * (enum rb_uplo) selects. */
int rb_gemm(int dtype, int order, const rb_context *cfg, int uplo, int64_t m, int64_t n, int64_t k,
            const void *alpha, const void *a, int64_t a_rs, int64_t a_cs, const void *b,
            int64_t b_rs, int64_t b_cs, const void *beta, void *c, int64_t c_rs, int64_t c_cs);

/* The operands of a structured product (symm, syr2k): op(A)_ik =
 * a[i*a_rs + k*a_cs] and op(B)_kj = b[k*b_rs + j*b_cs] as in rb_gemm;
 * a_sym / b_sym RB_LOWER or RB_UPPER (0: general): the operand is symmetric
 * and only that triangle of it is read; a2, b2 (NULL: none): a second pair,
 * whose product follows the first one's at each index, so that the k terms
 * of rb_gemm_ex are op(A)_i0 op(B)_0j, op(A2)_i0 op(B2)_0j, op(A)_i1 ... (k
 * even: twice the shared dimension). */
typedef struct {
  const void *a;
  int64_t a_rs, a_cs;
  int a_sym;
  const void *b;
  int64_t b_rs, b_cs;
  int b_sym;
  const void *a2;
  int64_t a2_rs, a2_cs;
  const void *b2;
  int64_t b2_rs, b2_cs;
} rb_operands;

/* rb_gemm on structured operands: C = alpha*S or fma(beta, C, alpha*S) on
 * the elements uplo selects, S_ij the ordered sum of the k terms above. */
int rb_gemm_ex(int dtype, int order, const rb_context *cfg, int uplo, int64_t m, int64_t n,
               int64_t k, const void *alpha, const rb_operands *op, const void *beta, void *c,
               int64_t c_rs, int64_t c_cs);

/* rb_gemm for every entry of a batch of shape[0..nd) (C order): entry e's A,
 * B, C start at a, b, c plus its batch index times a_bs, b_bs, c_bs (element
 * strides, 0 for a broadcast dimension). Threads share out the entries and
 * their tiles; each entry's bits are those of rb_gemm on it alone. */
int rb_gemm_batched(int dtype, int order, const rb_context *cfg, int uplo, int nd,
                    const int64_t *shape,
                    const int64_t *a_bs, const int64_t *b_bs, const int64_t *c_bs, int64_t m,
                    int64_t n, int64_t k, const void *alpha, const void *a, int64_t a_rs,
                    int64_t a_cs, const void *b, int64_t b_rs, int64_t b_cs, const void *beta,
                    void *c, int64_t c_rs, int64_t c_cs);

/* a_ij = fma(x_i, alpha*y_j, a_ij); x and y contiguous. */
int rb_ger(int dtype, const rb_context *cfg, int64_t m, int64_t n, const void *alpha, const void *x,
           const void *y, void *a, int64_t a_rs, int64_t a_cs);

/* Solves op(A) X = alpha B (right == 0) or X op(A) = alpha B (right != 0) in
 * place of B (m x n); A is triangular (lower or upper; unit: its diagonal is
 * taken as 1 and not read), m x m or n x n. alpha NULL: B as it is (trsv is
 * the left case with n = 1). Terms and order as contract §3 trsv/trsm. */
int rb_trsm(int dtype, int order, const rb_context *cfg, int right, int lower, int trans, int unit,
            int64_t m, int64_t n, const void *alpha, const void *a, int64_t a_rs, int64_t a_cs,
            void *b, int64_t b_rs, int64_t b_cs);

/* B = alpha * op(A) B (right == 0) or alpha * B op(A) in place, A triangular
 * (lower or upper; unit: its diagonal is taken as 1 and not read), m x m or
 * n x n: each element alpha * S, S the ordered sum of the products with the
 * entries of op(A) in its triangle (contract §3.1: the others are absent). */
int rb_trmm(int dtype, int order, const rb_context *cfg, int right, int lower, int trans, int unit,
            int64_t m, int64_t n, const void *alpha, const void *a, int64_t a_rs, int64_t a_cs,
            void *b, int64_t b_rs, int64_t b_cs);

#endif /* RB_LEVEL3_H */
