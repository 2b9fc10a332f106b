"""The C ABI of the level-2 routines on symmetric, triangular, band and packed
matrices (reproblas.h, src/c/capi/reproblas_level2.inc), through ctypes on
libreproblas.so: both layouts (row-major band and packed storage are the column-major
storage of A^T), negative and non-unit increments, both orders, every flag, give the
Python API's bits; bad arguments give -i for argument i and write nothing."""
import ctypes
import itertools
import os

import numpy as np
import pytest

import reproblas as rb
from level2_support import data, pack, same_bits, sym_full, to_band

ROW, COL, NOTRANS, TRANS = 101, 102, 111, 112
UPPER, LOWER, NONUNIT, UNIT = 121, 122, 131, 132
ORDERS = {0: "sequential", 1: "pairwise"}
I, L, P = ctypes.c_int, ctypes.c_int64, ctypes.c_void_p


@pytest.fixture(scope="module")
def lib():
    lib = ctypes.CDLL(os.path.join(rb.get_library_dir(), "libreproblas.so"))
    for p, t in (("s", ctypes.c_float), ("d", ctypes.c_double)):
        sig = {
            "symv": [I, I, L, t, P, L, P, L, t, P, L, I],
            "sbmv": [I, I, L, L, t, P, L, P, L, t, P, L, I],
            "spmv": [I, I, L, t, P, P, L, t, P, L, I],
            "gbmv": [I, I, L, L, L, L, t, P, L, P, L, t, P, L, I],
            "trmv": [I, I, I, I, L, P, L, P, L, I],
            "tbmv": [I, I, I, I, L, L, P, L, P, L, I],
            "tpmv": [I, I, I, I, L, P, P, L, I],
            "tbsv": [I, I, I, I, L, L, P, L, P, L, I],
            "tpsv": [I, I, I, I, L, P, P, L, I],
            "syr": [I, I, L, t, P, L, P, L],
            "spr": [I, I, L, t, P, L, P],
            "syr2": [I, I, L, t, P, L, P, L, P, L],
            "spr2": [I, I, L, t, P, L, P, L, P],
        }
        for name, args in sig.items():
            f = getattr(lib, f"reproblas_{p}{name}")
            f.restype, f.argtypes = ctypes.c_int, args
    return lib


def fn(lib, dtype, name):
    return getattr(lib, f"reproblas_{'s' if dtype == np.float32 else 'd'}{name}")


def blas_vec(v, inc):
    """A BLAS vector of v's values with increment inc (negative: from the far end):
    (buffer, pointer to pass)."""
    n, step = v.shape[0], abs(inc)
    buf = np.full(max((n - 1) * step + 1, 1), np.nan, v.dtype)
    buf[::step][:n] = v if inc > 0 else v[::-1]
    return buf


def read_vec(buf, n, inc):
    v = buf[::abs(inc)][:n]
    return v if inc > 0 else v[::-1]


def rowmajor_packed(full, lower):
    """CBLAS row-major packed: the triangle row by row."""
    n = full.shape[0]
    return np.concatenate([full[i, : i + 1] if lower else full[i, i:] for i in range(n)]
                          or [np.zeros(0, full.dtype)])


