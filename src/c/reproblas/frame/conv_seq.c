/* The sequential order of conv.h: an implicit gemm over all classes.
 *
 * A (rows x terms, read from the weights in place) is packed once per call
 * into panels of mr rows (panel p, term t at apack[(p*terms + t)*mr]); every
 * class addresses its present terms in it by their indices, so the border
 * classes cost no copy of A.
 * Output columns are cut into tiles of at most nr columns of one class; the
 * micro-kernel reads each tile's B values straight from src. Loop nest per
 * thread part: chunks of tiles > kc blocks of the full term list > mc rows of
 * panels > tiles > panels, with each tile's chains carried in a workspace
 * across the kc blocks (started at -0 in registers by a class's first block
 * with terms): the A block (mc x kc) stays in L2 and one tile's B values in
 * L1 while the panels run over them. A finished chunk is stored row group by
 * row group (the kernel table's store: transposed, whole-vector runs), or,
 * with one panel and the columns' slots given, copied to a stage in
 * destination order and stored at the end: a class's columns are mostly
 * short runs of destinations (a 3 x 3 kernel's left-edge class on 8 x 8
 * images: one column per image row), all classes' together whole rows. */
#include "conv.h"

#include <stdlib.h>
#include <string.h>

#include "../../common/fp_env.h"
#include "../../common/isa.h"
#include "conv_kernels.h"
#include "conv_scatter.h"
#include "conv_scratch.h"
#include "gemm_kernels.h"
#include "partition.h"
#include "thread.h"

#if defined(__x86_64__)
static const rb_conv_kernels *const conv_tiles[CR_ISA_COUNT] = {&rb_conv_scalar, &rb_conv_avx2,
                                                                 &rb_conv_avx512};
#else
static const rb_conv_kernels *const conv_tiles[CR_ISA_COUNT] = {&rb_conv_scalar, NULL, NULL};
#endif

/* kc: terms per block by element size; mc: rows per block. */
enum { SEQ_KC_BYTES = 512, SEQ_MC = 256, SEQ_CHUNK_COLS = 192 };
#define SEQ_STAGE_MAX ((int64_t)4 << 20)

typedef struct {
  int dtype, nr, mr;
  rb_conv_tile_fn tile;
  rb_conv_pack_fn pack;
  rb_conv_store_fn store;
  int64_t rows, terms, panels, nkb, kc, mcp, chunk_tiles, ntiles, nclasses;
  int row_parts, col_parts;
  const char *a, *src, *bias;
  int64_t a_rs, tin, t_os;
  char *dst, *apack;
  int64_t drow;
  const rb_conv_class *cls;
  const int64_t *tile_cls, *tile_j0, *tile_nc; /* per tile: class, first column, columns */
  char *ws; /* part p's workspace at ws + p*ws_bytes: the chains, and at ws_cols */
  int64_t ws_bytes, ws_cols; /* the two column lists of seq_store, then the term cursors */
  /* staged (one panel, every class with slots): finished columns are copied
   * to stage + slot*mr, ordered by destination, and stored at the end in
   * runs as long as the destinations allow; sdoff[slot]: the destination */
  char *stage;
  const int64_t *sdoff;
  int64_t all_cols;
} conv_seq;

/* The pieces each panel's packing is cut into for `parts` threads: its runs
 * of tin terms are shared when the panels are fewer than the threads (one
 * panel of grad_weight's grad_y: thousands of terms). */
static int64_t seq_pack_split(const conv_seq *s, int64_t parts) {
  const int64_t runs = s->terms ? (s->terms + s->tin - 1) / s->tin : 1;
  const int64_t want = (parts + s->panels - 1) / s->panels;
  return want < runs ? want : runs;
}

