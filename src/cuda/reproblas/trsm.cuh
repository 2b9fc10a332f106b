/* Triangular solve M X = alpha B, one right-hand side (a column of X) per
 * thread (docs/contract.md §3 trsv / trsm; the host maps every side / transpose onto a
 * lower or upper M, as src/c/reproblas/frame/trsm.c does).
 *
 * Row i (top-down for lower M, bottom-up for upper): S_i is the ordered sum
 * of M[i, j] * x_j over the solved j, ascending j, then
 * x_i = b_i - S_i when there is a term, divided by M[i, i] unless unit
 * (rb_accum; the CPU: trsm_engine.inc).
 * Every thread of a block walks the same rows and the same j, so the block
 * stages each stretch of row i of M in shared memory once for all its
 * right-hand sides; a thread past the last right-hand side only helps load.
 * x_j of a thread's column is written and read by that thread alone.
 * Element (i, j) of M is m[i*m_rs + j*m_cs]; x_i of column c is
 * x[i*x_rs + c*x_cs] (the host makes x_cs = 1: coalesced).
 *
 * A launch solves rows [r0, r1). Lower M is blocked as on the CPU
 * (trsm_engine.inc): the terms over j < r0 come from the gemm kernel for all
 * rows of the block and right-hand sides at once (carry: rows x nrhs, one
 * block, or, pairwise, carry_count blocks carry_stride apart, largest first),
 * and this kernel continues: sequential, the fma chain from the gemm's S;
 * pairwise, its tree over [r0, i) joined under r0's aligned blocks. Upper M
 * runs whole (r0 = 0, r1 = n, no carry): its solved terms come last. */
#ifndef RB_CUDA_TRSM_CUH
#define RB_CUDA_TRSM_CUH

#include "accum.cuh"

template <class T, int NT, bool PAIRWISE>
__device__ __forceinline__ void rb_trsm_body(long long n, long long nrhs, T alpha, int scale,
                                             int lower, int unit, const T *m, long long m_rs,
                                             long long m_cs, T *x, long long x_rs,
                                             long long x_cs, long long r0, long long r1,
                                             const T *carry, int carry_count,
                                             long long carry_stride) {
  __shared__ T mrow[NT];
  const long long col = (long long)blockIdx.x * NT + threadIdx.x;
  const bool active = col < nrhs;
  T *xc = x + (active ? col : 0) * x_cs;
  if (active && scale)
    for (long long i = 0; i < n; ++i) xc[i * x_rs] = alpha * xc[i * x_rs];
  for (long long s = 0; s < r1 - r0; ++s) {
    const long long i = lower ? r0 + s : r1 - 1 - s;
    const long long jlo = lower ? r0 : i + 1, jhi = lower ? i : n;
    const T *cy = carry + (i - r0) * nrhs + (active ? col : 0);
    rb_accum<T, PAIRWISE> acc;
    if (!PAIRWISE && carry_count && active) { /* the chain over j < r0 goes on */
      acc.chain = cy[0];
      acc.count = 1;
    }
    for (long long j0 = jlo; j0 < jhi; j0 += NT) {
      const int len = jhi - j0 < NT ? (int)(jhi - j0) : NT;
      __syncthreads(); /* the previous stretch is consumed */
      if ((int)threadIdx.x < len) mrow[threadIdx.x] = m[i * m_rs + (j0 + threadIdx.x) * m_cs];
      __syncthreads();
      if (!active) continue;
      /* The x_j are global loads, each chain step's only wait: they come in
       * batches of 16, the next batch's loads issued before this batch's steps. */
      constexpr int B = 16;
      const int full = len / B * B;
      T next[B];
      for (int u = 0; u < B && u < full; ++u) next[u] = xc[(j0 + u) * x_rs];
      for (int t = 0; t < full; t += B) {
        T cur[B];
        for (int u = 0; u < B; ++u) cur[u] = next[u];
        if (t + B < full)
          for (int u = 0; u < B; ++u) next[u] = xc[(j0 + t + B + u) * x_rs];
        for (int u = 0; u < B; ++u) acc.add(mrow[t + u], cur[u]);
      }
      for (int t = full; t < len; ++t) acc.add(mrow[t], xc[(j0 + t) * x_rs]);
    }
    if (!active) continue;
    bool have = acc.count > 0;
    T sum = acc.sum();
    /* pairwise: B1 + (B2 + (... + (Bk + P(r0..i-1)))), the blocks of r0 */
    RB_BLOCKS_RIGHT_TO_LEFT(b, PAIRWISE ? carry_count : 0) {
      sum = have ? cy[b * carry_stride] + sum : cy[b * carry_stride];
      have = true;
    }
    T r = xc[i * x_rs];
    if (have) r = r - sum;
    if (!unit) r = r / m[i * m_rs + i * m_cs];
    xc[i * x_rs] = r;
  }
}

#endif /* RB_CUDA_TRSM_CUH */
