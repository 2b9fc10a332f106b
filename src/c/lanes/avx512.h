/* AVX-512 (F, DQ) form of the lane layer (8 doubles, 16 floats); see README.md. */
#ifndef LANES_AVX512_H
#define LANES_AVX512_H

#include "x86.h"

/* 4x4 transpose of 128-bit blocks: out[L] = (s0.L, s1.L, s2.L, s3.L). */
#define LANES_X4_BLOCKS(shuf, s0, s1, s2, s3, o0, o1, o2, o3) do {           \
    __typeof__(s0) lo01 = shuf(s0, s1, 0x44), hi01 = shuf(s0, s1, 0xEE);    \
    __typeof__(s0) lo23 = shuf(s2, s3, 0x44), hi23 = shuf(s2, s3, 0xEE);    \
    o0 = shuf(lo01, lo23, 0x88), o1 = shuf(lo01, lo23, 0xDD);                \
    o2 = shuf(hi01, hi23, 0x88), o3 = shuf(hi01, hi23, 0xDD);                \
  } while (0)

/* ---- double lanes ---- */
#define V64_W 8
typedef __m512d v64;
typedef __m512i v64i;
typedef __mmask8 v64m;

CR_FN v64 v64_load(const double *p) { return _mm512_loadu_pd(p); }
CR_FN void v64_store(double *p, v64 a) { _mm512_storeu_pd(p, a); }
CR_FN void v64_store_lanes(double *p, unsigned m, v64 a) {
  _mm512_mask_storeu_pd(p, (__mmask8)m, a);
}
CR_FN v64 v64_load_f32(const float *p) { return _mm512_cvtps_pd(_mm256_loadu_ps(p)); }
CR_FN void v64_store_f32(float *p, v64 v) { _mm256_storeu_ps(p, _mm512_cvtpd_ps(v)); }
CR_FN v64 v64_set1(double c) { return _mm512_set1_pd(c); }
CR_FN v64i v64i_set1(int64_t c) { return _mm512_set1_epi64(c); }

