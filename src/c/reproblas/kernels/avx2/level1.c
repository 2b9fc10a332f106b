/* AVX2+FMA path. The target pragma lets one set of compiler flags build every
 * path; the drivers call it only on CPUs that have AVX2 and FMA. */
#include "kernels.h"
#if defined(__x86_64__)
#pragma GCC target("avx2,fma")
#define RB_ISA_SUFFIX avx2
#include "lanes/avx2.h"

#include "type_f32.h"
#include "kernels_l1.inc"
#include "type_undef.h"

#include "type_f64.h"
#include "kernels_l1.inc"
#include "type_undef.h"
#endif
