/* Eight-lane AVX-512 (F, DQ) instantiation of the lane abstraction (see README.md). */
#ifndef CR_VEC_AVX512_H
#define CR_VEC_AVX512_H

#include <immintrin.h>
#include "../../common/cr_defs.h"

#define VW 8
typedef __m512d vd;
typedef __m512i vl;
typedef __mmask8 vm;

CR_FN vd vd_load_f32(const float *p) { return _mm512_cvtps_pd(_mm256_loadu_ps(p)); }
CR_FN void vd_store_f32(float *p, vd v) { _mm256_storeu_ps(p, _mm512_cvtpd_ps(v)); }
CR_FN vd vd_set(double c) { return _mm512_set1_pd(c); }
CR_FN vl vl_set(int64_t c) { return _mm512_set1_epi64(c); }

CR_FN vd vd_add(vd a, vd b) { return _mm512_add_pd(a, b); }
CR_FN vd vd_sub(vd a, vd b) { return _mm512_sub_pd(a, b); }
CR_FN vd vd_mul(vd a, vd b) { return _mm512_mul_pd(a, b); }
CR_FN vd vd_div(vd a, vd b) { return _mm512_div_pd(a, b); }
CR_FN vd vd_sqrt(vd a) { return _mm512_sqrt_pd(a); }
CR_FN vd vd_fma(vd a, vd b, vd c) { return _mm512_fmadd_pd(a, b, c); }
CR_FN vd vd_abs(vd a) { return _mm512_abs_pd(a); }
CR_FN vd vd_neg(vd a) { return _mm512_xor_pd(_mm512_set1_pd(-0.0), a); }
CR_FN vd vd_rint(vd a) { return _mm512_roundscale_pd(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
CR_FN vd vd_floor(vd a) { return _mm512_roundscale_pd(a, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC); }
CR_FN vd vd_min(vd a, vd b) { return _mm512_min_pd(a, b); }

CR_FN vm vd_lt(vd a, vd b) { return _mm512_cmp_pd_mask(a, b, _CMP_LT_OQ); }
CR_FN vm vd_le(vd a, vd b) { return _mm512_cmp_pd_mask(a, b, _CMP_LE_OQ); }
CR_FN vm vd_gt(vd a, vd b) { return _mm512_cmp_pd_mask(a, b, _CMP_GT_OQ); }
CR_FN vm vd_ge(vd a, vd b) { return _mm512_cmp_pd_mask(a, b, _CMP_GE_OQ); }
CR_FN vm vd_eq(vd a, vd b) { return _mm512_cmp_pd_mask(a, b, _CMP_EQ_OQ); }
CR_FN vm vd_isnan(vd a) { return _mm512_cmp_pd_mask(a, a, _CMP_UNORD_Q); }
CR_FN vm vm_and(vm a, vm b) { return (vm)(a & b); }
CR_FN vm vm_or(vm a, vm b) { return (vm)(a | b); }
CR_FN vm vm_andnot(vm a, vm b) { return (vm)(a & ~b); }
CR_FN vm vm_not(vm a) { return (vm)~a; }
CR_FN vm vm_none(void) { return 0; }
CR_FN unsigned vm_bits(vm m) { return (unsigned)m; }
CR_FN vd vd_select(vm m, vd a, vd b) { return _mm512_mask_blend_pd(m, b, a); }

CR_FN vl vd_as_vl(vd a) { return _mm512_castpd_si512(a); }
CR_FN vd vl_as_vd(vl a) { return _mm512_castsi512_pd(a); }
CR_FN vl vl_add(vl a, vl b) { return _mm512_add_epi64(a, b); }
CR_FN vl vl_sub(vl a, vl b) { return _mm512_sub_epi64(a, b); }
CR_FN vl vl_and(vl a, vl b) { return _mm512_and_si512(a, b); }
CR_FN vl vl_or(vl a, vl b) { return _mm512_or_si512(a, b); }
CR_FN vl vl_xor(vl a, vl b) { return _mm512_xor_si512(a, b); }
CR_FN vl vl_shl(vl a, int n) { return _mm512_slli_epi64(a, (unsigned)n); }
CR_FN vl vl_shr(vl a, int n) { return _mm512_srli_epi64(a, (unsigned)n); }
CR_FN vm vl_eq(vl a, vl b) { return _mm512_cmpeq_epi64_mask(a, b); }
CR_FN vm vl_gt(vl a, vl b) { return _mm512_cmpgt_epi64_mask(a, b); }
CR_FN vd vd_gather(const double *t, vl idx) { return _mm512_i64gather_pd(idx, t, 8); }
/* t[idx & 15] for a 16-entry table (any idx): one two-register permute, which
 * reads only the low 4 bits of each index. */
CR_FN vd vd_lookup16(const double *t, vl idx) {
  return _mm512_permutex2var_pd(_mm512_loadu_pd(t), idx, _mm512_loadu_pd(t + 8));
}

/* Lane k of *a, *b = t[idx_k], t[idx_k + 1]: one 16-byte load per lane, then
 * the pairs (a_k, b_k) split into the two vectors by two permutes. Against two
 * vgatherqpd: erf 1.8x and huge sin/cos 2x faster on AMD Zen 4; on an Intel
 * Xeon erf 0.8x, huge sin/cos 1.2-1.3x (tools/bench_crlibm.py, 2026-11-24). A
 * single gather (vd_gather; exp's table when it had 1024 entries) stays an
 * instruction: loads made exp 1.7x slower on the Xeon and only 8 % faster on
 * Zen 4. */
CR_FN __m256d cr_avx512_two_pairs(const double *p, const double *q) {
  return _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(p)), _mm_loadu_pd(q), 1);
}
CR_FN void vd_gather_pair(const double *t, vl idx, vd *a, vd *b) {
  const __m512i even = _mm512_set_epi64(14, 12, 10, 8, 6, 4, 2, 0);
  const __m512i odd = _mm512_add_epi64(even, _mm512_set1_epi64(1));
  int64_t i[8];
  _mm512_storeu_si512((void *)i, idx);
  const __m512d lo = _mm512_insertf64x4(
      _mm512_castpd256_pd512(cr_avx512_two_pairs(t + i[0], t + i[1])),
      cr_avx512_two_pairs(t + i[2], t + i[3]), 1); /* a0 b0 a1 b1 a2 b2 a3 b3 */
  const __m512d hi = _mm512_insertf64x4(
      _mm512_castpd256_pd512(cr_avx512_two_pairs(t + i[4], t + i[5])),
      cr_avx512_two_pairs(t + i[6], t + i[7]), 1);
  *a = _mm512_permutex2var_pd(lo, even, hi);
  *b = _mm512_permutex2var_pd(lo, odd, hi);
}


