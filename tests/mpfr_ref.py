"""The reference every test compares with: MPFR through gmpy2 (contract §1).

gmpy2.ieee(32) is precision 24, emin -148, emax 128 with subnormalize, so each
result is the correctly rounded float32, subnormals and overflow included.
The one place the contract overrides MPFR is rsqrt(-0) = -inf (MPFR gives +inf). The MPFR
function and that override are each function's registry entry (functions.def).
"""
import functools

import gmpy2
import numpy as np

from crlibm_py._registry import functions

CANONICAL_NAN = 0x7FC00000
NEG_ZERO = 0x80000000
NEG_INF = 0xFF800000

_CTX = gmpy2.ieee(32)
assert _CTX.precision == 24 and _CTX.subnormalize

MPFR_FUNCTIONS = {f.name: getattr(gmpy2, f.mpfr) for f in functions()}  # rsqrt: rec_sqrt
_OVERRIDES = {f.name: f.mpfr_override for f in functions()}


def f32_bits(x):
    """uint32 view of float32 data (a copy for scalars and lists)."""
    return np.ascontiguousarray(x, dtype=np.float32).view(np.uint32)


def mpfr_bits(fname, bits):
    """MPFR's own result bits for one float32 input (NaN made canonical)."""
    x = float(np.uint32(bits).view(np.float32))
    with gmpy2.context(_CTX):
        r = MPFR_FUNCTIONS[fname](gmpy2.mpfr(x))
    if gmpy2.is_nan(r):
        return CANONICAL_NAN
    # r has at most 24 significant bits within float32's range: both
    # conversions below are exact.
    return int(np.float32(float(r)).view(np.uint32))


def _ref_bits_scalar(fname, bits):
    override = _OVERRIDES[fname].get(bits)  # rsqrt(-0): contract §1 says -inf, MPFR +inf
    return mpfr_bits(fname, bits) if override is None else override


@functools.lru_cache(maxsize=None)
def _ref_bits_cached(fname, bits):
    return _ref_bits_scalar(fname, bits)


def ref_bits(fname, x):
    """Expected uint32 result bits of fname over the float32 values x."""
    inp = f32_bits(x).ravel()
    out = np.fromiter((_ref_bits_cached(fname, int(b)) for b in inp), dtype=np.uint32,
                      count=inp.size)
    return out.reshape(np.shape(x))


def find_transition(pred, lo_bits, hi_bits):
    """Smallest float32 bit pattern b in (lo_bits, hi_bits] with pred(b) true,
    given pred(lo_bits) false and pred(hi_bits) true (bisection on the bits of
    same-sign floats, where bit order is value order by magnitude)."""
    assert not pred(lo_bits) and pred(hi_bits), "no transition in the given range"
    while hi_bits - lo_bits > 1:
        mid = (lo_bits + hi_bits) // 2
        if pred(mid):
            hi_bits = mid
        else:
            lo_bits = mid
    return hi_bits
