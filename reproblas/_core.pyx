# cython: language_level=3, boundscheck=False, wraparound=False
"""Thin Cython layer over the reproblas C core (src/c/reproblas/level1.h).

Takes already-checked, contiguous, aligned 1-D float32/float64 arrays, the
order code, the CPU path code and the thread count; releases the GIL around
every C call. Input checking lives in _api.py.
"""
from libc.float cimport FLT_MAX
from libc.math cimport fabs, isfinite
from libc.stdint cimport int64_t, uint64_t
from libc.stdlib cimport getenv
from libc.string cimport memcpy
cimport numpy as cnp
import numpy as np

cnp.import_array()

cdef extern from "fp_env.h":
    ctypedef int cr_fenv_t  # the header's type
    cr_fenv_t cr_fenv_enter() nogil
    void cr_fenv_leave(cr_fenv_t saved) nogil
    float cr_round_f32(double v) nogil

cdef extern from "isa.h":
    enum: CR_ISA_COUNT
    const char *cr_isa_name(int isa)
    int cr_isa_best()
    int cr_isa_parse(const char *name)

cdef extern from "thread.h":
    int rb_cpu_count()
    unsigned long rb_pool_moves()
    ctypedef void (*rb_omp_parallel_fn)(void (*fn)(void *), void *data, unsigned threads,
                                        unsigned flags)
    void rb_use_omp_runtime(rb_omp_parallel_fn run)
    rb_omp_parallel_fn rb_omp_runtime()
    ctypedef struct rb_stop_ctx:
        int (*hook)(void *arg) noexcept nogil
        void *arg
    void rb_stop_begin(rb_stop_ctx *ctx)
    int rb_stop_end(rb_stop_ctx *ctx)

cdef extern from "Python.h":
    ctypedef int PyGILState_STATE
    PyGILState_STATE PyGILState_Ensure() nogil
    void PyGILState_Release(PyGILState_STATE state) nogil
    # called with the GIL taken by PyGILState_Ensure; the error it sets stays set
    int _check_signals "PyErr_CheckSignals"() nogil
    void *PyErr_Occurred()

cdef extern from "pythread.h":
    unsigned long PyThread_get_thread_ident() nogil

import threading

# Ctrl-C during a call. Python runs signal handlers in the main thread only, so
# the hook asks nothing elsewhere (and never waits for the GIL there). In the
# main thread the core calls it at most every 50 ms of a call (thread.h); when
# a handler raised (KeyboardInterrupt), the call stops between work items, its
# output partly written, and the exception propagates.
cdef unsigned long _main_thread = threading.main_thread().ident


cdef int _stop_hook(void *arg) noexcept nogil:
    if PyThread_get_thread_ident() != _main_thread:
        return 0
    cdef PyGILState_STATE state = PyGILState_Ensure()
    cdef int rc = _check_signals()
    PyGILState_Release(state)
    return rc != 0


cdef inline void _stop_begin(rb_stop_ctx *ctx) noexcept:
    ctx.hook = _stop_hook
    ctx.arg = NULL
    rb_stop_begin(ctx)


cdef int _stop_end(rb_stop_ctx *ctx) except -1:
    """Raises what a signal handler raised during the call, if the call stopped."""
    if rb_stop_end(ctx):
        if PyErr_Occurred() != NULL:
            return -1  # the handler's exception, still set
        raise KeyboardInterrupt
    return 0

cdef extern from "context.h":
    ctypedef struct rb_context:
        int isa
        int threads
        int64_t piece
        int64_t min_per_thread
        int64_t mc
        int64_t nc
        int64_t kc
        int64_t min_work
        int64_t ws
        int64_t trsm_mb
        int64_t trsm_nb
        int64_t conv_chunk
        int64_t conv_kc
        int64_t conv_min_work
        int64_t conv_mc
        int64_t conv_batch
    rb_context rb_context_default(int isa, int threads)
    rb_context rb_context_fix(rb_context c)

import contextlib
import contextvars

# Work-split and block-size settings for tests (they never change a result bit):
# the groups of rb_context (context.h) by name, each a tuple in this order or a
# dict of some of these names (the others: the default).
_TUNING_GROUPS = {
    "l1": ("piece", "min_per_thread"),
    "l3": ("mc", "nc", "kc", "min_work", "ws"),
    "trsm": ("trsm_mb", "trsm_nb"),
    "conv": ("conv_chunk", "conv_kc", "conv_min_work", "conv_mc", "conv_batch"),
}
_GROUP_ARGS = {"trsm": ("mb", "nb"), "conv": ("chunk", "kc", "min_work", "mc", "batch")}
# The settings of the current thread / context: None (all defaults) or a dict
# field -> value. A context variable, so that no call sees another thread's.
_tuning = contextvars.ContextVar("reproblas_tuning", default=None)
# tuning() blocks open in any thread: while 0, no call looks _tuning up.
cdef int _tuning_blocks = 0


@contextlib.contextmanager
def tuning(**groups):
    """Within the block, the calls of this thread (context) use these settings
    (tests: small blocks put block edges and thread splits inside small operands),
    e.g. tuning(l1=(64, 50)), tuning(l3={"min_work": 1}, trsm=(4, 8)). A group given
    replaces that group (values < 1: the defaults); the others keep their values."""
    fields = dict(_tuning.get() or {})
    for group, values in groups.items():
        if group not in _TUNING_GROUPS:
            raise TypeError(f"unknown tuning group {group!r} (have {sorted(_TUNING_GROUPS)})")
        names = _TUNING_GROUPS[group]
        args = _GROUP_ARGS.get(group, names)
        if isinstance(values, dict):
            unknown = set(values) - set(args)
            if unknown:
                raise TypeError(f"unknown {group} tuning {sorted(unknown)} (have {list(args)})")
            given = [values.get(a, 0) for a in args]
        else:
            given = list(values)
            if len(given) > len(names):
                raise TypeError(f"{group} tuning takes at most {len(names)} values {list(args)}")
            given += [0] * (len(names) - len(given))
        for name, value in zip(names, given):
            fields[name] = int(value)
    global _tuning_blocks
    token = _tuning.set(fields)
    _tuning_blocks += 1
    try:
        yield
    finally:
        _tuning_blocks -= 1
        _tuning.reset(token)


def context(int isa, int threads):
    """The rb_context a call on this path and thread count gets here (tests)."""
    cdef rb_context buf
    return _context(isa, threads, &buf)[0]


# Calls made while no tuning() block is open anywhere (the common case) share the
# default contexts, made once per (path, thread count) and never changed after, so
# that the C code may read them without the GIL.
cdef enum: _CACHED_THREADS = 256
cdef rb_context _defaults[CR_ISA_COUNT][_CACHED_THREADS + 1]
cdef bint _default_made[CR_ISA_COUNT][_CACHED_THREADS + 1]


cdef const rb_context *_context(int isa, int threads, rb_context *buf) except NULL:
    """A call's context: the shared default when no tuning() block is open (no
    context-variable lookup), else _tuned()'s, written to buf."""
    if _tuning_blocks == 0 and 0 <= isa < CR_ISA_COUNT and 0 <= threads <= _CACHED_THREADS:
        if not _default_made[isa][threads]:
            _defaults[isa][threads] = rb_context_default(isa, threads)
            _default_made[isa][threads] = True
        return &_defaults[isa][threads]
    buf[0] = _tuned(isa, threads)
    return buf


cdef rb_context _tuned(int isa, int threads) except *:
    """A call's context: the defaults, then the current tuning (see tuning())."""
    cdef rb_context c = rb_context_default(isa, threads)
    t = _tuning.get()
    if t is None:
        return c
    c.piece = t.get("piece", c.piece)
    c.min_per_thread = t.get("min_per_thread", c.min_per_thread)
    c.mc = t.get("mc", c.mc)
    c.nc = t.get("nc", c.nc)
    c.kc = t.get("kc", c.kc)
    c.min_work = t.get("min_work", c.min_work)
    c.ws = t.get("ws", c.ws)
    c.trsm_mb = t.get("trsm_mb", c.trsm_mb)
    c.trsm_nb = t.get("trsm_nb", c.trsm_nb)
    c.conv_chunk = t.get("conv_chunk", c.conv_chunk)
    c.conv_kc = t.get("conv_kc", c.conv_kc)
    c.conv_min_work = t.get("conv_min_work", c.conv_min_work)
    c.conv_mc = t.get("conv_mc", c.conv_mc)
    c.conv_batch = t.get("conv_batch", c.conv_batch)
    return rb_context_fix(c)


cdef extern from "level1.h":
    enum: RB_F32, RB_F64, RB_SEQUENTIAL, RB_PAIRWISE
    enum: RB_KAHAN, RB_EXACT
    int rb_sum(int dtype, int order, const rb_context *cfg, const void *x, int64_t n, void *out) nogil
    int rb_asum(int dtype, int order, const rb_context *cfg, const void *x, int64_t n, void *out) nogil
    int rb_dot(int dtype, int order, const rb_context *cfg, const void *x, const void *y, int64_t n,
               void *out) nogil
    int rb_nrm2(int dtype, int order, const rb_context *cfg, const void *x, int64_t n, void *out) nogil
    int64_t rb_iamax(int dtype, const rb_context *cfg, const void *x, int64_t n) nogil
    int rb_axpy(int dtype, const rb_context *cfg, const void *alpha, const void *x, void *y,
                int64_t n) nogil
    int rb_scal(int dtype, const rb_context *cfg, const void *alpha, void *x, int64_t n) nogil

SEQUENTIAL = RB_SEQUENTIAL
PAIRWISE = RB_PAIRWISE
KAHAN = RB_KAHAN  # docs/contract.md §5.5
EXACT = RB_EXACT  # docs/contract.md §5.4

