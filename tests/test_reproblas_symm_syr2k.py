"""symm and syr2k (docs/contract.md §3.1), structured operands of the gemm frame:
symm is gemm on the symmetric matrix rebuilt from its stored triangle, syr2k the
gemm whose terms alternate op(a)[i, k] op(b)[j, k], op(b)[i, k] op(a)[j, k]; bit
for bit against the executable definition (src/c/order/reference.c's gemm) on
every CPU path, thread count and block tuning, and through the emulated CUDA
kernels; the unstored triangle of a and the unwritten one of c are never read."""
import ctypes
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
TUNINGS = (("1", {}), ("3", {"mc": 16, "nc": 24, "kc": 32, "min_work": 1}))


@pytest.fixture(scope="module")
def ref(tmp_path_factory):
    if reference_lib.compiler() is None:
        pytest.skip("no C compiler to build the reference")
    return reference_lib.build(tmp_path_factory.mktemp("reference"))


def _everywhere(monkeypatch, call, expected):
    for isa in SUPPORTED_ISAS:
        monkeypatch.setenv("REPROBLAS_ISA", isa)
        for threads, tune in TUNINGS:
            monkeypatch.setenv("REPROBLAS_NUM_THREADS", threads)
            with _core.tuning(l3=tune):
                same_bits(call(), expected)


def _stored(rng, dtype, n, lower):
    """A symmetric matrix's stored triangle, NaN in the other one (never read), and
    the whole matrix."""
    s = (rng.standard_normal((n, n)) * 3).astype(dtype)
    full = np.tril(s) + np.tril(s, -1).T
    i, j = np.indices((n, n))
    stored = np.where(i >= j if lower else i <= j, full, np.nan).astype(dtype)
    return stored, full


def _interleaved(opa, opb):
    """syr2k's terms as one plain product: columns of op(a) and op(b) alternate."""
    n, k = opa.shape
    return np.stack([opa, opb], axis=2).reshape(n, 2 * k)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("shape", ((1, 1), (7, 3), (45, 70), (130, 33)))
def test_symm_is_gemm_on_the_whole_matrix(ref, dtype, order, shape, monkeypatch):
    m, n = shape
    rng = np.random.default_rng(m * 31 + n)
    b = rng.standard_normal((m, n)).astype(dtype)
    c = rng.standard_normal((m, n)).astype(dtype)
    for right in (0, 1):
        for lower in (False, True):
            stored, full = _stored(rng, dtype, n if right else m, lower)
            x, y = (b, full) if right else (full, b)
            expected = ref.gemm(0.75, x, y, -1.5, c, order=order)
            _everywhere(monkeypatch, lambda: reproblas.symm(
                0.75, stored, b, -1.5, c, side=right, lower=lower, order=order), expected)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("case", ((1, 2), (6, 0), (40, 17), (131, 90)))
def test_syr2k_is_gemm_on_the_interleaved_terms(ref, dtype, order, case, monkeypatch):
    n, k = case
    rng = np.random.default_rng(n * 7 + k)
    c = rng.standard_normal((n, n)).astype(dtype)
    i, j = np.indices((n, n))
    for trans in (False, True):
        shape = (k, n) if trans else (n, k)
        a = (rng.standard_normal(shape) * 4).astype(dtype)
        b = rng.standard_normal(shape).astype(dtype)
        opa, opb = (a.T, b.T) if trans else (a, b)
        full = ref.gemm(1.25, _interleaved(opa, opb), _interleaved(opb, opa), 0.5, c,
                        trans_b=True, order=order)
        for lower in (False, True):
            keep = i >= j if lower else i <= j
            expected = np.where(keep, full, c)
            _everywhere(monkeypatch, lambda: reproblas.syr2k(
                1.25, a, b, 0.5, c, trans=trans, lower=lower, order=order), expected)


