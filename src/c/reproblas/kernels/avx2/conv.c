/* AVX2+FMA path of the convolution kernels: 2W rows x 6 columns per register
 * tile, as the gemm micro-kernel; pairwise 2W x 4 (16 registers: the sums and
 * the products in flight). Called only on CPUs with AVX2 and FMA. */
#include "conv_kernels.h"
#include "level1.h"
#if defined(__x86_64__)
#pragma GCC target("avx2,fma")
#define RB_ISA_SUFFIX avx2
#include "lanes/avx2.h"
#define RB_CD_MV 2
#define RB_CP_MV RB_CD_MV
#define RB_CP_NR 4
#define RB_CP_NR2 0
#define RB_CD_NR 6
/* the store's masked runs (conv_kernels.inc) */
#define RB_CS_MASKED
#define conv_mstore_f32 v32_store_lanes
#define conv_mstore_f64 v64_store_lanes

#include "type_f32.h"
#include "conv_kernels.inc"
#include "type_undef.h"

#include "type_f64.h"
#include "conv_kernels.inc"
#include "type_undef.h"

const rb_conv_kernels rb_conv_avx2 = {conv_tile_f32, conv_tile_f64, conv_pack_f32,
                                    conv_pack_f64, conv_store_f32, conv_store_f64, RB_CD_MV * V32_W, RB_CD_MV * V64_W,
                                    RB_CD_NR, conv_pw_f32, conv_pw_f64, RB_CP_NR,
                                    RB_CP_NR2, conv_tile1_f32, conv_tile1_f64, conv_pack1_f32,
                                    conv_pack1_f64, V32_W, V64_W};
#endif

