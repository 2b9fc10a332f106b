"""trmm (docs/contract.md §3.1): the entries of op(a) outside its triangle are absent
terms, not zeros; bit for bit against the executable definition
(src/c/order/reference.c's rb_ref_trmm) on every CPU path, thread count and block
tuning, through the emulated CUDA path and the C ABI."""
import ctypes
import itertools
import os

import numpy as np
import pytest
import scipy.linalg.blas as sblas

import reference_lib
import reproblas
from cuda_support import EmuDevice, emu_array, same_bits
from helpers import SUPPORTED_ISAS
from repro_runtime import cuda as rt_cuda
from reproblas import _core

DTYPES = (np.float32, np.float64)
ORDERS = ("sequential", "pairwise")
FLAGS = list(itertools.product(("left", "right"), (False, True), (False, True), (False, True)))


@pytest.fixture(scope="module")
def ref(tmp_path_factory):
    if reference_lib.compiler() is None:
        pytest.skip("no C compiler to build the reference")
    return reference_lib.build(tmp_path_factory.mktemp("reference"))


def _triangular(rng, dtype, n, lower, unit):
    """A triangular a with NaN outside its triangle (and on its diagonal when unit):
    none of those may be read."""
    a = (rng.standard_normal((n, n)) * 2).astype(dtype)
    i, j = np.indices((n, n))
    a[(i < j) if lower else (i > j)] = np.nan
    if unit:
        a[i == j] = np.nan
    return a


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("shape", ((1, 1), (7, 5), (130, 9), (9, 131), (257, 40), (400, 3)))
def test_trmm_is_the_reference_on_every_path(ref, dtype, order, shape, monkeypatch):
    m, n = shape
    rng = np.random.default_rng(m * 17 + n)
    b = rng.standard_normal((m, n)).astype(dtype)
    for side, lower, trans, unit in FLAGS:
        a = _triangular(rng, dtype, n if side == "right" else m, lower, unit)
        expected = ref.trmm(1.5, a, b, side=side, lower=lower, trans_a=trans,
                            unit_diagonal=unit, order=order)
        for isa in SUPPORTED_ISAS:
            monkeypatch.setenv("REPROBLAS_ISA", isa)
            for threads, tune in (("1", {}), ("3", {"mc": 16, "nc": 24, "kc": 32,
                                                    "min_work": 1})):
                monkeypatch.setenv("REPROBLAS_NUM_THREADS", threads)
                with _core.tuning(l3=tune):
                    got = reproblas.trmm(1.5, a, b, side=side, lower=lower, trans_a=trans,
                                         unit_diagonal=unit, order=order)
                same_bits(got, expected)


@pytest.mark.parametrize("order", ORDERS)
def test_absent_terms_are_not_zero_products(order):
    """b's infinities in rows that only absent terms would meet stay out of the sum
    (0 * inf would be NaN), and a row of -0 products keeps its sign (-0 + +0 = +0)."""
    m = 140
    a = np.tril(np.ones((m, m)))
    b = np.ones((m, 3))
    b[-1, 0] = np.inf  # only the last row of a lower a reaches row m - 1 of b
    b[:, 1] = -0.0
    got = reproblas.trmm(1.0, a, b, lower=True, order=order)
    assert np.isinf(got[-1, 0]) and np.isfinite(got[:-1, 0]).all()
    assert np.all(np.signbit(got[:, 1])) and not got[:, 1].any()
    np.testing.assert_array_equal(got[:, 2], np.arange(1, m + 1))


