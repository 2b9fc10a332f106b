"""Helpers shared by the test modules: paths, forced-path calls, bitwise asserts."""
import numpy as np
import pytest

import crlibm_py
from crlibm_py import _ufuncs

FUNCTIONS = tuple(crlibm_py.FUNCTIONS)
ISAS = tuple(crlibm_py.isa_names())
SUPPORTED_ISAS = tuple(i for i in ISAS if crlibm_py.isa_supported(i))


def isa_params():
    """Every CPU path; the ones this CPU lacks are skipped, visibly."""
    return [pytest.param(isa, marks=pytest.mark.skipif(
        not crlibm_py.isa_supported(isa),
        reason=f"needs a CPU with the {isa} path (this one lacks it; its other paths are tested)"))
        for isa in ISAS]


def apply(fname, isa, x):
    """f(x) on a forced path through the raw contiguous kernel entry."""
    x = np.ascontiguousarray(x, dtype=np.float32).ravel()
    y = np.empty_like(x)
    _ufuncs.apply_isa(FUNCTIONS.index(fname), isa, x, y)
    return y


def assert_same_bits(got, expected, inputs, what):
    """Bitwise comparison (NaN payloads and signed zeros count) with a useful report."""
    got = np.ascontiguousarray(got, dtype=np.float32).view(np.uint32).ravel()
    expected = np.asarray(expected, dtype=np.uint32).ravel()
    inputs = np.ascontiguousarray(inputs, dtype=np.float32).view(np.uint32).ravel()
    assert got.shape == expected.shape, f"{what}: shape {got.shape} != {expected.shape}"
    bad = np.nonzero(got != expected)[0]
    if bad.size:
        lines = [f"x=0x{inputs[i]:08x} ({inputs[i:i+1].view(np.float32)[0]!r}): "
                 f"got 0x{got[i]:08x}, expected 0x{expected[i]:08x}" for i in bad[:10]]
        pytest.fail(f"{what}: {bad.size} of {got.size} results differ\n" + "\n".join(lines))
