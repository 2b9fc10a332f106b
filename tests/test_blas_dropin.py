"""libreproblas_blas.so, the drop-in BLAS (docs/blas.md): its exports, its results against the
Python API bit for bit, the reference argument checks and error handlers, REPROBLAS_ORDER, and
netlib's own test programs on every CPU path, 1-3 threads and both orders."""
import ctypes
import itertools
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import reproblas
from helpers import SUPPORTED_ISAS
from level2_support import data, pack, same_bits, sym_full, to_band

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import netlib_testers  # noqa: E402

LIBPATH = reproblas.get_blas_library()
LIB = ctypes.CDLL(LIBPATH)
CC = shutil.which(os.environ.get("CC", "cc"))
NM = shutil.which("nm")
ROW, COL, NOTRANS, TRANS = 101, 102, 111, 112


def _p(a):
    return a.ctypes.data_as(ctypes.c_void_p)


def _i(v):
    return ctypes.byref(ctypes.c_int(v))


def _d(v):
    return ctypes.byref(ctypes.c_double(v))


def _f(v):
    return ctypes.byref(ctypes.c_float(v))


def ddot(x, incx, y, incy, n=None):
    LIB.ddot_.restype = ctypes.c_double
    return LIB.ddot_(_i(len(x) if n is None else n), _p(x), _i(incx), _p(y), _i(incy))


def test_library_is_in_the_package():
    assert os.path.isfile(LIBPATH)
    assert Path(LIBPATH).parent == Path(reproblas.get_library_dir())


@pytest.mark.skipif(NM is None, reason="no nm on PATH")
def test_exports_the_blas_interfaces_only():
    out = subprocess.run([NM, "-D", "--defined-only", LIBPATH], capture_output=True, text=True,
                         check=True).stdout
    names = {line.split()[-1] for line in out.splitlines() if line.strip()}
    level1 = ["dot", "asum", "nrm2", "axpy", "scal", "copy", "swap", "rot", "rotm", "rotg",
              "rotmg"]
    expected = {f"{p}{r}" for p in "sd" for r in level1 + ["gemm", "gemv", "ger", "trsv", "trsm",
                                                            "symm", "syrk", "syr2k", "trmm",
                                                            "gbmv", "symv", "sbmv", "spmv",
                                                            "trmv", "tbmv", "tpmv", "tbsv",
                                                            "tpsv", "syr", "spr", "syr2",
                                                            "spr2"]}
    expected |= {"isamax", "idamax", "sdsdot", "dsdot", "scasum", "scnrm2", "dzasum", "dznrm2"}
    want = {e + "_" for e in expected} | {"cblas_" + e for e in expected}
    want |= {"xerbla_", "cblas_xerbla", "RowMajorStrg", "CBLAS_CallFromC"}
    assert names == want


@pytest.mark.parametrize("order", ["sequential", "pairwise"])
def test_reproblas_order_chooses_the_order(order, monkeypatch):
    x = np.array([1.0, 1e16, -1e16, 1.0, 1.0])
    y = np.ones(5)
    monkeypatch.setenv("REPROBLAS_ORDER", order)
    assert ddot(x, 1, y, 1) == {"sequential": 2.0, "pairwise": 1.0}[order]
    monkeypatch.setenv("REPROBLAS_ORDER", "")
    assert ddot(x, 1, y, 1) == 2.0  # empty: the default


@pytest.mark.parametrize("var, value, message", [
    ("REPROBLAS_ORDER", "Pairwise", "libreproblas_blas: REPROBLAS_ORDER='Pairwise' is not a "
     "summation order; use sequential or pairwise (or leave it unset for sequential)"),
    ("REPROBLAS_NUM_THREADS", "0",
     "libreproblas_blas: DDOT: REPROBLAS_NUM_THREADS must be a positive integer"),
    ("REPROBLAS_ISA", "avx9", "libreproblas_blas: DDOT: REPROBLAS_ISA names no CPU path"),
])
def test_a_bad_knob_stops_with_a_message(var, value, message):
    """The BLAS interface has no status to return: the program ends with the message."""
    code = textwrap.dedent(f"""
        import ctypes, numpy as np
        lib = ctypes.CDLL({LIBPATH!r}); lib.ddot_.restype = ctypes.c_double
        x = np.ones(3); n = ctypes.c_int(3); one = ctypes.c_int(1)
        p = x.ctypes.data_as(ctypes.c_void_p)
        lib.ddot_(ctypes.byref(n), p, ctypes.byref(one), p, ctypes.byref(one))
        print("returned")
    """)
    env = dict(os.environ, **{var: value})
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert proc.returncode == 1
    assert "returned" not in proc.stdout
    assert message in proc.stderr


@pytest.mark.parametrize("order", ["sequential", "pairwise"])
@pytest.mark.parametrize("isa", SUPPORTED_ISAS)
def test_gemm_gemv_trsm_bits_are_the_python_apis(order, isa, monkeypatch):
    monkeypatch.setenv("REPROBLAS_ORDER", order)
    monkeypatch.setenv("REPROBLAS_ISA", isa)
    monkeypatch.setenv("REPROBLAS_NUM_THREADS", "3")
    rng = np.random.default_rng(5)
    m, n, k = 37, 29, 41
    a, b, c = rng.standard_normal((m, k)), rng.standard_normal((k, n)), rng.standard_normal((m, n))
    want = reproblas.gemm(0.7, a, b, 1.3, c, order=order)
    cf = np.asfortranarray(c)
    af, bf = np.asfortranarray(a), np.asfortranarray(b)
    LIB.dgemm_(b"N", b"N", _i(m), _i(n), _i(k), _d(0.7), _p(af), _i(m), _p(bf), _i(k), _d(1.3),
               _p(cf), _i(m), 1, 1)
    np.testing.assert_array_equal(cf, want)
    cr = np.ascontiguousarray(c)  # CBLAS, row-major
    LIB.cblas_dgemm(ROW, NOTRANS, NOTRANS, m, n, k, ctypes.c_double(0.7), _p(a), k, _p(b), n,
                    ctypes.c_double(1.3), _p(cr), n)
    np.testing.assert_array_equal(cr, want)
    # float32 gemv with a transpose, through CBLAS column-major and negative increments
    a32 = rng.standard_normal((m, n)).astype(np.float32)
    x32, y32 = rng.standard_normal(m).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    want = reproblas.gemv(np.float32(1.5), a32, x32[::-1], np.float32(-0.5), y32[::-1],
                          trans=True, order=order)
    af = np.asfortranarray(a32)
    y = y32.copy()
    LIB.cblas_sgemv(COL, TRANS, m, n, ctypes.c_float(1.5), _p(af), m, _p(x32), -1,
                    ctypes.c_float(-0.5), _p(y), -1)
    np.testing.assert_array_equal(y[::-1], want)
    # trsm, left, lower, unit diagonal
    t = np.tril(rng.standard_normal((m, m))) + 4 * np.eye(m)
    bb = rng.standard_normal((m, n))
    want = reproblas.trsm(2.0, t, bb, lower=True, order=order)
    tf, bf = np.asfortranarray(t), np.asfortranarray(bb)
    LIB.dtrsm_(b"L", b"L", b"N", b"N", _i(m), _i(n), _d(2.0), _p(tf), _i(m), _p(bf), _i(m),
               1, 1, 1, 1)
    np.testing.assert_array_equal(bf, want)


