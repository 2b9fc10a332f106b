/* AVX2+FMA form of the reproblas lane layer (8 floats, 4 doubles); see README.md. */
#ifndef RB_LANES_AVX2_H
#define RB_LANES_AVX2_H

#include <immintrin.h>
#include <math.h>
#include "../../common/cr_defs.h"
#include "x86.h"

#define RB_W32 8
#define RB_W64 4
typedef __m256 v32;
typedef __m256d v64;

CR_FN v32 v32_load(const float *p) { return _mm256_loadu_ps(p); }
CR_FN void v32_store(float *p, v32 a) { _mm256_storeu_ps(p, a); }
CR_FN v32 v32_set1(float c) { return _mm256_set1_ps(c); }
CR_FN v32 v32_add(v32 a, v32 b) { return _mm256_add_ps(a, b); }
CR_FN v32 v32_mul(v32 a, v32 b) { return _mm256_mul_ps(a, b); }
CR_FN v32 v32_sub(v32 a, v32 b) { return _mm256_sub_ps(a, b); }
CR_FN v32 v32_div(v32 a, v32 b) { return _mm256_div_ps(a, b); }
CR_FN v32 v32_fma(v32 a, v32 b, v32 c) { return _mm256_fmadd_ps(a, b, c); }
CR_FN v32 v32_abs(v32 a) { return _mm256_andnot_ps(_mm256_set1_ps(-0.0f), a); }
CR_FN v32 v32_max(v32 a, v32 b) { return _mm256_max_ps(a, b); }
CR_FN v32 v32_min(v32 a, v32 b) { return _mm256_min_ps(a, b); }
CR_FN v32 v32_nonzero_or(v32 a, v32 c) {
  return _mm256_blendv_ps(a, c, _mm256_cmp_ps(a, _mm256_setzero_ps(), _CMP_EQ_OQ));
}
/* Within each 128-bit half, shuffle_ps gives (a0,a2,b0,b2) and (a1,a3,b1,b3);
 * their sum, with the 64-bit pieces reordered, is the in-order pair sums. */
CR_FN v32 v32_pairadd(v32 a, v32 b) {
  v32 s = RB_PAIR_ROUND(_mm256_add_ps, _mm256_shuffle_ps, a, b);
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
    s[p] = RB_PAIR_ROUND(_mm256_add_ps, _mm256_shuffle_ps, r[2 * p], r[2 * p + 1]);
  _Pragma("GCC unroll 2") for (int q = 0; q < 2; ++q)
    u[q] = RB_PAIR_ROUND(_mm256_add_ps, _mm256_shuffle_ps, s[2 * q], s[2 * q + 1]);
  return _mm256_add_ps(_mm256_permute2f128_ps(u[0], u[1], 0x20), _mm256_permute2f128_ps(u[0], u[1], 0x31));
}
CR_FN float v32_first(v32 a) { return _mm256_cvtss_f32(a); }
CR_FN unsigned v32_nan_bits(v32 a) { return (unsigned)_mm256_movemask_ps(_mm256_cmp_ps(a, a, _CMP_UNORD_Q)); }
CR_FN unsigned v32_eq_bits(v32 a, v32 b) { return (unsigned)_mm256_movemask_ps(_mm256_cmp_ps(a, b, _CMP_EQ_OQ)); }
/* out[e] = lane e of each 128-bit half of in[0..3], i.e. the 4 x 4 transpose
 * inside each half (half h of out[e] = element 4h + e of in[0], ..., in[3]). */
CR_FN void v32_transpose_halves(const v32 *in, v32 *out) {
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
  v32_transpose_halves(r, s[0]);
  v32_transpose_halves(r + 4, s[1]);
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
  v32_transpose_halves(h, r);
  v32_transpose_halves(h + 4, r + 4);
}

CR_FN v64 v64_load(const double *p) { return _mm256_loadu_pd(p); }
CR_FN void v64_store(double *p, v64 a) { _mm256_storeu_pd(p, a); }
CR_FN v64 v64_set1(double c) { return _mm256_set1_pd(c); }
CR_FN v64 v64_add(v64 a, v64 b) { return _mm256_add_pd(a, b); }
CR_FN v64 v64_mul(v64 a, v64 b) { return _mm256_mul_pd(a, b); }
CR_FN v64 v64_sub(v64 a, v64 b) { return _mm256_sub_pd(a, b); }
CR_FN v64 v64_div(v64 a, v64 b) { return _mm256_div_pd(a, b); }
CR_FN v64 v64_fma(v64 a, v64 b, v64 c) { return _mm256_fmadd_pd(a, b, c); }
CR_FN v64 v64_abs(v64 a) { return _mm256_andnot_pd(_mm256_set1_pd(-0.0), a); }
CR_FN v64 v64_max(v64 a, v64 b) { return _mm256_max_pd(a, b); }
CR_FN v64 v64_min(v64 a, v64 b) { return _mm256_min_pd(a, b); }
CR_FN v64 v64_nonzero_or(v64 a, v64 c) {
  return _mm256_blendv_pd(a, c, _mm256_cmp_pd(a, _mm256_setzero_pd(), _CMP_EQ_OQ));
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
CR_FN unsigned v64_nan_bits(v64 a) { return (unsigned)_mm256_movemask_pd(_mm256_cmp_pd(a, a, _CMP_UNORD_Q)); }
CR_FN unsigned v64_eq_bits(v64 a, v64 b) { return (unsigned)_mm256_movemask_pd(_mm256_cmp_pd(a, b, _CMP_EQ_OQ)); }
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

#endif /* RB_LANES_AVX2_H */
