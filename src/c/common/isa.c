#include "isa.h"

#include <string.h>

static const char *const isa_names[CR_ISA_COUNT] = {"scalar", "avx2", "avx512"};

const char *cr_isa_name(int isa) {
  return (isa >= 0 && isa < CR_ISA_COUNT) ? isa_names[isa] : "unknown";
}

int cr_isa_supported(int isa) {
  switch (isa) {
  case CR_ISA_SCALAR:
    return 1;
#if defined(__x86_64__) && defined(__GNUC__)
  case CR_ISA_AVX2:
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  case CR_ISA_AVX512:
    /* The x86-64-v4 set: F, DQ, BW, VL (the kernels use DQ and VL forms). */
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
           __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl");
#endif
  default:
    return 0;
  }
}

int cr_isa_best(void) {
  for (int isa = CR_ISA_COUNT - 1; isa > CR_ISA_SCALAR; --isa)
    if (cr_isa_supported(isa)) return isa;
  return CR_ISA_SCALAR;
}

int cr_isa_parse(const char *name) {
  if (name == NULL || name[0] == '\0') return cr_isa_best();
  for (int isa = 0; isa < CR_ISA_COUNT; ++isa)
    if (strcmp(name, isa_names[isa]) == 0) return cr_isa_supported(isa) ? isa : -2;
  return -1;
}
