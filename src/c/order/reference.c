/* The executable definition of every reproblas routine: see reference.h.
 * Each reduction gathers its terms, in the contract's index order, into
 * plain arrays and adds them with order.h's primitives (ref_sum_terms,
 * ref_sum_products); everything around them is the formula of
 * docs/contract.md §3, one rounded operation at a time. Definitions, not
 * fast paths: no SIMD, no blocking, no threads.
 *
 * The file includes itself once per element type (T, SFX below). */
#ifndef RB_REF_T

#include "order/reference.h"

#include <math.h>
#include <stdlib.h>
#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#else
#include <fenv.h>
#endif

#include "order/exact.h"
#include "order/kahan.h"
#include "order/order.h"

/* The library's floating-point environment (docs/contract.md, Arithmetic):
 * round to nearest, FTZ and DAZ off, whatever the test process set. */
#if defined(__x86_64__) || defined(__i386__)
typedef unsigned int rb_ref_env;
static rb_ref_env rb_ref_enter(void) {
  rb_ref_env saved = _mm_getcsr();
  _mm_setcsr(0x1F80);
  return saved;
}
static void rb_ref_leave(rb_ref_env saved) { _mm_setcsr(saved); }
#else
typedef fenv_t rb_ref_env;
static rb_ref_env rb_ref_enter(void) {
  rb_ref_env saved;
  fegetenv(&saved);
  fesetenv(FE_DFL_ENV);
  return saved;
}
static void rb_ref_leave(rb_ref_env saved) { fesetenv(&saved); }
#endif

static void *rb_ref_alloc(int64_t count, size_t size) {
  void *p = malloc((size_t)(count > 0 ? count : 1) * size);
  if (p == NULL) abort(); /* test-only code: an out-of-memory test run stops here */
  return p;
}

#define RB_REF_T float
#define RB_REF_SFX f32
#define RB_REF_FMA fmaf
#define RB_REF_SQRT sqrtf
#define RB_REF_FABS fabsf
#define RB_REF_MIN_EXP (-126)
#define RB_REF_MAX_EXP 127
#define RB_REF_XRUN rb_xacc_run_f32
#define RB_REF_XROUND rb_xacc_round_f32
#define RB_REF_XKIND RB_XK_F32
#include "reference.c" /* this file, for one element type */
#undef RB_REF_T
#undef RB_REF_SFX
#undef RB_REF_FMA
#undef RB_REF_SQRT
#undef RB_REF_FABS
#undef RB_REF_MIN_EXP
#undef RB_REF_MAX_EXP
#undef RB_REF_XRUN
#undef RB_REF_XROUND
#undef RB_REF_XKIND

#define RB_REF_T double
#define RB_REF_SFX f64
#define RB_REF_FMA fma
#define RB_REF_SQRT sqrt
#define RB_REF_FABS fabs
#define RB_REF_MIN_EXP (-1022)
#define RB_REF_MAX_EXP 1023
#define RB_REF_XRUN rb_xacc_run_f64
#define RB_REF_XROUND rb_xacc_round_f64
#define RB_REF_XKIND RB_XK_F64
#include "reference.c" /* this file, for one element type */

/* dsdot and sdsdot (docs/contract.md §3.5): float64 dot of the vectors widened to float64 (the
 * products are exact), sdsdot's with sb as its first term and rounded once to float. */
static double rb_ref_widened_dot(int order, int64_t n, int with_sb, float sb, const float *x,
                                 int64_t incx, const float *y, int64_t incy) {
  int64_t len = n + with_sb;
  double *a = rb_ref_alloc(len, sizeof(double)), *b = rb_ref_alloc(len, sizeof(double));
  if (with_sb) {
    a[0] = sb;
    b[0] = 1.0;
  }
  for (int64_t k = 0; k < n; ++k) {
    a[with_sb + k] = x[k * incx];
    b[with_sb + k] = y[k * incy];
  }
  double s = rb_ref_dot_f64(order, len, a, 1, b, 1);
  free(a);
  free(b);
  return s;
}

double rb_ref_dsdot(int order, int64_t n, const float *x, int64_t incx, const float *y,
                    int64_t incy) {
  return rb_ref_widened_dot(order, n, 0, 0.0f, x, incx, y, incy);
}

float rb_ref_sdsdot(int order, int64_t n, float sb, const float *x, int64_t incx,
                    const float *y, int64_t incy) {
  return (float)rb_ref_widened_dot(order, n, 1, sb, x, incx, y, incy);
}

