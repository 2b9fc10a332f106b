/* Correctly rounded float32 functions as coalesced elementwise kernels.
 *
 * Each thread runs the one-lane instantiation (vec/scalar.h) of the very
 * function bodies the CPU paths use: the fast path, and for inputs it
 * declines, the scalar special path. So an element's result is the CPU's,
 * bit for bit. Grid-stride loop: consecutive threads touch consecutive
 * elements (coalesced), any grid size gives the same bits. x may equal y. */
#include "cuda_prelude.cuh"

#include "crlibm/vec/scalar.h"
#include "crlibm/cores.h"

#define CR_CUDA_KERNEL(fn)                                                       \
  extern "C" __global__ void cr_##fn##_f32(const float *x, float *y, long long n) { \
    const long long step = (long long)gridDim.x * blockDim.x;                      \
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step) { \
      const float xi = x[i];                                                       \
      vm special;                                                                  \
      const vd r = cr_##fn##_fast(vd_load_f32(&xi), &special);                     \
      float yi;                                                                    \
      vd_store_f32(&yi, r);                                                        \
      y[i] = special ? cr_##fn##_special(xi) : yi;                                 \
    }                                                                              \
  }

#define CR_FUNCTION(name, ...) CR_CUDA_KERNEL(name)
#include "crlibm/functions.def"
#undef CR_FUNCTION
