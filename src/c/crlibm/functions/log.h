/* PLACEHOLDER, to be replaced by the real correctly rounded implementation:
 * every lane takes the scalar path through the double-precision libm, which
 * is NOT proven correctly rounded. Kept only so the whole build links. */
#ifndef CR_LOG_H
#define CR_LOG_H

#include <math.h>
#include "../fputil.h"

CR_FN vd cr_log_fast(vd x, vm *special) {
  *special = vm_or(vd_eq(x, x), vd_isnan(x)); /* every lane */
  return x;
}
CR_FN float cr_log_special(float x) {
  if (cr_f32_isnan(x)) return cr_f32_nan();
  float y = (float)(log((double)x));
  return cr_f32_isnan(y) ? cr_f32_nan() : y;
}
#endif /* CR_LOG_H */