LOWER, UPPER, LEFT, RIGHT = 122, 121, 141, 142
CONJTRANS = 113


@pytest.mark.parametrize("order", ["sequential", "pairwise"])
@pytest.mark.parametrize("isa", SUPPORTED_ISAS)
def test_symm_syrk_syr2k_bits_are_the_python_apis(order, isa, monkeypatch):
    monkeypatch.setenv("REPROBLAS_ORDER", order)
    monkeypatch.setenv("REPROBLAS_ISA", isa)
    monkeypatch.setenv("REPROBLAS_NUM_THREADS", "3")
    rng = np.random.default_rng(9)
    m, n, k = 23, 31, 37
    # dsymm_, right side, lower triangle of A read (its upper holds NaN)
    a = rng.standard_normal((n, n))
    a_stored = np.tril(a) + np.triu(np.full((n, n), np.nan), 1)
    b, c = rng.standard_normal((m, n)), rng.standard_normal((m, n))
    want = reproblas.symm(0.7, np.tril(a), b, 1.3, c, side=1, lower=True, order=order)
    af, bf, cf = (np.asfortranarray(x) for x in (a_stored, b, c))
    LIB.dsymm_(b"R", b"L", _i(m), _i(n), _d(0.7), _p(af), _i(n), _p(bf), _i(m), _d(1.3), _p(cf),
               _i(m), 1, 1)
    np.testing.assert_array_equal(cf, want)
    # cblas_dsymm, row-major, left side, upper triangle of A read
    a = rng.standard_normal((m, m))
    a_stored = np.triu(a) + np.tril(np.full((m, m), np.nan), -1)
    want = reproblas.symm(0.7, np.triu(a), b, 1.3, c, order=order)
    cr = np.ascontiguousarray(c)
    LIB.cblas_dsymm(ROW, LEFT, UPPER, m, n, ctypes.c_double(0.7), _p(np.ascontiguousarray(
        a_stored)), m, _p(b), n, ctypes.c_double(1.3), _p(cr), n)
    np.testing.assert_array_equal(cr, want)
    # ssyrk_ with trans, lower triangle; the upper one stays as it was
    a32 = rng.standard_normal((k, n)).astype(np.float32)
    c32 = rng.standard_normal((n, n)).astype(np.float32)
    want = reproblas.syrk(np.float32(1.5), a32, np.float32(-0.5), c32, trans=True, lower=True,
                          order=order)
    cf = np.asfortranarray(c32)
    LIB.ssyrk_(b"L", b"T", _i(n), _i(k), _f(1.5), _p(np.asfortranarray(a32)), _i(k), _f(-0.5),
               _p(cf), _i(n), 1, 1)
    np.testing.assert_array_equal(np.tril(cf), np.tril(want))
    np.testing.assert_array_equal(np.triu(cf, 1), np.triu(c32, 1))
    # cblas_ssyrk, row-major, ConjTrans (Trans for real data), upper triangle
    want = reproblas.syrk(np.float32(1.5), a32, np.float32(-0.5), c32, trans=True,
                          order=order)
    cr = c32.copy()
    LIB.cblas_ssyrk(ROW, UPPER, CONJTRANS, n, k, ctypes.c_float(1.5), _p(a32), n,
                    ctypes.c_float(-0.5), _p(cr), n)
    np.testing.assert_array_equal(np.triu(cr), np.triu(want))
    np.testing.assert_array_equal(np.tril(cr, -1), np.tril(c32, -1))
    # dsyr2k_ without trans, upper; cblas_dsyr2k row-major, lower
    a, b = rng.standard_normal((n, k)), rng.standard_normal((n, k))
    c = rng.standard_normal((n, n))
    for lower in (False, True):
        want = reproblas.syr2k(0.7, a, b, 1.3, c, lower=lower, order=order)
        tri = np.tril if lower else np.triu
        if lower:
            out = np.ascontiguousarray(c)
            LIB.cblas_dsyr2k(ROW, LOWER, NOTRANS, n, k, ctypes.c_double(0.7), _p(a), k, _p(b), k,
                             ctypes.c_double(1.3), _p(out), n)
        else:
            out = np.asfortranarray(c)
            LIB.dsyr2k_(b"U", b"N", _i(n), _i(k), _d(0.7), _p(np.asfortranarray(a)), _i(n),
                        _p(np.asfortranarray(b)), _i(n), _d(1.3), _p(out), _i(n), 1, 1)
        np.testing.assert_array_equal(tri(out), tri(want))
        np.testing.assert_array_equal(out - tri(out), c - tri(c))  # the other triangle: C's
    # cblas_dsyr2k, row-major, Trans: A and B are k x n
    at, bt = np.ascontiguousarray(a.T), np.ascontiguousarray(b.T)
    want = reproblas.syr2k(0.7, at, bt, 1.3, c, trans=True, order=order)
    out = c.copy()
    LIB.cblas_dsyr2k(ROW, UPPER, TRANS, n, k, ctypes.c_double(0.7), _p(at), n, _p(bt), n,
                     ctypes.c_double(1.3), _p(out), n)
    np.testing.assert_array_equal(np.triu(out), np.triu(want))
    np.testing.assert_array_equal(np.tril(out, -1), np.tril(c, -1))


