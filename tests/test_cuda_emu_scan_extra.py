"""The scans and segmented routines in the orders 'kahan' and 'exact' on GPU arrays
(docs/contract.md §5.3-§5.5), through the host emulation of src/cuda/reproblas/
kahan_scan.cuh and seg_extra.cuh driven by the real launch code
(reproblas/_scan_cuda_extra.py): bit for bit the CPU's results (themselves tested
against the level-1 calls on every prefix and segment, tests/test_reproblas_kahan_scan.py).
Lengths around the lanes (16) and the chunks (1024), rows and axes, exclusive, non-finite
terms and overflowing partial sums, runs of length 0 and 1 and across chunks, the
transforms and weights, long segments on the level-1 kernels."""
import ctypes
import shutil
import subprocess
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

import reproblas as rb
from reproblas import _scan_cuda_extra
from cuda_support import emu_array, same_bits
from test_cuda_emu_api import _emu, gpu  # noqa: F401 (fixtures: GPU arrays to the emulator)

DTYPES = (np.float32, np.float64)
LENGTHS = (0, 1, 15, 16, 17, 1023, 1024, 1025, 2048 + 17, 5000)


def data(n, dtype, seed):
    rng = np.random.default_rng([n, seed])
    return (rng.standard_normal(n) * 2.0 ** rng.integers(-20, 20, n)).astype(dtype)


def with_specials(x, seed):
    """inf, -inf, NaN and overflowing pairs at several positions."""
    x = x.copy()
    rng = np.random.default_rng(seed)
    big = np.finfo(x.dtype).max
    for v, p in zip((np.inf, -np.inf, np.nan, big, big), rng.integers(0, x.shape[0], 5)):
        x[p] = v
    return x


def non_finite_rows(dtype):
    big = np.finfo(dtype).max
    return [np.array(r, dtype) for r in (
        [1.0, np.inf, 2.0], [np.inf] + [1.0] * 40, [big, big, -big, -big, 1.0],
        [-np.inf] * 3 + [np.inf], [np.nan] + [0.0] * 1030,
        [1.0] * 1023 + [big, big] + [-big] * 2 + [3.0] * 20,
        [big / 2] * 16 + [big / 2] * 16 + [-big] * 16)]


@pytest.fixture
def launched(monkeypatch):
    """The _scan_cuda_extra calls (kind) of a test: the new kernels, not another path."""
    calls, run = [], _scan_cuda_extra.run

    def spy(dev, kind, *args):
        calls.append(kind)
        return run(dev, kind, *args)
    monkeypatch.setattr(_scan_cuda_extra, "run", spy)
    return calls


@pytest.mark.parametrize("dtype", DTYPES)
def test_cumsum_kahan(gpu, launched, dtype):
    for n in LENGTHS:
        for x in (data(n, dtype, 1), with_specials(data(n, dtype, 2), n) if n else None):
            if x is None:
                continue
            for excl in (False, True):
                with np.errstate(all="ignore"):
                    want = rb.cumsum(x, order="kahan", exclusive=excl)
                same_bits(rb.cumsum(emu_array(x), order="kahan", exclusive=excl), want)
    assert launched == ["rows"] * (4 * (len(LENGTHS) - 1))  # n = 0 launches nothing


@pytest.mark.parametrize("dtype", DTYPES)
def test_cumsum_kahan_non_finite(gpu, dtype):
    for x in non_finite_rows(dtype):
        with np.errstate(all="ignore"):
            want = rb.cumsum(x, order="kahan")
            assert not np.isfinite(want).all() or x.shape[0] == 5
        same_bits(rb.cumsum(emu_array(x), order="kahan"), want)


def test_cumsum_kahan_rows_axis_out(gpu):
    a = data(4 * 1100, np.float64, 3).reshape(4, 1100)
    a[2, 700] = np.inf
    for axis in (0, 1, -1, None):
        for excl in (False, True):
            same_bits(rb.cumsum(emu_array(a), axis=axis, order="kahan", exclusive=excl),
                      rb.cumsum(a, axis=axis, order="kahan", exclusive=excl))
    b = data(3 * 5 * 40, np.float32, 4).reshape(3, 5, 40)
    for axis in (0, 1, 2):
        same_bits(rb.cumsum(emu_array(b), axis=axis, order="kahan"),
                  rb.cumsum(b, axis=axis, order="kahan"))
    out = emu_array(np.empty_like(a))
    assert rb.cumsum(emu_array(a), axis=1, order="kahan", out=out) is out
    same_bits(out, rb.cumsum(a, axis=1, order="kahan"))
    strided = data(2 * 3000, np.float64, 5)[::2]
    same_bits(rb.cumsum(emu_array(strided), order="kahan"), rb.cumsum(strided, order="kahan"))


