/* Fork-join over a fixed number of parts (a persistent pthread pool).
 *
 * Drivers cut their work into parts whose boundaries never change the result
 * (SPEC §0: no dependence on the thread count); this file only decides who
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

/* How many times a pool worker, woken on its caller's CPU, moved itself to
 * another CPU it may run on (its affinity mask is left as it was). */
unsigned long rb_pool_moves(void);

/* Number of CPUs this process may run on (at least 1). */
int rb_cpu_count(void);

#endif /* RB_THREAD_H */