#else /* one element type: T, with functions named NAME(x) -> x_SFX */

#define T RB_REF_T
#define NAME_(a, b) a##_##b
#define NAME2_(a, b) NAME_(a, b)
#define NAME(a) NAME2_(a, RB_REF_SFX)

/* Order codes beyond §2 (docs/contract.md §5.4): 3, exact, the terms in
 * order/exact.h's accumulator (term kind 0: plain, 2: products), rounded once. */
static T NAME(ref_exact)(int64_t n, const T *a, const T *b) {
  rb_xacc acc;
  rb_xacc_init(&acc);
  RB_REF_XRUN(&acc, b ? 2 : 0, a, b, n);
  return RB_REF_XROUND(&acc, RB_REF_XKIND + (b ? 1 : 0), n > 0);
}

static T NAME(ref_sum_terms)(int order, int64_t n, const T *t);

/* Order code 2, kahan (docs/contract.md §5.5): the chunks' pairs (kahan.h),
 * their pairwise tree, s ⊖ c; the pairwise sum when that is not finite. */
static T NAME(ref_kahan)(int64_t n, const T *t) {
  if (n == 0) return (T)0;
  NAME(rb_kpair) stack[64], acc;
  const int64_t chunks = (n + RB_KAHAN_CHUNK - 1) / RB_KAHAN_CHUNK;
  for (int64_t j = 0; j < chunks; ++j) {
    const int64_t first = j * RB_KAHAN_CHUNK;
    const int q = n - first < RB_KAHAN_CHUNK ? (int)(n - first) : RB_KAHAN_CHUNK;
    NAME(rb_kpair) v = NAME(rb_kchunk)(t + first, q);
    RB_COUNTER_PUSH(stack, j, v, NAME(rb_kjoin));
  }
  RB_COUNTER_JOIN(acc, stack, chunks, NAME(rb_kjoin));
  const T r = NAME(rb_kresult)(acc);
  return r - r == 0 ? r : NAME(ref_sum_terms)(1, n, t);
}

/* The sum of the plain terms t[0 .. n) in the order (docs/contract.md §2);
 * n = 0 gives +0 in both orders. */
static T NAME(ref_sum_terms)(int order, int64_t n, const T *t) {
  if (order == 3) return NAME(ref_exact)(n, t, NULL);
  if (order == 2) return NAME(ref_kahan)(n, t);
  if (n == 0) return (T)0;
  if (order == 0) {
    T s = RB_CHAIN_START(T);
    for (int64_t k = 0; k < n; ++k) s = RB_PLUS(s, t[k]);
    return s;
  }
  T stack[64] = {0}, acc; /* a level is written before it is read */
  for (int64_t i = 0; i < n; ++i) {
    T v = t[i];
    RB_COUNTER_PUSH(stack, i, v, RB_PLUS);
  }
  RB_COUNTER_JOIN(acc, stack, n, RB_PLUS);
  return acc;
}

/* The sum of the product terms a[k]·b[k]: sequential adds each product
 * exactly with one fma, pairwise adds rounded products. */
static T NAME(ref_sum_products)(int order, int64_t n, const T *a, const T *b) {
  if (order == 3) return NAME(ref_exact)(n, a, b);
  if (order == 2) { /* the rounded products (§5.5) */
    T *t = rb_ref_alloc(n, sizeof(T));
    for (int64_t k = 0; k < n; ++k) t[k] = a[k] * b[k];
    const T r = NAME(ref_kahan)(n, t);
    free(t);
    return r;
  }
  if (n == 0) return (T)0;
  if (order == 0) {
    T s = RB_CHAIN_START(T);
    for (int64_t k = 0; k < n; ++k) s = RB_REF_FMA(a[k], b[k], s);
    return s;
  }
  T stack[64] = {0}, acc; /* a level is written before it is read */
  for (int64_t i = 0; i < n; ++i) {
    T v = a[i] * b[i];
    RB_COUNTER_PUSH(stack, i, v, RB_PLUS);
  }
  RB_COUNTER_JOIN(acc, stack, n, RB_PLUS);
  return acc;
}

/* α ⊗ S, or fma(β, c_old, α ⊗ S): c_old is not read when β = ±0. */
static T NAME(ref_scale)(T alpha, T s, T beta, const T *c_old) {
  T as = alpha * s;
  return beta == 0 ? as : RB_REF_FMA(beta, *c_old, as);
}

/* ---- level 1 ------------------------------------------------------------ */

