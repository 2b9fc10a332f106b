/* reproblas kernels, float32 and float64 (entry points for CuPy's
 * RawModule and the host emulation). Bodies: reproblas/level1.cuh and
 * reproblas/gemm.cuh, reproblas/trsm.cuh, reproblas/conv.cuh; launch geometry:
 * reproblas/_cuda.py. */
#include "cuda_prelude.cuh"

#include "reproblas/level1.cuh"
#include "reproblas/gemm.cuh"
#include "reproblas/gemm_seq.cuh"
#include "reproblas/trsm.cuh"
#include "reproblas/conv.cuh"
#include "reproblas/conv_gemm.cuh"
#include "reproblas/scan.cuh"
#include "reproblas/level2.cuh"
#include "reproblas/exact.cuh"
#include "reproblas/kahan.cuh"
#include "reproblas/exact_gemm.cuh"
#include "reproblas/kahan_gemm.cuh"
#include "reproblas/exact_scan.cuh"
#include "reproblas/kahan_scan.cuh"
#include "reproblas/seg_extra.cuh"
#include "reproblas/exact_prod.cuh"

/* Tile shapes (BM, BN, BK, TM, TN), 256 threads each: sequential gemm
 * (rb_gemm_seq_body), pairwise gemm and gemv (rb_gemm_body; gemv is gemm with
 * one column, n = 1, one output per thread). __launch_bounds__(256, 2) caps
 * the registers at 128 so that two blocks share an SM (no spills: ptxas -v). */
#define RB_GEMM_SEQ_F32 128, 128, 16, 8, 8
#define RB_GEMM_SEQ_F64 64, 64, 16, 4, 4
#define RB_GEMM_PW 32, 32, 8, 2, 2
/* float32 conv2d with at most 64 output channels per group (ResNet's early
 * layers): 64 x 128 tiles, 128 threads, so no tile row is empty. */
#define RB_CONV_GEMM_NARROW_F32 64, 128, 16, 8, 8
#define RB_GEMV 256, 1, 16, 1, 1

