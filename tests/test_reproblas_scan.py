"""Scans and segmented reductions (docs/contract.md §5.2, §5.3) against the executable
definition (src/c/order/reference.c, rb_ref_scan) bit for bit, on every CPU path,
1, 2 and 3 threads and small work splits (so that pieces, chunks and thread parts cut
short operands); segment_sum against the level-1 reductions per segment; NumPy's
bits for the sequential order; axis, layout, out= and bad input."""
import os

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import crlibm_py
import reproblas as rb
from reproblas import _core
import reference_lib

DTYPES = (np.float32, np.float64)
ORDERS = ("sequential", "pairwise")
ISA_PARAMS = [pytest.param(isa, marks=pytest.mark.skipif(
    not crlibm_py.isa_supported(isa),
    reason=f"needs a CPU with the {isa} path (this one lacks it; its other paths are tested)"))
    for isa in rb.isa_names()]
THREADS = (1, 2, 3)
# (piece, min_per_thread): defaults, then splits that put the threaded two-pass scan,
# its pieces and the scan kernel's 16-term chunks inside short operands.
L1_TUNINGS = [(0, 0), (64, 50), (8, 16), (16, 1)]
LENGTHS = [0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 47, 63, 64, 65, 127, 128, 129,
           255, 256, 257, 1000, 1023, 1024, 1025, 4097, 6001]


@pytest.fixture(scope="module")
def ref(tmp_path_factory):
    try:
        return reference_lib.build(tmp_path_factory.mktemp("reference_scan"))
    except FileNotFoundError as e:
        pytest.skip(f"needs a C compiler to build the reference: {e}")


