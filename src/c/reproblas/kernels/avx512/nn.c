/* AVX-512 (F, DQ, BW, VL) path of the fused deep-learning kernels (nn_kernels.inc). */
#include "nn_kernels.h"
#if defined(__x86_64__)
#pragma GCC target("avx512f,avx512dq,avx512bw,avx512vl,avx2,fma")
#define RB_ISA_SUFFIX avx512
#include "lanes/avx512.h"

#include "nn_kernels.inc"
#endif