#define RB_DEFINE_KERNELS(T, sfx, SEQ_TILE)                                                  \
  extern "C" __global__ void rb_sequential_##sfx(int term, const T *x, const T *y, T scale,   \
                                                 long long n, T *out) {                       \
    rb_sequential_body<T>(term, x, y, scale, n, out);                                         \
  }                                                                                            \
  extern "C" __global__ void rb_pairwise_##sfx(int term, const T *x, const T *y, T scale,     \
                                               long long n, long long piece, T *val) {        \
    rb_pairwise_body<T>(term, x, y, scale, n, piece, val);                                    \
  }                                                                                            \
  extern "C" __global__ void rb_join_##sfx(T *val, long long n, long long piece, int do_sqrt, \
                                           T two_e, T *out) {                                 \
    rb_join_body<T>(val, n, piece, do_sqrt, two_e, out);                                      \
  }                                                                                            \
  extern "C" __global__ void rb_max_abs_##sfx(const T *x, long long n, T *block_max,          \
                                              int *has_nan) {                                  \
    rb_max_abs_body<T>(x, n, block_max, has_nan);                                             \
  }                                                                                            \
  extern "C" __global__ void rb_find_first_##sfx(const T *x, long long n, T target,           \
                                                 int want_nan, unsigned long long *first) {    \
    rb_find_first_body<T>(x, n, target, want_nan, first);                                     \
  }                                                                                            \
  extern "C" __global__ void rb_axpy_##sfx(T alpha, const T *x, T *y, long long n) {          \
    rb_axpy_body<T>(alpha, x, y, n);                                                          \
  }                                                                                            \
  extern "C" __global__ void rb_scal_##sfx(T alpha, T *x, long long n) {                      \
    rb_scal_body<T>(alpha, x, n);                                                             \
  }                                                                                            \
  extern "C" __global__ void rb_ger_##sfx(long long m, long long n, T alpha, const T *x,      \
                                          const T *y, T *a, long long rs, long long cs) {      \
    rb_ger_body<T>(m, n, alpha, x, y, a, rs, cs);                                             \
  }                                                                                            \
  RB_DEFINE_GEMM(T, gemm_seq_##sfx, rb_gemm_seq_body, SEQ_TILE)                              \
  RB_DEFINE_GEMM(T, gemm_pw_##sfx, rb_gemm_body, RB_GEMM_PW, true)                            \
  RB_DEFINE_GEMM(T, gemv_seq_##sfx, rb_gemm_body, RB_GEMV, false)                             \
  RB_DEFINE_GEMM(T, gemv_pw_##sfx, rb_gemm_body, RB_GEMV, true)                             \
  extern "C" __global__ void __launch_bounds__(256, 2)                                       \
      rb_conv2d_gemm_##sfx(const long long *geo, const long long *tab, const T *x,           \
                           const T *w, T beta, T *y) {                                         \
    rb_conv2d_gemm_body<T, SEQ_TILE>(geo, tab, x, w, beta, y);                                \
  }

#define RB_DEFINE_GEMM(T, name, body, ...)                                                  \
  extern "C" __global__ void __launch_bounds__(256, 2)                                       \
      rb_##name(long long m, long long n, long long k, T alpha,                                \
                                       const T *a, long long a_rs, long long a_cs,             \
                                       const T *b, long long b_rs, long long b_cs, T beta,     \
                                       T *c, long long c_rs, long long c_cs, int uplo) {       \
    body<T, __VA_ARGS__>(m, n, k, alpha, a, a_rs, a_cs, b, b_rs, b_cs, beta, c, c_rs, c_cs,      \
                         uplo);                                                                \
  }

/* trsv / trsm and the convolutions, 256 threads per block; kind: seq / pw.
 * RB_CONV_TK: output channels per thread (reproblas/_cuda.py CONV_CHANNELS). */
#define RB_CONV_TK 8
#define RB_DEFINE_SOLVE_CONV(T, sfx, kind, PW)                                                \
  extern "C" __global__ void rb_trsm_##kind##_##sfx(                                          \
      long long n, long long nrhs, T alpha, int scale, int lower, int unit, const T *m,        \
      long long m_rs, long long m_cs, T *x, long long x_rs, long long x_cs, long long r0,      \
      long long r1, const T *carry, int carry_count, long long carry_stride) {                  \
    rb_trsm_body<T, 256, PW>(n, nrhs, alpha, scale, lower, unit, m, m_rs, m_cs, x, x_rs, x_cs, \
                             r0, r1, carry, carry_count, carry_stride);                         \
  }                                                                                            \
  extern "C" __global__ void rb_conv2d_##kind##_##sfx(const long long *geo, const T *x,       \
                                                      const T *w, const T *bias, int has_bias, \
                                                      T *y) {                                  \
    rb_conv2d_body<T, 256, RB_CONV_TK, PW>(geo, x, w, bias, has_bias, y);                     \
  }                                                                                            \
  extern "C" __global__ void rb_conv2d_grad_input_##kind##_##sfx(const long long *geo,        \
                                                                 const T *gy, const T *w,      \
                                                                 T *gx) {                      \
    rb_conv2d_grad_input_body<T, 256, RB_CONV_TK, PW>(geo, gy, w, gx);                        \
  }                                                                                            \
  extern "C" __global__ void rb_conv2d_grad_weight_##kind##_##sfx(const long long *geo,       \
                                                                  const T *x, const T *gy,     \
                                                                  T *gw) {                     \
    rb_conv2d_grad_weight_body<T, 256, RB_CONV_TK, PW>(geo, x, gy, gw);                       \
  }

/* order="exact": reproblas/exact.cuh */
#define RB_DEFINE_EXACT(T, sfx)                                                              \
  extern "C" __global__ void rb_exact_part_##sfx(int term, const T *x, const T *y,          \
                                                 long long n, long long *limbs, int *flags) { \
    rb_exact_part_body<T>(term, x, y, n, limbs, flags);                                       \
  }                                                                                            \
  extern "C" __global__ void rb_exact_join_##sfx(int term, long long rows,                   \
                                                 const long long *limbs, const int *flags,     \
                                                 long long n, T *out) {                        \
    rb_exact_join_body<T>(term, rows, limbs, flags, n, out);                                  \
  }
