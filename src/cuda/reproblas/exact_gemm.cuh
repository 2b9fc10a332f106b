/* gemv / gemm in order="exact" (docs/contract.md §5.4) on CUDA: each element
 * S_ij = RN of the exact sum of op(A)[i, l] * op(B)[l, j] over l, then scaled
 * as §2.4 (alpha * S, or fma(beta, C_old, alpha * S); beta zero by its bits),
 * as frame/exact.c's rb_exact_gemm.
 *
 * A group of `group` consecutive threads (a power of two dividing the block)
 * takes one element: lane g adds the terms l = g, g + group, ... into its own
 * exact accumulator (order/exact.h). The group's normalized limbs then meet
 * in shared memory RB_XG_LCH limbs at a time and are added limb by limb
 * (integer additions: exact, so the group size never changes the sum), and
 * the group's first thread rounds once. group 1: no join. The elements are a
 * grid stride of the blocks' groups; every thread of a block runs the same
 * rounds (the __syncthreads). Host side: reproblas/_cuda.py (extra_gemm). */
#ifndef RB_CUDA_EXACT_GEMM_CUH
#define RB_CUDA_EXACT_GEMM_CUH

#include "order/exact.h"
#include "ops.cuh"

#define RB_XG_THREADS 256 /* the block size at most */
#define RB_XG_LCH 8       /* limbs per round of the join */

/* beta counts as zero when its bits are +0 or -0 (docs/contract.md §2.4). */
CR_FN int rb_beta_is_zero(float beta) { return (rb_xbits32(beta) << 1) == 0; }
CR_FN int rb_beta_is_zero(double beta) { return (rb_xbits64(beta) << 1) == 0; }

CR_FN void rb_xacc_add_prod(rb_xacc *acc, float x, float y) {
  rb_xacc_add_f32_prod(acc, acc->limb, x, y);
}
CR_FN void rb_xacc_add_prod(rb_xacc *acc, double x, double y) {
  rb_xacc_add_f64_prod(acc, acc->limb, x, y);
}
CR_FN float rb_xacc_round_prod(rb_xacc *acc, int nterms, float) {
  return rb_xacc_round_f32(acc, RB_XK_F32_PROD, nterms);
}
CR_FN double rb_xacc_round_prod(rb_xacc *acc, int nterms, double) {
  return rb_xacc_round_f64(acc, RB_XK_F64_PROD, nterms);
}

template <class T>
__device__ void rb_exact_gemm_body(long long m, long long n, long long k, T alpha, const T *a,
                                   long long a_rs, long long a_cs, const T *b, long long b_rs,
                                   long long b_cs, T beta, T *c, long long c_rs, long long c_cs,
                                   int group) {
  __shared__ long long stage[RB_XG_THREADS * RB_XG_LCH]; /* each thread's limbs of a round */
  __shared__ long long tot[RB_XG_THREADS / 2 * RB_XG_LCH]; /* each group's sums */
  __shared__ int flag[RB_XG_THREADS * 4];
  const int nl = rb_xacc_limbs(sizeof(T) == 8 ? RB_XK_F64_PROD : RB_XK_F32_PROD);
  const int t = threadIdx.x, lane = t % group, slot = t / group, first = t - lane;
  const int slots = blockDim.x / group;
  const int bz = rb_beta_is_zero(beta);
  const long long total = m * n;
  for (long long e0 = (long long)blockIdx.x * slots; e0 < total;
       e0 += (long long)gridDim.x * slots) {
    const long long e = e0 + slot;
    const bool live = e < total;
    const long long i = live ? e / n : 0, j = live ? e % n : 0;
    rb_xacc acc;
    rb_xacc_init(&acc);
    if (live) {
      const T *ai = a + i * a_rs, *bj = b + j * b_cs;
      long long since = 0; /* terms since the last normalization */
      for (long long l = lane; l < k; l += group) {
        rb_xacc_add_prod(&acc, ai[l * a_cs], bj[l * b_rs]);
        if (++since == RB_XACC_BATCH) {
          rb_xacc_normalize(&acc, nl);
          since = 0;
        }
      }
      rb_xacc_normalize(&acc, nl);
    }
    if (group > 1) { /* the same for the whole block */
      flag[t * 4 + 0] = acc.nan, flag[t * 4 + 1] = acc.pinf, flag[t * 4 + 2] = acc.ninf;
      flag[t * 4 + 3] = acc.nonneg0;
      for (int c0 = 0; c0 < nl; c0 += RB_XG_LCH) {
        for (int q = 0; q < RB_XG_LCH; ++q)
          stage[t * RB_XG_LCH + q] = c0 + q < nl ? (long long)acc.limb[c0 + q] : 0;
        __syncthreads();
        for (int q = lane; q < RB_XG_LCH; q += group) {
          long long s = 0;
          for (int g = 0; g < group; ++g) s += stage[(first + g) * RB_XG_LCH + q];
          tot[slot * RB_XG_LCH + q] = s;
        }
        __syncthreads();
        if (lane == 0) {
          for (int q = 0; q < RB_XG_LCH && c0 + q < nl; ++q)
            acc.limb[c0 + q] = tot[slot * RB_XG_LCH + q];
          if (c0 == 0)
            for (int g = 1; g < group; ++g) {
              acc.nan |= flag[(first + g) * 4 + 0], acc.pinf |= flag[(first + g) * 4 + 1];
              acc.ninf |= flag[(first + g) * 4 + 2], acc.nonneg0 |= flag[(first + g) * 4 + 3];
            }
        }
      }
    }
    if (live && lane == 0) {
      const T s = rb_xacc_round_prod(&acc, k > 0, T(0)); /* no term: +0 (§5.4) */
      T *out = c + i * c_rs + j * c_cs;
      *out = bz ? alpha * s : rb_fma(beta, *out, alpha * s);
    }
  }
}

#endif /* RB_CUDA_EXACT_GEMM_CUH */
