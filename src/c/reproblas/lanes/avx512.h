/* AVX-512 (F, DQ) form of the reproblas lane layer (16 floats, 8 doubles); see README.md. */
#ifndef RB_LANES_AVX512_H
#define RB_LANES_AVX512_H

#include <immintrin.h>
#include <math.h>
#include "../../common/cr_defs.h"

#define RB_W32 16
#define RB_W64 8
typedef __m512 v32;
typedef __m512d v64;

CR_FN v32 v32_load(const float *p) { return _mm512_loadu_ps(p); }
CR_FN void v32_store(float *p, v32 a) { _mm512_storeu_ps(p, a); }
CR_FN v32 v32_set1(float c) { return _mm512_set1_ps(c); }
CR_FN v32 v32_add(v32 a, v32 b) { return _mm512_add_ps(a, b); }
CR_FN v32 v32_mul(v32 a, v32 b) { return _mm512_mul_ps(a, b); }
CR_FN v32 v32_fma(v32 a, v32 b, v32 c) { return _mm512_fmadd_ps(a, b, c); }
CR_FN v32 v32_abs(v32 a) { return _mm512_abs_ps(a); }
CR_FN v32 v32_max(v32 a, v32 b) { return _mm512_max_ps(a, b); }
/* Two-source permutes pick the even and the odd elements of (a, b). */
CR_FN v32 v32_pairadd(v32 a, v32 b) {
  const __m512i even = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
  const __m512i odd = _mm512_set_epi32(31, 29, 27, 25, 23, 21, 19, 17, 15, 13, 11, 9, 7, 5, 3, 1);
  return _mm512_add_ps(_mm512_permutex2var_ps(a, even, b), _mm512_permutex2var_ps(a, odd, b));
}
CR_FN float v32_first(v32 a) { return _mm512_cvtss_f32(a); }
CR_FN unsigned v32_nan_bits(v32 a) { return (unsigned)_mm512_cmp_ps_mask(a, a, _CMP_UNORD_Q); }
CR_FN unsigned v32_eq_bits(v32 a, v32 b) { return (unsigned)_mm512_cmp_ps_mask(a, b, _CMP_EQ_OQ); }

CR_FN v64 v64_load(const double *p) { return _mm512_loadu_pd(p); }
CR_FN void v64_store(double *p, v64 a) { _mm512_storeu_pd(p, a); }
CR_FN v64 v64_set1(double c) { return _mm512_set1_pd(c); }
CR_FN v64 v64_add(v64 a, v64 b) { return _mm512_add_pd(a, b); }
CR_FN v64 v64_mul(v64 a, v64 b) { return _mm512_mul_pd(a, b); }
CR_FN v64 v64_fma(v64 a, v64 b, v64 c) { return _mm512_fmadd_pd(a, b, c); }
CR_FN v64 v64_abs(v64 a) { return _mm512_abs_pd(a); }
CR_FN v64 v64_max(v64 a, v64 b) { return _mm512_max_pd(a, b); }
CR_FN v64 v64_pairadd(v64 a, v64 b) {
  const __m512i even = _mm512_set_epi64(14, 12, 10, 8, 6, 4, 2, 0);
  const __m512i odd = _mm512_set_epi64(15, 13, 11, 9, 7, 5, 3, 1);
  return _mm512_add_pd(_mm512_permutex2var_pd(a, even, b), _mm512_permutex2var_pd(a, odd, b));
}
CR_FN double v64_first(v64 a) { return _mm512_cvtsd_f64(a); }
CR_FN unsigned v64_nan_bits(v64 a) { return (unsigned)_mm512_cmp_pd_mask(a, a, _CMP_UNORD_Q); }
CR_FN unsigned v64_eq_bits(v64 a, v64 b) { return (unsigned)_mm512_cmp_pd_mask(a, b, _CMP_EQ_OQ); }

#endif /* RB_LANES_AVX512_H */
