# cython: language_level=3, boundscheck=False, wraparound=False
"""The NumPy ufuncs behind crlibm_py: one float32 -> float32 loop per function.

The ufuncs are named ``cr_<f>`` (not ``<f>``) so that array libraries which
route a foreign ufunc to their own function of the same NumPy name (CuPy does)
never substitute a non-correctly-rounded function for ours.
"""
from libc.stddef cimport ptrdiff_t
cimport numpy as cnp
from numpy cimport npy_intp

cnp.import_array()
cnp.import_ufunc()

cdef extern from "crlibm_core.h":
    enum: CR_FUNCTION_COUNT
    const char *cr_function_name(int fn)
    void cr_apply_strided(int fn, int isa, const char *x, ptrdiff_t sx, char *y,
                          ptrdiff_t sy, size_t n) nogil

cdef extern from "registry_rows.h":
    enum: CR_REGISTRY_FIELDS
    const char *cr_registry_rows[][CR_REGISTRY_FIELDS]

cdef extern from "scalar_calls.h":
    int cr_scalar_calls_available()
    void cr_apply_scalar_calls(int fn, const float *x, float *y, size_t n) nogil

cdef extern from "isa.h":
    enum: CR_ISA_COUNT
    const char *cr_isa_name(int isa)
    int cr_isa_supported(int isa)
    int cr_isa_best() nogil
    int cr_isa_parse(const char *name) nogil

cdef extern from "fp_env.h":
    ctypedef int cr_fenv_t  # the header's type
    cr_fenv_t cr_fenv_enter() nogil
    void cr_fenv_leave(cr_fenv_t saved) nogil

cdef extern from "numpy/ufuncobject.h":
    ctypedef void (*PyUFuncGenericFunction)(char **, const npy_intp *, const npy_intp *, void *) noexcept nogil
    object PyUFunc_FromFuncAndData(PyUFuncGenericFunction *func, void **data, char *types,
                                   int ntypes, int nin, int nout, int identity, const char *name,
                                   const char *doc, int unused)
    int PyUFunc_None


cdef extern from "_loop.h":
    int cr_add_loop(object ufunc, int fn) except -1
    int cr_last_loop_isa
    unsigned long cr_main_thread

import threading
cr_main_thread = threading.main_thread().ident


def last_loop_isa():
    """The CPU path the latest ufunc call chose from CRLIBM_ISA (tests)."""
    return cr_isa_name(cr_last_loop_isa).decode() if cr_last_loop_isa >= 0 else None


cdef dict _ufuncs = {}
cdef int _fn
cdef bytes _name, _doc
_keep = []  # the ufuncs keep pointers to these names and docs
for _fn in range(CR_FUNCTION_COUNT):
    _name = b"cr_" + cr_function_name(_fn)
    _doc = (b"Correctly rounded float32 " + cr_function_name(_fn) +
            b" (raw ufunc; float32 loop only).")
    _keep.append((_name, _doc))
    _ufunc = PyUFunc_FromFuncAndData(NULL, NULL, NULL, 0, 1, 1, PyUFunc_None, _name, _doc, 0)
    cr_add_loop(_ufunc, _fn)
    _ufuncs[cr_function_name(_fn).decode()] = _ufunc

ufuncs = _ufuncs


def isa_names():
    """Names of all CPU code paths, in order of preference (worst first)."""
    return [cr_isa_name(i).decode() for i in range(CR_ISA_COUNT)]


def isa_supported(str name not None):
    """Whether this CPU can run the named path."""
    return cr_isa_parse(name.encode()) >= 0


def isa_code(str name not None):
    """Path code for a name ('' = best); -1 unknown name, -2 not supported by this CPU."""
    return cr_isa_parse(name.encode())


def best_isa():
    """The fastest path this CPU has."""
    return cr_isa_name(cr_isa_best()).decode()


