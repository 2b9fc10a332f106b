/* AVX2+FMA path of the sequential trmv / symv kernels (level2/kernels.inc). */
#include "level2_kernels.h"
#if defined(__x86_64__)
#pragma GCC target("avx2,fma")
#define RB_ISA_SUFFIX avx2
#include "lanes/avx2.h"

#include "type_f32.h"
#include "level2/kernels.inc"
#include "type_undef.h"

#include "type_f64.h"
#include "level2/kernels.inc"
#include "type_undef.h"
#endif
