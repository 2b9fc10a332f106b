/* Speed of the AVX2 gemm micro-kernels alone (sequential and pairwise, float32
 * and float64) on packed panels that stay in L1/L2: the bound of block_seq /
 * block_pw without packing, level copies or write-out. Thread CPU time (a
 * preempted turn is not charged for the wait), kernels in turn, best of 20.
 *
 *   gcc -O2 -std=gnu11 -ffp-contract=off -Isrc/c -Isrc/c/reproblas -Isrc/c/common \
 *       tools/bench_reproblas_ukernel.c src/c/common/isa.c -o /tmp/ukernel -lm && /tmp/ukernel [kc]
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "isa.h"

void *rb_l3_scratch(size_t bytes);
#include "kernels/avx2/gemm.c" /* the engine's static kernels: seq_gemm_f32, pw_gemm_f64, ... */
void *rb_l3_scratch(size_t bytes) { return malloc(bytes); }

static double cpu_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

enum { ROWS = 240, CALLS = 20, ROUNDS = 20 }; /* ROWS: a multiple of every tile height */

/* Best GFLOP/s of one kernel over ROWS rows of A (tile after tile) x one B panel. */
#define TIME_KERNEL(T, call, mr, nr)                                                      \
  do {                                                                                    \
    double t = cpu_now();                                                                 \
    for (int it = 0; it < CALLS; ++it)                                                    \
      for (int ti = 0; ti < ROWS / (mr); ++ti) call;                                      \
    t = cpu_now() - t;                                                                    \
    const double gf = 2.0 * CALLS * ROWS * (nr) * kc / t * 1e-9;                          \
    if (gf > best) best = gf;                                                             \
  } while (0)

#define BENCH(T, SFX, W)                                                                  \
  static void bench_##SFX(int64_t kc) {                                                   \
    T *a = aligned_alloc(64, sizeof(T) * kc * ROWS), *b = aligned_alloc(64, sizeof(T) * kc * 16); \
    T *out = aligned_alloc(64, sizeof(T) * 64 * 16);                                      \
    for (int64_t i = 0; i < kc * ROWS; ++i) a[i] = (T)((i * 7919) % 1000) / 997 - (T)0.3; \
    for (int64_t i = 0; i < kc * 16; ++i) b[i] = (T)((i * 104729) % 1000) / 991 - (T)0.4; \
    const int smr = RB_SEQ_MV * W, pmr = RB_PW_MV * W;                                    \
    /* called through pointers, as out-of-line calls (inlined into the timing */          \
    /* loop, they were compiled differently and ran 20-40 % slower) */                    \
    void (*volatile seq_k)(int64_t, const T *, const T *, T *, int) = seq_gemm_##SFX;     \
    void (*volatile pw_k)(int64_t, const T *, const T *, const T *, T *) = pw_gemm_##SFX; \
    double seq = 0, pw = 0;                                                               \
    for (int r = 0; r < ROUNDS; ++r) {                                                    \
      double best = seq;                                                                  \
      TIME_KERNEL(T, seq_k(kc, a + (int64_t)ti * smr * kc, b, out, 1), smr, RB_SEQ_NR); \
      seq = best, best = pw;                                                              \
      TIME_KERNEL(T, pw_k(kc, a + (int64_t)ti * pmr * kc, b, NULL, out), pmr, RB_PW_NR); \
      pw = best;                                                                          \
    }                                                                                     \
    printf("%s kc %4lld: sequential %dx%d %6.1f GFLOP/s, pairwise %dx%d %6.1f (%.2f)\n",   \
           #SFX, (long long)kc, smr, RB_SEQ_NR, seq, pmr, RB_PW_NR, pw, pw / seq);         \
    free(a), free(b), free(out);                                                          \
  }
BENCH(float, f32, V32_W)
BENCH(double, f64, V64_W)

int main(int argc, char **argv) {
  if (!cr_isa_supported(CR_ISA_AVX2)) return puts("needs AVX2+FMA"), 0;
  const int64_t kc = argc > 1 ? atoll(argv[1]) : 256; /* pairwise: a power of two >= 4 */
  bench_f32(kc);
  bench_f64(kc / 2);
  return 0;
}
