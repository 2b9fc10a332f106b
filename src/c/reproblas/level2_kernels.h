/* Per-CPU-path kernel tables of the sequential trmv and symv
 * (level2/kernels.inc, instantiated in kernels/<isa>/level2.c); the frame
 * (frame/level2.c) picks one by the call's ISA. Full storage with
 * contiguous rows: A_ik = a[i rs + k]. */
#ifndef RB_LEVEL2_KERNELS_H
#define RB_LEVEL2_KERNELS_H

#include <stdint.h>

#define RB_DECLARE_L2_TABLE(SFX)                                                               \
  typedef struct {                                                                             \
    /* s[i - i0] = S_i of rows [i0, i1) of a triangular op(A) (lower: terms [0, i], */       \
    /* upper: [i, n); unit: the diagonal term is 1 x_i). */                                    \
    void (*trmv_seq)(const void *a, int64_t rs, int64_t n, int lower, int unit, const void *x, \
                     void *s, int64_t i0, int64_t i1);                                          \
    /* trmv_seq for an op(A) with contiguous columns: op(A)_ik = a[i + k cs]. */              \
    void (*trmv_cols_seq)(const void *a, int64_t cs, int64_t n, int lower, int unit,           \
                          const void *x, void *s, int64_t i0, int64_t i1);                      \
    /* acc[i] = S_i for i in [c0, c1) of the symmetric matrix stored in a's lower (upper) */  \
    /* triangle; c0 a multiple of 64, c1 one or n. */                                          \
    void (*symv_seq)(const void *a, int64_t rs, int64_t n, int lower, const void *x, void *acc, \
                     int64_t c0, int64_t c1);                                                   \
  } rb_l2_kernels_##SFX;

RB_DECLARE_L2_TABLE(f32)
RB_DECLARE_L2_TABLE(f64)

extern const rb_l2_kernels_f32 rb_l2_f32_scalar, rb_l2_f32_avx2, rb_l2_f32_avx512;
extern const rb_l2_kernels_f64 rb_l2_f64_scalar, rb_l2_f64_avx2, rb_l2_f64_avx512;

#endif /* RB_LEVEL2_KERNELS_H */
