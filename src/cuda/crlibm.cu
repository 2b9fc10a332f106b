/* Correctly rounded float32 functions as coalesced elementwise kernels.
 *
 * Each thread runs the one-lane instantiation (lanes/scalar.h) of the very
 * function bodies the CPU paths use: the fast path, and for inputs it
 * declines, the scalar special path. So an element's result is the CPU's,
 * bit for bit. Grid-stride loop: consecutive threads touch consecutive
 * elements (coalesced), any grid size gives the same bits. x may equal y. */
#include "cuda_prelude.cuh"

#include "lanes/scalar.h"
#include "crlibm/cores.h"

#define CR_CUDA_KERNEL(fn)                                                       \
  extern "C" __global__ void cr_##fn##_f32(const float *x, float *y, long long n) { \
    const long long step = (long long)gridDim.x * blockDim.x;                      \
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step) { \
      const float xi = x[i];                                                       \
      v64m special;                                                                \
      const v64 r = cr_##fn##_fast(v64_load_f32(&xi), &special);                   \
      float yi;                                                                    \
      v64_store_f32(&yi, r);                                                       \
      y[i] = special ? cr_##fn##_special(xi) : yi;                                 \
    }                                                                              \
  }

#define CR_FUNCTION(name, ...) CR_CUDA_KERNEL(name)
#include "crlibm/functions.def"
#undef CR_FUNCTION
