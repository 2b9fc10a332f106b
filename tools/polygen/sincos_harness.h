/* sin/cos exports of the generator harness (tools/polygen/sincos.py),
 * included by harness.c after sin_cos/core.h. The joint fit needs the
 * table values A, B and r of each input, and the compensation with them. */

/* harness.c's generic reduce/compensate are unused by the sin/cos driver. */
CR_FN v64 cr_sincos_h_reduce(v64 x, v64 *comp) {
  v64 a, b;
  v64m nonfinite;
  *comp = 0.0;
  return cr_sincos_reduce(x, 0.0, &a, &b, &nonfinite);
}
CR_FN v64 cr_sincos_h_comp(v64 p, v64 comp) { return p + comp; }

/* A, B, r of each x as the fast path with offset off computes them. */
void h_sincos_terms(const float *x, double off, double *a, double *b, double *r, long n) {
  v64m nonfinite;
  for (long i = 0; i < n; ++i) r[i] = cr_sincos_reduce((double)x[i], off, &a[i], &b[i], &nonfinite);
}

void h_sincos_compensate(const double *p, const double *a, const double *b, const double *r,
                         double *out, long n) {
  for (long i = 0; i < n; ++i) out[i] = cr_sincos_compensate(p[i], a[i], b[i], r[i]);
}