def test_syrk_syr2k_symm_quick_returns():
    nan = np.full((3, 3), np.nan, order="F")
    c = np.full((3, 3), 4.0, order="F")
    LIB.dsyrk_(b"U", b"N", _i(3), _i(3), _d(0.0), _p(nan), _i(3), _d(0.5), _p(c), _i(3), 1, 1)
    np.testing.assert_array_equal(c, np.triu(np.full((3, 3), 2.0)) + np.tril(np.full((3, 3), 4.0),
                                                                            -1))
    c = np.full((3, 3), np.nan, order="F")  # beta = 0: C not read; k = 0: A not read
    LIB.dsyr2k_(b"L", b"T", _i(3), _i(0), _d(1.0), _p(nan), _i(1), _p(nan), _i(1), _d(0.0),
                _p(c), _i(3), 1, 1)
    np.testing.assert_array_equal(np.tril(c), 0.0)
    assert np.isnan(np.triu(c, 1)[np.triu_indices(3, 1)]).all()
    c = np.full((3, 3), 4.0, order="F")
    LIB.dsymm_(b"L", b"U", _i(3), _i(3), _d(0.0), _p(nan), _i(3), _p(nan), _i(3), _d(0.5), _p(c),
               _i(3), 1, 1)
    np.testing.assert_array_equal(c, 2.0)


def test_level3_symmetric_errors_use_the_reference_positions(capfd):
    a = np.zeros(16)
    LIB.ssymm_(b"L", b"U", _i(3), _i(2), _f(1.0), _p(a), _i(3), _p(a), _i(2), _f(0.0), _p(a),
               _i(3), 1, 1)  # ldb < m
    LIB.dsyrk_(b"U", b"T", _i(3), _i(2), _d(1.0), _p(a), _i(2), _d(0.0), _p(a), _i(2), 1, 1)
    LIB.dsyr2k_(b"U", b"N", _i(3), _i(2), _d(1.0), _p(a), _i(3), _p(a), _i(2), _d(0.0), _p(a),
                _i(3), 1, 1)  # ldb < n
    LIB.dsyr2k_(b"U", b"X", _i(3), _i(2), _d(1.0), _p(a), _i(3), _p(a), _i(3), _d(0.0), _p(a),
                _i(3), 1, 1)
    # row-major cblas_dsymm calls dsymm with m and n exchanged: n < 0 is CBLAS argument 5
    LIB.cblas_dsymm(ROW, LEFT, UPPER, 2, -1, ctypes.c_double(1.0), _p(a), 2, _p(a), 2,
                    ctypes.c_double(0.0), _p(a), 2)
    LIB.cblas_dsyrk(COL, UPPER, 999, 2, 2, ctypes.c_double(1.0), _p(a), 2,
                    ctypes.c_double(0.0), _p(a), 2)
    LIB.cblas_ssyr2k(ROW, UPPER, NOTRANS, 2, 3, ctypes.c_float(1.0), _p(a), 3, _p(a), 2,
                     ctypes.c_float(0.0), _p(a), 2)  # row-major B is n x k: ldb = 2 < 3
    err = capfd.readouterr().err
    assert " ** On entry to SSYMM  parameter number  9 had an illegal value" in err
    assert " ** On entry to DSYRK  parameter number 10 had an illegal value" in err
    assert " ** On entry to DSYR2K parameter number  9 had an illegal value" in err
    assert " ** On entry to DSYR2K parameter number  2 had an illegal value" in err
    assert "Parameter 5 to routine cblas_dsymm was incorrect" in err
    assert "Parameter 3 to routine cblas_dsyrk was incorrect" in err
    assert "Parameter 10 to routine cblas_ssyr2k was incorrect" in err
    np.testing.assert_array_equal(a, 0.0)


@pytest.mark.parametrize("order", ["sequential", "pairwise"])
@pytest.mark.parametrize("isa", SUPPORTED_ISAS)
def test_trmm_bits_are_the_python_apis(order, isa, monkeypatch):
    """Every side, uplo, trans and diag, float32 and float64: Fortran, CBLAS column-major and
    CBLAS row-major give reproblas.trmm's bits; only A's triangle is read."""
    monkeypatch.setenv("REPROBLAS_ORDER", order)
    monkeypatch.setenv("REPROBLAS_ISA", isa)
    monkeypatch.setenv("REPROBLAS_NUM_THREADS", "3")
    rng = np.random.default_rng(11)
    m, n = 19, 26
    for dtype, ct, p in ((np.float32, ctypes.c_float, "s"), (np.float64, ctypes.c_double, "d")):
        for side, lower, trans, unit in itertools.product("LR", (False, True), (False, True),
                                                          (False, True)):
            k = m if side == "L" else n
            a = rng.standard_normal((k, k)).astype(dtype)
            b = rng.standard_normal((m, n)).astype(dtype)
            stored = np.where(np.tril(np.ones((k, k), bool)) if lower
                              else np.triu(np.ones((k, k), bool)), a, np.nan).astype(dtype)
            if unit:
                stored[np.diag_indices(k)] = np.nan
            want = reproblas.trmm(dtype(0.75), a, b, side="left" if side == "L" else "right",
                                  lower=lower, trans_a=trans, unit_diagonal=unit, order=order)
            case = f"{p}trmm {side} lower={lower} trans={trans} unit={unit}"
            bf = np.asfortranarray(b)
            getattr(LIB, f"{p}trmm_")(side.encode(), b"L" if lower else b"U",
                                      b"T" if trans else b"N", b"U" if unit else b"N", _i(m),
                                      _i(n), ctypes.byref(ct(0.75)), _p(np.asfortranarray(stored)),
                                      _i(k), _p(bf), _i(m), 1, 1, 1, 1)
            np.testing.assert_array_equal(bf, want, err_msg=case)
            args = (LEFT if side == "L" else RIGHT, LOWER if lower else UPPER,
                    TRANS if trans else NOTRANS, 132 if unit else 131, m, n, ct(0.75))
            bc = np.asfortranarray(b)
            getattr(LIB, f"cblas_{p}trmm")(COL, *args, _p(np.asfortranarray(stored)), k, _p(bc), m)
            np.testing.assert_array_equal(bc, want, err_msg=case + " column-major")
            br = np.ascontiguousarray(b)
            getattr(LIB, f"cblas_{p}trmm")(ROW, *args, _p(np.ascontiguousarray(stored)), k, _p(br),
                                           n)
            np.testing.assert_array_equal(br, want, err_msg=case + " row-major")


