/* One-lane instantiation of the lane abstraction (see README.md).
 * Also the form the CUDA build uses: under nvcc, fma is __fma_rn. */
#ifndef CR_VEC_SCALAR_H
#define CR_VEC_SCALAR_H

#include <math.h>
#include "../../common/cr_defs.h"

#define VW 1
typedef double vd;
typedef int64_t vl;
typedef int vm;

#if defined(__CUDA_ARCH__)
#define CR_FMA(a, b, c) __fma_rn(a, b, c)
#define CR_SQRT(a) __dsqrt_rn(a)
#else
#define CR_FMA(a, b, c) fma(a, b, c)
#define CR_SQRT(a) sqrt(a)
#endif

CR_FN vd vd_load_f32(const float *p) { return (double)p[0]; }
CR_FN void vd_store_f32(float *p, vd v) { p[0] = (float)v; }
CR_FN vd vd_set(double c) { return c; }
CR_FN vl vl_set(int64_t c) { return c; }

CR_FN vd vd_add(vd a, vd b) { return a + b; }
CR_FN vd vd_sub(vd a, vd b) { return a - b; }
CR_FN vd vd_mul(vd a, vd b) { return a * b; }
CR_FN vd vd_div(vd a, vd b) { return a / b; }
CR_FN vd vd_sqrt(vd a) { return CR_SQRT(a); }
CR_FN vd vd_fma(vd a, vd b, vd c) { return CR_FMA(a, b, c); }
CR_FN vd vd_abs(vd a) { return fabs(a); }
CR_FN vd vd_neg(vd a) { return -a; }
/* Round to the nearest integer, ties to even (the kernels run in RN mode). */
CR_FN vd vd_rint(vd a) { return rint(a); }
CR_FN vd vd_floor(vd a) { return floor(a); }
/* a < b ? a : b, so b where either is NaN (as x86's minpd). */
CR_FN vd vd_min(vd a, vd b) { return a < b ? a : b; }

CR_FN vm vd_lt(vd a, vd b) { return a < b; }
CR_FN vm vd_le(vd a, vd b) { return a <= b; }
CR_FN vm vd_gt(vd a, vd b) { return a > b; }
CR_FN vm vd_ge(vd a, vd b) { return a >= b; }
CR_FN vm vd_eq(vd a, vd b) { return a == b; }
CR_FN vm vd_isnan(vd a) { return a != a; }
CR_FN vm vm_and(vm a, vm b) { return a & b; }
CR_FN vm vm_or(vm a, vm b) { return a | b; }
CR_FN vm vm_andnot(vm a, vm b) { return a & !b; }
CR_FN vm vm_not(vm a) { return !a; }
CR_FN vm vm_none(void) { return 0; }
CR_FN unsigned vm_bits(vm m) { return (unsigned)m; }
CR_FN vd vd_select(vm m, vd a, vd b) { return m ? a : b; }

CR_FN vl vd_as_vl(vd a) { vl r; memcpy(&r, &a, sizeof r); return r; }
CR_FN vd vl_as_vd(vl a) { vd r; memcpy(&r, &a, sizeof r); return r; }
CR_FN vl vl_add(vl a, vl b) { return (vl)((uint64_t)a + (uint64_t)b); }
CR_FN vl vl_sub(vl a, vl b) { return (vl)((uint64_t)a - (uint64_t)b); }
CR_FN vl vl_and(vl a, vl b) { return a & b; }
CR_FN vl vl_or(vl a, vl b) { return a | b; }
CR_FN vl vl_xor(vl a, vl b) { return a ^ b; }
CR_FN vl vl_shl(vl a, int n) { return (vl)((uint64_t)a << n); }
CR_FN vl vl_shr(vl a, int n) { return (vl)((uint64_t)a >> n); }
CR_FN vm vl_eq(vl a, vl b) { return a == b; }
CR_FN vm vl_gt(vl a, vl b) { return a > b; }
CR_FN vd vd_gather(const double *t, vl idx) { return t[idx]; }
CR_FN vd vd_lookup16(const double *t, vl idx) { return t[idx & 15]; }
CR_FN void vd_gather_pair(const double *t, vl idx, vd *a, vd *b) { *a = t[idx]; *b = t[idx + 1]; }
CR_FN void vd_lookup16_pair(const double *t, vl idx, vd *a, vd *b) {
  idx &= 15;
  *a = t[2 * idx];
  *b = t[2 * idx + 1];
}
/* out[j] = by_value[16 j + (idx & 15)], j < n (by_row holds the same values). */
CR_FN void vd_lookup16_n(const double *by_value, const double *by_row, vl idx, int n, vd *out) {
  (void)by_row;
  for (int j = 0; j < n; ++j) out[j] = by_value[16 * j + (idx & 15)];
}


/* Float lanes: one per vector (see README.md). */
#define VFW 1
typedef float vf;
typedef int32_t vi;
typedef int vmf;

#if defined(__CUDA_ARCH__)
#define CR_FMAF(a, b, c) __fmaf_rn(a, b, c)
#define CR_SQRTF(a) __fsqrt_rn(a)
#else
#define CR_FMAF(a, b, c) fmaf(a, b, c)
#define CR_SQRTF(a) sqrtf(a)
#endif

CR_FN vf vf_load(const float *p) { return p[0]; }
CR_FN void vf_store(float *p, vf v) { p[0] = v; }
CR_FN vf vf_set(float c) { return c; }
CR_FN vi vi_set(int32_t c) { return c; }
CR_FN vf vf_add(vf a, vf b) { return a + b; }
CR_FN vf vf_sub(vf a, vf b) { return a - b; }
CR_FN vf vf_mul(vf a, vf b) { return a * b; }
CR_FN vf vf_fma(vf a, vf b, vf c) { return CR_FMAF(a, b, c); }
CR_FN vf vf_div(vf a, vf b) { return a / b; }
CR_FN vf vf_sqrt(vf a) { return CR_SQRTF(a); }
CR_FN vf vf_fms(vf a, vf b, vf c) { return CR_FMAF(a, b, -c); }
CR_FN vmf vf_ne(vf a, vf b) { return a != b; }
CR_FN vmf vf_nle(vf a, vf b) { return !(a <= b); }
CR_FN vmf vf_nge(vf a, vf b) { return !(a >= b); }
CR_FN vmf vmf_or(vmf a, vmf b) { return a | b; }
CR_FN unsigned vmf_bits(vmf m) { return (unsigned)m; }
CR_FN vi vf_as_vi(vf a) { vi r; memcpy(&r, &a, sizeof r); return r; }
CR_FN vf vi_as_vf(vi a) { vf r; memcpy(&r, &a, sizeof r); return r; }
CR_FN vi vi_add(vi a, vi b) { return (vi)((uint32_t)a + (uint32_t)b); }
CR_FN vi vi_sub(vi a, vi b) { return (vi)((uint32_t)a - (uint32_t)b); }
CR_FN vi vi_and(vi a, vi b) { return a & b; }
CR_FN vi vi_or(vi a, vi b) { return a | b; }
CR_FN vi vi_xor(vi a, vi b) { return a ^ b; }
CR_FN vi vi_shr(vi a, int n) { return (vi)((uint32_t)a >> n); }
/* Arithmetic shift, written without relying on >> of a negative int. */
CR_FN vi vi_sra(vi a, int n) { return a < 0 ? ~(vi)((uint32_t)~a >> n) : (vi)((uint32_t)a >> n); }
CR_FN vmf vi_gt(vi a, vi b) { return a > b; }

#endif /* CR_VEC_SCALAR_H */
