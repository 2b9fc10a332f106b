/* AVX-512 (F, DQ, BW, VL) path; called only on CPUs that have them. */
#if defined(__x86_64__)
#pragma GCC target("avx512f,avx512dq,avx512bw,avx512vl,avx2,fma")
#define CR_ISA_SUFFIX avx512
#include "lanes/avx512.h"
#include "kernels.inc"
#endif
