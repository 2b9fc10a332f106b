/* Four-lane AVX2+FMA instantiation of the lane abstraction (see README.md). */
#ifndef CR_VEC_AVX2_H
#define CR_VEC_AVX2_H

#include <immintrin.h>
#include "../../common/cr_defs.h"

#define VW 4
typedef __m256d vd;
typedef __m256i vl;
typedef __m256d vm; /* all-ones / all-zeros lanes */

CR_FN vd vd_load_f32(const float *p) { return _mm256_cvtps_pd(_mm_loadu_ps(p)); }
CR_FN void vd_store_f32(float *p, vd v) { _mm_storeu_ps(p, _mm256_cvtpd_ps(v)); }
CR_FN vd vd_set(double c) { return _mm256_set1_pd(c); }
CR_FN vl vl_set(int64_t c) { return _mm256_set1_epi64x(c); }

CR_FN vd vd_add(vd a, vd b) { return _mm256_add_pd(a, b); }
CR_FN vd vd_sub(vd a, vd b) { return _mm256_sub_pd(a, b); }
CR_FN vd vd_mul(vd a, vd b) { return _mm256_mul_pd(a, b); }
CR_FN vd vd_div(vd a, vd b) { return _mm256_div_pd(a, b); }
CR_FN vd vd_sqrt(vd a) { return _mm256_sqrt_pd(a); }
CR_FN vd vd_fma(vd a, vd b, vd c) { return _mm256_fmadd_pd(a, b, c); }
CR_FN vd vd_abs(vd a) { return _mm256_andnot_pd(_mm256_set1_pd(-0.0), a); }
CR_FN vd vd_neg(vd a) { return _mm256_xor_pd(_mm256_set1_pd(-0.0), a); }
CR_FN vd vd_rint(vd a) { return _mm256_round_pd(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
CR_FN vd vd_floor(vd a) { return _mm256_round_pd(a, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC); }
CR_FN vd vd_min(vd a, vd b) { return _mm256_min_pd(a, b); }

CR_FN vm vd_lt(vd a, vd b) { return _mm256_cmp_pd(a, b, _CMP_LT_OQ); }
CR_FN vm vd_le(vd a, vd b) { return _mm256_cmp_pd(a, b, _CMP_LE_OQ); }
CR_FN vm vd_gt(vd a, vd b) { return _mm256_cmp_pd(a, b, _CMP_GT_OQ); }
CR_FN vm vd_ge(vd a, vd b) { return _mm256_cmp_pd(a, b, _CMP_GE_OQ); }
CR_FN vm vd_eq(vd a, vd b) { return _mm256_cmp_pd(a, b, _CMP_EQ_OQ); }
CR_FN vm vd_isnan(vd a) { return _mm256_cmp_pd(a, a, _CMP_UNORD_Q); }
CR_FN vm vm_and(vm a, vm b) { return _mm256_and_pd(a, b); }
CR_FN vm vm_or(vm a, vm b) { return _mm256_or_pd(a, b); }
CR_FN vm vm_andnot(vm a, vm b) { return _mm256_andnot_pd(b, a); }
CR_FN vm vm_not(vm a) { return _mm256_xor_pd(a, _mm256_castsi256_pd(_mm256_set1_epi64x(-1))); }
CR_FN vm vm_none(void) { return _mm256_setzero_pd(); }
CR_FN unsigned vm_bits(vm m) { return (unsigned)_mm256_movemask_pd(m); }
CR_FN vd vd_select(vm m, vd a, vd b) { return _mm256_blendv_pd(b, a, m); }

CR_FN vl vd_as_vl(vd a) { return _mm256_castpd_si256(a); }
CR_FN vd vl_as_vd(vl a) { return _mm256_castsi256_pd(a); }
CR_FN vl vl_add(vl a, vl b) { return _mm256_add_epi64(a, b); }
CR_FN vl vl_sub(vl a, vl b) { return _mm256_sub_epi64(a, b); }
CR_FN vl vl_and(vl a, vl b) { return _mm256_and_si256(a, b); }
CR_FN vl vl_or(vl a, vl b) { return _mm256_or_si256(a, b); }
CR_FN vl vl_xor(vl a, vl b) { return _mm256_xor_si256(a, b); }
CR_FN vl vl_shl(vl a, int n) { return _mm256_slli_epi64(a, n); }
CR_FN vl vl_shr(vl a, int n) { return _mm256_srli_epi64(a, n); }
CR_FN vm vl_eq(vl a, vl b) { return _mm256_castsi256_pd(_mm256_cmpeq_epi64(a, b)); }
CR_FN vm vl_gt(vl a, vl b) { return _mm256_castsi256_pd(_mm256_cmpgt_epi64(a, b)); }
/* t[idx] by four scalar loads: vgatherqpd is slow on many CPUs (microcoded on
 * AMD, and the gather (GDS) mitigation on Intel); on the AMD EPYC we measured,
 * four loads and two inserts made exp 1.3x and huge-argument sin 1.5x faster. */
CR_FN vd vd_gather(const double *t, vl idx) {
  __m128i lo = _mm256_castsi256_si128(idx), hi = _mm256_extracti128_si256(idx, 1);
  __m128d a = _mm_loadh_pd(_mm_load_sd(t + _mm_cvtsi128_si64(lo)), t + _mm_extract_epi64(lo, 1));
  __m128d b = _mm_loadh_pd(_mm_load_sd(t + _mm_cvtsi128_si64(hi)), t + _mm_extract_epi64(hi, 1));
  return _mm256_insertf128_pd(_mm256_castpd128_pd256(a), b, 1);
}
/* t[idx & 15] for a 16-entry table (any idx). */
CR_FN vd vd_lookup16(const double *t, vl idx) {
  return vd_gather(t, _mm256_and_si256(idx, _mm256_set1_epi64x(15)));
}

/* Lane k of *a, *b = p_k[0], p_k[1]: four 16-byte loads, two inserts, two unpacks. */
CR_FN void cr_avx2_pairs_at(const double *p0, const double *p1, const double *p2,
                            const double *p3, vd *a, vd *b) {
  __m256d r02 = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(p0)), _mm_loadu_pd(p2), 1);
  __m256d r13 = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(p1)), _mm_loadu_pd(p3), 1);
  *a = _mm256_unpacklo_pd(r02, r13);
  *b = _mm256_unpackhi_pd(r02, r13);
}
/* Lane k of *a, *b = t[idx_k], t[idx_k + 1]: per lane one 16-byte load, two
 * inserts and two unpacks; far cheaper than two gathers (see vd_gather). */