def _specials(rng, dtype, m, n):
    """b with infinities, NaNs and -0 columns placed so that most rows meet them only
    through absent terms (the diagonal tiles' masked lanes)."""
    b = rng.standard_normal((m, n)).astype(dtype)
    for j in range(n):
        k = int(rng.integers(0, m))
        kind = j % 4
        if kind == 0:
            b[k, j] = np.inf
        elif kind == 1:
            b[k, j] = np.nan
        elif kind == 2:  # -0 above k, 1 from k on
            b[:k, j] = -0.0
            b[k:, j] = 1.0
        else:  # 1 up to k, -0 after
            b[:k + 1, j] = 1.0
            b[k + 1:, j] = -0.0
    return b


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", ((77, 1), (1, 77), (150, 13), (33, 40), (97, 29)))
def test_diagonal_tiles_with_specials(ref, dtype, shape, monkeypatch):
    """Sequential trmm runs the tiles crossing the diagonal through a masked
    micro-kernel: b's inf / NaN / -0 beyond a row's triangle must stay out of that
    row (a zero product would give NaN or turn -0 into +0), on every path, thread
    count, tile-unaligned size and block tuning (ws: several row blocks, written in
    place in b's storage), and with a gemv tile (one column)."""
    m, n = shape
    rng = np.random.default_rng(m * 31 + n)
    tunes = ({}, {"mc": 16, "nc": 24, "kc": 8, "ws": 16 * 24, "min_work": 1},
             {"mc": 40, "nc": 12, "kc": 5, "ws": 1, "min_work": 1})
    for side, lower, trans, unit in FLAGS:
        b = _specials(rng, dtype, m, n)
        a = _triangular(rng, dtype, n if side == "right" else m, lower, unit)
        a[~np.isnan(a)] = np.abs(a[~np.isnan(a)]) + 0.5  # positive: signs of zero survive
        expected = ref.trmm(1.0, a, b, side=side, lower=lower, trans_a=trans,
                            unit_diagonal=unit)
        if side == "left" and not trans:
            # rows reaching the column's special only through absent terms
            for j in range(n):
                col, rows = b[:, j], np.arange(m)
                if j % 4 in (0, 1):
                    k = int(np.flatnonzero(~np.isfinite(col))[0])
                    clean = rows < k if lower else rows > k
                    assert np.isfinite(expected[clean, j]).all()
                else:  # rows whose present terms are all -0 products: -0
                    ones = np.flatnonzero(col == 1.0)
                    if j % 4 == 2 and lower:
                        neg = rows < ones[0]
                    elif j % 4 == 3 and not lower:
                        neg = rows > ones[-1]
                    else:
                        continue
                    assert np.all(np.signbit(expected[neg, j])) and not expected[neg, j].any()
        for isa in SUPPORTED_ISAS:
            monkeypatch.setenv("REPROBLAS_ISA", isa)
            for threads, tune in itertools.product(("1", "3"), tunes):
                monkeypatch.setenv("REPROBLAS_NUM_THREADS", threads)
                with _core.tuning(l3=tune):
                    got = reproblas.trmm(1.0, a, b, side=side, lower=lower, trans_a=trans,
                                         unit_diagonal=unit)
                    bf = np.array(b, order="F")  # in place, b's rows strided
                    reproblas.trmm(1.0, a, bf, side=side, lower=lower, trans_a=trans,
                                   unit_diagonal=unit, overwrite_b=True)
                same_bits(got, expected)
                same_bits(bf, expected)


@pytest.mark.parametrize("dtype", DTYPES)
def test_values_match_scipy(dtype):
    rng = np.random.default_rng(1)
    f = sblas.strmm if dtype == np.float32 else sblas.dtrmm
    tol = dict(rtol=1e-4, atol=1e-4) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-12)
    b = rng.standard_normal((50, 30)).astype(dtype)
    for side, lower, trans, unit in FLAGS:
        a = rng.standard_normal((30, 30) if side == "right" else (50, 50)).astype(dtype)
        got = reproblas.trmm(0.5, a, b, side=side, lower=lower, trans_a=trans,
                             unit_diagonal=unit)
        np.testing.assert_allclose(got, f(0.5, a, b, side=int(side == "right"), lower=lower,
                                          trans_a=trans, diag=unit), **tol)


