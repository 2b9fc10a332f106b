/* Level-2/3 per-CPU-path kernel tables (gemm, gemv, ger), BLIS-style.
 *
 * A job describes C[m x n] = alpha * S (+ beta * C) with S_ij the ordered sum
 * over k of op(A)_ik * op(B)_kj (contract §2-§3). Every operand is addressed
 * through element strides (op(A)_ik = a[i*a_rs + k*a_cs], negative allowed),
 * so transposes, C/Fortran order and strided views need no copy: packing
 * reads them in index order. rb_gemm_block_<SFX> computes the sub-rectangle
 * [i0, i1) x [j0, j1) of C completely (all of k); the driver (level3.c)
 * hands disjoint rectangles to threads, so no element is touched twice.
 * The block walk (blocking, packing of op(B), the pairwise joins) is the
 * frame's, once per dtype; what depends on the vector width is in the
 * per-path table: micro-kernels, packing of op(A), writing C, gemv, ger, trsm.
 */
#ifndef RB_GEMM_KERNELS_H
#define RB_GEMM_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "context.h"
#include "terms.h"

#define RB_DECLARE_L3_TABLE(T, SFX)                                                    \
  typedef struct rb_l3_kernels_##SFX rb_l3_kernels_##SFX;                              \
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
    /* Structured operands (read by the frame's own packing, never by the      \
     * path's pack_a or gemv): a_sym / b_sym RB_LOWER or RB_UPPER: op(A) / op(B) \
     * is symmetric and only that triangle of it is read (symm); a2, b2 not     \
     * NULL: term 2k' + 1 is op(A2)_ik' op(B2)_k'j after term 2k' =             \
     * op(A)_ik' op(B)_k'j (syr2k; k counts both). 0 / NULL: plain gemm. */    \
    int a_sym, b_sym;                                                                  \
    const T *a2;                                                                       \
    int64_t a2_rs, a2_cs;                                                              \
    const T *b2;                                                                       \
    int64_t b2_rs, b2_cs;                                                              \
    /* a_tri RB_LOWER / RB_UPPER (sequential): op(A) is triangular (trmm), its      \
     * terms outside that triangle are absent; a_unit: its diagonal is 1, not read. \
     * The frame writes C row block by row block in an order that lets C be op(B)  \
     * itself (in place: each block's op(B) rows are read before it is written).   \
     */                                                                             \
    int a_tri, a_unit;                                                                 \
    int64_t mc, nc, kc; /* cache blocks (rounded to the tile by the frame) */          \
    /* sequential: elements of S a thread keeps (rows x nc, rows a multiple of mc);    \
     * 0: mc rows. More rows: op(B) is packed once for more of them. */                \
    int64_t ws;                                                                        \
    /* other threads run parts of the same call (memory streams are shared) */         \
    int threaded;                                                                      \
    const rb_l3_kernels_##SFX *kt; /* the CPU path's kernels */                        \
  } rb_gemm_job_##SFX;                                                                 \
  /* Computes the rectangle [i0, i1) x [j0, j1) of C (all of k) with the job's     \
   * kernels: 0, or -1 when its buffers cannot be allocated. The frame's block     \
   * walk (frame/gemm_blocks.c), compiled once per dtype. */                        \
  int rb_gemm_block_##SFX(const void *job, int64_t i0, int64_t i1, int64_t j0, int64_t j1); \
  struct rb_l3_kernels_##SFX {                                                         \
    /* Tile shapes (rows x cols of C per micro-kernel call), by order: the driver   \
     * aligns its thread split on them (n == 1 uses the gemv tile, nr = 1). */       \
    int mr[2], nr[2], gemv_mr[2];                                                      \
    int lanes; /* elements per vector */                                               \
    /* Micro-kernels (gemm_ukernel.inc) on packed panels, for the gemm tile and the  \
     * gemv tile: sequential (continue each fma chain over kc terms; first: start   \
     * it) and pairwise (the tree over kc = 2^q terms, plus left when not NULL). */  \
    void (*seq[2])(int64_t kc, const T *ap, const T *bp, T *acc, int first);           \
    void (*pw[2])(int64_t kc, const T *ap, const T *bp, const T *left, T *out);        \
    /* Sequential, a tile crossing a triangular op(A)'s diagonal (both shapes):      \
     * term t's k is d0 + t past the tile's first row; row r takes it when r >= k    \
     * (lower) or r <= k (upper), the other rows keep their chains. */               \
    void (*seq_tri[2])(int64_t kc, const T *ap, const T *bp, T *acc, int first,        \
                       int64_t d0, int upper);                                         \
    /* Packs the mb x kb block at (i0, k0) of a[i*a_rs + k*a_cs] as panels of mr   \
     * rows, column k of a panel at dst + k*ks, panels kb*ks apart. */               \
    void (*pack_a)(const T *a, int64_t a_rs, int64_t a_cs, int64_t i0, int64_t mb,      \
                   int64_t k0, int64_t kb, int mr, int64_t ks, T *dst);                \
    /* Scales a block's S tiles (ws; NULL: S = +0) into C: all of the mb x nb block \
     * at (i0, j0), or (elems) its elements [ilo, ihi) x [jlo, jhi). */             \
    void (*write_c)(const rb_gemm_job_##SFX *jb, const T *ws, int64_t i0, int64_t mb,  \
                    int64_t j0, int64_t nb, int mr, int nr);                           \
    void (*write_c_elems)(const rb_gemm_job_##SFX *jb, const T *ws, int64_t tiles_m,   \
                          int mr, int nr, int64_t i0, int64_t j0, int64_t ilo,         \
                          int64_t ihi, int64_t jlo, int64_t jhi);                      \
    /* dst = a + b over whole tiles (count a multiple of lanes). */                   \
    void (*tile_add)(T *dst, const T *a, const T *b, int64_t count);                   \
    /* n = 1 with op(A) contiguous along a dimension: rows [i0, i1) straight from A  \
     * (gemv/); 0, or -1 when its buffers cannot be allocated. */                    \
    int (*gemv)(const rb_gemm_job_##SFX *jb, int64_t i0, int64_t i1);                  \
    /* a[i*rs + j*cs] = fma(x_i, ay_j, a[...]) for i < m, j < n (x, ay contiguous T). */ \
    void (*ger)(int64_t m, int64_t n, const void *x, const void *ay, void *a, int64_t rs, \
                int64_t cs);                                                           \
    /* Solves columns [k0, k1) of a rb_trsm_job_<SFX> in place: 0, or -1 when */     \
    /* its buffers cannot be allocated (trsm_engine.inc). */                          \
    int (*trsm)(const void *job, int64_t k0, int64_t k1);                             \
  };

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
/* 1 and 0 of a dtype, for alpha / beta arguments (1 * S = S exactly). */
const void *rb_l3_one(int dtype);
const void *rb_l3_zero(int dtype);

#endif /* RB_GEMM_KERNELS_H */
