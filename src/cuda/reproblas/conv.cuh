/* conv2d and its input / weight gradients (docs/contract.md §3 "Convolution"), NCHW,
 * contiguous operands. Each output's whole term list is run by one thread in
 * the contract's lexicographic order (no split-K); a thread owns TK outputs that share
 * one operand value per term (TK channels at one position / tap). A term whose
 * position falls into the padding (or, for the input gradient, has no output
 * position) is skipped, never added as a zero product: the pairwise tree is
 * the one over the compacted list (rb_accum), as on the CPU
 * (docs/reproblas.md). The bias gradient is a gemv on the host side.
 *
 * geo: N, C, H, W, K, Cg (= C / groups), R, S, P, Q, stride (h, w),
 * padding before (h, w), dilation (h, w), groups. Grids: (image, group, block
 * of TK channels) on grid.x and the positions (grad_weight: the taps), NT per
 * block, on grid.y, so a block shares its channel block's operand (staged in
 * shared memory or uniform loads) and neighbouring threads read neighbouring
 * elements of the other (coalesced). */
#ifndef RB_CUDA_CONV_CUH
#define RB_CUDA_CONV_CUH

#include "accum.cuh"

struct rb_conv_geo {
  long long n, c, h, w, k, cg, r, s, p, q, sh, sw, ph, pw, dh, dw, groups;
};

__device__ __forceinline__ rb_conv_geo rb_conv_load(const long long *g) {
  return rb_conv_geo{g[0], g[1], g[2],  g[3],  g[4],  g[5],  g[6],  g[7],
                     g[8], g[9], g[10], g[11], g[12], g[13], g[14], g[15], g[16]};
}

/* The block's outputs: image n, up to TK consecutive channels [c0, c0 + nc) of
 * one group (channels per group: per_group), and the position pos; grid.x runs
 * over (image, group, channel block), grid.y over the positions. */
struct rb_conv_block {
  long long n, group, c0, pos;
  int nc;
};

template <int NT, int TK>
__device__ __forceinline__ rb_conv_block rb_conv_block_of(long long groups, long long per_group) {
  const long long blocks = (per_group + TK - 1) / TK, bx = blockIdx.x;
  const long long cb = bx % blocks, group = bx / blocks % groups;
  const long long left = per_group - cb * TK;
  return rb_conv_block{bx / (blocks * groups), group, group * per_group + cb * TK,
                       (long long)blockIdx.y * NT + threadIdx.x, left < TK ? (int)left : TK};
}

/* Terms (taps or positions) per shared-memory stage. */
#define RB_CONV_TAPS 32

/* buf[u][t] = load(u, t) for the stage's len terms and nc channels, zeros
 * beyond (never used), by the whole block, between barriers: every thread
 * calls it with the same len. */
template <class T, int NT, int TK, class Load>
__device__ __forceinline__ void rb_conv_stage(T (*buf)[TK], int len, int nc, Load load) {
  __syncthreads(); /* the previous stage is consumed */
  for (int e = threadIdx.x; e < RB_CONV_TAPS * TK; e += NT) {
    const int u = e / TK, t = e % TK;
    buf[u][t] = u < len && t < nc ? load(u, t) : T(0);
  }
  __syncthreads();
}

/* y[n, k, p, q] (+ bias[k] when has_bias): terms x * w over (c', r, s). A thread
 * computes TK output channels of one position: each x it loads feeds TK
 * independent sums (they share the present taps). The block's TK channels of
 * weights are staged in shared memory, RB_CONV_TAPS taps at a time; every
 * thread walks the same taps, so all meet at the barriers. */
template <class T, int NT, int TK, bool PAIRWISE>
__device__ __forceinline__ void rb_conv2d_body(const long long *geo, const T *x, const T *w,
                                               const T *bias, int has_bias, T *y) {
  __shared__ T ws[RB_CONV_TAPS][TK];
  const rb_conv_geo g = rb_conv_load(geo);
  const rb_conv_block b = rb_conv_block_of<NT, TK>(g.groups, g.k / g.groups);
  const bool active = b.pos < g.p * g.q;
  const long long p = b.pos / g.q, q = b.pos % g.q, taps = g.cg * g.r * g.s;
  const T *xn = x + (b.n * g.c + b.group * g.cg) * g.h * g.w;
  rb_accum<T, PAIRWISE> acc[TK];
  long long ci = 0, r = 0, s = 0; /* the tap u0 + u, counted up */
  for (long long u0 = 0; u0 < taps; u0 += RB_CONV_TAPS) {
    const int len = taps - u0 < RB_CONV_TAPS ? (int)(taps - u0) : RB_CONV_TAPS;
    rb_conv_stage<T, NT, TK>(ws, len, b.nc,
                             [&](int u, int t) { return w[(b.c0 + t) * taps + u0 + u]; });
    for (int u = 0; u < len && active; ++u) {
      const long long h = p * g.sh - g.ph + r * g.dh, v = q * g.sw - g.pw + s * g.dw;
      if (h >= 0 && h < g.h && v >= 0 && v < g.w) {
        const T xv = xn[(ci * g.h + h) * g.w + v];
        for (int t = 0; t < TK; ++t)
          if (t < b.nc) acc[t].add(xv, ws[u][t]);
      }
      if (++s == g.s) {
        s = 0;
        if (++r == g.r) {
          r = 0;
          ++ci;
        }
      }
    }
  }
  for (int t = 0; t < TK && t < b.nc && active; ++t) {
    const T sum = acc[t].sum();
    y[(b.n * g.k + b.c0 + t) * g.p * g.q + b.pos] = has_bias ? sum + bias[b.c0 + t] : sum;
  }
}

