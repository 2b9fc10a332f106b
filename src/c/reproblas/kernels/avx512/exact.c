/* order="exact" kernels, AVX-512 path (called only on CPUs that have it). */
#if defined(__x86_64__)
#pragma GCC target("avx512f,avx512dq,avx512bw,avx512vl,avx2,fma")
#define RB_ISA_SUFFIX avx512
#define RB_XVB 64
#include "kernels/exact.inc"
#endif