/* Part `part` packs its share of the pieces of the panels of A. */
static void seq_pack(void *ctx, int part, int parts) {
  const conv_seq *s = ctx;
  const int64_t size = s->dtype == RB_F32 ? 4 : 8;
  if (!s->terms) return;
  const int64_t split = seq_pack_split(s, parts), runs = (s->terms + s->tin - 1) / s->tin;
  const rb_share sh = rb_part_share(s->panels * split, 1, part, parts);
  for (int64_t u = sh.lo; u < sh.hi; ++u) {
    const int64_t p = u / split, r0 = p * s->mr, nr = s->rows - r0 < s->mr ? s->rows - r0 : s->mr;
    const rb_share piece = rb_part_share(runs, 1, (int)(u % split), (int)split);
    const int64_t t0 = piece.lo * s->tin, t1 = piece.hi * s->tin < s->terms ? piece.hi * s->tin
                                                                           : s->terms;
    if (t0 < t1)
      s->pack(t1 - t0, nr, s->a + (r0 * s->a_rs + piece.lo * s->t_os) * size, s->a_rs, s->tin,
              s->t_os, s->apack + (p * s->terms + t0) * s->mr * size);
  }
}

/* Stores the finished tiles [c0, c1) x panels [p0, p1) of the workspace: S,
 * or S ⊕ bias, through the kernel table's store (the chunk's columns in one
 * list, so that runs cross tile boundaries); a class without terms is +0
 * (contract §2, n = 0). coff, doff: room for the chunk's columns. */
static void seq_store(const conv_seq *s, int64_t c0, int64_t c1, int64_t p0, int64_t p1,
                      const char *ws, int64_t *coff, int64_t *doff) {
  static const float zero_f32[1] = {0};
  static const double zero_f64[1] = {0};
  const int64_t size = s->dtype == RB_F32 ? 4 : 8, tile = (int64_t)s->mr * s->nr;
  int64_t n = 0;
  for (int64_t tl = c0; tl < c1; ++tl) {
    const rb_conv_class *cl = &s->cls[s->tile_cls[tl]];
    const int64_t *d = cl->doff + s->tile_j0[tl], nc = s->tile_nc[tl];
    for (int64_t p = p0; p < p1 && !cl->nterms; ++p) {
      const int64_t i1 = s->rows < (p + 1) * s->mr ? s->rows : (p + 1) * s->mr;
      if (s->dtype == RB_F32)
        scatter_rows_f32(s->dst, s->drow, s->bias, d, nc, p * s->mr, i1, zero_f32, 0, 0);
      else
        scatter_rows_f64(s->dst, s->drow, s->bias, d, nc, p * s->mr, i1, zero_f64, 0, 0);
    }
    for (int64_t j = 0; j < nc && cl->nterms; ++j, ++n) {
      coff[n] = (tl - c0) * (p1 - p0) * tile + j * s->mr;
      doff[n] = d[j];
    }
  }
  for (int64_t p = p0; p < p1 && n; ++p) {
    const int64_t i0 = p * s->mr, i1 = s->rows < i0 + s->mr ? s->rows : i0 + s->mr;
    s->store(n, coff, doff, ws + (p - p0) * tile * size, i1 - i0,
             s->bias ? s->bias + i0 * size : NULL, s->dst + i0 * s->drow * size, s->drow);
  }
}

/* Copies the finished tiles [c0, c1) (one panel) from the workspace to
 * their slots of the stage; a class without terms is +0 (contract §2, n = 0;
 * the store adds the bias as to any sum). */
static void seq_stage(const conv_seq *s, int64_t c0, int64_t c1, const char *ws) {
  const int64_t size = s->dtype == RB_F32 ? 4 : 8, tile = (int64_t)s->mr * s->nr;
  const size_t col = (size_t)(s->mr * size);
  for (int64_t tl = c0; tl < c1; ++tl) {
    const rb_conv_class *cl = &s->cls[s->tile_cls[tl]];
    const int64_t *slot = cl->slot + s->tile_j0[tl], nc = s->tile_nc[tl];
    for (int64_t j = 0; j < nc; ++j) {
      char *d = s->stage + slot[j] * (int64_t)col;
      const char *w = ws + ((tl - c0) * tile + j * s->mr) * size;
      if (!cl->nterms)
        memset(d, 0, col);
      else if (col == 64) /* one or two vectors: inline copies, not calls */
        memcpy(d, w, 64);
      else if (col == 128)
        memcpy(d, w, 128);
      else
        memcpy(d, w, col);
    }
  }
}

/* Part `part` stores its share of the staged columns, in pieces of its
 * workspace's column lists. */
