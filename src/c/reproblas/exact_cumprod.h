/* cumprod in the exact order (docs/contract.md §5.4): each prefix the float
 * nearest to the exact product of its terms. frame/exact_cumprod.c, with the
 * primitives of order/exact_prod.h. */
#ifndef RB_EXACT_CUMPROD_H
#define RB_EXACT_CUMPROD_H

#include <stdint.h>

#include "context.h"

/* The cumulative products of each of `rows` contiguous rows of n elements
 * (dtype RB_F32 or RB_F64): out[i] = RN(x_0 ... x_i); exclusive: RN of the
 * terms before i (1 for none). out may be x (each row's terms are then copied
 * first, for the exact form) or be disjoint from it. Rows are split over
 * the threads, each row scanned alone; Ctrl-C is polled within a row. Integer
 * arithmetic only (the caller's floating-point environment is not touched).
 * Returns 0, or -2 when a work buffer cannot be allocated. */
int rb_exact_cumprod(int dtype, const rb_context *cx, const void *x, int64_t rows, int64_t n,
                     int exclusive, void *out);

#endif /* RB_EXACT_CUMPROD_H */
