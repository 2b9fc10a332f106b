/* The registry (functions.def) as data for the Python side: each entry's
 * fields as written there (crlibm_py/_registry.py parses them). */
#ifndef CR_REGISTRY_ROWS_H
#define CR_REGISTRY_ROWS_H

#include "functions.h"

enum { CR_REGISTRY_FIELDS = 14 };
static const char *const cr_registry_rows[CR_FUNCTION_COUNT][CR_REGISTRY_FIELDS] = {
#define CR_FUNCTION(name, folder, lanes, avx2, mpfr, reference, ulps, specials, mpfr_override, \
                    saturation, bench, baseline, demo, accuracy)                              \
  {#name, #folder, #lanes, #avx2, #mpfr, #reference, #ulps, #specials, #mpfr_override,       \
   #saturation, bench, baseline, demo, accuracy},
#include "functions.def"
#undef CR_FUNCTION
};

#endif /* CR_REGISTRY_ROWS_H */