CR_FN v64 v64_add(v64 a, v64 b) { return _mm512_add_pd(a, b); }
CR_FN v64 v64_sub(v64 a, v64 b) { return _mm512_sub_pd(a, b); }
CR_FN v64 v64_mul(v64 a, v64 b) { return _mm512_mul_pd(a, b); }
CR_FN v64 v64_div(v64 a, v64 b) { return _mm512_div_pd(a, b); }
CR_FN v64 v64_sqrt(v64 a) { return _mm512_sqrt_pd(a); }
CR_FN v64 v64_fma(v64 a, v64 b, v64 c) { return _mm512_fmadd_pd(a, b, c); }
CR_FN v64 v64_abs(v64 a) { return _mm512_abs_pd(a); }
CR_FN v64 v64_neg(v64 a) { return _mm512_xor_pd(_mm512_set1_pd(-0.0), a); }
CR_FN v64 v64_rint(v64 a) { return _mm512_roundscale_pd(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
CR_FN v64 v64_floor(v64 a) { return _mm512_roundscale_pd(a, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC); }
CR_FN v64 v64_min(v64 a, v64 b) { return _mm512_min_pd(a, b); }
CR_FN v64 v64_max(v64 a, v64 b) { return _mm512_max_pd(a, b); }
CR_FN v64 v64_nonzero_or(v64 a, v64 c) {
  return _mm512_mask_blend_pd(_mm512_cmp_pd_mask(a, _mm512_setzero_pd(), _CMP_EQ_OQ), a, c);
}

CR_FN v64m v64_lt(v64 a, v64 b) { return _mm512_cmp_pd_mask(a, b, _CMP_LT_OQ); }
CR_FN v64m v64_le(v64 a, v64 b) { return _mm512_cmp_pd_mask(a, b, _CMP_LE_OQ); }
CR_FN v64m v64_gt(v64 a, v64 b) { return _mm512_cmp_pd_mask(a, b, _CMP_GT_OQ); }
CR_FN v64m v64_ge(v64 a, v64 b) { return _mm512_cmp_pd_mask(a, b, _CMP_GE_OQ); }
CR_FN v64m v64_eq(v64 a, v64 b) { return _mm512_cmp_pd_mask(a, b, _CMP_EQ_OQ); }
CR_FN v64m v64_isnan(v64 a) { return _mm512_cmp_pd_mask(a, a, _CMP_UNORD_Q); }
CR_FN v64m v64m_and(v64m a, v64m b) { return (v64m)(a & b); }
CR_FN v64m v64m_or(v64m a, v64m b) { return (v64m)(a | b); }
CR_FN v64m v64m_andnot(v64m a, v64m b) { return (v64m)(a & ~b); }
CR_FN v64m v64m_not(v64m a) { return (v64m)~a; }
CR_FN v64m v64m_none(void) { return 0; }
CR_FN unsigned v64m_bits(v64m m) { return (unsigned)m; }
CR_FN v64 v64_select(v64m m, v64 a, v64 b) { return _mm512_mask_blend_pd(m, b, a); }

CR_FN v64i v64_as_v64i(v64 a) { return _mm512_castpd_si512(a); }
CR_FN v64 v64i_as_v64(v64i a) { return _mm512_castsi512_pd(a); }
CR_FN v64i v64i_add(v64i a, v64i b) { return _mm512_add_epi64(a, b); }
CR_FN v64i v64i_sub(v64i a, v64i b) { return _mm512_sub_epi64(a, b); }
CR_FN v64i v64i_and(v64i a, v64i b) { return _mm512_and_si512(a, b); }
CR_FN v64i v64i_or(v64i a, v64i b) { return _mm512_or_si512(a, b); }
CR_FN v64i v64i_xor(v64i a, v64i b) { return _mm512_xor_si512(a, b); }
CR_FN v64i v64i_shl(v64i a, int n) { return _mm512_slli_epi64(a, (unsigned)n); }
CR_FN v64i v64i_shr(v64i a, int n) { return _mm512_srli_epi64(a, (unsigned)n); }
CR_FN v64m v64i_eq(v64i a, v64i b) { return _mm512_cmpeq_epi64_mask(a, b); }
CR_FN v64m v64i_gt(v64i a, v64i b) { return _mm512_cmpgt_epi64_mask(a, b); }

CR_FN v64 v64_gather(const double *t, v64i idx) { return _mm512_i64gather_pd(idx, t, 8); }
/* t[idx & 15] for a 16-entry table (any idx): one two-register permute, which
 * reads only the low 4 bits of each index. */
CR_FN v64 v64_lookup16(const double *t, v64i idx) {
  return _mm512_permutex2var_pd(_mm512_loadu_pd(t), idx, _mm512_loadu_pd(t + 8));
}

/* Lane k of *a, *b = t[idx_k], t[idx_k + 1]: one 16-byte load per lane, then
 * the pairs (a_k, b_k) split into the two vectors by two permutes. Against two
 * vgatherqpd: erf 1.8x and huge sin/cos 2x faster on AMD Zen 4; on an Intel
 * Xeon erf 0.8x, huge sin/cos 1.2-1.3x (tools/bench_crlibm.py). A
 * single gather (v64_gather; exp's table when it had 1024 entries) stays an
 * instruction: loads made exp 1.7x slower on the Xeon and only 8 % faster on
 * Zen 4. */
CR_FN __m256d lanes_avx512_two_pairs(const double *p, const double *q) {
  return _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(p)), _mm_loadu_pd(q), 1);
}
CR_FN void v64_gather_pair(const double *t, v64i idx, v64 *a, v64 *b) {
  const __m512i even = _mm512_set_epi64(14, 12, 10, 8, 6, 4, 2, 0);
  const __m512i odd = _mm512_add_epi64(even, _mm512_set1_epi64(1));
  int64_t i[8];
  _mm512_storeu_si512((void *)i, idx);
  const __m512d lo = _mm512_insertf64x4(
      _mm512_castpd256_pd512(lanes_avx512_two_pairs(t + i[0], t + i[1])),
      lanes_avx512_two_pairs(t + i[2], t + i[3]), 1); /* a0 b0 a1 b1 a2 b2 a3 b3 */
  const __m512d hi = _mm512_insertf64x4(
      _mm512_castpd256_pd512(lanes_avx512_two_pairs(t + i[4], t + i[5])),
      lanes_avx512_two_pairs(t + i[6], t + i[7]), 1);
  *a = _mm512_permutex2var_pd(lo, even, hi);
  *b = _mm512_permutex2var_pd(lo, odd, hi);
}

/* Lane k of *a, *b = t[2j], t[2j + 1], j = idx_k & 15: the table's two
 * columns split into register pairs (loop-invariant), then two permutes. */
