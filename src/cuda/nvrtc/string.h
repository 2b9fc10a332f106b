/* NVRTC has no C library headers: memcpy is a device built-in there. */
#pragma once