T NAME(rb_ref_sum)(int order, int64_t n, const T *x, int64_t incx) {
  rb_ref_env env = rb_ref_enter();
  T *t = rb_ref_alloc(n, sizeof(T));
  for (int64_t k = 0; k < n; ++k) t[k] = x[k * incx];
  T s = NAME(ref_sum_terms)(order, n, t);
  free(t);
  rb_ref_leave(env);
  return s;
}

T NAME(rb_ref_asum)(int order, int64_t n, const T *x, int64_t incx) {
  rb_ref_env env = rb_ref_enter();
  T *t = rb_ref_alloc(n, sizeof(T));
  for (int64_t k = 0; k < n; ++k) t[k] = RB_REF_FABS(x[k * incx]);
  T s = NAME(ref_sum_terms)(order, n, t);
  free(t);
  rb_ref_leave(env);
  return s;
}

T NAME(rb_ref_dot)(int order, int64_t n, const T *x, int64_t incx, const T *y, int64_t incy) {
  rb_ref_env env = rb_ref_enter();
  T *a = rb_ref_alloc(n, sizeof(T)), *b = rb_ref_alloc(n, sizeof(T));
  for (int64_t k = 0; k < n; ++k) {
    a[k] = x[k * incx];
    b[k] = y[k * incy];
  }
  T s = NAME(ref_sum_products)(order, n, a, b);
  free(a);
  free(b);
  rb_ref_leave(env);
  return s;
}

/* sqrt(S) ⊗ 2^e, S the sum of z_k·z_k, z_k = x_k ⊗ 2^-e, e the exponent of
 * max abs(x_k) clamped to the normal range (docs/contract.md §3). */
T NAME(rb_ref_nrm2)(int order, int64_t n, const T *x, int64_t incx) {
  rb_ref_env env = rb_ref_enter();
  T m = 0, r;
  int nan = 0;
  for (int64_t k = 0; k < n; ++k) {
    T v = x[k * incx];
    if (v != v) nan = 1;
    else if (RB_REF_FABS(v) > m) m = RB_REF_FABS(v);
  }
  if (nan) {
    r = (T)NAN;
  } else if (m == (T)INFINITY) {
    r = (T)INFINITY;
  } else if (m == 0) {
    r = 0;
  } else {
    int e;
    frexp((double)m, &e); /* m = f·2^e with 1/2 <= f < 1 */
    e -= 1;
    if (e < RB_REF_MIN_EXP) e = RB_REF_MIN_EXP;
    if (e > RB_REF_MAX_EXP) e = RB_REF_MAX_EXP;
    T down = (T)ldexp(1.0, -e), up = (T)ldexp(1.0, e); /* both exact in T */
    T *z = rb_ref_alloc(n, sizeof(T));
    for (int64_t k = 0; k < n; ++k) z[k] = x[k * incx] * down;
    r = RB_REF_SQRT(NAME(ref_sum_products)(order, n, z, z)) * up;
    free(z);
  }
  rb_ref_leave(env);
  return r;
}

/* The first NaN, else the first k with abs(x_k) maximal; -1 for n = 0. */
int64_t NAME(rb_ref_iamax)(int64_t n, const T *x, int64_t incx) {
  int64_t best = -1;
  for (int64_t k = 0; k < n; ++k) {
    T v = x[k * incx];
    if (v != v) return k;
    if (best < 0 || RB_REF_FABS(v) > RB_REF_FABS(x[best * incx])) best = k;
  }
  return best;
}

void NAME(rb_ref_axpy)(int64_t n, T alpha, const T *x, int64_t incx, T *y, int64_t incy) {
  rb_ref_env env = rb_ref_enter();
  for (int64_t k = 0; k < n; ++k) y[k * incy] = RB_REF_FMA(alpha, x[k * incx], y[k * incy]);
  rb_ref_leave(env);
}

void NAME(rb_ref_scal)(int64_t n, T alpha, T *x, int64_t incx) {
  rb_ref_env env = rb_ref_enter();
  for (int64_t k = 0; k < n; ++k) x[k * incx] = alpha * x[k * incx];
  rb_ref_leave(env);
}

/* ---- level 2 and 3 ------------------------------------------------------ */