def rowmajor_band(full, kl, ku):
    """CBLAS row-major band: a[i, kl + j - i] = A[i, j], lda = kl + ku + 1."""
    m, n = full.shape
    ab = np.full((m, kl + ku + 1), np.nan, full.dtype)
    for i in range(m):
        for j in range(max(0, i - kl), min(n, i + ku + 1)):
            ab[i, kl + j - i] = full[i, j]
    return ab


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("order", [0, 1])
def test_every_routine_matches_python(lib, dtype, order):
    rng = np.random.default_rng(5 + order)
    n = 23
    o = ORDERS[order]
    for (layout, uplo, incx, incy) in itertools.product((ROW, COL), (UPPER, LOWER), (1, -2),
                                                        (1, 3)):
        lower = uplo == LOWER
        a = data(rng, (n, n), dtype)
        full = sym_full(a, lower)
        x, y = data(rng, n, dtype), data(rng, n, dtype)
        xb, yb = blas_vec(x, incx), blas_vec(y, incy)
        am = np.array(a, order="C" if layout == ROW else "F")
        # symv
        out = yb.copy()
        assert fn(lib, dtype, "symv")(layout, uplo, n, 1.5, am.ctypes.data, n, xb.ctypes.data,
                                      incx, -0.5, out.ctypes.data, incy, order) == 0
        same_bits(read_vec(out, n, incy), rb.symv(1.5, a, x, -0.5, y, lower=lower, order=o),
                  "symv")
        # spmv
        ap = rowmajor_packed(full, lower) if layout == ROW else pack(full, lower)
        out = yb.copy()
        assert fn(lib, dtype, "spmv")(layout, uplo, n, 2.0, ap.ctypes.data, xb.ctypes.data,
                                      incx, 0.0, out.ctypes.data, incy, order) == 0
        same_bits(read_vec(out, n, incy), rb.spmv(n, 2.0, pack(full, lower), x, lower=lower,
                                                  order=o), "spmv")
        # sbmv, k = 3
        k = 3
        kl, ku = (k, 0) if lower else (0, k)
        band = to_band(full, kl, ku)
        bm = rowmajor_band(full, kl, ku) if layout == ROW else np.asfortranarray(band)
        out = yb.copy()
        assert fn(lib, dtype, "sbmv")(layout, uplo, n, k, 1.0, bm.ctypes.data, k + 1,
                                      xb.ctypes.data, incx, 1.0, out.ctypes.data, incy,
                                      order) == 0
        same_bits(read_vec(out, n, incy), rb.sbmv(k, 1.0, band, x, 1.0, y, lower=lower,
                                                  order=o), "sbmv")
        for trans, diag in itertools.product((NOTRANS, TRANS), (NONUNIT, UNIT)):
            f = dict(lower=lower, trans=trans == TRANS, unit_diagonal=diag == UNIT, order=o)
            tri = np.tril(a) if lower else np.triu(a)
            tri[np.diag_indices(n)] = 2.0 ** rng.integers(-1, 2, n)
            tm = np.array(tri, order="C" if layout == ROW else "F")
            tpk = rowmajor_packed(tri, lower) if layout == ROW else pack(tri, lower)
            for name, args, want in (
                    ("trmv", (tm, n), rb.trmv(tri, x, **f)),
                    ("tpmv", (tpk,), rb.tpmv(n, pack(tri, lower), x, **f)),
                    ("tpsv", (tpk,), rb.tpsv(n, pack(tri, lower), x, **f))):
                buf = xb.copy()
                ptrs = (args[0].ctypes.data,) + args[1:]
                assert fn(lib, dtype, name)(layout, uplo, trans, diag, n, *ptrs,
                                            buf.ctypes.data, incx, order) == 0, name
                same_bits(read_vec(buf, n, incx), want, f"{name} {layout} {uplo} {trans} {diag}")
            tb = to_band(tri, kl, ku)
            tbm = rowmajor_band(tri, kl, ku) if layout == ROW else np.asfortranarray(tb)
            for name, want in (("tbmv", rb.tbmv(k, tb, x, **f)), ("tbsv", rb.tbsv(k, tb, x, **f))):
                buf = xb.copy()
                assert fn(lib, dtype, name)(layout, uplo, trans, diag, n, k, tbm.ctypes.data,
                                            k + 1, buf.ctypes.data, incx, order) == 0
                same_bits(read_vec(buf, n, incx), want, f"{name} {layout} {uplo} {trans} {diag}")
        # gbmv 19 x 23, kl = 2, ku = 4
        g = data(rng, (19, n), dtype)
        for trans in (NOTRANS, TRANS):
            xl, yl = (19, n) if trans == TRANS else (n, 19)
            gx, gy = data(rng, xl, dtype), data(rng, yl, dtype)
            gxb, gyb = blas_vec(gx, incx), blas_vec(gy, incy)
            gm = rowmajor_band(g, 2, 4) if layout == ROW else np.asfortranarray(to_band(g, 2, 4))
            assert fn(lib, dtype, "gbmv")(layout, trans, 19, n, 2, 4, 0.75, gm.ctypes.data, 7,
                                          gxb.ctypes.data, incx, 0.5, gyb.ctypes.data, incy,
                                          order) == 0
            same_bits(read_vec(gyb, yl, incy), rb.gbmv(19, n, 2, 4, 0.75, to_band(g, 2, 4), gx,
                                                       0.5, gy, trans=trans == TRANS, order=o),
                      "gbmv")
        # rank updates
        am2 = am.copy(order="K")
        assert fn(lib, dtype, "syr")(layout, uplo, n, 0.5, xb.ctypes.data, incx,
                                     am2.ctypes.data, n) == 0
        same_bits(am2, rb.syr(0.5, x, lower=lower, a=a), "syr")
        am2 = am.copy(order="K")
        assert fn(lib, dtype, "syr2")(layout, uplo, n, 0.5, xb.ctypes.data, incx,
                                      yb.ctypes.data, incy, am2.ctypes.data, n) == 0
        same_bits(am2, rb.syr2(0.5, x, y, lower=lower, a=a), "syr2")
        apc = pack(full, lower)
        want1 = rb.spr(n, 0.5, x, apc, lower=lower)
        want2 = rb.spr2(n, 0.5, x, y, apc, lower=lower)
        for name, extra, want in (("spr", (), want1), ("spr2", (yb.ctypes.data, incy), want2)):
            buf = rowmajor_packed(full, lower) if layout == ROW else apc.copy()
            assert fn(lib, dtype, name)(layout, uplo, n, 0.5, xb.ctypes.data, incx, *extra,
                                        buf.ctypes.data) == 0
            got = buf if layout == COL else pack(unpack_rowmajor(buf, n, lower), lower)
            same_bits(got, want, name)


