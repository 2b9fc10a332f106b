/* The floating-point environment the kernels run in.
 *
 * Contract §0: results must not depend on the caller's rounding mode or FTZ/DAZ
 * bits. Every public entry point brackets its kernels with
 * cr_fenv_enter()/cr_fenv_leave(): round to nearest, subnormals honoured,
 * exceptions masked; the caller's state, including its sticky flags, is
 * restored on exit, so the library raises no floating-point warnings.
 */
#ifndef CR_FP_ENV_H
#define CR_FP_ENV_H

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
typedef unsigned int cr_fenv_t;
/* MXCSR: all exceptions masked, round to nearest, FTZ and DAZ off, no flags. */
#define CR_MXCSR_DEFAULT 0x1F80u
static inline cr_fenv_t cr_fenv_enter(void) {
  cr_fenv_t saved = _mm_getcsr();
  _mm_setcsr(CR_MXCSR_DEFAULT);
  return saved;
}
static inline void cr_fenv_leave(cr_fenv_t saved) { _mm_setcsr(saved); }
#else
#include <fenv.h>
typedef fenv_t cr_fenv_t;
static inline cr_fenv_t cr_fenv_enter(void) {
  cr_fenv_t saved;
  feholdexcept(&saved);
  fesetenv(FE_DFL_ENV);
  return saved;
}
static inline void cr_fenv_leave(cr_fenv_t saved) { fesetenv(&saved); }
#endif

/* An empty asm that "changes" v: the compiler must compute v before it and may not move
 * arithmetic on v across it. The environment switch is invisible to the optimiser, which
 * would otherwise be free to move a lone conversion out of the bracket (to its use). */
#if defined(__GNUC__)
#define CR_FP_PIN(v) __asm__ volatile("" : "+m"(v))
#else
#define CR_FP_PIN(v) ((void)0)
#endif

/* v rounded to float32 inside the library's environment (to nearest, no FTZ). */
static inline float cr_round_f32(double v) {
  cr_fenv_t saved = cr_fenv_enter();
  CR_FP_PIN(v);
  float r = (float)v;
  CR_FP_PIN(r);
  cr_fenv_leave(saved);
  return r;
}

#endif /* CR_FP_ENV_H */
