/* order="exact" kernels, AVX-512 path (called only on CPUs that have it). */
#if defined(__x86_64__)
#pragma GCC target("avx512f,avx512dq,avx512bw,avx512vl,avx2,fma")
#define RB_ISA_SUFFIX avx512
#define RB_XVB 64
#include "lanes/avx512.h"
/* the lane layer's float max and fma (kernels/exact.inc: xmaxabs, the second level) */
#define RB_XFMAX(a, b) ((rb_xvu)v32_max((v32)(a), (v32)(b)))
#define RB_XADD1(a, b) ((rb_xvd)v64_fma((v64)(a), v64_set1(1.0), (v64)(b)))
#define RB_XSUB1(a, b) ((rb_xvd)v64_fma((v64)(b), v64_set1(-1.0), (v64)(a)))
#include "kernels/exact.inc"
#endif
