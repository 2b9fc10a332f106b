/* Portable path: plain C, fma()/fmaf() from libm, baseline target. */
#define RB_ISA_SUFFIX scalar
#include "lanes/scalar.h"

#include "type_f32.h"
#include "kernels_l1.inc"
#include "type_undef.h"

#include "type_f64.h"
#include "kernels_l1.inc"
#include "type_undef.h"
