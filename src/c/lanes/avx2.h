/* AVX2+FMA form of the lane layer (4 doubles, 8 floats); see README.md. */
#ifndef LANES_AVX2_H
#define LANES_AVX2_H

#include "x86.h"

/* ---- double lanes ---- */
#define V64_W 4
typedef __m256d v64;
typedef __m256i v64i;
typedef __m256d v64m; /* all-ones / all-zeros lanes */

CR_FN v64 v64_load(const double *p) { return _mm256_loadu_pd(p); }
CR_FN void v64_store(double *p, v64 a) { _mm256_storeu_pd(p, a); }
CR_FN void v64_store_lanes(double *p, unsigned m, v64 a) {
  const __m256i bit = _mm256_setr_epi64x(1, 2, 4, 8);
  _mm256_maskstore_pd(p, _mm256_cmpeq_epi64(_mm256_and_si256(_mm256_set1_epi64x(m), bit), bit), a);
}
CR_FN v64 v64_load_f32(const float *p) { return _mm256_cvtps_pd(_mm_loadu_ps(p)); }
CR_FN void v64_store_f32(float *p, v64 v) { _mm_storeu_ps(p, _mm256_cvtpd_ps(v)); }
CR_FN v64 v64_set1(double c) { return _mm256_set1_pd(c); }
CR_FN v64i v64i_set1(int64_t c) { return _mm256_set1_epi64x(c); }

