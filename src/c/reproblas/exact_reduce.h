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

#endif /* RB_EXACT_REDUCE_H */