CR_FN void vd_gather_pair(const double *t, vl idx, vd *a, vd *b) {
  __m128i lo = _mm256_castsi256_si128(idx), hi = _mm256_extracti128_si256(idx, 1);
  cr_avx2_pairs_at(t + _mm_cvtsi128_si64(lo), t + _mm_extract_epi64(lo, 1),
                   t + _mm_cvtsi128_si64(hi), t + _mm_extract_epi64(hi, 1), a, b);
}


/* The four 4-bit indices idx_k & 15 in one integer move: bits 8k..8k+3 of the
 * result hold lane k's. Multiplying j < 16 by 2^7 + 2^14 + 2^21 + 2^28 puts
 * bit i of j at bit 8i + 7, the sign bit of byte i of the lane (the other
 * partial products land on distinct bits, so nothing carries), and vpmovmskb
 * collects the byte sign bits. One vector-to-integer move instead of four
 * (vmovq, vpextrq): those moves bounded the throughput of the 16-entry
 * lookups on AMD Zen 3, and this also shortens the lookup's latency. */
CR_FN unsigned cr_avx2_nibbles(vl idx) {
  __m256i j = _mm256_and_si256(idx, _mm256_set1_epi64x(15));
  return (unsigned)_mm256_movemask_epi8(_mm256_mul_epu32(j, _mm256_set1_epi64x(0x10204080)));
}

/* Lane k of *a, *b = t[2j], t[2j + 1], j = idx_k & 15: a 16-row table of
 * pairs, one 16-byte load per lane (as vd_gather_pair) at indices moved
 * to integer registers all at once (cr_avx2_nibbles). */
CR_FN void vd_lookup16_pair(const double *t, vl idx, vd *a, vd *b) {
  unsigned m = cr_avx2_nibbles(idx);
  const double *p0 = t + 2 * (m & 15), *p1 = t + 2 * ((m >> 8) & 15);
  const double *p2 = t + 2 * ((m >> 16) & 15), *p3 = t + 2 * (m >> 24);
  cr_avx2_pairs_at(p0, p1, p2, p3, a, b);
}