/* a is m x n (strides sa0, sa1); y_i over op(a)'s rows, terms op(a)_ij·x_j. */
void NAME(rb_ref_gemv)(int order, int trans, int64_t m, int64_t n, T alpha, const T *a,
                       int64_t sa0, int64_t sa1, const T *x, int64_t incx, T beta, T *y,
                       int64_t incy) {
  rb_ref_env env = rb_ref_enter();
  if (trans) { /* op(a) = a^T: n x m, strides swapped */
    int64_t t = m; m = n; n = t;
    t = sa0; sa0 = sa1; sa1 = t;
  }
  T *ta = rb_ref_alloc(n, sizeof(T)), *tb = rb_ref_alloc(n, sizeof(T));
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      ta[j] = a[i * sa0 + j * sa1];
      tb[j] = x[j * incx];
    }
    T s = NAME(ref_sum_products)(order, n, ta, tb);
    y[i * incy] = NAME(ref_scale)(alpha, s, beta, &y[i * incy]);
  }
  free(ta);
  free(tb);
  rb_ref_leave(env);
}

void NAME(rb_ref_ger)(int64_t m, int64_t n, T alpha, const T *x, int64_t incx, const T *y,
                      int64_t incy, T *a, int64_t sa0, int64_t sa1) {
  rb_ref_env env = rb_ref_enter();
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      a[i * sa0 + j * sa1] = RB_REF_FMA(x[i * incx], alpha * y[j * incy], a[i * sa0 + j * sa1]);
  rb_ref_leave(env);
}

/* c (m x n) from op(a) (m x k) and op(b) (k x n); a, b given by their stored strides. */
void NAME(rb_ref_gemm)(int order, int trans_a, int trans_b, int64_t m, int64_t n, int64_t k,
                       T alpha, const T *a, int64_t sa0, int64_t sa1, const T *b, int64_t sb0,
                       int64_t sb1, T beta, T *c, int64_t sc0, int64_t sc1) {
  rb_ref_env env = rb_ref_enter();
  if (trans_a) { int64_t t = sa0; sa0 = sa1; sa1 = t; }
  if (trans_b) { int64_t t = sb0; sb0 = sb1; sb1 = t; }
  T *ta = rb_ref_alloc(k, sizeof(T)), *tb = rb_ref_alloc(k, sizeof(T));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      for (int64_t l = 0; l < k; ++l) {
        ta[l] = a[i * sa0 + l * sa1];
        tb[l] = b[l * sb0 + j * sb1];
      }
      T s = NAME(ref_sum_products)(order, k, ta, tb);
      c[i * sc0 + j * sc1] = NAME(ref_scale)(alpha, s, beta, &c[i * sc0 + j * sc1]);
    }
  free(ta);
  free(tb);
  rb_ref_leave(env);
}

/* Solves M x = b in place, M (n x n, strides m0, m1) lower or upper triangular:
 * x_i = (b_i ⊖ S_i) ⊘ M_ii, S_i over the solved j ascending; rows top-down
 * (lower) or bottom-up (upper). */
static void NAME(ref_solve)(int order, int lower, int unit, int64_t n, const T *mat, int64_t m0,
                            int64_t m1, T *x, int64_t incx) {
  T *ta = rb_ref_alloc(n, sizeof(T)), *tb = rb_ref_alloc(n, sizeof(T));
  for (int64_t step = 0; step < n; ++step) {
    int64_t i = lower ? step : n - 1 - step, cnt = 0;
    for (int64_t j = lower ? 0 : i + 1; j < (lower ? i : n); ++j, ++cnt) {
      ta[cnt] = mat[i * m0 + j * m1];
      tb[cnt] = x[j * incx];
    }
    T v = x[i * incx] - NAME(ref_sum_products)(order, cnt, ta, tb);
    x[i * incx] = unit ? v : v / mat[i * m0 + i * m1];
  }
  free(ta);
  free(tb);
}

void NAME(rb_ref_trsv)(int order, int lower, int trans, int unit, int64_t n, const T *a,
                       int64_t sa0, int64_t sa1, T *b, int64_t incb) {
  rb_ref_env env = rb_ref_enter();
  /* M = op(a); a^T's lower triangle is a's upper one */
  if (trans) NAME(ref_solve)(order, !lower, unit, n, a, sa1, sa0, b, incb);
  else NAME(ref_solve)(order, lower, unit, n, a, sa0, sa1, b, incb);
  rb_ref_leave(env);
}

/* b (m x n) becomes x: left, op(a) x = α b column by column; right, x op(a) = α b
 * row by row, i.e. op(a)^T x_i = α b_i. */
