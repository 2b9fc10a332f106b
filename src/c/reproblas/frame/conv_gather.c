/* The gather gemm of conv.h: columns are cut into chunks; for each chunk the
 * B operand (terms x chunk) is gathered from src into a per-thread buffer and
 * one rectangle of the product is computed by the gemm frame's block walk
 * (packing, cache blocking, the sequential / pairwise micro-kernels), into a
 * rows x chunk tile that is then scattered to dst (with the bias added). */
#include "conv.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/fp_env.h"
#include "../../common/isa.h"
#include "conv_scatter.h"
#include "conv_scratch.h"
#include "gemm_kernels.h"
#include "partition.h"
#include "thread.h"

/* conv_scratch.h: one set of slots per thread through a pthread key, so that
 * the buffers of threads that end are freed. Buffers above CONV_KEEP_BYTES
 * are freed after each use. */
#define CONV_KEEP_BYTES ((size_t)64 << 20)
typedef struct {
  void *buf[RB_CONV_SCRATCH_SLOTS];
  size_t size[RB_CONV_SCRATCH_SLOTS];
} conv_scratch;
static pthread_key_t scratch_key;
static pthread_once_t scratch_once = PTHREAD_ONCE_INIT;

static void scratch_free(void *p) {
  conv_scratch *s = p;
  for (int i = 0; i < RB_CONV_SCRATCH_SLOTS; ++i) free(s->buf[i]);
  free(s);
}
static void scratch_init(void) { pthread_key_create(&scratch_key, scratch_free); }

static conv_scratch *scratch_get(void) {
  pthread_once(&scratch_once, scratch_init);
  conv_scratch *s = pthread_getspecific(scratch_key);
  if (!s) {
    s = calloc(1, sizeof *s);
    if (!s || pthread_setspecific(scratch_key, s) != 0) {
      free(s);
      return NULL;
    }
  }
  return s;
}

void *rb_conv_scratch(int slot, size_t bytes) {
  conv_scratch *s = scratch_get();
  if (!s) return NULL;
  if (bytes > s->size[slot] || !s->buf[slot]) {
    free(s->buf[slot]);
    s->size[slot] = (bytes + 4095) / 4096 * 4096;
    s->buf[slot] = aligned_alloc(64, s->size[slot] ? s->size[slot] : 4096);
    if (!s->buf[slot]) s->size[slot] = 0;
  }
  return s->buf[slot];
}

void rb_conv_scratch_done(int slot) {
  pthread_once(&scratch_once, scratch_init);
  conv_scratch *s = pthread_getspecific(scratch_key);
  if (s && s->size[slot] > CONV_KEEP_BYTES) {
    free(s->buf[slot]);
    s->buf[slot] = NULL;
    s->size[slot] = 0;
  }
}

/* Columns per chunk: A (rows x terms) is packed again for every chunk and
 * B (terms x chunk) is gathered, so a chunk has about CONV_CHUNK_PER_ROW
 * columns per row of A (measured: 64..256 rows), at least CONV_MIN_CHUNK,
 * and its B at most CONV_CHUNK_BYTES (unless the context sets the chunk). */
enum { CONV_CHUNK_PER_ROW = 8, CONV_MIN_CHUNK = 192, CONV_CHUNK_ALIGN = 48 };
#define CONV_CHUNK_BYTES ((int64_t)8 << 20)

#if defined(__x86_64__)
#define CONV_TABLES(sfx) {&rb_l3_##sfx##_scalar, &rb_l3_##sfx##_avx2, &rb_l3_##sfx##_avx512}
#else
#define CONV_TABLES(sfx) {&rb_l3_##sfx##_scalar, NULL, NULL}
#endif
static const rb_l3_kernels_f32 *const conv_f32[CR_ISA_COUNT] = CONV_TABLES(f32);
static const rb_l3_kernels_f64 *const conv_f64[CR_ISA_COUNT] = CONV_TABLES(f64);

typedef struct {
  int dtype, order;
  const void *kt; /* the path's rb_l3_kernels_<dtype> */
  int64_t rows, terms, cols;
  const void *at, *src, *bias;
  const int64_t *aoff, *toff, *coff, *doff;
  void *dst;
  int64_t drow, chunk, nchunks, row_parts, row_unit, kc;
  int status[RB_MAX_PARTS];
} conv_split;

/* Maximal runs of columns whose sources are consecutive (coff[j+1] = coff[j]+1):
 * run r covers [start[r], start[r+1]). Returns the number of runs. */
static int64_t column_runs(const int64_t *coff, int64_t n, int64_t *start) {
  int64_t runs = 0;
  for (int64_t j = 0; j < n; ++j)
    if (j == 0 || coff[j] != coff[j - 1] + 1) start[runs++] = j;
  start[runs] = n;
  return runs;
}