@pytest.mark.parametrize("dtype", DTYPES)
def test_values_match_scipy(dtype):
    rng = np.random.default_rng(1)
    tol = dict(rtol=1e-4, atol=1e-3) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-10)
    s = rng.standard_normal((40, 40)).astype(dtype)
    bl, br = rng.standard_normal((40, 25)).astype(dtype), rng.standard_normal((25, 40)).astype(dtype)
    symm = sblas.ssymm if dtype == np.float32 else sblas.dsymm
    syr2k = sblas.ssyr2k if dtype == np.float32 else sblas.dsyr2k
    for lower in (0, 1):
        np.testing.assert_allclose(reproblas.symm(2.0, s, bl, lower=lower),
                                   symm(2.0, s, bl, lower=lower), **tol)
        np.testing.assert_allclose(reproblas.symm(2.0, s, br, side=1, lower=lower),
                                   symm(2.0, s, br, side=1, lower=lower), **tol)
        for trans in (0, 1):
            a, b = (bl.T.copy(), br) if trans else (bl, br.T.copy())
            np.testing.assert_allclose(reproblas.syr2k(0.5, a, b, trans=trans, lower=lower),
                                       syr2k(0.5, a, b, trans=trans, lower=lower), **tol)


def test_outputs_and_overlap():
    rng = np.random.default_rng(2)
    s = rng.standard_normal((20, 20))
    b = rng.standard_normal((20, 20))
    c = rng.standard_normal((20, 20))
    expected = reproblas.symm(1.0, s, b, 1.0, c)
    cf = np.asfortranarray(c)
    assert reproblas.symm(1.0, s, b, 1.0, cf, overwrite_c=True) is cf
    same_bits(cf, expected)
    out = np.empty((20, 20))
    assert reproblas.symm(1.0, s, b, 1.0, c, out=out) is out
    same_bits(out, expected)
    # b is c, updated in place: the old b is used
    bb = b.copy()
    same_bits(reproblas.symm(1.0, s, bb, 1.0, bb, overwrite_c=True),
              reproblas.symm(1.0, s, b, 1.0, b))
    # syr2k with a and b sharing c's memory
    expected = reproblas.syr2k(1.0, s, b, 1.0, s.copy())
    ss = s.copy()
    same_bits(reproblas.syr2k(1.0, ss, b, 1.0, ss, overwrite_c=True), expected)


def test_bad_input():
    s, b = np.ones((4, 4)), np.ones((4, 3))
    with pytest.raises(ValueError, match="must be"):
        reproblas.symm(1.0, s, b, side=1)  # b @ a needs a 3 x 3
    with pytest.raises(ValueError, match="must be"):
        reproblas.symm(1.0, np.ones((4, 3)), b)
    with pytest.raises(ValueError, match="needs c"):
        reproblas.symm(1.0, s, b, 1.0)
    with pytest.raises(ValueError, match="shape"):
        reproblas.symm(1.0, s, b, 1.0, np.ones((3, 4)))
    with pytest.raises(TypeError):
        reproblas.symm(1.0, s.astype(np.float32), b)
    with pytest.raises(TypeError):
        reproblas.symm(1.0, s, b, side="L")
    with pytest.raises(ValueError, match="one shape"):
        reproblas.syr2k(1.0, b, np.ones((3, 4)))
    with pytest.raises(ValueError, match="needs c"):
        reproblas.syr2k(1.0, b, b, 2.0)
    with pytest.raises(ValueError, match="order"):
        reproblas.syr2k(1.0, b, b, order="fast")
    assert reproblas.syr2k(1.0, np.ones((0, 2)), np.ones((0, 2))).shape == (0, 0)
    assert reproblas.symm(1.0, np.ones((0, 0)), np.ones((0, 5))).shape == (0, 5)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order", ORDERS)
def test_cuda_path_emulated(dtype, order, monkeypatch):
    """The CUDA backend rebuilds the structured operands (the same terms) for its
    gemm kernels: the CPU's bits, through the public API on device arrays."""
    monkeypatch.setattr(rt_cuda, "_device", [EmuDevice()])
    rng = np.random.default_rng(3)
    b = rng.standard_normal((37, 21)).astype(dtype)
    c = rng.standard_normal((37, 37)).astype(dtype)
    for lower in (False, True):
        stored, _ = _stored(rng, dtype, 37, lower)
        got = reproblas.symm(0.5, emu_array(stored), emu_array(b), order=order, lower=lower)
        same_bits(got, reproblas.symm(0.5, stored, b, order=order, lower=lower))
        got = reproblas.syr2k(1.5, emu_array(b), emu_array(b[::-1]), 0.25, emu_array(c),
                              lower=lower, order=order)
        same_bits(got, reproblas.syr2k(1.5, b, b[::-1], 0.25, c, lower=lower, order=order))
        got = reproblas.syrk(1.5, emu_array(b), 0.25, emu_array(c), lower=lower, order=order)
        same_bits(got, reproblas.syrk(1.5, b, 0.25, c, lower=lower, order=order))