static void seq_store_staged(void *ctx, int part, int parts) {
  const conv_seq *s = ctx;
  const int64_t size = s->dtype == RB_F32 ? 4 : 8, room = s->chunk_tiles * s->nr;
  const rb_share sh = rb_part_share(s->all_cols, 16, part, parts);
  int64_t *coff = (int64_t *)(s->ws + part * s->ws_bytes + s->ws_cols), *doff = coff + room;
  for (int64_t j0 = sh.lo; j0 < sh.hi; j0 += room) {
    const int64_t n = sh.hi - j0 < room ? sh.hi - j0 : room;
    for (int64_t j = 0; j < n; ++j) coff[j] = j * s->mr, doff[j] = s->sdoff[j0 + j];
    s->store(n, coff, doff, s->stage + j0 * s->mr * size, s->rows, s->bias, s->dst, s->drow);
  }
}

/* The first of class cl's terms from t on that is not below `end` (binary
 * search: the terms ascend). */
static int64_t seq_terms_below(const rb_conv_class *cl, int64_t t, int64_t end) {
  int64_t hi = cl->nterms;
  while (t < hi) {
    const int64_t mid = t + (hi - t) / 2;
    if (cl->term[mid] < end)
      t = mid + 1;
    else
      hi = mid;
  }
  return t;
}

/* The kc block of the next term of any tile [c0, c1) (nkb: none left); cur[i]
 * is tile c0 + i's next term. Blocks no tile has terms in are skipped: with many
 * small classes (a large kernel) most blocks are empty for most tiles. */
static int64_t seq_next_block(const conv_seq *s, int64_t c0, int64_t c1, const int64_t *cur) {
  int64_t kb = s->nkb;
  for (int64_t tl = c0; tl < c1; ++tl) {
    const rb_conv_class *cl = &s->cls[s->tile_cls[tl]];
    const int64_t t = cur[tl - c0];
    if (t < cl->nterms && cl->term[t] / s->kc < kb) kb = cl->term[t] / s->kc;
  }
  return kb;
}

static void seq_part(void *ctx, int part, int parts) {
  const conv_seq *s = ctx;
  (void)parts;
  const int rp = part % s->row_parts, cp = part / s->row_parts;
  const rb_share panels = rb_part_share(s->panels, 1, rp, s->row_parts);
  const rb_share tiles = rb_part_share(s->ntiles, 1, cp, s->col_parts);
  const int64_t p0 = panels.lo, p1 = panels.hi, ta = tiles.lo, tb = tiles.hi;
  if (p0 >= p1 || ta >= tb) return;
  const int64_t size = s->dtype == RB_F32 ? 4 : 8, tile = (int64_t)s->mr * s->nr;
  const int64_t chunk = s->chunk_tiles;
  char *ws = s->ws + part * s->ws_bytes;
  int64_t *cols = (int64_t *)(ws + s->ws_cols);
  int64_t *first = cols + 2 * chunk * s->nr, *next = first + chunk; /* per tile: block kb's terms */
  for (int64_t c0 = ta; c0 < tb && !rb_stop_poll(); c0 += chunk) {
    const int64_t c1 = tb - c0 < chunk ? tb : c0 + chunk;
    for (int64_t tl = c0; tl < c1; ++tl) next[tl - c0] = 0;
    for (int64_t kb; (kb = seq_next_block(s, c0, c1, next)) < s->nkb;) {
      for (int64_t tl = c0; tl < c1; ++tl) { /* [first, next): the terms of block kb */
        const rb_conv_class *cl = &s->cls[s->tile_cls[tl]];
        first[tl - c0] = next[tl - c0];
        next[tl - c0] = (kb + 1) * s->kc >= s->terms ? cl->nterms /* the last block: no search */
                                                     : seq_terms_below(cl, next[tl - c0],
                                                                       (kb + 1) * s->kc);
      }
      for (int64_t q0 = p0; q0 < p1; q0 += s->mcp) {
        const int64_t q1 = p1 - q0 < s->mcp ? p1 : q0 + s->mcp;
        for (int64_t tl = c0; tl < c1; ++tl) {
          const int64_t c = s->tile_cls[tl], j0 = s->tile_j0[tl];
          const rb_conv_class *cl = &s->cls[c];
          const int64_t t0 = first[tl - c0], t1 = next[tl - c0];
          if (t0 == t1) continue;
          const int64_t *term = cl->term + t0, *toff = cl->toff + t0;
          for (int64_t p = q0; p < q1;)
            p += s->tile(t1 - t0, term, toff, s->apack + p * s->terms * s->mr * size,
                         s->terms * s->mr, s->src, cl->coff + j0, (int)s->tile_nc[tl],
                         (int)(q1 - p), t0 == 0,
                         ws + ((tl - c0) * (p1 - p0) + (p - p0)) * tile * size);
        }
      }
    }
    if (s->stage)
      seq_stage(s, c0, c1, ws);
    else
      seq_store(s, c0, c1, p0, p1, ws, cols, cols + chunk * s->nr);
  }
}

