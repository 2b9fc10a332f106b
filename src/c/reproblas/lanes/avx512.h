/* AVX-512 (F, DQ) form of the reproblas lane layer (16 floats, 8 doubles); see README.md. */
#ifndef RB_LANES_AVX512_H
#define RB_LANES_AVX512_H

#include <immintrin.h>
#include <math.h>
#include "../../common/cr_defs.h"
#include "x86.h"

#define RB_W32 16
#define RB_W64 8
typedef __m512 v32;
typedef __m512d v64;

CR_FN v32 v32_load(const float *p) { return _mm512_loadu_ps(p); }
CR_FN void v32_store(float *p, v32 a) { _mm512_storeu_ps(p, a); }
CR_FN v32 v32_set1(float c) { return _mm512_set1_ps(c); }
CR_FN v32 v32_add(v32 a, v32 b) { return _mm512_add_ps(a, b); }
CR_FN v32 v32_mul(v32 a, v32 b) { return _mm512_mul_ps(a, b); }
CR_FN v32 v32_sub(v32 a, v32 b) { return _mm512_sub_ps(a, b); }
CR_FN v32 v32_div(v32 a, v32 b) { return _mm512_div_ps(a, b); }
CR_FN v32 v32_fma(v32 a, v32 b, v32 c) { return _mm512_fmadd_ps(a, b, c); }
CR_FN v32 v32_abs(v32 a) { return _mm512_abs_ps(a); }
CR_FN v32 v32_max(v32 a, v32 b) { return _mm512_max_ps(a, b); }
CR_FN v32 v32_min(v32 a, v32 b) { return _mm512_min_ps(a, b); }
CR_FN v32 v32_nonzero_or(v32 a, v32 c) {
  return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(a, _mm512_setzero_ps(), _CMP_EQ_OQ), a, c);
}
/* Two-source permutes pick the even and the odd elements of (a, b). */
CR_FN v32 v32_pairadd(v32 a, v32 b) {
  const __m512i even = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
  const __m512i odd = _mm512_set_epi32(31, 29, 27, 25, 23, 21, 19, 17, 15, 13, 11, 9, 7, 5, 3, 1);
  return _mm512_add_ps(_mm512_permutex2var_ps(a, even, b), _mm512_permutex2var_ps(a, odd, b));
}
CR_FN float v32_first(v32 a) { return _mm512_cvtss_f32(a); }
CR_FN unsigned v32_nan_bits(v32 a) { return (unsigned)_mm512_cmp_ps_mask(a, a, _CMP_UNORD_Q); }
CR_FN unsigned v32_eq_bits(v32 a, v32 b) { return (unsigned)_mm512_cmp_ps_mask(a, b, _CMP_EQ_OQ); }
/* 4x4 transpose of 128-bit blocks: out[L] = (s0.L, s1.L, s2.L, s3.L). */
#define RB_X4_BLOCKS(shuf, s0, s1, s2, s3, o0, o1, o2, o3) do {              \
    __typeof__(s0) lo01 = shuf(s0, s1, 0x44), hi01 = shuf(s0, s1, 0xEE);    \
    __typeof__(s0) lo23 = shuf(s2, s3, 0x44), hi23 = shuf(s2, s3, 0xEE);    \
    o0 = shuf(lo01, lo23, 0x88), o1 = shuf(lo01, lo23, 0xDD);                \
    o2 = shuf(hi01, hi23, 0x88), o3 = shuf(hi01, hi23, 0xDD);                \
  } while (0)
/* r[i] lane j <-> r[j] lane i (16 x 16). Per 128-bit block the unpacks give
 * each group of 4 rows' columns 4L+e (e = 0..3); RB_X4_BLOCKS gathers the
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
    RB_X4_BLOCKS(_mm512_shuffle_f32x4, s[0][e], s[1][e], s[2][e], s[3][e], r[e], r[4 + e], r[8 + e], r[12 + e]);
}

CR_FN v64 v64_load(const double *p) { return _mm512_loadu_pd(p); }
CR_FN void v64_store(double *p, v64 a) { _mm512_storeu_pd(p, a); }
CR_FN v64 v64_set1(double c) { return _mm512_set1_pd(c); }
CR_FN v64 v64_add(v64 a, v64 b) { return _mm512_add_pd(a, b); }
CR_FN v64 v64_mul(v64 a, v64 b) { return _mm512_mul_pd(a, b); }
CR_FN v64 v64_sub(v64 a, v64 b) { return _mm512_sub_pd(a, b); }
CR_FN v64 v64_div(v64 a, v64 b) { return _mm512_div_pd(a, b); }
CR_FN v64 v64_fma(v64 a, v64 b, v64 c) { return _mm512_fmadd_pd(a, b, c); }
CR_FN v64 v64_abs(v64 a) { return _mm512_abs_pd(a); }
CR_FN v64 v64_max(v64 a, v64 b) { return _mm512_max_pd(a, b); }
CR_FN v64 v64_min(v64 a, v64 b) { return _mm512_min_pd(a, b); }
CR_FN v64 v64_nonzero_or(v64 a, v64 c) {
  return _mm512_mask_blend_pd(_mm512_cmp_pd_mask(a, _mm512_setzero_pd(), _CMP_EQ_OQ), a, c);
}
CR_FN v64 v64_pairadd(v64 a, v64 b) {
  const __m512i even = _mm512_set_epi64(14, 12, 10, 8, 6, 4, 2, 0);
  const __m512i odd = _mm512_set_epi64(15, 13, 11, 9, 7, 5, 3, 1);
  return _mm512_add_pd(_mm512_permutex2var_pd(a, even, b), _mm512_permutex2var_pd(a, odd, b));
}
CR_FN double v64_first(v64 a) { return _mm512_cvtsd_f64(a); }
CR_FN unsigned v64_nan_bits(v64 a) { return (unsigned)_mm512_cmp_pd_mask(a, a, _CMP_UNORD_Q); }
CR_FN unsigned v64_eq_bits(v64 a, v64 b) { return (unsigned)_mm512_cmp_pd_mask(a, b, _CMP_EQ_OQ); }
/* 8 x 8: the unpacks give each row pair's columns 2L+e (e = 0, 1) per block. */
CR_FN void v64_transpose(v64 *r) {
  v64 s[4][2];
  _Pragma("GCC unroll 4") for (int g = 0; g < 4; ++g) {
    s[g][0] = _mm512_unpacklo_pd(r[2 * g], r[2 * g + 1]);
    s[g][1] = _mm512_unpackhi_pd(r[2 * g], r[2 * g + 1]);
  }
  _Pragma("GCC unroll 4") for (int e = 0; e < 2; ++e)
    RB_X4_BLOCKS(_mm512_shuffle_f64x2, s[0][e], s[1][e], s[2][e], s[3][e], r[e], r[2 + e], r[4 + e], r[6 + e]);
}

