/* cumsum(order="exact") (docs/contract.md §5.4) on CUDA: prefix i of a row is
 * RN of the exact sum of its terms, as frame/exact.c's rb_exact_scan. Each row
 * is cut into pieces of `piece` terms (work items, a grid stride):
 *   1. rb_exact_scan_pieces (phase 0): each piece's exact accumulator, stored
 *      normalized (limbs, then nan, pinf, ninf, nonneg0) in its slot of acc;
 *   2. rb_exact_scan_starts: per row, the slots replaced by their exclusive
 *      running sum (each piece's start), limb by limb;
 *   3. rb_exact_scan_pieces (phase 1): each piece from its start, every prefix
 *      rounded from a copy of the running accumulator.
 * Rows of one piece take phase 2 alone: phase 1 from a zero start, no acc.
 * Integer additions only before each rounding: the pieces never change a bit.
 * Host side: reproblas/_scan_cuda.py (exact_scan_rows). */
#ifndef RB_CUDA_EXACT_SCAN_CUH
#define RB_CUDA_EXACT_SCAN_CUH

#include "order/exact.h"
#include "scan.cuh" /* RB_GRID_STRIDE */

CR_FN void rb_xacc_add_term(rb_xacc *acc, float x) {
  rb_xacc_add_f32(acc, acc->limb, rb_xbits32(x));
}
CR_FN void rb_xacc_add_term(rb_xacc *acc, double x) {
  rb_xacc_add_f64(acc, acc->limb, rb_xbits64(x));
}

/* RN of acc, which stays as it is (rounding normalizes, maybe negates, its operand). */
template <class T>
__device__ __forceinline__ T rb_xscan_round(const rb_xacc *acc, int nl, int nterms) {
  rb_xacc r;
  for (int l = 0; l < nl; ++l) r.limb[l] = acc->limb[l];
  r.nan = acc->nan, r.pinf = acc->pinf, r.ninf = acc->ninf, r.nonneg0 = acc->nonneg0;
  if (sizeof(T) == 8) return (T)rb_xacc_round_f64(&r, RB_XK_F64, nterms);
  return (T)rb_xacc_round_f32(&r, RB_XK_F32, nterms);
}

template <class T>
__device__ void rb_exact_scan_pieces_body(int phase, int exclusive, const T *x, long long rows,
                                          long long n, long long piece, long long *acc,
                                          T *out) {
  const int nl = rb_xacc_limbs(sizeof(T) == 8 ? RB_XK_F64 : RB_XK_F32), w = nl + 4;
  const long long per_row = (n + piece - 1) / piece;
  RB_GRID_STRIDE(it, rows * per_row) {
    const long long r = it / per_row, lo = it % per_row * piece;
    const long long hi = n - lo < piece ? n : lo + piece;
    long long *slot = phase == 2 ? acc : acc + it * w; /* phase 2: unused */
    rb_xacc a;
    rb_xacc_init(&a);
    if (phase == 1) {
      for (int l = 0; l < nl; ++l) a.limb[l] = slot[l];
      a.nan = (int)slot[nl], a.pinf = (int)slot[nl + 1], a.ninf = (int)slot[nl + 2];
      a.nonneg0 = (int)slot[nl + 3];
    }
    for (long long i = lo; i < hi; ++i) {
      const T v = x[r * n + i]; /* read before out[r * n + i] is written */
      if (phase && exclusive) out[r * n + i] = rb_xscan_round<T>(&a, nl, i > 0);
      rb_xacc_add_term(&a, v);
      if (phase && !exclusive) out[r * n + i] = rb_xscan_round<T>(&a, nl, 1);
    }
    if (!phase) {
      rb_xacc_normalize(&a, nl);
      for (int l = 0; l < nl; ++l) slot[l] = a.limb[l];
      slot[nl] = a.nan, slot[nl + 1] = a.pinf, slot[nl + 2] = a.ninf, slot[nl + 3] = a.nonneg0;
    }
  }
}

template <class T>
__device__ void rb_exact_scan_starts_body(long long rows, long long per_row, long long *acc) {
  const int nl = rb_xacc_limbs(sizeof(T) == 8 ? RB_XK_F64 : RB_XK_F32), w = nl + 4;
  RB_GRID_STRIDE(r, rows) {
    rb_xacc run;
    rb_xacc_init(&run);
    for (long long q = 0; q < per_row; ++q) {
      long long *slot = acc + (r * per_row + q) * w;
      for (int l = 0; l < nl; ++l) {
        const long long v = slot[l];
        slot[l] = run.limb[l];
        run.limb[l] += v;
      }
      const int f[4] = {(int)slot[nl], (int)slot[nl + 1], (int)slot[nl + 2], (int)slot[nl + 3]};
      slot[nl] = run.nan, slot[nl + 1] = run.pinf, slot[nl + 2] = run.ninf;
      slot[nl + 3] = run.nonneg0;
      run.nan |= f[0], run.pinf |= f[1], run.ninf |= f[2], run.nonneg0 |= f[3];
      rb_xacc_normalize(&run, nl); /* the starts stay within a few carries */
    }
  }
}

#endif /* RB_CUDA_EXACT_SCAN_CUH */
