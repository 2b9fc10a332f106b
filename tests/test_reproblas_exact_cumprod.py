"""cumprod(order="exact") (docs/contract.md §5.4): prefix k is RN of the exact real product
t_0 ... t_k, on every CPU path and thread count, and in the C ABI.

The oracle is independent of the C code: each float is an integer times a power of two
(float.as_integer_ratio), the running product is a Python integer and an exponent, and each
prefix is rounded by gmpy2 in its IEEE contexts (ieee(32), ieee(64): precision, exponent range
and subnormals of the format, one correct rounding of the exact rational). A second oracle,
integer rounding written out here, must agree with it. REPROBLAS_EXACT_PROD_CHECK=1 makes the
core round every inexact prefix from its exact (bignum) form, so both of its forms are checked.
"""
import ctypes
import math
import os
import random
import shutil
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import gmpy2
import numpy as np
import pytest

import crlibm_py
import reproblas as rb

DTYPES = (np.float32, np.float64)
ISAS = [pytest.param(isa, marks=pytest.mark.skipif(
    not crlibm_py.isa_supported(isa), reason=f"needs a CPU with the {isa} path"))
    for isa in rb.isa_names()]
CTX = {np.float32: gmpy2.ieee(32), np.float64: gmpy2.ieee(64)}
FORMAT = {np.float32: (24, -149, 127), np.float64: (53, -1074, 1023)}  # prec, qmin, emax
UINT = {np.float32: np.uint32, np.float64: np.uint64}


# ---- the oracles ----

def _round_gmpy2(m, e, dtype):
    """RN(m 2^e) in dtype, m > 0 an integer: gmpy2's correctly rounded conversion of the
    rational in the format's IEEE context."""
    q = gmpy2.mpq(m << e) if e >= 0 else gmpy2.mpq(m, 1 << -e)
    with gmpy2.context(CTX[dtype]):
        return float(gmpy2.mpfr(q))


def _round_int(m, e, dtype):
    """RN(m 2^e) in dtype by integer arithmetic: ties to even, gradual underflow, overflow
    to inf when the rounded value needs an exponent above emax."""
    prec, qmin, emax = FORMAT[dtype]
    lead = m.bit_length() - 1 + e
    q = max(lead - prec + 1, qmin)  # the ulp's exponent
    s = q - e
    if s > 0:
        c, rem, half = m >> s, m & ((1 << s) - 1), 1 << (s - 1)
        if rem > half or (rem == half and c & 1):
            c += 1
    else:
        c = m << -s
    if c and c.bit_length() - 1 + q > emax:
        return math.inf
    return math.ldexp(c, q)


def oracle(x, rounder=_round_gmpy2, exclusive=False, at=None):
    """The exact prefixes of the 1-D x (inclusive or exclusive), as x's dtype; `at`: only
    those indices (the others NaN)."""
    dtype = x.dtype.type
    out = np.full(x.size, np.nan, dtype)
    want = range(x.size) if at is None else set(int(i) for i in at)
    m, e, neg, nan, inf, zero = gmpy2.mpz(1), 0, False, False, False, False

    def value():
        if nan or (inf and zero):
            return math.nan
        v = math.inf if inf else 0.0 if zero else rounder(int(m), e, dtype)
        return -v if neg else v

    for k, t in enumerate(x.tolist()):
        if exclusive and k in want:
            out[k] = value()
        if math.isnan(t):
            nan = True
        else:
            neg ^= math.copysign(1.0, t) < 0
            if math.isinf(t):
                inf = True
            elif t == 0:
                zero = True
            elif not (nan or inf or zero):
                num, den = abs(t).as_integer_ratio()
                m *= num
                e -= den.bit_length() - 1
        if not exclusive and k in want:
            out[k] = value()
    return out