int rb_conv_seq(int dtype, rb_context cfg, int64_t rows, int64_t terms, const void *a,
                int64_t a_rs, int64_t tin, int64_t t_os, int64_t nclasses, const rb_conv_class *cls, const void *src, void *dst,
                int64_t drow, const void *bias) {
  if ((dtype != RB_F32 && dtype != RB_F64) || cfg.isa < 0 || cfg.isa >= CR_ISA_COUNT ||
      !cr_isa_supported(cfg.isa) || !conv_tiles[cfg.isa] || rows < 0 || terms < 0 ||
      nclasses < 0 || (terms > 0 && tin < 1))
    return -1;
  const rb_conv_kernels *kt = conv_tiles[cfg.isa];
  const int64_t size = dtype == RB_F32 ? 4 : 8;
  /* at most one vector of rows: the narrow panels (no +0 rows computed) */
  const int mr1 = dtype == RB_F32 ? kt->mr1_f32 : kt->mr1_f64;
  const int narrow = rows <= mr1 && mr1 < (dtype == RB_F32 ? kt->mr_f32 : kt->mr_f64);
  const int mr = narrow ? mr1 : dtype == RB_F32 ? kt->mr_f32 : kt->mr_f64;
  const rb_context cx = rb_context_fix(cfg);
  /* one panel of rows: no tile reuses B values across panels, and the
   * blocks would only add passes over the workspace; the whole term list
   * is one block (A streams from L2) */
  const int64_t kc = cx.conv_kc       ? cx.conv_kc
                     : rows <= mr && terms > SEQ_KC_BYTES / size ? terms
                                                                  : SEQ_KC_BYTES / size;
  const int64_t mc = cx.conv_mc ? cx.conv_mc : SEQ_MC;
  const int64_t chunk_cols = cx.conv_chunk ? cx.conv_chunk : SEQ_CHUNK_COLS;
  conv_seq s = {.dtype = dtype, .nr = kt->nr, .mr = mr,
                .tile = narrow ? (dtype == RB_F32 ? kt->tile1_f32 : kt->tile1_f64)
                               : (dtype == RB_F32 ? kt->tile_f32 : kt->tile_f64),
                .pack = narrow ? (dtype == RB_F32 ? kt->pack1_f32 : kt->pack1_f64)
                               : (dtype == RB_F32 ? kt->pack_f32 : kt->pack_f64),
                .store = dtype == RB_F32 ? kt->store_f32 : kt->store_f64,
                .rows = rows, .terms = terms, .panels = (rows + mr - 1) / mr,
                .nkb = terms ? (terms + kc - 1) / kc : 1, .kc = kc, .mcp = (mc + mr - 1) / mr,
                .chunk_tiles = (chunk_cols + kt->nr - 1) / kt->nr, .nclasses = nclasses,
                .a = a, .src = src, .bias = bias, .a_rs = a_rs, .tin = tin, .t_os = t_os,
                .dst = dst, .apack = NULL, .drow = drow, .cls = cls};
  int64_t all_cols = 0;
  int slots = 1;
  for (int64_t c = 0; c < nclasses; ++c) {
    const rb_conv_class *cl = &cls[c];
    slots &= cl->slot != NULL;
    if (cl->nterms < 0 || cl->ncols < 0) return -1;
    /* the terms ascend (every step - 1 >= 0: no top bit in their or; four
     * independent ors) and are in range */
    const uint64_t *term = (const uint64_t *)cl->term;
    uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    int64_t t = 1;
    for (; t + 4 <= cl->nterms; t += 4) {
      s0 |= term[t] - term[t - 1] - 1;
      s1 |= term[t + 1] - term[t] - 1;
      s2 |= term[t + 2] - term[t + 1] - 1;
      s3 |= term[t + 3] - term[t + 2] - 1;
    }
    for (; t < cl->nterms; ++t) s0 |= term[t] - term[t - 1] - 1;
    if ((s0 | s1 | s2 | s3) >> 63 ||
        (cl->nterms && (cl->term[0] < 0 || cl->term[cl->nterms - 1] >= terms)))
      return -1;
    s.ntiles += (cl->ncols + s.nr - 1) / s.nr;
    all_cols += cl->ncols;
  }
  if (rows == 0 || s.ntiles == 0) return 0;
  /* threads: tiles first; row panels too when the tiles are few */
  int64_t parts = rb_part_count(rows * (terms ? terms : 1) * all_cols, cx.conv_min_work,
                                cx.threads, INT64_MAX);
  s.row_parts = 1;
  if (s.ntiles < 8 * parts) s.row_parts = (int)(parts < s.panels ? parts : s.panels);
  s.col_parts = (int)(parts / s.row_parts);
  parts = (int64_t)s.row_parts * s.col_parts;
  /* the per-class tables and the tile list; packed A and the workspaces in
   * the calling thread's reused scratch (no page faults at every call) unless
   * they are huge */
  /* staged when the columns' slots are given and the results of all of them
   * (one panel) fit in the stage */
  s.all_cols = all_cols;
  const int staged = slots && s.panels == 1 && all_cols * s.mr * size <= SEQ_STAGE_MAX;
  const int64_t stage_bytes = staged ? (all_cols * s.mr * size + 63) / 64 * 64 : 0;
  const int64_t ints = 3 * s.ntiles + (staged ? all_cols : 0);
  const int64_t apack_bytes = (s.panels * terms * s.mr * size + 63) / 64 * 64;
  s.ws_cols = (s.chunk_tiles * ((s.panels + s.row_parts - 1) / s.row_parts) * s.mr * s.nr * size +
               63) / 64 * 64;
  s.ws_bytes = (s.ws_cols + 2 * s.chunk_tiles * (s.nr + 1) * (int64_t)sizeof(int64_t) + 63) / 64 * 64;
  const int64_t big_bytes = apack_bytes + parts * s.ws_bytes + stage_bytes;
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
  int64_t *tile_cls = mem, *tile_j0 = tile_cls + s.ntiles, *tile_nc = tile_j0 + s.ntiles;
  if (staged) {
    int64_t *sdoff = tile_nc + s.ntiles;
    int bad = 0;
    for (int64_t c = 0; c < nclasses; ++c)
      for (int64_t j = 0; j < cls[c].ncols; ++j) {
        const int64_t k = cls[c].slot[j];
        bad |= k < 0 || k >= all_cols;
        if (!bad) sdoff[k] = cls[c].doff[j];
      }
    if (bad) {
      free(mem);
      free(owned);
      return -1;
    }
    s.stage = s.ws + parts * s.ws_bytes;
    s.sdoff = sdoff;
  }
  int64_t tl = 0;
  for (int64_t c = 0; c < nclasses; ++c) {
    const rb_conv_class *cl = &cls[c];
    /* the fewest tiles, of balanced widths (a narrow tail tile would wait on
     * the fma latency) */
    const int64_t nt = (cl->ncols + s.nr - 1) / s.nr;
    for (int64_t i = 0; i < nt; ++i, ++tl) {
      tile_cls[tl] = c;
      tile_j0[tl] = cl->ncols * i / nt;
      tile_nc[tl] = cl->ncols * (i + 1) / nt - tile_j0[tl];
    }
  }
  s.tile_cls = tile_cls;
  s.tile_j0 = tile_j0;
  s.tile_nc = tile_nc;
  cr_fenv_t saved = cr_fenv_enter();
  const int64_t pack_units = s.panels * seq_pack_split(&s, parts);
  rb_parallel((int)(parts < pack_units ? parts : pack_units), seq_pack, &s);
  rb_parallel((int)parts, seq_part, &s);
  if (s.stage && !rb_stopped()) rb_parallel((int)parts, seq_store_staged, &s);
  cr_fenv_leave(saved);
  free(mem);
  free(owned);
  return rb_stopped() ? RB_STOPPED : 0;
}
