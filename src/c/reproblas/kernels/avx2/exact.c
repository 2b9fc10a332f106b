/* order="exact" kernels, AVX2 path (called only on CPUs that have it). */
#if defined(__x86_64__)
#pragma GCC target("avx2,fma")
#define RB_ISA_SUFFIX avx2
#define RB_XVB 32
#include "kernels/exact.inc"
#endif