void NAME(rb_ref_trsm)(int order, int right, int lower, int trans, int unit, int64_t m,
                       int64_t n, T alpha, const T *a, int64_t sa0, int64_t sa1, T *b,
                       int64_t sb0, int64_t sb1) {
  rb_ref_env env = rb_ref_enter();
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) b[i * sb0 + j * sb1] = alpha * b[i * sb0 + j * sb1];
  int mlower = right ? !(lower ^ trans) : (lower ^ trans);
  int64_t m0 = (right ^ trans) ? sa1 : sa0, m1 = (right ^ trans) ? sa0 : sa1;
  if (right)
    for (int64_t i = 0; i < m; ++i) NAME(ref_solve)(order, mlower, unit, n, a, m0, m1,
                                                    &b[i * sb0], sb1);
  else
    for (int64_t j = 0; j < n; ++j) NAME(ref_solve)(order, mlower, unit, m, a, m0, m1,
                                                    &b[j * sb1], sb0);
  rb_ref_leave(env);
}

/* b (m x n) becomes α ⊗ S: left, S_ij over k of op(a)_ik b_kj, right, over k of
 * b_ik op(a)_kj, with only the k whose op(a) entry is in its triangle (the others
 * are absent), ascending; unit: the diagonal entry is 1, not read. */
void NAME(rb_ref_trmm)(int order, int right, int lower, int trans, int unit, int64_t m,
                       int64_t n, T alpha, const T *a, int64_t sa0, int64_t sa1, T *b,
                       int64_t sb0, int64_t sb1) {
  rb_ref_env env = rb_ref_enter();
  const int64_t na = right ? n : m;
  if (trans) { int64_t t = sa0; sa0 = sa1; sa1 = t; lower = !lower; } /* op(a) = a^T */
  T *out = rb_ref_alloc(m * n, sizeof(T));
  T *ta = rb_ref_alloc(na, sizeof(T)), *tb = rb_ref_alloc(na, sizeof(T));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      int64_t cnt = 0;
      for (int64_t k = 0; k < na; ++k) {
        const int64_t r = right ? k : i, c = right ? j : k; /* the entry (r, c) of op(a) */
        if (lower ? c > r : c < r) continue; /* absent */
        const T e = unit && r == c ? (T)1 : a[r * sa0 + c * sa1];
        ta[cnt] = right ? b[i * sb0 + k * sb1] : e;
        tb[cnt++] = right ? e : b[k * sb0 + j * sb1];
      }
      out[i * n + j] = alpha * NAME(ref_sum_products)(order, cnt, ta, tb);
    }
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) b[i * sb0 + j * sb1] = out[i * n + j];
  free(out);
  free(ta);
  free(tb);
  rb_ref_leave(env);
}

/* ---- convolution (docs/contract.md §3: padding terms are absent) --------- */

#define GEO_UNPACK(geo)                                                                         \
  int64_t N = geo[0], C = geo[1], H = geo[2], W = geo[3], K = geo[4], G = geo[5], R = geo[6],   \
          S = geo[7], P = geo[8], Q = geo[9], sh = geo[10], sw = geo[11], ph = geo[12],         \
          pw = geo[13], dh = geo[14], dw = geo[15], Cg = C / G, Kg = K / G
#define AT4(p, st, i0, i1, i2, i3)                                                              \
  (p)[(i0) * (st)[0] + (i1) * (st)[1] + (i2) * (st)[2] + (i3) * (st)[3]]

/* y[n, k, p, q]: terms x[n, c, h, v]·w[k, c', r, s] over (c', r, s), valid (h, v) only. */
void NAME(rb_ref_conv2d)(int order, const int64_t *geo, const T *x, const int64_t *xs,
                         const T *w, const int64_t *ws, const T *bias, int64_t sbias, T *y,
                         const int64_t *ys) {
  rb_ref_env env = rb_ref_enter();
  GEO_UNPACK(geo);
  T *ta = rb_ref_alloc(Cg * R * S, sizeof(T)), *tb = rb_ref_alloc(Cg * R * S, sizeof(T));
  for (int64_t n = 0; n < N; ++n)
    for (int64_t k = 0; k < K; ++k)
      for (int64_t p = 0; p < P; ++p)
        for (int64_t q = 0; q < Q; ++q) {
          int64_t cnt = 0;
          for (int64_t cc = 0; cc < Cg; ++cc)
            for (int64_t r = 0; r < R; ++r)
              for (int64_t s = 0; s < S; ++s) {
                int64_t h = p * sh - ph + r * dh, v = q * sw - pw + s * dw;
                if (h < 0 || h >= H || v < 0 || v >= W) continue;
                ta[cnt] = AT4(x, xs, n, (k / Kg) * Cg + cc, h, v);
                tb[cnt++] = AT4(w, ws, k, cc, r, s);
              }
          T sum = NAME(ref_sum_products)(order, cnt, ta, tb);
          AT4(y, ys, n, k, p, q) = bias ? sum + bias[k * sbias] : sum;
        }
  free(ta);
  free(tb);
  rb_ref_leave(env);
}

