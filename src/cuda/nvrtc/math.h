/* NVRTC has no C library headers: the CUDA math functions (fma, sqrt, rint,
 * fabs, ...) are built in. */
#pragma once
