/* The compensated order, order="kahan" (docs/contract.md §5.5), for the CPU
 * kernels, the drivers and the reference: its constants, the compensated
 * step and join on (s, c) pairs, and a plain scalar chunk.
 *
 * The terms fall into aligned chunks of RB_KAHAN_CHUNK; within a chunk, lane
 * l (0 <= l < RB_KAHAN_LANES) takes the chunk's terms l, l + 16, l + 32, ...
 * and sums them with Kahan's step, from (first term, +0); a chunk's value is
 * the pairwise tree (§2.2) of its lanes' pairs under rb_kjoin, and the sum is
 * the pairwise tree of the chunks' pairs, S = s ⊖ c of the root. The lane
 * layout is part of the definition: every path computes these lanes, whatever
 * its vector width. */
#ifndef RB_KAHAN_H
#define RB_KAHAN_H

#include <stdint.h>

#include "order/order.h"

enum { RB_KAHAN_CHUNK = 1024, RB_KAHAN_LANES = 16 };

/* One term t into the lane (s, c), c the negated lost low part:
 * y = t ⊖ c, u = s ⊕ y, c = (u ⊖ s) ⊖ y, s = u. ADD/SUB: the rounded operations. */
#if defined(__cplusplus) /* the CUDA kernels (NVRTC has no __typeof__) */
#define RB_KAHAN_TYPE(s) auto
#else
#define RB_KAHAN_TYPE(s) __typeof__(s)
#endif
#define RB_KAHAN_STEP(s, c, t, ADD, SUB)                                                        \
  do {                                                                                          \
    const RB_KAHAN_TYPE(s) rb_y_ = SUB((t), (c));                                               \
    const RB_KAHAN_TYPE(s) rb_u_ = ADD((s), rb_y_);                                             \
    (c) = SUB(SUB(rb_u_, (s)), rb_y_);                                                          \
    (s) = rb_u_;                                                                                \
  } while (0)
#define RB_MINUS(a, b) ((a) - (b))

#define RB_KAHAN_DECLARE(T, SFX)                                                                \
  typedef struct {                                                                              \
    T s, c;                                                                                     \
  } rb_kpair_##SFX;                                                                             \
  /* (s1, c1) joined with (s2, c2): s = s1 ⊕ s2 with its exact error e (TwoSum),           */ \
  /* c = (c1 ⊕ c2) ⊖ e. */                                                                     \
  RB_ORDER_FN rb_kpair_##SFX rb_kjoin_##SFX(rb_kpair_##SFX a, rb_kpair_##SFX b) {              \
    rb_kpair_##SFX r;                                                                           \
    r.s = a.s + b.s;                                                                            \
    const T z = r.s - a.s;                                                                      \
    const T e = (a.s - (r.s - z)) + (b.s - z);                                                  \
    r.c = (a.c + b.c) - e;                                                                      \
    return r;                                                                                   \
  }                                                                                             \
  /* The pair of one chunk of q terms t[0 .. q), 1 <= q <= RB_KAHAN_CHUNK: its lanes, then */  \
  /* the pairwise tree of the min(q, 16) lane pairs. */                                        \
  RB_ORDER_FN rb_kpair_##SFX rb_kchunk_##SFX(const T *t, int q) {                             \
    rb_kpair_##SFX lane[RB_KAHAN_LANES], stack[8], acc;                                         \
    const int lanes = q < RB_KAHAN_LANES ? q : RB_KAHAN_LANES;                                  \
    for (int l = 0; l < lanes; ++l) {                                                           \
      lane[l].s = t[l];                                                                         \
      lane[l].c = (T)0;                                                                         \
      for (int k = l + RB_KAHAN_LANES; k < q; k += RB_KAHAN_LANES)                              \
        RB_KAHAN_STEP(lane[l].s, lane[l].c, t[k], RB_PLUS, RB_MINUS);                           \
    }                                                                                           \
    for (int l = 0; l < lanes; ++l) {                                                           \
      rb_kpair_##SFX v = lane[l];                                                               \
      RB_COUNTER_PUSH(stack, l, v, rb_kjoin_##SFX);                                             \
    }                                                                                           \
    RB_COUNTER_JOIN(acc, stack, lanes, rb_kjoin_##SFX);                                         \
    return acc;                                                                                 \
  }                                                                                             \
  /* The result of a root pair. */                                                              \
  RB_ORDER_FN T rb_kresult_##SFX(rb_kpair_##SFX p) { return p.s - p.c; }

RB_KAHAN_DECLARE(float, f32)
RB_KAHAN_DECLARE(double, f64)

#endif /* RB_KAHAN_H */