CR_FN void v64_lookup16_pair(const double *t, v64i idx, v64 *a, v64 *b) {
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
CR_FN void v64_lookup16_n(const double *by_value, const double *by_row, v64i idx, int n, v64 *out) {
  (void)by_row;
#pragma GCC unroll 16
  for (int j = 0; j < n; ++j) out[j] = v64_lookup16(by_value + 16 * j, idx);
}

CR_FN v64 v64_pairadd(v64 a, v64 b) {
  const __m512i even = _mm512_set_epi64(14, 12, 10, 8, 6, 4, 2, 0);
  const __m512i odd = _mm512_set_epi64(15, 13, 11, 9, 7, 5, 3, 1);
  return _mm512_add_pd(_mm512_permutex2var_pd(a, even, b), _mm512_permutex2var_pd(a, odd, b));
}
/* 8 x 8: one in-block round (block L of s[p]: rows 2p, 2p+1, terms 2L, 2L+1),
 * then two block rounds. 14 shuffles, against 24 for the transpose. */
CR_FN v64 v64_tree_rows(const v64 *r) {
  v64 s[4], w[2];
  _Pragma("GCC unroll 4") for (int p = 0; p < 4; ++p)
    s[p] = _mm512_add_pd(_mm512_unpacklo_pd(r[2 * p], r[2 * p + 1]), _mm512_unpackhi_pd(r[2 * p], r[2 * p + 1]));
  _Pragma("GCC unroll 2") for (int h = 0; h < 2; ++h)
    w[h] = LANES_PAIR_ROUND(_mm512_add_pd, _mm512_shuffle_f64x2, s[2 * h], s[2 * h + 1]);
  return LANES_PAIR_ROUND(_mm512_add_pd, _mm512_shuffle_f64x2, w[0], w[1]);
}
CR_FN double v64_first(v64 a) { return _mm512_cvtsd_f64(a); }
CR_FN unsigned v64_nan_bits(v64 a) { return v64m_bits(v64_isnan(a)); }
CR_FN unsigned v64_eq_bits(v64 a, v64 b) { return v64m_bits(v64_eq(a, b)); }
/* 8 x 8: the unpacks give each row pair's columns 2L+e (e = 0, 1) per block. */
CR_FN void v64_transpose(v64 *r) {
  v64 s[4][2];
  _Pragma("GCC unroll 4") for (int g = 0; g < 4; ++g) {
    s[g][0] = _mm512_unpacklo_pd(r[2 * g], r[2 * g + 1]);
    s[g][1] = _mm512_unpackhi_pd(r[2 * g], r[2 * g + 1]);
  }
  _Pragma("GCC unroll 4") for (int e = 0; e < 2; ++e)
    LANES_X4_BLOCKS(_mm512_shuffle_f64x2, s[0][e], s[1][e], s[2][e], s[3][e], r[e], r[2 + e], r[4 + e], r[6 + e]);
}

/* ---- float lanes ---- */
#define V32_W 16
typedef __m512 v32;
typedef __m512i v32i;
typedef __mmask16 v32m;

CR_FN v32 v32_load(const float *p) { return _mm512_loadu_ps(p); }
CR_FN void v32_store(float *p, v32 a) { _mm512_storeu_ps(p, a); }
CR_FN void v32_store_lanes(float *p, unsigned m, v32 a) {
  _mm512_mask_storeu_ps(p, (__mmask16)m, a);
}
CR_FN v32 v32_set1(float c) { return _mm512_set1_ps(c); }
CR_FN v32i v32i_set1(int32_t c) { return _mm512_set1_epi32(c); }

CR_FN v32 v32_add(v32 a, v32 b) { return _mm512_add_ps(a, b); }
CR_FN v32 v32_sub(v32 a, v32 b) { return _mm512_sub_ps(a, b); }
CR_FN v32 v32_mul(v32 a, v32 b) { return _mm512_mul_ps(a, b); }
CR_FN v32 v32_div(v32 a, v32 b) { return _mm512_div_ps(a, b); }
CR_FN v32 v32_sqrt(v32 a) { return _mm512_sqrt_ps(a); }
CR_FN v32 v32_fma(v32 a, v32 b, v32 c) { return _mm512_fmadd_ps(a, b, c); }
CR_FN v32 v32_fms(v32 a, v32 b, v32 c) { return _mm512_fmsub_ps(a, b, c); }
CR_FN v32 v32_abs(v32 a) { return _mm512_abs_ps(a); }
CR_FN v32 v32_min(v32 a, v32 b) { return _mm512_min_ps(a, b); }
CR_FN v32 v32_max(v32 a, v32 b) { return _mm512_max_ps(a, b); }
CR_FN v32 v32_nonzero_or(v32 a, v32 c) {
  return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(a, _mm512_setzero_ps(), _CMP_EQ_OQ), a, c);
}