_REDUCTIONS = {"sum": 0, "asum": 1, "dot": 2, "nrm2": 3}


cdef int _dtype_code(cnp.ndarray x) except -1:
    cdef int typenum = cnp.PyArray_TYPE(x)
    if cnp.PyArray_ISNOTSWAPPED(x):
        if typenum == cnp.NPY_FLOAT32:
            return RB_F32
        if typenum == cnp.NPY_FLOAT64:
            return RB_F64
    raise TypeError("internal: reproblas core got a non-float32/float64 array")


cdef extern from "numpy/arrayobject.h":
    object PyArray_Scalar(void *data, cnp.dtype descr, object base)


cdef inline bint _plain(object a, int ndim, int typenum):
    if type(a) is not np.ndarray:
        return False
    cdef cnp.ndarray x = <cnp.ndarray>a
    return (cnp.PyArray_NDIM(x) == ndim and cnp.PyArray_TYPE(x) == typenum and
            cnp.PyArray_ISNOTSWAPPED(x) and cnp.PyArray_CHKFLAGS(x, cnp.NPY_ARRAY_ALIGNED) and
            (cnp.PyArray_IS_C_CONTIGUOUS(x) or cnp.PyArray_IS_F_CONTIGUOUS(x)))


def plain(a, int a_ndim, b=None, int b_ndim=0):
    """True when a (and b, when b_ndim > 0) are NumPy arrays of these ndims, of one
    native float32/float64 dtype, C- or Fortran-contiguous and aligned: operands that pass
    every check and are used as they are (the wrappers' fast path). False says
    nothing: the full checks then run (and reject a b of None where one is needed)."""
    if type(a) is not np.ndarray:
        return False
    cdef int typenum = cnp.PyArray_TYPE(<cnp.ndarray>a)
    if typenum != cnp.NPY_FLOAT32 and typenum != cnp.NPY_FLOAT64:
        return False
    return _plain(a, a_ndim, typenum) and (b_ndim == 0 or _plain(b, b_ndim, typenum))


def scalar_array(double value, cnp.dtype dtype):
    """[value] as a 1-element array of dtype (float32: value rounded by a C cast,
    as NumPy's assignment does, but in the library's FP environment: round to
    nearest, no FTZ, whatever the caller set), for the scalar arguments of the C calls."""
    cdef cnp.npy_intp one = 1
    cdef cnp.ndarray out = cnp.PyArray_EMPTY(1, &one, dtype.type_num, 0)
    if dtype.type_num == cnp.NPY_FLOAT32:
        (<float *>cnp.PyArray_DATA(out))[0] = cr_round_f32(value)
    else:
        (<double *>cnp.PyArray_DATA(out))[0] = value
    return out


def reduce(str routine, int order, cnp.ndarray x not None, cnp.ndarray y, int isa, int threads):
    """sum/asum/nrm2 of x, or dot of x and y, as a NumPy scalar of x's dtype."""
    return _reduce(routine, order, x, y, isa, threads)


def reduce_env(str routine, int order, cnp.ndarray x not None, cnp.ndarray y):
    """reduce() on the path and thread count the environment asks for (read in C, as
    product_plain reads them: the reductions' fast path); None when either value is
    invalid, so that the caller's general path raises its error."""
    cdef int isa = cr_isa_parse(getenv(b"REPROBLAS_ISA")), threads = _env_threads()
    if isa < 0 or threads < 0:
        return None
    return _reduce(routine, order, x, y, isa, threads)


def iamax_env(cnp.ndarray x not None):
    """iamax() on the environment's path and thread count; None when either is invalid."""
    cdef int isa = cr_isa_parse(getenv(b"REPROBLAS_ISA")), threads = _env_threads()
    if isa < 0 or threads < 0:
        return None
    return _iamax(x, isa, threads)


cdef object _reduce(str routine, int order, cnp.ndarray x, cnp.ndarray y, int isa, int threads):
    cdef int kind = _REDUCTIONS[routine]
    if (kind == 2) != (y is not None):
        raise TypeError(f"reproblas core: {routine} takes "
                        f"{'two vectors' if kind == 2 else 'one vector'}")
    cdef int dtype = _dtype_code(x)
    cdef rb_context buf
    cdef const rb_context *cfg = _context(isa, threads, &buf)
    cdef double out = 0  # room for a float or a double, read back as x's dtype
    cdef const void *px = cnp.PyArray_DATA(x)
    cdef const void *py = cnp.PyArray_DATA(y) if y is not None else NULL
    cdef void *pout = &out
    cdef int64_t n = x.shape[0]
    cdef int rc
    cdef rb_stop_ctx stop
    _stop_begin(&stop)
    with nogil:
        if kind == 0:
            rc = rb_sum(dtype, order, cfg, px, n, pout)
        elif kind == 1:
            rc = rb_asum(dtype, order, cfg, px, n, pout)
        elif kind == 2:
            rc = rb_dot(dtype, order, cfg, px, py, n, pout)
        else:
            rc = rb_nrm2(dtype, order, cfg, px, n, pout)
    _stop_end(&stop)
    if rc != 0:
        raise RuntimeError(f"reproblas core rejected {routine} (isa={isa}, order={order})")
    return PyArray_Scalar(pout, x.dtype, None)


def iamax(cnp.ndarray x not None, int isa, int threads):
    return _iamax(x, isa, threads)


cdef object _iamax(cnp.ndarray x, int isa, int threads):
    cdef rb_context buf
    cdef const rb_context *cfg = _context(isa, threads, &buf)
    cdef int dtype = _dtype_code(x)
    cdef const void *px = cnp.PyArray_DATA(x)
    cdef int64_t n = x.shape[0]
    cdef int64_t r
    cdef rb_stop_ctx stop
    _stop_begin(&stop)
    with nogil:
        r = rb_iamax(dtype, cfg, px, n)
    _stop_end(&stop)
    if r < -1:
        raise RuntimeError("reproblas core rejected iamax")
    return r


def axpy(cnp.ndarray alpha not None, cnp.ndarray x not None, cnp.ndarray y not None,
         int isa, int threads):
    """y <- fma(alpha, x, y) in place (alpha: a 1-element array of y's dtype)."""
    cdef rb_context buf
    cdef const rb_context *cfg = _context(isa, threads, &buf)
    cdef int dtype = _dtype_code(y)
    cdef const void *pa = cnp.PyArray_DATA(alpha)
    cdef const void *px = cnp.PyArray_DATA(x)
    cdef void *py = cnp.PyArray_DATA(y)
    cdef int64_t n = y.shape[0]
    cdef int rc
    cdef rb_stop_ctx stop
    _stop_begin(&stop)
    with nogil:
        rc = rb_axpy(dtype, cfg, pa, px, py, n)
    _stop_end(&stop)
    if rc != 0:
        raise RuntimeError("reproblas core rejected axpy")


def scal(cnp.ndarray alpha not None, cnp.ndarray x not None, int isa, int threads):
    """x <- alpha * x in place."""
    cdef rb_context buf
    cdef const rb_context *cfg = _context(isa, threads, &buf)
    cdef int dtype = _dtype_code(x)
    cdef const void *pa = cnp.PyArray_DATA(alpha)
    cdef void *px = cnp.PyArray_DATA(x)
    cdef int64_t n = x.shape[0]
    cdef int rc
    cdef rb_stop_ctx stop
    _stop_begin(&stop)
    with nogil:
        rc = rb_scal(dtype, cfg, pa, px, n)
    _stop_end(&stop)
    if rc != 0:
        raise RuntimeError("reproblas core rejected scal")


cdef extern from "env.h":
    int capi_positive_int_from_env(const char *var, int *value)

cdef int _cpus = 0  # the default thread count, counted at first use


cdef int _env_threads() noexcept:
    """REPROBLAS_NUM_THREADS read as the C ABI reads it (unset or blank: the CPUs this
    process may run on); -1 for an invalid value. Called with the GIL held: getenv
    races with os.environ's updates from other threads."""
    global _cpus
    cdef int n = 0
    cdef int set = capi_positive_int_from_env(b"REPROBLAS_NUM_THREADS", &n)
    if set != 0:
        return n if set > 0 else -1
    if _cpus == 0:
        _cpus = rb_cpu_count()
    return _cpus


def threads():
    """The thread count REPROBLAS_NUM_THREADS asks for, -1 when its value is invalid."""
    return _env_threads()


def env(bytes name):
    """The process environment's value of name ('' if unset): getenv, which sees
    os.environ's changes and costs far less than os.environ.get."""
    cdef const char *value = getenv(name)
    return "" if value == NULL else value.decode()


def isa_names():
    """Names of all CPU code paths, worst first."""
    return [cr_isa_name(i).decode() for i in range(CR_ISA_COUNT)]


def isa_code(str name not None):
    """Path code for a name ('' = best); -1 unknown name, -2 not supported by this CPU."""
    return cr_isa_parse(name.encode())


def best_isa():
    return cr_isa_name(cr_isa_best()).decode()


def pool_moves():
    """Times a pool worker woken on its caller's CPU moved to another (tests)."""
    return rb_pool_moves()


def use_omp_runtime(size_t gomp_parallel):
    """Run parallel calls on the OpenMP runtime whose GOMP_parallel is at this address
    (0: on reproblas's own pool again). The address must stay valid: a runtime that the
    process keeps loaded (PyTorch's). Call it while no other thread is inside reproblas
    (reproblas.torch does, at import)."""
    rb_use_omp_runtime(<rb_omp_parallel_fn>gomp_parallel)
    for isa in range(CR_ISA_COUNT):  # the cached defaults: their thresholds depend on it
        for threads in range(_CACHED_THREADS + 1):
            _default_made[isa][threads] = False


