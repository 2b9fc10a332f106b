"""The C ABI of the scans and segmented sums (reproblas.h: reproblas_?cumsum,
?cumprod, ?segment_sum) through ctypes: the Python API's bits, increments, in place,
and LAPACK-style argument codes with nothing written."""
import ctypes
from pathlib import Path

import numpy as np
import pytest

import reproblas as rb

LIB = ctypes.CDLL(str(Path(rb.get_library_dir()) / "libreproblas.so"))
P, L, I = ctypes.c_void_p, ctypes.c_int64, ctypes.c_int
for _p in "sd":
    for _op in ("cumsum", "cumprod"):
        f = getattr(LIB, f"reproblas_{_p}{_op}")
        f.argtypes, f.restype = [L, P, L, P, L, I, I], I
    for _name in ("segment_sum", "segment_asum"):
        f = getattr(LIB, f"reproblas_{_p}{_name}")
        f.argtypes, f.restype = [L, P, L, P, P, I], I
    f = getattr(LIB, f"reproblas_{_p}segment_dot")
    f.argtypes, f.restype = [L, P, P, L, P, P, I], I
    f = getattr(LIB, f"reproblas_{_p}segment_cumsum")
    f.argtypes, f.restype = [L, P, L, P, P, I, I], I


NAMES = {0: "sequential", 1: "pairwise", 2: "kahan", 3: "exact"}


def fn(name, dtype):
    return getattr(LIB, f"reproblas_{'s' if dtype == np.float32 else 'd'}{name}")


def base(a):
    return a.ctypes.data if a.strides[0] >= 0 else a.ctypes.data + (a.shape[0] - 1) * a.strides[0]


def same(got, want):
    u = {4: np.uint32, 8: np.uint64}[got.itemsize]
    nan = np.isnan(got) & np.isnan(want)
    assert np.array_equal(got.view(u)[~nan], want.view(u)[~nan])


@pytest.mark.parametrize("dtype", (np.float32, np.float64))
def test_scans(dtype):
    rng = np.random.default_rng(1)
    x = (rng.standard_normal(3001) * 2.0 ** rng.integers(-20, 20, 3001)).astype(dtype)
    for op, pyf in (("cumsum", rb.cumsum), ("cumprod", rb.cumprod)):
        xx = x if op == "cumsum" else (1 + x * 2.0 ** -30).astype(dtype)
        for order in ((0, 1, 2, 3) if op == "cumsum" else (0, 1, 3)):  # 2: Kahan, 3: Exact
            name = NAMES[order]
            for excl in (0, 1):
                want = pyf(xx, order=name, exclusive=bool(excl))
                y = np.full_like(xx, np.nan)
                assert fn(op, dtype)(xx.shape[0], xx.ctypes.data, 1, y.ctypes.data, 1, excl,
                                     order) == 0
                same(y, want)
                z = xx.copy()  # in place
                assert fn(op, dtype)(z.shape[0], z.ctypes.data, 1, z.ctypes.data, 1, excl,
                                     order) == 0
                same(z, want)
                # increments: x read backwards (inc -2), y written with inc 3
                src = np.empty(2 * xx.shape[0], dtype)
                src[::2] = xx[::-1]
                dst = np.zeros(3 * xx.shape[0], dtype)
                assert fn(op, dtype)(xx.shape[0], src.ctypes.data, -2, dst.ctypes.data, 3, excl,
                                     order) == 0
                same(dst[::3], want)


def test_scan_errors():
    x, y = np.ones(4), np.zeros(4)
    f = fn("cumsum", np.float64)
    assert f(-1, x.ctypes.data, 1, y.ctypes.data, 1, 0, 0) == -1
    assert f(4, None, 1, y.ctypes.data, 1, 0, 0) == -2
    assert f(4, x.ctypes.data, 0, y.ctypes.data, 1, 0, 0) == -3
    assert f(4, x.ctypes.data, 1, None, 1, 0, 0) == -4
    assert f(4, x.ctypes.data, 1, y.ctypes.data, 0, 0, 0) == -5
    assert f(4, x.ctypes.data, 1, y.ctypes.data, 1, 2, 0) == -6
    assert f(4, x.ctypes.data, 1, y.ctypes.data, 1, 0, 7) == -7
    assert fn("cumprod", np.float64)(4, x.ctypes.data, 1, y.ctypes.data, 1, 0, 2) == -7
    assert not y.any()
    assert f(0, None, 1, None, 1, 0, 1) == 0


