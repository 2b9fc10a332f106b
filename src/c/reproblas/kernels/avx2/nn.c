/* AVX2+FMA path of the fused deep-learning kernels (nn_kernels.inc). */
#include "nn_kernels.h"
#if defined(__x86_64__)
#pragma GCC target("avx2,fma")
#define RB_ISA_SUFFIX avx2
#include "lanes/avx2.h"

#include "nn_kernels.inc"
#endif