def test_c_abi():
    lib = ctypes.CDLL(os.path.join(reproblas.get_library_dir(), "libreproblas.so"))
    i64, ptr, ci = ctypes.c_int64, ctypes.c_void_p, ctypes.c_int
    row, col, notrans, trans, upper, lower, left, right = 101, 102, 111, 112, 121, 122, 141, 142
    rng = np.random.default_rng(6)

    def mem(x, layout):
        x = np.array(x, order="C" if layout == row else "F")
        return x, (x.shape[1] if layout == row else x.shape[0])

    for dtype, p, ct in ((np.float32, "s", ctypes.c_float), (np.float64, "d", ctypes.c_double)):
        symm, syr2k = getattr(lib, f"reproblas_{p}symm"), getattr(lib, f"reproblas_{p}syr2k")
        symm.restype = syr2k.restype = ci
        symm.argtypes = [ci, ci, ci, i64, i64, ct, ptr, i64, ptr, i64, ct, ptr, i64, ci]
        syr2k.argtypes = [ci, ci, ci, i64, i64, ct, ptr, i64, ptr, i64, ct, ptr, i64, ci]
        m, n, k = 19, 13, 11
        for layout in (row, col):
            for order in (0, 1):
                for ul in (upper, lower):
                    for side in (left, right):
                        na = n if side == right else m
                        s, _ = _stored(rng, dtype, na, ul == lower)
                        b = rng.standard_normal((m, n)).astype(dtype)
                        c0 = rng.standard_normal((m, n)).astype(dtype)
                        expected = reproblas.symm(0.5, s, b, 2.0, c0, side=side == right,
                                                  lower=ul == lower, order=ORDERS[order])
                        (am, lda), (bm, ldb), (cm, ldc) = mem(s, layout), mem(b, layout), mem(c0, layout)
                        assert symm(layout, side, ul, m, n, 0.5, am.ctypes.data, lda,
                                    bm.ctypes.data, ldb, 2.0, cm.ctypes.data, ldc, order) == 0
                        same_bits(cm, expected)
                    for tr in (notrans, trans):
                        shape = (k, n) if tr == trans else (n, k)
                        a = rng.standard_normal(shape).astype(dtype)
                        b = rng.standard_normal(shape).astype(dtype)
                        c0 = rng.standard_normal((n, n)).astype(dtype)
                        expected = reproblas.syr2k(1.5, a, b, -1.0, c0, trans=tr == trans,
                                                   lower=ul == lower, order=ORDERS[order])
                        (am, lda), (bm, ldb), (cm, ldc) = mem(a, layout), mem(b, layout), mem(c0, layout)
                        assert syr2k(layout, ul, tr, n, k, 1.5, am.ctypes.data, lda,
                                     bm.ctypes.data, ldb, -1.0, cm.ctypes.data, ldc, order) == 0
                        same_bits(cm, expected)
        a = np.ones((4, 4), dtype)
        d = a.ctypes.data
        good = dict(layout=row, side=left, uplo=upper, m=4, n=4, lda=4, ldb=4, ldc=4, order=0)
        for field, bad, rc in (("layout", 7, -1), ("side", 7, -2), ("uplo", 7, -3), ("m", -1, -4),
                               ("n", -1, -5), ("lda", 3, -8), ("ldb", 3, -10), ("ldc", 3, -13),
                               ("order", 9, -14)):
            g = dict(good, **{field: bad})
            assert symm(g["layout"], g["side"], g["uplo"], g["m"], g["n"], 1.0, d, g["lda"], d,
                        g["ldb"], 0.0, np.ones((4, 4), dtype).ctypes.data, g["ldc"],
                        g["order"]) == rc, field
        good = dict(layout=row, uplo=upper, trans=notrans, n=4, k=4, lda=4, ldb=4, ldc=4, order=0)
        for field, bad, rc in (("layout", 7, -1), ("uplo", 7, -2), ("trans", 7, -3), ("n", -1, -4),
                               ("k", -1, -5), ("lda", 3, -8), ("ldb", 3, -10), ("ldc", 3, -13),
                               ("order", 9, -14)):
            g = dict(good, **{field: bad})
            assert syr2k(g["layout"], g["uplo"], g["trans"], g["n"], g["k"], 1.0, d, g["lda"], d,
                         g["ldb"], 0.0, np.ones((4, 4), dtype).ctypes.data, g["ldc"],
                         g["order"]) == rc, field