CR_FN v64 v64_add(v64 a, v64 b) { return _mm256_add_pd(a, b); }
CR_FN v64 v64_sub(v64 a, v64 b) { return _mm256_sub_pd(a, b); }
CR_FN v64 v64_mul(v64 a, v64 b) { return _mm256_mul_pd(a, b); }
CR_FN v64 v64_div(v64 a, v64 b) { return _mm256_div_pd(a, b); }
CR_FN v64 v64_sqrt(v64 a) { return _mm256_sqrt_pd(a); }
CR_FN v64 v64_fma(v64 a, v64 b, v64 c) { return _mm256_fmadd_pd(a, b, c); }
CR_FN v64 v64_abs(v64 a) { return _mm256_andnot_pd(_mm256_set1_pd(-0.0), a); }
CR_FN v64 v64_neg(v64 a) { return _mm256_xor_pd(_mm256_set1_pd(-0.0), a); }
CR_FN v64 v64_rint(v64 a) { return _mm256_round_pd(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
CR_FN v64 v64_floor(v64 a) { return _mm256_round_pd(a, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC); }
CR_FN v64 v64_min(v64 a, v64 b) { return _mm256_min_pd(a, b); }
CR_FN v64 v64_max(v64 a, v64 b) { return _mm256_max_pd(a, b); }
CR_FN v64 v64_nonzero_or(v64 a, v64 c) {
  return _mm256_blendv_pd(a, c, _mm256_cmp_pd(a, _mm256_setzero_pd(), _CMP_EQ_OQ));
}

CR_FN v64m v64_lt(v64 a, v64 b) { return _mm256_cmp_pd(a, b, _CMP_LT_OQ); }
CR_FN v64m v64_le(v64 a, v64 b) { return _mm256_cmp_pd(a, b, _CMP_LE_OQ); }
CR_FN v64m v64_gt(v64 a, v64 b) { return _mm256_cmp_pd(a, b, _CMP_GT_OQ); }
CR_FN v64m v64_ge(v64 a, v64 b) { return _mm256_cmp_pd(a, b, _CMP_GE_OQ); }
CR_FN v64m v64_eq(v64 a, v64 b) { return _mm256_cmp_pd(a, b, _CMP_EQ_OQ); }
CR_FN v64m v64_isnan(v64 a) { return _mm256_cmp_pd(a, a, _CMP_UNORD_Q); }
CR_FN v64m v64m_and(v64m a, v64m b) { return _mm256_and_pd(a, b); }
CR_FN v64m v64m_or(v64m a, v64m b) { return _mm256_or_pd(a, b); }
CR_FN v64m v64m_andnot(v64m a, v64m b) { return _mm256_andnot_pd(b, a); }
CR_FN v64m v64m_not(v64m a) { return _mm256_xor_pd(a, _mm256_castsi256_pd(_mm256_set1_epi64x(-1))); }
CR_FN v64m v64m_none(void) { return _mm256_setzero_pd(); }
CR_FN unsigned v64m_bits(v64m m) { return (unsigned)_mm256_movemask_pd(m); }
CR_FN v64 v64_select(v64m m, v64 a, v64 b) { return _mm256_blendv_pd(b, a, m); }

CR_FN v64i v64_as_v64i(v64 a) { return _mm256_castpd_si256(a); }
CR_FN v64 v64i_as_v64(v64i a) { return _mm256_castsi256_pd(a); }
CR_FN v64i v64i_add(v64i a, v64i b) { return _mm256_add_epi64(a, b); }
CR_FN v64i v64i_sub(v64i a, v64i b) { return _mm256_sub_epi64(a, b); }
CR_FN v64i v64i_and(v64i a, v64i b) { return _mm256_and_si256(a, b); }
CR_FN v64i v64i_or(v64i a, v64i b) { return _mm256_or_si256(a, b); }
CR_FN v64i v64i_xor(v64i a, v64i b) { return _mm256_xor_si256(a, b); }
CR_FN v64i v64i_shl(v64i a, int n) { return _mm256_slli_epi64(a, n); }
CR_FN v64i v64i_shr(v64i a, int n) { return _mm256_srli_epi64(a, n); }
CR_FN v64m v64i_eq(v64i a, v64i b) { return _mm256_castsi256_pd(_mm256_cmpeq_epi64(a, b)); }
CR_FN v64m v64i_gt(v64i a, v64i b) { return _mm256_castsi256_pd(_mm256_cmpgt_epi64(a, b)); }

/* t[idx] by four scalar loads: vgatherqpd is slow on many CPUs (microcoded on
 * AMD, and the gather (GDS) mitigation on Intel); on the AMD EPYC we measured,
 * four loads and two inserts made exp 1.3x and huge-argument sin 1.5x faster. */
CR_FN v64 v64_gather(const double *t, v64i idx) {
  __m128i lo = _mm256_castsi256_si128(idx), hi = _mm256_extracti128_si256(idx, 1);
  __m128d a = _mm_loadh_pd(_mm_load_sd(t + _mm_cvtsi128_si64(lo)), t + _mm_extract_epi64(lo, 1));
  __m128d b = _mm_loadh_pd(_mm_load_sd(t + _mm_cvtsi128_si64(hi)), t + _mm_extract_epi64(hi, 1));
  return _mm256_insertf128_pd(_mm256_castpd128_pd256(a), b, 1);
}
/* t[idx & 15] for a 16-entry table (any idx). */
CR_FN v64 v64_lookup16(const double *t, v64i idx) {
  return v64_gather(t, _mm256_and_si256(idx, _mm256_set1_epi64x(15)));
}

/* Lane k of *a, *b = p_k[0], p_k[1]: four 16-byte loads, two inserts, two unpacks. */
CR_FN void lanes_avx2_pairs_at(const double *p0, const double *p1, const double *p2,
                               const double *p3, v64 *a, v64 *b) {
  __m256d r02 = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(p0)), _mm_loadu_pd(p2), 1);
  __m256d r13 = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(p1)), _mm_loadu_pd(p3), 1);
  *a = _mm256_unpacklo_pd(r02, r13);
  *b = _mm256_unpackhi_pd(r02, r13);
}
/* Lane k of *a, *b = t[idx_k], t[idx_k + 1]: per lane one 16-byte load, two
 * inserts and two unpacks; far cheaper than two gathers (see v64_gather). */
