/* order="exact" for sum, asum and dot (docs/contract.md §5.4). Each part of
 * the vector goes into its own exact accumulator (order/exact.h); the
 * accumulators are added limb by limb, which is exact, and the total is
 * rounded once. So the thread count, the parts' bounds and the code path
 * cannot change a bit: there is nothing to round before the end. */
#include "exact_reduce.h"

#include <stdlib.h>

#include "../../common/isa.h"
#include "exact_kernels.h"
#include "order/exact.h"
#include "partition.h"
#include "terms.h"
#include "thread.h"
#include "level1.h"

#if defined(__x86_64__)
static const rb_exact_kernels *const tables[CR_ISA_COUNT] = {
    &rb_exact_kernels_scalar, &rb_exact_kernels_avx2, &rb_exact_kernels_avx512};
#else
static const rb_exact_kernels *const tables[CR_ISA_COUNT] = {&rb_exact_kernels_scalar, NULL,
                                                             NULL};
#endif

typedef struct {
  const rb_exact_kernels *k;
  int dtype, term;
  const void *x, *y;
  int64_t n;
  rb_xacc *acc; /* one per part */
} xjob;

static void xpart(void *ctx, int part, int parts) {
  const xjob *j = ctx;
  const rb_share sh = rb_part_share(j->n, 1, part, parts);
  rb_xacc *a = &j->acc[part];
  rb_xacc_init(a);
  if (j->dtype == RB_F32)
    j->k->run_f32(a, j->term, (const float *)j->x + sh.lo,
                    j->y ? (const float *)j->y + sh.lo : NULL, sh.hi - sh.lo);
  else
    rb_xacc_run_f64(a, j->term, (const double *)j->x + sh.lo,
                    j->y ? (const double *)j->y + sh.lo : NULL, sh.hi - sh.lo);
}

void rb_exact_reduce(int dtype, const rb_context *cx, int term, const void *x, const void *y,
                     int64_t n, void *out) {
  const int kind = dtype == RB_F32 ? (term == RB_TERM_XY ? RB_XK_F32_PROD : RB_XK_F32)
                                   : (term == RB_TERM_XY ? RB_XK_F64_PROD : RB_XK_F64);
  int parts = rb_part_count(n, cx->min_per_thread, cx->threads, n);
  rb_xacc one;
  rb_xacc *acc = parts > 1 ? malloc(sizeof(rb_xacc) * (size_t)parts) : &one;
  if (acc == NULL) { /* no memory for the parts: one part gives the same bits */
    acc = &one;
    parts = 1;
  }
  xjob job = {tables[cx->isa], dtype, term, x, term == RB_TERM_XY ? y : NULL, n, acc};
  rb_parallel(parts, xpart, &job);
  const int nl = rb_xacc_limbs(kind);
  for (int p = 1; p < parts; ++p) rb_xacc_merge(&acc[0], &acc[p], nl); /* each normalized */
  if (dtype == RB_F32) *(float *)out = rb_xacc_round_f32(&acc[0], kind, n > 0);
  else *(double *)out = rb_xacc_round_f64(&acc[0], kind, n > 0);
  if (acc != &one) free(acc);
}
