"""syrk: one triangle of gemm(alpha, op(a), op(a).T, beta, c) (docs/contract.md §3.1),
bit for bit against the executable definition (src/c/order/reference.c's gemm) on every
CPU path, thread count and block tuning, the CUDA kernels (host emulation) and the
C ABI; the other triangle is never read or written."""
import ctypes
import os

import numpy as np
import pytest
import scipy.linalg.blas as sblas

import reference_lib
import reproblas
from cuda_support import EmuDevice, same_bits
from helpers import SUPPORTED_ISAS
from reproblas import _core, _cuda

DTYPES = (np.float32, np.float64)
ORDERS = ("sequential", "pairwise")
# (n, k): one element, empty k, tile and block edges, k past the pairwise chunk
CASES = ((1, 3), (5, 0), (9, 1), (37, 300), (130, 70), (150, 1100))


@pytest.fixture(scope="module")
def ref(tmp_path_factory):
    if reference_lib.compiler() is None:
        pytest.skip("no C compiler to build the reference")
    return reference_lib.build(tmp_path_factory.mktemp("reference"))


def _expected(ref, alpha, a, beta, c, trans, lower, order):
    """The reference gemm's values on the triangle, c's elsewhere."""
    full = ref.gemm(alpha, a, a, beta, c, trans_a=trans, trans_b=not trans, order=order)
    i, j = np.indices(c.shape)
    return np.where(i >= j if lower else i <= j, full, c)


def _operands(rng, dtype, n, k, trans):
    a = (rng.standard_normal((k, n) if trans else (n, k)) * 4).astype(dtype)
    c = rng.standard_normal((n, n)).astype(dtype)
    return a, c


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("case", CASES)
def test_syrk_is_the_reference_on_every_path(ref, dtype, order, case, monkeypatch):
    n, k = case
    rng = np.random.default_rng(n * 7 + k)
    for trans in (False, True):
        a, c = _operands(rng, dtype, n, k, trans)
        for lower in (False, True):
            expected = _expected(ref, 1.5, a, -0.5, c, trans, lower, order)
            for isa in SUPPORTED_ISAS:
                monkeypatch.setenv("REPROBLAS_ISA", isa)
                for threads, tune in (("1", {}), ("3", {"mc": 16, "nc": 24, "kc": 32,
                                                        "min_work": 1})):
                    monkeypatch.setenv("REPROBLAS_NUM_THREADS", threads)
                    with _core.tuning(l3=tune):
                        got = reproblas.syrk(1.5, a, -0.5, c, trans=trans, lower=lower,
                                             order=order)
                    same_bits(got, expected)


@pytest.mark.parametrize("dtype", DTYPES)
def test_values_match_scipy_and_the_triangles_mirror(dtype):
    rng = np.random.default_rng(1)
    a = rng.standard_normal((60, 45)).astype(dtype)
    scipy_syrk = sblas.ssyrk if dtype == np.float32 else sblas.dsyrk
    for trans in (False, True):
        aa = a.T.copy() if trans else a
        for order in ORDERS:
            up = reproblas.syrk(0.5, aa, trans=trans, order=order)
            lo = reproblas.syrk(0.5, aa, trans=trans, lower=True, order=order)
            # x*y == y*x: the two triangles are mirror images, bit for bit
            same_bits(np.triu(lo.T), up)
            np.testing.assert_allclose(up, scipy_syrk(0.5, aa, trans=trans),
                                       rtol=1e-5 if dtype == np.float32 else 1e-12, atol=1e-4)
            assert not np.triu(lo, 1).any() and not np.tril(up, -1).any()  # +0, as scipy


def test_other_triangle_unread_and_unchanged():
    rng = np.random.default_rng(2)
    a = rng.standard_normal((40, 20))
    c = rng.standard_normal((40, 40))
    i, j = np.indices(c.shape)
    c[i > j] = np.nan  # the lower triangle: syrk(upper) must neither read nor write it
    got = reproblas.syrk(1.0, a, 2.0, c)
    assert np.isnan(got[i > j]).all()
    expected = reproblas.gemm(1.0, a, a, 2.0, np.where(i > j, 0.0, c), trans_b=True)
    same_bits(np.where(i <= j, got, 0), np.where(i <= j, expected, 0))
    # beta == 0: c is not read (NaN in the triangle has no effect)
    c2 = np.full((40, 40), np.nan)
    same_bits(np.triu(reproblas.syrk(1.0, a, 0.0, c2)), np.triu(reproblas.gemm(1.0, a, a.T)))


def test_overwrite_out_and_layouts():
    rng = np.random.default_rng(3)
    a = rng.standard_normal((30, 12))
    c = rng.standard_normal((30, 30))
    expected = reproblas.syrk(0.25, a, 1.5, c, lower=True)
    for layout in ("F", "strided"):
        cc = np.asfortranarray(c) if layout == "F" else np.repeat(c, 2, axis=1)[:, ::2]
        assert reproblas.syrk(0.25, a, 1.5, cc, lower=True, overwrite_c=True) is cc
        same_bits(cc, expected)
    out = np.empty((30, 30))
    assert reproblas.syrk(0.25, a, 1.5, c, lower=True, out=out) is out
    same_bits(out, expected)
    # a and c share memory: the result uses a's old values
    sq = rng.standard_normal((16, 16))
    expected = reproblas.syrk(1.0, sq.copy(), 1.0, sq.copy())
    same_bits(reproblas.syrk(1.0, sq, 1.0, sq, overwrite_c=True), expected)


