/* Internal entry points of the crlibm core, used by the Python extension and
 * the verification harness. */
#ifndef CRLIBM_CORE_H
#define CRLIBM_CORE_H

#include <stddef.h>

#include "../common/isa.h"
#include "functions.h"

/* A contiguous array kernel: y[i] = f(x[i]); x may equal y. It assumes the
 * library's floating-point environment (see fp_env.h). */
typedef void (*cr_kernel_fn)(const float *x, float *y, size_t n);

/* "exp", "log", ... or NULL for an unknown id. */
const char *cr_function_name(int fn);
/* The kernel of function fn on path isa (NULL if the path is not built). */
cr_kernel_fn cr_kernel(int fn, int isa);

/* y = f(x) over n elements with byte strides sx, sy (any sign), on path isa,
 * inside the library's floating-point environment. */
void cr_apply_strided(int fn, int isa, const char *x, ptrdiff_t sx, char *y, ptrdiff_t sy,
                      size_t n);

#endif /* CRLIBM_CORE_H */
