"""The scans in the orders 'kahan' and 'exact' (docs/contract.md §5.2-§5.5): cumsum(kahan)
and scan_by_key(kahan, exact), whose prefix k is bit for bit the level-1 sum/asum/dot of the
terms up to k in that order, and segment_sum/reduce_by_key in those orders, which are the
level-1 call per segment. Oracle: reproblas.sum/asum/dot on each prefix (themselves tested
against the reference and, for exact, against rationals), the reference's plain O(n^2)
definition (src/c/order/reference.c), and Python fractions. Every CPU path, 1 and 3 threads,
work splits that cut rows and segments between the threads; axis, exclusive, out=, in place,
non-finite terms, cancellation; Ctrl-C on a long row."""
import os
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest

import reproblas as rb
from reproblas import _core

from test_reproblas_scan import DTYPES, ISA_PARAMS, ref, same  # noqa: F401 (ref: fixture)

LENGTHS = (0, 1, 15, 16, 17, 1023, 1024, 1025, 2048 + 17, 5000)
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def data(n, dtype, seed):
    rng = np.random.default_rng([n, seed])
    # wide exponents: the orders round differently, the compensation matters
    return (rng.standard_normal(n) * 2.0 ** rng.integers(-20, 20, n)).astype(dtype)


def with_specials(x, seed):
    """inf, -inf, NaN and overflowing pairs at several positions."""
    x = x.copy()
    n = x.shape[0]
    rng = np.random.default_rng(seed)
    big = np.finfo(x.dtype).max
    for v, p in zip((np.inf, -np.inf, np.nan, big, big), rng.integers(0, n, 5)):
        x[p] = v
    return x


def level1(order, transform=None):
    """The level-1 call on a prefix: sum, asum or dot (weights w)."""
    if transform == "abs":
        return lambda v, w=None: rb.asum(v, order=order)
    if transform == "square":
        return lambda v, w=None: rb.dot(v, v, order=order)
    if transform == "weights":
        return lambda v, w: rb.dot(v, w, order=order)
    return lambda v, w=None: rb.sum(v, order=order)


def prefixes(x, order, transform=None, w=None):
    """Each prefix's level-1 result (the oracle)."""
    f = level1(order, transform)
    with np.errstate(all="ignore"):
        return np.array([f(x[:k + 1], None if w is None else w[:k + 1])
                         for k in range(x.shape[0])], x.dtype)


def exclusive_of(p):
    r = np.empty_like(p)
    if p.shape[0]:
        r[0] = 0.0
        r[1:] = p[:-1]
    return r


def paths(monkeypatch, isa, threads=(1, 3)):
    monkeypatch.setenv("REPROBLAS_ISA", isa)
    for tuning in ((0, 0), (64, 16)):
        with _core.tuning(l1=tuning):
            for t in threads:
                monkeypatch.setenv("REPROBLAS_NUM_THREADS", str(t))
                yield f"isa={isa} threads={t} tuning={tuning}"


# ---- the definition ----

@pytest.mark.parametrize("dtype", DTYPES)
def test_reference_scan_is_the_prefix_sums(ref, dtype):
    """The reference's scan in orders 2 and 3 is its own sum on each prefix, and that is
    reproblas.sum's (the statement the tests below use as their oracle)."""
    for n in (1, 17, 1025, 2100):
        x = with_specials(data(n, dtype, 1), n) if n > 1000 else data(n, dtype, 1)
        for order in ("kahan", "exact"):
            got = ref.scan(x, order)
            with np.errstate(all="ignore"):
                want = np.array([ref.sum(x[:k + 1], order) for k in range(n)], dtype)
            same(got, want, f"reference {order} n={n}")
            same(got, prefixes(x, order), f"reproblas.sum {order} n={n}")
            same(ref.scan(x, order, exclusive=True), exclusive_of(want), f"exclusive {order}")
            same(ref.scan(x, order, transform="abs"), prefixes(x, order, "abs"), "abs")
            y = data(n, dtype, 2)
            same(ref.scan(x, order, transform="multiply", y=y),
                 prefixes(x, order, "weights", y), "products")