/* Lane i = perfect tree over the lanes of r[i] (16 x 16), as avx2.h's v32
 * tree_rows, in two halves. v32_tree_blocks: two in-block shuffle-add rounds
 * leave, in 128-bit block L of u[q], the sums of terms 4L..4L+3 of rows
 * 4q..4q+3; v32_tree_blocks_join: two block shuffle-add rounds pair blocks
 * (0,1) and (2,3) and leave row r in lane r. 30 shuffles, against 64 for
 * the transpose and lane-wise adds. Apart, they let the gemv row kernel read
 * rows that start one to three blocks into a cache line as whole lines
 * (v32_blocks_shift between the halves). */
#define RB_V32_TREE_BLOCKS 4 /* the vectors u of v32_tree_blocks */
CR_FN void v32_tree_blocks(const v32 *r, v32 *u) {
  v32 s[8];
  _Pragma("GCC unroll 8") for (int p = 0; p < 8; ++p)
    s[p] = RB_PAIR_ROUND(_mm512_add_ps, _mm512_shuffle_ps, r[2 * p], r[2 * p + 1]);
  _Pragma("GCC unroll 4") for (int q = 0; q < 4; ++q)
    u[q] = RB_PAIR_ROUND(_mm512_add_ps, _mm512_shuffle_ps, s[2 * q], s[2 * q + 1]);
}
CR_FN v32 v32_tree_blocks_join(const v32 *u) {
  v32 w[2];
  _Pragma("GCC unroll 2") for (int h = 0; h < 2; ++h)
    w[h] = RB_PAIR_ROUND(_mm512_add_ps, _mm512_shuffle_f32x4, u[2 * h], u[2 * h + 1]);
  return RB_PAIR_ROUND(_mm512_add_ps, _mm512_shuffle_f32x4, w[0], w[1]);
}
CR_FN v32 v32_tree_rows(const v32 *r) {
  v32 u[RB_V32_TREE_BLOCKS];
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
  _Pragma("GCC unroll 4") for (int q = 0; q < RB_V32_TREE_BLOCKS; ++q)
    u[q] = _mm512_permutex2var_ps(u[q], idx, next[q]);
}

/* 8 x 8: one in-block round (block L of s[p]: rows 2p, 2p+1, terms 2L, 2L+1),
 * then two block rounds. 14 shuffles, against 24 for the transpose. */
CR_FN v64 v64_tree_rows(const v64 *r) {
  v64 s[4], w[2];
  _Pragma("GCC unroll 4") for (int p = 0; p < 4; ++p)
    s[p] = _mm512_add_pd(_mm512_unpacklo_pd(r[2 * p], r[2 * p + 1]), _mm512_unpackhi_pd(r[2 * p], r[2 * p + 1]));
  _Pragma("GCC unroll 2") for (int h = 0; h < 2; ++h)
    w[h] = RB_PAIR_ROUND(_mm512_add_pd, _mm512_shuffle_f64x2, s[2 * h], s[2 * h + 1]);
  return RB_PAIR_ROUND(_mm512_add_pd, _mm512_shuffle_f64x2, w[0], w[1]);
}

/* r[i] lane j = a[j * rs + i]: W loads, then the transpose. */
#define RB_LOAD_TRANSPOSED(P, T, LANES)                                          \
  CR_FN void P##_load_transposed(P *r, const T *a, int64_t rs) {                 \
    _Pragma("GCC unroll 16") for (int j = 0; j < LANES; ++j) r[j] = P##_load(a + j * rs); \
    P##_transpose(r);                                                            \
  }
RB_LOAD_TRANSPOSED(v32, float, RB_W32)
RB_LOAD_TRANSPOSED(v64, double, RB_W64)
#undef RB_LOAD_TRANSPOSED

#endif /* RB_LANES_AVX512_H */
