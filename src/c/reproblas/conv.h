/* reproblas convolution core: the "gather gemm" that conv2d and its three
 * gradients reduce to (reproblas/_conv.py builds the operands).
 *
 *   dst[doff[j] + i*drow] = S_ij  (or S_ij ⊕ bias[i] when bias != NULL),
 *   S_ij = the ordered sum (SPEC §2, `order`) over t of A(i, t) * B(t, j),
 *   A(i, t) = at[aoff[t] + i],  B(t, j) = src[toff[t] + coff[j]].
 *
 * The caller lists only present terms (padding is absent, not zero), so
 * every (t, j) pair addresses a real element of src; aoff lets a border class
 * use its rows of the full weight matrix in place. Columns are independent:
 * the thread split and the column chunks change who computes a column, never
 * its operations (each column is one gemm column, through the gemm engine's
 * micro-kernels). Return 0, -1 for a bad dtype/order/isa/size, -2 when memory
 * runs out.
 */
#ifndef RB_CONV_H
#define RB_CONV_H

#include <stdint.h>

#include "level1.h"

int rb_gather_gemm(int dtype, int order, rb_config cfg, int64_t rows, int64_t terms,
                   int64_t cols, const void *at, const int64_t *aoff, const void *src,
                   const int64_t *toff, const int64_t *coff, void *dst, const int64_t *doff,
                   int64_t drow, const void *bias);

/* dst[b][j][i] = src[b][i][j] for `batch` contiguous rows x cols matrices
 * (the weights' layouts of the gather gemms). */
void rb_conv_transpose(int dtype, int64_t batch, int64_t rows, int64_t cols, const void *src,
                       void *dst);

/* Test knobs (they never change results): columns per chunk, the gemm's kc,
 * the multiply-adds below which one thread is used (values < 1 restore the
 * defaults), and the most columns for the direct kernel (0: default, < 0:
 * never). Not thread-safe. */
void rb_conv_set_tuning(int64_t chunk, int64_t kc, int64_t min_work, int64_t direct_cols);

#endif /* RB_CONV_H */