@pytest.mark.parametrize("dtype", (np.float32, np.float64))
def test_segment_sum(dtype):
    rng = np.random.default_rng(2)
    x = rng.standard_normal(1000).astype(dtype)
    off = np.array([0, 0, 3, 400, 400, 999, 1000], np.int64)
    f = fn("segment_sum", dtype)
    for order in (0, 1, 2, 3):
        res = np.full(6, np.nan, dtype)
        assert f(1000, x.ctypes.data, 6, off.ctypes.data, res.ctypes.data, order) == 0
        same(res, rb.segment_sum(x, off, order=NAMES[order]))
    res = np.zeros(6, dtype)
    bad = np.array([0, 5, 3, 10, 10, 10, 10], np.int64)
    assert f(1000, x.ctypes.data, 6, bad.ctypes.data, res.ctypes.data, 0) == -4
    big = np.array([0, 1001], np.int64)
    assert f(1000, x.ctypes.data, 1, big.ctypes.data, res.ctypes.data, 0) == -4
    assert f(1000, x.ctypes.data, -1, off.ctypes.data, res.ctypes.data, 0) == -3
    assert f(1000, x.ctypes.data, 6, off.ctypes.data, None, 0) == -5
    assert f(1000, x.ctypes.data, 6, off.ctypes.data, res.ctypes.data, 7) == -6
    assert not res.any()


@pytest.mark.parametrize("dtype", (np.float32, np.float64))
def test_segment_transforms_and_scan(dtype):
    rng = np.random.default_rng(3)
    x, w = rng.standard_normal(1000).astype(dtype), rng.standard_normal(1000).astype(dtype)
    off = np.array([0, 0, 3, 400, 400, 999, 1000], np.int64)
    keys = np.repeat(np.arange(6), np.diff(off))
    for order in (0, 1, 2, 3):
        name = NAMES[order]
        res = np.full(6, np.nan, dtype)
        assert fn("segment_asum", dtype)(1000, x.ctypes.data, 6, off.ctypes.data,
                                         res.ctypes.data, order) == 0
        same(res, rb.segment_sum(x, off, order=name, transform="abs"))
        assert fn("segment_dot", dtype)(1000, x.ctypes.data, w.ctypes.data, 6, off.ctypes.data,
                                        res.ctypes.data, order) == 0
        same(res, rb.segment_sum(x, off, order=name, weights=w))
        assert fn("segment_dot", dtype)(1000, x.ctypes.data, x.ctypes.data, 6, off.ctypes.data,
                                        res.ctypes.data, order) == 0
        same(res, rb.segment_sum(x, off, order=name, transform="square"))
        for excl in (0, 1):
            y = np.full_like(x, np.nan)
            assert fn("segment_cumsum", dtype)(1000, x.ctypes.data, 6, off.ctypes.data,
                                               y.ctypes.data, excl, order) == 0
            want = rb.scan_by_key(keys, x, order=name, exclusive=bool(excl))
            same(y, want)
            z = x.copy()  # in place
            assert fn("segment_cumsum", dtype)(1000, z.ctypes.data, 6, off.ctypes.data,
                                               z.ctypes.data, excl, order) == 0
            same(z, want)
    res = np.zeros(6, dtype)
    assert fn("segment_dot", dtype)(1000, x.ctypes.data, None, 6, off.ctypes.data,
                                    res.ctypes.data, 0) == -3
    assert fn("segment_dot", dtype)(1000, x.ctypes.data, w.ctypes.data, 6, None,
                                    res.ctypes.data, 0) == -5
    y = np.zeros_like(x)
    assert fn("segment_cumsum", dtype)(1000, x.ctypes.data, 6, off.ctypes.data, y.ctypes.data,
                                       3, 0) == -6
    assert not res.any() and not y.any()
