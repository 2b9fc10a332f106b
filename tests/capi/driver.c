/* A C program that calls the installed C ABI (crlibm.h, reproblas.h), driven by
 * tests/test_capi.py. One command per line on stdin; operands are raw binary
 * files ("NULL" passes a null pointer); array results are written to a file.
 * Each command prints one line: the return code and, for reductions, iamax and
 * the scalar forms, the result (hex bits, or the index).
 *
 *   red <sum|asum|nrm2|dot> <s|d> n incx order x [y incy]
 *   iamax <s|d> n incx x
 *   axpy <s|d> n alpha incx incy x y out
 *   scal <s|d> n alpha incx x out
 *   gemv <s|d> layout trans m n alpha lda incx beta incy order a x y out
 *   ger <s|d> layout m n alpha incx incy lda x y a out
 *   gemm <s|d> layout ta tb m n k alpha lda ldb beta ldc order a b c out
 *   trsv <s|d> layout uplo trans diag n lda incx order a x out
 *   trsm <s|d> layout side uplo trans_a diag m n alpha lda ldb order a b out
 *   conv <fwd|gin|gw|gb> <s|d> n c h w k r s p q sh sw pt pl dh dw groups order
 *        in1 in2 bias out out_elements   (shape fields "NULL ...": a NULL shape;
 *        the output starts as a 0xAB pattern that an error must leave)
 *   crlibm <fn> n x out        (the _n form)
 *   crlibm1 <fn> n x out       (the scalar form, element by element)
 *   crlibmhuge <fn> n x        (the _n form in place on x, for an n beyond x)
 * Scalars alpha/beta are C99 hex floats; enums are their integer values.
 * With DRIVER_HOSTILE_FENV set, every call is made with the rounding mode
 * upward and (on x86) FTZ and DAZ on, and each must leave those as they were.
 */
#include <fenv.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crlibm.h"
#include "reproblas.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
/* The control bits of MXCSR (DAZ, masks, rounding, FTZ), not the sticky flags. */
static unsigned control(void) { return _mm_getcsr() & 0xFFC0u; }
static void hostile(void) { _mm_setcsr(_mm_getcsr() | 0x8040u); } /* FTZ | DAZ */
#else
static unsigned control(void) { return 0; }
static void hostile(void) {}
#endif

static size_t loaded_size;

static void *load(const char *path) {
  loaded_size = 0;
  if (strcmp(path, "NULL") == 0) return NULL;
  FILE *f = fopen(path, "rb");
  if (f == NULL) { perror(path); exit(2); }
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  void *p = malloc(size > 0 ? (size_t)size : 1);
  if (p == NULL || fread(p, 1, (size_t)size, f) != (size_t)size) { perror(path); exit(2); }
  fclose(f);
  loaded_size = (size_t)size;
  return p;
}

static void save(const char *path, const void *p, size_t size) {
  FILE *f = fopen(path, "wb");
  if (f == NULL || (size > 0 && fwrite(p, 1, size, f) != size)) { perror(path); exit(2); }
  fclose(f);
}

/* Tokens of the current line. */
static char *tok[32];
static int ntok;
static long long I(int i) { return strtoll(tok[i], NULL, 10); }
static double F(int i) { return strtod(tok[i], NULL); }

static void print_bits(int rc, int dbl, const void *value) {
  if (dbl) {
    uint64_t u;
    memcpy(&u, value, sizeof u);
    printf("%d %016llx\n", rc, (unsigned long long)u);
  } else {
    uint32_t u;
    memcpy(&u, value, sizeof u);
    printf("%d %08x\n", rc, u);
  }
}

static void reduction(void) {
  const char *name = tok[1];
  int dbl = tok[2][0] == 'd';
  int64_t n = I(3), incx = I(4);
  reproblas_order order = (reproblas_order)I(5);
  void *x = load(tok[6]), *y = ntok > 7 ? load(tok[7]) : NULL;
  int64_t incy = ntok > 8 ? I(8) : 1;
  double rd = 0;
  float rs = 0;
  int rc;
  if (strcmp(name, "sum") == 0)
    rc = dbl ? reproblas_dsum(n, x, incx, &rd, order) : reproblas_ssum(n, x, incx, &rs, order);
  else if (strcmp(name, "asum") == 0)
    rc = dbl ? reproblas_dasum(n, x, incx, &rd, order) : reproblas_sasum(n, x, incx, &rs, order);
  else if (strcmp(name, "nrm2") == 0)
    rc = dbl ? reproblas_dnrm2(n, x, incx, &rd, order) : reproblas_snrm2(n, x, incx, &rs, order);
  else
    rc = dbl ? reproblas_ddot(n, x, incx, y, incy, &rd, order)
             : reproblas_sdot(n, x, incx, y, incy, &rs, order);
  print_bits(rc, dbl, dbl ? (const void *)&rd : (const void *)&rs);
  free(x);
  free(y);
}

