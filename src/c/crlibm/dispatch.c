/* Kernel table and the strided driver shared by every function and path. */
#include "crlibm_core.h"

#include <string.h>

#include "../common/fp_env.h"

#define CR_FUNCTION(fn, ...)                                      \
  void cr_kernel_##fn##_scalar(const float *, float *, size_t);   \
  void cr_kernel_##fn##_avx2(const float *, float *, size_t);     \
  void cr_kernel_##fn##_avx512(const float *, float *, size_t);
#include "functions.def"
#undef CR_FUNCTION

static const cr_kernel_fn kernel_table[CR_FUNCTION_COUNT][CR_ISA_COUNT] = {
#if defined(__x86_64__)
#define CR_FUNCTION(fn, ...) {cr_kernel_##fn##_scalar, cr_kernel_##fn##_avx2, cr_kernel_##fn##_avx512},
#else
#define CR_FUNCTION(fn, ...) {cr_kernel_##fn##_scalar, NULL, NULL},
#endif
#include "functions.def"
#undef CR_FUNCTION
};

static const char *const function_names[CR_FUNCTION_COUNT] = {
#define CR_FUNCTION(fn, ...) #fn,
#include "functions.def"
#undef CR_FUNCTION
};

const char *cr_function_name(int fn) {
  return (fn >= 0 && fn < CR_FUNCTION_COUNT) ? function_names[fn] : NULL;
}

cr_kernel_fn cr_kernel(int fn, int isa) {
  if (fn < 0 || fn >= CR_FUNCTION_COUNT || isa < 0 || isa >= CR_ISA_COUNT) return NULL;
  return kernel_table[fn][isa];
}

/* Strided operands go through a small contiguous buffer: the kernel sees the
 * same values either way, so strides never change a result. */
enum { CHUNK = 1024 };

void cr_apply_strided(int fn, int isa, const char *x, ptrdiff_t sx, char *y, ptrdiff_t sy,
                      size_t n) {
  cr_kernel_fn kernel = cr_kernel(fn, isa);
  if (kernel == NULL || n == 0) return;
  cr_fenv_t saved = cr_fenv_enter();
  if (sx == (ptrdiff_t)sizeof(float) && sy == (ptrdiff_t)sizeof(float)) {
    kernel((const float *)x, (float *)y, n);
  } else {
    float buf[CHUNK];
    for (size_t done = 0; done < n; done += CHUNK) {
      size_t m = n - done < CHUNK ? n - done : CHUNK;
      for (size_t i = 0; i < m; ++i) memcpy(&buf[i], x + (ptrdiff_t)(done + i) * sx, sizeof(float));
      kernel(buf, buf, m);
      for (size_t i = 0; i < m; ++i) memcpy(y + (ptrdiff_t)(done + i) * sy, &buf[i], sizeof(float));
    }
  }
  cr_fenv_leave(saved);
}