/* Lane k of *a, *b = t[2j], t[2j + 1], j = idx_k & 15: the table's two
 * columns split into register pairs (loop-invariant), then two permutes. */
CR_FN void vd_lookup16_pair(const double *t, vl idx, vd *a, vd *b) {
  const __m512i even = _mm512_set_epi64(14, 12, 10, 8, 6, 4, 2, 0);
  const __m512i odd = _mm512_add_epi64(even, _mm512_set1_epi64(1));
  __m512d r0 = _mm512_loadu_pd(t), r1 = _mm512_loadu_pd(t + 8);
  __m512d r2 = _mm512_loadu_pd(t + 16), r3 = _mm512_loadu_pd(t + 24);
  *a = _mm512_permutex2var_pd(_mm512_permutex2var_pd(r0, even, r1), idx,
                              _mm512_permutex2var_pd(r2, even, r3));
  *b = _mm512_permutex2var_pd(_mm512_permutex2var_pd(r0, odd, r1), idx,
                              _mm512_permutex2var_pd(r2, odd, r3));
}

/* out[j] = the entry idx & 15 of value table j, j < n (see avx2.h): one
 * two-register permute per value, from the by-value layout. */
CR_FN void vd_lookup16_n(const double *by_value, const double *by_row, vl idx, int n, vd *out) {
  (void)by_row;
#pragma GCC unroll 16
  for (int j = 0; j < n; ++j) out[j] = vd_lookup16(by_value + 16 * j, idx);
}

/* Float lanes, sixteen per vector (see README.md). */
#define VFW 16
typedef __m512 vf;
typedef __m512i vi;
typedef __mmask16 vmf;

CR_FN vf vf_load(const float *p) { return _mm512_loadu_ps(p); }
CR_FN void vf_store(float *p, vf v) { _mm512_storeu_ps(p, v); }
CR_FN vf vf_set(float c) { return _mm512_set1_ps(c); }
CR_FN vi vi_set(int32_t c) { return _mm512_set1_epi32(c); }
CR_FN vf vf_add(vf a, vf b) { return _mm512_add_ps(a, b); }
CR_FN vf vf_sub(vf a, vf b) { return _mm512_sub_ps(a, b); }
CR_FN vf vf_mul(vf a, vf b) { return _mm512_mul_ps(a, b); }
CR_FN vf vf_fma(vf a, vf b, vf c) { return _mm512_fmadd_ps(a, b, c); }
CR_FN vf vf_div(vf a, vf b) { return _mm512_div_ps(a, b); }
CR_FN vf vf_sqrt(vf a) { return _mm512_sqrt_ps(a); }
CR_FN vf vf_fms(vf a, vf b, vf c) { return _mm512_fmsub_ps(a, b, c); }
CR_FN vmf vf_ne(vf a, vf b) { return _mm512_cmp_ps_mask(a, b, _CMP_NEQ_UQ); }
CR_FN vmf vf_nle(vf a, vf b) { return _mm512_cmp_ps_mask(a, b, _CMP_NLE_UQ); }
CR_FN vmf vf_nge(vf a, vf b) { return _mm512_cmp_ps_mask(a, b, _CMP_NGE_UQ); }
CR_FN vmf vmf_or(vmf a, vmf b) { return (vmf)(a | b); }
CR_FN unsigned vmf_bits(vmf m) { return (unsigned)m; }
CR_FN vi vf_as_vi(vf a) { return _mm512_castps_si512(a); }
CR_FN vf vi_as_vf(vi a) { return _mm512_castsi512_ps(a); }
CR_FN vi vi_add(vi a, vi b) { return _mm512_add_epi32(a, b); }
CR_FN vi vi_sub(vi a, vi b) { return _mm512_sub_epi32(a, b); }
CR_FN vi vi_and(vi a, vi b) { return _mm512_and_si512(a, b); }
CR_FN vi vi_or(vi a, vi b) { return _mm512_or_si512(a, b); }
CR_FN vi vi_xor(vi a, vi b) { return _mm512_xor_si512(a, b); }
CR_FN vi vi_shr(vi a, int n) { return _mm512_srli_epi32(a, (unsigned)n); }
CR_FN vi vi_sra(vi a, int n) { return _mm512_srai_epi32(a, (unsigned)n); }
CR_FN vmf vi_gt(vi a, vi b) { return _mm512_cmpgt_epi32_mask(a, b); }

#endif /* CR_VEC_AVX512_H */