def wrong(got, want, at=None):
    """How many entries (at the indices `at`) differ in bits (any NaN matches a NaN)."""
    got, want = np.asarray(got), np.asarray(want)
    if at is not None:
        got, want = got[at], want[at]
    u = UINT[want.dtype.type]
    nan = np.isnan(want)
    bad = (np.isnan(got) != nan) | (~nan & (got.view(u) != want.view(u)))
    return int(bad.sum())


WRONG = []  # (case, prefixes compared, wrong ones): every comparison; all must be 0


def check(got, want, case, at=None):
    n = wrong(got, want, at)
    WRONG.append((case, np.asarray(want).size if at is None else len(at), n))
    assert n == 0, f"{case}: {n} wrong prefixes; first " \
                   f"{np.flatnonzero(~((got == want) | (np.isnan(got) & np.isnan(want))))[:5]}"


# ---- the inputs ----

def _f(dtype, values):
    return np.array(values, dtype=dtype)


def tie_rows(dtype, rows, k, rng):
    """rows x k odd integers (scaled by powers of two, signed) whose product is a midpoint
    of the format: prec + 1 bits, the last one set."""
    prec = FORMAT[dtype][0]
    out = []
    while len(out) < rows:
        bits = np.sort(rng.choice(np.arange(2, prec + 1), k - 1, replace=False))
        cuts = np.diff(np.concatenate([[0], bits, [prec + 1]]))
        if cuts.max() > prec or cuts.min() < 1:
            continue
        t = [int(rng.integers(1 << (c - 1), 1 << c)) | 1 for c in cuts]
        if math.prod(t).bit_length() == prec + 1:
            out.append([v * 2.0 ** int(rng.integers(-30, 30)) * (-1.0) ** int(rng.integers(2))
                        for v in t])
    return np.array(out)


