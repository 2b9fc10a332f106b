/* order="kahan" kernels, AVX-512 path (called only on CPUs that have it). */
#include "kernels.h"
#if defined(__x86_64__)
#pragma GCC target("avx512f,avx512dq,avx512bw,avx512vl,avx2,fma")
#define RB_ISA_SUFFIX avx512
#include "lanes/avx512.h"

#include "type_f32.h"
#include "kernels/kahan.inc"
#include "type_undef.h"

#include "type_f64.h"
#include "kernels/kahan.inc"
#include "type_undef.h"
#endif
