# cython: language_level=3, boundscheck=False, wraparound=False
"""C core of ``crlibm_py.verify``: checks bit patterns ranges of one function
on every selected CPU path against the expected results (see
src/c/verify/verify.h). The orchestration lives in ``crlibm_py.verify``."""
from libc.stdint cimport uint32_t, uint64_t
from libc.stdlib cimport malloc, free
import numpy as np
cimport numpy as cnp

cnp.import_array()

cdef extern from "isa.h":
    enum: CR_ISA_COUNT

cdef extern from "mpfr_dl.h":
    ctypedef struct vf_mpfr_api:
        const char *(*get_version)()
    const vf_mpfr_api *vf_mpfr()
    int vf_mpfr_load(const char *path, char *err, size_t errlen)

cdef extern from "verify.h":
    enum: VF_TIER_FAST, VF_TIER_STRICT
    enum: VF_BY_TABLE, VF_BY_BOUND, VF_BY_MPFR
    enum: VF_OK, VF_ERR_NO_MPFR, VF_ERR_NO_KERNEL, VF_ERR_ARGS
    ctypedef struct vf_hooks:
        int corrupt_isa
        uint32_t corrupt_mod
        double ref_shift
    ctypedef struct vf_result:
        uint64_t checked
        uint64_t undecided
        uint64_t wrong[CR_ISA_COUNT]
        size_t cap
        size_t len[CR_ISA_COUNT]
        uint32_t *w_in
        uint32_t *w_got
        uint32_t *w_exp
    int vf_check_range(int fn, uint64_t lo, uint64_t hi, unsigned isa_mask, int tier,
                       double bound, const vf_hooks *hooks, vf_result *res) nogil
    int vf_expected(int fn, uint32_t x, int tier, double bound, const vf_hooks *hooks,
                    uint32_t *out, int *how) nogil
    int vf_bound_sample(int fn, const uint32_t *xs, size_t n, const vf_hooks *hooks,
                        double *max_rel, uint32_t *worst, size_t *used) nogil

TIERS = {"fast": VF_TIER_FAST, "strict": VF_TIER_STRICT}
HOW = {VF_BY_TABLE: "table", VF_BY_BOUND: "bound", VF_BY_MPFR: "mpfr"}


class MPFRUnavailable(RuntimeError):
    """MPFR could not be loaded; the verifier needs it."""


def _raise(int code):
    if code == VF_ERR_NO_MPFR:
        raise MPFRUnavailable("MPFR is not loaded (call crlibm_py._verify.load_mpfr first)")
    if code == VF_ERR_NO_KERNEL:
        raise ValueError("a selected CPU path is not built or not supported by this CPU")
    if code != VF_OK:
        raise ValueError("invalid arguments to the verifier core")


def load_mpfr(str path):
    """dlopen libmpfr at path (once per process); returns its version string."""
    cdef char err[512]
    if vf_mpfr_load(path.encode(), err, sizeof(err)) != 0:
        raise MPFRUnavailable(err.decode(errors="replace"))
    return mpfr_version()


def mpfr_version():
    """Version of the loaded MPFR, or None."""
    cdef const vf_mpfr_api *api = vf_mpfr()
    return None if api == NULL else api.get_version().decode()


cdef vf_hooks _hooks(int corrupt_isa, uint32_t corrupt_mod, double ref_shift):
    cdef vf_hooks h
    h.corrupt_isa = corrupt_isa
    h.corrupt_mod = corrupt_mod
    h.ref_shift = ref_shift
    return h


def check_range(int fn, uint64_t lo, uint64_t hi, isas, str tier, double bound,
                size_t max_wrong=1000, int corrupt_isa=-1, uint32_t corrupt_mod=0,
                double ref_shift=0.0):
    """Check f over the bit patterns [lo, hi) on the paths `isas` (indices).

    Returns a dict: checked, undecided, wrong (count per path index) and
    wrong_list (per path index, its first max_wrong (input, got, expected) bits)."""
    cdef unsigned mask = 0
    for isa in isas:
        if not 0 <= isa < CR_ISA_COUNT:
            raise ValueError(f"unknown path index {isa}")
        mask |= 1u << isa
    cdef vf_hooks h = _hooks(corrupt_isa, corrupt_mod, ref_shift)
    cdef vf_result res
    if hi < lo or hi > (1ULL << 32):
        raise ValueError(f"range {lo}:{hi} is not within 0:2^32")
    if max_wrong > hi - lo:  # no more to list than inputs; keeps total's product small
        max_wrong = hi - lo
    cdef size_t total = CR_ISA_COUNT * max_wrong + 1
    res.checked = res.undecided = 0
    for i in range(CR_ISA_COUNT):
        res.wrong[i] = 0
        res.len[i] = 0
    res.cap = max_wrong
    res.w_in = <uint32_t *>malloc(4 * total)
    res.w_got = <uint32_t *>malloc(4 * total)
    res.w_exp = <uint32_t *>malloc(4 * total)
    cdef int code, t = TIERS[tier]
    try:
        if not (res.w_in and res.w_got and res.w_exp):
            raise MemoryError()
        with nogil:
            code = vf_check_range(fn, lo, hi, mask, t, bound, &h, &res)
        _raise(code)
        return {
            "checked": res.checked,
            "undecided": res.undecided,
            "wrong": {isa: res.wrong[isa] for isa in isas},
            "wrong_list": {isa: [(res.w_in[k], res.w_got[k], res.w_exp[k])
                                 for k in range(isa * max_wrong, isa * max_wrong + res.len[isa])]
                           for isa in isas},
        }
    finally:
        free(res.w_in)
        free(res.w_got)
        free(res.w_exp)


def expected(int fn, uint32_t x, str tier, double bound, double ref_shift=0.0):
    """(expected bits of f(x), how: 'table' | 'bound' | 'mpfr') for one input."""
    cdef vf_hooks h = _hooks(-1, 0, ref_shift)
    cdef uint32_t out
    cdef int how
    _raise(vf_expected(fn, x, TIERS[tier], bound, &h, &out, &how))
    return out, HOW[how]


def bound_sample(int fn, xs, double ref_shift=0.0):
    """(max relative error of the glibc reference vs MPFR, worst input bits,
    number of inputs measured) over the bit patterns xs where the bound is used."""
    cdef cnp.ndarray[uint32_t, ndim=1, mode="c"] arr = np.ascontiguousarray(xs, dtype=np.uint32)
    cdef vf_hooks h = _hooks(-1, 0, ref_shift)
    cdef double max_rel
    cdef uint32_t worst
    cdef size_t used, n = arr.shape[0]
    cdef const uint32_t *p = <const uint32_t *>cnp.PyArray_DATA(arr)
    cdef int code
    with nogil:
        code = vf_bound_sample(fn, p, n, &h, &max_rel, &worst, &used)
    _raise(code)
    return max_rel, worst, used