/* Data movement and the bias add for one element type. */
#define CONV_TYPED(T, SFX)                                                                   \
  static void gather_##SFX(const conv_split *s, int64_t j0, int64_t n, const int64_t *start, \
                           int64_t runs, T *b) {                                             \
    const T *src = s->src;                                                                   \
    const int64_t *coff = s->coff + j0;                                                      \
    for (int64_t t = 0; t < s->terms; ++t) {                                                 \
      const T *st = src + s->toff[t];                                                        \
      T *d = b + t * n;                                                                      \
      for (int64_t r = 0; r < runs; ++r) {                                                   \
        const int64_t j = start[r], len = start[r + 1] - j;                                  \
        if (len == 1)                                                                        \
          d[j] = st[coff[j]];                                                                \
        else                                                                                 \
          memcpy(d + j, st + coff[j], sizeof(T) * len);                                      \
      }                                                                                      \
    }                                                                                        \
  }                                                                                          \
  static void scatter_##SFX(const conv_split *s, int64_t j0, int64_t n, int64_t i0,          \
                            int64_t i1, const T *c, int64_t c_rs, int64_t c_cs) {            \
    scatter_rows_##SFX(s->dst, s->drow, s->bias, s->doff + j0, n, i0, i1, c + i0 * c_rs,     \
                       c_rs, c_cs);                                                          \
  }                                                                                          \
  static int chunk_##SFX(const conv_split *s, int64_t j0, int64_t n, int64_t i0, int64_t i1,  \
                         int64_t *start, T *b, T *c) {                                       \
    gather_##SFX(s, j0, n, start, column_runs(s->coff + j0, n, start), b);                   \
    rb_gemm_job_##SFX job = {.m = s->rows, .n = n, .k = s->terms, .a = s->at, .a_rs = 1,      \
                             .a_cs = s->rows, .b = b, .b_rs = n, .b_cs = 1, .c = c, .c_rs = n,  \
                             .c_cs = 1, .alpha = 1, .beta = 0, .beta_zero = 1,                \
                             .order = s->order, .uplo = RB_FULL, .mc = 512, .nc = 2048,       \
                             .kc = s->kc, .kt = s->kt};                                       \
    if (rb_gemm_block_##SFX(&job, i0, i1, 0, n) != 0) return -1;                             \
    scatter_##SFX(s, j0, n, i0, i1, c, n, 1);                                                \
    return 0;                                                                                \
  }
CONV_TYPED(float, f32)
CONV_TYPED(double, f64)

/* Part `part` of `parts`: the units (chunk, row slice) in its share. */
static void conv_part(void *ctx, int part, int parts) {
  conv_split *s = ctx;
  const rb_share sh = rb_part_share(s->nchunks * s->row_parts, 1, part, parts);
  const int64_t u0 = sh.lo, u1 = sh.hi;
  const size_t size = s->dtype == RB_F32 ? sizeof(float) : sizeof(double);
  s->status[part] = 0;
  if (u0 >= u1) return;
  const int64_t chunk = s->chunk;
  char *buf = rb_conv_scratch(RB_CONV_SCRATCH_PART, (size_t)(s->terms + s->rows) * chunk * size +
                                                       (size_t)(chunk + 1) * sizeof(int64_t) + 64);
  if (!buf) {
    s->status[part] = -1;
    return;
  }
  int64_t *start = (int64_t *)buf;
  char *b = (char *)(((uintptr_t)(start + chunk + 1) + 63) & ~(uintptr_t)63);
  char *c = b + (size_t)s->terms * chunk * size;
  for (int64_t u = u0; u < u1 && s->status[part] == 0 && !rb_stop_poll(); ++u) {
    const int64_t ch = u / s->row_parts, rp = u % s->row_parts;
    const int64_t j0 = ch * chunk, n = s->cols - j0 < chunk ? s->cols - j0 : chunk;
    const rb_share rows = rb_part_share(s->rows, s->row_unit, (int)rp, (int)s->row_parts);
    const int64_t i0 = rows.lo, i1 = rows.hi;
    if (i0 >= i1) continue;
    s->status[part] = s->dtype == RB_F32
                          ? chunk_f32(s, j0, n, i0, i1, start, (float *)b, (float *)c)
                          : chunk_f64(s, j0, n, i0, i1, start, (double *)b, (double *)c);
  }
  rb_conv_scratch_done(RB_CONV_SCRATCH_PART);
}

