/* gemm / gemv body: C <- alpha * op(A) op(B) [+ beta * C] (docs/contract.md §2-§3).
 *
 * Classic tiled GEMM: a block computes a BM x BN tile of C, staging BK-deep
 * slices of op(A) and op(B) in shared memory; each thread owns TM x TN
 * adjacent outputs (register blocking; its fragments of a slice are read with
 * vector loads from shared memory) and
 * carries each one's whole k loop itself, in ascending k (no split-K): the
 * sequential order is one fma chain per output, the pairwise order a binary
 * counter per output (rb_push), both exactly the CPU's terms and order.
 * Tiles past the edges load zeros, which only feed outputs that are not
 * stored: the k loop of the last slice stops at k itself.
 * Element (i, k) of op(A) is a[i*a_rs + k*a_cs] (any strides, transposes
 * included); likewise op(B) and C. Grid: (ceil(m/BM), ceil(n/BN)): rows on x,
 * whose limit is 2^31 - 1 (gemv has millions of rows), columns on y (65535).
 * uplo (terms.h): only that triangle of C is written; blocks without any of
 * it return at once. */
#ifndef RB_CUDA_GEMM_CUH
#define RB_CUDA_GEMM_CUH

#include "ops.cuh"

template <class T, int BM, int BN, int BK, int TM, int TN, bool PAIRWISE>
__device__ __forceinline__ void rb_gemm_body(long long m, long long n, long long k, T alpha,
                                             const T *a, long long a_rs, long long a_cs,
                                             const T *b, long long b_rs, long long b_cs,
                                             T beta, T *c, long long c_rs, long long c_cs,
                                             int uplo) {
  constexpr int RT = BM / TM, CT = BN / TN, NT = RT * CT; /* threads per row/col, total */
  __shared__ __align__(16) T as[BK][BM];
  __shared__ __align__(16) T bs[BK][BN];
  const int t = threadIdx.x, tr = t / CT, tc = t % CT;
  const long long i0 = (long long)blockIdx.x * BM, j0 = (long long)blockIdx.y * BN;
  if (!rb_tri_meets(uplo, i0, i0 + BM, j0, j0 + BN)) return; /* the whole block */
  T acc[TM][TN];
  T stack[PAIRWISE ? TM : 1][PAIRWISE ? TN : 1][PAIRWISE ? RB_LEVELS : 1];
  for (int i = 0; i < TM; ++i)
    for (int j = 0; j < TN; ++j) acc[i][j] = RB_CHAIN_START(T);

  for (long long k0 = 0; k0 < k; k0 += BK) {
    /* Consecutive threads load along the unit-stride dimension (coalesced);
     * who loads what never changes a value. */
    for (int e = t; e < BM * BK; e += NT) {
      const bool kfast = a_cs == 1;
      const int r = kfast ? e / BK : e % BM, q = kfast ? e % BK : e / BM;
      const long long gi = i0 + r, gk = k0 + q;
      as[q][r] = gi < m && gk < k ? a[gi * a_rs + gk * a_cs] : T(0);
    }
    for (int e = t; e < BN * BK; e += NT) {
      const bool jfast = b_cs == 1;
      const int col = jfast ? e % BN : e / BK, q = jfast ? e / BN : e % BK;
      const long long gj = j0 + col, gk = k0 + q;
      bs[q][col] = gj < n && gk < k ? b[gk * b_rs + gj * b_cs] : T(0);
    }
    __syncthreads();
    const int kb = k - k0 < BK ? (int)(k - k0) : BK;
    for (int kk = 0; kk < kb; ++kk) {
      T av[TM], bv[TN];
      for (int i = 0; i < TM; ++i) av[i] = as[kk][tr * TM + i]; /* vector loads */
      for (int j = 0; j < TN; ++j) bv[j] = bs[kk][tc * TN + j];
      for (int i = 0; i < TM; ++i)
        for (int j = 0; j < TN; ++j) {
          if (PAIRWISE)
            rb_push(stack[PAIRWISE ? i : 0][PAIRWISE ? j : 0], k0 + kk, av[i] * bv[j]);
          else
            acc[i][j] = rb_fma(av[i], bv[j], acc[i][j]);
        }
    }
    __syncthreads();
  }

  for (int i = 0; i < TM; ++i)
    for (int j = 0; j < TN; ++j) {
      const long long gi = i0 + tr * TM + i, gj = j0 + tc * TN + j;
      if (gi >= m || gj >= n || !rb_tri_keeps(uplo, gi, gj)) continue;
      T s = k == 0 ? T(0) : PAIRWISE ? rb_pop_all(stack[PAIRWISE ? i : 0][PAIRWISE ? j : 0], k)
                                     : acc[i][j];
      T r = alpha * s;
      if (beta != T(0)) r = rb_fma(beta, c[gi * c_rs + gj * c_cs], r);
      c[gi * c_rs + gj * c_cs] = r;
    }
}

#endif /* RB_CUDA_GEMM_CUH */
