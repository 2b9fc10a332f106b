/* Scan and segmented-reduction entry points (docs/contract.md §5.2, §5.3):
 * checks, floating-point environment, dispatch to the per-type drivers
 * (scan_driver.inc) and kernels (../scan_kernels.inc). */
#include "../scan.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/fp_env.h"
#include "../../common/isa.h"
#include "../exact_cumprod.h"
#include "../exact_reduce.h"
#include "../kahan_kernels.h"
#include "../kernels.h"
#include "../level1.h"
#include "../seg_kernels.h"
#include "order/exact.h"
#include "order/kahan_scan.h"
#include "partition.h"
#include "thread.h"

#define RB_CAT_(a, b) a##b
#define RB_CAT(a, b) RB_CAT_(a, b)

#if defined(__x86_64__)
#define RB_TABLES(sfx) {&rb_l1_##sfx##_scalar, &rb_l1_##sfx##_avx2, &rb_l1_##sfx##_avx512}
#else
#define RB_TABLES(sfx) {&rb_l1_##sfx##_scalar, NULL, NULL}
#endif
static const rb_l1_kernels_f32 *const scan_tables_f32[CR_ISA_COUNT] = RB_TABLES(f32);
static const rb_l1_kernels_f64 *const scan_tables_f64[CR_ISA_COUNT] = RB_TABLES(f64);
#if defined(__x86_64__)
#define RB_SEG_TABLES(sfx) {&rb_seg_##sfx##_scalar, &rb_seg_##sfx##_avx2, &rb_seg_##sfx##_avx512}
#else
#define RB_SEG_TABLES(sfx) {&rb_seg_##sfx##_scalar, NULL, NULL}
#endif
static const rb_seg_kernels_f32 *const seg_tables_f32[CR_ISA_COUNT] = RB_SEG_TABLES(f32);
static const rb_seg_kernels_f64 *const seg_tables_f64[CR_ISA_COUNT] = RB_SEG_TABLES(f64);
#if defined(__x86_64__)
#define RB_KSCAN_TABLES(sfx) {&rb_kahan_##sfx##_scalar, &rb_kahan_##sfx##_avx2, &rb_kahan_##sfx##_avx512}
#else
#define RB_KSCAN_TABLES(sfx) {&rb_kahan_##sfx##_scalar, NULL, NULL}
#endif
/* the kahan chunks' kernels, for a long row's pieces on several threads */
static const rb_kahan_kernels_f32 *const kscan_tables_f32[CR_ISA_COUNT] = RB_KSCAN_TABLES(f32);
static const rb_kahan_kernels_f64 *const kscan_tables_f64[CR_ISA_COUNT] = RB_KSCAN_TABLES(f64);

#define T float
#define TABLE rb_l1_kernels_f32
#define SEG_TABLE rb_seg_kernels_f32
#define RB_DN(name) RB_CAT(name, _f32)
#define RB_DTYPE RB_F32
#define S_FMA fmaf
#define S_FABS fabsf
#define S_XKIND RB_XK_F32
#define S_XADD(a, v, mask) rb_xacc_add_f32(a, (a)->limb, rb_xbits32(v) & (uint32_t)(mask))
#define S_XPROD(a, u, v) rb_xacc_add_f32_prod(a, (a)->limb, u, v)
#define S_XROUND rb_xacc_round_f32
#define KSCAN_TABLE rb_kahan_kernels_f32
#define KSCAN_TABLES kscan_tables_f32
#include "../scan_kernels.inc"
#include "scan_driver.inc"
#undef T
#undef TABLE
#undef SEG_TABLE
#undef RB_DN
#undef RB_DTYPE
#undef S_FMA
#undef S_FABS
#undef S_XKIND
#undef S_XADD
#undef S_XPROD
#undef S_XROUND
#undef KSCAN_TABLE
#undef KSCAN_TABLES

#define T double
#define TABLE rb_l1_kernels_f64
#define SEG_TABLE rb_seg_kernels_f64
#define RB_DN(name) RB_CAT(name, _f64)
#define RB_DTYPE RB_F64
#define S_FMA fma
#define S_FABS fabs
#define S_XKIND RB_XK_F64
#define S_XADD(a, v, mask) rb_xacc_add_f64(a, (a)->limb, rb_xbits64(v) & (uint64_t)(mask))
#define S_XPROD(a, u, v) rb_xacc_add_f64_prod(a, (a)->limb, u, v)
#define S_XROUND rb_xacc_round_f64
#define KSCAN_TABLE rb_kahan_kernels_f64
#define KSCAN_TABLES kscan_tables_f64
#include "../scan_kernels.inc"
#include "scan_driver.inc"

static int scan_ok(int dtype, int order, int term, const rb_context *cfg) {
  return (dtype == RB_F32 || dtype == RB_F64) &&
         (order == RB_SEQUENTIAL || order == RB_PAIRWISE || order == RB_KAHAN ||
          order == RB_EXACT) &&
         (term == RB_TERM_X || term == RB_TERM_ABS || term == RB_TERM_XY) && cfg->isa >= 0 &&
         cfg->isa < CR_ISA_COUNT &&
         (dtype == RB_F32 ? scan_tables_f32[cfg->isa] != NULL : scan_tables_f64[cfg->isa] != NULL) &&
         cr_isa_supported(cfg->isa);
}

static int offsets_ok(const int64_t *off, int64_t nseg, int64_t n) {
  if (off == NULL || nseg < 0 || n < 0 || off[0] < 0 || off[nseg] > n) return 0;
  for (int64_t s = 0; s < nseg; ++s)
    if (off[s + 1] < off[s]) return 0;
  return 1;
}

