/* The pairwise order of conv.h as an implicit gemm over all classes (the
 * pairwise counterpart of conv_seq.c; same operands, same tables).
 *
 * A (rows x terms) is packed once per call into the tile kernel's panels and
 * every class addresses its present terms in it (aidx = t*mr); B is read
 * straight from src by the micro-kernel. Each output sums its class's
 * compacted term list by docs/contract.md §2's tree, cut as the gemm frame
 * cuts it (gemm_blocks.inc, block_pw): chunks of kc = 2^q terms (aligned
 * subtrees) computed by the micro-kernel and joined by the binary counter
 * (one tile per level), the nterms % kc tail cut into its binary-expansion
 * blocks, and all blocks joined right to left, B1 ⊕ (B2 ⊕ (... ⊕ Bk))
 * (order/order.h).
 * Loop nest per thread part: groups of tiles of one class > chunks > row
 * panels > tiles: the chunk of a panel of A stays in cache while the group's
 * tiles go over it. A unit (tile, panel) is computed by one part alone, so the
 * thread split changes no operation. */
#include <stdlib.h>

#include "../../common/fp_env.h"
#include "../../common/isa.h"
#include "conv.h"
#include "conv_kernels.h"
#include "conv_scatter.h"
#include "conv_scratch.h"
#include "gemm_kernels.h"
#include "order/order.h"
#include "partition.h"
#include "thread.h"

#if defined(__x86_64__)
static const rb_conv_kernels *const pw_tables[CR_ISA_COUNT] = {&rb_conv_scalar, &rb_conv_avx2,
                                                               &rb_conv_avx512};
#else
static const rb_conv_kernels *const pw_tables[CR_ISA_COUNT] = {&rb_conv_scalar, NULL, NULL};
#endif

/* kc: terms per chunk by element size (1024 float32: longer chunks cost fewer
 * joins and kernel calls, measured flat from 512 to 4096); tiles per group
 * (the workspaces of a group's units). */
enum { PW_KC_BYTES = 4096, PW_GROUP = 16 };

typedef struct {
  int dtype, mr, nr, mp; /* tile rows, columns, panels per kernel call */
  rb_conv_pw_fn pw;
  rb_conv_pack_fn pack;
  rb_conv_store_fn store;
  int64_t rows, terms, panels, kc, levels, ntiles;
  int row_parts, col_parts;
  const char *a, *src, *bias;
  int64_t a_rs, tin, t_os;
  char *dst, *apack;
  int64_t drow;
  const rb_conv_class *cls;
  const int64_t *aidx, *cls_base;                /* class c's A offsets at aidx + cls_base[c] */
  const int64_t *tile_cls, *tile_j0, *tile_nc; /* per tile: class, first column, columns */
  char *ws;                                     /* part p's workspaces at ws + p*ws_bytes */
  int64_t ws_bytes, unit_bytes, lists; /* a part: units, then two column lists at lists */
} conv_pw;

/* Part `part` packs its share of the panels of A. */
static void pw_pack(void *ctx, int part, int parts) {
  const conv_pw *s = ctx;
  const int64_t size = s->dtype == RB_F32 ? 4 : 8;
  const rb_share sh = rb_part_share(s->panels, 1, part, parts);
  for (int64_t p = sh.lo; p < sh.hi; ++p) {
    const int64_t r0 = p * s->mr, nr = s->rows - r0 < s->mr ? s->rows - r0 : s->mr;
    s->pack(s->terms, nr, s->a + r0 * s->a_rs * size, s->a_rs, s->tin, s->t_os,
            s->apack + p * s->terms * s->mr * size);
  }
}

/* dst = a ⊕ b over n elements (a: the left operand, as the tree has it). */
static void pw_add(int dtype, void *dst, const void *a, const void *b, int64_t n) {
  if (dtype == RB_F32) {
    float *d = dst;
    const float *x = a, *y = b;
    for (int64_t i = 0; i < n; ++i) d[i] = x[i] + y[i];
  } else {
    double *d = dst;
    const double *x = a, *y = b;
    for (int64_t i = 0; i < n; ++i) d[i] = x[i] + y[i];
  }
}

