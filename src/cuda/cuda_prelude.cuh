/* First include of every kernel file. Under nvcc / NVRTC nothing is needed;
 * the host-emulation build (emu/, a plain C++ compiler) gets the CUDA
 * keywords and built-ins from emu/cuda_emu.h; the PTX lint build routes
 * every explicit fma through lint/fma_probe.cuh. */
#ifndef CUDA_PRELUDE_CUH
#define CUDA_PRELUDE_CUH
#if !defined(__CUDACC__)
#include "emu/cuda_emu.h"
#elif defined(CR_LINT_FMA)
#include "lint/fma_probe.cuh"
#endif
#endif