def same(got, want, what):
    """Bitwise equality; every NaN equals every NaN (docs/contract.md §0.5)."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, \
        f"{what}: {got.dtype}{got.shape} != {want.dtype}{want.shape}"
    u = {4: np.uint32, 8: np.uint64}[got.itemsize]
    g, w = got.reshape(-1).view(u), want.reshape(-1).view(u)
    bad = np.flatnonzero((g != w) & ~(np.isnan(got.reshape(-1)) & np.isnan(want.reshape(-1))))
    assert bad.size == 0, (f"{what}: {bad.size} of {g.size} differ, first at {bad[0]}: "
                           f"{got.reshape(-1)[bad[0]]!r} != {want.reshape(-1)[bad[0]]!r}")


def data(n, dtype, seed, specials=False):
    rng = np.random.default_rng([n, seed])
    # wide exponents, so that the orders round differently
    x = (rng.standard_normal(n) * 2.0 ** rng.integers(-20, 20, n)).astype(dtype)
    if specials and n:
        pick = rng.random(n) < 0.02
        x[pick] = rng.choice(np.array([np.nan, np.inf, -np.inf, -0.0, 0.0], dtype), pick.sum())
    return x


def paths(monkeypatch, isa):
    monkeypatch.setenv("REPROBLAS_ISA", isa)
    for tuning in L1_TUNINGS:
        with _core.tuning(l1=tuning):
            for t in THREADS:
                monkeypatch.setenv("REPROBLAS_NUM_THREADS", str(t))
                yield f"isa={isa} threads={t} tuning={tuning}"


# ---- the reference itself: the contract's statements ----

@pytest.mark.parametrize("dtype", DTYPES)
def test_reference_statements(ref, dtype):
    """Sequential = np.cumsum / np.cumprod bits; pairwise prefix k = the pairwise sum of
    the first k+1 terms when k+1 is a power of two; the k = 6 example of §5.2;
    exclusive = inclusive shifted after +0 (cumprod: 1)."""
    x = data(300, dtype, 1)
    same(ref.scan(x, "sequential"), np.cumsum(x), "sequential = np.cumsum")
    p = (1 + data(300, dtype, 2) * 2.0 ** -30).astype(dtype)
    same(ref.scan(p, "sequential", op="prod"), np.cumprod(p), "sequential = np.cumprod")
    s = ref.scan(x, "pairwise")
    for k in (0, 1, 3, 7, 15, 31, 63, 127, 255):
        same(s[k], rb.sum(x[:k + 1], order="pairwise"), f"pairwise prefix {k}")
    t = x[:7]
    blocks = [((t[0] + t[1]) + (t[2] + t[3])), t[4] + t[5], t[6]]
    want = dtype(-0.0)
    for b in blocks:
        want = want + b
    same(s[6], want, "contract §5.2 example k = 6")
    same(ref.scan(x, "pairwise", exclusive=True), np.concatenate([[dtype(0)], s[:-1]]),
         "exclusive")
    assert np.signbit(ref.scan(np.array([-0.0], dtype), "pairwise")[0])


@np.errstate(all="ignore")
@pytest.mark.parametrize("dtype", DTYPES)
def test_pairwise_from_the_contract_text(dtype):
    """Every prefix of the pairwise scan as §5.2 unrolls it, written here without the
    reference: the blocks of k+1's binary expansion, largest first, each a perfect
    tree (reproblas.sum of a power-of-two block), joined from the left after -0."""
    x = data(300, dtype, 22, specials=True)
    got = rb.cumsum(x, order="pairwise")
    for k in range(300):
        m, start, acc = k + 1, 0, dtype(-0.0)
        for b in range(m.bit_length() - 1, -1, -1):
            if (m >> b) & 1:
                acc = acc + rb.sum(x[start:start + (1 << b)], order="pairwise")
                start += 1 << b
        same(got[k], acc, f"prefix {k}")


def test_orders_differ():
    t = np.array([1.0, 1e16, -1e16, 1.0])
    same(rb.cumsum(t), np.array([1.0, 1e16, 0.0, 1.0]), "sequential")
    same(rb.cumsum(t, order="pairwise"), np.array([1.0, 1e16, 0.0, 0.0]), "pairwise")


# ---- every path, thread count and split against the reference ----

@pytest.mark.parametrize("isa", ISA_PARAMS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_scans_every_path(ref, monkeypatch, isa, dtype):
    cases = []
    for n in LENGTHS:
        x = data(n, dtype, 3, specials=n % 2 == 1)
        p = (1 + data(n, dtype, 4) * 2.0 ** -12).astype(dtype)
        for order in ORDERS:
            for excl in (False, True):
                cases.append((x, order, "sum", excl, ref.scan(x, order, "sum", exclusive=excl)))
                cases.append((p, order, "prod", excl, ref.scan(p, order, "prod",
                                                                  exclusive=excl)))
    for where in paths(monkeypatch, isa):
        for x, order, op, excl, want in cases:
            f = rb.cumsum if op == "sum" else rb.cumprod
            same(f(x, order=order, exclusive=excl), want,
                 f"{where} {op} {order} exclusive={excl} n={x.shape[0]}")


@pytest.mark.parametrize("order", ORDERS)
def test_long_pairwise_threads(ref, monkeypatch, order):
    """Lengths past the default threshold of the threaded two-pass scan (2^18), on
    the default split, 1 to 3 threads."""
    for n in (1 << 18, (1 << 18) + 12345):
        x = data(n, np.float32, 5)
        want = ref.scan(x, order)
        for t in THREADS:
            monkeypatch.setenv("REPROBLAS_NUM_THREADS", str(t))
            same(rb.cumsum(x, order=order), want, f"n={n} threads={t}")
            same(rb.cumsum(x, order=order, exclusive=True),
                 np.concatenate([[np.float32(0)], want[:-1]]), f"exclusive n={n} threads={t}")


@np.errstate(all="ignore")
def test_numpy_bits():
    for dtype in DTYPES:
        x = data(5000, dtype, 6, specials=True)
        same(rb.cumsum(x), np.cumsum(x), "cumsum = np.cumsum")
        p = (1 + data(5000, dtype, 7) * 2.0 ** -12).astype(dtype)
        same(rb.cumprod(p), np.cumprod(p), "cumprod = np.cumprod")


def test_special_values(ref):
    x = np.array([1.0, np.inf, -np.inf, 2.0, np.nan, 3.0, -0.0, -0.0], np.float32)
    for order in ORDERS:
        got = rb.cumsum(x, order=order)
        same(got, ref.scan(x, order), order)
        assert np.isnan(got[2]) and np.isnan(got[-1])
    z = np.array([-0.0, -0.0, -0.0, -0.0])
    for order in ORDERS:  # the start -0 keeps an all -0 scan -0
        assert np.all(np.signbit(rb.cumsum(z, order=order)))
        assert not np.signbit(rb.cumsum(z, order=order, exclusive=True)[0])
        assert rb.cumprod(z, order=order, exclusive=True)[0] == 1.0


# ---- axis, layouts and out= ----

@pytest.mark.parametrize("order", ORDERS)
def test_axis_and_layouts(ref, order):
    a = data(4 * 37 * 5, np.float64, 8).reshape(4, 37, 5)
    for axis in (0, 1, 2, -1, -2):
        got = rb.cumsum(a, axis=axis, order=order)
        assert got.shape == a.shape and got.flags.c_contiguous
        m = np.moveaxis(a, axis, -1)
        want = np.moveaxis(np.array([ref.scan(r, order) for r in m.reshape(-1, m.shape[-1])])
                           .reshape(m.shape), -1, axis)
        same(got, want, f"axis={axis}")
    same(rb.cumsum(a, axis=None, order=order), ref.scan(a.ravel(), order), "axis=None")
    same(rb.cumsum(np.asfortranarray(a), axis=1, order=order), rb.cumsum(a, axis=1, order=order),
         "Fortran order")
    v = a[1, ::-3, 2]  # strided, negative stride
    same(rb.cumsum(v, order=order), ref.scan(np.ascontiguousarray(v), order), "strided view")
    same(rb.cumsum(v.tolist(), order=order), ref.scan(np.ascontiguousarray(v), order), "list")
    same(rb.cumsum(np.array(2.5), axis=None), np.array([2.5]), "0-d, axis=None")
    e = np.empty((3, 0), np.float32)
    assert rb.cumsum(e).shape == (3, 0) and rb.cumsum(e, axis=0).shape == (3, 0)


@pytest.mark.parametrize("exclusive", (False, True))
def test_out(exclusive):
    x = data(1000, np.float32, 9)
    want = rb.cumsum(x, order="pairwise", exclusive=exclusive)
    out = np.empty_like(x)
    assert rb.cumsum(x, order="pairwise", exclusive=exclusive, out=out) is out
    same(out, want, "out")
    y = x.copy()  # in place: the result of the old values
    rb.cumsum(y, order="pairwise", exclusive=exclusive, out=y)
    same(y, want, "out is x")
    big = np.zeros(2000, np.float32)
    rb.cumsum(x, order="pairwise", exclusive=exclusive, out=big[::2])
    same(big[::2], want, "strided out")
    a = data(60, np.float64, 10).reshape(6, 10)
    o = np.empty((6, 10))
    rb.cumprod(a, axis=0, exclusive=exclusive, out=o)
    same(o, rb.cumprod(a, axis=0, exclusive=exclusive), "out with axis=0")


def test_bad_input():
    x = np.ones(4, np.float32)
    with pytest.raises(TypeError, match="float32 or float64"):
        rb.cumsum(np.arange(4))
    with pytest.raises(TypeError):
        rb.cumsum([1, 2, 3])
    with pytest.raises(TypeError, match="float16"):
        rb.cumsum(np.ones(3, np.float16))
    with pytest.raises(ValueError, match="cumsum.*order"):
        rb.cumsum(x, order="kahn")
    with pytest.raises(np.exceptions.AxisError):
        rb.cumsum(x, axis=1)
    with pytest.raises(TypeError, match="axis"):
        rb.cumsum(x, axis=(0,))
    with pytest.raises(ValueError, match="0-d"):
        rb.cumsum(np.array(1, np.float32))
    with pytest.raises(TypeError, match="exclusive"):
        rb.cumsum(x, exclusive="yes")
    with pytest.raises(ValueError, match="shape"):
        rb.cumsum(x, out=np.empty(5, np.float32))
    with pytest.raises(TypeError, match="dtype"):
        rb.cumsum(x, out=np.empty(4, np.float64))
    ro = np.empty(4, np.float32)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        rb.cumprod(x, out=ro)


# ---- segmented reductions ----

def offsets_for(n, seed):
    rng = np.random.default_rng(seed)
    cuts = np.sort(rng.integers(0, n + 1, max(n // 40, 1)))
    # empty segments, a long one, the ends
    return np.concatenate([[0, 0], cuts, [n, n]]).astype(np.int64)


def seq_chain(seg, absolute=False):
    """The sequential chain written out: -0, then one IEEE addition per term."""
    acc = seg.dtype.type(-0.0)
    for t in seg:
        acc = acc + (abs(t) if absolute else t)
    return acc


@pytest.mark.parametrize("isa", ISA_PARAMS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_segment_sum_sequential_lanes(monkeypatch, isa, dtype):
    """Long segments, many side by side (the vector lanes' whole steps, their leftover
    steps, lanes refilled), then fewer segments than lanes (the lanes padded with
    copies that are not written): each the chain of its own terms, with NaN, infinities
    and signed zeros among them."""
    rng = np.random.default_rng(29)
    n = 12000
    v = data(n, dtype, 31, specials=True)
    offs = [np.concatenate([[0], np.sort(rng.integers(0, n, 40)), [n]]),
            np.array([0, 500, 503, 1900, 1901, 4000, n]),
            np.array([0, 16, 33, 64, 100, 140, 160, 200, 260, 300, 320, 330, 360, 390, 400,
                      430, 470, 500, 540, 1000])]
    with np.errstate(invalid="ignore", over="ignore"):
        wants = [[np.array([seq_chain(v[a:b], ab) for a, b in zip(off[:-1], off[1:])], dtype)
                  for ab in (False, True)] for off in offs]
    for where in paths(monkeypatch, isa):
        for off, (want, want_abs) in zip(offs, wants):
            same(rb.segment_sum(v, off), want, f"{where} sum offsets={off[:5]}...")
            same(rb.segment_sum(v, off, transform="abs"), want_abs,
                 f"{where} abs offsets={off[:5]}...")


@pytest.mark.parametrize("isa", ISA_PARAMS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_segment_sum_is_sum_per_segment(monkeypatch, isa, dtype):
    """Each segment has the bits of the level-1 call on it (sum, asum, dot, dot with
    itself), every path, thread count and split; empty segments +0."""
    n = 3000
    v, w = data(n, dtype, 11, specials=True), data(n, dtype, 12)
    offs = [offsets_for(n, 13), np.array([0, n]), np.array([0, 1, 1, 2, 700, 2900, n]),
            np.array([5]), np.array([3, 3])]
    kinds = [({}, lambda s, o: rb.sum(s, order=o)),
             ({"transform": "abs"}, lambda s, o: rb.asum(s, order=o)),
             ({"transform": "square"}, lambda s, o: rb.dot(s, s, order=o)),
             ({"weights": w}, None)]
    cases = []
    for off in offs:
        for order in ORDERS:
            for kw, f in kinds:
                want = []
                for a, b in zip(off[:-1], off[1:]):
                    seg = v[a:b]
                    want.append(f(seg, order) if f else rb.dot(seg, w[a:b], order=order))
                cases.append((off, order, kw, np.array(want, dtype)))
    for where in paths(monkeypatch, isa):
        for off, order, kw, want in cases:
            got = rb.segment_sum(v, off, order=order, **kw)
            same(got, want, f"{where} {order} {list(kw)} offsets={off[:6]}...")
    empty = rb.segment_sum(v, [0, 0, 10, 10], order="pairwise")
    assert empty[0] == 0 and not np.signbit(empty[0]) and not np.signbit(empty[2])


def test_segment_sum_long_segment(monkeypatch):
    """A segment past the threaded threshold goes through the level-1 entry."""
    v = data((1 << 18) + 77, np.float32, 14)
    off = [0, 5, (1 << 18) + 70, (1 << 18) + 77]
    for t in THREADS:
        monkeypatch.setenv("REPROBLAS_NUM_THREADS", str(t))
        for order in ORDERS:
            got = rb.segment_sum(v, off, order=order)
            want = [rb.sum(v[a:b], order=order) for a, b in zip(off[:-1], off[1:])]
            same(got, np.array(want, np.float32), f"threads={t} {order}")


def test_segment_sum_layouts_and_out():
    v = data(500, np.float64, 15)
    off = np.array([0, 100, 250, 250, 499], np.int32)
    want = rb.segment_sum(v, off, order="pairwise")
    same(rb.segment_sum(v[::-1].copy()[::-1], off, order="pairwise"), want, "strided")
    same(rb.segment_sum(v.tolist(), off.tolist(), order="pairwise"), want, "lists")
    same(rb.segment_sum(v, off.astype(np.uint8) if off.max() < 256 else off, order="pairwise"),
         want, "other int dtype")
    out = np.empty(4)
    assert rb.segment_sum(v, off, order="pairwise", out=out) is out
    same(out, want, "out")


def test_segment_sum_bad_input():
    v = np.ones(10)
    with pytest.raises(ValueError, match="non-decreasing"):
        rb.segment_sum(v, [0, 5, 3, 10])
    with pytest.raises(ValueError, match=r"lie in \[0, 10\]"):
        rb.segment_sum(v, [0, 11])
    with pytest.raises(ValueError, match=r"lie in \[0, 10\]"):
        rb.segment_sum(v, [-1, 5])
    with pytest.raises(TypeError, match="integers"):
        rb.segment_sum(v, [0.0, 5.0])
    with pytest.raises(TypeError, match="integers"):
        rb.segment_sum(v, np.array([False, True]))
    with pytest.raises(ValueError, match="at least one"):
        rb.segment_sum(v, [])
    with pytest.raises(ValueError, match="1-D"):
        rb.segment_sum(v, [[0, 5]])
    with pytest.raises(TypeError, match="float32 or float64"):
        rb.segment_sum(np.arange(10), [0, 10])
    with pytest.raises(ValueError, match="1-D"):
        rb.segment_sum(np.ones((2, 5)), [0, 10])
    with pytest.raises(TypeError, match="mixed dtypes"):
        rb.segment_sum(v, [0, 10], weights=np.ones(10, np.float32))
    with pytest.raises(ValueError, match="elements"):
        rb.segment_sum(v, [0, 10], weights=np.ones(9))
    with pytest.raises(ValueError, match="not both"):
        rb.segment_sum(v, [0, 10], weights=v, transform="abs")
    with pytest.raises(ValueError, match="transform"):
        rb.segment_sum(v, [0, 10], transform="sqrt")
    with pytest.raises(ValueError, match="order"):
        rb.segment_sum(v, [0, 10], order="fast")
    same(rb.segment_sum(v, [4]), np.empty(0), "no segment")
    same(rb.segment_sum(np.empty(0), [0, 0]), np.zeros(1), "empty values")


# ---- by key ----

def keys_for(n, seed):
    rng = np.random.default_rng(seed)
    return np.repeat(np.arange(n), rng.integers(0, 60, n))[:n]


@pytest.mark.parametrize("dtype", DTYPES)
def test_reduce_by_key(monkeypatch, dtype):
    n = 2000
    keys, v = keys_for(n, 16), data(n, dtype, 17, specials=True)
    starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
    bounds = np.r_[starts, n]
    for t in THREADS:
        monkeypatch.setenv("REPROBLAS_NUM_THREADS", str(t))
        with _core.tuning(l1=(16, 1)):
            for order in ORDERS:
                k, s = rb.reduce_by_key(keys, v, order=order)
                same(k, keys[starts], "keys")
                same(s, np.array([rb.sum(v[a:b], order=order)
                                  for a, b in zip(bounds[:-1], bounds[1:])], dtype), order)
                _, s2 = rb.reduce_by_key(keys, v, order=order, transform="square")
                same(s2, np.array([rb.dot(v[a:b], v[a:b], order=order)
                                   for a, b in zip(bounds[:-1], bounds[1:])], dtype), order)
    # unsorted keys: runs, as rocThrust; NaN keys are runs of their own
    k, s = rb.reduce_by_key([1, 1, 2, 1, np.nan, np.nan], np.ones(6))
    same(k, np.array([1, 2, 1, np.nan, np.nan]), "runs")
    same(s, np.array([2.0, 1, 1, 1, 1]), "run sums")
    k, s = rb.reduce_by_key(np.array([], np.int64), np.empty(0))
    assert k.shape == (0,) and s.shape == (0,)
    with pytest.raises(ValueError, match="keys has"):
        rb.reduce_by_key([1, 2], np.ones(3))


@pytest.mark.parametrize("isa", ISA_PARAMS)
def test_scan_by_key_every_path(ref, monkeypatch, isa):
    n = 3000
    keys = keys_for(n, 18)
    keys[1000:1600] = -1  # one run past the threaded threshold of the small splits
    bounds = np.r_[np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]]), n]
    cases = []
    for dtype in DTYPES:
        v, w = data(n, dtype, 19, specials=True), data(n, dtype, 20)
        for order in ORDERS:
            for excl in (False, True):
                for kw in ({}, {"transform": "abs"}, {"transform": "square"}, {"weights": w}):
                    tr = ("multiply" if "weights" in kw else kw.get("transform"))
                    want = np.concatenate(
                        [ref.scan(v[a:b], order, transform=tr, exclusive=excl,
                                  y=w[a:b] if tr == "multiply" else None)
                         for a, b in zip(bounds[:-1], bounds[1:])])
                    cases.append((v, order, excl, kw, want))
    for where in paths(monkeypatch, isa):
        for v, order, excl, kw, want in cases:
            same(rb.scan_by_key(keys, v, order=order, exclusive=excl, **kw), want,
                 f"{where} {v.dtype} {order} exclusive={excl} {list(kw)}")


def test_scan_by_key_matches_cumsum():
    v = data(777, np.float32, 21)
    keys = np.zeros(777, np.int8)
    for order in ORDERS:
        same(rb.scan_by_key(keys, v, order=order), rb.cumsum(v, order=order), order)
        same(rb.scan_by_key(keys, v, order=order, exclusive=True),
             rb.cumsum(v, order=order, exclusive=True), order)
    out = np.empty(777, np.float32)
    assert rb.scan_by_key(keys, v, out=out) is out
    same(out, rb.cumsum(v), "out")
    assert rb.scan_by_key([], np.empty(0)).shape == (0,)


# ---- property: any data, length, split and thread count gives the reference's bits ----

@settings(max_examples=60, deadline=None)
@given(n=st.integers(0, 3000), seed=st.integers(0, 2 ** 32 - 1),
       dtype=st.sampled_from(DTYPES), order=st.sampled_from(ORDERS),
       op=st.sampled_from(("sum", "prod")), exclusive=st.booleans(),
       piece=st.sampled_from((0, 16, 32, 128, 1024)), min_per_thread=st.integers(0, 300),
       threads=st.integers(1, 3), segments=st.integers(1, 12))
def test_property_reference(ref, n, seed, dtype, order, op, exclusive, piece, min_per_thread,
                            threads, segments):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(n) * 2.0 ** rng.integers(-30, 30, n)).astype(dtype)
    if op == "prod":
        x = (1 + x * 2.0 ** -40).astype(dtype)
    pick = rng.random(n) < 0.01
    x[pick] = rng.choice(np.array([np.nan, np.inf, -np.inf, -0.0], dtype), pick.sum())
    off = np.sort(rng.integers(0, n + 1, segments)).astype(np.int64)
    keys = np.searchsorted(off, np.arange(n), side="right")
    bounds = np.r_[0, np.flatnonzero(np.diff(keys)) + 1, n] if n else np.array([0])
    old = os.environ.get("REPROBLAS_NUM_THREADS")
    os.environ["REPROBLAS_NUM_THREADS"] = str(threads)
    try:
        with _core.tuning(l1=(piece, min_per_thread)):
            f = rb.cumsum if op == "sum" else rb.cumprod
            same(f(x, order=order, exclusive=exclusive), ref.scan(x, order, op, exclusive=exclusive),
                 "scan")
            if op == "sum":
                got = rb.scan_by_key(keys, x, order=order, exclusive=exclusive)
                want = np.concatenate([ref.scan(x[a:b], order, exclusive=exclusive)
                                       for a, b in zip(bounds[:-1], bounds[1:])] or
                                      [np.empty(0, dtype)])
                same(got, want, "scan_by_key")
                got = rb.segment_sum(x, off, order=order)
                want = np.array([ref.sum(x[a:b], order) for a, b in zip(off[:-1], off[1:])],
                                dtype)
                same(got, want, "segment_sum")
    finally:
        if old is None:
            os.environ.pop("REPROBLAS_NUM_THREADS", None)
        else:
            os.environ["REPROBLAS_NUM_THREADS"] = old
