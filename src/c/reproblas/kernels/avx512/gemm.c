/* AVX-512 path of gemm/gemv/ger (32 vector registers): sequential tile
 * 2W x 12 (24 accumulators), pairwise 2W x 4. Called only on CPUs with
 * AVX-512 F/DQ/BW/VL. */
#include "gemm_kernels.h"
#include "level1.h"
#if defined(__x86_64__)
#pragma GCC target("avx512f,avx512dq,avx512bw,avx512vl,avx2,fma")
#define RB_ISA_SUFFIX avx512
#include "lanes/avx512.h"
#define RB_SEQ_MV 2
#define RB_SEQ_NR 12
#define RB_PW_MV 2
#define RB_PW_NR 4
#define RB_GV_SEQ_MV 8
#define RB_GV_PW_MV 4

#include "type_f32.h"
#include "gemm_engine.inc"
#include "type_undef.h"

#include "type_f64.h"
#include "gemm_engine.inc"
#include "type_undef.h"
#endif