/* The tiles [g0, g1) of one class over the panels [p0, p1); unit (tile,
 * panel)'s workspace at ws + ((tl - g0)*(p1 - p0) + p - p0)*unit_bytes:
 * levels counter tiles, then acc and tmp. The kernel takes mp panels of a
 * tile at once (adjacent units: ustride apart). */
static void pw_group(const conv_pw *s, int64_t g0, int64_t g1, int64_t p0, int64_t p1, char *ws) {
  static const float zero_f32[1] = {0};
  static const double zero_f64[1] = {0};
  const int64_t size = s->dtype == RB_F32 ? 4 : 8, tile = (int64_t)s->mr * s->nr;
  const int64_t tb = tile * size, np = p1 - p0, c = s->tile_cls[g0];
  const rb_conv_class *cl = &s->cls[c];
  const int64_t n = cl->nterms, kc = s->kc, nfull = n / kc, levels = rb_bit_length(nfull);
  const int64_t *aidx = s->aidx + s->cls_base[c], *toff = cl->toff;
  const int64_t pstride = s->terms * s->mr, ustride = s->unit_bytes / size;
#define PW_UNIT(tl, p) (ws + (((tl) - g0) * np + (p) - p0) * s->unit_bytes)
  for (int64_t ch = 0; ch < nfull; ++ch) {
    int l;
    RB_COUNTER_CARRIES(l, ch) {}
    for (int64_t p = p0, m; p < p1; p += m) {
      m = p1 - p < s->mp ? p1 - p : s->mp;
      const char *ap = s->apack + p * pstride * size;
      for (int64_t tl = g0; tl < g1; ++tl) {
        char *u = PW_UNIT(tl, p);
        const int nc = (int)s->tile_nc[tl];
        /* chunk ch completes the subtrees of levels 0 .. l-1 and goes to
         * level l: the kernel adds level 0 itself */
        s->pw(kc, aidx + ch * kc, toff + ch * kc, ap, pstride, s->src, cl->coff + s->tile_j0[tl],
              nc, (int)m, l ? u : NULL, l <= 1 ? u + l * tb : u + (s->levels + 1) * tb, ustride);
        for (int64_t e = 0; e < m && l > 1; ++e) {
          char *ue = u + e * s->unit_bytes, *tmp = ue + (s->levels + 1) * tb;
          for (int lv = 1; lv < l; ++lv)
            pw_add(s->dtype, lv + 1 == l ? ue + l * tb : tmp, ue + lv * tb, tmp, nc * s->mr);
        }
      }
    }
  }
  /* the tail blocks, last first (acc = B_i ⊕ acc) */
  const int64_t r = n - nfull * kc;
  int have_tail = 0;
  for (int64_t p = p0, m; p < p1 && r; p += m) {
    m = p1 - p < s->mp ? p1 - p : s->mp;
    const char *ap = s->apack + p * pstride * size;
    for (int64_t tl = g0; tl < g1; ++tl) {
      char *acc = PW_UNIT(tl, p) + s->levels * tb;
      const int nc = (int)s->tile_nc[tl];
      const int64_t j0 = s->tile_j0[tl];
      int have = 0;
      RB_BLOCKS_SMALLEST_FIRST(b, r, 62) {
        const int64_t bs = (int64_t)1 << b, k0 = nfull * kc + rb_block_first(r, bs);
        s->pw(bs, aidx + k0, toff + k0, ap, pstride, s->src, cl->coff + j0, nc, (int)m, NULL,
              have ? acc + tb : acc, ustride);
        for (int64_t e = 0; e < m && have; ++e) {
          char *ae = acc + e * s->unit_bytes;
          pw_add(s->dtype, ae, ae + tb, ae, nc * s->mr);
        }
        have = 1;
      }
    }
    have_tail = 1;
  }
  /* then the levels; a panel's results for all the group's columns are stored
   * together (runs of W consecutive destinations: transposed whole-vector
   * stores) */
  int64_t *coff = (int64_t *)(ws + s->lists), *doff = coff + PW_GROUP * s->nr;
  for (int64_t p = p0; p < p1; ++p) {
    const int64_t i0 = p * s->mr, i1 = s->rows < i0 + s->mr ? s->rows : i0 + s->mr;
    int64_t cols = 0;
    for (int64_t tl = g0; tl < g1; ++tl) {
      char *u = PW_UNIT(tl, p), *acc = u + s->levels * tb;
      const int nc = (int)s->tile_nc[tl];
      const int64_t j0 = s->tile_j0[tl];
      int have = have_tail;
      const char *res = acc;
      RB_BLOCKS_SMALLEST_FIRST(lb, nfull, levels) {
        if (have)
          pw_add(s->dtype, acc, u + lb * tb, res, nc * s->mr), res = acc;
        else
          res = u + lb * tb;
        have = 1;
      }
      if (!have) { /* no terms: +0 (⊕ bias) */
        if (s->dtype == RB_F32)
          scatter_rows_f32(s->dst, s->drow, s->bias, cl->doff + j0, nc, i0, i1, zero_f32, 0, 0);
        else
          scatter_rows_f64(s->dst, s->drow, s->bias, cl->doff + j0, nc, i0, i1, zero_f64, 0, 0);
        continue;
      }
      for (int jj = 0; jj < nc; ++jj, ++cols) {
        coff[cols] = (res - ws) / size + jj * s->mr;
        doff[cols] = cl->doff[j0 + jj];
      }
    }
    if (cols)
      s->store(cols, coff, doff, ws, i1 - i0, s->bias ? s->bias + i0 * size : NULL,
               s->dst + i0 * s->drow * size, s->drow);
  }
#undef PW_UNIT
}

