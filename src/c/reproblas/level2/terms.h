/* The logical matrix M of the level-2 products and solves (docs/contract.md
 * §3.6): which terms of row i are present, and M_ik read from the stored
 * triangle, band or packed array. Plain inline functions on a
 * rb_l2_matrix (../level2.h); the element type comes with the caller's
 * pointer (RB_L2_AT reads one element). */
#ifndef RB_L2_TERMS_H
#define RB_L2_TERMS_H

#include <stdint.h>

#include "level2.h"

/* op(M)'s rows (the result's length) and columns (x's). */
static inline int64_t rb_l2_rows(const rb_l2_matrix *A) {
  return A->kind == RB_L2_GENERAL && A->trans ? A->n : A->m;
}
static inline int64_t rb_l2_cols(const rb_l2_matrix *A) {
  return A->kind == RB_L2_GENERAL && A->trans ? A->m : A->n;
}

/* Whether op(M) is lower triangular (triangular kinds). */
static inline int rb_l2_op_lower(const rb_l2_matrix *A) { return (A->lower != 0) != (A->trans != 0); }

/* The present terms of row i of op(M): k in [*lo, *hi) (empty when hi <= lo). */
static inline void rb_l2_range(const rb_l2_matrix *A, int64_t i, int64_t *lo, int64_t *hi) {
  const int band = A->storage == RB_L2_BAND;
  int64_t below, above; /* op(M)'s sub- and superdiagonals */
  if (A->kind == RB_L2_GENERAL) {
    const int64_t kl = band ? A->kl : A->m, ku = band ? A->ku : A->n;
    below = A->trans ? ku : kl, above = A->trans ? kl : ku;
  } else {
    const int64_t kd = band ? (A->lower ? A->kl : A->ku) : A->n;
    below = above = kd;
    if (A->kind == RB_L2_TRIANGULAR) {
      if (rb_l2_op_lower(A)) above = 0;
      else below = 0;
    }
  }
  const int64_t cols = rb_l2_cols(A);
  *lo = i - below > 0 ? i - below : 0;
  *hi = i + above + 1 < cols ? i + above + 1 : cols;
  if (*hi < *lo) *hi = *lo;
}

/* The element offset of stored A_rc (inside the stored part). */
static inline int64_t rb_l2_offset(const rb_l2_matrix *A, int64_t r, int64_t c) {
  switch (A->storage) {
  case RB_L2_BAND: return (A->ku + r - c) * A->rs + c * A->cs;
  case RB_L2_PACKED:
    return (A->lower ? r + (2 * A->n - c - 1) * c / 2 : r + c * (c + 1) / 2) * A->rs;
  default: return r * A->rs + c * A->cs;
  }
}

/* Whether op(M)_ik is a unit diagonal's 1 (not read). */
static inline int rb_l2_is_unit(const rb_l2_matrix *A, int64_t i, int64_t k) {
  return A->kind == RB_L2_TRIANGULAR && A->unit && i == k;
}

/* Where op(M)_ik (a present term, not a unit diagonal) is read: its offset
 * (any sign: strides may be negative). */
static inline int64_t rb_l2_where(const rb_l2_matrix *A, int64_t i, int64_t k) {
  int64_t r = i, c = k;
  if (A->kind == RB_L2_SYMMETRIC) {
    if (A->lower ? r < c : r > c) r = k, c = i;
  } else if (A->trans) {
    r = k, c = i;
  }
  return rb_l2_offset(A, r, c);
}

#endif /* RB_L2_TERMS_H */
