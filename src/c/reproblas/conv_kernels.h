/* Per-CPU-path kernels of the convolution core (conv_kernels.inc). */
#ifndef RB_CONV_KERNELS_H
#define RB_CONV_KERNELS_H

#include <stdint.h>

/* Implicit-gemm micro-kernel of the sequential order: continues the fma
 * chains of the MR x nc tiles (1 <= nc <= nr) of the first mp of np panels
 * over nt terms, reading the B operand straight from the source (no im2col
 * buffer): for panel m < mp, column j, row r < MR and t ascending,
 *   acc[(m*nr + j)*MR + r] = fma(ap[m*pstride + term[t]*MR + r], src[toff[t] + co[j]], ...)
 * ap: packed panels of A (MR rows per term; term[t]: the term's index);
 * The chains start at -0 when `fresh` (fma(a, b, -0) is the rounded product,
 * contract §2's S_0; acc is then only written), else at acc. Returns mp (1 <= mp <= np: the kernel takes several panels
 * at once when the tile is narrow). ap, src, acc: float or double by the
 * table entry. */
typedef int (*rb_conv_tile_fn)(int64_t nt, const int64_t *term, const int64_t *toff,
                               const void *ap, int64_t pstride, const void *src,
                               const int64_t *co, int nc, int np, int fresh, void *acc);
/* Packs rows [0, nrows) (nrows <= MR) of A into one panel: d[t*MR + r] =
 * A(r, t) for t < terms, rows past nrows +0, where A(i, t) =
 * a[i*a_rs + (t / tin)*t_os + t % tin] (runs of tin contiguous terms). */
typedef void (*rb_conv_pack_fn)(int64_t terms, int64_t nrows, const void *a, int64_t a_rs,
                                int64_t tin, int64_t t_os, void *d);
/* Stores n columns of finished chains for the rows [0, nrows) (nrows <= MR)
 * of one panel: dst[i*drow + doff[j]] = ws[coff[j] + i], ⊕ bias[i] when bias
 * != NULL. Runs of W columns with consecutive doff go through a W x W
 * transpose and whole-vector stores. */
typedef void (*rb_conv_store_fn)(int64_t n, const int64_t *coff, const int64_t *doff,
                                 const void *ws, int64_t nrows, const void *bias, void *dst,
                                 int64_t drow);
/* Implicit-gemm micro-kernel of the pairwise order: the perfect tree
 * (docs/contract.md §2) over nt = 2^q terms of each element of the MR x nc
 * tiles of mp panels (mp 1, or 2 with nc <= pw_nr2), A(r, t) = ap[m*pstride +
 * aidx[t] + r] for panel m (packed as for the tile kernel), B(t, j) =
 * src[toff[t] + co[j]]; out[m*ustride + j*MR + r] = the tree, or left[...] ⊕
 * the tree when left != NULL (the sibling subtree just before these terms).
 * Columns past nc are not written. */
typedef void (*rb_conv_pw_fn)(int64_t nt, const int64_t *aidx, const int64_t *toff,
                              const void *ap, int64_t pstride, const void *src,
                              const int64_t *co, int nc, int mp, const void *left, void *out,
                              int64_t ustride);
typedef struct {
  rb_conv_tile_fn tile_f32, tile_f64;
  rb_conv_pack_fn pack_f32, pack_f64;
  rb_conv_store_fn store_f32, store_f64;
  int mr_f32, mr_f64, nr; /* tile rows per dtype, most columns */
  rb_conv_pw_fn pw_f32, pw_f64; /* rows: mr_f32 / mr_f64 (the same packed panels) */
  int pw_nr, pw_nr2; /* most columns of the pairwise kernel: one panel, two (0: one only) */
  /* the tile kernel and pack on panels of one vector of rows (mr1_*: the
   * lanes), for convolutions of at most mr1 rows; nr columns */
  rb_conv_tile_fn tile1_f32, tile1_f64;
  rb_conv_pack_fn pack1_f32, pack1_f64;
  int mr1_f32, mr1_f64;
} rb_conv_kernels;

extern const rb_conv_kernels rb_conv_scalar, rb_conv_avx2, rb_conv_avx512;

#endif /* RB_CONV_KERNELS_H */
