/* The scatter of a tile of results to NCHW (with the bias added), shared by
 * the two convolution engines (conv_seq.c, conv_pw.c). */
#ifndef RB_CONV_SCATTER_H
#define RB_CONV_SCATTER_H

#include <stdint.h>

/* dst[i*drow + doff[j]] = c[(i - i0)*c_rs + j*c_cs] (⊕ bias[i] when bias != NULL)
 * for rows [i0, i1) and columns j < n: a tile to NCHW. */
#define CONV_SCATTER(T, SFX)                                                                 \
  static void scatter_rows_##SFX(void *dstv, int64_t drow, const void *biasv,                \
                                 const int64_t *doff, int64_t n, int64_t i0, int64_t i1,     \
                                 const T *c, int64_t c_rs, int64_t c_cs) {                   \
    T *dst = dstv;                                                                           \
    const T *bias = biasv;                                                                   \
    for (int64_t i = i0; i < i1; ++i) {                                                      \
      T *di = dst + i * drow;                                                                \
      const T *ci = c + (i - i0) * c_rs;                                                     \
      if (bias) {                                                                            \
        const T b = bias[i];                                                                 \
        for (int64_t j = 0; j < n; ++j) di[doff[j]] = ci[j * c_cs] + b;                      \
      } else {                                                                               \
        for (int64_t j = 0; j < n; ++j) di[doff[j]] = ci[j * c_cs];                          \
      }                                                                                      \
    }                                                                                        \
  }
CONV_SCATTER(float, f32)
CONV_SCATTER(double, f64)

#endif /* RB_CONV_SCATTER_H */