def omp_runtime():
    """The address given to use_omp_runtime, 0 when calls run on the own pool."""
    return <size_t>rb_omp_runtime()


cdef extern from *:
    """
    #if defined(__x86_64__) || defined(__i386__)
    #include <immintrin.h>
    static int rb_has_mxcsr(void) { return 1; }
    static unsigned rb_get_mxcsr(void) { return _mm_getcsr(); }
    static void rb_set_mxcsr(unsigned v) { _mm_setcsr(v); }
    #else
    static int rb_has_mxcsr(void) { return 0; }
    static unsigned rb_get_mxcsr(void) { return 0; }
    static void rb_set_mxcsr(unsigned v) { (void)v; }
    #endif
    """
    int rb_has_mxcsr()
    unsigned rb_get_mxcsr()
    void rb_set_mxcsr(unsigned v)


def call_with_mxcsr(unsigned mxcsr, fn):
    """Test hook: run fn() with the caller's MXCSR set to mxcsr (e.g. FTZ|DAZ),
    return (fn's result, the MXCSR fn returned to). None if not x86."""
    if not rb_has_mxcsr():
        return None
    cdef unsigned saved = rb_get_mxcsr()
    rb_set_mxcsr(mxcsr)
    try:
        result = fn()
        after = rb_get_mxcsr()
    finally:
        rb_set_mxcsr(saved)
    return result, after


# ---- level 2/3 (src/c/reproblas/level3.h) ----

cdef extern from "level3.h":
    int rb_gemm(int dtype, int order, const rb_context *cfg, int uplo, int64_t m, int64_t n,
                int64_t k,
                const void *alpha, const void *a, int64_t a_rs, int64_t a_cs, const void *b,
                int64_t b_rs, int64_t b_cs, const void *beta, void *c, int64_t c_rs,
                int64_t c_cs) nogil
    ctypedef struct rb_operands:
        const void *a
        int64_t a_rs, a_cs
        int a_sym
        const void *b
        int64_t b_rs, b_cs
        int b_sym
        const void *a2
        int64_t a2_rs, a2_cs
        const void *b2
        int64_t b2_rs, b2_cs
    int rb_gemm_ex(int dtype, int order, const rb_context *cfg, int uplo, int64_t m, int64_t n,
                   int64_t k, const void *alpha, const rb_operands *op, const void *beta, void *c,
                   int64_t c_rs, int64_t c_cs) nogil
    int rb_ger(int dtype, const rb_context *cfg, int64_t m, int64_t n, const void *alpha,
               const void *x, const void *y, void *a, int64_t a_rs, int64_t a_cs) nogil


def gemm(int order, int64_t m, int64_t n, int64_t k, cnp.ndarray alpha not None,
         cnp.ndarray a not None, int64_t a_rs, int64_t a_cs,
         cnp.ndarray b not None, int64_t b_rs, int64_t b_cs, cnp.ndarray beta not None,
         cnp.ndarray c not None, int64_t c_rs, int64_t c_cs, int isa, int threads, int uplo=0):
    """c (m x n, element strides) <- alpha*S [+ beta*c]; op(A)_ik = a[i*a_rs + k*a_cs] etc.
    alpha, beta: 1-element arrays of c's dtype; uplo (level3.h's rb_uplo): all of c, or
    only its lower (1) or upper (2) triangle."""
    cdef rb_context buf
    cdef const rb_context *cfg = _context(isa, threads, &buf)
    cdef int dtype = _dtype_code(c)
    cdef const void *pal = cnp.PyArray_DATA(alpha)
    cdef const void *pbe = cnp.PyArray_DATA(beta)
    cdef const void *pa = cnp.PyArray_DATA(a)
    cdef const void *pb = cnp.PyArray_DATA(b)
    cdef void *pc = cnp.PyArray_DATA(c)
    cdef int rc
    cdef rb_stop_ctx stop
    _stop_begin(&stop)
    with nogil:
        rc = rb_gemm(dtype, order, cfg, uplo, m, n, k, pal, pa, a_rs, a_cs, pb, b_rs, b_cs, pbe,
                     pc, c_rs, c_cs)
    _stop_end(&stop)
    if rc == -2:
        raise MemoryError("reproblas.gemm: out of memory for the packing buffers")
    if rc != 0:
        raise RuntimeError(f"reproblas core rejected gemm (isa={isa}, order={order})")


def gemm_ex(int order, int64_t m, int64_t n, int64_t k, cnp.ndarray alpha not None,
            cnp.ndarray a not None, int64_t a_rs, int64_t a_cs, int a_sym,
            cnp.ndarray b not None, int64_t b_rs, int64_t b_cs, int b_sym,
            cnp.ndarray a2, int64_t a2_rs, int64_t a2_cs,
            cnp.ndarray b2, int64_t b2_rs, int64_t b2_cs, cnp.ndarray beta not None,
            cnp.ndarray c not None, int64_t c_rs, int64_t c_cs, int isa, int threads, int uplo):
    """gemm on structured operands (level3.h's rb_gemm_ex): a_sym / b_sym (1 lower,
    2 upper: a symmetric operand read from that triangle), a2 / b2 (None, or syr2k's
    second pair, whose products alternate with the first's; k counts both)."""
    cdef rb_context buf
    cdef const rb_context *cfg = _context(isa, threads, &buf)
    cdef int dtype = _dtype_code(c)
    cdef rb_operands op
    op.a, op.a_rs, op.a_cs, op.a_sym = cnp.PyArray_DATA(a), a_rs, a_cs, a_sym
    op.b, op.b_rs, op.b_cs, op.b_sym = cnp.PyArray_DATA(b), b_rs, b_cs, b_sym
    op.a2, op.a2_rs, op.a2_cs = (NULL if a2 is None else cnp.PyArray_DATA(a2)), a2_rs, a2_cs
    op.b2, op.b2_rs, op.b2_cs = (NULL if b2 is None else cnp.PyArray_DATA(b2)), b2_rs, b2_cs
    cdef const void *pal = cnp.PyArray_DATA(alpha)
    cdef const void *pbe = cnp.PyArray_DATA(beta)
    cdef void *pc = cnp.PyArray_DATA(c)
    cdef int rc
    cdef rb_stop_ctx stop
    _stop_begin(&stop)
    with nogil:
        rc = rb_gemm_ex(dtype, order, cfg, uplo, m, n, k, pal, &op, pbe, pc, c_rs, c_cs)
    _stop_end(&stop)
    if rc == -2:
        raise MemoryError("reproblas: out of memory for the packing buffers")
    if rc != 0:
        raise RuntimeError(f"reproblas core rejected a structured gemm (isa={isa}, order={order})")


cdef inline void _op_strides(cnp.ndarray x, bint trans, int64_t *rs, int64_t *cs):
    """Element row/column strides of op(x) for a C- or Fortran-contiguous 2-D x,
    from its layout, not x.strides (NumPy may give a length-1 dimension any stride)."""
    cdef bint c_order = cnp.PyArray_IS_C_CONTIGUOUS(x)
    cdef int64_t s_r = x.shape[1] if c_order else 1, s_c = 1 if c_order else x.shape[0]
    rs[0], cs[0] = (s_c, s_r) if trans else (s_r, s_c)


cdef inline bint _bits_zero(double v) noexcept:
    """v is +0 or -0, by its bits (a comparison runs in the caller's FP environment,
    where DAZ makes a subnormal equal 0)."""
    cdef uint64_t bits
    memcpy(&bits, &v, 8)
    return (bits << 1) == 0


cdef int _order_code(object order) noexcept:
    """The core's code of an order name; -1 for anything else."""
    if type(order) is str:
        if order == "sequential":
            return RB_SEQUENTIAL
        if order == "pairwise":
            return RB_PAIRWISE
    return -1


cdef bint _small_alpha(object alpha, int typenum, double *al):
    """alpha as the small calls take it: a Python float, or an int a double holds exactly,
    that the dtype holds (a float32 overflow is the general path's OverflowError)."""
    if type(alpha) is float:
        al[0] = alpha
    elif type(alpha) is int and -2 ** 53 <= alpha <= 2 ** 53:
        al[0] = <double>alpha
    else:
        return False
    return not (typenum == cnp.NPY_FLOAT32 and fabs(al[0]) > FLT_MAX and isfinite(al[0]))


cdef const rb_context *_small_context(rb_context *buf):
    """The call's context from valid environment knobs; NULL when one is invalid (the
    general path says which)."""
    cdef int isa = cr_isa_parse(getenv(b"REPROBLAS_ISA")), threads = _env_threads()
    if isa < 0 or threads < 0:
        return NULL
    return _context(isa, threads, buf)


ctypedef struct _small_scales_t:
    double al64, zero64
    float al32, zero32


cdef int _small_scales(int typenum, double al, _small_scales_t *s, const void **pal,
                       const void **pbe):
    """alpha in the call's dtype (float32: rounded in the library's FP environment, as
    scalar_array) and beta 0, in s; returns the dtype code."""
    s.al64, s.zero64, s.al32, s.zero32 = al, 0, 0, 0
    if typenum == cnp.NPY_FLOAT32:
        s.al32 = cr_round_f32(al)
        pal[0], pbe[0] = &s.al32, &s.zero32
        return RB_F32
    pal[0], pbe[0] = &s.al64, &s.zero64
    return RB_F64