CR_FN void v64_gather_pair(const double *t, v64i idx, v64 *a, v64 *b) {
  __m128i lo = _mm256_castsi256_si128(idx), hi = _mm256_extracti128_si256(idx, 1);
  lanes_avx2_pairs_at(t + _mm_cvtsi128_si64(lo), t + _mm_extract_epi64(lo, 1),
                      t + _mm_cvtsi128_si64(hi), t + _mm_extract_epi64(hi, 1), a, b);
}

/* The four 4-bit indices idx_k & 15 in one integer move: bits 8k..8k+3 of the
 * result hold lane k's. Multiplying j < 16 by 2^7 + 2^14 + 2^21 + 2^28 puts
 * bit i of j at bit 8i + 7, the sign bit of byte i of the lane (the other
 * partial products land on distinct bits, so nothing carries), and vpmovmskb
 * collects the byte sign bits. One vector-to-integer move instead of four
 * (vmovq, vpextrq): those moves bounded the throughput of the 16-entry
 * lookups on AMD Zen 3, and this also shortens the lookup's latency. */
CR_FN unsigned lanes_avx2_nibbles(v64i idx) {
  __m256i j = _mm256_and_si256(idx, _mm256_set1_epi64x(15));
  return (unsigned)_mm256_movemask_epi8(_mm256_mul_epu32(j, _mm256_set1_epi64x(0x10204080)));
}

/* Lane k of *a, *b = t[2j], t[2j + 1], j = idx_k & 15: a 16-row table of
 * pairs, one 16-byte load per lane (as v64_gather_pair) at indices moved
 * to integer registers all at once (lanes_avx2_nibbles). */
CR_FN void v64_lookup16_pair(const double *t, v64i idx, v64 *a, v64 *b) {
  unsigned m = lanes_avx2_nibbles(idx);
  const double *p0 = t + 2 * (m & 15), *p1 = t + 2 * ((m >> 8) & 15);
  const double *p2 = t + 2 * ((m >> 16) & 15), *p3 = t + 2 * (m >> 24);
  lanes_avx2_pairs_at(p0, p1, p2, p3, a, b);
}

/* out[j] = the entry idx_k & 15 of value table j, j < n (n even), for 16-entry
 * tables of n values stored both by value (by_value[16 j + i]) and by row
 * (by_row[n i + j]). Four lanes read their rows a pair of values at a time
 * (lanes_avx2_pairs_at: 16-byte loads); per value far cheaper than a 16-entry
 * lookup (AVX2 has no two-register permute of doubles). 32-byte loads and
 * 4 x 4 transposes were slower: erf 1.67-1.71 against 1.62-1.63 ns per
 * element (AMD Zen 4, alternate builds). */
CR_FN void v64_lookup16_n(const double *by_value, const double *by_row, v64i idx, int n, v64 *out) {
  (void)by_value;
  unsigned m = lanes_avx2_nibbles(idx);
  const double *p0 = by_row + n * (m & 15), *p1 = by_row + n * ((m >> 8) & 15);
  const double *p2 = by_row + n * ((m >> 16) & 15), *p3 = by_row + n * (m >> 24);
#pragma GCC unroll 16
  for (int j = 0; j < n; j += 2) lanes_avx2_pairs_at(p0 + j, p1 + j, p2 + j, p3 + j, &out[j], &out[j + 1]);
}