def runs_case(dtype, seed):
    """Runs of length 1, short ones, and runs across 1024-term boundaries."""
    lengths = [1, 1, 3, 1030, 1, 16, 17, 2100, 1, 40, 1024, 5]
    n = sum(lengths)
    keys = np.repeat(np.arange(len(lengths)) % 3, lengths)
    x, w = data(n, dtype, seed), data(n, dtype, seed + 1)
    x[1033] = np.inf  # a non-finite prefix in a long run
    return keys, x, w


TRANSFORMS = ({}, {"transform": "abs"}, {"transform": "square"}, {"weights": True})


def _kw(kw, w, on_gpu):
    if "weights" in kw:
        return {"weights": emu_array(w) if on_gpu else w}
    return kw


@pytest.mark.parametrize("order", ("kahan", "exact"))
@pytest.mark.parametrize("dtype", DTYPES)
def test_scan_by_key(gpu, launched, order, dtype):
    keys, x, w = runs_case(dtype, 6)
    big = np.finfo(dtype).max
    xs = x.copy()
    xs[[2, 20, 1037, 1040]] = (np.nan, -np.inf, big, big)  # and overflowing partial sums
    for v in (x, xs):
        for kw in TRANSFORMS:
            for excl in (False, True):
                with np.errstate(all="ignore"):
                    want = rb.scan_by_key(keys, v, order=order, exclusive=excl,
                                          **_kw(kw, w, False))
                same_bits(rb.scan_by_key(keys, emu_array(v), order=order, exclusive=excl,
                                         **_kw(kw, w, True)), want)
                same_bits(rb.scan_by_key(emu_array(keys), emu_array(v), order=order,
                                         exclusive=excl, **_kw(kw, w, True)), want)
    assert launched == ["scan"] * 32


@pytest.mark.parametrize("order", ("kahan", "exact"))
@pytest.mark.parametrize("dtype", DTYPES)
def test_segment_sum_and_reduce_by_key(gpu, launched, monkeypatch, order, dtype):
    n = 5000
    v, w = with_specials(data(n, dtype, 7), 8), data(n, dtype, 9)
    fin = data(n, dtype, 10)
    off = np.array([0, 0, 1, 5, 5, 1030, 1031, 3100, 4999, 5000, 5000], np.int64)
    keys = np.repeat(np.arange(len(off) - 1), np.diff(off))
    for big in (1 << 16, 1000):  # long segments also on the level-1 kernels
        monkeypatch.setattr(_scan_cuda_extra, "BIG", big)
        for x in (v, fin):
            for kw in TRANSFORMS:
                with np.errstate(all="ignore"):
                    want = rb.segment_sum(x, off, order=order, **_kw(kw, w, False))
                same_bits(rb.segment_sum(emu_array(x), off, order=order, **_kw(kw, w, True)),
                          want)
                same_bits(rb.segment_sum(emu_array(x), emu_array(off), order=order,
                                         **_kw(kw, w, True)), want)
            k, s = rb.reduce_by_key(emu_array(keys), emu_array(x), order=order)
            k0, s0 = rb.reduce_by_key(keys, x, order=order)
            same_bits(s, s0)
            assert np.array_equal(np.asarray(k), k0)
    assert launched == ["reduce"] * 36


def test_empty_and_one(gpu):
    for dtype in DTYPES:
        e, one = np.array([], dtype), np.array([-0.0], dtype)
        for order in ("kahan", "exact"):
            same_bits(rb.scan_by_key(np.array([], np.int64), emu_array(e), order=order), e)
            same_bits(rb.segment_sum(emu_array(e), [0, 0, 0], order=order),
                      np.zeros(2, dtype))
            same_bits(rb.scan_by_key([7], emu_array(one), order=order),
                      rb.scan_by_key([7], one, order=order))
            same_bits(rb.segment_sum(emu_array(one), [0, 1], order=order),
                      rb.segment_sum(one, [0, 1], order=order))
        same_bits(rb.cumsum(emu_array(e), order="kahan"), e)
        same_bits(rb.cumsum(emu_array(one), order="kahan"), one)
        same_bits(rb.cumsum(emu_array(np.empty((3, 0), dtype)), order="kahan"),
                  np.empty((3, 0), dtype))


# ---- cumprod(order="exact"): src/cuda/reproblas/exact_prod.cuh ----

