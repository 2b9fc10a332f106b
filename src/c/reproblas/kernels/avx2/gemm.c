/* AVX2+FMA path of gemm/gemv/ger (16 vector registers): sequential tile
 * 2W x 6 (12 accumulators), pairwise W x 8 (8 running quad sums; one A
 * vector per broadcast keeps the loads, the bottleneck of the separate
 * multiply and add, at one per product; measured on AMD EPYC (Zen), where
 * 2W x 2 ran at 0.4x OpenBLAS and W x 8 at 0.5-0.55x). Called only on CPUs
 * with AVX2 and FMA. */
#include "gemm_kernels.h"
#include "level1.h"
#if defined(__x86_64__)
#pragma GCC target("avx2,fma")
#define RB_ISA_SUFFIX avx2
#include "lanes/avx2.h"
#define RB_SEQ_MV 2
#define RB_SEQ_NR 6
#define RB_PW_MV 1
#define RB_PW_NR 8
#define RB_GV_SEQ_MV 8
#define RB_GV_PW_MV 4

#include "type_f32.h"
#include "gemm_engine.inc"
#include "type_undef.h"

#include "type_f64.h"
#include "gemm_engine.inc"
#include "type_undef.h"
#endif
