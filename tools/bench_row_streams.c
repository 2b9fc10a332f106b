/* How fast one core can read R rows of a row-major float32 matrix at once,
 * against the row-major sequential gemv that has to read them so: the bound
 * behind the "gemv, C-ordered A in the L3" target (docs/design/gemv-row-stride.md).
 * The sequential order makes every row one fma chain, so the
 * gemv row kernel keeps 2 x 16 rows in flight (AVX-512 float32); this prints
 * what R interleaved row streams read per second with nothing else to do,
 * with the rows as they lie and with each group of 16 rows `skew` floats
 * behind the previous group (what the kernel does when the row stride is a
 * multiple of 4 KiB), and then reproblas_sgemv's own speed on the same A.
 * Rates are GFLOP/s-equivalent (2 flops per element read), best of 15.
 *
 *   gcc -O2 -march=native tools/bench_row_streams.c -Ireproblas/include \
 *       -Lreproblas/lib -lreproblas -Wl,-rpath,$PWD/reproblas/lib -o /tmp/rows \
 *     && REPROBLAS_NUM_THREADS=1 /tmp/rows [m n]      (default 1536 2048: 12 MiB)
 */
#define _GNU_SOURCE
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "reproblas.h"

enum { ROUNDS = 15, GROUP = 16 };

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* Reads rows [r0, r0 + R) line by line, interleaved (one 64-byte line of each
 * row, then the next line of each), for every block of R rows; group g of 16
 * rows reads g * skew floats further on (its rows are allocated with room). */
#define READ_ROWS(R)                                                                      \
  __attribute__((noinline)) static float read_rows_##R(const float *a, int64_t rs,        \
                                                       int64_t m, int64_t n, int64_t skew) { \
    __m512 acc[8] = {0};                                                                  \
    for (int64_t r0 = 0; r0 + R <= m; r0 += R)                                            \
      for (int64_t k = 0; k < n; k += 16)                                                 \
        _Pragma("GCC unroll 64") for (int r = 0; r < R; ++r) acc[r & 7] =                 \
            _mm512_add_ps(acc[r & 7], _mm512_loadu_ps(a + (r0 + r) * rs + k + r / GROUP * skew)); \
    __m512 s = acc[0];                                                                    \
    for (int i = 1; i < 8; ++i) s = _mm512_add_ps(s, acc[i]);                             \
    return _mm512_reduce_add_ps(s);                                                       \
  }
READ_ROWS(1)
READ_ROWS(4)
READ_ROWS(8)
READ_ROWS(16)
READ_ROWS(32)
READ_ROWS(48)

typedef float (*read_fn)(const float *, int64_t, int64_t, int64_t, int64_t);
static const read_fn READERS[] = {read_rows_1, read_rows_4, read_rows_8,
                                  read_rows_16, read_rows_32, read_rows_48};
static const int STREAMS[] = {1, 4, 8, 16, 32, 48};
enum { NREADERS = sizeof STREAMS / sizeof STREAMS[0] };

static double best_rate(read_fn f, const float *a, int64_t m, int64_t n, int64_t skew, int rows) {
  double best = 1e30;
  volatile float sink = 0;
  for (int t = 0; t < ROUNDS; ++t) {
    const double t0 = now();
    sink += f(a, n, m, n, skew);
    const double dt = now() - t0;
    if (dt < best) best = dt;
  }
  return 2.0 * (double)(m / rows * rows) * n / best * 1e-9;
}

int main(int argc, char **argv) {
  const int64_t m = argc > 2 ? atol(argv[1]) : 1536, n = argc > 2 ? atol(argv[2]) : 2048;
  if (m < 48 || n < 64 || n % 16) {
    fprintf(stderr, "need m >= 48 and n >= 64, a multiple of 16\n");
    return 2;
  }
  const int64_t skew = 128; /* the row kernel's 512 bytes (gemv_skew) */
  float *a = aligned_alloc(4096, (size_t)(m * n + 4 * skew) * sizeof(float));
  float *x = aligned_alloc(64, (size_t)n * sizeof(float)), *y = aligned_alloc(64, (size_t)m * sizeof(float));
  if (!a || !x || !y) return 1;
  for (int64_t i = 0; i < m * n + 4 * skew; ++i) a[i] = (float)(i % 7) * 0.25f;
  for (int64_t k = 0; k < n; ++k) x[k] = 1.0f / (float)(k + 1);

  printf("float32 A %ld x %ld (%.1f MiB), row stride %ld bytes; GFLOP/s-equivalent\n", m, n,
         m * n * 4.0 / (1 << 20), n * 4);
  printf("%-26s", "rows read at once");
  for (int q = 0; q < NREADERS; ++q) printf("%7d", STREAMS[q]);
  printf("\n");
  for (int skewed = 0; skewed < 2; ++skewed) {
    printf("%-26s", skewed ? "  each 16 rows 512 B on" : "  as they lie");
    for (int q = 0; q < NREADERS; ++q)
      printf("%7.1f", best_rate(READERS[q], a, m, n, skewed ? skew : 0, STREAMS[q]));
    printf("\n");
  }
  for (int order = 0; order < 2; ++order) {
    double best = 1e30;
    for (int t = 0; t < ROUNDS; ++t) {
      const double t0 = now();
      if (reproblas_sgemv(ReproblasRowMajor, ReproblasNoTrans, m, n, 1.0f, a, n, x, 1, 0.0f, y, 1,
                          order ? ReproblasPairwise : ReproblasSequential))
        return 1;
      const double dt = now() - t0;
      if (dt < best) best = dt;
    }
    printf("reproblas_sgemv, %-10s %7.1f GFLOP/s\n", order ? "pairwise" : "sequential",
           2.0 * m * n / best * 1e-9);
  }
  return 0;
}
