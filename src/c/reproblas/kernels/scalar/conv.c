/* Portable path of the convolution kernels (one-lane vectors, libm fma);
 * pairwise tiles of 4 rows x 2 columns. */
#include "conv_kernels.h"
#include "level1.h"
#define RB_ISA_SUFFIX scalar
#include "lanes/scalar.h"
#define RB_CD_MV 4
#define RB_CP_MV RB_CD_MV
#define RB_CP_NR 2
#define RB_CP_NR2 0
#define RB_CD_NR 3

#include "type_f32.h"
#include "conv_kernels.inc"
#include "type_undef.h"

#include "type_f64.h"
#include "conv_kernels.inc"
#include "type_undef.h"

const rb_conv_kernels rb_conv_scalar = {conv_tile_f32, conv_tile_f64, conv_pack_f32,
                                    conv_pack_f64, conv_store_f32, conv_store_f64, RB_CD_MV * V32_W, RB_CD_MV * V64_W,
                                    RB_CD_NR, conv_pw_f32, conv_pw_f64, RB_CP_NR,
                                    RB_CP_NR2, conv_tile1_f32, conv_tile1_f64, conv_pack1_f32,
                                    conv_pack1_f64, V32_W, V64_W};