static void iamax(void) {
  int dbl = tok[1][0] == 'd';
  void *x = load(tok[4]);
  int64_t k = -7;
  int rc = dbl ? reproblas_idamax(I(2), x, I(3), &k) : reproblas_isamax(I(2), x, I(3), &k);
  printf("%d %lld\n", rc, (long long)k);
  free(x);
}

static void axpy_scal(int is_axpy) {
  int dbl = tok[1][0] == 'd';
  int64_t n = I(2), incx = I(4);
  int rc;
  void *x = load(tok[is_axpy ? 6 : 5]);
  size_t size = loaded_size;
  if (is_axpy) {
    void *y = load(tok[7]);
    size = loaded_size;
    rc = dbl ? reproblas_daxpy(n, F(3), x, incx, y, I(5))
             : reproblas_saxpy(n, (float)F(3), x, incx, y, I(5));
    save(tok[8], y, size);
    free(y);
  } else {
    rc = dbl ? reproblas_dscal(n, F(3), x, incx) : reproblas_sscal(n, (float)F(3), x, incx);
    save(tok[6], x, size);
  }
  printf("%d\n", rc);
  free(x);
}

static void gemv(void) {
  int dbl = tok[1][0] == 'd';
  void *a = load(tok[12]), *x = load(tok[13]), *y = load(tok[14]);
  size_t size = loaded_size;
  int rc = dbl ? reproblas_dgemv(I(2), I(3), I(4), I(5), F(6), a, I(7), x, I(8), F(9), y, I(10),
                                 I(11))
               : reproblas_sgemv(I(2), I(3), I(4), I(5), (float)F(6), a, I(7), x, I(8),
                                 (float)F(9), y, I(10), I(11));
  save(tok[15], y, size);
  printf("%d\n", rc);
  free(a);
  free(x);
  free(y);
}

static void ger(void) {
  int dbl = tok[1][0] == 'd';
  void *x = load(tok[9]), *y = load(tok[10]), *a = load(tok[11]);
  size_t size = loaded_size;
  int rc = dbl ? reproblas_dger(I(2), I(3), I(4), F(5), x, I(6), y, I(7), a, I(8))
               : reproblas_sger(I(2), I(3), I(4), (float)F(5), x, I(6), y, I(7), a, I(8));
  save(tok[12], a, size);
  printf("%d\n", rc);
  free(a);
  free(x);
  free(y);
}

static void gemm(void) {
  int dbl = tok[1][0] == 'd';
  void *a = load(tok[14]), *b = load(tok[15]), *c = load(tok[16]);
  size_t size = loaded_size;
  int rc = dbl ? reproblas_dgemm(I(2), I(3), I(4), I(5), I(6), I(7), F(8), a, I(9), b, I(10),
                                 F(11), c, I(12), I(13))
               : reproblas_sgemm(I(2), I(3), I(4), I(5), I(6), I(7), (float)F(8), a, I(9), b,
                                 I(10), (float)F(11), c, I(12), I(13));
  save(tok[17], c, size);
  printf("%d\n", rc);
  free(a);
  free(b);
  free(c);
}

static void trsv(void) {
  int dbl = tok[1][0] == 'd';
  void *a = load(tok[10]), *x = load(tok[11]);
  size_t size = loaded_size;
  int rc = dbl ? reproblas_dtrsv(I(2), I(3), I(4), I(5), I(6), a, I(7), x, I(8), I(9))
               : reproblas_strsv(I(2), I(3), I(4), I(5), I(6), a, I(7), x, I(8), I(9));
  save(tok[12], x, size);
  printf("%d\n", rc);
  free(a);
  free(x);
}

static void trsm(void) {
  int dbl = tok[1][0] == 'd';
  void *a = load(tok[13]), *b = load(tok[14]);
  size_t size = loaded_size;
  int rc = dbl ? reproblas_dtrsm(I(2), I(3), I(4), I(5), I(6), I(7), I(8), F(9), a, I(10), b,
                                 I(11), I(12))
               : reproblas_strsm(I(2), I(3), I(4), I(5), I(6), I(7), I(8), (float)F(9), a,
                                 I(10), b, I(11), I(12));
  save(tok[15], b, size);
  printf("%d\n", rc);
  free(a);
  free(b);
}