/* unpacklo/hi give (a0,b0,a2,b2) and (a1,b1,a3,b3); reorder the sums. */
CR_FN v64 v64_pairadd(v64 a, v64 b) {
  v64 s = _mm256_add_pd(_mm256_unpacklo_pd(a, b), _mm256_unpackhi_pd(a, b));
  return _mm256_permute4x64_pd(s, _MM_SHUFFLE(3, 1, 2, 0));
}
/* 4 x 4: (r0 01, r1 01 | r0 23, r1 23), then the 128-bit halves. */
CR_FN v64 v64_tree_rows(const v64 *r) {
  v64 s0 = _mm256_add_pd(_mm256_unpacklo_pd(r[0], r[1]), _mm256_unpackhi_pd(r[0], r[1]));
  v64 s1 = _mm256_add_pd(_mm256_unpacklo_pd(r[2], r[3]), _mm256_unpackhi_pd(r[2], r[3]));
  return _mm256_add_pd(_mm256_permute2f128_pd(s0, s1, 0x20), _mm256_permute2f128_pd(s0, s1, 0x31));
}
CR_FN double v64_first(v64 a) { return _mm256_cvtsd_f64(a); }
CR_FN unsigned v64_nan_bits(v64 a) { return v64m_bits(v64_isnan(a)); }
CR_FN unsigned v64_eq_bits(v64 a, v64 b) { return v64m_bits(v64_eq(a, b)); }
/* 4 x 4. */
CR_FN void v64_transpose(v64 *r) {
  v64 t0 = _mm256_unpacklo_pd(r[0], r[1]), t1 = _mm256_unpackhi_pd(r[0], r[1]);
  v64 t2 = _mm256_unpacklo_pd(r[2], r[3]), t3 = _mm256_unpackhi_pd(r[2], r[3]);
  r[0] = _mm256_permute2f128_pd(t0, t2, 0x20);
  r[1] = _mm256_permute2f128_pd(t1, t3, 0x20);
  r[2] = _mm256_permute2f128_pd(t0, t2, 0x31);
  r[3] = _mm256_permute2f128_pd(t1, t3, 0x31);
}
/* r[i] lane j = a[j * rs + i] (4 x 4), loaded in 128-bit halves as v32_load_transposed. */
CR_FN void v64_load_transposed(v64 *r, const double *a, int64_t rs) {
  v64 h[4];
  _Pragma("GCC unroll 2") for (int j = 0; j < 2; ++j) {
    h[j] = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(a + j * rs)), _mm_loadu_pd(a + (j + 2) * rs), 1);
    h[2 + j] = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(a + j * rs + 2)),
                                    _mm_loadu_pd(a + (j + 2) * rs + 2), 1);
  }
  r[0] = _mm256_unpacklo_pd(h[0], h[1]), r[1] = _mm256_unpackhi_pd(h[0], h[1]);
  r[2] = _mm256_unpacklo_pd(h[2], h[3]), r[3] = _mm256_unpackhi_pd(h[2], h[3]);
}

/* ---- float lanes ---- */
#define V32_W 8
typedef __m256 v32;
typedef __m256i v32i;
typedef __m256 v32m;

CR_FN v32 v32_load(const float *p) { return _mm256_loadu_ps(p); }
CR_FN void v32_store(float *p, v32 a) { _mm256_storeu_ps(p, a); }
CR_FN void v32_store_lanes(float *p, unsigned m, v32 a) {
  const __m256i bit = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
  _mm256_maskstore_ps(p, _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32((int)m), bit), bit), a);
}
CR_FN v32 v32_set1(float c) { return _mm256_set1_ps(c); }
CR_FN v32i v32i_set1(int32_t c) { return _mm256_set1_epi32(c); }

CR_FN v32 v32_add(v32 a, v32 b) { return _mm256_add_ps(a, b); }
CR_FN v32 v32_sub(v32 a, v32 b) { return _mm256_sub_ps(a, b); }
CR_FN v32 v32_mul(v32 a, v32 b) { return _mm256_mul_ps(a, b); }
CR_FN v32 v32_div(v32 a, v32 b) { return _mm256_div_ps(a, b); }
CR_FN v32 v32_sqrt(v32 a) { return _mm256_sqrt_ps(a); }
CR_FN v32 v32_fma(v32 a, v32 b, v32 c) { return _mm256_fmadd_ps(a, b, c); }
CR_FN v32 v32_fms(v32 a, v32 b, v32 c) { return _mm256_fmsub_ps(a, b, c); }
CR_FN v32 v32_abs(v32 a) { return _mm256_andnot_ps(_mm256_set1_ps(-0.0f), a); }
CR_FN v32 v32_min(v32 a, v32 b) { return _mm256_min_ps(a, b); }
CR_FN v32 v32_max(v32 a, v32 b) { return _mm256_max_ps(a, b); }
CR_FN v32 v32_nonzero_or(v32 a, v32 c) {
  return _mm256_blendv_ps(a, c, _mm256_cmp_ps(a, _mm256_setzero_ps(), _CMP_EQ_OQ));
}

