/* Portable path: plain C, fma() from libm. Built for the baseline target, so
 * it runs on any CPU (and is what the CUDA build instantiates). */
#define CR_ISA_SUFFIX scalar
#include "lanes/scalar.h"
#include "kernels.inc"