cdef int _small_product(int dtype, int code, const rb_context *cfg, int nd,
                        const int64_t *shape, const int64_t *a_bs, const int64_t *b_bs,
                        const int64_t *c_bs, int64_t m, int64_t n, int64_t k,
                        const void *alpha, const void *a, int64_t a_rs, int64_t a_cs,
                        const void *b, int64_t b_rs, int64_t b_cs, const void *beta, void *c,
                        str who, str what) except -1:
    """The small-call paths' core call: c (C-ordered, m x n per batch entry; nd = 0: one
    product) from rb_gemm_batched, interruptible, its failures raised as exceptions."""
    cdef int rc
    cdef rb_stop_ctx stop
    _stop_begin(&stop)
    with nogil:
        rc = rb_gemm_batched(dtype, code, cfg, 0, nd, shape, a_bs, b_bs, c_bs, m, n, k, alpha,
                             a, a_rs, a_cs, b, b_rs, b_cs, beta, c, n, 1)
    _stop_end(&stop)
    if rc == -2:
        raise MemoryError(f"{who}: out of memory for the packing buffers")
    if rc != 0:
        raise RuntimeError(f"reproblas core rejected {what} (isa={cfg.isa}, order={code})")
    return 0


def product_plain(order, alpha, a, trans_a, b, trans_b, beta, int b_ndim=0):
    """alpha * op(a) @ op(b) as a new C-ordered array, for the common small call, all of
    it checked here: a 2-D and b 2-D or 1-D (one column; the result is then 1-D; b_ndim
    1 or 2: only that one, 0: either) as `plain` accepts them, matching inner dimensions, trans_a/trans_b True or False, an
    order name, alpha a Python float (or an int a double holds exactly) that the dtype
    holds, beta a Python float +-0 (C is not read), and valid environment knobs.
    None for anything else: the caller's general path checks it and says what is wrong."""
    cdef int code = _order_code(order)
    if code < 0 or type(beta) is not float or not _bits_zero(beta):
        return None
    if not (trans_a is True or trans_a is False) or not (trans_b is True or trans_b is False):
        return None
    if type(a) is not np.ndarray or type(b) is not np.ndarray:
        return None
    cdef double al
    cdef int typenum = cnp.PyArray_TYPE(<cnp.ndarray>a)
    if typenum != cnp.NPY_FLOAT32 and typenum != cnp.NPY_FLOAT64:
        return None
    if b_ndim == 0:
        b_ndim = cnp.PyArray_NDIM(<cnp.ndarray>b)
    if not (_plain(a, 2, typenum) and (b_ndim == 1 or b_ndim == 2) and _plain(b, b_ndim, typenum)):
        return None
    if not _small_alpha(alpha, typenum, &al):
        return None
    cdef rb_context buf
    cdef const rb_context *cfg = _small_context(&buf)
    if cfg == NULL:
        return None
    cdef cnp.ndarray x = <cnp.ndarray>a, y = <cnp.ndarray>b
    cdef int64_t m = x.shape[1] if trans_a else x.shape[0], k = x.shape[0] if trans_a else x.shape[1]
    cdef int64_t a_rs, a_cs, kb, n = 1, b_rs = 1, b_cs = 1
    _op_strides(x, trans_a, &a_rs, &a_cs)
    if b_ndim == 1:
        kb = y.shape[0]
    else:
        kb = y.shape[1] if trans_b else y.shape[0]
        n = y.shape[0] if trans_b else y.shape[1]
        _op_strides(y, trans_b, &b_rs, &b_cs)
    if k != kb:
        return None
    cdef cnp.npy_intp dims[2]
    dims[0], dims[1] = m, n
    cdef cnp.ndarray c = cnp.PyArray_EMPTY(b_ndim, dims, typenum, 0)
    cdef _small_scales_t scales
    cdef const void *pal
    cdef const void *pbe
    cdef int dtype = _small_scales(typenum, al, &scales, &pal, &pbe)
    cdef const void *pa = cnp.PyArray_DATA(x)
    cdef const void *pb = cnp.PyArray_DATA(y)
    cdef void *pc = cnp.PyArray_DATA(c)
    _small_product(dtype, code, cfg, 0, NULL, NULL, NULL, NULL, m, n, k, pal, pa, a_rs, a_cs,
                   pb, b_rs, b_cs, pbe, pc, "reproblas", "a product")
    return c


cdef int _strided(object a, int typenum, int nd, int64_t *st) noexcept:
    """The element strides of an aligned native array of nd dimensions and this dtype whose
    strides are non-negative whole elements (a permuted or sliced view: attention's q, k
    and v cut from one projection), into st; 0 for anything else."""
    if type(a) is not np.ndarray:
        return 0
    cdef cnp.ndarray x = <cnp.ndarray>a
    if (cnp.PyArray_NDIM(x) != nd or cnp.PyArray_TYPE(x) != typenum or
            not cnp.PyArray_ISNOTSWAPPED(x) or not cnp.PyArray_CHKFLAGS(x, cnp.NPY_ARRAY_ALIGNED)):
        return 0
    cdef int64_t size = cnp.PyArray_ITEMSIZE(x), stride
    cdef int d
    for d in range(nd):
        stride = x.strides[d]
        if stride < 0 or stride % size:
            return 0
        st[d] = stride // size if x.shape[d] > 1 else 0
    return 1


def linear_plain(order, x, w, bias):
    """x @ w.T ⊕ bias (each element fma(1, bias[o], S), one rounding: gemm with beta 1 over
    C = the bias in every row) as a new C-ordered array, for reproblas.torch's linear: x and
    w 2-D C-contiguous, bias 1-D contiguous, one native float dtype, matching shapes, an order
    name, valid knobs. The general gemm's call. None for anything else."""
    cdef int code = _order_code(order)
    if code < 0 or type(x) is not np.ndarray or type(w) is not np.ndarray or \
            type(bias) is not np.ndarray:
        return None
    cdef int typenum = cnp.PyArray_TYPE(<cnp.ndarray>x)
    if typenum != cnp.NPY_FLOAT32 and typenum != cnp.NPY_FLOAT64:
        return None
    if not (_plain(x, 2, typenum) and _plain(w, 2, typenum) and _plain(bias, 1, typenum)):
        return None
    cdef cnp.ndarray a = <cnp.ndarray>x, b = <cnp.ndarray>w, v = <cnp.ndarray>bias
    if not (cnp.PyArray_IS_C_CONTIGUOUS(a) and cnp.PyArray_IS_C_CONTIGUOUS(b)):
        return None
    cdef int64_t m = a.shape[0], k = a.shape[1], n = b.shape[0]
    if b.shape[1] != k or v.shape[0] != n or m == 0 or n == 0:
        return None
    cdef rb_context buf
    cdef const rb_context *cfg = _small_context(&buf)
    if cfg == NULL:
        return None
    cdef cnp.npy_intp dims[2]
    dims[0], dims[1] = m, n
    cdef cnp.ndarray c = cnp.PyArray_EMPTY(2, dims, typenum, 0)
    c[...] = v  # C_old: the bias in every row (copies, exact)
    cdef double one64 = 1.0
    cdef float one32 = 1.0
    cdef const void *p1 = &one32 if typenum == cnp.NPY_FLOAT32 else <const void *>&one64
    cdef int dtype = RB_F32 if typenum == cnp.NPY_FLOAT32 else RB_F64
    cdef const void *pa = cnp.PyArray_DATA(a)
    cdef const void *pb = cnp.PyArray_DATA(b)
    cdef void *pc = cnp.PyArray_DATA(c)
    _small_product(dtype, code, cfg, 0, NULL, NULL, NULL, NULL, m, n, k, p1, pa, k, 1, pb, 1, k,
                   p1, pc, "reproblas", "a product")
    return c


def matmul_plain(order, a, b):
    """a @ b as a new C-ordered array for the common batched call, all of it checked here:
    a and b of one native float dtype, the same ndim >= 3 and batch shape (no broadcast, no
    empty axis), aligned, with non-negative whole-element strides (any layout: strides never
    change a bit), matching inner dimensions, an order name, valid environment knobs. The
    call the general path makes, without its per-call arrays. None for anything else."""
    cdef int code = _order_code(order)
    if code < 0 or type(a) is not np.ndarray or type(b) is not np.ndarray:
        return None
    cdef cnp.ndarray x = <cnp.ndarray>a, y = <cnp.ndarray>b
    cdef int typenum = cnp.PyArray_TYPE(x), nd = cnp.PyArray_NDIM(x), d
    if (typenum != cnp.NPY_FLOAT32 and typenum != cnp.NPY_FLOAT64) or nd < 3 or nd > 32:
        return None
    cdef int64_t ast[32]
    cdef int64_t bst[32]
    cdef int64_t cst[32]
    cdef int64_t shape[32]
    if not _strided(x, typenum, nd, ast) or not _strided(y, typenum, nd, bst):
        return None
    cdef int64_t m = x.shape[nd - 2], k = x.shape[nd - 1], n = y.shape[nd - 1]
    if y.shape[nd - 2] != k or m == 0 or k == 0 or n == 0:
        return None
    cdef cnp.npy_intp dims[32]
    for d in range(nd - 2):
        if x.shape[d] != y.shape[d] or x.shape[d] == 0:
            return None
        dims[d] = shape[d] = x.shape[d]
    dims[nd - 2], dims[nd - 1] = m, n
    cdef rb_context buf
    cdef const rb_context *cfg = _small_context(&buf)
    if cfg == NULL:
        return None
    cdef cnp.ndarray c = cnp.PyArray_EMPTY(nd, dims, typenum, 0)
    cdef int64_t run = m * n
    for d in range(nd - 3, -1, -1):  # C order: each batch axis steps over the ones after it
        cst[d] = run if shape[d] > 1 else 0
        run *= shape[d]
    cdef _small_scales_t scales
    cdef const void *pal
    cdef const void *pbe
    cdef int dtype = _small_scales(typenum, 1.0, &scales, &pal, &pbe)
    cdef const void *pa = cnp.PyArray_DATA(x)
    cdef const void *pb = cnp.PyArray_DATA(y)
    cdef void *pc = cnp.PyArray_DATA(c)
    _small_product(dtype, code, cfg, nd - 2, shape, ast, bst, cst, m, n, k, pal, pa,
                   ast[nd - 2], ast[nd - 1], pb, bst[nd - 2], bst[nd - 1], pbe, pc,
                   "reproblas.matmul", "matmul")
    return c