CR_FN v32m v32_eq(v32 a, v32 b) { return _mm256_cmp_ps(a, b, _CMP_EQ_OQ); }
CR_FN v32m v32_ne(v32 a, v32 b) { return _mm256_cmp_ps(a, b, _CMP_NEQ_UQ); }
CR_FN v32m v32_nle(v32 a, v32 b) { return _mm256_cmp_ps(a, b, _CMP_NLE_UQ); }
CR_FN v32m v32_nge(v32 a, v32 b) { return _mm256_cmp_ps(a, b, _CMP_NGE_UQ); }
CR_FN v32m v32_isnan(v32 a) { return _mm256_cmp_ps(a, a, _CMP_UNORD_Q); }
CR_FN v32m v32m_or(v32m a, v32m b) { return _mm256_or_ps(a, b); }
CR_FN unsigned v32m_bits(v32m m) { return (unsigned)_mm256_movemask_ps(m); }
CR_FN v32m v32m_from_bytes(const unsigned char *p) {
  const __m256i b = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)p));
  return _mm256_castsi256_ps(_mm256_cmpgt_epi32(b, _mm256_setzero_si256()));
}
CR_FN v32 v32_select(v32m m, v32 a, v32 b) { return _mm256_blendv_ps(b, a, m); }

CR_FN v32i v32_as_v32i(v32 a) { return _mm256_castps_si256(a); }
CR_FN v32 v32i_as_v32(v32i a) { return _mm256_castsi256_ps(a); }
CR_FN v32i v32i_add(v32i a, v32i b) { return _mm256_add_epi32(a, b); }
CR_FN v32i v32i_sub(v32i a, v32i b) { return _mm256_sub_epi32(a, b); }
CR_FN v32i v32i_and(v32i a, v32i b) { return _mm256_and_si256(a, b); }
CR_FN v32i v32i_or(v32i a, v32i b) { return _mm256_or_si256(a, b); }
CR_FN v32i v32i_xor(v32i a, v32i b) { return _mm256_xor_si256(a, b); }
CR_FN v32i v32i_shr(v32i a, int n) { return _mm256_srli_epi32(a, n); }
CR_FN v32i v32i_sra(v32i a, int n) { return _mm256_srai_epi32(a, n); }
CR_FN v32m v32i_gt(v32i a, v32i b) { return _mm256_castsi256_ps(_mm256_cmpgt_epi32(a, b)); }

/* Within each 128-bit half, shuffle_ps gives (a0,a2,b0,b2) and (a1,a3,b1,b3);
 * their sum, with the 64-bit pieces reordered, is the in-order pair sums. */
CR_FN v32 v32_pairadd(v32 a, v32 b) {
  v32 s = LANES_PAIR_ROUND(_mm256_add_ps, _mm256_shuffle_ps, a, b);
  return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(s), _MM_SHUFFLE(3, 1, 2, 0)));
}
/* Lane i = perfect tree over the 8 lanes of r[i] (8 x 8). Two shuffle-add
 * rounds pair adjacent lanes, the sums landing in a fixed lane order that the
 * next round pairs again ((r0 01, r0 23, r1 01, r1 23 | r0 45, ...), then
 * (r0 0-3, r1 0-3, r2 0-3, r3 0-3 | r0 4-7, ...)); the 128-bit halves give
 * the last level. 14 shuffles, against 21 for the same tree by v32_pairadd. */
