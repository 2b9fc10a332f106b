/* Fork-join on a small persistent pool of pthreads.
 *
 * One job runs on the pool at a time: the caller runs part 0 and then, like
 * the workers, claims the remaining parts one by one under the pool lock.
 * A caller that finds the pool busy (another Python thread is inside
 * reproblas) starts its own threads for that call instead. After fork() the
 * child starts with an empty pool. Which thread runs a part never matters:
 * parts are fixed by the driver, and each runs in its own FP environment.
 */
#define _GNU_SOURCE
#include "thread.h"

#include <pthread.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

#include "../../common/fp_env.h"
#include "partition.h"

/* Waits poll this long before they sleep: an idle worker for the next job
 * (calls in a loop then find it awake), the caller for the last part to end.
 * Waking a sleeping thread costs tens of microseconds on bare metal and up to
 * about a millisecond in the VMs measured here, where 0.2 ms of polling left
 * 2-thread gemm at n = 512 no faster than 1 thread (2 ms: 1.6-1.9x); an idle
 * pool stops using CPU after that (OpenBLAS's workers poll for ~0.1 s). */
#define RB_SPIN_NS 2000000L

static long now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000L + t.tv_nsec;
}

/* ---- cooperative stop ---- */

/* initial-exec: read at every call, these are then one %fs-relative load instead
 * of a __tls_get_addr call (the library is a Python extension, loaded by dlopen:
 * the 16 bytes come from glibc's static TLS surplus) */
#if defined(__GNUC__) && defined(__linux__)
#define RB_TLS __thread __attribute__((tls_model("initial-exec")))
#else
#define RB_TLS __thread
#endif
static RB_TLS rb_stop_ctx *tls_stop_ctx; /* the context of this thread's call */
static RB_TLS int *tls_job_stop;         /* the stop flag of the job whose part runs here */

/* The clock is first read at the second poll, which sets the first deadline
 * (next_ns 0: no poll yet, -1: one), so that a call of one work item (every
 * small call) never reads it; the first hook call comes at most one item later. */
void rb_stop_begin(rb_stop_ctx *ctx) {
  ctx->next_ns = 0;
  ctx->stopped = 0;
  ctx->prev = tls_stop_ctx;
  tls_stop_ctx = ctx;
}

int rb_stop_end(rb_stop_ctx *ctx) {
  tls_stop_ctx = ctx->prev;
  return ctx->stopped;
}

int rb_stop_poll(void) {
  int *flag = tls_job_stop;
  if (flag && __atomic_load_n(flag, __ATOMIC_RELAXED)) return 1;
  rb_stop_ctx *c = tls_stop_ctx;
  if (!c) return 0;
  if (c->stopped) return 1;
  if (c->next_ns <= 0) {
    c->next_ns = c->next_ns == 0 ? -1 : now_ns() + RB_STOP_POLL_MS * 1000000L;
    return 0;
  }
  const long t = now_ns();
  if (t < c->next_ns) return 0;
  c->next_ns = t + RB_STOP_POLL_MS * 1000000L;
  /* the hook may run Python code: whatever it does to the floating-point
   * environment, the kernels go on in theirs */
  const cr_fenv_t env = cr_fenv_enter();
  const int stop = c->hook(c->arg);
  cr_fenv_leave(env);
  if (!stop) return 0;
  c->stopped = 1;
  if (flag) __atomic_store_n(flag, 1, __ATOMIC_RELAXED); /* the other threads' items */
  return 1;
}

int rb_stopped(void) { return tls_stop_ctx && tls_stop_ctx->stopped; }

/* flag: the job's stop flag, which rb_stop_poll reads on this thread. */
static void run_part(rb_part_fn fn, void *ctx, int part, int parts, int *flag) {
  int *outer = tls_job_stop;
  tls_job_stop = flag;
  cr_fenv_t saved = cr_fenv_enter();
  fn(ctx, part, parts);
  cr_fenv_leave(saved);
  tls_job_stop = outer;
}

