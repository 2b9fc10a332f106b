/* AVX-512 path of the sequential trmv / symv kernels (level2/kernels.inc). */
#include "level2_kernels.h"
#if defined(__x86_64__)
#pragma GCC target("avx512f,avx512dq,avx512bw,avx512vl,avx2,fma")
#define RB_ISA_SUFFIX avx512
#include "lanes/avx512.h"

#include "type_f32.h"
#include "level2/kernels.inc"
#include "type_undef.h"

#include "type_f64.h"
#include "level2/kernels.inc"
#include "type_undef.h"
#endif