def cases(dtype):
    """(name, 1-D x) with every kind of prefix the contract names."""
    prec, qmin, emax = FORMAT[dtype]
    info = np.finfo(dtype)
    rng = np.random.default_rng(5 if dtype == np.float32 else 6)
    eps = 2.0 ** (1 - prec)
    out = []
    out.append(("random normal", rng.standard_normal(300).astype(dtype)))
    out.append(("random wide", (rng.standard_normal(300) *
                                np.exp2(rng.integers(-40, 40, 300))).astype(dtype)))
    out.append(("[0.5, 2)", rng.uniform(0.5, 2.0, 400).astype(dtype)))
    # exact midpoints along one row: each next term makes the product a tie again while
    # it fits, by cancelling the previous term (t, 1/t with t a power of two)
    ties = tie_rows(dtype, 40, 2, rng)
    out.append(("midpoints of two integers", _f(dtype, np.column_stack(
        [ties, 1 / ties[:, :1], 1 / ties[:, 1:]]).ravel())))
    small = rng.integers(1, 64, 200) * (2.0 ** rng.integers(-3, 4, 200))
    out.append(("small integers", _f(dtype, small)))
    out.append(("odd integers 3..15", _f(dtype, rng.choice([3, 5, 7, 9, 11, 13, 15], 120))))
    out.append(("2^prec+1 midpoints", _f(dtype, [3, (2 ** (prec - 1) + 1), 3, 1 / 3.0, 5])))
    # near-midpoints in long products of values near 1
    for name, steps in (("1 +- eps", [1, -1]), ("1 + {1,2,3} eps", [1, 2, 3]),
                        ("1 + {-2..2} eps/2", [-2, -1, 1, 2])):
        out.append((name, _f(dtype, 1 + rng.choice(steps, 300) * eps / 2)))
    out.append(("near-midpoint pairs", _f(dtype, [1 + eps * 2 ** -2 * 4, 1 + eps / 2 * 2,
                                                  1 + eps, 1 - eps / 2, 1 + eps, 1 - eps / 2,
                                                  1 + 3 * eps, 1 - 3 * eps / 2] * 8)))
    half_sub = 2.0 ** (qmin - 1)  # half the least subnormal
    lo = 2.0 ** (qmin // 2)
    out.append(("underflow boundary",
                _f(dtype, [lo, half_sub / lo, 1 + eps, 1 - eps / 2, 1 - eps / 2, 2, 1 / 2,
                           3, 1 / 3, 0.75, 2 ** -3, 8, 1 + eps])))
    sub = rng.uniform(1, 2, 200) * np.exp2(rng.integers(qmin - 8, info.minexp + 4, 200))
    out.append(("subnormal results", _f(dtype, np.column_stack(
        [sub / lo, np.full(200, lo), np.full(200, 1.0)]).ravel()[:300])))
    # overflow boundary (2 - 2^-prec) 2^emax = (2^(prec+1) - 1) 2^(emax - prec)
    a, b = (31, 601 * 1801) if dtype == np.float32 else (3 ** 4 * 7 * 19 * 73, 87211 * 262657)
    assert a * b == 2 ** (prec + 1) - 1
    out.append(("overflow threshold",
                _f(dtype, [a, b * 2.0 ** (emax - prec), 1 - eps / 2, 1 + eps, 1 - eps,
                           1 / 2, 2, 2])))
    out.append(("max times", _f(dtype, [info.max, 1, 1 + eps, 1 - eps / 2, 1 / 2, 2])))
    big = 2.0 ** (emax // 3 * 2)
    out.append(("partial products overflow and come back",
                _f(dtype, [big] * 4 + [1 / big] * 4 + [3.0, 1 / big ** 0.5] * 3 + [0.5] * 3)))
    out.append(("partial products underflow and come back",
                _f(dtype, [1 / big] * 5 + [big] * 5 + [1 + eps] * 3)))
    walk = np.exp2(rng.integers(-(emax // 2), emax // 2, 300)) * rng.uniform(1, 2, 300)
    out.append(("random exponent walk", walk.astype(dtype)))
    for name, special in (("nan", np.nan), ("inf", np.inf), ("-inf", -np.inf), ("0", 0.0),
                          ("-0", -0.0)):
        for at in (0, 3, 17):
            x = rng.uniform(-2, 2, 24).astype(dtype)
            x[at] = special
            out.append((f"{name} at {at}", x))
    x = rng.uniform(-2, 2, 30).astype(dtype)
    x[[4, 9]] = [np.inf, 0.0]
    out.append(("inf then 0", x))
    x = rng.uniform(-2, 2, 30).astype(dtype)
    x[[4, 9, 12]] = [-0.0, -np.inf, -1.0]
    out.append(("-0 then -inf", x))
    x = rng.uniform(-2, 2, 30).astype(dtype)
    x[[2, 5, 8]] = [-0.0, -0.0, -3.0]
    out.append(("signed zeros", x))
    out.append(("subnormal terms", _f(dtype, [info.smallest_subnormal, 2.0 ** (prec + 3),
                                              info.smallest_subnormal * 3, 2.0 ** 60,
                                              2.0 ** 60, info.smallest_normal, 2.0 ** 70])))
    out.append(("one", _f(dtype, [-3.5])))
    out.append(("empty", _f(dtype, [])))
    return out


# ---- tests ----

@pytest.mark.parametrize("dtype", DTYPES)
def test_the_two_oracles_agree(dtype):
    for name, x in cases(dtype):
        check(oracle(x, _round_int), oracle(x), f"oracles {name}")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mode", ("fast", "exact form"))
def test_every_prefix_against_the_exact_rationals(monkeypatch, dtype, mode):
    if mode == "exact form":
        monkeypatch.setenv("REPROBLAS_EXACT_PROD_CHECK", "1")
    for name, x in cases(dtype):
        got = rb.cumprod(x, order="exact")
        assert got.dtype == dtype and got.shape == x.shape
        check(got, oracle(x), f"{name} ({mode})")
        check(rb.cumprod(x, order="exact", exclusive=True), oracle(x, exclusive=True),
              f"exclusive {name} ({mode})")


@pytest.mark.parametrize("isa", ISAS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_every_path_thread_count_and_layout(monkeypatch, isa, dtype):
    """Rows of all the cases, one 2-D array, along either axis, in place, strided, out=."""
    xs = [x for _, x in cases(dtype) if x.size >= 24]
    n = max(x.size for x in xs)
    a = np.ones((len(xs), n), dtype)
    for i, x in enumerate(xs):
        a[i, :x.size] = x
    want = np.stack([oracle(row) for row in a])
    wante = np.stack([oracle(row, exclusive=True) for row in a])
    monkeypatch.setenv("REPROBLAS_ISA", isa)
    for threads in ("1", "3"):
        monkeypatch.setenv("REPROBLAS_NUM_THREADS", threads)
        case = f"isa={isa} threads={threads}"
        check(rb.cumprod(a, order="exact"), want, f"rows {case}")
        check(rb.cumprod(a, order="exact", exclusive=True), wante, f"exclusive rows {case}")
        check(rb.cumprod(np.asfortranarray(a.T), axis=0, order="exact").T, want,
              f"axis 0 {case}")
        check(rb.cumprod(a[:2], axis=None, order="exact"), oracle(a[:2].ravel()),
              f"axis None {case}")
        b = a.copy()
        assert rb.cumprod(b, order="exact", out=b) is b
        check(b, want, f"in place {case}")
        b = a.copy()
        assert rb.cumprod(b, order="exact", exclusive=True, out=b) is b
        check(b, wante, f"exclusive in place {case}")
        o = np.empty((n, len(xs)), dtype).T
        assert rb.cumprod(a, order="exact", out=o) is o
        check(o, want, f"out= strided {case}")
        r = a[3, ::-2]
        check(rb.cumprod(r, order="exact"), oracle(np.ascontiguousarray(r)), f"strided {case}")


@pytest.mark.parametrize("dtype", DTYPES)
def test_long_row_sampled_prefixes(monkeypatch, dtype):
    """2^16 (float32) / 2^15 (float64) terms in [0.5, 2), and near 1, on 1 and 3 threads."""
    n = 1 << (16 if dtype == np.float32 else 15)
    rng = np.random.default_rng(9)
    eps = 2.0 ** (1 - FORMAT[dtype][0])
    at = np.unique(np.concatenate([np.arange(40), rng.integers(0, n, 200), [n - 1]]))
    for name, x in (("[0.5, 2)", rng.uniform(0.5, 2.0, n).astype(dtype)),
                    ("1 +- eps", (1 + rng.choice([-1, 1, 2], n) * eps / 2).astype(dtype))):
        want = oracle(x, at=at)
        for threads in ("1", "3"):
            monkeypatch.setenv("REPROBLAS_NUM_THREADS", threads)
            check(rb.cumprod(x, order="exact"), want, f"long {name} threads={threads}", at)
            check(rb.cumprod(np.stack([x[:1000], x[1000:2000]]), order="exact")[1],
                  oracle(x[1000:2000]), f"long {name} row 1 threads={threads}")


@pytest.mark.parametrize("dtype", DTYPES)
def test_random_rows_fast_and_exact_form_agree(monkeypatch, dtype):
    """Random lengths and ranges: the fast form's results are those of the exact form."""
    rng = np.random.default_rng(13)
    info = np.finfo(dtype)
    for trial in range(40):
        n = int(rng.integers(1, 200))
        lo, hi = sorted(rng.integers(info.minexp // 4, info.maxexp // 4, 2))
        x = (rng.uniform(-2, 2, n) * np.exp2(rng.integers(lo, hi + 1, n))).astype(dtype)
        monkeypatch.delenv("REPROBLAS_EXACT_PROD_CHECK", raising=False)
        fast = rb.cumprod(x, order="exact")
        monkeypatch.setenv("REPROBLAS_EXACT_PROD_CHECK", "1")
        check(rb.cumprod(x, order="exact"), fast, f"trial {trial} forms")
        check(fast, oracle(x), f"trial {trial}")


@pytest.mark.parametrize("dtype", DTYPES)
def test_exact_midpoints(monkeypatch, dtype):
    """Products of 2, 3 and 4 integers that land on a midpoint: ties to even, on 1 and 3
    threads (rows of a 2-D array); a tie rounds up as often as down."""
    rng = np.random.default_rng(17)
    ups = 0
    for k in (2, 3, 4):
        a = tie_rows(dtype, 150, k, rng).astype(dtype)
        want = np.stack([oracle(row) for row in a])
        for threads in ("1", "3"):
            monkeypatch.setenv("REPROBLAS_NUM_THREADS", threads)
            check(rb.cumprod(a, order="exact"), want, f"{k}-term ties threads={threads}")
        exact = [abs(math.prod(Fraction(v) for v in row.tolist())) for row in a]
        ups += sum(Fraction(abs(w)) > p for w, p in zip(want[:, -1].tolist(), exact))
    assert 100 < ups < 350  # about half of the 450 ties round up


INTERRUPT_CHILD = """
import signal, time
import numpy as np
import reproblas
x = np.random.default_rng(3).uniform(0.5, 2.0, {n}).astype(np.{dtype})
small = x[:1000].copy()
before = reproblas.cumprod(small, order="exact")
out = np.full(x.shape, np.nan, x.dtype)

def alarm(signum, frame):
    raise KeyboardInterrupt
signal.signal(signal.SIGALRM, alarm)
signal.setitimer(signal.ITIMER_REAL, 0.3)
t = time.monotonic()
try:
    reproblas.cumprod(x, order="exact", out=out)
    print("finished", time.monotonic() - t)
except KeyboardInterrupt:
    print("interrupted", time.monotonic() - t, bool(np.isnan(out[-1])))
again = reproblas.cumprod(small, order="exact")
print("same", np.array_equal(before.view(np.uint8), again.view(np.uint8)))
"""


@pytest.mark.parametrize("check", ("0", "1"))
def test_ctrl_c_stops_a_long_row(check):
    """One long row is one work item: the row loop polls every 2^16 terms, the exact form's
    catch-up every 2^22 limb products. With every prefix from the exact form (check=1) a
    2^17-term float64 row takes about 6 s on 2 AMD EPYC cores; a float32 row of 2^26 terms
    about 1.6 s on the fast form. A SIGALRM at 0.3 s stops either well before its end, and the
    process computes the same bits afterwards."""
    n, dtype = (1 << 17, "float64") if check == "1" else (1 << 26, "float32")
    env = {k: v for k, v in os.environ.items() if k != "REPROBLAS_NUM_THREADS"}
    env.update(REPROBLAS_NUM_THREADS="1", REPROBLAS_EXACT_PROD_CHECK=check)
    done = subprocess.run([sys.executable, "-c", INTERRUPT_CHILD.format(n=n, dtype=dtype)],
                          cwd=Path(__file__).resolve().parents[1], env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.split("\n")
    status, seconds, *rest = lines[0].split()
    assert status == "interrupted" and rest == ["True"], done.stdout
    assert float(seconds) < 1.5, done.stdout
    assert lines[1] == "same True", done.stdout


def test_examples_and_refusals():
    x = np.array([1e30, 1e30, 1e-30, 1e-30], np.float32)
    got = rb.cumprod(x, order="exact")
    assert got[0] == np.float32(1e30) and got[1] == np.inf and got[3] == 1.0
    assert rb.cumprod(x, order="Exact")[3] == 1.0
    assert rb.cumprod(np.array([3.0, 5.0, 7.0]), order="exact").tolist() == [3, 15, 105]
    # an exact tie: 3 * (2^23 + 1) = 3 2^23 + 3 has 25 bits, its last one a half ulp
    t = rb.cumprod(np.array([3, 2 ** 23 + 1], np.float32), order="exact")
    assert t[1] == 3 * 2 ** 23 + 4
    assert np.cumprod(np.array([3, 2 ** 23 + 1], np.float32))[1] == t[1]
    assert rb.cumprod(np.array([], np.float64), order="exact").shape == (0,)
    with pytest.raises(ValueError, match=r"reproblas\.cumprod: order='kahan': use 'sequential', "
                                         r"'pairwise' or 'exact'"):
        rb.cumprod(x, order="kahan")
    with pytest.raises(TypeError):
        rb.cumprod(np.ones(4, np.float16), order="exact")
    from cuda_support import EmuDevice, emu_array
    from repro_runtime import cuda as rt_cuda
    old = list(rt_cuda._device)
    rt_cuda._device[:] = [EmuDevice()]
    try:
        # GPU arrays: the CPU's bits (tests/test_cuda_emu_scan_extra.py)
        assert np.array_equal(rb.cumprod(emu_array(x), order="exact"), got)
    finally:
        rt_cuda._device[:] = old


# ---- the fast form's decision (order/exact_prod.h), compiled on its own ----

_SHIM = r"""
#include "order/exact_prod.h"
int xp_round(const uint64_t *a, int64_t n, int64_t e, uint64_t j, int neg, int f32,
             uint64_t *out) {
  const rb_xfmt f = rb_xfmt_of(f32);
  return rb_xprod_round_limbs(a, n, e, j, neg, &f, out);
}
"""


@pytest.fixture(scope="module")
def round_limbs(tmp_path_factory):
    cc = shutil.which("cc")
    if cc is None:
        pytest.skip("needs a C compiler (cc on PATH)")
    d = tmp_path_factory.mktemp("xprod")
    (d / "shim.c").write_text(_SHIM)
    src = Path(__file__).resolve().parent.parent / "src" / "c"
    subprocess.run([cc, "-std=gnu11", "-O1", "-Wall", "-Werror", "-shared", "-fPIC",
                    f"-I{src}", "-o", str(d / "shim.so"), str(d / "shim.c")], check=True)
    lib = ctypes.CDLL(str(d / "shim.so"))
    lib.xp_round.argtypes = [ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64, ctypes.c_uint64,
                             ctypes.c_int, ctypes.c_int, ctypes.c_void_p]
    lib.xp_round.restype = ctypes.c_int

    def call(m, e, j, dtype):
        limbs = np.array([(m >> (64 * i)) & (2 ** 64 - 1) for i in range(3)], np.uint64)
        out = np.zeros(1, np.uint64)
        ok = lib.xp_round(limbs.ctypes.data, 3, e, j, 0, int(dtype == np.float32),
                          out.ctypes.data)
        v = out.astype(np.uint32).view(np.float32) if dtype == np.float32 else out.view(
            np.float64)
        return ok, float(v[0])
    return call


@pytest.mark.parametrize("dtype", DTYPES)
def test_fast_form_decides_only_what_its_bound_settles(round_limbs, dtype):
    """The fast form M 2^e with j truncating steps stands for any value of (M, M + j
    2^(L-127)) (L = bitlen(M)). Its decision must be RN of both ends of that interval, and
    it may decline only when the interval, doubled, meets a rounding boundary (or beyond
    the overflow threshold, where every value rounds to inf). M is drawn
    next to the boundaries: midpoints (below and above by about the window), normal,
    subnormal and overflowing results, exact (j = 0) ties."""
    prec, qmin, emax = FORMAT[dtype]
    rng = np.random.default_rng(21)
    rnd = random.Random(21)
    tiny = 16  # extra fraction bits for points strictly inside the interval
    declined = decided = 0
    for trial in range(6000):
        L = int(rng.integers(129, 193))
        lead = int(rng.choice([int(rng.integers(qmin - 3, qmin + prec + 3)),
                               int(rng.integers(-60, 60)), int(rng.integers(emax - 2, emax + 2))]))
        e = lead - (L - 1)
        q = max(lead - prec + 1, qmin)
        s = q - e  # the result ulp's position in M
        j = int(rng.choice([0, 1, 2, 3, int(rng.integers(1, 2 ** 40))]))
        w = L - 127 + j.bit_length()
        m = (1 << (L - 1)) | int(rng.integers(0, 2 ** 62)) << max(L - 63, 0)
        m &= (1 << L) - 1
        if 1 <= s <= L:  # put M's remainder next to half an ulp
            half = 1 << (s - 1)
            d = rnd.randrange(-(1 << min(w + 2, 100)), 1 << min(w + 2, 100))
            d = d if rng.integers(2) else int(rng.integers(-3, 4))
            m = ((m >> s) << s) + half + d
            if m.bit_length() != L or m <= 0:
                continue
        ok, got = round_limbs(m, e, j, dtype)
        lo = _round_int(m, e, dtype) if j == 0 else _round_int((m << tiny) + 1, e - tiny, dtype)
        if not ok:
            assert j > 0, f"exact M declined: m={m:#x} e={e}"
            far = _round_int(((m + (1 << (w + 1))) << tiny) + 1, e - tiny, dtype)
            assert far != lo or math.isinf(lo), f"declined with no boundary near: m={m:#x} e={e} j={j}"
            declined += 1
            continue
        decided += 1
        assert got == lo, f"m={m:#x} e={e} j={j}: {got!r} != RN {lo!r}"
        if j:
            hi = _round_int(((m + j * 2 ** (L - 127)) << tiny) - 1, e - tiny, dtype)
            assert got == hi, f"m={m:#x} e={e} j={j}: {got!r} != RN of the top {hi!r}"
    assert declined > 300 and decided > 3000


# ---- the C ABI (reproblas_?cumprod with ReproblasExact = 3) ----

LIB = ctypes.CDLL(str(Path(rb.get_library_dir()) / "libreproblas.so"))
for _p in "sd":
    _fn = getattr(LIB, f"reproblas_{_p}cumprod")
    _fn.argtypes = [ctypes.c_int64, ctypes.c_void_p, ctypes.c_int64, ctypes.c_void_p,
                    ctypes.c_int64, ctypes.c_int, ctypes.c_int]
    _fn.restype = ctypes.c_int


@pytest.mark.parametrize("dtype", DTYPES)
def test_c_abi(dtype):
    f = getattr(LIB, f"reproblas_{'s' if dtype == np.float32 else 'd'}cumprod")
    for name, x in cases(dtype):
        n = x.size
        for excl in (0, 1):
            want = oracle(x, exclusive=bool(excl))
            y = np.full(n, 7, dtype)
            assert f(n, x.ctypes.data if n else None, 1, y.ctypes.data if n else None, 1,
                     excl, 3) == 0
            check(y, want, f"C ABI {name} exclusive={excl}")
            if not n:
                continue
            z = x.copy()  # in place
            assert f(n, z.ctypes.data, 1, z.ctypes.data, 1, excl, 3) == 0
            check(z, want, f"C ABI in place {name} exclusive={excl}")
            src = np.zeros(2 * n, dtype)  # x read backwards (inc -2), y written with inc 3
            src[::2] = x[::-1]
            dst = np.zeros(3 * n, dtype)
            assert f(n, src.ctypes.data, -2, dst.ctypes.data, 3, excl, 3) == 0
            check(dst[::3], want, f"C ABI increments {name} exclusive={excl}")
    y = np.zeros(4, dtype)
    assert f(4, np.ones(4, dtype).ctypes.data, 1, y.ctypes.data, 1, 0, 2) == -7  # kahan
    assert not y.any()


def test_no_wrong_result():
    """Runs last in this file: the total over every comparison above is 0."""
    if not WRONG:
        pytest.skip("no comparison ran before this test")
    compared, bad = sum(c for _, c, _ in WRONG), sum(n for _, _, n in WRONG)
    print(f"exact cumprod: {bad} wrong of {compared} prefixes in {len(WRONG)} comparisons")
    assert bad == 0
