/* The scan in the compensated order (docs/contract.md §5.5): prefix k is the
 * kahan sum of t_0 .. t_k, bit for bit, without summing each prefix again.
 *
 * A prefix of n terms has F = n div 1024 closed chunks and an open chunk of
 * q terms (its last chunk; q = 1024 when n is a multiple of 1024). The open
 * chunk's pair is the pairwise tree of its min(q, 16) lanes: while q <= 16
 * every lane holds one term and a counter over the lanes gives the tree;
 * afterwards all 16 lanes exist, the tree is perfect and a new term changes
 * one lane, so only that lane's path to the root (4 joins) is joined again.
 * The sum's pair is the open chunk's pair pushed into the counter over the
 * closed chunks (the carries of index F), then that counter's join over F + 1
 * chunks: a fixed list of left operands, J(w_i, v), the same for every
 * prefix that ends in this chunk ("wrap", innermost first).
 *
 * The fallback when S is not finite, the pairwise sum of the same terms, is a
 * second counter over the terms, filled lazily by the caller (rb_kscan_pw_*)
 * only when a prefix needs it: it reads the terms again, so the caller keeps
 * them (a scan in place works on a copy). */
#ifndef RB_KAHAN_SCAN_H
#define RB_KAHAN_SCAN_H

#include <stdint.h>

#include "order/kahan.h"
#include "order/order.h"