CR_FN v32m v32_eq(v32 a, v32 b) { return _mm512_cmp_ps_mask(a, b, _CMP_EQ_OQ); }
CR_FN v32m v32_ne(v32 a, v32 b) { return _mm512_cmp_ps_mask(a, b, _CMP_NEQ_UQ); }
CR_FN v32m v32_nle(v32 a, v32 b) { return _mm512_cmp_ps_mask(a, b, _CMP_NLE_UQ); }
CR_FN v32m v32_nge(v32 a, v32 b) { return _mm512_cmp_ps_mask(a, b, _CMP_NGE_UQ); }
CR_FN v32m v32_isnan(v32 a) { return _mm512_cmp_ps_mask(a, a, _CMP_UNORD_Q); }
CR_FN v32m v32m_or(v32m a, v32m b) { return (v32m)(a | b); }
CR_FN unsigned v32m_bits(v32m m) { return (unsigned)m; }
CR_FN v32m v32m_from_bytes(const unsigned char *p) {
  const __m512i b = _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)p));
  return _mm512_test_epi32_mask(b, b);
}
CR_FN v32 v32_select(v32m m, v32 a, v32 b) { return _mm512_mask_blend_ps(m, b, a); }

CR_FN v32i v32_as_v32i(v32 a) { return _mm512_castps_si512(a); }
CR_FN v32 v32i_as_v32(v32i a) { return _mm512_castsi512_ps(a); }
CR_FN v32i v32i_add(v32i a, v32i b) { return _mm512_add_epi32(a, b); }
CR_FN v32i v32i_sub(v32i a, v32i b) { return _mm512_sub_epi32(a, b); }
CR_FN v32i v32i_and(v32i a, v32i b) { return _mm512_and_si512(a, b); }
CR_FN v32i v32i_or(v32i a, v32i b) { return _mm512_or_si512(a, b); }
CR_FN v32i v32i_xor(v32i a, v32i b) { return _mm512_xor_si512(a, b); }
CR_FN v32i v32i_shr(v32i a, int n) { return _mm512_srli_epi32(a, (unsigned)n); }
CR_FN v32i v32i_sra(v32i a, int n) { return _mm512_srai_epi32(a, (unsigned)n); }
CR_FN v32m v32i_gt(v32i a, v32i b) { return _mm512_cmpgt_epi32_mask(a, b); }

/* Two-source permutes pick the even and the odd elements of (a, b). */
CR_FN v32 v32_pairadd(v32 a, v32 b) {
  const __m512i even = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
  const __m512i odd = _mm512_set_epi32(31, 29, 27, 25, 23, 21, 19, 17, 15, 13, 11, 9, 7, 5, 3, 1);
  return _mm512_add_ps(_mm512_permutex2var_ps(a, even, b), _mm512_permutex2var_ps(a, odd, b));
}
/* Lane i = perfect tree over the lanes of r[i] (16 x 16), as avx2.h's v32
 * tree_rows, in two halves. v32_tree_blocks: two in-block shuffle-add rounds
 * leave, in 128-bit block L of u[q], the sums of terms 4L..4L+3 of rows
 * 4q..4q+3; v32_tree_blocks_join: two block shuffle-add rounds pair blocks
 * (0,1) and (2,3) and leave row r in lane r. 30 shuffles, against 64 for
 * the transpose and lane-wise adds. Apart, they let the gemv row kernel read
 * rows that start one to three blocks into a cache line as whole lines
 * (v32_blocks_shift between the halves). */
