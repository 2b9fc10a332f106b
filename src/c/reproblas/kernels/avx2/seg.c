/* Sequential segmented-sum kernels, AVX2 path (called only on CPUs that have it). */
#include "kernels.h"
#if defined(__x86_64__)
#pragma GCC target("avx2,fma")
#define RB_ISA_SUFFIX avx2
#include "lanes/avx2.h"

#include "type_f32.h"
#include "kernels/seg.inc"
#include "type_undef.h"

#include "type_f64.h"
#include "kernels/seg.inc"
#include "type_undef.h"
#endif