RB_DEFINE_EXACT(float, f32)
RB_DEFINE_EXACT(double, f64)
/* order="kahan": reproblas/kahan.cuh */
#define RB_DEFINE_KAHAN(T, sfx)                                                              \
  extern "C" __global__ void rb_kahan_chunks_##sfx(int term, const T *x, const T *y, T scale, \
                                                   long long n, T *s, T *c) {                  \
    rb_kahan_chunks_body<T>(term, x, y, scale, n, s, c);                                      \
  }                                                                                            \
  extern "C" __global__ void rb_kahan_join_##sfx(const T *s, const T *c, long long chunks,    \
                                                 T *out) {                                     \
    rb_kahan_join_body<T>(s, c, chunks, out);                                                 \
  }
RB_DEFINE_KAHAN(float, f32)
RB_DEFINE_KAHAN(double, f64)
/* gemv / gemm in order="exact" and "kahan" (reproblas/exact_gemm.cuh, kahan_gemm.cuh), and
 * cumsum in order="exact" (reproblas/exact_scan.cuh) */
#define RB_DEFINE_EXTRA(T, sfx)                                                               \
  extern "C" __global__ void rb_gemm_exact_##sfx(                                              \
      long long m, long long n, long long k, T alpha, const T *a, long long a_rs,              \
      long long a_cs, const T *b, long long b_rs, long long b_cs, T beta, T *c, long long c_rs, \
      long long c_cs, int group) {                                                             \
    rb_exact_gemm_body<T>(m, n, k, alpha, a, a_rs, a_cs, b, b_rs, b_cs, beta, c, c_rs, c_cs,   \
                          group);                                                              \
  }                                                                                            \
  extern "C" __global__ void rb_gemm_kahan_##sfx(                                              \
      long long m, long long n, long long k, T alpha, const T *a, long long a_rs,              \
      long long a_cs, const T *b, long long b_rs, long long b_cs, T beta, T *c, long long c_rs, \
      long long c_cs) {                                                                        \
    rb_kahan_gemm_body<T>(m, n, k, alpha, a, a_rs, a_cs, b, b_rs, b_cs, beta, c, c_rs, c_cs);  \
  }                                                                                            \
  extern "C" __global__ void rb_gemm_kahan_chunks_##sfx(                                       \
      long long m, long long n, long long k, const T *a, long long a_rs, long long a_cs,        \
      const T *b, long long b_rs, long long b_cs, T *ps, T *pc) {                               \
    rb_kahan_gemm_chunks_body<T>(m, n, k, a, a_rs, a_cs, b, b_rs, b_cs, ps, pc);              \
  }                                                                                            \
  extern "C" __global__ void rb_gemm_kahan_join_##sfx(                                         \
      long long m, long long n, long long k, T alpha, const T *a, long long a_rs,              \
      long long a_cs, const T *b, long long b_rs, long long b_cs, T beta, T *c, long long c_rs, \
      long long c_cs, const T *ps, const T *pc) {                                              \
    rb_kahan_gemm_join_body<T>(m, n, k, alpha, a, a_rs, a_cs, b, b_rs, b_cs, beta, c, c_rs,    \
                               c_cs, ps, pc);                                                  \
  }                                                                                            \
  extern "C" __global__ void rb_exact_scan_pieces_##sfx(int phase, int exclusive, const T *x,  \
                                                        long long rows, long long n,           \
                                                        long long piece, long long *acc,       \
                                                        T *out) {                              \
    rb_exact_scan_pieces_body<T>(phase, exclusive, x, rows, n, piece, acc, out);              \
  }                                                                                            \
  extern "C" __global__ void rb_exact_scan_starts_##sfx(long long rows, long long per_row,     \
                                                        long long *acc) {                      \
    rb_exact_scan_starts_body<T>(rows, per_row, acc);                                         \
  }