def test_trmm_quick_returns_do_not_read():
    nan = np.full((3, 3), np.nan, order="F")
    b = np.full((3, 4), np.nan, order="F")
    LIB.dtrmm_(b"L", b"U", b"N", b"N", _i(3), _i(4), _d(0.0), _p(nan), _i(3), _p(b), _i(3),
               1, 1, 1, 1)
    np.testing.assert_array_equal(b, 0.0)  # alpha = 0: B = 0, neither A nor B read
    b32 = np.full((4, 3), np.nan, np.float32)
    LIB.cblas_strmm(ROW, RIGHT, LOWER, TRANS, 131, 4, 3, ctypes.c_float(0.0),
                    _p(nan.astype(np.float32)), 3, _p(b32), 3)
    np.testing.assert_array_equal(b32, 0.0)
    b = np.full((3, 3), 7.0, order="F")
    LIB.dtrmm_(b"R", b"L", b"T", b"U", _i(0), _i(3), _d(1.0), _p(nan), _i(3), _p(b), _i(1),
               1, 1, 1, 1)
    np.testing.assert_array_equal(b, 7.0)  # m = 0: nothing


def test_trmm_errors_use_the_reference_positions(capfd):
    a = np.zeros(16)
    LIB.dtrmm_(b"L", b"U", b"N", b"X", _i(2), _i(2), _d(1.0), _p(a), _i(2), _p(a), _i(2),
               1, 1, 1, 1)
    LIB.dtrmm_(b"R", b"U", b"N", b"N", _i(3), _i(2), _d(1.0), _p(a), _i(1), _p(a), _i(3),
               1, 1, 1, 1)  # right: lda < n
    LIB.strmm_(b"L", b"L", b"T", b"N", _i(3), _i(2), _f(1.0), _p(a), _i(3), _p(a), _i(2),
               1, 1, 1, 1)  # ldb < m
    LIB.cblas_dtrmm(COL, LEFT, 999, NOTRANS, 131, 2, 2, ctypes.c_double(1.0), _p(a), 2, _p(a),
                    2)
    # row-major: the Fortran call has m and n exchanged; n < 0 is CBLAS argument 7
    LIB.cblas_dtrmm(ROW, LEFT, UPPER, NOTRANS, 131, 2, -1, ctypes.c_double(1.0), _p(a), 2, _p(a),
                    2)
    # row-major B is m x n: ldb = 2 < n = 3 is CBLAS argument 12
    LIB.cblas_strmm(ROW, LEFT, UPPER, NOTRANS, 131, 2, 3, ctypes.c_float(1.0), _p(a), 2, _p(a),
                    2)
    err = capfd.readouterr().err
    assert " ** On entry to DTRMM  parameter number  4 had an illegal value" in err
    assert " ** On entry to DTRMM  parameter number  9 had an illegal value" in err
    assert " ** On entry to STRMM  parameter number 11 had an illegal value" in err
    assert "Parameter 3 to routine cblas_dtrmm was incorrect" in err
    assert "Parameter 7 to routine cblas_dtrmm was incorrect" in err
    assert "Parameter 12 to routine cblas_strmm was incorrect" in err
    np.testing.assert_array_equal(a, 0.0)


# ---- level 2 on symmetric, triangular, band and packed matrices ----

NONUNIT, UNIT = 131, 132
_ENUMS = {"uplo": {"U": UPPER, "L": LOWER}, "trans": {"N": NOTRANS, "T": TRANS},
          "diag": {"N": NONUNIT, "U": UNIT}}


def call_blas(path, p, name, *args):
    """One call of routine p+name with args in CBLAS order (layout left out), each a pair
    (kind, value): kind "uplo"/"trans"/"diag" with value "U"/"L", "N"/"T", "N"/"U"; "int";
    "scalar"; "ptr" (an array). path "F": the Fortran symbol (everything by reference, the
    CHARACTER lengths last); "C"/"R": CBLAS column-/row-major."""
    ct = ctypes.c_float if p == "s" else ctypes.c_double
    if path == "F":
        out, lengths = [], 0
        for kind, v in args:
            if kind in _ENUMS:
                out.append(v.encode())
                lengths += 1
            elif kind == "int":
                out.append(_i(v))
            elif kind == "scalar":
                out.append(ctypes.byref(ct(v)))
            else:
                out.append(_p(v))
        return getattr(LIB, f"{p}{name}_")(*out, *[1] * lengths)
    out = [ROW if path == "R" else COL]
    for kind, v in args:
        out.append(_ENUMS[kind][v] if kind in _ENUMS else ct(v) if kind == "scalar"
                   else _p(v) if kind == "ptr" else v)
    return getattr(LIB, f"cblas_{p}{name}")(*out)


def blas_vec(v, inc):
    """A BLAS vector holding v with increment inc (negative: from the far end), NaN between."""
    step = abs(inc)
    buf = np.full(max((len(v) - 1) * step + 1, 1), np.nan, v.dtype)
    buf[::step][:len(v)] = v if inc > 0 else v[::-1]
    return buf


def read_vec(buf, n, inc):
    v = buf[::abs(inc)][:n]
    return v if inc > 0 else v[::-1]


def band_storage(full, kl, ku, row):
    """Column-major BLAS band storage (as a Fortran array), or CBLAS row-major band storage
    a[i, kl + j - i] = A[i, j] (as a C array); NaN outside the band."""
    if not row:
        return np.asfortranarray(to_band(full, kl, ku))
    m, n = full.shape
    ab = np.full((m, kl + ku + 1), np.nan, full.dtype)
    for i in range(m):
        for j in range(max(0, i - kl), min(n, i + ku + 1)):
            ab[i, kl + j - i] = full[i, j]
    return ab


def packed_storage(full, lower, row):
    """BLAS packed storage (column by column), or CBLAS row-major packed (row by row)."""
    if not row:
        return pack(full, lower)
    n = full.shape[0]
    return np.concatenate([full[i, : i + 1] if lower else full[i, i:] for i in range(n)])


def from_rowmajor_packed(ap, n, lower):
    full = np.zeros((n, n), ap.dtype)
    p = 0
    for i in range(n):
        for j in (range(i + 1) if lower else range(i, n)):
            full[i, j] = ap[p]
            p += 1
    return full


