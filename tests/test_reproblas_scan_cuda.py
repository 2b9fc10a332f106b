"""The scans and segmented reductions on GPU arrays, through the host emulation of
src/cuda/reproblas/scan.cuh driven by the real launch code (reproblas/_scan_cuda.py):
the CPU's bits (docs/contract.md §5.2, §5.3). Small pieces put the two-pass pairwise
scan, and its recursion over the pieces' trees, inside short operands."""
import numpy as np
import pytest

import reproblas as rb
from reproblas import _scan_cuda
import reference_lib
from cuda_support import emu_array, same_bits
from test_cuda_emu_api import _emu, gpu  # noqa: F401 (fixtures: GPU arrays to the emulator)

DTYPES = (np.float32, np.float64)
ORDERS = ("sequential", "pairwise")


@pytest.fixture(scope="module")
def ref(tmp_path_factory):
    try:
        return reference_lib.build(tmp_path_factory.mktemp("reference_scan_cuda"))
    except FileNotFoundError as e:
        pytest.skip(f"needs a C compiler to build the reference: {e}")


def data(n, dtype, seed):
    rng = np.random.default_rng([n, seed])
    x = (rng.standard_normal(n) * 2.0 ** rng.integers(-20, 20, n)).astype(dtype)
    if n > 10:
        x[3], x[n // 2] = np.inf, np.nan
    return x


@pytest.mark.parametrize("piece", (16, 1024))
@pytest.mark.parametrize("dtype", DTYPES)
def test_scans(gpu, ref, monkeypatch, dtype, piece):
    monkeypatch.setattr(_scan_cuda, "PIECE", piece)
    for n in (0, 1, 7, 31, 32, 33, 100, 511, 512, 513, 700, 2100):
        x = data(n, dtype, 1)
        p = (1 + data(n, dtype, 2) * 2.0 ** -12).astype(dtype)
        for order in ORDERS:
            for excl in (False, True):
                got = rb.cumsum(emu_array(x), order=order, exclusive=excl)
                same_bits(got, ref.scan(x, order, exclusive=excl))
                got = rb.cumprod(emu_array(p), order=order, exclusive=excl)
                same_bits(got, ref.scan(p, order, "prod", exclusive=excl))


def test_axis_rows(gpu):
    a = data(6 * 50, np.float64, 3).reshape(6, 50)
    for order in ORDERS:
        for axis in (0, 1):
            same_bits(rb.cumsum(emu_array(a), axis=axis, order=order),
                      rb.cumsum(a, axis=axis, order=order))


@pytest.mark.parametrize("dtype", DTYPES)
def test_segments(gpu, dtype):
    n = 900
    v, w = data(n, dtype, 4), data(n, dtype, 5)
    off = np.array([0, 0, 1, 5, 5, 64, 300, 301, 899, 900], np.int64)
    keys = np.repeat(np.arange(len(off) - 1), np.diff(off))
    for order in ORDERS:
        for kw in ({}, {"transform": "abs"}, {"transform": "square"}):
            same_bits(rb.segment_sum(emu_array(v), off, order=order, **kw),
                      rb.segment_sum(v, off, order=order, **kw))
        same_bits(rb.segment_sum(emu_array(v), off, order=order, weights=emu_array(w)),
                  rb.segment_sum(v, off, order=order, weights=w))
        k, s = rb.reduce_by_key(emu_array(keys), emu_array(v), order=order)
        k0, s0 = rb.reduce_by_key(keys, v, order=order)
        same_bits(s, s0)
        assert np.array_equal(np.asarray(k), k0)
        for excl in (False, True):
            same_bits(rb.scan_by_key(keys, emu_array(v), order=order, exclusive=excl),
                      rb.scan_by_key(keys, v, order=order, exclusive=excl))
            same_bits(rb.scan_by_key(keys, emu_array(v), order=order, exclusive=excl,
                                     weights=emu_array(w)),
                      rb.scan_by_key(keys, v, order=order, exclusive=excl, weights=w))


def test_mixed_devices(gpu):
    x = np.ones(10)
    with pytest.raises(TypeError, match="GPU and some in host"):
        rb.segment_sum(emu_array(x), [0, 10], weights=x)
    with pytest.raises(TypeError, match="GPU and some in host"):
        rb.cumsum(emu_array(x), out=np.empty(10))
