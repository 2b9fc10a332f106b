/* Sequential gemm: C <- alpha * op(A) op(B) [+ beta * C] (docs/contract.md
 * §2-§3), each output's k terms one fma chain from RB_CHAIN_START in ascending k: the order of
 * rb_gemm_body's sequential case, term for term, on a faster schedule.
 *
 * - A block computes a BM x BN tile of C from BK-deep slices of op(A) and op(B)
 *   held twice in shared memory: the next slice's global loads are issued
 *   before the current slice's arithmetic and stored after it, one
 *   __syncthreads per slice.
 * - Global loads move 16 bytes along whichever dimension of A (B) has unit
 *   stride when its rows (columns) are 16-byte aligned; other layouts, and
 *   chunks that cross an edge, load element by element (zeros past an edge
 *   feed only outputs that are not stored; the last slice's k loop stops at k).
 * - A thread owns TM x TN outputs as 2 x 2 sub-blocks (TM/2 x TN/2) half a tile
 *   apart, and a warp's threads form a 4 x 8 grid: each shared-memory read of
 *   a sub-block row is one 16-byte load per thread and one conflict-free
 *   wavefront per warp.
 * Element (i, k) of op(A) is a[i*a_rs + k*a_cs], (k, j) of op(B) b[k*b_rs +
 * j*b_cs], (i, j) of C c[i*c_rs + j*c_cs]. Grid: (ceil(m/BM), ceil(n/BN)). */
#ifndef RB_CUDA_GEMM_SEQ_CUH
#define RB_CUDA_GEMM_SEQ_CUH

#include "ops.cuh"

/* One operand's BK-deep slices, R x BK elements (r, q) at p[r*rs + q*cs] (the
 * tile's rows of op(A), or its columns of op(B)), stored as s[q][r]. Each
 * thread moves L chunks of V elements along the operand's unit-stride
 * dimension: r-runs when rs == 1 and cs != 1, else q-runs. The state is kept
 * small (the accumulators need the registers): p points at the tile's first
 * row, `rows` counts the rows left from there (at most R). */
template <class T, int R, int BK, int NT>
struct rb_slice_loader {
  static constexpr int V = 16 / sizeof(T), L = R * BK / V / NT;
  static constexpr bool MASKED = false; /* every term exists */
  static_assert(R * BK % (V * NT) == 0 && BK % V == 0 && R % V == 0, "slice shape");
  const T *p;
  long long rs, cs;
  int rows;
  bool along_r, vec;
  T v[L][V];

  __device__ __forceinline__ rb_slice_loader(const T *p0, long long rs_, long long cs_,
                                             long long all_rows, long long r0)
      : p(p0 + r0 * rs_), rs(rs_), cs(cs_) {
    rows = all_rows - r0 < R ? (int)(all_rows - r0) : R;
    along_r = rs == 1 && cs != 1;
    const long long other = along_r ? cs : rs;
    vec = (along_r || cs == 1) && other % V == 0 && (uintptr_t)p0 % 16 == 0;
  }
  /* Chunk c of this thread: its first element (r, q). */
  __device__ __forceinline__ void chunk(int c, int &r, int &q) const {
    const int e = threadIdx.x + c * NT;
    if (along_r)
      q = e / (R / V), r = e % (R / V) * V;
    else
      r = e / (BK / V), q = e % (BK / V) * V;
  }
  __device__ __forceinline__ void load(long long k0, long long k) {
    const int qs = k - k0 < BK ? (int)(k - k0) : BK; /* columns q < qs exist */
    const T *pk = p + k0 * cs;
    for (int c = 0; c < L; ++c) {
      int r, q;
      chunk(c, r, q);
      const T *src = pk + r * rs + q * cs;
      if (vec && (along_r ? r + V <= rows && q < qs : r < rows && q + V <= qs)) {
        rb_load16(src, v[c]);
      } else {
        for (int t = 0; t < V; ++t) {
          const int tr = r + (along_r ? t : 0), tq = q + (along_r ? 0 : t);
          v[c][t] = tr < rows && tq < qs ? src[t * (along_r ? rs : cs)] : T(0);
        }
      }
    }
  }
  __device__ __forceinline__ bool has_terms(long long) const { return true; }
  template <int PAD, class Mask = const void *>
  __device__ __forceinline__ void store(T (*s)[R + PAD], Mask = nullptr) const {
    for (int c = 0; c < L; ++c) {
      int r, q;
      chunk(c, r, q);
      for (int t = 0; t < V; ++t) s[q + (along_r ? 0 : t)][r + (along_r ? t : 0)] = v[c][t];
    }
  }
};

/* The tiled loop over a B operand given by its slice loader LB (for gemm
 * rb_slice_loader; the convolution's gathers input values, conv_gemm.cuh).
 * An LB with MASKED also stores, per element of a slice, whether that term
 * exists: an absent term (a padding tap) is skipped, never added as a zero
 * product, and an output with no term at all (LB::has_terms false) is +0.
 * UNROLL: of the k loop; more keeps more fragments in flight, and registers. */
