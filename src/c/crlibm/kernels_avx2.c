/* AVX2+FMA path. The target pragma lets one set of compiler flags build every
 * path; the dispatcher calls it only on CPUs that have AVX2 and FMA. */
#if defined(__x86_64__)
#pragma GCC target("avx2,fma")
#define CR_ISA_SUFFIX avx2
/* GCC's scheduling pass before register allocation interleaves the vectors
 * of a block: that pays where latency chains outlast the reorder window
 * (log, tanh, erf, sin and cos: measured up to 1.25x on this path) and costs
 * the throughput-bound exp ~4%, which keeps the default. */
#define CR_INTERLEAVE __attribute__((optimize("schedule-insns", "sched-pressure", "fp-contract=off")))
#define CR_KERNEL_ATTR(sched) CR_KERNEL_ATTR_##sched /* the registry's avx2 field */
#define CR_KERNEL_ATTR_default
#define CR_KERNEL_ATTR_interleave CR_INTERLEAVE
#include "lanes/avx2.h"
#include "kernels.inc"
#endif
