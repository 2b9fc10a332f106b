/* Sequential conv2d as an implicit gemm on the sequential gemm's tiles
 * (gemm_seq.cuh): per image n and group g, Y[k, pos] = sum over taps of
 * W[k, tap] * X[tap, pos], where tap = (c', r, s) in the contract's lexicographic
 * order (W's own layout) and pos = (p, q). X is never formed: the B loader
 * reads x[n, g*Cg + c', h, v] at h = p*sh - ph + r*dh, v = q*sw - pw + s*dw,
 * and marks the term absent where (h, v) is padding, so each output is the
 * fma chain over its present terms only, as in rb_conv2d_body and on the CPU.
 * Bias: the host fills y with bias[k] and passes beta = 1, and
 * fma(1, bias, S) = S + bias. Grid: (K/g tiles, P*Q tiles, N * groups). */
#ifndef RB_CUDA_CONV_GEMM_CUH
#define RB_CUDA_CONV_GEMM_CUH

#include "conv.cuh"
#include "gemm_seq.cuh"

/* B = X of one image and group. tab[tap] (host-made, 16 bytes): the offset
 * c'*H*W + r*dh*W + s*dw, then r*dh and s*dw as two ints. A thread owns one
 * column (position) of every slice and BK / (NT / BN) of its taps. */
template <class T, int BN, int BK, int NT>
struct rb_conv_b_loader {
  static constexpr bool MASKED = true;
  static constexpr int STEP = NT / BN, L = BK / STEP;
  static_assert(NT % BN == 0 && BK % STEP == 0, "slice shape");
  const T *x;             /* channel g*Cg of image n */
  const long long *tab;
  const long long *geo;   /* read again only for has_terms */
  int h0, v0, h, w;       /* this thread's position's first tap; the image's size */
  bool col;               /* the position exists */
  T v[L];
  bool ok[L];

  /* geo's fields by index (rb_conv_geo's order), not as a struct: a struct
   * held by reference would live in local memory. */
  __device__ __forceinline__ rb_conv_b_loader(const T *x_, const long long *tab_,
                                              const long long *geo_, long long j0)
      : x(x_), tab(tab_), geo(geo_), h((int)geo_[2]), w((int)geo_[3]) {
    const long long pos = j0 + threadIdx.x % BN;
    col = pos < geo[8] * geo[9];
    long long hs, vs;
    first_tap(pos, hs, vs);
    h0 = (int)hs, v0 = (int)vs;
  }
  /* (h, v) of position pos's tap (0, 0): p*sh - ph, q*sw - pw. */
  __device__ __forceinline__ void first_tap(long long pos, long long &hs, long long &vs) const {
    hs = pos / geo[9] * geo[10] - geo[12], vs = pos % geo[9] * geo[11] - geo[13];
  }
  __device__ __forceinline__ void load(long long k0, long long k) {
    for (int c = 0; c < L; ++c) {
      const long long tap = k0 + threadIdx.x / BN + c * STEP;
      ok[c] = false, v[c] = T(0);
      if (!col || tap >= k) continue;
      const int *d = reinterpret_cast<const int *>(tab + 2 * tap + 1);
      const int hh = h0 + d[0], vv = v0 + d[1];
      ok[c] = hh >= 0 && hh < h && vv >= 0 && vv < w;
      if (ok[c]) v[c] = x[tab[2 * tap] + (long long)h0 * w + v0];
    }
  }
  template <int PAD>
  __device__ __forceinline__ void store(T (*s)[BN + PAD], unsigned char (*mask)[BN]) const {
    for (int c = 0; c < L; ++c) {
      const int q = threadIdx.x / BN + c * STEP, r = threadIdx.x % BN;
      s[q][r] = v[c], mask[q][r] = ok[c];
    }
  }
  /* Whether position pos has a tap inside the image (some r and some s). */
  __device__ __forceinline__ bool has_terms(long long pos) const {
    long long hs, vs;
    first_tap(pos, hs, vs);
    bool in_h = false, in_w = false;
    for (long long r = 0; r < geo[6] && !in_h; ++r) {
      const long long hh = hs + r * geo[14];
      in_h = hh >= 0 && hh < h;
    }
    for (long long s = 0; s < geo[7] && !in_w; ++s) {
      const long long vv = vs + s * geo[15];
      in_w = vv >= 0 && vv < w;
    }
    return in_h && in_w;
  }
};

template <class T, int BM, int BN, int BK, int TM, int TN>
__device__ __forceinline__ void rb_conv2d_gemm_body(const long long *geo, const long long *tab,
                                                    const T *x, const T *w, T beta, T *y) {
  constexpr int NT = BM / TM * (BN / TN);
  const rb_conv_geo g = rb_conv_load(geo);
  const long long n = blockIdx.z / g.groups, grp = blockIdx.z % g.groups, kg = g.k / g.groups;
  const long long taps = g.cg * g.r * g.s, pq = g.p * g.q;
  rb_conv_b_loader<T, BN, BK, NT> lb(x + (n * g.c + grp * g.cg) * g.h * g.w, tab, geo,
                                     (long long)blockIdx.y * BN);
  rb_gemm_seq_tiles<T, BM, BN, BK, TM, TN, 2>(kg, pq, taps, T(1), w + grp * kg * taps, taps, 1,
                                              lb, beta, y + (n * g.k + grp * kg) * pq, pq, 1);
}

#endif /* RB_CUDA_CONV_GEMM_CUH */
