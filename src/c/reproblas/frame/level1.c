/* Level-1 entry points: checks, floating-point environment, dispatch to the
 * per-type drivers (level1_driver.inc) and per-path kernels (kernels.h). */
#include "level1.h"

#include <math.h>
#include <stddef.h>

#include "../../common/fp_env.h"
#include "../../common/isa.h"
#include "exact_reduce.h"
#include "kahan_kernels.h"
#include "kernels.h"
#include "partition.h"
#include "thread.h"

enum { RB_MAX_PIECES = 1024 };

#define RB_CAT_(a, b) a##b
#define RB_CAT(a, b) RB_CAT_(a, b)

#if defined(__x86_64__)
#define RB_TABLES(sfx) {&rb_l1_##sfx##_scalar, &rb_l1_##sfx##_avx2, &rb_l1_##sfx##_avx512}
#else
#define RB_TABLES(sfx) {&rb_l1_##sfx##_scalar, NULL, NULL}
#endif
static const rb_l1_kernels_f32 *const tables_f32[CR_ISA_COUNT] = RB_TABLES(f32);
static const rb_l1_kernels_f64 *const tables_f64[CR_ISA_COUNT] = RB_TABLES(f64);

#define T float
#define TABLE rb_l1_kernels_f32
#define RB_DN(name) RB_CAT(name, _f32)
#define S_SQRT sqrtf
#define S_FREXP frexpf
#define S_LDEXP ldexpf
#define E_MIN (-126)
#define E_MAX 127
#include "level1_driver.inc"
#undef T
#undef TABLE
#undef RB_DN
#undef S_SQRT
#undef S_FREXP
#undef S_LDEXP
#undef E_MIN
#undef E_MAX

#define T double
#define TABLE rb_l1_kernels_f64
#define RB_DN(name) RB_CAT(name, _f64)
#define S_SQRT sqrt
#define S_FREXP frexp
#define S_LDEXP ldexp
#define E_MIN (-1022)
#define E_MAX 1023
#include "level1_driver.inc"

static int rb_ok(int dtype, const rb_context *cfg) {
  return (dtype == RB_F32 || dtype == RB_F64) && cfg->isa >= 0 && cfg->isa < CR_ISA_COUNT &&
         (dtype == RB_F32 ? tables_f32[cfg->isa] != NULL : tables_f64[cfg->isa] != NULL) &&
         cr_isa_supported(cfg->isa);
}

static int rb_reduce_any(int dtype, int order, const rb_context *cfg, int term, const void *x,
                         const void *y, int64_t n, void *out) {
  const int exact = order == RB_EXACT && term != RB_TERM_ZZ;
  if (!rb_ok(dtype, cfg) ||
      (order != RB_SEQUENTIAL && order != RB_PAIRWISE && order != RB_KAHAN && !exact) || n < 0)
    return -1;
  rb_context tmp;
  const rb_context *cx = rb_context_use(cfg, &tmp);
  cr_fenv_t saved = cr_fenv_enter();
  if (exact) {
    rb_exact_reduce(dtype, cx, term, x, y, n, out);
    cr_fenv_leave(saved);
    return 0;
  }
  if (dtype == RB_F32)
    *(float *)out = term == RB_TERM_ZZ
                        ? nrm2_f32(tables_f32[cfg->isa], order, cx, x, n)
                        : reduce_f32(tables_f32[cfg->isa], order, cx, term, x, y, 1.0f, n);
  else
    *(double *)out = term == RB_TERM_ZZ
                         ? nrm2_f64(tables_f64[cfg->isa], order, cx, x, n)
                         : reduce_f64(tables_f64[cfg->isa], order, cx, term, x, y, 1.0, n);
  cr_fenv_leave(saved);
  return 0;
}

int rb_sum(int dtype, int order, const rb_context *cfg, const void *x, int64_t n, void *out) {
  return rb_reduce_any(dtype, order, cfg, RB_TERM_X, x, NULL, n, out);
}
int rb_asum(int dtype, int order, const rb_context *cfg, const void *x, int64_t n, void *out) {
  return rb_reduce_any(dtype, order, cfg, RB_TERM_ABS, x, NULL, n, out);
}
int rb_dot(int dtype, int order, const rb_context *cfg, const void *x, const void *y, int64_t n,
           void *out) {
  return rb_reduce_any(dtype, order, cfg, RB_TERM_XY, x, y, n, out);
}
int rb_nrm2(int dtype, int order, const rb_context *cfg, const void *x, int64_t n, void *out) {
  return rb_reduce_any(dtype, order, cfg, RB_TERM_ZZ, x, NULL, n, out);
}

int64_t rb_iamax(int dtype, const rb_context *cfg, const void *x, int64_t n) {
  if (!rb_ok(dtype, cfg) || n < 0) return -2;
  rb_context tmp;
  const rb_context *cx = rb_context_use(cfg, &tmp);
  cr_fenv_t saved = cr_fenv_enter();
  int64_t r = dtype == RB_F32 ? iamax_f32(tables_f32[cfg->isa], cx, x, n)
                              : iamax_f64(tables_f64[cfg->isa], cx, x, n);
  cr_fenv_leave(saved);
  return r;
}

static int rb_elementwise(int dtype, const rb_context *cfg, int is_axpy, const void *alpha,
                          const void *x, void *y, int64_t n) {
  if (!rb_ok(dtype, cfg) || n < 0) return -1;
  rb_context tmp;
  const rb_context *cx = rb_context_use(cfg, &tmp);
  int parts = rb_part_count(n, cx->min_per_thread, cx->threads, n);
  cr_fenv_t saved = cr_fenv_enter();
  if (dtype == RB_F32) {
    ew_job_f32 job = {tables_f32[cfg->isa], *(const float *)alpha, x, y, n};
    rb_parallel(parts, is_axpy ? axpy_part_f32 : scal_part_f32, &job);
  } else {
    ew_job_f64 job = {tables_f64[cfg->isa], *(const double *)alpha, x, y, n};
    rb_parallel(parts, is_axpy ? axpy_part_f64 : scal_part_f64, &job);
  }
  cr_fenv_leave(saved);
  return 0;
}

int rb_axpy(int dtype, const rb_context *cfg, const void *alpha, const void *x, void *y, int64_t n) {
  return rb_elementwise(dtype, cfg, 1, alpha, x, y, n);
}
int rb_scal(int dtype, const rb_context *cfg, const void *alpha, void *x, int64_t n) {
  return rb_elementwise(dtype, cfg, 0, alpha, NULL, x, n);
}