@pytest.fixture
def host_rows(monkeypatch):
    """The rows each GPU cumprod finished on the host (the C core's scans it called)."""
    from reproblas import _core
    rows, scan = [], _core.scan

    def spy(*args):
        rows.append(args[4].shape[0])
        return scan(*args)
    monkeypatch.setattr(_scan_cuda_extra._core, "scan", spy)
    return rows


def cumprod_cases(dtype):
    from test_reproblas_exact_cumprod import cases
    rng = np.random.default_rng(11)
    eps = float(np.finfo(dtype).eps)
    out = cases(dtype)  # ties, near-midpoints, under/overflow, specials, empty
    out.append(("near 1, long", (1 + rng.choice([-2, -1, 1, 2], 5000) * eps / 2).astype(dtype)))
    out.append(("random, long", rng.uniform(0.5, 2.0, 2048 + 17).astype(dtype)))
    return out


@pytest.mark.parametrize("check", ("0", "1"))
@pytest.mark.parametrize("dtype", DTYPES)
def test_cumprod_exact(gpu, launched, host_rows, monkeypatch, dtype, check):
    """Every prefix the CPU's; with REPROBLAS_EXACT_PROD_CHECK=1 every row with an inexact
    prefix is finished on the host, otherwise the device decides these cases alone."""
    monkeypatch.setenv("REPROBLAS_EXACT_PROD_CHECK", check)
    finished = 0
    for name, x in cumprod_cases(dtype):
        for excl in (False, True):
            with np.errstate(all="ignore"):
                want = rb.cumprod(x, order="exact", exclusive=excl)
            del host_rows[:]
            got = rb.cumprod(emu_array(x), order="exact", exclusive=excl)
            same_bits(got, want)
            finished += sum(host_rows)
    assert (finished > 20) if check == "1" else finished == 0
    assert set(launched) == {"rows"}


def test_cumprod_exact_rows_axis(gpu, host_rows, monkeypatch):
    rng = np.random.default_rng(12)
    a = rng.uniform(0.5, 2.0, (6, 300))
    a[2, 5], a[4, 0] = 0.0, np.inf
    for check in ("0", "1"):
        monkeypatch.setenv("REPROBLAS_EXACT_PROD_CHECK", check)
        finished = 0
        for dtype in DTYPES:
            b = a.astype(dtype)
            for axis in (0, 1, None):
                for excl in (False, True):
                    want = rb.cumprod(b, axis=axis, order="exact", exclusive=excl)
                    del host_rows[:]
                    same_bits(rb.cumprod(emu_array(b), axis=axis, order="exact",
                                         exclusive=excl), want)
                    finished += sum(host_rows)
        # check=1: the rows with an inexact prefix finished on the host
        assert (finished > 0) if check == "1" else finished == 0


@pytest.mark.parametrize("dtype", DTYPES)
def test_long_kahan_scans_in_pieces(gpu, monkeypatch, dtype):
    """Rows and runs past KSCAN_BIG are cut into pieces of 1, 2 and 4 chunks (MAX_PIECES
    small): each piece's starting state (the chunk counter, the fallback's term counter)
    from the pieces before it; non-finite prefixes in later pieces use that fallback."""
    calls, long = [], _scan_cuda_extra._kscan_long

    def spy(dev, term, x, y, out, m):
        calls.append(m)
        return long(dev, term, x, y, out, m)
    monkeypatch.setattr(_scan_cuda_extra, "_kscan_long", spy)
    monkeypatch.setattr(_scan_cuda_extra, "KSCAN_BIG", 1500)
    big = np.finfo(dtype).max
    for max_pieces in (64, 3, 1):
        monkeypatch.setattr(_scan_cuda_extra, "MAX_PIECES", max_pieces)
        for n in (1500, 2048, 2048 + 17, 5000):
            x = data(n, dtype, 20)
            xs = x.copy()
            xs[[1100, 1101, n - 300]] = (big, big, np.nan)
            for v in (x, xs):
                for excl in (False, True):
                    with np.errstate(all="ignore"):
                        want = rb.cumsum(v, order="kahan", exclusive=excl)
                    same_bits(rb.cumsum(emu_array(v), order="kahan", exclusive=excl), want)
            a = np.stack([x, xs, x[::-1]])
            with np.errstate(all="ignore"):
                want = rb.cumsum(a, axis=1, order="kahan")
            same_bits(rb.cumsum(emu_array(a), axis=1, order="kahan"), want)
    keys, x, w = runs_case(dtype, 21)  # runs of 2100 (and 1030, 1024: one thread each)
    for kw in TRANSFORMS:
        for excl in (False, True):
            with np.errstate(all="ignore"):
                want = rb.scan_by_key(keys, x, order="kahan", exclusive=excl,
                                      **_kw(kw, w, False))
            same_bits(rb.scan_by_key(keys, emu_array(x), order="kahan", exclusive=excl,
                                     **_kw(kw, w, True)), want)
    assert 1499 in calls and 5000 in calls and 2100 in calls and 1030 not in calls