def ger(cnp.ndarray alpha not None, cnp.ndarray x not None, cnp.ndarray y not None,
        cnp.ndarray a not None, int64_t a_rs, int64_t a_cs, int isa, int threads):
    """a (element strides) <- fma(x_i, alpha*y_j, a_ij); x, y contiguous."""
    cdef rb_context buf
    cdef const rb_context *cfg = _context(isa, threads, &buf)
    cdef int dtype = _dtype_code(a)
    cdef int64_t m = x.shape[0]
    cdef int64_t n = y.shape[0]
    cdef const void *pal = cnp.PyArray_DATA(alpha)
    cdef const void *px = cnp.PyArray_DATA(x)
    cdef const void *py = cnp.PyArray_DATA(y)
    cdef void *pa = cnp.PyArray_DATA(a)
    cdef int rc
    cdef rb_stop_ctx stop
    _stop_begin(&stop)
    with nogil:
        rc = rb_ger(dtype, cfg, m, n, pal, px, py, pa, a_rs, a_cs)
    _stop_end(&stop)
    if rc == -2:
        raise MemoryError("reproblas.ger: out of memory")
    if rc != 0:
        raise RuntimeError("reproblas core rejected ger")


# ---- convolution (src/c/reproblas/conv.h) ----

cdef extern from "conv.h":
    ctypedef struct rb_conv_shape:
        int64_t n, c, h, w, k, r, s, p, q, stride_h, stride_w, pad_top, pad_left
        int64_t dilation_h, dilation_w, groups
    int rb_conv2d(int dtype, int order, rb_context cfg, const rb_conv_shape *g, const void *x,
                  const void *w, const void *bias, void *y) nogil
    int rb_conv2d_grad_input(int dtype, int order, rb_context cfg, const rb_conv_shape *g,
                             const void *grad_y, const void *w, void *grad_x) nogil
    int rb_conv2d_grad_weight(int dtype, int order, rb_context cfg, const rb_conv_shape *g,
                              const void *x, const void *grad_y, void *grad_w) nogil
    int rb_conv2d_grad_bias(int dtype, int order, rb_context cfg, const rb_conv_shape *g,
                            const void *grad_y, void *grad_b) nogil


cpdef enum:
    CONV2D = 0
    CONV2D_GRAD_INPUT = 1
    CONV2D_GRAD_WEIGHT = 2
    CONV2D_GRAD_BIAS = 3


def conv(int routine, int order, tuple shape, cnp.ndarray a not None, cnp.ndarray b,
         cnp.ndarray bias, cnp.ndarray out not None, int isa, int threads):
    """One of the four convolution routines (CONV2D...) on C-contiguous arrays of out's
    dtype that _conv.py has checked against shape, the 16 ints of rb_conv_shape (n, c,
    h, w, k, r, s, p, q, stride_h, stride_w, pad_top, pad_left, dilation_h, dilation_w,
    groups). a, b: the routine's inputs in the C order (b None for grad_bias)."""
    if (b is None) != (routine == CONV2D_GRAD_BIAS):
        raise TypeError(f"reproblas core: conv routine {routine} got the wrong operand count")
    cdef rb_context buf
    cdef const rb_context *cfg = _context(isa, threads, &buf)
    cdef rb_conv_shape g
    (g.n, g.c, g.h, g.w, g.k, g.r, g.s, g.p, g.q, g.stride_h, g.stride_w, g.pad_top,
     g.pad_left, g.dilation_h, g.dilation_w, g.groups) = shape
    cdef int dtype = _dtype_code(out)
    cdef const void *pa = cnp.PyArray_DATA(a)
    cdef const void *pb = cnp.PyArray_DATA(b) if b is not None else NULL
    cdef const void *pbias = cnp.PyArray_DATA(bias) if bias is not None else NULL
    cdef void *pout = cnp.PyArray_DATA(out)
    cdef int rc
    cdef rb_stop_ctx stop
    _stop_begin(&stop)
    with nogil:
        if routine == CONV2D:
            rc = rb_conv2d(dtype, order, cfg[0], &g, pa, pb, pbias, pout)
        elif routine == CONV2D_GRAD_INPUT:
            rc = rb_conv2d_grad_input(dtype, order, cfg[0], &g, pa, pb, pout)
        elif routine == CONV2D_GRAD_WEIGHT:
            rc = rb_conv2d_grad_weight(dtype, order, cfg[0], &g, pa, pb, pout)
        else:
            rc = rb_conv2d_grad_bias(dtype, order, cfg[0], &g, pa, pout)
    _stop_end(&stop)
    if rc == -2:
        raise MemoryError("reproblas conv: out of memory for the gather buffers")
    if rc != 0:
        raise RuntimeError(f"reproblas core rejected a convolution (isa={isa}, order={order}, "
                           f"shape={shape})")


# ---- trsv / trsm (src/c/reproblas/level3.h) ----

cdef extern from "level3.h":
    int rb_trsm(int dtype, int order, const rb_context *cfg, int right, int lower, int trans, int unit,
                int64_t m, int64_t n, const void *alpha, const void *a, int64_t a_rs,
                int64_t a_cs, void *b, int64_t b_rs, int64_t b_cs) nogil
    int rb_trmm(int dtype, int order, const rb_context *cfg, int right, int lower, int trans, int unit,
                int64_t m, int64_t n, const void *alpha, const void *a, int64_t a_rs,
                int64_t a_cs, void *b, int64_t b_rs, int64_t b_cs) nogil


def trsm(int order, bint right, bint lower, bint trans, bint unit, cnp.ndarray alpha,
         cnp.ndarray a not None, int64_t a_rs, int64_t a_cs, cnp.ndarray b not None,
         int64_t m, int64_t n, int64_t b_rs, int64_t b_cs, int isa, int threads,
         bint multiply=False):
    """b (m x n, element strides) <- X with op(a) X = alpha b (left) or X op(a) = alpha b
    (right); alpha: a 1-element array of b's dtype, or None (no scaling: trsv).
    multiply: b <- alpha op(a) b or alpha b op(a) instead (trmm; alpha given)."""
    cdef rb_context buf
    cdef const rb_context *cfg = _context(isa, threads, &buf)
    cdef int dtype = _dtype_code(b)
    cdef const void *pal = cnp.PyArray_DATA(alpha) if alpha is not None else NULL
    cdef const void *pa = cnp.PyArray_DATA(a)
    cdef void *pb = cnp.PyArray_DATA(b)
    cdef int rc
    cdef rb_stop_ctx stop
    _stop_begin(&stop)
    with nogil:
        if multiply:
            rc = rb_trmm(dtype, order, cfg, right, lower, trans, unit, m, n, pal, pa, a_rs,
                         a_cs, pb, b_rs, b_cs)
        else:
            rc = rb_trsm(dtype, order, cfg, right, lower, trans, unit, m, n, pal, pa, a_rs,
                         a_cs, pb, b_rs, b_cs)
    _stop_end(&stop)
    name = "trmm" if multiply else "trsm"
    if rc == -2:
        raise MemoryError(f"reproblas.{name}: out of memory for its work buffers")
    if rc != 0:
        raise RuntimeError(f"reproblas core rejected {name} (isa={isa}, order={order})")


cdef extern from "level3.h":
    int rb_gemm_batched(int dtype, int order, const rb_context *cfg, int uplo, int nd, const int64_t *shape,
                        const int64_t *a_bs, const int64_t *b_bs, const int64_t *c_bs,
                        int64_t m, int64_t n, int64_t k, const void *alpha, const void *a,
                        int64_t a_rs, int64_t a_cs, const void *b, int64_t b_rs, int64_t b_cs,
                        const void *beta, void *c, int64_t c_rs, int64_t c_cs) nogil


def matmul(int order, cnp.ndarray a not None, cnp.ndarray a_st not None,
           cnp.ndarray b not None, cnp.ndarray b_st not None,
           cnp.ndarray c not None, cnp.ndarray c_st not None, int64_t k, int isa, int threads):
    """c[..., m, n] = a[..., m, k] @ b[..., k, n] (alpha 1, beta 0) for every batch entry
    of c's shape; *_st: int64 element strides of each operand over c's dimensions
    (batch strides first, 0 where broadcast, then the row and column strides)."""
    cdef rb_context buf
    cdef const rb_context *cfg = _context(isa, threads, &buf)
    cdef int dtype = _dtype_code(c)
    cdef int nd = c.ndim - 2
    cdef cnp.ndarray shape = np.array([c.shape[d] for d in range(c.ndim)], dtype=np.int64)
    cdef cnp.ndarray one = np.ones(1, dtype=c.dtype)
    cdef cnp.ndarray zero = np.zeros(1, dtype=c.dtype)
    cdef const int64_t *sh = <const int64_t *>cnp.PyArray_DATA(shape)
    cdef const int64_t *ast = <const int64_t *>cnp.PyArray_DATA(a_st)
    cdef const int64_t *bst = <const int64_t *>cnp.PyArray_DATA(b_st)
    cdef const int64_t *cst = <const int64_t *>cnp.PyArray_DATA(c_st)
    cdef const void *pa = cnp.PyArray_DATA(a)
    cdef const void *pb = cnp.PyArray_DATA(b)
    cdef void *pc = cnp.PyArray_DATA(c)
    cdef const void *p1 = cnp.PyArray_DATA(one)
    cdef const void *p0 = cnp.PyArray_DATA(zero)
    cdef int rc
    cdef rb_stop_ctx stop
    _stop_begin(&stop)
    with nogil:
        rc = rb_gemm_batched(dtype, order, cfg, 0, nd, sh, ast, bst, cst, sh[nd], sh[nd + 1], k,
                             p1, pa, ast[nd], ast[nd + 1], pb, bst[nd], bst[nd + 1], p0, pc,
                             cst[nd], cst[nd + 1])
    _stop_end(&stop)
    if rc == -2:
        raise MemoryError("reproblas.matmul: out of memory for the packing buffers")
    if rc != 0:
        raise RuntimeError(f"reproblas core rejected matmul (isa={isa}, order={order})")


