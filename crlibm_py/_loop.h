/* The ufuncs' float32 loop as a NumPy ArrayMethod whose get_loop reads
 * CRLIBM_ISA. NumPy calls get_loop once per ufunc call with the GIL held and
 * then runs the loop without it: a getenv in the loop itself raced with
 * os.environ updates from other Python threads (putenv may move the
 * environment block) and could crash the process. Included by _ufuncs.pyx,
 * after NumPy's headers (same translation unit as its import_array). */
#ifndef CRLIBM_PY_LOOP_H
#define CRLIBM_PY_LOOP_H

#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include <numpy/dtype_api.h>
#include <numpy/ufuncobject.h>

#include "crlibm_core.h"
#include "isa.h"

/* What the loop needs: which function, on which CPU path. One static entry per
 * pair, so get_loop allocates nothing and the free/clone hooks are trivial. */
typedef struct {
  NpyAuxData base;
  int fn, isa;
} cr_loop_data;

static cr_loop_data cr_loop_table[CR_FUNCTION_COUNT][CR_ISA_COUNT];
static int cr_last_loop_isa = -1; /* written under the GIL; read by the tests */

static void cr_loop_data_free(NpyAuxData *d) { (void)d; }
static NpyAuxData *cr_loop_data_clone(NpyAuxData *d) { return d; }

/* Ctrl-C. NumPy runs the loop without the GIL, in one call for a contiguous
 * array of any size (in buffers of a few thousand elements when it casts);
 * Python runs signal handlers in the main thread only. So there the loop goes
 * in chunks, and after a chunk, at most every CR_POLL_NS (over successive
 * calls too), takes the GIL to run the pending handlers: when one raises
 * (KeyboardInterrupt), the loop returns -1 with that error set, which NumPy
 * raises; the output is then partly written. Each element's value does not
 * depend on the chunk it is in. */
#define CR_CHUNK ((npy_intp)1 << 20)
#define CR_POLL_NS 50000000L /* taking the GIL can wait Python's 5 ms switch interval */
static unsigned long cr_main_thread; /* threading.main_thread().ident, set at import */
static long cr_next_poll;            /* read and written by the main thread only */

static long cr_now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000L + t.tv_nsec;
}

static int cr_loop(PyArrayMethod_Context *context, char *const *args, const npy_intp *dims,
                   const npy_intp *steps, NpyAuxData *data) {
  (void)context;
  const cr_loop_data *d = (const cr_loop_data *)data;
  const npy_intp n = dims[0];
  if (PyThread_get_thread_ident() != cr_main_thread) {
    cr_apply_strided(d->fn, d->isa, args[0], steps[0], args[1], steps[1], (size_t)n);
    return 0;
  }
  for (npy_intp i = 0; i < n; i += CR_CHUNK) {
    const npy_intp m = n - i < CR_CHUNK ? n - i : CR_CHUNK;
    cr_apply_strided(d->fn, d->isa, args[0] + i * steps[0], steps[0], args[1] + i * steps[1],
                     steps[1], (size_t)m);
    const long now = cr_now_ns();
    if (now >= cr_next_poll) {
      cr_next_poll = now + CR_POLL_NS;
      const PyGILState_STATE gil = PyGILState_Ensure(); /* also when NumPy kept the GIL */
      const int rc = PyErr_CheckSignals();
      PyGILState_Release(gil);
      if (rc != 0) return -1;
    }
  }
  return 0;
}

/* The path CRLIBM_ISA names, else the best one: the public wrappers reject a
 * bad name with a clear error before they reach the ufunc. */
static int cr_isa_from_env(void) {
  const int isa = cr_isa_parse(getenv("CRLIBM_ISA"));
  return isa >= 0 ? isa : cr_isa_best();
}

static int cr_get_loop(int fn, PyArrayMethod_StridedLoop **loop, NpyAuxData **data,
                       NPY_ARRAYMETHOD_FLAGS *flags) {
  const int isa = cr_isa_from_env();
  cr_last_loop_isa = isa;
  *loop = cr_loop;
  *data = &cr_loop_table[fn][isa].base;
  *flags = NPY_METH_NO_FLOATINGPOINT_ERRORS; /* cr_apply_strided restores the flags */
  return 0;
}

