/* order="exact" for the level-1 reductions (docs/contract.md §5.4): the
 * correctly rounded sum of the terms, by the exact accumulator of
 * order/exact.h. frame/exact.c. */
#ifndef RB_EXACT_REDUCE_H
#define RB_EXACT_REDUCE_H

#include <stdint.h>

#include "context.h"

/* *out (a float or a double, by dtype: RB_F32, RB_F64) = RN(sum of the terms
 * of kind term: RB_TERM_X, RB_TERM_ABS or RB_TERM_XY). Runs in the caller's
 * floating-point environment (the entry point sets the library's). */
void rb_exact_reduce(int dtype, const rb_context *cx, int term, const void *x, const void *y,
                     int64_t n, void *out);

/* C (m x n) = alpha op(A) op(B) [+ beta C] with every S_ij the exact order's
 * (docs/contract.md §5.4), scaled as §2.4 (beta zero by its bits: C not read).
 * Element (i, l) of op(A) at a[i a_rs + l a_cs], of op(B) at b[l b_rs + j b_cs],
 * of C at c[i c_rs + j c_cs]. Runs in the caller's environment; returns 0, or -2
 * when a work buffer cannot be allocated. */
int rb_exact_gemm(int dtype, const rb_context *cx, int64_t m, int64_t n, int64_t k,
                  const void *alpha, const void *a, int64_t a_rs, int64_t a_cs, const void *b,
                  int64_t b_rs, int64_t b_cs, const void *beta, void *c, int64_t c_rs,
                  int64_t c_cs);

/* The cumulative sums of each of `rows` contiguous rows of n elements, every
 * one in the exact order (docs/contract.md §5.4): out[i] = RN(x_0 + ... + x_i),
 * exclusive: RN of the terms before i (+0 for none). out may be x. Rows are
 * split over the threads, each row scanned alone. Returns 0. */
int rb_exact_scan(int dtype, const rb_context *cx, const void *x, int64_t rows, int64_t n,
                  int exclusive, void *out);

#endif /* RB_EXACT_REDUCE_H */
