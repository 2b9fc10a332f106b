/* order="exact" (docs/contract.md §5.4) on CUDA: every thread adds a grid
 * stride of the terms into its own exact accumulator (order/exact.h) and
 * writes its normalized limbs to a scratch row; one block then adds the rows
 * limb by limb (integer additions: exact, so neither the grid nor the order
 * of the rows matters) and rounds once. No atomics. Host side:
 * reproblas/_cuda.py (exact_sum). */
#ifndef RB_CUDA_EXACT_CUH
#define RB_CUDA_EXACT_CUH

#include "order/exact.h"
#include "reproblas/terms.h"

CR_FN int rb_exact_kind(int term, int f64) {
  return (f64 ? RB_XK_F64 : RB_XK_F32) + (term == RB_TERM_XY ? 1 : 0);
}

/* Row r = the global thread index: limbs[r * nl ...], flags[r * 4 ...]. */
template <class T>
__device__ __forceinline__ void rb_exact_part_body(int term, const T *x, const T *y,
                                                   long long n, long long *limbs, int *flags) {
  const int f64 = sizeof(T) == 8, kind = rb_exact_kind(term, f64), nl = rb_xacc_limbs(kind);
  const long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const long long stride = (long long)gridDim.x * blockDim.x;
  rb_xacc a;
  rb_xacc_init(&a);
  long long since = 0; /* terms since the last normalization */
  for (long long k = r; k < n; k += stride) {
    if (f64) {
      const double *xd = (const double *)x, *yd = (const double *)y;
      if (term == RB_TERM_XY) rb_xacc_add_f64_prod(&a, a.limb, xd[k], yd[k]);
      else rb_xacc_add_f64(&a, a.limb, rb_xbits64(xd[k]) &
                                           (term == RB_TERM_ABS ? 0x7FFFFFFFFFFFFFFFull : ~0ull));
    } else {
      const float *xf = (const float *)x, *yf = (const float *)y;
      if (term == RB_TERM_XY) rb_xacc_add_f32_prod(&a, a.limb, xf[k], yf[k]);
      else rb_xacc_add_f32(&a, a.limb, rb_xbits32(xf[k]) &
                                           (term == RB_TERM_ABS ? 0x7FFFFFFFu : 0xFFFFFFFFu));
    }
    if (++since == RB_XACC_BATCH) {
      rb_xacc_normalize(&a, nl);
      since = 0;
    }
  }
  rb_xacc_normalize(&a, nl);
  for (int i = 0; i < nl; ++i) limbs[r * nl + i] = (long long)a.limb[i];
  flags[r * 4 + 0] = a.nan, flags[r * 4 + 1] = a.pinf, flags[r * 4 + 2] = a.ninf;
  flags[r * 4 + 3] = a.nonneg0;
}

/* One block: the sum of the rows' limbs (a thread per limb), then thread 0 rounds. */
template <class T>
__device__ __forceinline__ void rb_exact_join_body(int term, long long rows,
                                                   const long long *limbs, const int *flags,
                                                   long long n, T *out) {
  __shared__ long long total[RB_XACC_LIMBS];
  const int f64 = sizeof(T) == 8, kind = rb_exact_kind(term, f64), nl = rb_xacc_limbs(kind);
  for (int i = threadIdx.x; i < nl; i += blockDim.x) {
    long long s = 0;
    for (long long r = 0; r < rows; ++r) s += limbs[r * nl + i];
    total[i] = s;
  }
  __syncthreads();
  if (threadIdx.x != 0) return;
  rb_xacc a;
  rb_xacc_init(&a);
  for (int i = 0; i < nl; ++i) a.limb[i] = total[i];
  for (long long r = 0; r < rows; ++r) {
    a.nan |= flags[r * 4 + 0], a.pinf |= flags[r * 4 + 1], a.ninf |= flags[r * 4 + 2];
    a.nonneg0 |= flags[r * 4 + 3];
  }
  if (f64) ((double *)out)[0] = rb_xacc_round_f64(&a, kind, n > 0);
  else ((float *)out)[0] = rb_xacc_round_f32(&a, kind, n > 0);
}

#endif /* RB_CUDA_EXACT_CUH */