#define RB_KSCAN_DECLARE(T, SFX)                                                                \
  typedef struct {                                                                              \
    rb_kpair_##SFX lane[RB_KAHAN_LANES];                                                        \
    rb_kpair_##SFX t1[8], t2[4], t3[2]; /* the lane tree's subtrees, once 16 lanes exist */    \
    rb_kpair_##SFX lst[8];              /* the counter over the lanes, while q <= 16 */         \
    rb_kpair_##SFX cst[64];             /* the counter over the closed chunks' pairs */         \
    rb_kpair_##SFX wrap[64];            /* J(wrap[0], v), then J(wrap[1], .), ... */            \
    T pw[64];                           /* the counter over the terms (fallback) */             \
    int64_t n, closed, pwn;             /* terms, closed chunks, terms in pw */                 \
    int q, nwrap;                       /* terms in the open chunk, wrap's length */            \
  } rb_kscan_##SFX;                                                                             \
                                                                                                \
  RB_ORDER_FN void rb_kscan_init_##SFX(rb_kscan_##SFX *st) {                                    \
    st->n = st->closed = st->pwn = 0;                                                           \
    st->q = st->nwrap = 0;                                                                      \
  }                                                                                             \
                                                                                                \
  /* The wrap list of the chunk that opens after st->closed closed chunks. */                  \
  RB_ORDER_FN void rb_kscan_open_##SFX(rb_kscan_##SFX *st) {                                    \
    const int64_t f = st->closed;                                                               \
    int l, nw = 0;                                                                              \
    RB_COUNTER_CARRIES(l, f) st->wrap[nw++] = st->cst[l];                                       \
    RB_BLOCKS_SMALLEST_FIRST(b, f + 1, 63) if (b > l) st->wrap[nw++] = st->cst[b];              \
    st->nwrap = nw;                                                                             \
  }                                                                                             \
                                                                                                \
  /* Term t into the open chunk; returns the open chunk's pair (its lanes' tree). */          \
  RB_ORDER_FN rb_kpair_##SFX rb_kscan_lanes_##SFX(rb_kscan_##SFX *st, T t) {                    \
    const int q = st->q;                                                                        \
    rb_kpair_##SFX v;                                                                           \
    st->q = q + 1;                                                                              \
    if (q < RB_KAHAN_LANES) { /* a new lane: (t, +0) */                                         \
      rb_kpair_##SFX w;                                                                         \
      w.s = t;                                                                                  \
      w.c = (T)0;                                                                               \
      st->lane[q] = w;                                                                          \
      RB_COUNTER_PUSH(st->lst, q, w, rb_kjoin_##SFX);                                           \
      RB_COUNTER_JOIN(v, st->lst, q + 1, rb_kjoin_##SFX);                                       \
      if (q == RB_KAHAN_LANES - 1) { /* the perfect tree's subtrees, as the counter's */        \
        for (int i = 0; i < 8; ++i) st->t1[i] = rb_kjoin_##SFX(st->lane[2 * i], st->lane[2 * i + 1]); \
        for (int i = 0; i < 4; ++i) st->t2[i] = rb_kjoin_##SFX(st->t1[2 * i], st->t1[2 * i + 1]); \
        for (int i = 0; i < 2; ++i) st->t3[i] = rb_kjoin_##SFX(st->t2[2 * i], st->t2[2 * i + 1]); \
      }                                                                                         \
      return v;                                                                                 \
    }                                                                                           \
    /* lane l's Kahan step, then its path to the root */                                        \
    const int l = q & (RB_KAHAN_LANES - 1), a = l >> 1, b2 = l >> 2, b3 = l >> 3;              \
    RB_KAHAN_STEP(st->lane[l].s, st->lane[l].c, t, RB_PLUS, RB_MINUS);                          \
    st->t1[a] = rb_kjoin_##SFX(st->lane[2 * a], st->lane[2 * a + 1]);                           \
    st->t2[b2] = rb_kjoin_##SFX(st->t1[2 * b2], st->t1[2 * b2 + 1]);                            \
    st->t3[b3] = rb_kjoin_##SFX(st->t2[2 * b3], st->t2[2 * b3 + 1]);                            \
    return rb_kjoin_##SFX(st->t3[0], st->t3[1]);                                                \
  }                                                                                             \
                                                                                                \
  /* Terms t[0 .. m), m <= 16, that start at a multiple of 16 terms (so all end in one      */ \
  /* chunk): S[i] = s ⊖ c of the root pair of the prefix that ends at t[i] (the caller      */ \
  /* checks that it is finite). The wrap joins run on the 16 prefixes side by side: J on    */ \
  /* (s, c) arrays, the same operations as rb_kjoin, so that they fill the adders.          */ \
  RB_ORDER_FN void rb_kscan_group_##SFX(rb_kscan_##SFX *st, const T *t, int m, T *S) {          \
    T vs[RB_KAHAN_LANES] = {0}, vc[RB_KAHAN_LANES] = {0};                                       \
    rb_kpair_##SFX last;                                                                        \
    for (int i = 0; i < m; ++i) {                                                               \
      last = rb_kscan_lanes_##SFX(st, t[i]);                                                    \
      vs[i] = last.s, vc[i] = last.c;                                                           \
    }                                                                                           \
    for (int w = 0; w < st->nwrap; ++w) {                                                       \
      const T as = st->wrap[w].s, ac = st->wrap[w].c;                                           \
      for (int i = 0; i < RB_KAHAN_LANES; ++i) {                                                \
        const T r = as + vs[i], z = r - as, e = (as - (r - z)) + (vs[i] - z);                   \
        vc[i] = (ac + vc[i]) - e;                                                               \
        vs[i] = r;                                                                              \
      }                                                                                         \
    }                                                                                           \
    for (int i = 0; i < m; ++i) S[i] = vs[i] - vc[i];                                           \
    st->n += m;                                                                                 \
    if (st->q == RB_KAHAN_CHUNK) { /* the chunk closes: its pair into the counter */            \
      RB_COUNTER_PUSH(st->cst, st->closed, last, rb_kjoin_##SFX);                               \
      st->closed += 1;                                                                          \
      st->q = 0;                                                                                \
      rb_kscan_open_##SFX(st);                                                                  \
    }                                                                                           \
  }                                                                                             \
                                                                                                \
  /* The fallback's counter: term t_(pwn) in, then the pairwise sum of t_0 .. t_(pwn - 1). */  \
  RB_ORDER_FN void rb_kscan_pw_push_##SFX(rb_kscan_##SFX *st, T t) {                            \
    RB_COUNTER_PUSH(st->pw, st->pwn, t, RB_PLUS);                                               \
    st->pwn += 1;                                                                               \
  }                                                                                             \
  RB_ORDER_FN T rb_kscan_pw_sum_##SFX(const rb_kscan_##SFX *st) {                               \
    T acc;                                                                                      \
    RB_COUNTER_JOIN(acc, st->pw, st->pwn, RB_PLUS);                                             \
    return acc;                                                                                 \
  }

RB_KSCAN_DECLARE(float, f32)
RB_KSCAN_DECLARE(double, f64)

#endif /* RB_KAHAN_SCAN_H */
