/* The terms t_k of a reduction (contract §3), shared by the CPU kernels and the
 * CUDA kernels (src/cuda/reproblas/), which cannot include kernels.h. */
#ifndef RB_TERMS_H
#define RB_TERMS_H

enum rb_term {
  RB_TERM_X = 0,   /* sum:  x_k */
  RB_TERM_ABS = 1, /* asum: abs(x_k) */
  RB_TERM_XY = 2,  /* dot:  x_k * y_k (rounded in pairwise; fused in sequential) */
  RB_TERM_ZZ = 3,  /* nrm2: z_k * z_k with z_k = x_k * scale (rounded) */
  RB_TERM_COUNT = 4
};

#endif /* RB_TERMS_H */
