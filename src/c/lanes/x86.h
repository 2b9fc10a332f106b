/* Helpers shared by the x86 lane layers (avx2.h, avx512.h). */
#ifndef LANES_X86_H
#define LANES_X86_H

#include <immintrin.h>
#include <math.h>
#include "../common/cr_defs.h"

/* One shuffle-add round of the pairwise tree: within each block of 4
 * elements of the shuffle `shuf` (floats in a 128-bit block for shuffle_ps,
 * 128-bit blocks for shuffle_f32x4 / f64x2), (a0, a2, b0, b2) + (a1, a3, b1,
 * b3): the adjacent pairs of a, then of b, summed in order. */
#define LANES_PAIR_ROUND(add, shuf, a, b) \
  add(shuf(a, b, _MM_SHUFFLE(2, 0, 2, 0)), shuf(a, b, _MM_SHUFFLE(3, 1, 3, 1)))

#endif /* LANES_X86_H */
