#define _GNU_SOURCE
#include "thread.h"

#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include "../common/fp_env.h"

enum { RB_MAX_PARTS = 256 };

typedef struct {
  rb_part_fn fn;
  void *ctx;
  int part, parts;
} rb_part;

static void run_part(const rb_part *p) {
  cr_fenv_t saved = cr_fenv_enter();
  p->fn(p->ctx, p->part, p->parts);
  cr_fenv_leave(saved);
}

static void *thread_main(void *arg) {
  run_part((const rb_part *)arg);
  return NULL;
}

void rb_parallel(int parts, rb_part_fn fn, void *ctx) {
  if (parts > RB_MAX_PARTS) parts = RB_MAX_PARTS;
  if (parts <= 1) {
    fn(ctx, 0, 1);
    return;
  }
  rb_part desc[RB_MAX_PARTS];
  pthread_t tid[RB_MAX_PARTS];
  int started[RB_MAX_PARTS];
  for (int p = 0; p < parts; ++p) desc[p] = (rb_part){fn, ctx, p, parts};
  for (int p = 1; p < parts; ++p)
    started[p] = pthread_create(&tid[p], NULL, thread_main, &desc[p]) == 0;
  run_part(&desc[0]);
  for (int p = 1; p < parts; ++p) {
    if (started[p])
      pthread_join(tid[p], NULL);
    else
      run_part(&desc[p]);
  }
}

int rb_cpu_count(void) {
#if defined(__linux__)
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    int n = CPU_COUNT(&set);
    if (n > 0) return n;
  }
#endif
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (int)n : 1;
}
