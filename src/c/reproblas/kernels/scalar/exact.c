/* order="exact" kernels, portable path: 16-byte vectors (SSE2 on x86-64). */
#define RB_ISA_SUFFIX scalar
#define RB_XVB 16
#include "kernels/exact.inc"
