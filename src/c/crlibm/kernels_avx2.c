/* AVX2+FMA path. The target pragma lets one set of compiler flags build every
 * path; the dispatcher calls it only on CPUs that have AVX2 and FMA. */
#if defined(__x86_64__)
#pragma GCC target("avx2,fma")
#define CR_ISA_SUFFIX avx2
#include "vec/avx2.h"
#include "kernels.inc"
#endif