template <class T, int BM, int BN, int BK, int TM, int TN, int UNROLL, class LB>
__device__ __forceinline__ void rb_gemm_seq_tiles(long long m, long long n, long long k, T alpha,
                                                  const T *a, long long a_rs, long long a_cs,
                                                  LB &lb, T beta, T *c, long long c_rs,
                                                  long long c_cs, int uplo = RB_FULL) {
  constexpr int SM = TM / 2, SN = TN / 2, RT = BM / TM, CT = BN / TN, NT = RT * CT;
  constexpr int V = 16 / sizeof(T), PAD = V; /* PAD: fewer conflicts on the transposing stores */
  constexpr bool MASKED = LB::MASKED;
  static_assert(RT % 4 == 0 && CT % 8 == 0 && SM % V == 0 && SN % V == 0, "tile shape");
  __shared__ __align__(16) T as[2][BK][BM + PAD];
  __shared__ __align__(16) T bs[2][BK][BN + PAD];
  __shared__ unsigned char bm[MASKED ? 2 : 1][MASKED ? BK : 1][MASKED ? BN : 1];
  const int lane = threadIdx.x % 32, w = threadIdx.x / 32;
  const int tr = w / (CT / 8) * 4 + lane / 8, tc = w % (CT / 8) * 8 + lane % 8;
  const long long i0 = (long long)blockIdx.x * BM, j0 = (long long)blockIdx.y * BN;
  if (!rb_tri_meets(uplo, i0, i0 + BM, j0, j0 + BN)) return; /* rb_gemm_body's uplo */
  rb_slice_loader<T, BM, BK, NT> la(a, a_rs, a_cs, m, i0);
  T acc[TM][TN];
  for (int i = 0; i < TM; ++i)
    for (int j = 0; j < TN; ++j) acc[i][j] = RB_CHAIN_START(T);

  int buf = 0;
  if (k > 0) {
    la.load(0, k), lb.load(0, k);
    la.template store<PAD>(as[0]), lb.template store<PAD>(bs[0], bm[0]);
  }
  __syncthreads();
  for (long long k0 = 0; k0 < k; k0 += BK) {
    const bool more = k0 + BK < k;
    if (more) la.load(k0 + BK, k), lb.load(k0 + BK, k);
    const int kb = more ? BK : (int)(k - k0);
#pragma unroll UNROLL
    for (int kk = 0; kk < kb; ++kk) {
      T av[TM], bv[TN];
      for (int h = 0; h < 2; ++h) {
        for (int i = 0; i < SM; i += V)
          rb_load16(&as[buf][kk][h * BM / 2 + tr * SM + i], av + h * SM + i);
        for (int j = 0; j < SN; j += V)
          rb_load16(&bs[buf][kk][h * BN / 2 + tc * SN + j], bv + h * SN + j);
      }
      if (MASKED) { /* only the terms present in this thread's columns */
#pragma unroll
        for (int j = 0; j < TN; ++j) {
          const bool present = bm[buf][kk][j / SN * (BN / 2) + tc * SN + j % SN];
#pragma unroll
          for (int i = 0; i < TM; ++i)
            acc[i][j] = present ? rb_fma(av[i], bv[j], acc[i][j]) : acc[i][j];
        }
      } else {
        for (int i = 0; i < TM; ++i)
          for (int j = 0; j < TN; ++j) acc[i][j] = rb_fma(av[i], bv[j], acc[i][j]);
      }
    }
    if (more)
      la.template store<PAD>(as[buf ^ 1]), lb.template store<PAD>(bs[buf ^ 1], bm[buf ^ 1]);
    __syncthreads();
    buf ^= 1;
  }

#pragma unroll
  for (int j = 0; j < TN; ++j) {
    const long long gj = j0 + j / SN * (BN / 2) + tc * SN + j % SN;
    const bool some = gj < n && k > 0 && lb.has_terms(gj); /* else S = +0 */
#pragma unroll
    for (int i = 0; i < TM; ++i) {
      const long long gi = i0 + i / SM * (BM / 2) + tr * SM + i % SM;
      if (gi >= m || gj >= n || !rb_tri_keeps(uplo, gi, gj)) continue;
      T r = alpha * (some ? acc[i][j] : T(0));
      if (beta != T(0)) r = rb_fma(beta, c[gi * c_rs + gj * c_cs], r);
      c[gi * c_rs + gj * c_cs] = r;
    }
  }
}

template <class T, int BM, int BN, int BK, int TM, int TN, int UNROLL = 2>
__device__ __forceinline__ void rb_gemm_seq_body(long long m, long long n, long long k, T alpha,
                                                 const T *a, long long a_rs, long long a_cs,
                                                 const T *b, long long b_rs, long long b_cs,
                                                 T beta, T *c, long long c_rs, long long c_cs,
                                                 int uplo) {
  constexpr int NT = BM / TM * (BN / TN);
  /* op(B) column j as the loader's "row" */
  rb_slice_loader<T, BN, BK, NT> lb(b, b_cs, b_rs, n, (long long)blockIdx.y * BN);
  rb_gemm_seq_tiles<T, BM, BN, BK, TM, TN, UNROLL>(m, n, k, alpha, a, a_rs, a_cs, lb, beta, c,
                                                   c_rs, c_cs, uplo);
}

#endif /* RB_CUDA_GEMM_SEQ_CUH */
