/* One-lane (portable C) form of the lane layer; see README.md.
 * Also the form the CUDA build uses: under nvcc, fma is __fma_rn. */
#ifndef LANES_SCALAR_H
#define LANES_SCALAR_H

#include <math.h>
#include "../common/cr_defs.h"

#if defined(__CUDA_ARCH__)
#define LANES_FMA(a, b, c) __fma_rn(a, b, c)
#define LANES_SQRT(a) __dsqrt_rn(a)
#define LANES_FMAF(a, b, c) __fmaf_rn(a, b, c)
#define LANES_SQRTF(a) __fsqrt_rn(a)
#else
#define LANES_FMA(a, b, c) fma(a, b, c)
#define LANES_SQRT(a) sqrt(a)
#define LANES_FMAF(a, b, c) fmaf(a, b, c)
#define LANES_SQRTF(a) sqrtf(a)
#endif

/* ---- double lanes ---- */
#define V64_W 1
typedef double v64;
typedef int64_t v64i;
typedef int v64m;

CR_FN v64 v64_load(const double *p) { return *p; }
CR_FN void v64_store(double *p, v64 a) { *p = a; }
CR_FN void v64_store_lanes(double *p, unsigned m, v64 a) {
  if (m & 1) *p = a;
}
CR_FN v64 v64_load_f32(const float *p) { return (double)p[0]; }
CR_FN void v64_store_f32(float *p, v64 v) { p[0] = (float)v; }
CR_FN v64 v64_set1(double c) { return c; }
CR_FN v64i v64i_set1(int64_t c) { return c; }

CR_FN v64 v64_add(v64 a, v64 b) { return a + b; }
CR_FN v64 v64_sub(v64 a, v64 b) { return a - b; }
CR_FN v64 v64_mul(v64 a, v64 b) { return a * b; }
CR_FN v64 v64_div(v64 a, v64 b) { return a / b; }
CR_FN v64 v64_sqrt(v64 a) { return LANES_SQRT(a); }
CR_FN v64 v64_fma(v64 a, v64 b, v64 c) { return LANES_FMA(a, b, c); }
CR_FN v64 v64_abs(v64 a) { return fabs(a); }
CR_FN v64 v64_neg(v64 a) { return -a; }
/* Round to the nearest integer, ties to even (the kernels run in RN mode). */
CR_FN v64 v64_rint(v64 a) { return rint(a); }
CR_FN v64 v64_floor(v64 a) { return floor(a); }
/* a < b ? a : b and a > b ? a : b, so b where either is NaN (as x86's minpd, maxpd). */
CR_FN v64 v64_min(v64 a, v64 b) { return a < b ? a : b; }
CR_FN v64 v64_max(v64 a, v64 b) { return a > b ? a : b; }
CR_FN v64 v64_nonzero_or(v64 a, v64 c) { return a == 0 ? c : a; }

CR_FN v64m v64_lt(v64 a, v64 b) { return a < b; }
CR_FN v64m v64_le(v64 a, v64 b) { return a <= b; }
CR_FN v64m v64_gt(v64 a, v64 b) { return a > b; }
CR_FN v64m v64_ge(v64 a, v64 b) { return a >= b; }
CR_FN v64m v64_eq(v64 a, v64 b) { return a == b; }
CR_FN v64m v64_isnan(v64 a) { return a != a; }
CR_FN v64m v64m_and(v64m a, v64m b) { return a & b; }
CR_FN v64m v64m_or(v64m a, v64m b) { return a | b; }
CR_FN v64m v64m_andnot(v64m a, v64m b) { return a & !b; }
CR_FN v64m v64m_not(v64m a) { return !a; }
CR_FN v64m v64m_none(void) { return 0; }
CR_FN unsigned v64m_bits(v64m m) { return (unsigned)m; }
CR_FN v64 v64_select(v64m m, v64 a, v64 b) { return m ? a : b; }

CR_FN v64i v64_as_v64i(v64 a) { v64i r; memcpy(&r, &a, sizeof r); return r; }
CR_FN v64 v64i_as_v64(v64i a) { v64 r; memcpy(&r, &a, sizeof r); return r; }
CR_FN v64i v64i_add(v64i a, v64i b) { return (v64i)((uint64_t)a + (uint64_t)b); }
CR_FN v64i v64i_sub(v64i a, v64i b) { return (v64i)((uint64_t)a - (uint64_t)b); }
CR_FN v64i v64i_and(v64i a, v64i b) { return a & b; }
CR_FN v64i v64i_or(v64i a, v64i b) { return a | b; }
CR_FN v64i v64i_xor(v64i a, v64i b) { return a ^ b; }
CR_FN v64i v64i_shl(v64i a, int n) { return (v64i)((uint64_t)a << n); }
CR_FN v64i v64i_shr(v64i a, int n) { return (v64i)((uint64_t)a >> n); }
CR_FN v64m v64i_eq(v64i a, v64i b) { return a == b; }
CR_FN v64m v64i_gt(v64i a, v64i b) { return a > b; }