# ---- scans and segmented reductions (docs/contract.md §5.2, §5.3; scan.h) ----

cdef extern from "scan.h":
    enum: RB_SCAN_SUM, RB_SCAN_PROD
    int rb_scan(int dtype, int op, int order, int term, int exclusive, const rb_context *cfg,
                const void *x, const void *y, int64_t rows, int64_t n, void *out) nogil
    int rb_segment_scan(int dtype, int order, int term, int exclusive, const rb_context *cfg,
                        const void *x, const void *y, int64_t n, const int64_t *offsets,
                        int64_t nseg, void *out) nogil
    int rb_segment_reduce(int dtype, int order, int term, const rb_context *cfg, const void *x,
                          const void *y, int64_t n, const int64_t *offsets, int64_t nseg,
                          void *out) nogil

SCAN_SUM = RB_SCAN_SUM
SCAN_PROD = RB_SCAN_PROD


cdef int _scan_rc(int rc, str routine) except -1:
    if rc == -2:
        raise MemoryError(f"reproblas.{routine}: out of memory")
    if rc != 0:
        raise RuntimeError(f"reproblas core rejected {routine} (rc={rc})")
    return 0


def scan(int op, int order, int term, bint exclusive, cnp.ndarray x not None, cnp.ndarray y,
         cnp.ndarray out not None, int isa, int threads):
    """The scans of the rows of the C-contiguous 2-D x (and y, for product terms) into
    the C-contiguous out of x's shape and dtype."""
    cdef rb_context buf
    cdef const rb_context *cfg = _context(isa, threads, &buf)
    cdef int dtype = _dtype_code(x)
    cdef const void *px = cnp.PyArray_DATA(x)
    cdef const void *py = cnp.PyArray_DATA(y) if y is not None else NULL
    cdef void *po = cnp.PyArray_DATA(out)
    cdef int64_t rows = x.shape[0], n = x.shape[1]
    cdef int rc
    cdef rb_stop_ctx stop
    _stop_begin(&stop)
    with nogil:
        rc = rb_scan(dtype, op, order, term, exclusive, cfg, px, py, rows, n, po)
    _stop_end(&stop)
    _scan_rc(rc, "cumprod" if op == RB_SCAN_PROD else "cumsum")


def segments(str kind, int order, int term, bint exclusive, cnp.ndarray x not None,
             cnp.ndarray y, cnp.ndarray offsets not None, cnp.ndarray out not None, int isa,
             int threads):
    """kind 'scan': each segment of the contiguous 1-D x scanned into out (x's shape);
    'reduce': out[s] the reduction of segment s. offsets: contiguous int64."""
    cdef rb_context buf
    cdef const rb_context *cfg = _context(isa, threads, &buf)
    cdef int dtype = _dtype_code(x)
    cdef const void *px = cnp.PyArray_DATA(x)
    cdef const void *py = cnp.PyArray_DATA(y) if y is not None else NULL
    cdef const int64_t *po = <const int64_t *>cnp.PyArray_DATA(offsets)
    cdef void *pout = cnp.PyArray_DATA(out)
    cdef int64_t n = x.shape[0], nseg = offsets.shape[0] - 1
    cdef bint is_scan = kind == "scan"
    cdef int rc
    cdef rb_stop_ctx stop
    _stop_begin(&stop)
    with nogil:
        if is_scan:
            rc = rb_segment_scan(dtype, order, term, exclusive, cfg, px, py, n, po, nseg, pout)
        else:
            rc = rb_segment_reduce(dtype, order, term, cfg, px, py, n, po, nseg, pout)
    _stop_end(&stop)
    _scan_rc(rc, "scan_by_key" if is_scan else "segment_sum")


# ---- level 2 beyond gemv/ger/trsv (src/c/reproblas/level2.h) ----

cdef extern from "level2.h":
    ctypedef struct rb_l2_matrix:
        int kind, storage, lower, trans, unit
        int64_t m, n, kl, ku
        const void *a
        int64_t rs, cs
    int rb_l2_mv(int dtype, int order, const rb_context *cfg, const rb_l2_matrix *A,
                 const void *alpha, const void *x, int64_t incx, const void *beta, void *y,
                 int64_t incy) nogil
    int rb_l2_sv(int dtype, int order, const rb_context *cfg, const rb_l2_matrix *A, void *b,
                 int64_t incb) nogil
    int rb_l2_rank(int dtype, const rb_context *cfg, const rb_l2_matrix *A, const void *alpha,
                   const void *x, int64_t incx, const void *y, int64_t incy) nogil


cpdef enum:
    L2_MV = 0
    L2_SV = 1
    L2_RANK = 2


def level2(int op, int order, tuple desc, cnp.ndarray a not None, cnp.ndarray alpha,
           cnp.ndarray x not None, int64_t incx, cnp.ndarray beta, cnp.ndarray y,
           int64_t incy, int isa, int threads):
    """One level-2 call on arrays _level2.py has checked. desc: (kind, storage, lower,
    trans, unit, m, n, kl, ku, rs, cs) of rb_l2_matrix (a's element strides rs, cs).
    L2_MV: y <- alpha op(M) x [+ beta y]; L2_SV: x <- op(M)^-1 x; L2_RANK: a's triangle
    updated by x (and y, or None). x, y: element strides incx, incy."""
    cdef rb_context buf
    cdef const rb_context *cfg = _context(isa, threads, &buf)
    cdef int dtype = _dtype_code(a)
    cdef rb_l2_matrix A
    (A.kind, A.storage, A.lower, A.trans, A.unit, A.m, A.n, A.kl, A.ku, A.rs, A.cs) = desc
    A.a = cnp.PyArray_DATA(a)
    cdef const void *pal = cnp.PyArray_DATA(alpha) if alpha is not None else NULL
    cdef const void *pbe = cnp.PyArray_DATA(beta) if beta is not None else NULL
    cdef void *px = cnp.PyArray_DATA(x)
    cdef void *py = cnp.PyArray_DATA(y) if y is not None else NULL
    cdef int rc
    cdef rb_stop_ctx stop
    _stop_begin(&stop)
    with nogil:
        if op == L2_MV:
            rc = rb_l2_mv(dtype, order, cfg, &A, pal, px, incx, pbe, py, incy)
        elif op == L2_SV:
            rc = rb_l2_sv(dtype, order, cfg, &A, px, incx)
        else:
            rc = rb_l2_rank(dtype, cfg, &A, pal, px, incx, py, incy)
    _stop_end(&stop)
    if rc == -2:
        raise MemoryError("reproblas: out of memory for the level-2 panels")
    if rc != 0:
        raise RuntimeError(f"reproblas core rejected a level-2 call (op={op}, isa={isa}, "
                           f"order={order}, matrix={desc})")



def level2_plain(int kind, order, alpha, beta, a, x, lower, trans, unit):
    """y = alpha op(M) x of a full-storage matrix (kind: symmetric or triangular) as a new
    array, for the common small call (symv, trmv), all of it checked here: a a square 2-D
    array and x a 1-D array of its dtype and length as `plain` accepts them (n >= 1), the
    flags True or False, an order name, alpha as product_plain takes it, beta a Python
    float +-0, valid environment knobs. None for anything else: the caller's general path
    checks it and says what is wrong."""
    cdef int code = _order_code(order)
    if code < 0 or type(beta) is not float or not _bits_zero(beta):
        return None
    if not (lower is True or lower is False) or not (trans is True or trans is False) or \
            not (unit is True or unit is False):
        return None
    if type(a) is not np.ndarray:
        return None
    cdef double al
    cdef int typenum = cnp.PyArray_TYPE(<cnp.ndarray>a)
    if typenum != cnp.NPY_FLOAT32 and typenum != cnp.NPY_FLOAT64:
        return None
    if not (_plain(a, 2, typenum) and _plain(x, 1, typenum)):
        return None
    cdef cnp.ndarray m = <cnp.ndarray>a, v = <cnp.ndarray>x
    cdef int64_t n = v.shape[0]
    if n < 1 or m.shape[0] != n or m.shape[1] != n or not _small_alpha(alpha, typenum, &al):
        return None
    cdef rb_context buf
    cdef const rb_context *cfg = _small_context(&buf)
    if cfg == NULL:
        return None
    cdef rb_l2_matrix A
    A.kind, A.storage, A.lower, A.trans, A.unit = kind, 0, lower, trans, unit
    A.m, A.n, A.kl, A.ku, A.a = n, n, 0, 0, cnp.PyArray_DATA(m)
    _op_strides(m, False, &A.rs, &A.cs)
    cdef cnp.npy_intp dims[1]
    dims[0] = n
    cdef cnp.ndarray y = cnp.PyArray_EMPTY(1, dims, typenum, 0)
    cdef _small_scales_t scales
    cdef const void *pal
    cdef const void *pbe
    cdef int dtype = _small_scales(typenum, al, &scales, &pal, &pbe)
    cdef const void *px = cnp.PyArray_DATA(v)
    cdef void *py = cnp.PyArray_DATA(y)
    cdef int rc
    cdef rb_stop_ctx stop
    _stop_begin(&stop)
    with nogil:
        rc = rb_l2_mv(dtype, code, cfg, &A, pal, px, 1, pbe, py, 1)
    _stop_end(&stop)
    if rc == -2:
        raise MemoryError("reproblas: out of memory for the level-2 panels")
    if rc != 0:
        raise RuntimeError(f"reproblas core rejected a level-2 call (isa={cfg.isa}, "
                           f"order={code})")
    return y

