/* MPFR loaded at run time (dlopen), so building the verifier needs neither
 * MPFR headers nor the library: the verifier uses the libmpfr that gmpy2's
 * wheel ships, found by the Python side.
 *
 * Only the few entry points the verifier needs are declared. The mpfr_t
 * layout below is MPFR 4's on LP64 targets (prec and exp are long); it is
 * checked against the loaded library in vf_mpfr_load().
 */
#ifndef VF_MPFR_DL_H
#define VF_MPFR_DL_H

#include <stddef.h>

#include "../crlibm/functions.h"

typedef struct {
  long prec;
  int sign;
  long exp;
  void *limbs;
} vf_mpfr_struct;
typedef vf_mpfr_struct vf_mpfr_t[1];
typedef vf_mpfr_struct *vf_mpfr_ptr;

enum { VF_MPFR_RNDN = 0 };

typedef int (*vf_mpfr_fn1)(vf_mpfr_ptr, const vf_mpfr_struct *, int);

/* The entry points, valid after a successful vf_mpfr_load(). */
typedef struct {
  void (*init2)(vf_mpfr_ptr, long);
  void (*clear)(vf_mpfr_ptr);
  long (*get_prec)(const vf_mpfr_struct *);
  int (*set_flt)(vf_mpfr_ptr, float, int);
  int (*set_d)(vf_mpfr_ptr, double, int);
  float (*get_flt)(const vf_mpfr_struct *, int);
  double (*get_d)(const vf_mpfr_struct *, int);
  int (*sub)(vf_mpfr_ptr, const vf_mpfr_struct *, const vf_mpfr_struct *, int);
  int (*div)(vf_mpfr_ptr, const vf_mpfr_struct *, const vf_mpfr_struct *, int);
  long (*get_emin)(void);
  long (*get_emax)(void);
  int (*set_emin)(long);
  int (*set_emax)(long);
  int (*check_range)(vf_mpfr_ptr, int, int);
  int (*subnormalize)(vf_mpfr_ptr, int, int);
  const char *(*get_version)(void);
  /* mpfr_<mpfr> of each function of functions.def, in registry order. */
  vf_mpfr_fn1 fn[CR_FUNCTION_COUNT];
} vf_mpfr_api;

/* The loaded API, or NULL before a successful load. */
const vf_mpfr_api *vf_mpfr(void);

/* Load libmpfr from path (idempotent for the same path). Returns 0, or -1
 * with a message in err. */
int vf_mpfr_load(const char *path, char *err, size_t errlen);

#endif /* VF_MPFR_DL_H */
