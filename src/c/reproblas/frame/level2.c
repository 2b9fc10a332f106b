/* Level-2 entry points beyond gemv/ger/trsv (level2.h): checks, the
 * floating-point environment, and the drivers of ../level2/mv.inc, which
 * pack row panels of the logical matrix and run the gemv kernels of the
 * call's path on them (docs/contract.md §3.6). */
#include "level2.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/fp_env.h"
#include "../../common/isa.h"
#include "gemm_kernels.h"
#include "kernels.h"
#include "level2_kernels.h"
#include "level2/terms.h"
#include "level3.h"
#include "order/order.h"
#include "partition.h"
#include "thread.h"

#define RB_CAT_(a, b) a##b
#define RB_CAT(a, b) RB_CAT_(a, b)

/* A panel's packed rows: about an L2 cache's share (the gemv kernel reads them
 * right after they are written). */
#define L2_PANEL_BYTES (256 * 1024)
/* tpsv unpacks A for trsv up to this size, else solves row by row. */
#define L2_UNPACK_BYTES (256.0 * 1024 * 1024)

#if defined(__x86_64__)
#define RB_L2_TABLES(sfx) {&rb_l2_##sfx##_scalar, &rb_l2_##sfx##_avx2, &rb_l2_##sfx##_avx512}
#else
#define RB_L2_TABLES(sfx) {&rb_l2_##sfx##_scalar, NULL, NULL}
#endif
#if defined(__x86_64__)
#define RB_L1_AVX(sfx, isa) &rb_l1_##sfx##_##isa
#else
#define RB_L1_AVX(sfx, isa) NULL
#endif
static const rb_l2_kernels_f32 *const l2_f32[CR_ISA_COUNT] = RB_L2_TABLES(f32);
static const rb_l2_kernels_f64 *const l2_f64[CR_ISA_COUNT] = RB_L2_TABLES(f64);
static const rb_l1_kernels_f32 *const l1_f32[CR_ISA_COUNT] = {
    &rb_l1_f32_scalar, RB_L1_AVX(f32, avx2), RB_L1_AVX(f32, avx512)};
static const rb_l1_kernels_f64 *const l1_f64[CR_ISA_COUNT] = {
    &rb_l1_f64_scalar, RB_L1_AVX(f64, avx2), RB_L1_AVX(f64, avx512)};
static const rb_l1_kernels_f32 *rb_l1_kernels_table_f32(int isa) { return l1_f32[isa]; }
static const rb_l1_kernels_f64 *rb_l1_kernels_table_f64(int isa) { return l1_f64[isa]; }
/* The call's path's table (its ISA was checked with rb_l3_table). */
static const rb_l2_kernels_f32 *rb_l2_kernels_table_f32(int isa) { return l2_f32[isa]; }
static const rb_l2_kernels_f64 *rb_l2_kernels_table_f64(int isa) { return l2_f64[isa]; }

/* The unpacked triangles' memory: one buffer kept between calls (up to
 * L2_CACHE_BYTES), so that a call does not fault in fresh pages each time;
 * a call that finds it in use, or needs more, allocates its own. */
#define L2_CACHE_BYTES ((size_t)64 << 20)
static pthread_mutex_t l2_cache_lock = PTHREAD_MUTEX_INITIALIZER;
static void *l2_cache;
static size_t l2_cache_size;

static void *l2_buffer(size_t bytes) {
  if (bytes <= L2_CACHE_BYTES && pthread_mutex_trylock(&l2_cache_lock) == 0) {
    if (l2_cache_size < bytes) {
      free(l2_cache);
      l2_cache = malloc(bytes);
      l2_cache_size = l2_cache ? bytes : 0;
    }
    if (l2_cache) return l2_cache;
    pthread_mutex_unlock(&l2_cache_lock);
    return NULL;
  }
  return malloc(bytes);
}

static void l2_buffer_free(void *p) {
  if (p && p == l2_cache)
    pthread_mutex_unlock(&l2_cache_lock);
  else
    free(p);
}

#define T float
#define SFX f32
#define FMA fmaf
#include "level2/mv.inc"
#undef T
#undef SFX
#undef FMA
#define T double
#define SFX f64
#define FMA fma
#include "level2/mv.inc"
#undef T
#undef SFX
#undef FMA

/* The descriptor's sizes and storage make sense (the Python layer and the C
 * ABI check the arrays' extents). */
static int l2_ok(int dtype, int order, const rb_context *cfg, const rb_l2_matrix *A) {
  if ((dtype != RB_F32 && dtype != RB_F64) || (order != RB_SEQUENTIAL && order != RB_PAIRWISE) ||
      !rb_l3_table(dtype, cfg->isa) || !A || A->m < 0 || A->n < 0 || A->kl < 0 || A->ku < 0 ||
      A->kind < RB_L2_GENERAL || A->kind > RB_L2_TRIANGULAR || A->storage < RB_L2_FULL ||
      A->storage > RB_L2_PACKED)
    return 0;
  if (A->kind != RB_L2_GENERAL && A->m != A->n) return 0;
  return A->kind == RB_L2_GENERAL ? A->storage != RB_L2_PACKED : 1;
}

int rb_l2_mv(int dtype, int order, const rb_context *cfg, const rb_l2_matrix *A,
             const void *alpha, const void *x, int64_t incx, const void *beta, void *y,
             int64_t incy) {
  if (!l2_ok(dtype, order, cfg, A)) return -1;
  rb_context tmp;
  const rb_context *cx = rb_context_use(cfg, &tmp);
  cr_fenv_t saved = cr_fenv_enter();
  const int rc = dtype == RB_F32
                     ? l2_mv_f32(order, cx, A, *(const float *)alpha, x, incx,
                                 *(const float *)beta, y, incy)
                     : l2_mv_f64(order, cx, A, *(const double *)alpha, x, incx,
                                 *(const double *)beta, y, incy);
  cr_fenv_leave(saved);
  return rc;
}

int rb_l2_sv(int dtype, int order, const rb_context *cfg, const rb_l2_matrix *A, void *b,
             int64_t incb) {
  if (!l2_ok(dtype, order, cfg, A) || A->kind != RB_L2_TRIANGULAR) return -1;
  if (A->storage == RB_L2_FULL)
    return rb_trsm(dtype, order, cfg, 0, A->lower, A->trans, A->unit, A->n, 1, NULL, A->a,
                   A->rs, A->cs, b, incb, 1);
  rb_context tmp;
  const rb_context *cx = rb_context_use(cfg, &tmp);
  cr_fenv_t saved = cr_fenv_enter();
  const int rc = dtype == RB_F32 ? l2_sv_f32(order, cx, A, b, incb) : l2_sv_f64(order, cx, A, b, incb);
  cr_fenv_leave(saved);
  return rc;
}

int rb_l2_rank(int dtype, const rb_context *cfg, const rb_l2_matrix *A, const void *alpha,
               const void *x, int64_t incx, const void *y, int64_t incy) {
  if (!l2_ok(dtype, RB_SEQUENTIAL, cfg, A) || A->kind != RB_L2_SYMMETRIC ||
      A->storage == RB_L2_BAND)
    return -1;
  rb_context tmp;
  const rb_context *cx = rb_context_use(cfg, &tmp);
  cr_fenv_t saved = cr_fenv_enter();
  const int rc = dtype == RB_F32
                     ? l2_rank_f32(cx, A, *(const float *)alpha, x, incx, y, incy)
                     : l2_rank_f64(cx, A, *(const double *)alpha, x, incx, y, incy);
  cr_fenv_leave(saved);
  return rc;
}