# ---- fused deep-learning ops of reproblas.torch (src/c/reproblas/nn.h) ----

cdef extern from "nn.h":
    int rb_nn_map(int op, const rb_context *cfg, const float *x, const float *g, float *out,
                  int64_t n) nogil
    int rb_nn_rows(int op, int order, const rb_context *cfg, const float *x, const float *g,
                   const float *aux, float *out, int64_t rows, int64_t n) nogil
    int rb_nn_cross_entropy(int order, const rb_context *cfg, const float *x, const int64_t *t,
                            int64_t ignore, int reduction, float *lp, float *loss, float *total,
                            int64_t rows, int64_t n, int64_t *valid, int64_t *bad) nogil
    int rb_nn_cross_entropy_backward(int order, const rb_context *cfg, const float *lp,
                                     const int64_t *t, int64_t ignore, const float *g,
                                     int64_t gs, double div, float *dx, int64_t rows,
                                     int64_t n) nogil
    int rb_nn_attention_softmax(int backward, int order, const rb_context *cfg, const float *x,
                                const float *g, const unsigned char *mask, double c, float *out,
                                int64_t rows, int64_t n) nogil
    int rb_nn_norm(int rms, int order, const rb_context *cfg, const float *x, const float *w,
                   const float *b, double eps, float *y, float *stats, int64_t rows,
                   int64_t n) nogil
    int rb_nn_norm_backward(int rms, int order, const rb_context *cfg, const float *x,
                            const float *w, const float *g, const float *stats, float *dx,
                            float *gw, int64_t rows, int64_t n) nogil
    int rb_nn_batch_norm(int order, const rb_context *cfg, const float *x, const float *w,
                         const float *b, double eps, float *y, float *stats, int64_t planes,
                         int64_t channels, int64_t plane) nogil
    int rb_nn_batch_norm_backward(int order, const rb_context *cfg, const float *x,
                                  const float *w, const float *g, const float *stats,
                                  float *dx, float *dw, float *db, int64_t planes,
                                  int64_t channels, int64_t plane) nogil
    int rb_nn_batch_norm_running(const rb_context *cfg, const float *mu, const float *s,
                                 int64_t channels, double keep, double momentum, double nm1,
                                 float *rm, float *rv) nogil
    int rb_nn_batch_norm_eval(const rb_context *cfg, const float *x, const float *rm,
                              const float *rv, const float *w, const float *b, double eps,
                              float *y, int64_t planes, int64_t channels, int64_t plane) nogil
    ctypedef struct rb_nn_sgd_args:
        float lr, wd, mu, damp1
        int maximize, has_wd, nesterov, first, has_damp
    ctypedef struct rb_nn_adam_args:
        float decay, wd, b1, one_b1, b2, one_b2, c2, eps, s
        int maximize, decoupled, has_wd
    int rb_nn_sgd(const rb_context *cfg, const rb_nn_sgd_args *args, float *p,
                  const float *grad, float *buf, int64_t n) nogil
    int rb_nn_adam(const rb_context *cfg, const rb_nn_adam_args *args, float *p,
                   const float *grad, float *m, float *v, int64_t n) nogil

# the ops' codes (nn.h's enums, in order)
NN_MAP_OPS = ("exp", "log", "sin", "cos", "tanh", "erf", "rsqrt", "sigmoid", "silu", "gelu",
              "gelu_tanh")
NN_ROW_OPS = ("softmax", "log_softmax", "softmax_b", "log_softmax_b", "logsumexp",
              "logsumexp_b")


cdef float *_f32_or_null(cnp.ndarray a):  # (const in Cython's return type warns in C)
    return NULL if a is None else <float *>cnp.PyArray_DATA(a)


cdef int _nn_rc(int rc, str routine) except -1:
    if rc == -2:
        raise MemoryError(f"reproblas core: no scratch memory for {routine}")
    if rc != 0:
        raise RuntimeError(f"reproblas core rejected {routine}")
    return 0


def nn_map(int op, cnp.ndarray x not None, cnp.ndarray g, cnp.ndarray out not None, int isa,
           int threads):
    """out = op(x), or op's gradient for g (op >= len(NN_MAP_OPS): the _B ops); C-contiguous
    float32 arrays of one size (checked by the caller)."""
    cdef rb_context buf
    cdef const rb_context *cfg = _context(isa, threads, &buf)
    cdef const float *px = <const float *>cnp.PyArray_DATA(x)
    cdef const float *pg = _f32_or_null(g)
    cdef float *po = <float *>cnp.PyArray_DATA(out)
    cdef int64_t n = x.size
    cdef int rc
    with nogil:
        rc = rb_nn_map(op, cfg, px, pg, po, n)
    return _nn_rc(rc, "nn_map")


def nn_rows(int op, int order, cnp.ndarray x not None, cnp.ndarray g, cnp.ndarray aux,
            cnp.ndarray out not None, int64_t rows, int64_t n, int isa, int threads):
    """A row op of nn.h over the C-contiguous float32 (rows, n) arrays (g, aux and out of
    the logsumexp ops: one value per row)."""
    cdef rb_context buf
    cdef const rb_context *cfg = _context(isa, threads, &buf)
    cdef const float *px = <const float *>cnp.PyArray_DATA(x)
    cdef const float *pg = _f32_or_null(g)
    cdef const float *pa = _f32_or_null(aux)
    cdef float *po = <float *>cnp.PyArray_DATA(out)
    cdef int rc
    with nogil:
        rc = rb_nn_rows(op, order, cfg, px, pg, pa, po, rows, n)
    return _nn_rc(rc, "nn_rows")


def nn_attention_softmax(bint backward, int order, cnp.ndarray x not None, cnp.ndarray g,
                         cnp.ndarray mask, double scale, cnp.ndarray out not None, int64_t rows,
                         int64_t n, int isa, int threads):
    """Attention's scaled, masked softmax (nn.h) over the C-contiguous float32 (rows, n) x, or
    its backward (x: the forward's out, g: the incoming gradient); mask: None or C-contiguous
    bytes, one per element of x (checked by the caller)."""
    cdef rb_context buf
    cdef const rb_context *cfg = _context(isa, threads, &buf)
    cdef const float *px = <const float *>cnp.PyArray_DATA(x)
    cdef const float *pg = _f32_or_null(g)
    cdef const unsigned char *pm = NULL
    if mask is not None:
        pm = <const unsigned char *>cnp.PyArray_DATA(mask)
    cdef float *po = <float *>cnp.PyArray_DATA(out)
    cdef int rc
    with nogil:
        rc = rb_nn_attention_softmax(backward, order, cfg, px, pg, pm, scale, po, rows, n)
    return _nn_rc(rc, "nn_attention_softmax")


def nn_cross_entropy(int order, cnp.ndarray x not None, cnp.ndarray t not None, int64_t ignore,
                     int reduction, cnp.ndarray lp not None, cnp.ndarray loss not None,
                     cnp.ndarray total, int isa, int threads):
    """Cross entropy (nn.h) of the C-contiguous float32 (rows, n) x against the C-contiguous
    int64 indices t: lp, loss per row, and for reduction 1 (sum) / 2 (mean) the 0-d float32
    total. Returns (None, the rows not ignored), or (the first index outside [0, n) that is
    not ignore, 0): nothing is written then."""
    cdef rb_context buf
    cdef const rb_context *cfg = _context(isa, threads, &buf)
    cdef const float *px = <const float *>cnp.PyArray_DATA(x)
    cdef const int64_t *pt = <const int64_t *>cnp.PyArray_DATA(t)
    cdef float *plp = <float *>cnp.PyArray_DATA(lp)
    cdef float *pl = <float *>cnp.PyArray_DATA(loss)
    cdef float *ptot = NULL
    if total is not None:
        ptot = <float *>cnp.PyArray_DATA(total)
    cdef int64_t rows = cnp.PyArray_DIM(x, 0), n = cnp.PyArray_DIM(x, 1), valid = 0, bad = 0
    cdef int rc
    with nogil:
        rc = rb_nn_cross_entropy(order, cfg, px, pt, ignore, reduction, plp, pl, ptot, rows, n,
                                 &valid, &bad)
    if rc == -4:
        return bad, 0
    _nn_rc(rc, "nn_cross_entropy")
    return None, valid


def nn_cross_entropy_backward(int order, cnp.ndarray lp not None, cnp.ndarray t not None,
                              int64_t ignore, cnp.ndarray g not None, double div,
                              cnp.ndarray dx not None, int isa, int threads):
    """The backward of nn_cross_entropy (nn.h) into the C-contiguous float32 dx, for g: one
    float32 loss gradient per row, or one for all (size 1); div: the mean's count, or 0."""
    cdef rb_context buf
    cdef const rb_context *cfg = _context(isa, threads, &buf)
    cdef int64_t rows = cnp.PyArray_DIM(lp, 0), n = cnp.PyArray_DIM(lp, 1)
    cdef int64_t gs = 0 if cnp.PyArray_SIZE(g) == 1 else 1
    cdef const float *plp = <const float *>cnp.PyArray_DATA(lp)
    cdef const int64_t *pt = <const int64_t *>cnp.PyArray_DATA(t)
    cdef const float *pg = <const float *>cnp.PyArray_DATA(g)
    cdef float *pdx = <float *>cnp.PyArray_DATA(dx)
    cdef int rc
    with nogil:
        rc = rb_nn_cross_entropy_backward(order, cfg, plp, pt, ignore, pg, gs, div, pdx, rows, n)
    return _nn_rc(rc, "nn_cross_entropy_backward")


