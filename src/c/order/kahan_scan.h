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
 * Speed: a whole row of the lanes (16 terms) computes its 16 prefixes' lane
 * trees side by side (rb_kscan_row), and the wrap joins run on 32 prefixes
 * side by side (rb_kscan_group), as vector operations on (s, c) arrays.
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

/* Prefixes computed side by side (a divisor of RB_KAHAN_CHUNK, a multiple of the lanes). */
enum { RB_KSCAN_GROUP = 32 };

/* The side-by-side loops are written for the vectoriser: its cost model of -O2 leaves
 * most of them scalar (no other effect: only additions, never contracted). */
#if defined(__CUDACC__) /* the CUDA scan kernels (src/cuda/reproblas/kahan_scan.cuh) */
#define RB_KSCAN_VECTORIZE static __host__ __device__ __noinline__
#elif defined(__GNUC__) && !defined(__clang__)
#define RB_KSCAN_VECTORIZE \
  static __attribute__((noinline, unused, optimize("tree-vectorize", "vect-cost-model=dynamic", "peel-loops")))
#else
#define RB_KSCAN_VECTORIZE static __attribute__((noinline, unused))
#endif

#define RB_KSCAN_DECLARE(T, SFX)                                                                \
  typedef struct {                                                                              \
    /* the open chunk's lanes and, once all 16 exist, its lane tree's subtrees: level 1   */   \
    /* (8 pairs of lanes), 2 and 3; each as (s, c) arrays */                                    \
    T ls[16], lc[16], n1s[8], n1c[8], n2s[4], n2c[4], n3s[2], n3c[2];                           \
    rb_kpair_##SFX lst[8];   /* the counter over the lanes, while q <= 16 */                    \
    rb_kpair_##SFX cst[64];  /* the counter over the closed chunks' pairs */                    \
    rb_kpair_##SFX wrap[64]; /* J(wrap[0], v), then J(wrap[1], .), ... */                       \
    T pw[64];                /* the counter over the terms (fallback) */                        \
    int64_t n, closed, pwn;  /* terms, closed chunks, terms in pw */                            \
    int q, nwrap;            /* terms in the open chunk, wrap's length */                       \
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
  /* (rs[i], rc[i]) = J((as[j], ac[j]), (bs[k], bc[k])) */                                      \
  RB_ORDER_FN_INLINE void rb_kjoin_at_##SFX(T *rs, T *rc, int i, const T *as, const T *ac,      \
                                            int j, const T *bs, const T *bc, int k) {           \
    rb_kpair_##SFX a, b, r;                                                                     \
    a.s = as[j], a.c = ac[j], b.s = bs[k], b.c = bc[k];                                         \
    r = rb_kjoin_##SFX(a, b);                                                                   \
    rs[i] = r.s, rc[i] = r.c;                                                                   \
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
      st->ls[q] = w.s, st->lc[q] = w.c;                                                         \
      RB_COUNTER_PUSH(st->lst, q, w, rb_kjoin_##SFX);                                           \
      RB_COUNTER_JOIN(v, st->lst, q + 1, rb_kjoin_##SFX);                                       \
      if (q == RB_KAHAN_LANES - 1) { /* the perfect tree's subtrees, as the counter's */        \
        for (int i = 0; i < 8; ++i)                                                             \
          rb_kjoin_at_##SFX(st->n1s, st->n1c, i, st->ls, st->lc, 2 * i, st->ls, st->lc, 2 * i + 1); \
        for (int i = 0; i < 4; ++i)                                                             \
          rb_kjoin_at_##SFX(st->n2s, st->n2c, i, st->n1s, st->n1c, 2 * i, st->n1s, st->n1c, 2 * i + 1); \
        for (int i = 0; i < 2; ++i)                                                             \
          rb_kjoin_at_##SFX(st->n3s, st->n3c, i, st->n2s, st->n2c, 2 * i, st->n2s, st->n2c, 2 * i + 1); \
      }                                                                                         \
      return v;                                                                                 \
    }                                                                                           \
    /* lane l's Kahan step, then its path to the root */                                        \
    const int l = q & (RB_KAHAN_LANES - 1), a = l >> 1, b2 = l >> 2, b3 = l >> 3;              \
    RB_KAHAN_STEP(st->ls[l], st->lc[l], t, RB_PLUS, RB_MINUS);                                  \
    rb_kjoin_at_##SFX(st->n1s, st->n1c, a, st->ls, st->lc, 2 * a, st->ls, st->lc, 2 * a + 1);   \
    rb_kjoin_at_##SFX(st->n2s, st->n2c, b2, st->n1s, st->n1c, 2 * b2, st->n1s, st->n1c, 2 * b2 + 1); \
    rb_kjoin_at_##SFX(st->n3s, st->n3c, b3, st->n2s, st->n2c, 2 * b3, st->n2s, st->n2c, 2 * b3 + 1); \
    rb_kpair_##SFX x, y;                                                                        \
    x.s = st->n3s[0], x.c = st->n3c[0], y.s = st->n3s[1], y.c = st->n3c[1];                     \
    return rb_kjoin_##SFX(x, y);                                                                \
  }                                                                                             \
                                                                                                \
  /* A whole row of the lanes, t[0 .. 16) into lanes 0 .. 15 (q a multiple of 16, at     */ \
  /* least 16): the open chunk's pair after each term, (vs[i], vc[i]), computed for all 16  */ \
  /* prefixes at once. Prefix i's lane tree has the new lanes 0 .. i and the old ones      */ \
  /* after i: on lane i's path, a node's left sibling is all new, its right one all old     */ \
  /* (the cached subtree), and the path's node P joins with it. The same joins, with the   */ \
  /* same operands, as rb_kscan_lanes term by term. */                                         \
  RB_KSCAN_VECTORIZE void rb_kscan_row_##SFX(rb_kscan_##SFX *st, const T *t, T *vs, T *vc) {           \
    T ns[16], nc[16], as[16], ac[16], bs[16], bc[16], ps[16], pc[16];                           \
    T m1s[8], m1c[8], h1s[8], h1c[8], m2s[4], m2c[4], m3s[2], m3c[2];                           \
    for (int l = 0; l < 16; ++l) { /* the new lanes */                                          \
      T s_ = st->ls[l], c_ = st->lc[l];                                                         \
      RB_KAHAN_STEP(s_, c_, t[l], RB_PLUS, RB_MINUS);                                           \
      ns[l] = s_, nc[l] = c_;                                                                   \
    }                                                                                           \
    for (int a = 0; a < 8; ++a) { /* level 1: (new, new) and (new, old) */                      \
      as[a] = ns[2 * a], ac[a] = nc[2 * a], bs[a] = ns[2 * a + 1], bc[a] = nc[2 * a + 1];       \
      as[a + 8] = ns[2 * a], ac[a + 8] = nc[2 * a];                                             \
      bs[a + 8] = st->ls[2 * a + 1], bc[a + 8] = st->lc[2 * a + 1];                             \
    }                                                                                           \
    RB_KJOIN_ARRAYS(ps, pc, as, ac, bs, bc, 16);                                                \
    for (int a = 0; a < 8; ++a) {                                                               \
      m1s[a] = ps[a], m1c[a] = pc[a], h1s[a] = ps[a + 8], h1c[a] = pc[a + 8];                   \
    }                                                                                           \
    for (int a = 0; a < 8; ++a) { /* lane i's level-1 node: i odd (new, new), else (new, old) */ \
      ps[2 * a] = h1s[a], pc[2 * a] = h1c[a], ps[2 * a + 1] = m1s[a], pc[2 * a + 1] = m1c[a];   \
    }                                                                                           \
    for (int b = 0; b < 4; ++b) { /* level 2: the new nodes, and lane i's node */               \
      as[b] = m1s[2 * b], ac[b] = m1c[2 * b], bs[b] = m1s[2 * b + 1], bc[b] = m1c[2 * b + 1];   \
    }                                                                                           \
    RB_KJOIN_ARRAYS(m2s, m2c, as, ac, bs, bc, 4);                                               \
    for (int b = 0; b < 4; ++b)                                                                 \
      for (int r = 0; r < 4; ++r) {                                                             \
        const int i = 4 * b + r;                                                                \
        if (r < 2) as[i] = ps[i], ac[i] = pc[i], bs[i] = st->n1s[2 * b + 1], bc[i] = st->n1c[2 * b + 1]; \
        else as[i] = m1s[2 * b], ac[i] = m1c[2 * b], bs[i] = ps[i], bc[i] = pc[i];              \
      }                                                                                         \
    RB_KJOIN_ARRAYS(ps, pc, as, ac, bs, bc, 16);                                                \
    for (int c = 0; c < 2; ++c) /* level 3 */                                                   \
      for (int r = 0; r < 8; ++r) {                                                             \
        const int i = 8 * c + r;                                                                \
        if (r < 4) as[i] = ps[i], ac[i] = pc[i], bs[i] = st->n2s[2 * c + 1], bc[i] = st->n2c[2 * c + 1]; \
        else as[i] = m2s[2 * c], ac[i] = m2c[2 * c], bs[i] = ps[i], bc[i] = pc[i];              \
      }                                                                                         \
    RB_KJOIN_ARRAYS(vs, vc, as, ac, bs, bc, 16);                                                \
    as[0] = m2s[0], ac[0] = m2c[0], bs[0] = m2s[1], bc[0] = m2c[1];                             \
    as[1] = m2s[2], ac[1] = m2c[2], bs[1] = m2s[3], bc[1] = m2c[3];                             \
    RB_KJOIN_ARRAYS(m3s, m3c, as, ac, bs, bc, 2);                                               \
    for (int i = 0; i < 16; ++i) { /* the root */                                               \
      if (i < 8) as[i] = vs[i], ac[i] = vc[i], bs[i] = st->n3s[1], bc[i] = st->n3c[1];          \
      else as[i] = m3s[0], ac[i] = m3c[0], bs[i] = vs[i], bc[i] = vc[i];                        \
    }                                                                                           \
    RB_KJOIN_ARRAYS(vs, vc, as, ac, bs, bc, 16);                                                \
    for (int l = 0; l < 16; ++l) st->ls[l] = ns[l], st->lc[l] = nc[l];                          \
    for (int a = 0; a < 8; ++a) st->n1s[a] = m1s[a], st->n1c[a] = m1c[a];                       \
    for (int b = 0; b < 4; ++b) st->n2s[b] = m2s[b], st->n2c[b] = m2c[b];                       \
    for (int c = 0; c < 2; ++c) st->n3s[c] = m3s[c], st->n3c[c] = m3c[c];                       \
    st->q += 16;                                                                                \
  }                                                                                             \
                                                                                                \
  /* Terms t[0 .. m), m <= RB_KSCAN_GROUP, that start at a multiple of RB_KSCAN_GROUP     */ \
  /* terms (so all end in one chunk): S[i] = s ⊖ c of the root pair of the prefix that     */ \
  /* ends at t[i] (the caller checks that it is finite). The wrap joins run on the group's  */ \
  /* prefixes side by side: J on (s, c) arrays, the same operations as rb_kjoin, so that   */ \
  /* they fill the adders. */                                                                   \
  RB_KSCAN_VECTORIZE void rb_kscan_group_##SFX(rb_kscan_##SFX *st, const T *t, int m, T *S) {   \
    T vs[RB_KSCAN_GROUP] = {0}, vc[RB_KSCAN_GROUP] = {0};                                       \
    rb_kpair_##SFX last;                                                                        \
    for (int i0 = 0; i0 < m; i0 += RB_KAHAN_LANES) {                                            \
      if (m - i0 >= RB_KAHAN_LANES && st->q >= RB_KAHAN_LANES) {                                \
        rb_kscan_row_##SFX(st, t + i0, vs + i0, vc + i0);                                       \
        last.s = vs[i0 + 15], last.c = vc[i0 + 15];                                             \
      } else {                                                                                  \
        for (int i = i0; i < m && i < i0 + RB_KAHAN_LANES; ++i) {                               \
          last = rb_kscan_lanes_##SFX(st, t[i]);                                                \
          vs[i] = last.s, vc[i] = last.c;                                                       \
        }                                                                                       \
      }                                                                                         \
    }                                                                                           \
    for (int w = 0; w < st->nwrap; ++w) {                                                       \
      const T as = st->wrap[w].s, ac = st->wrap[w].c;                                           \
      for (int i = 0; i < RB_KSCAN_GROUP; ++i) {                                                \
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
