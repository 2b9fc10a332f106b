/* NVRTC has no C library headers: the CUDA math functions (fma, sqrt, rint,
 * fabs, ...) are built in; the macros the shared headers use are not. */
#pragma once
#define INFINITY __int_as_float(0x7F800000)
#define NAN __int_as_float(0x7FC00000)