/* gx[n, c, h, v]: terms grad_y[n, k, p, q] * w[k, c', r, s] over (k, r, s), k in
 * c's group, where h = p*sh - ph + r*dh and v = q*sw - pw + s*dw for a valid (p, q).
 * A thread computes TK input channels of one position, as conv2d. */
template <class T, int NT, int TK, bool PAIRWISE>
__device__ __forceinline__ void rb_conv2d_grad_input_body(const long long *geo, const T *gy,
                                                          const T *w, T *gx) {
  const rb_conv_geo g = rb_conv_load(geo);
  const rb_conv_block b = rb_conv_block_of<NT, TK>(g.groups, g.cg);
  if (b.pos >= g.h * g.w) return;
  const long long h = b.pos / g.w, v = b.pos % g.w, kg = g.k / g.groups, rs = g.r * g.s;
  const long long ci0 = b.c0 - b.group * g.cg;
  rb_accum<T, PAIRWISE> acc[TK];
  for (long long k = b.group * kg; k < (b.group + 1) * kg; ++k) {
    const T *gk = gy + (b.n * g.k + k) * g.p * g.q;
    const T *wk = w + (k * g.cg + ci0) * rs; /* + t * rs: channel c0 + t */
    for (long long r = 0; r < g.r; ++r) {
      const long long ph = h + g.ph - r * g.dh; /* = p * sh */
      if (ph < 0 || ph % g.sh || ph / g.sh >= g.p) continue;
      for (long long s = 0; s < g.s; ++s) {
        const long long qw = v + g.pw - s * g.dw;
        if (qw < 0 || qw % g.sw || qw / g.sw >= g.q) continue;
        const T gv = gk[ph / g.sh * g.q + qw / g.sw];
        for (int t = 0; t < TK; ++t)
          if (t < b.nc) acc[t].add(gv, wk[t * rs + r * g.s + s]);
      }
    }
  }
  for (int t = 0; t < TK && t < b.nc; ++t)
    gx[(b.n * g.c + b.c0 + t) * g.h * g.w + b.pos] = acc[t].sum();
}

/* gw[k, c', r, s]: terms grad_y[n, k, p, q] * x[n, c, h, v] over (n, p, q), for
 * the (p, q) whose tap (r, s) reads the input. A thread owns one (c', r, s) of
 * TK channels k of a group (grid.x: group and channel block; grid.y: the taps,
 * NT per block); each x it loads feeds TK sums, and the block's grad_y values
 * are staged in shared memory, RB_CONV_TAPS positions (n, p, q) at a time. */
template <class T, int NT, int TK, bool PAIRWISE>
__device__ __forceinline__ void rb_conv2d_grad_weight_body(const long long *geo, const T *x,
                                                           const T *gy, T *gw) {
  __shared__ T gs[RB_CONV_TAPS][TK];
  const rb_conv_geo g = rb_conv_load(geo);
  const rb_conv_block b = rb_conv_block_of<NT, TK>(g.groups, g.k / g.groups);
  const long long rs = g.r * g.s, pq = g.p * g.q, total = g.n * pq;
  const bool active = b.pos < g.cg * rs;
  const long long ci = b.pos / rs, r = b.pos / g.s % g.r, s = b.pos % g.s;
  const T *xc = x + (b.group * g.cg + ci) * g.h * g.w; /* + n * c * h * w */
  rb_accum<T, PAIRWISE> acc[TK];
  long long n = 0, p = 0, q = 0; /* the position u0 + u, counted up */
  for (long long u0 = 0; u0 < total; u0 += RB_CONV_TAPS) {
    const int len = total - u0 < RB_CONV_TAPS ? (int)(total - u0) : RB_CONV_TAPS;
    rb_conv_stage<T, NT, TK>(gs, len, b.nc, [&](int u, int t) {
      const long long at = u0 + u;
      return gy[(at / pq * g.k + b.c0 + t) * pq + at % pq];
    });
    for (int u = 0; u < len && active; ++u) {
      const long long h = p * g.sh - g.ph + r * g.dh, v = q * g.sw - g.pw + s * g.dw;
      if (h >= 0 && h < g.h && v >= 0 && v < g.w) {
        const T xv = xc[(n * g.c * g.h + h) * g.w + v];
        for (int t = 0; t < TK; ++t)
          if (t < b.nc) acc[t].add(gs[u][t], xv);
      }
      if (++q == g.q) {
        q = 0;
        if (++p == g.p) {
          p = 0;
          ++n;
        }
      }
    }
  }
  for (int t = 0; t < TK && t < b.nc && active; ++t)
    gw[(b.c0 + t) * g.cg * rs + b.pos] = acc[t].sum();
}

#endif /* RB_CUDA_CONV_CUH */