/* Waits on cond (mutex held) until *count is 0. With a stop context it wakes
 * every poll interval to ask the hook, the mutex released meanwhile (the hook
 * may wait for the Python GIL): the running parts then stop at their next item. */
static void wait_for_zero(pthread_cond_t *cond, pthread_mutex_t *mutex, const int *count) {
  while (__atomic_load_n(count, __ATOMIC_ACQUIRE) > 0) {
    if (!tls_stop_ctx || tls_stop_ctx->stopped) {
      pthread_cond_wait(cond, mutex);
      continue;
    }
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_nsec += RB_STOP_POLL_MS * 1000000L;
    if (until.tv_nsec >= 1000000000L) until.tv_sec += 1, until.tv_nsec -= 1000000000L;
    pthread_cond_timedwait(cond, mutex, &until);
    if (__atomic_load_n(count, __ATOMIC_ACQUIRE) > 0) {
      pthread_mutex_unlock(mutex);
      rb_stop_poll();
      pthread_mutex_lock(mutex);
    }
  }
}

/* ---- the pool ---- */

static struct {
  pthread_mutex_t busy; /* held by the caller whose job owns the pool */
  pthread_mutex_t lock; /* guards everything below */
  pthread_cond_t start, done;
  int workers;
  unsigned long generation; /* bumped for each job */
  rb_part_fn fn;
  void *ctx;
  int parts, next_part, pending;
  int caller_cpu; /* where the current job's caller runs (-1: unknown) */
  int stop;       /* the job's stop flag: parts not yet claimed are skipped */
} pool = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER,
          PTHREAD_COND_INITIALIZER, 0, 0, NULL, NULL, 0, 0, 0, -1, 0};

static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

static rb_omp_parallel_fn omp_parallel; /* rb_use_omp_runtime */

static void pool_reset_in_child(void) {
  /* a forked child has none of the parent's threads: an OpenMP team the parent used cannot
   * start there (GNU libgomp would wait for them), the own pool starts empty */
  omp_parallel = NULL;
  pthread_mutex_init(&pool.busy, NULL);
  pthread_mutex_init(&pool.lock, NULL);
  pthread_cond_init(&pool.start, NULL);
  pthread_cond_init(&pool.done, NULL);
  pool.workers = 0; /* the parent's workers do not exist here */
}

static void register_atfork(void) { pthread_atfork(NULL, NULL, pool_reset_in_child); }

/* Run claimable parts of the current job; called and returns with pool.lock held. */
static void claim_parts(void) {
  while (pool.next_part < pool.parts) {
    int skip = __atomic_load_n(&pool.stop, __ATOMIC_RELAXED);
    int part = pool.next_part++;
    rb_part_fn fn = pool.fn;
    void *ctx = pool.ctx;
    int parts = pool.parts;
    if (!skip) {
      pthread_mutex_unlock(&pool.lock);
      run_part(fn, ctx, part, parts, &pool.stop);
      pthread_mutex_lock(&pool.lock);
    }
    /* atomic: a spinning caller reads it without the lock */
    if (__atomic_sub_fetch(&pool.pending, 1, __ATOMIC_RELEASE) == 0)
      pthread_cond_signal(&pool.done);
  }
}

/* One poll of a spin-wait (the pool lock not held): 0 once `until` has
 * passed. Every 64 polls it yields, for when there are more threads than
 * cores and the thread waited for needs this one's core. */
static int spin_more(int i, long until) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
  if (i % 64) return 1;
  sched_yield();
  return now_ns() <= until;
}

/* Polls, with the pool lock released, while cond holds (at most RB_SPIN_NS). */
#define RB_SPIN_WHILE(cond)                                                      \
  do {                                                                           \
    pthread_mutex_unlock(&pool.lock);                                            \
    const long until_ = now_ns() + RB_SPIN_NS;                                   \
    for (int i_ = 1; (cond) && spin_more(i_, until_); ++i_) {                    \
    }                                                                            \
    pthread_mutex_lock(&pool.lock);                                              \
  } while (0)