@pytest.mark.parametrize("order", ["sequential", "pairwise"])
@pytest.mark.parametrize("isa", SUPPORTED_ISAS)
def test_level2_bits_are_the_python_apis(order, isa, monkeypatch):
    """gbmv, symv, sbmv, spmv, trmv, tbmv, tpmv, tbsv, tpsv, syr, spr, syr2, spr2: Fortran,
    CBLAS column-major and CBLAS row-major (its own band and packed storage), both triangles,
    both transposes, unit and non-unit diagonals, unit, negative and strided increments, give
    the Python API's bits; the triangle not stored holds NaN and is not read."""
    monkeypatch.setenv("REPROBLAS_ORDER", order)
    monkeypatch.setenv("REPROBLAS_ISA", isa)
    monkeypatch.setenv("REPROBLAS_NUM_THREADS", "3")
    rng = np.random.default_rng(17)
    n, mg, k, kl, ku = 21, 16, 3, 2, 4
    for (dtype, p), path, lower, (incx, incy) in itertools.product(
            ((np.float32, "s"), (np.float64, "d")), "FCR", (False, True), ((1, 1), (-2, 3))):
        row, uplo = path == "R", "L" if lower else "U"
        case = f"{p} {path} uplo={uplo} incx={incx} incy={incy}"
        mat = np.ascontiguousarray if row else np.asfortranarray
        tri_mask = np.tril(np.ones((n, n), bool)) if lower else np.triu(np.ones((n, n), bool))
        a = data(rng, (n, n), dtype)
        stored = np.where(tri_mask, a, np.nan).astype(dtype)
        full = sym_full(a, lower)
        x, y = data(rng, n, dtype), data(rng, n, dtype)
        al, be = dtype(1.5), dtype(-0.5)
        # symv, sbmv, spmv
        bkl, bku = (k, 0) if lower else (0, k)
        for name, mats, want in (
                ("symv", (("ptr", mat(stored)), ("int", n)),
                 reproblas.symv(al, stored, x, be, y, lower=lower, order=order)),
                ("sbmv", (("ptr", band_storage(full, bkl, bku, row)), ("int", k + 1)),
                 reproblas.sbmv(k, al, to_band(full, bkl, bku), x, be, y, lower=lower,
                                order=order)),
                ("spmv", (("ptr", packed_storage(full, lower, row)),),
                 reproblas.spmv(n, al, pack(full, lower), x, be, y, lower=lower,
                                order=order))):
            yb = blas_vec(y, incy)
            size = (("int", n), ("int", k)) if name == "sbmv" else (("int", n),)
            call_blas(path, p, name, ("uplo", uplo), *size, ("scalar", al), *mats,
                      ("ptr", blas_vec(x, incx)), ("int", incx), ("scalar", be), ("ptr", yb),
                      ("int", incy))
            same_bits(read_vec(yb, n, incy), want, f"{name} {case}")
        # gbmv, mg x n
        g = data(rng, (mg, n), dtype)
        for trans in "NT":
            xl, yl = (mg, n) if trans == "T" else (n, mg)
            gx, gy = data(rng, xl, dtype), data(rng, yl, dtype)
            yb = blas_vec(gy, incy)
            call_blas(path, p, "gbmv", ("trans", trans), ("int", mg), ("int", n), ("int", kl),
                      ("int", ku), ("scalar", al), ("ptr", band_storage(g, kl, ku, row)),
                      ("int", kl + ku + 1), ("ptr", blas_vec(gx, incx)), ("int", incx),
                      ("scalar", be), ("ptr", yb), ("int", incy))
            same_bits(read_vec(yb, yl, incy),
                      reproblas.gbmv(mg, n, kl, ku, al, to_band(g, kl, ku), gx, be, gy,
                                     trans=trans == "T", order=order), f"gbmv {trans} {case}")
        # trmv, tbmv, tpmv, tbsv, tpsv
        for trans, diag in itertools.product("NT", "NU"):
            f = dict(lower=lower, trans=trans == "T", unit_diagonal=diag == "U", order=order)
            tri = np.where(tri_mask, a, 0).astype(dtype)
            tri[np.diag_indices(n)] = 2.0 ** rng.integers(-1, 2, n)
            tri_stored = np.where(tri_mask, tri, np.nan).astype(dtype)
            if diag == "U":
                tri_stored[np.diag_indices(n)] = np.nan
            in_band = np.abs(np.subtract.outer(np.arange(n), np.arange(n))) <= k
            band_tri = np.where(in_band, tri, 0).astype(dtype)
            band_stored = np.where(in_band, tri_stored, np.nan).astype(dtype)
            flags = (("uplo", uplo), ("trans", trans), ("diag", diag))
            for name, shape, want in (
                    ("trmv", (("int", n), ("ptr", mat(tri_stored)), ("int", n)),
                     reproblas.trmv(tri, x, **f)),
                    ("tpmv", (("int", n), ("ptr", packed_storage(tri_stored, lower, row))),
                     reproblas.tpmv(n, pack(tri, lower), x, **f)),
                    ("tpsv", (("int", n), ("ptr", packed_storage(tri_stored, lower, row))),
                     reproblas.tpsv(n, pack(tri, lower), x, **f)),
                    ("tbmv", (("int", n), ("int", k),
                              ("ptr", band_storage(band_stored, bkl, bku, row)), ("int", k + 1)),
                     reproblas.tbmv(k, to_band(band_tri, bkl, bku), x, **f)),
                    ("tbsv", (("int", n), ("int", k),
                              ("ptr", band_storage(band_stored, bkl, bku, row)), ("int", k + 1)),
                     reproblas.tbsv(k, to_band(band_tri, bkl, bku), x, **f))):
                xb = blas_vec(x, incx)
                call_blas(path, p, name, *flags, *shape, ("ptr", xb), ("int", incx))
                same_bits(read_vec(xb, n, incx), want, f"{name} {trans} {diag} {case}")
        # syr, syr2 (the other triangle keeps its NaN), spr, spr2
        xb, yb = blas_vec(x, incx), blas_vec(y, incy)
        for name, vecs, want in (
                ("syr", (), reproblas.syr(al, x, lower=lower, a=stored)),
                ("syr2", (("ptr", yb), ("int", incy)),
                 reproblas.syr2(al, x, y, lower=lower, a=stored))):
            out = np.array(stored, order="C" if row else "F")  # a copy: updated in place
            call_blas(path, p, name, ("uplo", uplo), ("int", n), ("scalar", al), ("ptr", xb),
                      ("int", incx), *vecs, ("ptr", out), ("int", n))
            same_bits(out, want, f"{name} {case}")
        for name, vecs, want in (
                ("spr", (), reproblas.spr(n, al, x, pack(full, lower), lower=lower)),
                ("spr2", (("ptr", yb), ("int", incy)),
                 reproblas.spr2(n, al, x, y, pack(full, lower), lower=lower))):
            out = packed_storage(full, lower, row)
            call_blas(path, p, name, ("uplo", uplo), ("int", n), ("scalar", al), ("ptr", xb),
                      ("int", incx), *vecs, ("ptr", out))
            got = pack(from_rowmajor_packed(out, n, lower), lower) if row else out
            same_bits(got, want, f"{name} {case}")