def rn(acc, dtype):
    """The float nearest to the rational acc, ties to even."""
    c = dtype(acc.numerator / acc.denominator)  # int / int rounds once, to a double
    if dtype == np.float64:
        return c
    u = np.uint32
    cands = (np.nextafter(c, dtype(-np.inf)), c, np.nextafter(c, dtype(np.inf)))
    return min(cands, key=lambda v: (abs(Fraction(float(v)) - acc), int(np.array(v).view(u)) & 1))


def test_exact_prefixes_against_fractions():
    """Exact prefixes of scan_by_key (terms, abs, exact products) against rationals."""
    rng = np.random.default_rng(5)
    for dtype in DTYPES:
        x = (rng.standard_normal(300) * 2.0 ** rng.integers(-60, 60, 300)).astype(dtype)
        w = (rng.standard_normal(300) * 2.0 ** rng.integers(-60, 60, 300)).astype(dtype)
        keys = np.repeat([0, 1, 2], [1, 150, 149])
        for kind, kw, term in (("x", {}, lambda a, b: Fraction(float(a))),
                               ("abs", {"transform": "abs"}, lambda a, b: abs(Fraction(float(a)))),
                               ("prod", {"weights": w},
                                lambda a, b: Fraction(float(a)) * Fraction(float(b)))):
            got = rb.scan_by_key(keys, x, order="exact", **kw)
            for lo, hi in ((0, 1), (1, 151), (151, 300)):
                acc = Fraction(0)
                for j in range(lo, hi):
                    acc += term(x[j], w[j])
                    if j % 7 == 0 or j == hi - 1:
                        want = rn(acc, dtype)
                        assert got[j] == want, (dtype, kind, j, got[j], want)


# ---- cumsum(order="kahan") ----