/* out[j] = the entry idx_k & 15 of value table j, j < n (n even), for 16-entry
 * tables of n values stored both by value (by_value[16 j + i]) and by row
 * (by_row[n i + j]). Four lanes read their rows a pair of values at a time
 * (cr_avx2_pairs_at: 16-byte loads); per value far cheaper than a 16-entry
 * lookup (AVX2 has no two-register permute of doubles). 32-byte loads and
 * 4 x 4 transposes were slower: erf 1.67-1.71 against 1.62-1.63 ns per
 * element (AMD Zen 4, alternate builds). */
CR_FN void vd_lookup16_n(const double *by_value, const double *by_row, vl idx, int n, vd *out) {
  (void)by_value;
  unsigned m = cr_avx2_nibbles(idx);
  const double *p0 = by_row + n * (m & 15), *p1 = by_row + n * ((m >> 8) & 15);
  const double *p2 = by_row + n * ((m >> 16) & 15), *p3 = by_row + n * (m >> 24);
#pragma GCC unroll 16
  for (int j = 0; j < n; j += 2) cr_avx2_pairs_at(p0 + j, p1 + j, p2 + j, p3 + j, &out[j], &out[j + 1]);
}

/* Float lanes, eight per vector (see README.md). */
#define VFW 8
typedef __m256 vf;
typedef __m256i vi;
typedef __m256 vmf;

CR_FN vf vf_load(const float *p) { return _mm256_loadu_ps(p); }
CR_FN void vf_store(float *p, vf v) { _mm256_storeu_ps(p, v); }
CR_FN vf vf_set(float c) { return _mm256_set1_ps(c); }
CR_FN vi vi_set(int32_t c) { return _mm256_set1_epi32(c); }
CR_FN vf vf_add(vf a, vf b) { return _mm256_add_ps(a, b); }
CR_FN vf vf_sub(vf a, vf b) { return _mm256_sub_ps(a, b); }
CR_FN vf vf_mul(vf a, vf b) { return _mm256_mul_ps(a, b); }
CR_FN vf vf_fma(vf a, vf b, vf c) { return _mm256_fmadd_ps(a, b, c); }
CR_FN vf vf_div(vf a, vf b) { return _mm256_div_ps(a, b); }
CR_FN vf vf_sqrt(vf a) { return _mm256_sqrt_ps(a); }
CR_FN vf vf_fms(vf a, vf b, vf c) { return _mm256_fmsub_ps(a, b, c); }
CR_FN vmf vf_ne(vf a, vf b) { return _mm256_cmp_ps(a, b, _CMP_NEQ_UQ); }
CR_FN vmf vf_nle(vf a, vf b) { return _mm256_cmp_ps(a, b, _CMP_NLE_UQ); }
CR_FN vmf vf_nge(vf a, vf b) { return _mm256_cmp_ps(a, b, _CMP_NGE_UQ); }
CR_FN vmf vmf_or(vmf a, vmf b) { return _mm256_or_ps(a, b); }
CR_FN unsigned vmf_bits(vmf m) { return (unsigned)_mm256_movemask_ps(m); }
CR_FN vi vf_as_vi(vf a) { return _mm256_castps_si256(a); }
CR_FN vf vi_as_vf(vi a) { return _mm256_castsi256_ps(a); }
CR_FN vi vi_add(vi a, vi b) { return _mm256_add_epi32(a, b); }
CR_FN vi vi_sub(vi a, vi b) { return _mm256_sub_epi32(a, b); }
CR_FN vi vi_and(vi a, vi b) { return _mm256_and_si256(a, b); }
CR_FN vi vi_or(vi a, vi b) { return _mm256_or_si256(a, b); }
CR_FN vi vi_xor(vi a, vi b) { return _mm256_xor_si256(a, b); }
CR_FN vi vi_shr(vi a, int n) { return _mm256_srli_epi32(a, n); }
CR_FN vi vi_sra(vi a, int n) { return _mm256_srai_epi32(a, n); }
CR_FN vmf vi_gt(vi a, vi b) { return _mm256_castsi256_ps(_mm256_cmpgt_epi32(a, b)); }

#endif /* CR_VEC_AVX2_H */
