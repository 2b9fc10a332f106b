/* The terms t_k of a reduction (contract §3), and the elements of C a product
 * writes, shared by the CPU kernels and the CUDA kernels (src/cuda/reproblas/),
 * which cannot include kernels.h. */
#ifndef RB_TERMS_H
#define RB_TERMS_H

enum rb_term {
  RB_TERM_X = 0,   /* sum:  x_k */
  RB_TERM_ABS = 1, /* asum: abs(x_k) */
  RB_TERM_XY = 2,  /* dot:  x_k * y_k (rounded in pairwise; fused in sequential) */
  RB_TERM_ZZ = 3,  /* nrm2: z_k * z_k with z_k = x_k * scale (rounded) */
  RB_TERM_COUNT = 4
};

/* Which elements of C a product writes: all, or the lower (i >= j) or upper
 * (i <= j) triangle (syrk); the others are neither read nor written. */
enum rb_uplo { RB_FULL = 0, RB_LOWER = 1, RB_UPPER = 2 };

#if defined(__CUDACC__)
#define RB_TERMS_FN static __host__ __device__ inline
#else
#define RB_TERMS_FN static inline
#endif
/* Whether element (i, j) is written. */
RB_TERMS_FN int rb_tri_keeps(int uplo, long long i, long long j) {
  return uplo == RB_LOWER ? i >= j : uplo == RB_UPPER ? i <= j : 1;
}
/* Whether rows [i0, i1) x columns [j0, j1) hold an element that is written:
 * blocks and tiles without one are not computed. */
RB_TERMS_FN int rb_tri_meets(int uplo, long long i0, long long i1, long long j0, long long j1) {
  return uplo == RB_LOWER ? i1 - 1 >= j0 : uplo == RB_UPPER ? i0 <= j1 - 1 : 1;
}

#endif /* RB_TERMS_H */
