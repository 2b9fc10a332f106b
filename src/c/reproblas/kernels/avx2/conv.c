/* AVX2+FMA path of the convolution kernels: 2W rows x 6 columns per register
 * tile, as the gemm micro-kernel; pairwise 2W x 4 (16 registers: the sums and
 * the products in flight). Called only on CPUs with AVX2 and FMA. */
#include "conv_kernels.h"
#include "level1.h"
#if defined(__x86_64__)
#pragma GCC target("avx2,fma")
#define RB_ISA_SUFFIX avx2
#include "lanes/avx2.h"
#define RB_CD_MV 2
#define RB_CP_MV RB_CD_MV
#define RB_CP_NR 4
#define RB_CP_NR2 0
#define RB_CD_NR 6
/* the store's masked stores (lanes where bit i of m is set; the others are
 * not accessed) */
#define RB_CS_MASKED
static inline __m256i conv_lane_mask32(unsigned m) {
  const __m256i bit = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
  return _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32((int)m), bit), bit);
}
static inline void conv_mstore_f32(float *p, unsigned m, __m256 v) {
  _mm256_maskstore_ps(p, conv_lane_mask32(m), v);
}
static inline void conv_mstore_f64(double *p, unsigned m, __m256d v) {
  const __m256i bit = _mm256_setr_epi64x(1, 2, 4, 8);
  _mm256_maskstore_pd(p, _mm256_cmpeq_epi64(_mm256_and_si256(_mm256_set1_epi64x(m), bit), bit),
                      v);
}

#include "type_f32.h"
#include "conv_kernels.inc"
#include "type_undef.h"

#include "type_f64.h"
#include "conv_kernels.inc"
#include "type_undef.h"

const rb_conv_kernels rb_conv_avx2 = {conv_tile_f32, conv_tile_f64, conv_pack_f32,
                                    conv_pack_f64, conv_store_f32, conv_store_f64, RB_CD_MV * V32_W, RB_CD_MV * V64_W,
                                    RB_CD_NR, conv_pw_f32, conv_pw_f64, RB_CP_NR,
                                    RB_CP_NR2, conv_tile1_f32, conv_tile1_f64, conv_pack1_f32,
                                    conv_pack1_f64, V32_W, V64_W};
#endif

