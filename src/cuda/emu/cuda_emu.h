/* Host emulation of the CUDA dialect the kernels in src/cuda/ use, so that
 * the same .cu sources compile with a plain C++ compiler and run on the CPU.
 *
 * Execution model (emu.cpp): the blocks of a grid run one after another; the
 * threads of a block are real OS threads that meet at __syncthreads (a
 * barrier). __shared__ variables become function-local statics: since only
 * one block runs at a time, all threads of that block see the same object.
 * Without __CUDA_ARCH__, the arithmetic headers take their C forms (fma()
 * from libm, etc.): one IEEE operation each, the same as the device forms. */
#ifndef CUDA_EMU_H
#define CUDA_EMU_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__ __attribute__((noinline))
#define __shared__ static
#define __restrict__ __restrict
#define __align__(n) __attribute__((aligned(n)))
#define __launch_bounds__(...)

struct dim3 {
  unsigned x, y, z;
};

/* This thread's coordinates; set by the launcher before the kernel runs. */
extern thread_local dim3 threadIdx, blockIdx, blockDim, gridDim;

void __syncthreads(void);

/* Integer atomics (float atomics are banned by docs/contract.md §0 and not provided).
 * Calls are serialised by one lock: correct, and only tests run this. */
unsigned long long atomicMin(unsigned long long *p, unsigned long long v);
int atomicOr(int *p, int v);

#endif /* CUDA_EMU_H */