CR_FN v64 v64_gather(const double *t, v64i idx) { return t[idx]; }
CR_FN v64 v64_lookup16(const double *t, v64i idx) { return t[idx & 15]; }
CR_FN void v64_gather_pair(const double *t, v64i idx, v64 *a, v64 *b) { *a = t[idx]; *b = t[idx + 1]; }
CR_FN void v64_lookup16_pair(const double *t, v64i idx, v64 *a, v64 *b) {
  idx &= 15;
  *a = t[2 * idx];
  *b = t[2 * idx + 1];
}
/* out[j] = by_value[16 j + (idx & 15)], j < n (by_row holds the same values). */
CR_FN void v64_lookup16_n(const double *by_value, const double *by_row, v64i idx, int n, v64 *out) {
  (void)by_row;
  for (int j = 0; j < n; ++j) out[j] = by_value[16 * j + (idx & 15)];
}

CR_FN v64 v64_pairadd(v64 a, v64 b) { return a + b; }
CR_FN v64 v64_tree_rows(const v64 *r) { return r[0]; } /* one lane */
CR_FN double v64_first(v64 a) { return a; }
CR_FN unsigned v64_nan_bits(v64 a) { return v64m_bits(v64_isnan(a)); }
CR_FN unsigned v64_eq_bits(v64 a, v64 b) { return v64m_bits(v64_eq(a, b)); }
CR_FN void v64_transpose(v64 *r) { (void)r; } /* 1 x 1 */
CR_FN void v64_load_transposed(v64 *r, const double *a, int64_t rs) { (void)rs, *r = *a; }

/* ---- float lanes ---- */
#define V32_W 1
typedef float v32;
typedef int32_t v32i;
typedef int v32m;

CR_FN v32 v32_load(const float *p) { return *p; }
CR_FN void v32_store(float *p, v32 a) { *p = a; }
CR_FN void v32_store_lanes(float *p, unsigned m, v32 a) {
  if (m & 1) *p = a;
}
CR_FN v32 v32_set1(float c) { return c; }
CR_FN v32i v32i_set1(int32_t c) { return c; }

CR_FN v32 v32_add(v32 a, v32 b) { return a + b; }
CR_FN v32 v32_sub(v32 a, v32 b) { return a - b; }
CR_FN v32 v32_mul(v32 a, v32 b) { return a * b; }
CR_FN v32 v32_div(v32 a, v32 b) { return a / b; }
CR_FN v32 v32_sqrt(v32 a) { return LANES_SQRTF(a); }
CR_FN v32 v32_fma(v32 a, v32 b, v32 c) { return LANES_FMAF(a, b, c); }
CR_FN v32 v32_fms(v32 a, v32 b, v32 c) { return LANES_FMAF(a, b, -c); }
CR_FN v32 v32_abs(v32 a) { return fabsf(a); }
CR_FN v32 v32_min(v32 a, v32 b) { return a < b ? a : b; }
CR_FN v32 v32_max(v32 a, v32 b) { return a > b ? a : b; }
CR_FN v32 v32_nonzero_or(v32 a, v32 c) { return a == 0 ? c : a; }

CR_FN v32m v32_eq(v32 a, v32 b) { return a == b; }
CR_FN v32m v32_ne(v32 a, v32 b) { return a != b; }
CR_FN v32m v32_nle(v32 a, v32 b) { return !(a <= b); }
CR_FN v32m v32_nge(v32 a, v32 b) { return !(a >= b); }
CR_FN v32m v32_isnan(v32 a) { return a != a; }
CR_FN v32m v32m_or(v32m a, v32m b) { return a | b; }
CR_FN unsigned v32m_bits(v32m m) { return (unsigned)m; }
CR_FN v32m v32m_from_bytes(const unsigned char *p) { return p[0] != 0; }
CR_FN v32 v32_select(v32m m, v32 a, v32 b) { return m ? a : b; }

CR_FN v32i v32_as_v32i(v32 a) { v32i r; memcpy(&r, &a, sizeof r); return r; }
CR_FN v32 v32i_as_v32(v32i a) { v32 r; memcpy(&r, &a, sizeof r); return r; }
CR_FN v32i v32i_add(v32i a, v32i b) { return (v32i)((uint32_t)a + (uint32_t)b); }
CR_FN v32i v32i_sub(v32i a, v32i b) { return (v32i)((uint32_t)a - (uint32_t)b); }
CR_FN v32i v32i_and(v32i a, v32i b) { return a & b; }
CR_FN v32i v32i_or(v32i a, v32i b) { return a | b; }
CR_FN v32i v32i_xor(v32i a, v32i b) { return a ^ b; }
CR_FN v32i v32i_shr(v32i a, int n) { return (v32i)((uint32_t)a >> n); }
/* Arithmetic shift, written without relying on >> of a negative int. */
CR_FN v32i v32i_sra(v32i a, int n) { return a < 0 ? ~(v32i)((uint32_t)~a >> n) : (v32i)((uint32_t)a >> n); }
CR_FN v32m v32i_gt(v32i a, v32i b) { return a > b; }

CR_FN v32 v32_pairadd(v32 a, v32 b) { return a + b; }
CR_FN v32 v32_tree_rows(const v32 *r) { return r[0]; } /* one lane */
CR_FN float v32_first(v32 a) { return a; }
CR_FN unsigned v32_nan_bits(v32 a) { return v32m_bits(v32_isnan(a)); }
CR_FN unsigned v32_eq_bits(v32 a, v32 b) { return v32m_bits(v32_eq(a, b)); }
CR_FN void v32_transpose(v32 *r) { (void)r; } /* 1 x 1 */
CR_FN void v32_load_transposed(v32 *r, const float *a, int64_t rs) { (void)rs, *r = *a; }

#endif /* LANES_SCALAR_H */
