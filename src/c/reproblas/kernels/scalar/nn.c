/* Portable path of the fused deep-learning kernels (nn_kernels.inc). */
#define RB_ISA_SUFFIX scalar
#include "lanes/scalar.h"

#include "nn_kernels.inc"
