/* The arithmetic of the reproblas kernels, for float and double, taken from
 * the CPU's one-lane lane layer (lanes/scalar.h): one IEEE
 * operation each. + and * are written as operators (the build forbids
 * contraction: --fmad=false); every fma is an explicit rb_fma. */
#ifndef RB_CUDA_OPS_CUH
#define RB_CUDA_OPS_CUH

#include "order/order.h"
#include "lanes/scalar.h"
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

/* Adds term v (index i) to the binary counter `stack` (docs/contract.md §2's
 * tree: RB_COUNTER_PUSH, order/order.h). */
template <class T>
CR_FN void rb_push(T *stack, long long i, T v) {
  RB_COUNTER_PUSH(stack, i, v, RB_PLUS);
}

/* The pairwise sum of n terms pushed into `stack` (RB_COUNTER_JOIN); +0 for
 * n = 0 (docs/contract.md §2). */
template <class T>
CR_FN T rb_pop_all(const T *stack, long long n) {
  if (n == 0) return T(0);
  T acc;
  RB_COUNTER_JOIN(acc, stack, n, RB_PLUS);
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

/* One step of the sequential chain, S <- S + t_i (fma for product terms),
 * from S = RB_CHAIN_START(T) (order/order.h): S_0 = t_0 exactly. */
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
