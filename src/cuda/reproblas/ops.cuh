/* The arithmetic of the reproblas kernels, for float and double, taken from
 * the CPU's one-lane lane layer (reproblas/lanes/scalar.h): one IEEE
 * operation each. + and * are written as operators (the build forbids
 * contraction: --fmad=false); every fma is an explicit rb_fma. */
#ifndef RB_CUDA_OPS_CUH
#define RB_CUDA_OPS_CUH

#include "reproblas/lanes/scalar.h"
#include "reproblas/terms.h"

CR_FN float rb_fma(float a, float b, float c) { return v32_fma(a, b, c); }
CR_FN double rb_fma(double a, double b, double c) { return v64_fma(a, b, c); }
CR_FN float rb_abs(float a) { return v32_abs(a); }
CR_FN double rb_abs(double a) { return v64_abs(a); }
CR_FN float rb_sqrt(float a) { return sqrtf(a); }
CR_FN double rb_sqrt(double a) { return sqrt(a); }

/* 16 bytes from a 16-byte aligned address. The host emulation aborts on a
 * misaligned one, which a GPU would fault on. */
CR_FN void rb_load16(const float *p, float v[4]) {
#ifdef __CUDACC__
  const float4 t = *reinterpret_cast<const float4 *>(p);
  v[0] = t.x, v[1] = t.y, v[2] = t.z, v[3] = t.w;
#else
  if ((uintptr_t)p % 16) abort();
  memcpy(v, p, 16);
#endif
}
CR_FN void rb_load16(const double *p, double v[2]) {
#ifdef __CUDACC__
  const double2 t = *reinterpret_cast<const double2 *>(p);
  v[0] = t.x, v[1] = t.y;
#else
  if ((uintptr_t)p % 16) abort();
  memcpy(v, p, 16);
#endif
}

/* Levels of a binary counter over k (pairwise order): k < 2^RB_LEVELS. */
#define RB_LEVELS 40

/* Adds term v (index i) to the binary counter `stack` (SPEC §2's tree: each
 * carry adds a completed left block to the right block that just ended). */
template <class T>
CR_FN void rb_push(T *stack, long long i, T v) {
  int j = 0;
  for (; (i >> j) & 1; ++j) v = stack[j] + v;
  stack[j] = v;
}

/* The pairwise sum of n terms pushed into `stack`: the blocks of n's binary
 * expansion joined right to left, B1 + (B2 + (... + Bk)); +0 for n = 0. */
template <class T>
CR_FN T rb_pop_all(const T *stack, long long n) {
  if (n == 0) return T(0);
  int j = 0;
  while (!((n >> j) & 1)) ++j;
  T acc = stack[j];
  for (++j; (n >> j) != 0; ++j)
    if ((n >> j) & 1) acc = stack[j] + acc;
  return acc;
}

/* A term of a reduction from its operands x_i, y_i (pairwise: products rounded). */
template <class T>
CR_FN T rb_term(int term, T x, T y, T scale) {
  switch (term) {
  case RB_TERM_X: return x;
  case RB_TERM_ABS: return rb_abs(x);
  case RB_TERM_XY: return x * y;
  default: { T z = x * scale; return z * z; }
  }
}

/* One step of the sequential chain, S <- S + t_i (fma for product terms).
 * Starting from S = -0 gives S_0 = t_0 exactly: t + (-0) = t for every t,
 * +0 included, and fma(a, b, -0) is the rounded product. */
template <class T>
CR_FN T rb_chain(int term, T x, T y, T scale, T s) {
  switch (term) {
  case RB_TERM_X: return s + x;
  case RB_TERM_ABS: return s + rb_abs(x);
  case RB_TERM_XY: return rb_fma(x, y, s);
  default: { T z = x * scale; return rb_fma(z, z, s); }
  }
}

#endif /* RB_CUDA_OPS_CUH */