def test_outputs_and_bad_input():
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal((20, 20)), rng.standard_normal((20, 8))
    expected = reproblas.trmm(2.0, a, b, lower=True)
    bf = np.asfortranarray(b)
    assert reproblas.trmm(2.0, a, bf, lower=True, overwrite_b=True) is bf
    same_bits(bf, expected)
    out = np.empty((20, 8))
    assert reproblas.trmm(2.0, a, b, lower=True, out=out) is out
    same_bits(out, expected)
    with pytest.raises(ValueError):
        reproblas.trmm(1.0, a, b, side="right")  # a must be 8 x 8
    with pytest.raises(ValueError):
        reproblas.trmm(1.0, np.ones((3, 4)), np.ones((3, 2)))
    with pytest.raises(TypeError):
        reproblas.trmm(1.0, a.astype(np.float32), b)
    with pytest.raises(ValueError, match="order"):
        reproblas.trmm(1.0, a, b, order="fast")
    with pytest.raises(ValueError):
        reproblas.trmm(1.0, a, b, side="middle")
    assert reproblas.trmm(1.0, np.ones((0, 0)), np.ones((0, 4))).shape == (0, 4)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order", ORDERS)
def test_cuda_path_emulated(dtype, order, monkeypatch):
    monkeypatch.setattr(rt_cuda, "_device", [EmuDevice()])
    rng = np.random.default_rng(3)
    b = rng.standard_normal((19, 11)).astype(dtype)
    for side, lower, trans, unit in FLAGS:
        a = _triangular(rng, dtype, 11 if side == "right" else 19, lower, unit)
        kw = dict(side=side, lower=lower, trans_a=trans, unit_diagonal=unit, order=order)
        same_bits(reproblas.trmm(0.75, emu_array(a), emu_array(b), **kw),
                  reproblas.trmm(0.75, a, b, **kw))


def test_c_abi():
    lib = ctypes.CDLL(os.path.join(reproblas.get_library_dir(), "libreproblas.so"))
    i64, ptr, ci = ctypes.c_int64, ctypes.c_void_p, ctypes.c_int
    row, col = 101, 102
    codes = {"left": 141, "right": 142, False: 121, True: 122}  # side; lower -> uplo
    rng = np.random.default_rng(4)
    for dtype, fn, ct in ((np.float32, lib.reproblas_strmm, ctypes.c_float),
                          (np.float64, lib.reproblas_dtrmm, ctypes.c_double)):
        fn.restype = ci
        fn.argtypes = [ci, ci, ci, ci, ci, i64, i64, ct, ptr, i64, ptr, i64, ci]
        b0 = rng.standard_normal((13, 7)).astype(dtype)
        for layout in (row, col):
            for (side, lower, trans, unit), order in itertools.product(FLAGS, (0, 1)):
                a = _triangular(rng, dtype, 7 if side == "right" else 13, lower, unit)
                expected = reproblas.trmm(1.25, a, b0, side=side, lower=lower, trans_a=trans,
                                          unit_diagonal=unit, order=ORDERS[order])
                am = np.array(a, order="C" if layout == row else "F")
                bm = np.array(b0, order="C" if layout == row else "F")
                lda, ldb = a.shape[0], (7 if layout == row else 13)
                assert fn(layout, codes[side], codes[lower], 112 if trans else 111,
                          132 if unit else 131, 13, 7, 1.25, am.ctypes.data, lda, bm.ctypes.data,
                          ldb, order) == 0
                same_bits(bm, expected)
        ones = np.ones((4, 4), dtype)
        d = ones.ctypes.data
        assert fn(row, 7, 121, 111, 131, 4, 4, 1.0, d, 4, d, 4, 0) == -2
        assert fn(row, 141, 7, 111, 131, 4, 4, 1.0, d, 4, d, 4, 0) == -3
        assert fn(row, 141, 121, 111, 131, 4, 4, 1.0, d, 3, d, 4, 0) == -10
        assert fn(row, 141, 121, 111, 131, 4, 4, 1.0, d, 4, d, 4, 9) == -13
