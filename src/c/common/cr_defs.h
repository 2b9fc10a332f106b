/* Qualifiers shared by the C and CUDA builds of the single-source headers.
 *
 * CR_FN     an inline function usable on the host and (under nvcc) the device.
 * CR_TABLE  a read-only table: `static const` in C, `__device__ static const`
 *           under nvcc, so one declaration serves both compilers.
 */
#ifndef CR_DEFS_H
#define CR_DEFS_H

#include <stdint.h>
#include <string.h>

#if defined(__CUDACC__)
#define CR_FN static __host__ __device__ __forceinline__
#define CR_TABLE(type, name) __device__ static const type name
#else
#define CR_FN static inline __attribute__((always_inline))
#define CR_TABLE(type, name) static const type name
#endif

#endif /* CR_DEFS_H */
