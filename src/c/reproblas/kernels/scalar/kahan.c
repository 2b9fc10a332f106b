/* order="kahan" kernels, portable path. */
#include "kernels.h"
#define RB_ISA_SUFFIX scalar
#include "lanes/scalar.h"

#include "type_f32.h"
#include "kernels/kahan.inc"
#include "type_undef.h"

#include "type_f64.h"
#include "kernels/kahan.inc"
#include "type_undef.h"