CR_FN v32 v32_tree_rows(const v32 *r) {
  v32 s[4], u[2];
  _Pragma("GCC unroll 4") for (int p = 0; p < 4; ++p)
    s[p] = LANES_PAIR_ROUND(_mm256_add_ps, _mm256_shuffle_ps, r[2 * p], r[2 * p + 1]);
  _Pragma("GCC unroll 2") for (int q = 0; q < 2; ++q)
    u[q] = LANES_PAIR_ROUND(_mm256_add_ps, _mm256_shuffle_ps, s[2 * q], s[2 * q + 1]);
  return _mm256_add_ps(_mm256_permute2f128_ps(u[0], u[1], 0x20), _mm256_permute2f128_ps(u[0], u[1], 0x31));
}
CR_FN float v32_first(v32 a) { return _mm256_cvtss_f32(a); }
CR_FN unsigned v32_nan_bits(v32 a) { return v32m_bits(v32_isnan(a)); }
CR_FN unsigned v32_eq_bits(v32 a, v32 b) { return v32m_bits(v32_eq(a, b)); }
/* out[e] = lane e of each 128-bit half of in[0..3], i.e. the 4 x 4 transpose
 * inside each half (half h of out[e] = element 4h + e of in[0], ..., in[3]). */
CR_FN void lanes_avx2_transpose_halves(const v32 *in, v32 *out) {
  v32 t0 = _mm256_unpacklo_ps(in[0], in[1]), t1 = _mm256_unpackhi_ps(in[0], in[1]);
  v32 t2 = _mm256_unpacklo_ps(in[2], in[3]), t3 = _mm256_unpackhi_ps(in[2], in[3]);
  out[0] = _mm256_castpd_ps(_mm256_unpacklo_pd(_mm256_castps_pd(t0), _mm256_castps_pd(t2)));
  out[1] = _mm256_castpd_ps(_mm256_unpackhi_pd(_mm256_castps_pd(t0), _mm256_castps_pd(t2)));
  out[2] = _mm256_castpd_ps(_mm256_unpacklo_pd(_mm256_castps_pd(t1), _mm256_castps_pd(t3)));
  out[3] = _mm256_castpd_ps(_mm256_unpackhi_pd(_mm256_castps_pd(t1), _mm256_castps_pd(t3)));
}
/* r[i] lane j <-> r[j] lane i (8 x 8): the in-half transposes give each
 * group of 4 rows' columns 4L+e; permute2f128 joins the two groups' halves. */
CR_FN void v32_transpose(v32 *r) {
  v32 s[2][4];
  lanes_avx2_transpose_halves(r, s[0]);
  lanes_avx2_transpose_halves(r + 4, s[1]);
  _Pragma("GCC unroll 4") for (int e = 0; e < 4; ++e) {
    r[e] = _mm256_permute2f128_ps(s[0][e], s[1][e], 0x20);
    r[4 + e] = _mm256_permute2f128_ps(s[0][e], s[1][e], 0x31);
  }
}
/* r[i] lane j = a[j * rs + i] (8 x 8): the same block as 8 loads and
 * v32_transpose, but loaded in 128-bit halves (rows j and j + 4 side by
 * side), so that only the in-half transposes remain and the lane-crossing
 * permutes become inserts on the load path. */
CR_FN void v32_load_transposed(v32 *r, const float *a, int64_t rs) {
  v32 h[8];
  _Pragma("GCC unroll 4") for (int j = 0; j < 4; ++j) {
    h[j] = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(a + j * rs)), _mm_loadu_ps(a + (j + 4) * rs), 1);
    h[4 + j] = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(a + j * rs + 4)),
                                    _mm_loadu_ps(a + (j + 4) * rs + 4), 1);
  }
  lanes_avx2_transpose_halves(h, r);
  lanes_avx2_transpose_halves(h + 4, r + 4);
}

#endif /* LANES_AVX2_H */
