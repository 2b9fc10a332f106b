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

/* J on (s, c) arrays, element by element: r_i = J(a_i, b_i), the operations of
 * rb_kjoin (kahan.h); r may not alias a or b. */
#define RB_KJOIN_ARRAYS(rs, rc, as, ac, bs, bc, N)                                              \
  for (int rb_i_ = 0; rb_i_ < (N); ++rb_i_) {                                                   \
    const RB_KAHAN_TYPE((rs)[0]) rb_r_ = (as)[rb_i_] + (bs)[rb_i_], rb_z_ = rb_r_ - (as)[rb_i_]; \
    const RB_KAHAN_TYPE((rs)[0]) rb_e_ = ((as)[rb_i_] - (rb_r_ - rb_z_)) + ((bs)[rb_i_] - rb_z_); \
    (rc)[rb_i_] = ((ac)[rb_i_] + (bc)[rb_i_]) - rb_e_;                                          \
    (rs)[rb_i_] = rb_r_;                                                                        \
  }

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
  /* A whole row of the lanes, t[0 .. 16) into lanes 0 .. 15 (q a multiple of 16, at     */ \
  /* least 16): the open chunk's pair after each term, (vs[i], vc[i]), computed for all 16  */ \
  /* prefixes at once. Prefix i's lane tree has the new lanes 0 .. i and the old ones      */ \
  /* after i: on lane i's path, a node's left sibling is all new (N), its right one all   */ \
  /* old (the cached subtree, O), and the path node P joins with it. Same joins, same     */ \
  /* operands as rb_kscan_lanes term by term. */                                               \
  RB_ORDER_FN void rb_kscan_row_##SFX(rb_kscan_##SFX *st, const T *t, T *vs, T *vc) {           \
    T n0s[16], n0c[16], os[16], oc[16], as[16], ac[16], bs[16], bc[16], ps[16], pc[16];         \
    T n1s[8], n1c[8], h1s[8], h1c[8], n2s[4], n2c[4], n3s[2], n3c[2];                           \
    for (int l = 0; l < 16; ++l) {                                                              \
      T s_ = st->lane[l].s, c_ = st->lane[l].c;                                                 \
      os[l] = s_, oc[l] = c_;                                                                   \
      RB_KAHAN_STEP(s_, c_, t[l], RB_PLUS, RB_MINUS);                                           \
      n0s[l] = s_, n0c[l] = c_;                                                                 \
    }                                                                                           \
    for (int a = 0; a < 8; ++a) { /* level 1: N = (new, new), H = (new, old) */                 \
      as[a] = n0s[2 * a], ac[a] = n0c[2 * a], bs[a] = n0s[2 * a + 1], bc[a] = n0c[2 * a + 1];   \
      as[a + 8] = n0s[2 * a], ac[a + 8] = n0c[2 * a];                                           \
      bs[a + 8] = os[2 * a + 1], bc[a + 8] = oc[2 * a + 1];                                     \
    }                                                                                           \
    RB_KJOIN_ARRAYS(ps, pc, as, ac, bs, bc, 16);                                                \
    for (int a = 0; a < 8; ++a) n1s[a] = ps[a], n1c[a] = pc[a], h1s[a] = ps[a + 8], h1c[a] = pc[a + 8]; \
    for (int i = 0; i < 16; ++i) { /* lane i's level-1 node: N when i is odd, else H */         \
      ps[i] = i & 1 ? n1s[i >> 1] : h1s[i >> 1];                                                \
      pc[i] = i & 1 ? n1c[i >> 1] : h1c[i >> 1];                                                \
    }                                                                                           \
    for (int b = 0; b < 4; ++b) /* level 2, the new nodes */                                    \
      as[b] = n1s[2 * b], ac[b] = n1c[2 * b], bs[b] = n1s[2 * b + 1], bc[b] = n1c[2 * b + 1];   \
    RB_KJOIN_ARRAYS(n2s, n2c, as, ac, bs, bc, 4);                                               \
    for (int i = 0; i < 16; ++i) { /* lane i's level-2 node */                                 \
      const int k = i >> 1;                                                                     \
      if (k & 1) as[i] = n1s[k - 1], ac[i] = n1c[k - 1], bs[i] = ps[i], bc[i] = pc[i];          \
      else as[i] = ps[i], ac[i] = pc[i], bs[i] = st->t1[k + 1].s, bc[i] = st->t1[k + 1].c;      \
    }                                                                                           \
    RB_KJOIN_ARRAYS(ps, pc, as, ac, bs, bc, 16);                                                \
    for (int i = 0; i < 16; ++i) { /* level 3 */                                                \
      const int k = i >> 2;                                                                     \
      if (k & 1) as[i] = n2s[k - 1], ac[i] = n2c[k - 1], bs[i] = ps[i], bc[i] = pc[i];          \
      else as[i] = ps[i], ac[i] = pc[i], bs[i] = st->t2[k + 1].s, bc[i] = st->t2[k + 1].c;      \
    }                                                                                           \
    RB_KJOIN_ARRAYS(ps, pc, as, ac, bs, bc, 16);                                                \
    as[0] = n2s[0], ac[0] = n2c[0], bs[0] = n2s[1], bc[0] = n2c[1];                             \
    as[1] = n2s[2], ac[1] = n2c[2], bs[1] = n2s[3], bc[1] = n2c[3];                             \
    RB_KJOIN_ARRAYS(n3s, n3c, as, ac, bs, bc, 2);                                               \
    for (int i = 0; i < 16; ++i) { /* the root */                                               \
      if (i & 8) as[i] = n3s[0], ac[i] = n3c[0], bs[i] = ps[i], bc[i] = pc[i];                  \
      else as[i] = ps[i], ac[i] = pc[i], bs[i] = st->t3[1].s, bc[i] = st->t3[1].c;              \
    }                                                                                           \
    RB_KJOIN_ARRAYS(vs, vc, as, ac, bs, bc, 16);                                                \
    for (int l = 0; l < 16; ++l) st->lane[l].s = n0s[l], st->lane[l].c = n0c[l];               \
    for (int a = 0; a < 8; ++a) st->t1[a].s = n1s[a], st->t1[a].c = n1c[a];                     \
    for (int b = 0; b < 4; ++b) st->t2[b].s = n2s[b], st->t2[b].c = n2c[b];                     \
    for (int c = 0; c < 2; ++c) st->t3[c].s = n3s[c], st->t3[c].c = n3c[c];                     \
    st->q += 16;                                                                                \
  }                                                                                             \
                                                                                                \
  /* Terms t[0 .. m), m <= 16, that start at a multiple of 16 terms (so all end in one      */ \
  /* chunk): S[i] = s ⊖ c of the root pair of the prefix that ends at t[i] (the caller      */ \
  /* checks that it is finite). The wrap joins run on the 16 prefixes side by side: J on    */ \
  /* (s, c) arrays, the same operations as rb_kjoin, so that they fill the adders.          */ \
  RB_ORDER_FN void rb_kscan_group_##SFX(rb_kscan_##SFX *st, const T *t, int m, T *S) {          \
    T vs[RB_KAHAN_LANES] = {0}, vc[RB_KAHAN_LANES] = {0};                                       \
    rb_kpair_##SFX last;                                                                        \
    if (m == RB_KAHAN_LANES && st->q >= RB_KAHAN_LANES) {                                       \
      rb_kscan_row_##SFX(st, t, vs, vc);                                                        \
      last.s = vs[m - 1], last.c = vc[m - 1];                                                   \
    } else {                                                                                    \
      for (int i = 0; i < m; ++i) {                                                             \
        last = rb_kscan_lanes_##SFX(st, t[i]);                                                  \
        vs[i] = last.s, vc[i] = last.c;                                                         \
      }                                                                                         \
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