/* Whether [a, a + na) and [b, b + nb) (bytes) overlap. */
static int overlaps(const void *a, size_t na, const void *b, size_t nb) {
  const char *pa = a, *pb = b;
  return a != NULL && b != NULL && na && nb && pa < pb + nb && pb < pa + na;
}

/* Runs a scan job; an exclusive scan that writes over its own input reads a
 * copy of it (the shifted prefixes would overwrite terms still to be read),
 * and so does the kahan order (its fallback may read the terms again). */
static int scan_any(int dtype, int op, int order, int term, int exclusive, const rb_context *cfg,
                    const void *x, const void *y, int64_t total, int64_t segs, int64_t n,
                    const int64_t *off, void *out) {
  rb_context tmp;
  const rb_context *cx = rb_context_use(cfg, &tmp);
  const size_t bytes = (size_t)total * (dtype == RB_F32 ? sizeof(float) : sizeof(double));
  void *cx_copy = NULL, *cy_copy = NULL;
  if ((exclusive || order == RB_KAHAN) &&
      (overlaps(x, bytes, out, bytes) || overlaps(y, bytes, out, bytes))) {
    cx_copy = malloc(bytes ? bytes : 1);
    cy_copy = y ? malloc(bytes ? bytes : 1) : NULL;
    if (cx_copy == NULL || (y && cy_copy == NULL)) {
      free(cx_copy);
      free(cy_copy);
      return -2;
    }
    memcpy(cx_copy, x, bytes);
    if (y) memcpy(cy_copy, y, bytes);
    x = cx_copy;
    if (y) y = cy_copy;
  }
  int rc;
  cr_fenv_t saved = cr_fenv_enter();
  if (dtype == RB_F32) {
    sc_job_f32 j = {scan_tables_f32[cfg->isa], seg_tables_f32[cfg->isa], cx, op, order, term, exclusive, x, y, out, segs, n, off, 0};
    rc = scan_run_f32(&j, total);
  } else {
    sc_job_f64 j = {scan_tables_f64[cfg->isa], seg_tables_f64[cfg->isa], cx, op, order, term, exclusive, x, y, out, segs, n, off, 0};
    rc = scan_run_f64(&j, total);
  }
  cr_fenv_leave(saved);
  free(cx_copy);
  free(cy_copy);
  return rc;
}

int rb_scan(int dtype, int op, int order, int term, int exclusive, const rb_context *cfg,
            const void *x, const void *y, int64_t rows, int64_t n, void *out) {
  /* kahan: cumsum only (docs/contract.md §5.5); exact: cumsum and cumprod (§5.4) */
  if (!scan_ok(dtype, order, term, cfg) || (op != RB_SCAN_SUM && op != RB_SCAN_PROD) ||
      (op == RB_SCAN_PROD && term != RB_TERM_X) || (term == RB_TERM_XY && y == NULL) ||
      (order == RB_KAHAN && op != RB_SCAN_SUM) || rows < 0 || n < 0 ||
      (n > 0 && rows > INT64_MAX / n))
    return -1;
  if (rows == 0 || n == 0) return 0;
  if (order == RB_EXACT && term == RB_TERM_X) {
    rb_context tmp;
    int rc = 0;
    if (op == RB_SCAN_PROD) /* frame/exact_cumprod.c */
      rc = rb_exact_cumprod(dtype, rb_context_use(cfg, &tmp), x, rows, n, exclusive != 0, out);
    else
      rb_exact_scan(dtype, rb_context_use(cfg, &tmp), x, rows, n, exclusive != 0, out);
    return rb_stopped() ? RB_STOPPED : rc;
  }
  return scan_any(dtype, op, order, term, exclusive != 0, cfg, x, y, rows * n, rows, n, NULL, out);
}



int rb_segment_scan(int dtype, int order, int term, int exclusive, const rb_context *cfg,
                    const void *x, const void *y, int64_t n, const int64_t *offsets,
                    int64_t nseg, void *out) {
  if (!scan_ok(dtype, order, term, cfg) || (term == RB_TERM_XY && y == NULL) ||
      !offsets_ok(offsets, nseg, n))
    return -1;
  if (nseg == 0 || n == 0) return 0;
  return scan_any(dtype, RB_SCAN_SUM, order, term, exclusive != 0, cfg, x, y, n, nseg, 0, offsets,
                  out);
}

int rb_segment_reduce(int dtype, int order, int term, const rb_context *cfg, const void *x,
                      const void *y, int64_t n, const int64_t *offsets, int64_t nseg, void *out) {
  if (!scan_ok(dtype, order, term, cfg) || (term == RB_TERM_XY && y == NULL) ||
      !offsets_ok(offsets, nseg, n))
    return -1;
  if (nseg == 0) return 0;
  rb_context tmp;
  const rb_context *cx = rb_context_use(cfg, &tmp);
  const int64_t total = offsets[nseg] - offsets[0];
  int rc;
  cr_fenv_t saved = cr_fenv_enter();
  if (dtype == RB_F32) {
    sc_job_f32 j = {scan_tables_f32[cfg->isa], seg_tables_f32[cfg->isa], cx, 0, order, term, 0, x, y, out, nseg, 0, offsets, 0};
    rc = reduce_run_f32(&j, total);
  } else {
    sc_job_f64 j = {scan_tables_f64[cfg->isa], seg_tables_f64[cfg->isa], cx, 0, order, term, 0, x, y, out, nseg, 0, offsets, 0};
    rc = reduce_run_f64(&j, total);
  }
  cr_fenv_leave(saved);
  return rc;
}