static void conv(void) {
  const char *fn = tok[1];
  int dbl = tok[2][0] == 'd';
  reproblas_conv2d_shape shape;
  int64_t *field = &shape.n;
  for (int i = 0; i < 16; ++i) field[i] = I(3 + i);
  const reproblas_conv2d_shape *sp = strcmp(tok[3], "NULL") == 0 ? NULL : &shape;
  reproblas_order order = (reproblas_order)I(19);
  void *in1 = load(tok[20]), *in2 = load(tok[21]), *bias = load(tok[22]);
  size_t size = (size_t)I(24) * (dbl ? sizeof(double) : sizeof(float));
  void *out = strcmp(tok[23], "NULL") == 0 ? NULL : malloc(size + 1);
  if (out) memset(out, 0xAB, size);
  int rc;
  if (strcmp(fn, "fwd") == 0)
    rc = dbl ? reproblas_dconv2d(sp, in1, in2, bias, out, order)
             : reproblas_sconv2d(sp, in1, in2, bias, out, order);
  else if (strcmp(fn, "gin") == 0)
    rc = dbl ? reproblas_dconv2d_grad_input(sp, in1, in2, out, order)
             : reproblas_sconv2d_grad_input(sp, in1, in2, out, order);
  else if (strcmp(fn, "gw") == 0)
    rc = dbl ? reproblas_dconv2d_grad_weight(sp, in1, in2, out, order)
             : reproblas_sconv2d_grad_weight(sp, in1, in2, out, order);
  else
    rc = dbl ? reproblas_dconv2d_grad_bias(sp, in1, out, order)
             : reproblas_sconv2d_grad_bias(sp, in1, out, order);
  if (out) save(tok[23], out, size);
  printf("%d\n", rc);
  free(in1);
  free(in2);
  free(bias);
  free(out);
}

typedef float (*one_fn)(float);
typedef int (*array_fn)(const float *, float *, size_t);
static const struct {
  const char *name;
  one_fn one;
  array_fn array;
} functions[] = {
/* every function of the registry (src/c/crlibm/functions.def, on the include path) */
#define CR_FUNCTION(name, ...) {#name, crlibm_##name##f, crlibm_##name##f_n},
#include "functions.def"
#undef CR_FUNCTION
};

static void crlibm(int scalar_form) {
  size_t n = (size_t)I(2), f = 0;
  while (strcmp(functions[f].name, tok[1]) != 0) ++f;
  float *x = load(tok[3]);
  float *y = malloc(n * sizeof(float) + 1);
  memset(y, 0xAB, n * sizeof(float)); /* a pattern that an error must leave */
  int rc = 0;
  if (scalar_form)
    for (size_t i = 0; i < n; ++i) y[i] = functions[f].one(x[i]);
  else
    rc = functions[f].array(x, strcmp(tok[4], "NULL") == 0 ? NULL : y, n);
  if (strcmp(tok[4], "NULL") != 0) save(tok[4], y, n * sizeof(float));
  printf("%d\n", rc);
  free(x);
  free(y);
}

/* The _n form with an n far beyond the operands (x, y: whatever x's file holds):
 * for arguments the call must refuse before touching memory. */
static void crlibm_huge(void) {
  size_t n = (size_t)strtoull(tok[2], NULL, 10), f = 0;
  while (strcmp(functions[f].name, tok[1]) != 0) ++f;
  float *x = load(tok[3]);
  printf("%d\n", functions[f].array(x, x, n));
  free(x);
}

int main(void) {
  char line[4096];
  if (getenv("DRIVER_HOSTILE_FENV") != NULL) {
    fesetround(FE_UPWARD);
    hostile();
  }
  const int round = fegetround();
  const unsigned csr = control();
  while (fgets(line, sizeof line, stdin)) {
    ntok = 0;
    for (char *t = strtok(line, " \n"); t && ntok < 32; t = strtok(NULL, " \n")) tok[ntok++] = t;
    if (ntok == 0) continue;
    if (strcmp(tok[0], "red") == 0) reduction();
    else if (strcmp(tok[0], "iamax") == 0) iamax();
    else if (strcmp(tok[0], "axpy") == 0) axpy_scal(1);
    else if (strcmp(tok[0], "scal") == 0) axpy_scal(0);
    else if (strcmp(tok[0], "gemv") == 0) gemv();
    else if (strcmp(tok[0], "ger") == 0) ger();
    else if (strcmp(tok[0], "gemm") == 0) gemm();
    else if (strcmp(tok[0], "trsv") == 0) trsv();
    else if (strcmp(tok[0], "trsm") == 0) trsm();
    else if (strcmp(tok[0], "conv") == 0) conv();
    else if (strcmp(tok[0], "crlibm") == 0) crlibm(0);
    else if (strcmp(tok[0], "crlibm1") == 0) crlibm(1);
    else if (strcmp(tok[0], "crlibmhuge") == 0) crlibm_huge();
    else if (strcmp(tok[0], "strerror") == 0)
      printf("%s|%s\n", reproblas_error_string((int)I(1)), crlibm_error_string((int)I(1)));
    else { fprintf(stderr, "unknown command %s\n", tok[0]); return 2; }
    if (fegetround() != round || control() != csr) {
      fprintf(stderr, "%s changed the caller's floating-point environment\n", tok[0]);
      return 3;
    }
    fflush(stdout);
  }
  return 0;
}
