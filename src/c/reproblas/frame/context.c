/* The defaults of rb_context (context.h), with the measurements behind them. */
#include "context.h"

#include "order/order.h"
#include "thread.h"

/* Level 1: pieces of 2^15 terms; a thread per 2^17 elements. */
#define RB_DEFAULT_PIECE ((int64_t)1 << 15)
#define RB_DEFAULT_MIN_PER_THREAD ((int64_t)1 << 17)

/* kc 0 = by dtype, 1 KiB of k: 256 float32 / 128 float64, so that the B
 * micro-panel (kc x nr) stays in L1. The A block (mc x kc, 256 KiB) takes
 * half of a 512 KiB L2: the micro-kernels sweep it once per B micro-panel,
 * and a block as large as L2 was evicted before its next sweep (measured on
 * AMD EPYC Zen 3, 1 thread: 256 rows up to 10% faster than 512). Pairwise
 * packs B again for every mc rows and keeps an mc x nc workspace of partial
 * sums per pending level (nc capped in gemm_engine.inc). */
#define RB_DEFAULT_MC 256
#define RB_DEFAULT_NC 2048
#define RB_DEFAULT_KC 0
#define RB_DEFAULT_MIN_WORK ((int64_t)1 << 20)
/* Sequential gemm: each thread keeps partial sums of up to WS elements (rows
 * x nc: 1024 x 2048 by default, 8 MiB float32 / 16 MiB float64), so that a
 * packed kc x nc block of op(B) serves that many rows, not mc (1 thread,
 * float32, n = 1024-2048: B packing went from 7-11% of the time to 1.5%). */
#define RB_DEFAULT_WS ((int64_t)1 << 21)

/* trsm: mb, rows of a diagonal block (its row kernel is slower than the gemm
 * update, so it is small against n; a power of two for the pairwise tree);
 * nb, right-hand sides per panel (each gemm update reuses its packed M block
 * over them). */
#define RB_TRSM_DEFAULT_MB 128
#define RB_TRSM_DEFAULT_NB 256

/* Convolution: one thread below 2^20 multiply-adds; the block sizes are
 * chosen by size (conv_seq.c, conv_pw.c) unless set. */
#define RB_CONV_DEFAULT_MIN_WORK ((int64_t)1 << 20)

rb_context rb_context_default(int isa, int threads) {
  rb_context c = {.isa = isa, .threads = threads};
  return rb_context_fix(c);
}

/* On an OpenMP team that another library keeps polling for work (thread.h,
 * rb_use_omp_runtime), a part starts without a wake-up, so calls split at a
 * quarter of the work they split at on the own pool. */
#define RB_OMP_WORK_SHIFT 2

rb_context rb_context_fix(rb_context c) {
  const int shift = rb_omp_runtime() ? RB_OMP_WORK_SHIFT : 0;
  if (c.threads < 1) c.threads = 1;
  if (c.piece < 1 || (c.piece & (c.piece - 1)) != 0) c.piece = RB_DEFAULT_PIECE;
  if (c.min_per_thread < 1) c.min_per_thread = RB_DEFAULT_MIN_PER_THREAD >> shift;
  if (c.mc < 1) c.mc = RB_DEFAULT_MC;
  if (c.nc < 1) c.nc = RB_DEFAULT_NC;
  if (c.kc < 1) c.kc = RB_DEFAULT_KC;
  if (c.min_work < 1) c.min_work = RB_DEFAULT_MIN_WORK >> shift;
  if (c.ws < 1) c.ws = RB_DEFAULT_WS;
  c.trsm_mb = c.trsm_mb < 1 ? RB_TRSM_DEFAULT_MB : rb_pow2_floor(c.trsm_mb);
  if (c.trsm_nb < 1) c.trsm_nb = RB_TRSM_DEFAULT_NB;
  if (c.conv_chunk < 1) c.conv_chunk = 0;
  if (c.conv_kc < 1) c.conv_kc = 0;
  if (c.conv_min_work < 1) c.conv_min_work = RB_CONV_DEFAULT_MIN_WORK >> shift;
  if (c.conv_mc < 1) c.conv_mc = 0;
  if (c.conv_batch < 1) c.conv_batch = 0;
  return c;
}

/* The values rb_context_fix keeps as they are (kept next to it). */
static int rb_context_is_fixed(const rb_context *c) {
  return c->threads >= 1 && c->piece >= 1 && (c->piece & (c->piece - 1)) == 0 &&
         c->min_per_thread >= 1 && c->mc >= 1 && c->nc >= 1 && (c->kc >= 1 || c->kc == RB_DEFAULT_KC) &&
         c->min_work >= 1 && c->ws >= 1 && c->trsm_mb >= 1 &&
         (c->trsm_mb & (c->trsm_mb - 1)) == 0 && c->trsm_nb >= 1 && c->conv_chunk >= 0 &&
         c->conv_kc >= 0 && c->conv_min_work >= 1 && c->conv_mc >= 0 && c->conv_batch >= 0;
}

const rb_context *rb_context_use(const rb_context *c, rb_context *tmp) {
  if (rb_context_is_fixed(c)) return c;
  *tmp = rb_context_fix(*c);
  return tmp;
}