/* gx[n, c, h, v]: terms grad_y[n, k, p, q]·w[k, c', r, s] over (k, r, s), k in c's
 * group, where h = p·sh − ph + r·dh and v = q·sw − pw + s·dw for a valid (p, q). */
void NAME(rb_ref_conv2d_grad_input)(int order, const int64_t *geo, const T *gy,
                                    const int64_t *gys, const T *w, const int64_t *ws, T *gx,
                                    const int64_t *gxs) {
  rb_ref_env env = rb_ref_enter();
  GEO_UNPACK(geo);
  T *ta = rb_ref_alloc(Kg * R * S, sizeof(T)), *tb = rb_ref_alloc(Kg * R * S, sizeof(T));
  for (int64_t n = 0; n < N; ++n)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t h = 0; h < H; ++h)
        for (int64_t v = 0; v < W; ++v) {
          int64_t cnt = 0, g = c / Cg;
          for (int64_t k = g * Kg; k < (g + 1) * Kg; ++k)
            for (int64_t r = 0; r < R; ++r)
              for (int64_t s = 0; s < S; ++s) {
                int64_t hp = h + ph - r * dh, vq = v + pw - s * dw;
                if (hp < 0 || vq < 0 || hp % sh != 0 || vq % sw != 0) continue;
                if (hp / sh >= P || vq / sw >= Q) continue;
                ta[cnt] = AT4(gy, gys, n, k, hp / sh, vq / sw);
                tb[cnt++] = AT4(w, ws, k, c - g * Cg, r, s);
              }
          AT4(gx, gxs, n, c, h, v) = NAME(ref_sum_products)(order, cnt, ta, tb);
        }
  free(ta);
  free(tb);
  rb_ref_leave(env);
}

/* gw[k, c', r, s]: terms grad_y[n, k, p, q]·x[n, c, h, v] over (n, p, q), valid (h, v). */
void NAME(rb_ref_conv2d_grad_weight)(int order, const int64_t *geo, const T *x,
                                     const int64_t *xs, const T *gy, const int64_t *gys, T *gw,
                                     const int64_t *gws) {
  rb_ref_env env = rb_ref_enter();
  GEO_UNPACK(geo);
  T *ta = rb_ref_alloc(N * P * Q, sizeof(T)), *tb = rb_ref_alloc(N * P * Q, sizeof(T));
  for (int64_t k = 0; k < K; ++k)
    for (int64_t cc = 0; cc < Cg; ++cc)
      for (int64_t r = 0; r < R; ++r)
        for (int64_t s = 0; s < S; ++s) {
          int64_t cnt = 0;
          for (int64_t n = 0; n < N; ++n)
            for (int64_t p = 0; p < P; ++p)
              for (int64_t q = 0; q < Q; ++q) {
                int64_t h = p * sh - ph + r * dh, v = q * sw - pw + s * dw;
                if (h < 0 || h >= H || v < 0 || v >= W) continue;
                ta[cnt] = AT4(gy, gys, n, k, p, q);
                tb[cnt++] = AT4(x, xs, n, (k / Kg) * Cg + cc, h, v);
              }
          AT4(gw, gws, k, cc, r, s) = NAME(ref_sum_products)(order, cnt, ta, tb);
        }
  free(ta);
  free(tb);
  rb_ref_leave(env);
}

/* gb[k]: terms grad_y[n, k, p, q] over (n, p, q). */
void NAME(rb_ref_conv2d_grad_bias)(int order, const int64_t *geo, const T *gy,
                                   const int64_t *gys, T *gb, int64_t sgb) {
  rb_ref_env env = rb_ref_enter();
  int64_t N = geo[0], K = geo[4], P = geo[8], Q = geo[9];
  T *t = rb_ref_alloc(N * P * Q, sizeof(T));
  for (int64_t k = 0; k < K; ++k) {
    int64_t cnt = 0;
    for (int64_t n = 0; n < N; ++n)
      for (int64_t p = 0; p < P; ++p)
        for (int64_t q = 0; q < Q; ++q) t[cnt++] = AT4(gy, gys, n, k, p, q);
    gb[k * sgb] = NAME(ref_sum_terms)(order, cnt, t);
  }
  free(t);
  rb_ref_leave(env);
}