int rb_gather_gemm(int dtype, int order, rb_context cfg, int64_t rows, int64_t terms,
                   int64_t cols, const void *at, const int64_t *aoff, const void *src,
                   const int64_t *toff, const int64_t *coff, void *dst, const int64_t *doff,
                   int64_t drow, const void *bias) {
  if ((dtype != RB_F32 && dtype != RB_F64) || (order != RB_SEQUENTIAL && order != RB_PAIRWISE) ||
      cfg.isa < 0 || cfg.isa >= CR_ISA_COUNT || !cr_isa_supported(cfg.isa) ||
      (dtype == RB_F32 ? !conv_f32[cfg.isa] : !conv_f64[cfg.isa]) || rows < 0 || terms < 0 ||
      cols < 0)
    return -1;
  if (rows == 0 || cols == 0) return 0;
  const int64_t size = dtype == RB_F32 ? 4 : 8;
  const rb_context cx = rb_context_fix(cfg);
  conv_split s = {dtype, order, NULL, rows, terms, cols, at, src, bias, aoff, toff, coff,
                  doff, dst, drow, 0, 0, 1, 1, cx.conv_kc ? cx.conv_kc : 1024 / size, {0}};
  const int o = order == RB_PAIRWISE;
  s.kt = dtype == RB_F32 ? (const void *)conv_f32[cfg.isa] : (const void *)conv_f64[cfg.isa];
  s.row_unit = dtype == RB_F32 ? conv_f32[cfg.isa]->mr[o] : conv_f64[cfg.isa]->mr[o];
  int64_t chunk = rows * CONV_CHUNK_PER_ROW, cap = CONV_CHUNK_BYTES / (size * (terms ? terms : 1));
  if (chunk < CONV_MIN_CHUNK) chunk = CONV_MIN_CHUNK;
  if (chunk > cap) chunk = cap;
  chunk = chunk < CONV_CHUNK_ALIGN ? CONV_CHUNK_ALIGN : chunk / CONV_CHUNK_ALIGN * CONV_CHUNK_ALIGN;
  /* block reads A as a (terms x rows) matrix: compact the class's rows of A
   * unless they already are one */
  void *packed = NULL;
  int64_t t = 0;
  while (t < terms && aoff[t] == t * rows) ++t;
  if (t < terms) {
    packed = rb_conv_scratch(RB_CONV_SCRATCH_CLASS, (size_t)(terms * rows * size));
    if (!packed) return -2;
    for (t = 0; t < terms; ++t)
      memcpy((char *)packed + t * rows * size, (const char *)at + aoff[t] * size,
             (size_t)(rows * size));
    s.at = packed;
  }
  if (cx.conv_chunk) chunk = cx.conv_chunk;
  s.chunk = chunk < cols ? chunk : cols;
  s.nchunks = (cols + s.chunk - 1) / s.chunk;
  const int threads = cx.threads;
  const int64_t row_units = (rows + s.row_unit - 1) / s.row_unit;
  if (s.nchunks < threads) {
    s.row_parts = (threads + s.nchunks - 1) / s.nchunks;
    if (s.row_parts > row_units) s.row_parts = row_units;
  }
  const int parts = rb_part_count(rows * (terms > 0 ? terms : 1) * cols, cx.conv_min_work,
                                  threads, s.nchunks * s.row_parts);
  cr_fenv_t saved = cr_fenv_enter();
  rb_parallel(parts, conv_part, &s);
  cr_fenv_leave(saved);
  if (packed) rb_conv_scratch_done(RB_CONV_SCRATCH_CLASS);
  if (rb_stopped()) return RB_STOPPED; /* skipped parts set no status */
  for (int p = 0; p < parts; ++p)
    if (s.status[p] != 0) return -2;
  return 0;
}

/* Blocked so that both the rows read and the rows written stay in cache. */
#define CONV_TRANSPOSE(T)                                                                   \
  do {                                                                                      \
    const T *sb = src;                                                                      \
    T *db = dst;                                                                            \
    for (int64_t b = 0; b < batch; ++b, sb += rows * cols, db += rows * cols)               \
      for (int64_t i0 = 0; i0 < rows; i0 += 16)                                             \
        for (int64_t j0 = 0; j0 < cols; j0 += 16) {                                         \
          const int64_t i1 = rows - i0 < 16 ? rows : i0 + 16;                               \
          const int64_t j1 = cols - j0 < 16 ? cols : j0 + 16;                               \
          for (int64_t i = i0; i < i1; ++i)                                                 \
            for (int64_t j = j0; j < j1; ++j) db[j * rows + i] = sb[i * cols + j];          \
        }                                                                                   \
  } while (0)

void rb_conv_transpose(int dtype, int64_t batch, int64_t rows, int64_t cols, const void *src,
                       void *dst) {
  if (dtype == RB_F32)
    CONV_TRANSPOSE(float);
  else
    CONV_TRANSPOSE(double);
}
