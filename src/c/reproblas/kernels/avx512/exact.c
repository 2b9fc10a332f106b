/* order="exact" kernels, AVX-512 path (called only on CPUs that have it). */
#if defined(__x86_64__)
#pragma GCC target("avx512f,avx512dq,avx512bw,avx512vl,avx2,fma")
#define RB_ISA_SUFFIX avx512
#define RB_XVB 64
#include <immintrin.h>
#define RB_XADD1(a, b) ((rb_xvd)_mm512_fmadd_pd((__m512d)(a), _mm512_set1_pd(1.0), (__m512d)(b)))
#define RB_XSUB1(a, b) ((rb_xvd)_mm512_fnmadd_pd((__m512d)(b), _mm512_set1_pd(1.0), (__m512d)(a)))
#define RB_XUMAX(a, b) ((rb_xvu)_mm512_max_epu32((__m512i)(a), (__m512i)(b)))
#include "kernels/exact.inc"
#endif