RB_DEFINE_EXTRA(float, f32)
RB_DEFINE_EXTRA(double, f64)
#define RB_EXTRA_LIST(X, sfx)                                                                 \
  X(rb_gemm_exact_##sfx) X(rb_gemm_kahan_##sfx) X(rb_gemm_kahan_chunks_##sfx)                \
  X(rb_gemm_kahan_join_##sfx) X(rb_exact_scan_pieces_##sfx) X(rb_exact_scan_starts_##sfx)
/* the scans and segmented routines in the orders kahan and exact, cumprod exact:
 * reproblas/kahan_scan.cuh, reproblas/seg_extra.cuh, reproblas/exact_prod.cuh */
RB_DEFINE_KSCAN_KERNELS(float, f32)
RB_DEFINE_KSCAN_KERNELS(double, f64)
RB_DEFINE_SEG_EXTRA_KERNELS(float, f32)
RB_DEFINE_SEG_EXTRA_KERNELS(double, f64)
RB_DEFINE_XCUMPROD_KERNELS(float, f32)
RB_DEFINE_XCUMPROD_KERNELS(double, f64)
RB_DEFINE_XPROD_STARTS

RB_DEFINE_KERNELS(float, f32, RB_GEMM_SEQ_F32)
extern "C" __global__ void __launch_bounds__(128, 3)
    rb_conv2d_gemm_narrow_f32(const long long *geo, const long long *tab, const float *x,
                              const float *w, float beta, float *y) {
  rb_conv2d_gemm_body<float, RB_CONV_GEMM_NARROW_F32>(geo, tab, x, w, beta, y);
}
RB_DEFINE_KERNELS(double, f64, RB_GEMM_SEQ_F64)
RB_DEFINE_SOLVE_CONV(float, f32, seq, false)
RB_DEFINE_SOLVE_CONV(float, f32, pw, true)
RB_DEFINE_SOLVE_CONV(double, f64, seq, false)
RB_DEFINE_SOLVE_CONV(double, f64, pw, true)
RB_DEFINE_SCAN_KERNELS(float, f32)
RB_DEFINE_SCAN_KERNELS(double, f64)
/* level 2 on symmetric, triangular, band, packed matrices (reproblas/level2.cuh) */
RB_DEFINE_LEVEL2(float, f32, seq, false)
RB_DEFINE_LEVEL2(float, f32, pw, true)
RB_DEFINE_LEVEL2(double, f64, seq, false)
RB_DEFINE_LEVEL2(double, f64, pw, true)
RB_DEFINE_LEVEL2_RANK(float, f32)
RB_DEFINE_LEVEL2_RANK(double, f64)

/* Every entry point, for the emulator's registry: X(name). */
#define RB_KERNEL_LIST_T(X, sfx)                                                             \
  X(rb_sequential_##sfx) X(rb_pairwise_##sfx) X(rb_join_##sfx) X(rb_max_abs_##sfx)          \
  X(rb_find_first_##sfx) X(rb_axpy_##sfx) X(rb_scal_##sfx) X(rb_ger_##sfx)                   \
  X(rb_gemm_seq_##sfx) X(rb_gemm_pw_##sfx) X(rb_gemv_seq_##sfx) X(rb_gemv_pw_##sfx)       \
  X(rb_conv2d_gemm_##sfx) X(rb_exact_part_##sfx) X(rb_exact_join_##sfx)                    \
  X(rb_kahan_chunks_##sfx) X(rb_kahan_join_##sfx)                                            \
  RB_SOLVE_CONV_LIST(X, sfx, seq) RB_SOLVE_CONV_LIST(X, sfx, pw)
#define RB_SOLVE_CONV_LIST(X, sfx, kind)                                                    \
  X(rb_trsm_##kind##_##sfx) X(rb_conv2d_##kind##_##sfx) X(rb_conv2d_grad_input_##kind##_##sfx) \
  X(rb_conv2d_grad_weight_##kind##_##sfx)
#define RB_KERNEL_LIST(X)                                                                   \
  RB_KERNEL_LIST_T(X, f32) RB_KERNEL_LIST_T(X, f64) X(rb_conv2d_gemm_narrow_f32)          \
  RB_SCAN_KERNEL_LIST(X) RB_LEVEL2_LIST(X, f32) RB_LEVEL2_LIST(X, f64)                     \
  RB_EXTRA_LIST(X, f32) RB_EXTRA_LIST(X, f64) RB_KSCAN_KERNEL_LIST(X)                       \
  RB_SEG_EXTRA_KERNEL_LIST(X) RB_XCUMPROD_KERNEL_LIST(X)
