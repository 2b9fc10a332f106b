/* Fork-join over a fixed number of parts (a persistent pthread pool).
 *
 * Drivers cut their work into parts whose boundaries never change the result
 * (contract §0: no dependence on the thread count); this file only decides who
 * runs each part. Each part runs inside its own cr_fenv_enter/leave, since
 * the floating-point environment is per thread.
 */
#ifndef RB_THREAD_H
#define RB_THREAD_H

typedef void (*rb_part_fn)(void *ctx, int part, int parts);

/* Runs fn(ctx, p, parts) for every p in [0, parts): part 0 on the calling
 * thread, the others on pool workers (or on the caller when no thread can
 * be started). Returns when all parts are done. Safe to call from several
 * threads at once: one job uses the pool, the others get their own threads. */
void rb_parallel(int parts, rb_part_fn fn, void *ctx);

/* ---- cooperative stop (Ctrl-C in the Python layer) ----
 *
 * A caller installs a stop context on its own thread for one call: hook(arg),
 * asked on that thread at most every RB_STOP_POLL_MS while the call runs
 * (between work items, and while it waits for pool workers), returns nonzero
 * to stop the call. Drivers call rb_stop_poll() between their work items, on
 * any thread of the call; once it returns nonzero they skip the items left
 * and the entry point returns RB_STOPPED, with its outputs partly written.
 * The core knows nothing of Python: the hook is the Cython layer's. A thread
 * with no context (every C ABI call) is never stopped. */
/* 50 ms: a hook that takes the Python GIL can wait up to Python's switch
 * interval (5 ms) for it while another thread runs Python code. */
enum { RB_STOPPED = -3, RB_STOP_POLL_MS = 50 };

typedef struct rb_stop_ctx {
  int (*hook)(void *arg);
  void *arg;
  /* set by rb_stop_begin; next_ns <= 0 until the second rb_stop_poll */
  long next_ns;
  int stopped;
  struct rb_stop_ctx *prev;
} rb_stop_ctx;

/* Makes ctx (hook and arg filled in) the calling thread's context until
 * rb_stop_end(ctx), which restores the previous one (calls may nest, from a
 * signal handler) and returns whether the call was stopped. */
void rb_stop_begin(rb_stop_ctx *ctx);
int rb_stop_end(rb_stop_ctx *ctx);

/* Between work items: nonzero when the current call is to stop. */
int rb_stop_poll(void);

/* On the calling thread, after rb_parallel: whether its call was stopped. */
int rb_stopped(void);

/* ---- an OpenMP runtime's threads instead of the pool ----
 *
 * A process whose other library (PyTorch) keeps an OpenMP team busy between
 * our calls has two sets of threads polling for work on the same cores. Given
 * that runtime's GOMP_parallel (libgomp's entry point; LLVM's and Intel's
 * runtimes export it too), rb_parallel runs its parts on that runtime's
 * threads: the team claims parts one by one, so a team smaller than asked
 * for still runs every part. NULL: the pool again. Parts, and so results,
 * are the same either way; only an interrupt may wait for parts already
 * running on other threads of the team. A forked child goes back to the
 * own pool (the team's threads do not exist there). */
typedef void (*rb_omp_parallel_fn)(void (*fn)(void *), void *data, unsigned threads,
                                   unsigned flags);
void rb_use_omp_runtime(rb_omp_parallel_fn run);
/* The runtime set by rb_use_omp_runtime (NULL: none). */
rb_omp_parallel_fn rb_omp_runtime(void);

/* How many times a pool worker, woken on its caller's CPU, moved itself to
 * another CPU it may run on (its affinity mask is left as it was). */
unsigned long rb_pool_moves(void);

/* Number of CPUs this process may run on (at least 1). */
int rb_cpu_count(void);

#endif /* RB_THREAD_H */