@pytest.mark.parametrize("dtype", DTYPES)
def test_long_exact_runs_in_pieces(gpu, monkeypatch, dtype):
    """scan_by_key(order="exact") runs past XSCAN_BIG in pieces of 1024, 2048 and more
    terms (MAX_PIECES small), each from the exact sum of the pieces before it: specials
    and overflowing partial sums in later pieces, every transform, exclusive."""
    calls, long = [], _scan_cuda_extra._xscan_long

    def spy(dev, term, x, y, out, m):
        calls.append(m)
        return long(dev, term, x, y, out, m)
    monkeypatch.setattr(_scan_cuda_extra, "_xscan_long", spy)
    monkeypatch.setattr(_scan_cuda_extra, "XSCAN_BIG", 1500)
    keys, x, w = runs_case(dtype, 22)
    big = np.finfo(dtype).max
    xs = x.copy()
    xs[[1040, 2100, 2101, 3000]] = (-np.inf, big, big, np.nan)
    for max_pieces in (64, 2, 1):
        monkeypatch.setattr(_scan_cuda_extra, "MAX_PIECES", max_pieces)
        for v in (x, xs):
            for kw in TRANSFORMS:
                for excl in (False, True):
                    with np.errstate(all="ignore"):
                        want = rb.scan_by_key(keys, v, order="exact", exclusive=excl,
                                              **_kw(kw, w, False))
                    same_bits(rb.scan_by_key(keys, emu_array(v), order="exact",
                                             exclusive=excl, **_kw(kw, w, True)), want)
    one = data(6000, dtype, 23)
    one[[5, 4000]] = (-0.0, big)
    same_bits(rb.scan_by_key(np.zeros(6000), emu_array(one), order="exact"),
              rb.scan_by_key(np.zeros(6000), one, order="exact"))
    assert 2100 in calls and 2099 in calls and 6000 in calls and 1030 not in calls


