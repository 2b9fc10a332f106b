/* Portable path of gemm/gemv/ger: one-lane "vectors", libm fma. Tiles are
 * small because the baseline target has 16 scalar FP registers. */
#include "gemm_kernels.h"
#include "level1.h"
#define RB_ISA_SUFFIX scalar
#include "lanes/scalar.h"
#define RB_SEQ_MV 4
#define RB_SEQ_NR 3
#define RB_PW_MV 2
#define RB_PW_NR 2
#define RB_GV_SEQ_MV 8
#define RB_GV_PW_MV 4

#include "type_f32.h"
#include "gemm_engine.inc"
#include "type_undef.h"

#include "type_f64.h"
#include "gemm_engine.inc"
#include "type_undef.h"