def test_level2_quick_returns_do_not_read():
    """The reference's quick returns: symv/sbmv/spmv/gbmv with alpha = 0 only scale y (beta = 0:
    zeros, y not read), with beta = 1 too do nothing; n = 0 does nothing; the triangular ones do
    nothing for n = 0, the rank updates nothing for alpha = 0. A and x hold NaN throughout."""
    nan = np.full(64, np.nan)
    for name, args in (("symv", (b"U", _i(3), _d(0.0), _p(nan), _i(3), _p(nan), _i(1))),
                       ("sbmv", (b"L", _i(3), _i(1), _d(0.0), _p(nan), _i(2), _p(nan), _i(1))),
                       ("spmv", (b"U", _i(3), _d(0.0), _p(nan), _p(nan), _i(1)))):
        y = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
        getattr(LIB, f"d{name}_")(*args, _d(0.5), _p(y), _i(-2), 1)
        np.testing.assert_array_equal(y, [0.5, 2.0, 1.5, 4.0, 2.5], err_msg=name)
        y = np.full(3, np.nan)
        getattr(LIB, f"d{name}_")(*args, _d(0.0), _p(y), _i(1), 1)
        np.testing.assert_array_equal(y, 0.0, err_msg=name)  # beta = 0: y not read
        y = np.full(3, 7.0)
        getattr(LIB, f"d{name}_")(*args, _d(1.0), _p(y), _i(1), 1)
        np.testing.assert_array_equal(y, 7.0, err_msg=name)
    # gbmv with trans: y has n elements; CBLAS row-major without trans: m elements
    y = np.full(5, 2.0)
    LIB.dgbmv_(b"T", _i(4), _i(3), _i(1), _i(1), _d(0.0), _p(nan), _i(3), _p(nan), _i(1),
               _d(0.5), _p(y), _i(1), 1)
    np.testing.assert_array_equal(y, [1.0, 1.0, 1.0, 2.0, 2.0])
    y32, nan32 = np.full(5, np.nan, np.float32), np.full(64, np.nan, np.float32)
    LIB.cblas_sgbmv(ROW, NOTRANS, 4, 3, 1, 1, ctypes.c_float(0.0), _p(nan32), 3, _p(nan32), 1,
                    ctypes.c_float(0.0), _p(y32), 1)
    np.testing.assert_array_equal(y32[:4], 0.0)
    assert np.isnan(y32[4])
    y = np.full(3, np.nan)
    LIB.dgbmv_(b"N", _i(0), _i(3), _i(1), _i(1), _d(1.0), _p(nan), _i(3), _p(nan), _i(1),
               _d(0.0), _p(y), _i(1), 1)
    assert np.isnan(y).all()  # m = 0: nothing, even with beta = 0
    # the triangular routines with n = 0 leave x alone
    x = np.full(2, 3.0)
    LIB.dtrmv_(b"U", b"N", b"N", _i(0), _p(nan), _i(1), _p(x), _i(1), 1, 1, 1)
    LIB.dtbmv_(b"U", b"N", b"N", _i(0), _i(1), _p(nan), _i(2), _p(x), _i(1), 1, 1, 1)
    LIB.dtpmv_(b"L", b"T", b"U", _i(0), _p(nan), _p(x), _i(1), 1, 1, 1)
    LIB.dtbsv_(b"L", b"N", b"N", _i(0), _i(1), _p(nan), _i(2), _p(x), _i(1), 1, 1, 1)
    LIB.dtpsv_(b"U", b"T", b"N", _i(0), _p(nan), _p(x), _i(1), 1, 1, 1)
    np.testing.assert_array_equal(x, 3.0)
    # the rank updates with alpha = 0 (x NaN) leave A alone
    a = np.full(9, 5.0)
    LIB.dsyr_(b"U", _i(3), _d(0.0), _p(nan), _i(1), _p(a), _i(3), 1)
    LIB.dspr_(b"L", _i(3), _d(0.0), _p(nan), _i(1), _p(a), 1)
    LIB.dsyr2_(b"L", _i(3), _d(0.0), _p(nan), _i(1), _p(nan), _i(1), _p(a), _i(3), 1)
    LIB.cblas_dspr2(ROW, UPPER, 3, ctypes.c_double(0.0), _p(nan), 1, _p(nan), 1, _p(a))
    np.testing.assert_array_equal(a, 5.0)