static void pw_part(void *ctx, int part, int parts) {
  const conv_pw *s = ctx;
  (void)parts;
  const int rp = part % s->row_parts, cp = part / s->row_parts;
  const rb_share panels = rb_part_share(s->panels, s->mp, rp, s->row_parts);
  const rb_share tiles = rb_part_share(s->ntiles, 1, cp, s->col_parts);
  if (panels.lo >= panels.hi) return;
  char *ws = s->ws + part * s->ws_bytes;
  for (int64_t g0 = tiles.lo, g1; g0 < tiles.hi && !rb_stop_poll(); g0 = g1) {
    g1 = g0 + 1;
    while (g1 < tiles.hi && g1 - g0 < PW_GROUP && s->tile_cls[g1] == s->tile_cls[g0]) ++g1;
    pw_group(s, g0, g1, panels.lo, panels.hi, ws);
  }
}

int rb_conv_pw(int dtype, rb_context cfg, int64_t rows, int64_t terms, const void *a,
               int64_t a_rs, int64_t tin, int64_t t_os, int64_t nclasses,
               const rb_conv_class *cls, const void *src, void *dst, int64_t drow,
               const void *bias) {
  if ((dtype != RB_F32 && dtype != RB_F64) || cfg.isa < 0 || cfg.isa >= CR_ISA_COUNT ||
      !cr_isa_supported(cfg.isa) || !pw_tables[cfg.isa] || rows < 0 || terms < 0 ||
      nclasses < 0 || (terms > 0 && tin < 1))
    return -1;
  const rb_conv_kernels *kt = pw_tables[cfg.isa];
  const int64_t size = dtype == RB_F32 ? 4 : 8;
  const int mr = dtype == RB_F32 ? kt->mr_f32 : kt->mr_f64;
  const rb_context cx = rb_context_fix(cfg);
  /* two panels per kernel call (half the B loads per product, half the tile
   * width) where the path has that kernel and A has 8 panels or more: +5-15 %
   * at 512 channels of 7 x 7; at 64 and 128 channels mixed (-10 % to +5 %) */
  const int mp = kt->pw_nr2 && rows > 7 * mr ? 2 : 1;
  conv_pw s = {.dtype = dtype, .mr = mr, .nr = mp == 2 ? kt->pw_nr2 : kt->pw_nr, .mp = mp,
               .pw = dtype == RB_F32 ? kt->pw_f32 : kt->pw_f64,
               .pack = dtype == RB_F32 ? kt->pack_f32 : kt->pack_f64,
               .store = dtype == RB_F32 ? kt->store_f32 : kt->store_f64,
               .rows = rows, .terms = terms, .panels = (rows + mr - 1) / mr,
               .kc = rb_pow2_floor(cx.conv_kc ? cx.conv_kc : PW_KC_BYTES / size),
               .a = a, .src = src, .bias = bias, .a_rs = a_rs, .tin = tin, .t_os = t_os,
               .dst = dst, .drow = drow, .cls = cls};
  int64_t all_terms = 0, all_cols = 0, most = 0;
  for (int64_t c = 0; c < nclasses; ++c) {
    if (cls[c].nterms < 0 || cls[c].ncols < 0) return -1;
    all_terms += cls[c].nterms;
    all_cols += cls[c].ncols;
    s.ntiles += (cls[c].ncols + s.nr - 1) / s.nr;
    if (cls[c].nterms > most) most = cls[c].nterms;
  }
  if (rows == 0 || s.ntiles == 0) return 0;
  s.levels = rb_bit_length(most / s.kc);
  int64_t parts = rb_part_count(rows * (terms ? terms : 1) * all_cols, cx.conv_min_work,
                                cx.threads, INT64_MAX);
  /* threads: tiles first; row panels too (mp at a time) when the tiles are few */
  const int64_t punits = (s.panels + mp - 1) / mp;
  s.row_parts = 1;
  if (s.ntiles < 8 * parts) s.row_parts = (int)(parts < punits ? parts : punits);
  s.col_parts = (int)(parts / s.row_parts);
  parts = (int64_t)s.row_parts * s.col_parts;
  const int64_t ints = all_terms + nclasses + 3 * s.ntiles;
  const int64_t apack_bytes = (s.panels * terms * s.mr * size + 63) / 64 * 64;
  s.unit_bytes = (s.levels + 2) * s.mr * s.nr * size;
  s.lists = (PW_GROUP * mp * ((punits + s.row_parts - 1) / s.row_parts) * s.unit_bytes + 63) /
            64 * 64;
  s.ws_bytes = s.lists + 2 * PW_GROUP * s.nr * (int64_t)sizeof(int64_t);
  const int64_t big_bytes = apack_bytes + parts * s.ws_bytes;
  int64_t *mem = malloc((size_t)ints * sizeof(int64_t));
  void *owned;
  char *big = rb_conv_big_scratch((size_t)big_bytes, &owned);
  if (!mem || !big) {
    free(mem);
    free(owned);
    return -2;
  }
  s.apack = big;
  s.ws = big + apack_bytes;
  int64_t *aidx = mem, *base = aidx + all_terms;
  int64_t *tile_cls = base + nclasses, *tile_j0 = tile_cls + s.ntiles,
          *tile_nc = tile_j0 + s.ntiles;
  int64_t at = 0, tl = 0;
  for (int64_t c = 0; c < nclasses; ++c) {
    const rb_conv_class *cl = &cls[c];
    base[c] = at;
    for (int64_t t = 0; t < cl->nterms; ++t) {
      if (cl->term[t] < 0 || cl->term[t] >= terms || (t && cl->term[t] <= cl->term[t - 1])) {
        free(mem);
        free(owned);
        return -1;
      }
      aidx[at++] = cl->term[t] * s.mr;
    }
    const int64_t nt = (cl->ncols + s.nr - 1) / s.nr; /* balanced widths */
    for (int64_t i = 0; i < nt; ++i, ++tl) {
      tile_cls[tl] = c;
      tile_j0[tl] = cl->ncols * i / nt;
      tile_nc[tl] = cl->ncols * (i + 1) / nt - tile_j0[tl];
    }
  }
  s.aidx = aidx;
  s.cls_base = base;
  s.tile_cls = tile_cls;
  s.tile_j0 = tile_j0;
  s.tile_nc = tile_nc;
  cr_fenv_t saved = cr_fenv_enter();
  rb_parallel((int)(parts < s.panels ? parts : s.panels), pw_pack, &s);
  rb_parallel((int)parts, pw_part, &s);
  cr_fenv_leave(saved);
  free(mem);
  free(owned);
  return rb_stopped() ? RB_STOPPED : 0;
}