cdef _check_pair(str who, int fn_index, cnp.ndarray x, cnp.ndarray y):
    if not 0 <= fn_index < CR_FUNCTION_COUNT:
        raise ValueError(f"{who}: function index {fn_index} out of range(0, {CR_FUNCTION_COUNT})")
    if x.dtype != cnp.dtype('float32') or y.dtype != cnp.dtype('float32'):
        raise TypeError(f"{who} needs float32 arrays")
    if x.ndim != 1 or y.ndim != 1 or x.shape[0] != y.shape[0]:
        raise ValueError(f"{who} needs two 1-D arrays of the same length")
    if not (x.flags.c_contiguous and y.flags.c_contiguous and y.flags.writeable):
        raise ValueError(f"{who} needs contiguous arrays and a writeable output")


def apply_isa(int fn_index, str isa, cnp.ndarray x not None, cnp.ndarray y not None):
    """y[:] = f(x) on a forced path, for contiguous 1-D float32 arrays (tests, verification)."""
    cdef int code = cr_isa_parse(isa.encode())
    if code < 0:
        raise ValueError(f"CPU path {isa!r} is unknown or not supported by this CPU")
    _check_pair("apply_isa", fn_index, x, y)
    cdef const char *px = <const char *>cnp.PyArray_DATA(x)
    cdef char *py = <char *>cnp.PyArray_DATA(y)
    cdef size_t n = <size_t>x.shape[0]
    with nogil:
        cr_apply_strided(fn_index, code, px, 4, py, 4, n)


def scalar_calls_available():
    """Whether apply_scalar_calls runs here (x86-64 with AVX2 and FMA)."""
    return bool(cr_scalar_calls_available())


def apply_scalar_calls(int fn_index, cnp.ndarray x not None, cnp.ndarray y not None):
    """y[:] = f(x) by one non-inlined scalar call per element: the "scalar
    correctly rounded libm" baseline of tools/bench_crlibm.py (same bits)."""
    if not cr_scalar_calls_available():
        raise ValueError("the scalar-call baseline needs an x86-64 CPU with AVX2 and FMA")
    _check_pair("apply_scalar_calls", fn_index, x, y)
    cdef const float *px = <const float *>cnp.PyArray_DATA(x)
    cdef float *py = <float *>cnp.PyArray_DATA(y)
    cdef size_t n = <size_t>x.shape[0]
    with nogil:
        cr_apply_scalar_calls(fn_index, px, py, n)


def float32_if_exact(cnp.ndarray x not None):
    """x (float64) as float32 if every element converts exactly (NaN included), else None.

    Converted and compared in the library's floating-point environment: under a
    caller's FTZ or DAZ the conversion of a float32 subnormal would give 0 (contract §0).
    """
    if x.dtype != cnp.dtype('float64'):
        raise TypeError("float32_if_exact needs a float64 array")
    cdef cnp.ndarray src = cnp.PyArray_GETCONTIGUOUS(x)
    cdef cnp.ndarray dst = cnp.PyArray_EMPTY(src.ndim, src.shape, cnp.NPY_FLOAT32, 0)
    cdef const double *ps = <const double *>cnp.PyArray_DATA(src)
    cdef float *pd = <float *>cnp.PyArray_DATA(dst)
    cdef size_t i, n = <size_t>src.size
    cdef bint exact = True
    cdef cr_fenv_t saved
    with nogil:
        saved = cr_fenv_enter()
        for i in range(n):
            pd[i] = <float>ps[i]
            if <double>pd[i] != ps[i] and ps[i] == ps[i]:
                exact = False
                break
        cr_fenv_leave(saved)
    return dst if exact else None


def function_names():
    """Function names in the order of their index."""
    return [cr_function_name(i).decode() for i in range(CR_FUNCTION_COUNT)]


def registry_rows():
    """The entries of src/c/crlibm/functions.def as compiled: per function, in index
    order, a tuple of its fields' source text (crlibm_py._registry parses them)."""
    return [tuple(cr_registry_rows[i][j].decode() for j in range(CR_REGISTRY_FIELDS))
            for i in range(CR_FUNCTION_COUNT)]