/* docs/contract.md §5.2: every prefix s_k, then the exclusive shift. */
void NAME(rb_ref_scan)(int order, int op, int term, int exclusive, int64_t n, const T *x,
                       int64_t incx, const T *y, int64_t incy, T *out, int64_t incout) {
  rb_ref_env env = rb_ref_enter();
  T *s = rb_ref_alloc(n, sizeof(T));
  const T start = op ? RB_PRODUCT_START(T) : RB_CHAIN_START(T);
  if (order == 0) {
    T acc = start;
    for (int64_t k = 0; k < n; ++k) {
      const T xk = x[k * incx];
      if (op)
        acc = RB_TIMES(acc, xk);
      else if (term == 2)
        acc = RB_REF_FMA(xk, y[k * incy], acc);
      else
        acc = RB_PLUS(acc, term == 1 ? RB_REF_FABS(xk) : xk);
      s[k] = acc;
    }
  } else if (order >= 2) { /* kahan, exact (cumsum only): the sum of each prefix's terms */
    T *a = rb_ref_alloc(n, sizeof(T)), *b = term == 2 ? rb_ref_alloc(n, sizeof(T)) : NULL;
    for (int64_t k = 0; k < n; ++k) {
      const T xk = x[k * incx];
      a[k] = term == 1 ? RB_REF_FABS(xk) : xk;
      if (b) b[k] = y[k * incy];
    }
    if (order == 2 && b) /* kahan's terms: the rounded products */
      for (int64_t k = 0; k < n; ++k) a[k] = a[k] * b[k];
    for (int64_t k = 0; k < n; ++k)
      s[k] = order == 3 ? NAME(ref_exact)(k + 1, a, b) : NAME(ref_kahan)(k + 1, a);
    free(a);
    free(b);
  } else {
    T stack[64] = {0}; /* a level is written before it is read */
    for (int64_t k = 0; k < n; ++k) {
      const T xk = x[k * incx];
      T v = term == 2 ? xk * y[k * incy] : term == 1 ? RB_REF_FABS(xk) : xk;
      if (op)
        RB_SCAN_PUSH(stack, s, k, v, start, RB_TIMES);
      else
        RB_SCAN_PUSH(stack, s, k, v, start, RB_PLUS);
    }
  }
  for (int64_t k = 0; k < n; ++k)
    out[k * incout] = !exclusive ? s[k] : k ? s[k - 1] : op ? (T)1 : (T)0;
  free(s);
  rb_ref_leave(env);
}

/* ---- level 2 on symmetric, triangular, band, packed A (docs/contract.md §3.6) ----
 * kind 0 general, 1 symmetric, 2 triangular; storage 0 full (A_rc = a[r rs + c cs]),
 * 1 band (A_rc = a[(ku + r - c) rs + c cs]; symmetric/triangular: kl = k, ku = 0
 * lower, kl = 0, ku = k upper), 2 packed (element p at a[p rs], column by column). */

/* Whether stored A_rc lies in the stored part (the triangle, the band). */
static int NAME(ref_l2_stored)(int kind, int storage, int lower, int64_t kl, int64_t ku,
                               int64_t r, int64_t c) {
  if (kind != 0 && (lower ? r < c : r > c)) return 0;
  if (storage == 1 && (r - c > kl || c - r > ku)) return 0;
  return 1;
}

#ifndef RB_REF_L2_OFF
#define RB_REF_L2_OFF
static int64_t ref_l2_off(int storage, int lower, int64_t n, int64_t ku, int64_t rs, int64_t cs,
                          int64_t r, int64_t c) {
  if (storage == 1) return (ku + r - c) * rs + c * cs;
  if (storage == 2) return (lower ? r + (2 * n - c - 1) * c / 2 : r + c * (c + 1) / 2) * rs;
  return r * rs + c * cs;
}
#endif
static T NAME(ref_l2_at)(int storage, int lower, int64_t n, int64_t ku, const T *a, int64_t rs,
                         int64_t cs, int64_t r, int64_t c) {
  return a[ref_l2_off(storage, lower, n, ku, rs, cs, r, c)];
}