def unpack_rowmajor(ap, n, lower):
    full = np.zeros((n, n), ap.dtype)
    p = 0
    for i in range(n):
        cols = range(i + 1) if lower else range(i, n)
        for j in cols:
            full[i, j] = ap[p]
            p += 1
    return sym_full(full if lower else full, lower)


def test_bad_arguments_are_codes(lib):
    a = np.ones((4, 4))
    x, y = np.ones(4), np.ones(4)
    d = lambda name: fn(lib, np.float64, name)  # noqa: E731
    before = y.copy()
    assert d("symv")(99, UPPER, 4, 1.0, a.ctypes.data, 4, x.ctypes.data, 1, 0.0,
                     y.ctypes.data, 1, 0) == -1
    assert d("symv")(ROW, 7, 4, 1.0, a.ctypes.data, 4, x.ctypes.data, 1, 0.0,
                     y.ctypes.data, 1, 0) == -2
    assert d("symv")(ROW, UPPER, -1, 1.0, a.ctypes.data, 4, x.ctypes.data, 1, 0.0,
                     y.ctypes.data, 1, 0) == -3
    assert d("symv")(ROW, UPPER, 4, 1.0, a.ctypes.data, 3, x.ctypes.data, 1, 0.0,
                     y.ctypes.data, 1, 0) == -6
    assert d("symv")(ROW, UPPER, 4, 1.0, a.ctypes.data, 4, x.ctypes.data, 0, 0.0,
                     y.ctypes.data, 1, 0) == -8
    assert d("symv")(ROW, UPPER, 4, 1.0, a.ctypes.data, 4, x.ctypes.data, 1, 0.0,
                     y.ctypes.data, 1, 5) == -12
    assert np.array_equal(y, before)
    assert d("sbmv")(ROW, UPPER, 4, 2, 1.0, a.ctypes.data, 2, x.ctypes.data, 1, 0.0,
                     y.ctypes.data, 1, 0) == -7
    assert d("gbmv")(ROW, 110, 4, 4, 1, 1, 1.0, a.ctypes.data, 4, x.ctypes.data, 1, 0.0,
                     y.ctypes.data, 1, 0) == -2
    assert d("gbmv")(ROW, NOTRANS, 4, 4, 2, 2, 1.0, a.ctypes.data, 4, x.ctypes.data, 1, 0.0,
                     y.ctypes.data, 1, 0) == -9
    assert d("trmv")(ROW, UPPER, NOTRANS, 130, 4, a.ctypes.data, 4, x.ctypes.data, 1, 0) == -4
    assert d("trmv")(ROW, UPPER, NOTRANS, UNIT, 4, None, 4, x.ctypes.data, 1, 0) == -6
    assert d("tbsv")(ROW, UPPER, NOTRANS, UNIT, 4, -1, a.ctypes.data, 4, x.ctypes.data, 1,
                     0) == -6
    assert d("tpsv")(ROW, UPPER, NOTRANS, UNIT, 4, a.ctypes.data, x.ctypes.data, 0, 0) == -8
    assert d("syr")(ROW, UPPER, 4, 1.0, x.ctypes.data, 1, a.ctypes.data, 2) == -8
    assert d("syr2")(ROW, UPPER, 4, 1.0, x.ctypes.data, 1, None, 1, a.ctypes.data, 4) == -7
    assert d("spr")(ROW, UPPER, 4, 1.0, x.ctypes.data, 1, None) == -7
    assert np.array_equal(x, np.ones(4)) and np.array_equal(a, np.ones((4, 4)))
    # empty: nothing read, success
    assert d("symv")(ROW, UPPER, 0, 1.0, None, 1, None, 1, 0.0, None, 1, 0) == 0
    assert d("tpsv")(COL, LOWER, TRANS, NONUNIT, 0, None, None, 1, 0) == 0
