/* Sequential segmented-sum kernels, AVX-512 path (called only on CPUs that have it): the
 * AVX2 lanes, since a float vector of 16 lanes would need 16 segments. */
#include "kernels.h"
#if defined(__x86_64__)
#pragma GCC target("avx512f,avx512dq,avx512bw,avx512vl,avx2,fma")
#define RB_ISA_SUFFIX avx512
#include "lanes/avx2.h" /* 256-bit lanes: W <= RB_SEG_LANES (seg_kernels.h) */

#include "type_f32.h"
#include "kernels/seg.inc"
#include "type_undef.h"

#include "type_f64.h"
#include "kernels/seg.inc"
#include "type_undef.h"
#endif