def test_level2_errors_use_the_reference_positions(capfd):
    a = np.zeros(64)
    LIB.sgbmv_(b"N", _i(3), _i(3), _i(1), _i(2), _f(1.0), _p(a), _i(3), _p(a), _i(1), _f(0.0),
               _p(a), _i(1), 1)  # lda < kl + ku + 1
    LIB.dgbmv_(b"T", _i(3), _i(3), _i(1), _i(1), _d(1.0), _p(a), _i(3), _p(a), _i(1), _d(0.0),
               _p(a), _i(0), 1)
    LIB.dsymv_(b"U", _i(3), _d(1.0), _p(a), _i(2), _p(a), _i(1), _d(0.0), _p(a), _i(1), 1)
    LIB.ssbmv_(b"L", _i(3), _i(2), _f(1.0), _p(a), _i(2), _p(a), _i(1), _f(0.0), _p(a), _i(1),
               1)  # lda < k + 1
    LIB.dspmv_(b"U", _i(3), _d(1.0), _p(a), _p(a), _i(0), _d(0.0), _p(a), _i(1), 1)
    LIB.dtrmv_(b"U", b"N", b"N", _i(3), _p(a), _i(2), _p(a), _i(1), 1, 1, 1)
    LIB.dtbmv_(b"U", b"N", b"N", _i(3), _i(-1), _p(a), _i(2), _p(a), _i(1), 1, 1, 1)
    LIB.dtpmv_(b"U", b"N", b"N", _i(3), _p(a), _p(a), _i(0), 1, 1, 1)
    LIB.stbsv_(b"U", b"N", b"N", _i(3), _i(2), _p(a), _i(2), _p(a), _i(1), 1, 1, 1)
    LIB.dtpsv_(b"U", b"N", b"X", _i(3), _p(a), _p(a), _i(1), 1, 1, 1)
    LIB.dsyr_(b"U", _i(3), _d(1.0), _p(a), _i(1), _p(a), _i(2), 1)
    LIB.dspr_(b"U", _i(3), _d(1.0), _p(a), _i(0), _p(a), 1)
    LIB.dsyr2_(b"U", _i(3), _d(1.0), _p(a), _i(1), _p(a), _i(1), _p(a), _i(2), 1)
    LIB.sspr2_(b"L", _i(3), _f(1.0), _p(a), _i(1), _p(a), _i(0), _p(a), 1)
    LIB.dsyr2_(b"X", _i(-1), _d(1.0), _p(a), _i(0), _p(a), _i(0), _p(a), _i(0), 1)
    # row-major gbmv: the Fortran call has m, n and kl, ku exchanged; positions are CBLAS's
    LIB.cblas_dgbmv(ROW, NOTRANS, -1, 3, 1, 1, ctypes.c_double(1.0), _p(a), 3, _p(a), 1,
                    ctypes.c_double(0.0), _p(a), 1)
    LIB.cblas_sgbmv(ROW, NOTRANS, 3, 3, 1, -1, ctypes.c_float(1.0), _p(a), 3, _p(a), 1,
                    ctypes.c_float(0.0), _p(a), 1)
    LIB.cblas_dsymv(COL, 999, 3, ctypes.c_double(1.0), _p(a), 3, _p(a), 1,
                    ctypes.c_double(0.0), _p(a), 1)
    LIB.cblas_dtrmv(ROW, UPPER, NOTRANS, 999, 3, _p(a), 3, _p(a), 1)
    LIB.cblas_dtbsv(ROW, LOWER, TRANS, 131, 3, 2, _p(a), 2, _p(a), 1)
    LIB.cblas_dsyr2(ROW, UPPER, 3, ctypes.c_double(1.0), _p(a), 1, _p(a), 1, _p(a), 2)
    LIB.cblas_sspr(7, UPPER, 3, ctypes.c_float(1.0), _p(a), 1, _p(a))
    LIB.cblas_dtpmv(COL, UPPER, 999, 131, 3, _p(a), _p(a), 1)
    err = capfd.readouterr().err
    for line in ("SGBMV  parameter number  8", "DGBMV  parameter number 13",
                 "DSYMV  parameter number  5", "SSBMV  parameter number  6",
                 "DSPMV  parameter number  6", "DTRMV  parameter number  6",
                 "DTBMV  parameter number  5", "DTPMV  parameter number  7",
                 "STBSV  parameter number  7", "DTPSV  parameter number  3",
                 "DSYR   parameter number  7", "DSPR   parameter number  5",
                 "DSYR2  parameter number  9", "SSPR2  parameter number  7",
                 "DSYR2  parameter number  1"):
        assert f" ** On entry to {line} had an illegal value" in err, line
    for line in ("3 to routine cblas_dgbmv", "6 to routine cblas_sgbmv",
                 "2 to routine cblas_dsymv", "4 to routine cblas_dtrmv",
                 "8 to routine cblas_dtbsv", "10 to routine cblas_dsyr2",
                 "1 to routine cblas_sspr", "3 to routine cblas_dtpmv"):
        assert f"Parameter {line} was incorrect" in err, line
    np.testing.assert_array_equal(a, 0.0)


def test_level1_vectors_are_the_references():
    x = np.arange(1.0, 8.0)
    y = np.linspace(-1, 2, 7)
    assert ddot(x, -1, y, 1) == reproblas.dot(x[::-1], y)
    assert ddot(x, 2, y, 1, n=4) == reproblas.dot(x[::2], y[:4])
    assert ddot(x, 0, y, 1) == reproblas.dot(np.full(7, x[0]), y)  # inc 0: one element, n times
    assert ddot(x, 1, y, 1, n=0) == 0.0
    LIB.dasum_.restype = ctypes.c_double
    assert LIB.dasum_(_i(7), _p(x), _i(-1)) == 0.0  # the reference returns 0 for incx <= 0
    z = np.zeros(3)
    LIB.dcopy_(_i(3), _p(x), _i(0), _p(z), _i(1))
    np.testing.assert_array_equal(z, [1.0, 1.0, 1.0])
    yy = y.copy()
    LIB.daxpy_(_i(7), _d(0.0), _p(np.full(7, np.inf)), _i(1), _p(yy), _i(1))
    np.testing.assert_array_equal(yy, y)  # the reference's quick return for alpha = 0
    LIB.daxpy_(_i(7), _d(2.0), _p(x), _i(1), _p(yy), _i(1))
    np.testing.assert_array_equal(yy, reproblas.axpy(2.0, x, y.copy()))


def test_iamax_follows_the_reference_nan_rule():
    LIB.cblas_idamax.restype = ctypes.c_size_t
    for v, want in (([1.0, np.nan, 5.0, -5.0], 3), ([np.nan, 5.0], 1), ([2.0, -3.0, 3.0], 2)):
        x = np.array(v)
        assert LIB.idamax_(_i(len(x)), _p(x), _i(1)) == want
        assert LIB.cblas_idamax(len(x), _p(x), 1) == want - 1
    x = np.ones(3)
    assert LIB.idamax_(_i(0), _p(x), _i(1)) == 0 and LIB.idamax_(_i(3), _p(x), _i(0)) == 0