#define V32_TREE_BLOCKS 4 /* the vectors u of v32_tree_blocks */
CR_FN void v32_tree_blocks(const v32 *r, v32 *u) {
  v32 s[8];
  _Pragma("GCC unroll 8") for (int p = 0; p < 8; ++p)
    s[p] = LANES_PAIR_ROUND(_mm512_add_ps, _mm512_shuffle_ps, r[2 * p], r[2 * p + 1]);
  _Pragma("GCC unroll 4") for (int q = 0; q < 4; ++q)
    u[q] = LANES_PAIR_ROUND(_mm512_add_ps, _mm512_shuffle_ps, s[2 * q], s[2 * q + 1]);
}
CR_FN v32 v32_tree_blocks_join(const v32 *u) {
  v32 w[2];
  _Pragma("GCC unroll 2") for (int h = 0; h < 2; ++h)
    w[h] = LANES_PAIR_ROUND(_mm512_add_ps, _mm512_shuffle_f32x4, u[2 * h], u[2 * h + 1]);
  return LANES_PAIR_ROUND(_mm512_add_ps, _mm512_shuffle_f32x4, w[0], w[1]);
}
CR_FN v32 v32_tree_rows(const v32 *r) {
  v32 u[V32_TREE_BLOCKS];
  v32_tree_blocks(r, u);
  return v32_tree_blocks_join(u);
}
/* Lane e of each block is row 4q + e of u[q]; v32_blocks_shift takes row
 * 4q + e's blocks o[e]..3 of u[q], then its blocks 0..o[e]-1 of next[q]
 * (0 <= o[e] < 4), by one two-source permute per vector. */
typedef __m512i v32_shift;
CR_FN v32_shift v32_blocks_shift_of(const int *o) {
  int idx[16];
  for (int l = 0; l < 16; ++l) idx[l] = 4 * (l / 4 + o[l % 4]) + l % 4;
  return _mm512_loadu_si512(idx);
}
CR_FN void v32_blocks_shift(v32 *u, const v32 *next, v32_shift idx) {
  _Pragma("GCC unroll 4") for (int q = 0; q < V32_TREE_BLOCKS; ++q)
    u[q] = _mm512_permutex2var_ps(u[q], idx, next[q]);
}
CR_FN float v32_first(v32 a) { return _mm512_cvtss_f32(a); }
CR_FN unsigned v32_nan_bits(v32 a) { return v32m_bits(v32_isnan(a)); }
CR_FN unsigned v32_eq_bits(v32 a, v32 b) { return v32m_bits(v32_eq(a, b)); }
/* r[i] lane j <-> r[j] lane i (16 x 16). Per 128-bit block the unpacks give
 * each group of 4 rows' columns 4L+e (e = 0..3); LANES_X4_BLOCKS gathers the
 * blocks of the 4 groups. */
CR_FN void v32_transpose(v32 *r) {
  v32 s[4][4];
  _Pragma("GCC unroll 4") for (int g = 0; g < 4; ++g) {
    v32 t0 = _mm512_unpacklo_ps(r[4 * g], r[4 * g + 1]), t1 = _mm512_unpackhi_ps(r[4 * g], r[4 * g + 1]);
    v32 t2 = _mm512_unpacklo_ps(r[4 * g + 2], r[4 * g + 3]), t3 = _mm512_unpackhi_ps(r[4 * g + 2], r[4 * g + 3]);
    s[g][0] = _mm512_castpd_ps(_mm512_unpacklo_pd(_mm512_castps_pd(t0), _mm512_castps_pd(t2)));
    s[g][1] = _mm512_castpd_ps(_mm512_unpackhi_pd(_mm512_castps_pd(t0), _mm512_castps_pd(t2)));
    s[g][2] = _mm512_castpd_ps(_mm512_unpacklo_pd(_mm512_castps_pd(t1), _mm512_castps_pd(t3)));
    s[g][3] = _mm512_castpd_ps(_mm512_unpackhi_pd(_mm512_castps_pd(t1), _mm512_castps_pd(t3)));
  }
  _Pragma("GCC unroll 4") for (int e = 0; e < 4; ++e)
    LANES_X4_BLOCKS(_mm512_shuffle_f32x4, s[0][e], s[1][e], s[2][e], s[3][e], r[e], r[4 + e], r[8 + e], r[12 + e]);
}

/* r[i] lane j = a[j * rs + i]: W loads, then the transpose. */
#define LANES_LOAD_TRANSPOSED(P, T, LANES)                                       \
  CR_FN void P##_load_transposed(P *r, const T *a, int64_t rs) {                 \
    _Pragma("GCC unroll 16") for (int j = 0; j < LANES; ++j) r[j] = P##_load(a + j * rs); \
    P##_transpose(r);                                                            \
  }
LANES_LOAD_TRANSPOSED(v32, float, V32_W)
LANES_LOAD_TRANSPOSED(v64, double, V64_W)
#undef LANES_LOAD_TRANSPOSED

#endif /* LANES_AVX512_H */
