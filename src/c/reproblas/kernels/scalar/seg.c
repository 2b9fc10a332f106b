/* Sequential segmented-sum kernels, portable path. */
#include "kernels.h"
#define RB_ISA_SUFFIX scalar
#include "lanes/scalar.h"

#include "type_f32.h"
#include "kernels/seg.inc"
#include "type_undef.h"

#include "type_f64.h"
#include "kernels/seg.inc"
#include "type_undef.h"