def test_bad_input():
    a = np.ones((4, 3))
    with pytest.raises(ValueError, match="needs c"):
        reproblas.syrk(1.0, a, 1.0)
    with pytest.raises(ValueError, match="shape"):
        reproblas.syrk(1.0, a, 1.0, np.ones((3, 3)))
    with pytest.raises(ValueError, match="shape"):  # trans: op(a) is 3 x 4, c must be 3 x 3
        reproblas.syrk(1.0, a, 1.0, np.ones((4, 4)), trans=True)
    with pytest.raises(ValueError):
        reproblas.syrk(1.0, np.ones(4))
    with pytest.raises(TypeError):
        reproblas.syrk(1.0, np.ones((4, 3), np.int64))
    with pytest.raises(TypeError):
        reproblas.syrk(1.0, a, 1.0, np.ones((4, 4), np.float32))
    ro = np.ones((4, 4))
    ro.flags.writeable = False
    with pytest.raises(ValueError):
        reproblas.syrk(1.0, a, 1.0, ro, overwrite_c=True)
    with pytest.raises(ValueError, match="order"):
        reproblas.syrk(1.0, a, order="fast")
    with pytest.raises(ValueError):
        reproblas.syrk(1.0, a, 0.0, np.ones((4, 4)), overwrite_c=True, out=np.ones((4, 4)))
    assert reproblas.syrk(1.0, np.ones((0, 3))).shape == (0, 0)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order", ORDERS)
def test_cuda_kernels_emulated(dtype, order, monkeypatch):
    """The CUDA gemm kernels with a triangle (blocks outside it return at once) give
    the CPU's bits on the triangle and leave the rest alone."""
    emu = EmuDevice()
    rng = np.random.default_rng(4)
    for n, k in ((5, 3), (70, 40), (130, 17)):
        for trans in (False, True):
            a, c = _operands(rng, dtype, n, k, trans)
            for lower in (False, True):
                expected = reproblas.syrk(0.75, a, 2.0, c, trans=trans, lower=lower, order=order)
                got = c.copy()
                _cuda.gemm(emu, order, 0.75, a, trans, a, not trans, 2.0, got, 1 if lower else 2)
                same_bits(got, expected)


def test_c_abi():
    lib = ctypes.CDLL(os.path.join(reproblas.get_library_dir(), "libreproblas.so"))
    i64, ptr, ci = ctypes.c_int64, ctypes.c_void_p, ctypes.c_int
    row, col, notrans, trans, upper, lower = 101, 102, 111, 112, 121, 122
    rng = np.random.default_rng(5)
    for dtype, fn, ct in ((np.float32, lib.reproblas_ssyrk, ctypes.c_float),
                          (np.float64, lib.reproblas_dsyrk, ctypes.c_double)):
        fn.restype = ci
        fn.argtypes = [ci, ci, ci, i64, i64, ct, ptr, i64, ct, ptr, i64, ci]
        n, k = 23, 17
        for layout in (row, col):
            for tr in (notrans, trans):
                stored_a = rng.standard_normal((k, n) if tr == trans else (n, k)).astype(dtype)
                c0 = rng.standard_normal((n, n)).astype(dtype)
                for ul in (upper, lower):
                    for order in (0, 1):
                        expected = reproblas.syrk(1.25, stored_a, 0.5, c0, trans=tr == trans,
                                                  lower=ul == lower, order=ORDERS[order])
                        a_mem = stored_a if layout == row else np.asfortranarray(stored_a)
                        c_mem = np.array(c0, order="C" if layout == row else "F")
                        lda = a_mem.shape[1] if layout == row else a_mem.shape[0]
                        assert fn(layout, ul, tr, n, k, 1.25, a_mem.ctypes.data, lda, 0.5,
                                  c_mem.ctypes.data, n, order) == 0
                        same_bits(c_mem, expected)
        a = np.ones((4, 4), dtype)
        c = np.ones((4, 4), dtype)
        args = dict(layout=row, uplo=upper, trans=notrans, n=4, k=4, lda=4, ldc=4, order=0)
        for field, bad, rc in (("layout", 7, -1), ("uplo", 7, -2), ("trans", 7, -3),
                               ("n", -1, -4), ("k", -1, -5), ("lda", 3, -8), ("ldc", 3, -11),
                               ("order", 9, -12)):
            g = dict(args, **{field: bad})
            assert fn(g["layout"], g["uplo"], g["trans"], g["n"], g["k"], 1.0, a.ctypes.data,
                      g["lda"], 0.0, c.ctypes.data, g["ldc"], g["order"]) == rc, field
