/* One output's ordered sum of product terms a*b that arrive one at a time,
 * in the order of docs/contract.md §2: sequential, the fma chain from
 * RB_CHAIN_START (rb_chain); pairwise, the binary counter over the term index
 * (rb_push). Only the terms added count:
 * an absent term (a convolution's padding) is simply never added, so the
 * pairwise tree is the one over the compacted list. No term: +0. */
#ifndef RB_CUDA_ACCUM_CUH
#define RB_CUDA_ACCUM_CUH

#include "ops.cuh"

template <class T, bool PAIRWISE>
struct rb_accum {
  T chain = RB_CHAIN_START(T);
  long long count = 0;
  T stack[PAIRWISE ? RB_LEVELS : 1];

  __device__ __forceinline__ void add(T a, T b) {
    if (PAIRWISE)
      rb_push(stack, count, a * b);
    else
      chain = rb_fma(a, b, chain);
    ++count;
  }
  __device__ __forceinline__ T sum() const {
    return PAIRWISE ? rb_pop_all(stack, count) : count ? chain : T(0);
  }
};

#endif /* RB_CUDA_ACCUM_CUH */
