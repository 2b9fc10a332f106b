/* One-lane (portable C) form of the reproblas lane layer; see README.md. */
#ifndef RB_LANES_SCALAR_H
#define RB_LANES_SCALAR_H

#include <math.h>
#include "../../common/cr_defs.h"

#define RB_W32 1
#define RB_W64 1
typedef float v32;
typedef double v64;

CR_FN v32 v32_load(const float *p) { return *p; }
CR_FN void v32_store(float *p, v32 a) { *p = a; }
CR_FN v32 v32_set1(float c) { return c; }
CR_FN v32 v32_add(v32 a, v32 b) { return a + b; }
CR_FN v32 v32_mul(v32 a, v32 b) { return a * b; }
CR_FN v32 v32_sub(v32 a, v32 b) { return a - b; }
CR_FN v32 v32_div(v32 a, v32 b) { return a / b; }
CR_FN v32 v32_fma(v32 a, v32 b, v32 c) { return fmaf(a, b, c); }
CR_FN v32 v32_abs(v32 a) { return fabsf(a); }
CR_FN v32 v32_max(v32 a, v32 b) { return a > b ? a : b; }
CR_FN v32 v32_min(v32 a, v32 b) { return a < b ? a : b; }
CR_FN v32 v32_nonzero_or(v32 a, v32 c) { return a == 0 ? c : a; }
CR_FN v32 v32_pairadd(v32 a, v32 b) { return a + b; }
CR_FN v32 v32_tree_rows(const v32 *r) { return r[0]; } /* one lane */
CR_FN float v32_first(v32 a) { return a; }
CR_FN unsigned v32_nan_bits(v32 a) { return a != a; }
CR_FN unsigned v32_eq_bits(v32 a, v32 b) { return a == b; }
CR_FN void v32_transpose(v32 *r) { (void)r; } /* 1 x 1 */
CR_FN void v32_load_transposed(v32 *r, const float *a, int64_t rs) { (void)rs, *r = *a; }

CR_FN v64 v64_load(const double *p) { return *p; }
CR_FN void v64_store(double *p, v64 a) { *p = a; }
CR_FN v64 v64_set1(double c) { return c; }
CR_FN v64 v64_add(v64 a, v64 b) { return a + b; }
CR_FN v64 v64_mul(v64 a, v64 b) { return a * b; }
CR_FN v64 v64_sub(v64 a, v64 b) { return a - b; }
CR_FN v64 v64_div(v64 a, v64 b) { return a / b; }
CR_FN v64 v64_fma(v64 a, v64 b, v64 c) { return fma(a, b, c); }
CR_FN v64 v64_abs(v64 a) { return fabs(a); }
CR_FN v64 v64_max(v64 a, v64 b) { return a > b ? a : b; }
CR_FN v64 v64_min(v64 a, v64 b) { return a < b ? a : b; }
CR_FN v64 v64_nonzero_or(v64 a, v64 c) { return a == 0 ? c : a; }
CR_FN v64 v64_pairadd(v64 a, v64 b) { return a + b; }
CR_FN v64 v64_tree_rows(const v64 *r) { return r[0]; }
CR_FN double v64_first(v64 a) { return a; }
CR_FN unsigned v64_nan_bits(v64 a) { return a != a; }
CR_FN unsigned v64_eq_bits(v64 a, v64 b) { return a == b; }
CR_FN void v64_transpose(v64 *r) { (void)r; }
CR_FN void v64_load_transposed(v64 *r, const double *a, int64_t rs) { (void)rs, *r = *a; }

#endif /* RB_LANES_SCALAR_H */