def nn_norm(bint rms, int order, cnp.ndarray x not None, cnp.ndarray w, cnp.ndarray b,
            double eps, cnp.ndarray y not None, cnp.ndarray stats, int64_t rows, int64_t n,
            int isa, int threads):
    """layer_norm (rms False) or rms_norm over the C-contiguous float32 (rows, n) x."""
    cdef rb_context buf
    cdef const rb_context *cfg = _context(isa, threads, &buf)
    cdef const float *px = <const float *>cnp.PyArray_DATA(x)
    cdef const float *pw = _f32_or_null(w)
    cdef const float *pb = _f32_or_null(b)
    cdef float *py = <float *>cnp.PyArray_DATA(y)
    cdef float *ps = NULL if stats is None else <float *>cnp.PyArray_DATA(stats)
    cdef int rc
    with nogil:
        rc = rb_nn_norm(rms, order, cfg, px, pw, pb, eps, py, ps, rows, n)
    return _nn_rc(rc, "nn_norm")


def nn_norm_backward(bint rms, int order, cnp.ndarray x not None, cnp.ndarray w,
                     cnp.ndarray g not None, cnp.ndarray stats not None, cnp.ndarray dx not None,
                     cnp.ndarray gw, int64_t rows, int64_t n, int isa, int threads):
    """The first-order backward of nn_norm (nn.h): dx, and the rows of g ⊗ y0 into gw."""
    cdef rb_context buf
    cdef const rb_context *cfg = _context(isa, threads, &buf)
    cdef const float *px = <const float *>cnp.PyArray_DATA(x)
    cdef const float *pw = _f32_or_null(w)
    cdef const float *pg = <const float *>cnp.PyArray_DATA(g)
    cdef const float *ps = <const float *>cnp.PyArray_DATA(stats)
    cdef float *pdx = <float *>cnp.PyArray_DATA(dx)
    cdef float *pgw = NULL if gw is None else <float *>cnp.PyArray_DATA(gw)
    cdef int rc
    with nogil:
        rc = rb_nn_norm_backward(rms, order, cfg, px, pw, pg, ps, pdx, pgw, rows, n)
    return _nn_rc(rc, "nn_norm_backward")


def nn_sgd_many(double lr, double wd, double mu, double damp1, bint maximize, bint nesterov,
                list steps, int isa, int threads):
    """SGD steps (nn.h) in place, one per (p, grad, momentum buffer or 0, elements, first
    step) of `steps`: addresses of float32 C-contiguous memory, checked by the caller (one
    call for an optimizer's parameters: a few microseconds less per parameter than an array
    each). wd 0 and damp1 1 skip their products; the doubles are rounded to float32 here."""
    cdef rb_context cbuf
    cdef const rb_context *cfg = _context(isa, threads, &cbuf)
    cdef rb_nn_sgd_args a
    a.lr, a.wd, a.mu, a.damp1 = (cr_round_f32(lr), cr_round_f32(wd), cr_round_f32(mu),
                                 cr_round_f32(damp1))
    a.maximize, a.has_wd, a.nesterov = maximize, wd != 0, nesterov
    a.has_damp = damp1 != 1
    cdef size_t pp, pg, pb
    cdef int64_t n
    cdef int rc
    for pp, pg, pb, n, first in steps:
        a.first = first
        with nogil:
            rc = rb_nn_sgd(cfg, &a, <float *>pp, <const float *>pg, <float *>pb, n)
        _nn_rc(rc, "nn_sgd")


def nn_adam_many(double decay, double wd, double b1, double one_b1, double b2, double one_b2,
                 double eps, bint maximize, bint decoupled, list steps, int isa, int threads):
    """Adam/AdamW steps (nn.h) in place, one per (p, grad, m, v, elements, s, c2) of
    `steps`: addresses as nn_sgd_many's, and each parameter's step size and bias correction
    (its own step count); wd 0 skips the decay; the doubles are rounded to float32 here."""
    cdef rb_context cbuf
    cdef const rb_context *cfg = _context(isa, threads, &cbuf)
    cdef rb_nn_adam_args a
    a.decay, a.wd, a.b1, a.one_b1 = (cr_round_f32(decay), cr_round_f32(wd), cr_round_f32(b1),
                                     cr_round_f32(one_b1))
    a.b2, a.one_b2, a.eps = cr_round_f32(b2), cr_round_f32(one_b2), cr_round_f32(eps)
    a.maximize, a.decoupled, a.has_wd = maximize, decoupled, wd != 0
    cdef size_t pp, pg, pm, pv
    cdef int64_t n
    cdef double s, c2
    cdef int rc
    for pp, pg, pm, pv, n, s, c2 in steps:
        a.s, a.c2 = cr_round_f32(s), cr_round_f32(c2)
        with nogil:
            rc = rb_nn_adam(cfg, &a, <float *>pp, <const float *>pg, <float *>pm, <float *>pv, n)
        _nn_rc(rc, "nn_adam")


def nn_batch_norm(int order, cnp.ndarray x not None, cnp.ndarray w, cnp.ndarray b, double eps,
                  cnp.ndarray y not None, cnp.ndarray stats not None, int64_t planes,
                  int64_t channels, int64_t plane, int isa, int threads):
    """Training batch norm (nn.h) of the C-contiguous float32 x (planes, channels, plane)
    into y; stats (channels, 3)."""
    cdef rb_context buf
    cdef const rb_context *cfg = _context(isa, threads, &buf)
    cdef const float *px = <const float *>cnp.PyArray_DATA(x)
    cdef const float *pw = _f32_or_null(w)
    cdef const float *pb = _f32_or_null(b)
    cdef float *py = <float *>cnp.PyArray_DATA(y)
    cdef float *ps = <float *>cnp.PyArray_DATA(stats)
    cdef int rc
    with nogil:
        rc = rb_nn_batch_norm(order, cfg, px, pw, pb, eps, py, ps, planes, channels, plane)
    return _nn_rc(rc, "nn_batch_norm")


def nn_batch_norm_running(cnp.ndarray mu not None, cnp.ndarray s not None, double keep,
                          double momentum, double nm1, cnp.ndarray rm, cnp.ndarray rv):
    """The running statistics' update (nn.h) of the C-contiguous float32 rm, rv in place."""
    cdef const float *pm = <const float *>cnp.PyArray_DATA(mu)
    cdef const float *ps = <const float *>cnp.PyArray_DATA(s)
    cdef float *prm = NULL if rm is None else <float *>cnp.PyArray_DATA(rm)
    cdef float *prv = NULL if rv is None else <float *>cnp.PyArray_DATA(rv)
    cdef int64_t c = cnp.PyArray_SIZE(mu)
    cdef int rc
    with nogil:
        rc = rb_nn_batch_norm_running(NULL, pm, ps, c, keep, momentum, nm1, prm, prv)
    return _nn_rc(rc, "nn_batch_norm_running")


def nn_batch_norm_eval(cnp.ndarray x not None, cnp.ndarray rm not None,
                       cnp.ndarray rv not None, cnp.ndarray w, cnp.ndarray b, double eps,
                       cnp.ndarray y not None, int64_t planes, int64_t channels, int64_t plane,
                       int isa, int threads):
    """Batch norm in evaluation (nn.h) of the C-contiguous float32 x into y."""
    cdef rb_context buf
    cdef const rb_context *cfg = _context(isa, threads, &buf)
    cdef const float *px = <const float *>cnp.PyArray_DATA(x)
    cdef const float *pm = <const float *>cnp.PyArray_DATA(rm)
    cdef const float *pv = <const float *>cnp.PyArray_DATA(rv)
    cdef const float *pw = _f32_or_null(w)
    cdef const float *pb = _f32_or_null(b)
    cdef float *py = <float *>cnp.PyArray_DATA(y)
    cdef int rc
    with nogil:
        rc = rb_nn_batch_norm_eval(cfg, px, pm, pv, pw, pb, eps, py, planes, channels, plane)
    return _nn_rc(rc, "nn_batch_norm_eval")


def nn_batch_norm_backward(int order, cnp.ndarray x not None, cnp.ndarray w,
                           cnp.ndarray g not None, cnp.ndarray stats not None,
                           cnp.ndarray dx not None, cnp.ndarray dw, cnp.ndarray db,
                           int64_t planes, int64_t channels, int64_t plane, int isa,
                           int threads):
    """The first-order backward of nn_batch_norm: dx, and dw, db (channels,) where given."""
    cdef rb_context buf
    cdef const rb_context *cfg = _context(isa, threads, &buf)
    cdef const float *px = <const float *>cnp.PyArray_DATA(x)
    cdef const float *pw = _f32_or_null(w)
    cdef const float *pg = <const float *>cnp.PyArray_DATA(g)
    cdef const float *ps = <const float *>cnp.PyArray_DATA(stats)
    cdef float *pdx = <float *>cnp.PyArray_DATA(dx)
    cdef float *pdw = NULL if dw is None else <float *>cnp.PyArray_DATA(dw)
    cdef float *pdb = NULL if db is None else <float *>cnp.PyArray_DATA(db)
    cdef int rc
    with nogil:
        rc = rb_nn_batch_norm_backward(order, cfg, px, pw, pg, ps, pdx, pdw, pdb, planes,
                                       channels, plane)
    return _nn_rc(rc, "nn_batch_norm_backward")
