/* Level-2/3 per-CPU-path kernel tables (gemm, gemv, ger), BLIS-style.
 *
 * A job describes C[m x n] = alpha * S (+ beta * C) with S_ij the ordered sum
 * over k of op(A)_ik * op(B)_kj (contract §2-§3). Every operand is addressed
 * through element strides (op(A)_ik = a[i*a_rs + k*a_cs], negative allowed),
 * so transposes, C/Fortran order and strided views need no copy: packing
 * reads them in index order. `block` computes the sub-rectangle
 * [i0, i1) x [j0, j1) of C completely (all of k); the driver (level3.c)
 * hands disjoint rectangles to threads, so no element is touched twice.
 */
#ifndef RB_GEMM_KERNELS_H
#define RB_GEMM_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "context.h"

#define RB_DECLARE_L3_TABLE(T, SFX)                                                    \
  typedef struct {                                                                     \
    int64_t m, n, k;                                                                   \
    const T *a;                                                                        \
    int64_t a_rs, a_cs;                                                                \
    const T *b;                                                                        \
    int64_t b_rs, b_cs;                                                                \
    T *c;                                                                              \
    int64_t c_rs, c_cs;                                                                \
    T alpha, beta;                                                                     \
    int beta_zero; /* C is write-only: never read */                                   \
    int order;     /* RB_SEQUENTIAL / RB_PAIRWISE */                                   \
    int uplo;      /* RB_FULL, or the triangle of C written (RB_LOWER / RB_UPPER) */   \
    int64_t mc, nc, kc; /* cache blocks (rounded to the tile by the kernels) */        \
    /* sequential: elements of S a thread keeps (rows x nc, rows a multiple of mc);    \
     * 0: mc rows. More rows: op(B) is packed once for more of them. */                \
    int64_t ws;                                                                        \
    /* other threads run parts of the same call (memory streams are shared) */         \
    int threaded;                                                                      \
  } rb_gemm_job_##SFX;                                                                 \
  typedef struct {                                                                     \
    /* 0, or -1 when its buffers cannot be allocated. */                               \
    /* job: a rb_gemm_job_<SFX> */                                                    \
    int (*block)(const void *job, int64_t i0, int64_t i1, int64_t j0, int64_t j1);      \
    /* a[i*rs + j*cs] = fma(x_i, ay_j, a[...]) for i < m, j < n (x, ay contiguous T). */ \
    void (*ger)(int64_t m, int64_t n, const void *x, const void *ay, void *a, int64_t rs, \
                int64_t cs);                                                           \
    /* Tile shapes (rows x cols of C per micro-kernel call), by order: the driver   \
     * aligns its thread split on them (n == 1 uses the gemv tile, nr = 1). */       \
    int mr[2], nr[2], gemv_mr[2];                                                      \
    /* Solves columns [k0, k1) of a rb_trsm_job_<SFX> in place: 0, or -1 when */     \
    /* its buffers cannot be allocated (trsm_engine.inc). */                          \
    int (*trsm)(const void *job, int64_t k0, int64_t k1);                             \
  } rb_l3_kernels_##SFX;

/* Triangular solve M X = alpha B in place of B (contract §3 trsv/trsm, left side:
 * the driver maps the other cases onto it). M_ij = a[i*a_rs + j*a_cs] is n x n,
 * only its triangle is read (and its diagonal unless unit); B_ik =
 * b[i*b_rs + k*b_cs] is n x nrhs. Row i is solved from the rows j already
 * solved (lower: j < i, top-down; upper: j > i, bottom-up), terms over j
 * ascending. Blocking (lower only, see trsm_engine.inc) never changes a term
 * or its order. */
#define RB_DECLARE_TRSM_JOB(T, SFX)                                                    \
  typedef struct {                                                                     \
    int64_t n, nrhs;                                                                   \
    const T *a;                                                                        \
    int64_t a_rs, a_cs;                                                                \
    T *b;                                                                              \
    int64_t b_rs, b_cs;                                                                \
    T alpha;                                                                           \
    int scale; /* 0: B is used as it is (trsv), 1: alpha * B */                        \
    int lower, unit, order;                                                            \
    int64_t mb; /* rows of a diagonal block, a power of two */                         \
    int64_t nb; /* right-hand sides per packed panel */                                \
    int64_t mc, nc, kc; /* gemm blocks of the updates */                               \
  } rb_trsm_job_##SFX;

RB_DECLARE_TRSM_JOB(float, f32)
RB_DECLARE_TRSM_JOB(double, f64)
RB_DECLARE_L3_TABLE(float, f32)
RB_DECLARE_L3_TABLE(double, f64)

extern const rb_l3_kernels_f32 rb_l3_f32_scalar, rb_l3_f32_avx2, rb_l3_f32_avx512;
extern const rb_l3_kernels_f64 rb_l3_f64_scalar, rb_l3_f64_avx2, rb_l3_f64_avx512;

/* A 64-byte aligned buffer of at least `bytes`, owned by the calling thread
 * and reused by its next calls (pool threads live on, so packing buffers are
 * not re-faulted at every call); NULL when memory runs out. */
void *rb_l3_scratch(size_t bytes);

/* Shared by the level-3 drivers (level3.c): the kernel table of a dtype and
 * path (NULL when the dtype, path or CPU does not fit), the threads worth
 * starting for `work` multiply-adds over `units` split units, and the gemm
 * cache blocks (kc by element size). */
const void *rb_l3_table(int dtype, int isa);
void rb_l3_blocks(const rb_context *cx, int64_t elem_size, int64_t *mc, int64_t *nc,
                  int64_t *kc);

#endif /* RB_GEMM_KERNELS_H */
