/* NVRTC has no C library headers: size_t and ptrdiff_t are built in. */
#pragma once