/* get_loop has no argument that says which ufunc it serves: one per function. */
#define CR_GET_LOOP(fn)                                                                        \
  static int cr_get_loop_##fn(PyArrayMethod_Context *context, int aligned, int move_references, \
                              const npy_intp *strides, PyArrayMethod_StridedLoop **loop,        \
                              NpyAuxData **data, NPY_ARRAYMETHOD_FLAGS *flags) {                \
    (void)context, (void)aligned, (void)move_references, (void)strides;                        \
    return cr_get_loop(CR_FN_ID_##fn, loop, data, flags);                                       \
  }
#define CR_FUNCTION(name, ...) CR_GET_LOOP(name)
#include "functions.def"
#undef CR_FUNCTION
#undef CR_GET_LOOP

static PyArrayMethod_GetLoop *const cr_get_loops[] = {
#define CR_FUNCTION(name, ...) cr_get_loop_##name,
#include "functions.def"
#undef CR_FUNCTION
};
_Static_assert(sizeof cr_get_loops / sizeof cr_get_loops[0] == CR_FUNCTION_COUNT,
               "one get_loop per function");

/* A DType as its users write it: "int32" rather than the DType class. */
static PyObject *cr_dtype_name(PyArray_DTypeMeta *dtype) {
  return dtype->singleton ? (PyObject *)dtype->singleton : (PyObject *)dtype;
}

/* The promoter for inputs of other types (the loop above is float32 only):
 * those that cast safely to float32 (bool, 8- and 16-bit integers, float16)
 * become float32, as with a legacy "f->f" loop, and so does any input when
 * dtype= or signature= asks for float32 (NumPy's `casting` rule then decides);
 * anything else is a TypeError that says what to do. */
static int cr_promote(PyObject *ufunc, PyArray_DTypeMeta *const op_dtypes[],
                      PyArray_DTypeMeta *const signature[], PyArray_DTypeMeta *new_op_dtypes[]) {
  PyArray_DTypeMeta *const f32 = &PyArray_FloatDType;
  const char *name = ((PyUFuncObject *)ufunc)->name;
  for (int i = 0; i < 2; ++i)
    if (signature[i] != NULL && signature[i] != f32) {
      PyErr_Format(PyExc_TypeError,
                   "%s has a float32 loop only (dtype or signature asks for %S): compute in "
                   "float32 and cast the result",
                   name, cr_dtype_name(signature[i]));
      return -1;
    }
  PyArray_Descr *in = op_dtypes[0]->singleton;
  if (signature[0] == NULL && signature[1] == NULL &&
      (in == NULL || !PyArray_CanCastTypeTo(in, f32->singleton, NPY_SAFE_CASTING))) {
    PyErr_Format(PyExc_TypeError,
                 "%s takes float32 (or a type that casts safely to it), not %S: cast the input "
                 "to float32 first (x.astype(numpy.float32)) if rounding it is intended",
                 name, cr_dtype_name(op_dtypes[0]));
    return -1;
  }
  for (int i = 0; i < 2; ++i) {
    Py_INCREF(f32);
    new_op_dtypes[i] = f32;
  }
  return 0;
}

/* The legacy table, read by ufunc.types ('f->f') and ufunc.ntypes only: NumPy consults it
 * for dtypes that neither a registered loop nor a promoter takes, and the promoter above
 * takes them all. Should it run, it gives the same bits (every path has the same results). */
static void cr_listed_loop(char **args, const npy_intp *dims, const npy_intp *steps,
                           void *data) {
  cr_apply_strided((int)(intptr_t)data, cr_isa_best(), args[0], steps[0], args[1], steps[1],
                   (size_t)dims[0]);
}
static PyUFuncGenericFunction cr_listed_loops[1] = {cr_listed_loop};
static char cr_listed_types[2] = {NPY_FLOAT, NPY_FLOAT};
static void *cr_listed_data[CR_FUNCTION_COUNT][1];

/* Registers function fn's float32 -> float32 loop and the promoter on a ufunc
 * made without legacy loops (a legacy loop given at creation would be registered for
 * float32 first), then lists the loop in the legacy table. */
static int cr_add_loop(PyObject *ufunc, int fn) {
  for (int isa = 0; isa < CR_ISA_COUNT; ++isa) {
    cr_loop_data *d = &cr_loop_table[fn][isa];
    d->base.free = cr_loop_data_free;
    d->base.clone = cr_loop_data_clone;
    d->fn = fn, d->isa = isa;
  }
  PyArray_DTypeMeta *dtypes[2] = {&PyArray_FloatDType, &PyArray_FloatDType};
  PyType_Slot slots[] = {{NPY_METH_get_loop, (void *)cr_get_loops[fn]}, {0, NULL}};
  PyArrayMethod_Spec spec = {
      .name = "crlibm_float32",
      .nin = 1,
      .nout = 1,
      .casting = NPY_NO_CASTING,
      .flags = NPY_METH_NO_FLOATINGPOINT_ERRORS,
      .dtypes = dtypes,
      .slots = slots,
  };
  if (PyUFunc_AddLoopFromSpec(ufunc, &spec) < 0) return -1;
  PyObject *any = PyTuple_Pack(2, (PyObject *)&PyArrayDescr_Type, Py_None);
  PyObject *promoter = PyCapsule_New((void *)cr_promote, "numpy._ufunc_promoter", NULL);
  const int rc = any && promoter ? PyUFunc_AddPromoter(ufunc, any, promoter) : -1;
  Py_XDECREF(any);
  Py_XDECREF(promoter);
  if (rc < 0) return -1;
  PyUFuncObject *u = (PyUFuncObject *)ufunc;
  cr_listed_data[fn][0] = (void *)(intptr_t)fn;
  u->functions = cr_listed_loops;
  u->data = cr_listed_data[fn];
  u->types = cr_listed_types;
  u->ntypes = 1;
  return 0;
}

#endif
