/* Portable path of the sequential trmv / symv kernels (level2/kernels.inc). */
#include "level2_kernels.h"
#define RB_ISA_SUFFIX scalar
#include "lanes/scalar.h"

#include "type_f32.h"
#include "level2/kernels.inc"
#include "type_undef.h"

#include "type_f64.h"
#include "level2/kernels.inc"
#include "type_undef.h"