/* A woken worker may be queued on the caller's CPU while another allowed CPU
 * is idle (wake-affine placement); the balancer can take milliseconds to move
 * it, and meanwhile the two share one core. If so, the worker moves itself once:
 * its affinity without that CPU, then its own mask again (no lasting pinning). */
static unsigned long caller_cpu_moves; /* how often (rb_pool_moves, for tests) */

static void leave_caller_cpu(int caller_cpu) {
#if defined(__linux__)
  cpu_set_t mask, others;
  if (caller_cpu < 0 || caller_cpu >= CPU_SETSIZE || sched_getcpu() != caller_cpu) return;
  if (sched_getaffinity(0, sizeof mask, &mask) != 0) return;
  others = mask;
  CPU_CLR(caller_cpu, &others);
  if (CPU_COUNT(&others) == 0 || sched_setaffinity(0, sizeof others, &others) != 0) return;
  sched_setaffinity(0, sizeof mask, &mask);
  __atomic_add_fetch(&caller_cpu_moves, 1, __ATOMIC_RELAXED);
#else
  (void)caller_cpu;
#endif
}

static void *worker_main(void *arg) {
  (void)arg;
  pthread_mutex_lock(&pool.lock);
  unsigned long seen = pool.generation;
  for (;;) {
    if (pool.generation == seen)
      RB_SPIN_WHILE(__atomic_load_n(&pool.generation, __ATOMIC_ACQUIRE) == seen);
    while (pool.generation == seen) pthread_cond_wait(&pool.start, &pool.lock);
    seen = pool.generation;
    const int caller_cpu = pool.caller_cpu;
    pthread_mutex_unlock(&pool.lock);
    leave_caller_cpu(caller_cpu);
    pthread_mutex_lock(&pool.lock);
    claim_parts();
  }
  return NULL;
}

static void run_on_pool(int parts, rb_part_fn fn, void *ctx) {
  pthread_mutex_lock(&pool.lock);
  while (pool.workers < parts - 1) { /* grow; fewer workers only means less parallelism */
    pthread_t tid;
    if (pthread_create(&tid, NULL, worker_main, NULL) != 0) break;
    pthread_detach(tid);
    ++pool.workers;
  }
  pool.fn = fn;
  pool.ctx = ctx;
  pool.parts = parts;
#if defined(__linux__)
  pool.caller_cpu = sched_getcpu();
#endif
  pool.next_part = 1;
  pool.pending = parts - 1;
  pool.stop = rb_stopped();
  __atomic_add_fetch(&pool.generation, 1, __ATOMIC_RELEASE); /* spinning workers read it */
  pthread_cond_broadcast(&pool.start);
  pthread_mutex_unlock(&pool.lock);

  int *outer = tls_job_stop;
  tls_job_stop = &pool.stop; /* rb_stop_poll on this thread raises the job's flag */
  run_part(fn, ctx, 0, parts, &pool.stop);

  pthread_mutex_lock(&pool.lock);
  claim_parts();
  if (pool.pending > 0) RB_SPIN_WHILE(__atomic_load_n(&pool.pending, __ATOMIC_ACQUIRE) > 0);
  wait_for_zero(&pool.done, &pool.lock, &pool.pending);
  tls_job_stop = outer;
  pool.fn = NULL;
  pool.ctx = NULL;
  pthread_mutex_unlock(&pool.lock);
}

/* ---- fallback: threads for this call only ---- */

typedef struct {
  pthread_mutex_t lock;
  pthread_cond_t done;
  int running, stop; /* threads still running; the call's stop flag */
} rb_call;

typedef struct {
  rb_part_fn fn;
  void *ctx;
  int part, parts;
  rb_call *call;
} rb_part;

