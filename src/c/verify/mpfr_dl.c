#include "mpfr_dl.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "../crlibm/functions.h"

static vf_mpfr_api api;
static void *handle;

const vf_mpfr_api *vf_mpfr(void) { return handle ? &api : NULL; }

static int bind(void *h, const char *name, void **slot, char *err, size_t errlen) {
  *slot = dlsym(h, name);
  if (*slot == NULL) {
    snprintf(err, errlen, "symbol %s missing from the loaded libmpfr", name);
    return -1;
  }
  return 0;
}

/* The struct layout assumed in mpfr_dl.h, checked through the library. */
static int layout_ok(const vf_mpfr_api *a) {
  vf_mpfr_t v;
  a->init2(v, 77);
  int ok = v->prec == 77 && a->get_prec(v) == 77;
  a->set_d(v, -1.5, VF_MPFR_RNDN); /* -0.75 * 2^1 */
  ok = ok && v->exp == 1 && v->sign < 0;
  a->clear(v);
  return ok;
}

int vf_mpfr_load(const char *path, char *err, size_t errlen) {
  if (handle) return 0;
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (h == NULL) {
    snprintf(err, errlen, "cannot load %s: %s", path, dlerror());
    return -1;
  }
  vf_mpfr_api a;
  static const char *const fn_names[CR_FUNCTION_COUNT] = {
#define CR_FUNCTION(name, folder, lanes, avx2, mpfr, ...) "mpfr_" #mpfr,
#include "../crlibm/functions.def"
#undef CR_FUNCTION
  };
#define VF_BIND(field, name) \
  if (bind(h, name, (void **)&a.field, err, errlen)) goto fail;
  VF_BIND(init2, "mpfr_init2")
  VF_BIND(clear, "mpfr_clear")
  VF_BIND(get_prec, "mpfr_get_prec")
  VF_BIND(set_flt, "mpfr_set_flt")
  VF_BIND(set_d, "mpfr_set_d")
  VF_BIND(get_flt, "mpfr_get_flt")
  VF_BIND(get_d, "mpfr_get_d")
  VF_BIND(sub, "mpfr_sub")
  VF_BIND(div, "mpfr_div")
  VF_BIND(get_emin, "mpfr_get_emin")
  VF_BIND(get_emax, "mpfr_get_emax")
  VF_BIND(set_emin, "mpfr_set_emin")
  VF_BIND(set_emax, "mpfr_set_emax")
  VF_BIND(check_range, "mpfr_check_range")
  VF_BIND(subnormalize, "mpfr_subnormalize")
  VF_BIND(get_version, "mpfr_get_version")
  for (int i = 0; i < CR_FUNCTION_COUNT; ++i) VF_BIND(fn[i], fn_names[i])
#undef VF_BIND
  if (strncmp(a.get_version(), "4.", 2) != 0) {
    snprintf(err, errlen, "%s is MPFR %s; the verifier needs MPFR 4.x", path, a.get_version());
    goto fail;
  }
  if (!layout_ok(&a)) {
    snprintf(err, errlen, "%s: mpfr_t layout differs from the LP64 MPFR 4 layout", path);
    goto fail;
  }
  api = a;
  handle = h;
  return 0;
fail:
  dlclose(h);
  return -1;
}