@pytest.mark.parametrize("check", ("0", "1"))
@pytest.mark.parametrize("dtype", DTYPES)
def test_long_cumprod_exact_in_pieces(gpu, host_rows, monkeypatch, dtype, check):
    """Rows past XPROD_BIG in pieces of 1024 and more terms (MAX_PIECES small), each from
    the joined products of the pieces before it (rb_xprod_join): long near-1 products,
    exponent walks that overflow and come back, specials in later pieces, exclusive, rows;
    with check=1 every row with an inexact prefix is finished on the host."""
    calls, long = [], _scan_cuda_extra._xprod_long

    def spy(dev, check, x, out, m):
        calls.append(m)
        return long(dev, check, x, out, m)
    monkeypatch.setattr(_scan_cuda_extra, "_xprod_long", spy)
    monkeypatch.setattr(_scan_cuda_extra, "XPROD_BIG", 1500)
    monkeypatch.setenv("REPROBLAS_EXACT_PROD_CHECK", check)
    rng = np.random.default_rng(30)
    eps = float(np.finfo(dtype).eps)
    emax = np.finfo(dtype).maxexp
    n = 5000
    walk = np.exp2(rng.integers(-(emax // 2), emax // 2, n)) * rng.uniform(1, 2, n)
    rows = [1 + rng.choice([-2, -1, 1, 2], n) * eps / 2, rng.uniform(0.5, 2.0, n), walk,
            rng.integers(1, 8, n) * 0.5 ** rng.integers(0, 3, n)]
    special = rng.uniform(0.5, 2.0, n)
    special[[3000, 4000]] = (np.inf, 0.0)
    rows.append(special)
    nan = rng.uniform(0.5, 2.0, n)
    nan[2500] = np.nan
    rows.append(nan)
    finished = 0
    for max_pieces in (64, 3):
        monkeypatch.setattr(_scan_cuda_extra, "MAX_PIECES", max_pieces)
        for x in rows:
            x = x.astype(dtype)
            for excl in (False, True):
                with np.errstate(all="ignore"):
                    want = rb.cumprod(x, order="exact", exclusive=excl)
                del host_rows[:]
                same_bits(rb.cumprod(emu_array(x), order="exact", exclusive=excl), want)
                finished += sum(host_rows)
        a = np.stack(rows[:3]).astype(dtype)
        with np.errstate(all="ignore"):
            want = rb.cumprod(a, axis=1, order="exact")
        same_bits(rb.cumprod(emu_array(a), axis=1, order="exact"), want)
    assert 5000 in calls and 4999 in calls
    assert (finished > 0) if check == "1" else finished == 0


# ---- rb_xprod_join (order/exact_prod.h), compiled on its own ----

_JOIN_SHIM = r"""
#include "order/exact_prod.h"
/* the fast form of n terms (bits of float64), then joined with the one of m more */
void xp_fold(const uint64_t *bits, int64_t n, rb_xprod *s) {
  const rb_xfmt f = rb_xfmt_of(0);
  rb_xprod_init(s);
  for (int64_t i = 0; i < n; ++i) {
    const rb_xterm t = rb_xterm_of(bits[i], &f);
    rb_xprod_mul(s, &t);
  }
}
void xp_join(rb_xprod *s, const rb_xprod *r) { rb_xprod_join(s, r); }
"""


class _XProd(ctypes.Structure):  # rb_xprod
    _fields_ = [("m", ctypes.c_uint64 * 3), ("e", ctypes.c_int64), ("j", ctypes.c_uint64),
                ("esum", ctypes.c_int64), ("nan", ctypes.c_int), ("inf", ctypes.c_int),
                ("zero", ctypes.c_int), ("neg", ctypes.c_int)]


@pytest.fixture(scope="module")
def xprod_lib(tmp_path_factory):
    cc = shutil.which("cc")
    if cc is None:
        pytest.skip("needs a C compiler (cc on PATH)")
    d = tmp_path_factory.mktemp("xjoin")
    (d / "shim.c").write_text(_JOIN_SHIM)
    src = Path(__file__).resolve().parent.parent / "src" / "c"
    subprocess.run([cc, "-std=gnu11", "-O1", "-Wall", "-Werror", "-shared", "-fPIC",
                    f"-I{src}", "-o", str(d / "shim.so"), str(d / "shim.c")], check=True)
    lib = ctypes.CDLL(str(d / "shim.so"))
    assert ctypes.sizeof(_XProd) == 64  # RB_XPROD_STATE_BYTES
    lib.xp_fold.argtypes = [ctypes.c_void_p, ctypes.c_int64, ctypes.POINTER(_XProd)]
    lib.xp_join.argtypes = [ctypes.POINTER(_XProd), ctypes.POINTER(_XProd)]
    return lib


def test_xprod_join_keeps_the_bound(xprod_lib):
    """The join of two fast forms (a row's pieces on CUDA) is a fast form of the whole
    product: M 2^E <= P < (M + j 2^(L-127)) 2^E with L = bitlen(M) >= 129, P = M 2^E
    exactly when j = 0, for products short and long, near 1 and across wide exponents."""
    rng = np.random.default_rng(31)
    grew = exact = 0
    for trial in range(600):
        n = int(rng.choice([1, 2, 3, 5, 20, 200]))
        kind = trial % 3
        if kind == 0:
            x = 1 + rng.choice([-2, -1, 1, 2], n) * 2.0 ** -53
        elif kind == 1:
            x = rng.uniform(0.5, 2.0, n) * np.exp2(rng.integers(-60, 60, n))
        else:
            x = rng.integers(1, 1 << 20, n).astype(np.float64)
        cut = int(rng.integers(0, n + 1))
        a, b = _XProd(), _XProd()
        bits = x.view(np.uint64)
        xprod_lib.xp_fold(bits[:cut].ctypes.data, cut, a)
        xprod_lib.xp_fold(bits[cut:].ctypes.data, n - cut, b)
        ja, jb = a.j, b.j
        xprod_lib.xp_join(a, b)
        m = sum(int(a.m[i]) << (64 * i) for i in range(3))
        L = m.bit_length()
        assert L >= 129 and a.j >= ja + jb
        p = Fraction(1)
        for v in x.tolist():
            p *= Fraction(v)
        lo = Fraction(m) * Fraction(2) ** a.e
        hi = Fraction(m + a.j * 2 ** (L - 127)) * Fraction(2) ** a.e
        if a.j == 0:
            assert p == lo, (trial, cut)
            exact += 1
        else:
            assert lo < p < hi, (trial, cut)
            grew += a.j > ja + jb
    assert exact > 100 and grew > 50