static void *spawned_main(void *arg) {
  const rb_part *p = arg;
  run_part(p->fn, p->ctx, p->part, p->parts, &p->call->stop);
  pthread_mutex_lock(&p->call->lock);
  if (--p->call->running == 0) pthread_cond_signal(&p->call->done);
  pthread_mutex_unlock(&p->call->lock);
  return NULL;
}

static void run_on_new_threads(int parts, rb_part_fn fn, void *ctx) {
  rb_part desc[RB_MAX_PARTS];
  pthread_t tid[RB_MAX_PARTS];
  int started[RB_MAX_PARTS];
  rb_call call = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, rb_stopped()};
  for (int p = 0; p < parts; ++p) desc[p] = (rb_part){fn, ctx, p, parts, &call};
  pthread_mutex_lock(&call.lock);
  for (int p = 1; p < parts; ++p) {
    started[p] = pthread_create(&tid[p], NULL, spawned_main, &desc[p]) == 0;
    call.running += started[p];
  }
  pthread_mutex_unlock(&call.lock);
  int *outer = tls_job_stop;
  tls_job_stop = &call.stop;
  run_part(fn, ctx, 0, parts, &call.stop);
  for (int p = 1; p < parts; ++p)
    if (!started[p] && !rb_stop_poll()) run_part(fn, ctx, p, parts, &call.stop);
  pthread_mutex_lock(&call.lock);
  wait_for_zero(&call.done, &call.lock, &call.running);
  pthread_mutex_unlock(&call.lock);
  tls_job_stop = outer;
  for (int p = 1; p < parts; ++p)
    if (started[p]) pthread_join(tid[p], NULL);
  pthread_mutex_destroy(&call.lock);
  pthread_cond_destroy(&call.done);
}

/* ---- on an OpenMP runtime's team ---- */

void rb_use_omp_runtime(rb_omp_parallel_fn run) {
  pthread_once(&atfork_once, register_atfork); /* a child forked from now on drops it */
  __atomic_store_n(&omp_parallel, run, __ATOMIC_RELEASE);
}

rb_omp_parallel_fn rb_omp_runtime(void) { return __atomic_load_n(&omp_parallel, __ATOMIC_ACQUIRE); }

typedef struct {
  rb_part_fn fn;
  void *ctx;
  int parts;
  int next_part; /* claimed with an atomic increment */
  int stop;      /* the job's stop flag */
} rb_omp_job;

/* Every member of the team, the caller included, claims parts until none is left. */
static void omp_member(void *arg) {
  rb_omp_job *job = arg;
  for (;;) {
    const int part = __atomic_fetch_add(&job->next_part, 1, __ATOMIC_RELAXED);
    if (part >= job->parts) return;
    if (!__atomic_load_n(&job->stop, __ATOMIC_RELAXED))
      run_part(job->fn, job->ctx, part, job->parts, &job->stop);
  }
}

static void run_on_omp(rb_omp_parallel_fn run, int parts, rb_part_fn fn, void *ctx) {
  rb_omp_job job = {fn, ctx, parts, 0, rb_stopped()};
  run(omp_member, &job, (unsigned)parts, 0);
}

void rb_parallel(int parts, rb_part_fn fn, void *ctx) {
  if (parts > RB_MAX_PARTS) parts = RB_MAX_PARTS;
  if (parts <= 1) {
    fn(ctx, 0, 1);
    return;
  }
  pthread_once(&atfork_once, register_atfork);
  const rb_omp_parallel_fn run = rb_omp_runtime();
  if (run) {
    run_on_omp(run, parts, fn, ctx);
    return;
  }
  if (pthread_mutex_trylock(&pool.busy) == 0) {
    run_on_pool(parts, fn, ctx);
    pthread_mutex_unlock(&pool.busy);
  } else {
    run_on_new_threads(parts, fn, ctx);
  }
}

unsigned long rb_pool_moves(void) { return __atomic_load_n(&caller_cpu_moves, __ATOMIC_RELAXED); }

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