/* y_i = α S_i (+ β y_i), S_i over the present k ascending: op(M)_ik x_k. */
void NAME(rb_ref_l2mv)(int order, int kind, int storage, int lower, int trans, int unit,
                       int64_t m, int64_t n, int64_t kl, int64_t ku, T alpha, const T *a,
                       int64_t rs, int64_t cs, const T *x, int64_t incx, T beta, T *y,
                       int64_t incy) {
  rb_ref_env env = rb_ref_enter();
  if (storage != 1) kl = m, ku = n;
  const int64_t rows = kind == 0 && trans ? n : m, cols = kind == 0 && trans ? m : n;
  T *ta = rb_ref_alloc(cols, sizeof(T)), *tb = rb_ref_alloc(cols, sizeof(T));
  for (int64_t i = 0; i < rows; ++i) {
    int64_t cnt = 0;
    for (int64_t k = 0; k < cols; ++k) {
      int64_t r = kind != 1 && trans ? k : i, c = kind != 1 && trans ? i : k;
      if (kind == 1 && !NAME(ref_l2_stored)(kind, storage, lower, kl, ku, r, c)) r = k, c = i;
      if (!NAME(ref_l2_stored)(kind, storage, lower, kl, ku, r, c)) continue; /* absent */
      ta[cnt] = kind == 2 && unit && r == c ? (T)1 : NAME(ref_l2_at)(storage, lower, n, ku, a, rs, cs, r, c);
      tb[cnt++] = x[k * incx];
    }
    y[i * incy] = NAME(ref_scale)(alpha, NAME(ref_sum_products)(order, cnt, ta, tb), beta,
                                  &y[i * incy]);
  }
  free(ta);
  free(tb);
  rb_ref_leave(env);
}

/* tbsv / tpsv: trsv (§3.3) over the present terms; k: the band's width. */
void NAME(rb_ref_l2sv)(int order, int storage, int lower, int trans, int unit, int64_t n,
                       int64_t k, const T *a, int64_t rs, int64_t cs, T *b, int64_t incb) {
  rb_ref_env env = rb_ref_enter();
  const int64_t kl = storage == 1 ? (lower ? k : 0) : n, ku = storage == 1 ? (lower ? 0 : k) : n;
  const int oplower = lower != trans;
  T *ta = rb_ref_alloc(n, sizeof(T)), *tb = rb_ref_alloc(n, sizeof(T));
  for (int64_t step = 0; step < n; ++step) {
    const int64_t i = oplower ? step : n - 1 - step;
    int64_t cnt = 0;
    for (int64_t j = oplower ? 0 : i + 1; j < (oplower ? i : n); ++j) {
      const int64_t r = trans ? j : i, c = trans ? i : j;
      if (!NAME(ref_l2_stored)(2, storage, lower, kl, ku, r, c)) continue;
      ta[cnt] = NAME(ref_l2_at)(storage, lower, n, ku, a, rs, cs, r, c);
      tb[cnt++] = b[j * incb];
    }
    const T v = b[i * incb] - NAME(ref_sum_products)(order, cnt, ta, tb);
    b[i * incb] = unit ? v : v / NAME(ref_l2_at)(storage, lower, n, ku, a, rs, cs, i, i);
  }
  free(ta);
  free(tb);
  rb_ref_leave(env);
}

/* syr/spr (y NULL): A_ij = fma(x_i, α x_j, A_ij); syr2/spr2: then
 * A_ij = fma(y_i, α x_j, ...) after fma(x_i, α y_j, A_ij); the stored triangle only. */
void NAME(rb_ref_l2rank)(int storage, int lower, int64_t n, T alpha, const T *x, int64_t incx,
                         const T *y, int64_t incy, T *a, int64_t rs, int64_t cs) {
  rb_ref_env env = rb_ref_enter();
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = lower ? j : 0; i < (lower ? n : j + 1); ++i) {
      T *e = a + ref_l2_off(storage, lower, n, 0, rs, cs, i, j);
      const T xi = x[i * incx], xj = x[j * incx];
      if (y == NULL) {
        *e = RB_REF_FMA(xi, alpha * xj, *e);
      } else {
        const T yi = y[i * incy], yj = y[j * incy];
        *e = RB_REF_FMA(yi, alpha * xj, RB_REF_FMA(xi, alpha * yj, *e));
      }
    }
  rb_ref_leave(env);
}

#undef GEO_UNPACK
#undef AT4
#undef T
#undef NAME_
#undef NAME2_
#undef NAME
#endif