@pytest.mark.parametrize("isa", ISA_PARAMS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_cumsum_kahan_every_path(monkeypatch, isa, dtype):
    cases = []
    for n in LENGTHS:
        x = data(n, dtype, 3)
        cases.append((f"n={n}", x, prefixes(x, "kahan")))
        if n > 20:
            xs = with_specials(x, n)
            cases.append((f"specials n={n}", xs, prefixes(xs, "kahan")))
    for where in paths(monkeypatch, isa):
        for name, x, want in cases:
            same(rb.cumsum(x, order="kahan"), want, f"{name} {where}")
            same(rb.cumsum(x, order="kahan", exclusive=True), exclusive_of(want),
                 f"exclusive {name} {where}")


@pytest.mark.parametrize("dtype", DTYPES)
def test_cumsum_kahan_long_and_reference(ref, dtype):
    """17 chunks and more (the chunk counter's carries and its blocks), against the prefix
    sums, and the reference's definition on a shorter operand."""
    n = 17 * 1024 + 5
    x = data(n, dtype, 7)
    got = rb.cumsum(x, order="kahan")
    for k in list(range(0, n, 97)) + [n - 1] + [j * 1024 + d for j in range(1, 17)
                                                 for d in (-2, -1, 0, 1, 15, 16)]:
        same(got[k], rb.sum(x[:k + 1], order="kahan"), f"prefix {k}")
    same(got[:3000], ref.scan(x[:3000], "kahan"), "reference")


@pytest.mark.parametrize("dtype", DTYPES)
def test_cumsum_kahan_non_finite(dtype):
    """Non-finite prefixes are the pairwise sums of their terms (§5.5's fallback); a later
    finite S can not come back once a NaN sits in a lane, but an infinite first term alone
    is one prefix; overflowing partial sums."""
    big = np.finfo(dtype).max
    for x in ([1.0, np.inf, 2.0], [np.inf] + [1.0] * 40, [big, big, -big, -big, 1.0],
              [-np.inf] * 3 + [np.inf], [np.nan] + [0.0] * 1030,
              [1.0] * 1023 + [big, big] + [-big] * 2 + [3.0] * 20,
              [big / 2] * 16 + [big / 2] * 16 + [-big] * 16):
        x = np.array(x, dtype)
        want = prefixes(x, "kahan")
        same(rb.cumsum(x, order="kahan"), want, f"{x[:6]}")
        pw = np.array([rb.sum(x[:k + 1], order="pairwise") for k in range(x.shape[0])], dtype)
        with np.errstate(all="ignore"):
            nonfinite = ~np.isfinite(want)
        assert nonfinite.any() or x.shape[0] == 5
        same(want[nonfinite], pw[nonfinite], "the fallback: the pairwise sum")


@pytest.mark.parametrize("dtype", DTYPES)
def test_cumsum_kahan_cancellation(dtype):
    """A large term that cancels later among many small ones: every prefix is the kahan sum
    and within the contract's bound (§5.5) of the exact prefix, where the sequential
    prefixes lose the small terms."""
    big = 2.0 ** (24 if dtype == np.float32 else 53)
    rng = np.random.default_rng(8)
    n = 3000
    x = rng.uniform(0.3, 0.7, n).astype(dtype)
    x[0], x[1500], x[1501] = big, -big, big
    x[2999] = -big
    got = rb.cumsum(x, order="kahan")
    same(got, prefixes(x, "kahan"), "cancellation")
    exact = rb.cumsum(x, order="exact").astype(np.float64)
    mag = rb.cumsum(np.abs(x), order="exact").astype(np.float64)
    u = float(np.finfo(dtype).eps) / 2
    err = np.abs(got.astype(np.float64) - exact)
    assert (err <= u * np.abs(exact) + 3 * u * mag).all()
    seq_err = np.abs(rb.cumsum(x).astype(np.float64) - exact)
    assert err[-1] < 1 and seq_err[-1] > 100, (err[-1], seq_err[-1])


@pytest.mark.parametrize("dtype", DTYPES)
def test_cumsum_kahan_long_row_on_threads(monkeypatch, dtype):
    """A long row cut into pieces of 1, 2 and more chunks for several threads (each piece
    starts from the counters' state at its first term): the bits of one thread, specials
    and overflows near the piece boundaries included, in place and exclusive."""
    n = 9 * 4096 + 77
    x = data(n, dtype, 15)
    xs = x.copy()
    big = np.finfo(dtype).max
    xs[[4095, 4096, 8191]] = big
    xs[12289] = -np.inf
    cases = [(a, prefixes(a, "kahan")) for a in (x[:5000], xs[:13000])]
    monkeypatch.setenv("REPROBLAS_NUM_THREADS", "1")
    cases += [(a, rb.cumsum(a, order="kahan")) for a in (x, xs)]
    for k in list(range(0, n, 1013)) + [4095, 4096, 8191, 12288, 12289, n - 1]:
        same(cases[2][1][k], rb.sum(x[:k + 1], order="kahan"), f"prefix {k}")
        same(cases[3][1][k], rb.sum(xs[:k + 1], order="kahan"), f"specials prefix {k}")
    for t in ("2", "3"):
        monkeypatch.setenv("REPROBLAS_NUM_THREADS", t)
        for tuning in ((64, 16), (2048, 100), (4096, 1000)):
            with _core.tuning(l1=tuning):
                for a, want in cases:
                    what = f"n={a.shape[0]} threads={t} tuning={tuning}"
                    same(rb.cumsum(a, order="kahan"), want, what)
                    same(rb.cumsum(a, order="kahan", exclusive=True), exclusive_of(want),
                         "exclusive " + what)
                    b = a.copy()
                    rb.cumsum(b, order="kahan", out=b)
                    same(b, want, "in place " + what)


def test_cumsum_kahan_axis_out_in_place(monkeypatch):
    rng = np.random.default_rng(9)
    a = (rng.standard_normal((5, 1100)) * 2.0 ** rng.integers(-20, 20, (5, 1100)))
    for dtype in DTYPES:
        m = a.astype(dtype)
        rows = np.stack([prefixes(r, "kahan") for r in m])
        cols = np.stack([prefixes(c, "kahan") for c in m[:, :40].T], axis=1)
        for t in ("1", "3"):
            monkeypatch.setenv("REPROBLAS_NUM_THREADS", t)
            with _core.tuning(l1=(64, 16)):
                same(rb.cumsum(m, axis=1, order="kahan"), rows, "axis 1")
                same(rb.cumsum(m, axis=-1, order="kahan", exclusive=True),
                     np.stack([exclusive_of(r) for r in rows]), "axis 1 exclusive")
                same(rb.cumsum(m[:, :40], axis=0, order="kahan"), cols, "axis 0")
                same(rb.cumsum(np.asfortranarray(m.T), axis=0, order="kahan"), rows.T,
                     "axis 0, Fortran order")
                same(rb.cumsum(m, axis=None, order="kahan"),
                     prefixes(m.reshape(-1), "kahan"), "axis None")
                out = np.full_like(m, np.nan)
                assert rb.cumsum(m, axis=1, order="kahan", out=out) is out
                same(out, rows, "out=")
                for excl, want in ((False, rows), (True, np.stack([exclusive_of(r)
                                                                   for r in rows]))):
                    b = m.copy()
                    assert rb.cumsum(b, axis=1, order="kahan", exclusive=excl, out=b) is b
                    same(b, want, f"in place exclusive={excl}")


def test_cumsum_kahan_refusals():
    """cumprod has no kahan order (GPU arrays run the kahan and exact scans and
    segmented routines: tests/test_cuda_emu_scan_extra.py)."""
    x = np.ones(4)
    with pytest.raises(ValueError, match=r"reproblas\.cumprod: order='kahan'"):
        rb.cumprod(x, order="kahan")


# ---- scan_by_key, segment_sum, reduce_by_key in the orders kahan and exact ----

def runs_case(dtype, seed):
    """Runs of length 1, short ones, and runs across 1024-term boundaries."""
    lengths = [1, 1, 3, 1030, 1, 16, 17, 2100, 1, 40, 1024, 5]
    n = sum(lengths)
    keys = np.repeat(np.arange(len(lengths)) % 3, lengths)  # 0,1,2,0,...: each run distinct
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    x = data(n, dtype, seed)
    w = data(n, dtype, seed + 1)
    x[1033] = np.inf  # a non-finite prefix in the long run
    return keys, offsets, x, w


def run_prefixes(x, w, offsets, order, transform):
    out = np.empty_like(x)
    for lo, hi in zip(offsets[:-1], offsets[1:]):
        out[lo:hi] = prefixes(x[lo:hi], order, transform, None if w is None else w[lo:hi])
    return out


def run_exclusive(p, offsets):
    out = np.empty_like(p)
    for lo, hi in zip(offsets[:-1], offsets[1:]):
        out[lo:hi] = exclusive_of(p[lo:hi])
    return out


@pytest.mark.parametrize("isa", ISA_PARAMS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_by_key_every_path(monkeypatch, isa, dtype):
    keys, off, x, w = runs_case(dtype, 11)
    cases = []
    for order in ("kahan", "exact"):
        for transform, kw, ww in ((None, {}, None), ("abs", {"transform": "abs"}, None),
                                  ("square", {"transform": "square"}, None),
                                  ("weights", {"weights": w}, w)):
            p = run_prefixes(x, ww, off, order, transform)
            f = level1(order, transform)
            with np.errstate(all="ignore"):
                sums = np.array([f(x[lo:hi], None if ww is None else ww[lo:hi])
                                 for lo, hi in zip(off[:-1], off[1:])], dtype)
            cases.append((order, transform, kw, p, sums))
    for where in paths(monkeypatch, isa):
        for order, transform, kw, p, sums in cases:
            what = f"{order} {transform} {where}"
            same(rb.scan_by_key(keys, x, order=order, **kw), p, f"scan_by_key {what}")
            same(rb.scan_by_key(keys, x, order=order, exclusive=True, **kw),
                 run_exclusive(p, off), f"exclusive scan_by_key {what}")
            same(rb.segment_sum(x, off, order=order, **kw), sums, f"segment_sum {what}")
            k, s = rb.reduce_by_key(keys, x, order=order, **kw)
            same(s, sums, f"reduce_by_key {what}")
            assert np.array_equal(k, keys[off[:-1]])


def test_by_key_out_and_in_place():
    keys, off, x, _ = runs_case(np.float64, 12)
    for order in ("kahan", "exact"):
        p = run_prefixes(x, None, off, order, None)
        out = np.full_like(x, np.nan)
        assert rb.scan_by_key(keys, x, order=order, out=out) is out
        same(out, p, f"out= {order}")
        b = x.copy()
        assert rb.scan_by_key(keys, b, order=order, out=b) is b
        same(b, p, f"in place {order}")
        s = np.full(len(off) - 1, np.nan)
        assert rb.segment_sum(x, off, order=order, out=s) is s


def test_segment_sum_long_segment_on_threads(monkeypatch):
    """A segment long enough for the level-1 entry on every thread, and empty segments."""
    x = data(50000, np.float32, 13)
    off = np.array([0, 0, 3, 45000, 45000, 50000], np.int64)
    for order in ("kahan", "exact"):
        want = np.array([rb.sum(x[lo:hi], order=order) for lo, hi in zip(off[:-1], off[1:])],
                        np.float32)
        for t in ("1", "3"):
            monkeypatch.setenv("REPROBLAS_NUM_THREADS", t)
            with _core.tuning(l1=(64, 16)):
                same(rb.segment_sum(x, off, order=order), want, f"{order} threads={t}")
        assert want[0] == 0 and not np.signbit(want[0])


# ---- speed and Ctrl-C ----

def test_kahan_scan_is_one_pass():
    """The scan does not sum each prefix again: 2^18 terms take about as long as a few
    kahan sums of the whole operand times a small factor, not n/2 sums."""
    import time
    x = data(1 << 18, np.float32, 14)
    rb.cumsum(x, order="kahan")
    t0 = time.perf_counter()
    rb.cumsum(x, order="kahan")
    scan = time.perf_counter() - t0
    t0 = time.perf_counter()
    for _ in range(10):
        rb.sum(x, order="kahan")
    one_sum = (time.perf_counter() - t0) / 10
    assert scan < 2000 * one_sum + 0.05, (scan, one_sum)  # recomputing: ~130000 sums


def test_long_kahan_scan_interrupted():
    """Ctrl-C (a SIGALRM handler raising KeyboardInterrupt) stops a long single-row kahan
    cumsum before its end, and the next call gives the uninterrupted bits
    (tests/test_interrupt.py's child)."""
    from test_interrupt import SCAN_CHILD
    env = {k: v for k, v in os.environ.items()
           if k not in ("REPROBLAS_ISA", "REPROBLAS_NUM_THREADS")}
    env["REPROBLAS_NUM_THREADS"] = "1"
    out = subprocess.run([sys.executable, "-c", SCAN_CHILD.format(order="kahan", delay=0.02,
                                                                  log2n=24)],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.split("\n")
    status, seconds, full, *rest = lines[0].split()
    assert lines[1] == "same True", out.stdout
    if float(full) < 0.1:
        pytest.skip("a 2^24-term kahan scan takes under 0.1 s here, too short to stop early")
    assert status == "interrupted", out.stdout
    assert rest == ["True"], out.stdout
    assert float(seconds) < 0.5 * float(full) + 0.1, out.stdout