def test_quick_returns_do_not_read():
    nan = np.full((3, 3), np.nan, order="F")
    c = np.full((3, 3), 5.0, order="F")
    LIB.dgemm_(b"N", b"N", _i(3), _i(3), _i(3), _d(0.0), _p(nan), _i(3), _p(nan), _i(3), _d(0.5),
               _p(c), _i(3), 1, 1)
    np.testing.assert_array_equal(c, 2.5)  # alpha = 0: C = beta*C, A and B unread
    y = np.arange(3.0)
    LIB.dgemv_(b"N", _i(3), _i(0), _d(1.0), _p(nan), _i(3), _p(nan), _i(1), _d(0.0), _p(y),
               _i(1), 1)
    np.testing.assert_array_equal(y, [0.0, 1.0, 2.0])  # n = 0: y unchanged, even with beta = 0


def test_xerbla_reports_routine_and_position(capfd):
    a = np.zeros((2, 2), order="F")
    LIB.sgemm_(b"N", b"X", _i(2), _i(2), _i(2), _f(1.0), _p(a), _i(2), _p(a), _i(2), _f(0.0),
               _p(a), _i(2), 1, 1)
    LIB.dgemv_(b"N", _i(2), _i(2), _d(1.0), _p(a), _i(1), _p(a), _i(1), _d(0.0), _p(a), _i(1), 1)
    LIB.dtrsv_(b"U", b"N", b"N", _i(2), _p(a), _i(2), _p(a), _i(0), 1, 1, 1)
    err = capfd.readouterr().err.splitlines()
    assert err == [" ** On entry to SGEMM  parameter number  2 had an illegal value",
                   " ** On entry to DGEMV  parameter number  6 had an illegal value",
                   " ** On entry to DTRSV  parameter number  8 had an illegal value"]
    np.testing.assert_array_equal(a, 0.0)  # nothing was computed


def test_cblas_errors_use_cblas_positions(capfd):
    a = np.zeros(16)
    LIB.cblas_dgemm(0, NOTRANS, NOTRANS, 2, 2, 2, ctypes.c_double(1.0), _p(a), 2, _p(a), 2,
                    ctypes.c_double(0.0), _p(a), 2)
    # row-major A is m x k: lda = 2 < k = 3 is CBLAS argument 9
    LIB.cblas_dgemm(ROW, NOTRANS, NOTRANS, 2, 2, 3, ctypes.c_double(1.0), _p(a), 2, _p(a), 2,
                    ctypes.c_double(0.0), _p(a), 2)
    LIB.cblas_dgemv(COL, 999, 2, 2, ctypes.c_double(1.0), _p(a), 2, _p(a), 1,
                    ctypes.c_double(0.0), _p(a), 1)
    LIB.cblas_dger(ROW, 2, 3, ctypes.c_double(1.0), _p(a), 0, _p(a), 1, _p(a), 3)
    err = capfd.readouterr().err
    assert "Parameter 1 to routine cblas_dgemm was incorrect" in err
    assert "Parameter 9 to routine cblas_dgemm was incorrect" in err
    assert "Parameter 2 to routine cblas_dgemv was incorrect" in err
    assert "Parameter 6 to routine cblas_dger was incorrect" in err  # incX
    np.testing.assert_array_equal(a, 0.0)
    assert ctypes.c_int.in_dll(LIB, "RowMajorStrg").value == 0  # reset after the report


@pytest.mark.skipif(CC is None, reason="no C compiler (cc or $CC) to build the program")
def test_a_programs_xerbla_replaces_the_librarys(tmp_path):
    src = tmp_path / "main.c"
    src.write_text(textwrap.dedent("""
        #include <stdio.h>
        #include <string.h>
        void dgemv_(const char *, const int *, const int *, const double *, const double *,
                    const int *, const double *, const int *, const double *, double *,
                    const int *, size_t);
        void xerbla_(const char *name, const int *info, size_t len) {
          printf("mine %.*s %d\\n", (int)len, name, *info);
        }
        int main(void) {
          double a[4] = {0}, one = 1.0;
          int two = 2, inc = 1, zero = 0;
          dgemv_("N", &two, &two, &one, a, &two, a, &zero, &one, a, &inc, 1);
          return 0;
        }
    """))
    libdir = os.path.dirname(LIBPATH)
    exe = tmp_path / "main"
    subprocess.run([CC, str(src), "-o", str(exe), f"-L{libdir}", "-l:libreproblas_blas.so",
                    f"-Wl,-rpath,{libdir}"], check=True)
    proc = subprocess.run([str(exe)], capture_output=True, text=True, check=True)
    assert proc.stdout == "mine DGEMV  8\n"
    assert "On entry" not in proc.stderr


needs_testers = pytest.mark.skipif(
    not netlib_testers.installed(),
    reason=f"netlib's BLAS test programs are not installed in {netlib_testers.TESTER_DIR} "
           f"(Debian: apt-get install libblas-test)")


@needs_testers
@pytest.mark.parametrize("program", netlib_testers.PROGRAMS)
def test_netlib_tester_passes_on_every_path(program):
    if netlib_testers.input_file(program) is not None and CC is None:
        pytest.skip("no C compiler to build the traps for the routines the library lacks")
    failed = []
    for isa in SUPPORTED_ISAS:
        for threads in (1, 2, 3):
            for order in ("sequential", "pairwise"):
                env = {"REPROBLAS_ISA": isa, "REPROBLAS_NUM_THREADS": str(threads),
                       "REPROBLAS_ORDER": order}
                ok, report, _ = netlib_testers.run(program, LIBPATH, env)
                if not ok:
                    failed.append((isa, threads, order, report[-3000:]))
    assert not failed, failed[0]


@needs_testers
def test_netlib_runner_sees_a_failure(tmp_path):
    """The runner's verdict can fail: a library whose dasum_ is wrong fails xblat1d."""
    if CC is None:
        pytest.skip("no C compiler")
    src = tmp_path / "bad.c"
    src.write_text("double dasum_(const int *n, const double *x, const int *inc) { return 1.0; }\n")
    bad = tmp_path / "libbad.so"
    libdir = os.path.dirname(LIBPATH)
    subprocess.run([CC, "-shared", "-fPIC", str(src), "-o", str(bad), "-Wl,--no-as-needed",
                    f"-L{libdir}", "-l:libreproblas_blas.so", f"-Wl,-rpath,{libdir}"], check=True)
    ok, report, _ = netlib_testers.run("xblat1d", str(bad), {})
    assert not ok and "FAIL" in report
    ok, _, missing = netlib_testers.run("xblat3d", LIBPATH, {})
    assert ok and not missing
