/* order="exact" kernels, AVX2 path (called only on CPUs that have it). */
#if defined(__x86_64__)
#pragma GCC target("avx2,fma")
#define RB_ISA_SUFFIX avx2
#define RB_XVB 32
#include <immintrin.h>
#define RB_XADD1(a, b) ((rb_xvd)_mm256_fmadd_pd((__m256d)(a), _mm256_set1_pd(1.0), (__m256d)(b)))
#define RB_XSUB1(a, b) ((rb_xvd)_mm256_fnmadd_pd((__m256d)(b), _mm256_set1_pd(1.0), (__m256d)(a)))
#define RB_XUMAX(a, b) ((rb_xvu)_mm256_max_epu32((__m256i)(a), (__m256i)(b)))
#include "kernels/exact.inc"
#endif
