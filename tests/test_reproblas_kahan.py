"""order="kahan" (docs/contract.md §5.5): chunks of 1024 terms, 16 Kahan lanes per chunk,
compensated joins in the pairwise tree. Every CPU path and thread count gives the bits of
the executable definition (src/c/order/reference.c), which itself equals a plain Python
statement of the definition; the error bound holds against exact sums."""
import numpy as np
import pytest

import crlibm_py
import reproblas as rb
from reproblas import _core
import reference_lib

DTYPES = (np.float32, np.float64)
ROUTINES = ("sum", "asum", "dot", "nrm2")
ISAS = [pytest.param(isa, marks=pytest.mark.skipif(
    not crlibm_py.isa_supported(isa), reason=f"needs a CPU with the {isa} path"))
    for isa in rb.isa_names()]
# (piece, min_per_thread): defaults; one chunk per item; two chunks per item, tiny parts
TUNINGS = [(0, 0), (1024, 1), (2048, 100)]
LENGTHS = [0, 1, 2, 15, 16, 17, 1023, 1024, 1025, 2047, 2048, 3072, 4097, 5 * 1024 + 3,
           16 * 1024 + 5, 33 * 1024]
CHUNK, LANES = 1024, 16


@pytest.fixture(scope="module")
def ref(tmp_path_factory):
    try:
        return reference_lib.build(tmp_path_factory.mktemp("reference"))
    except FileNotFoundError as e:
        pytest.skip(f"needs a C compiler to build the reference: {e}")


def same(got, want, what):
    """Bitwise equality, elementwise; every NaN equals every NaN."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, what
    u = {4: np.uint32, 8: np.uint64}[got.dtype.itemsize]
    bad = (got.view(u) != want.view(u)) & ~(np.isnan(got) & np.isnan(want))
    assert not bad.any(), f"{what}: got {got[bad]!r}, want {want[bad]!r}"


def values(rng, n, dtype):
    """Both signs, magnitudes over 2^±20: the orders differ on such data."""
    return (rng.standard_normal(n) * np.exp2(rng.integers(-20, 20, n))).astype(dtype)


def call(routine, x, y, **kw):
    if routine == "dot":
        return rb.dot(x, y, order="kahan", **kw)
    return getattr(rb, routine)(x, order="kahan", **kw)


def ref_call(ref, routine, x, y):
    return ref.dot(x, y, "kahan") if routine == "dot" else getattr(ref, routine)(x, "kahan")


# ---- the definition in Python (each operation rounded to the dtype) ----

def _join(a, b):
    s = a[0] + b[0]
    z = s - a[0]
    e = (a[0] - (s - z)) + (b[0] - z)
    return s, (a[1] + b[1]) - e


def _pairwise(items, add):
    if len(items) == 1:
        return items[0]
    h = 1
    while 2 * h < len(items):
        h *= 2
    return add(_pairwise(items[:h], add), _pairwise(items[h:], add))


def py_kahan(t):
    """S of the terms t (a 1-D array of the dtype), as docs/contract.md §5.5 states it."""
    dt = t.dtype.type
    if t.size == 0:
        return dt(0)
    with np.errstate(all="ignore"):
        chunks = []
        for j in range(0, t.size, CHUNK):
            c = t[j:j + CHUNK]
            lanes = []
            for lane in range(min(LANES, c.size)):
                s, comp = c[lane], dt(0)
                for v in c[lane + LANES::LANES]:
                    y = v - comp
                    u = s + y
                    comp = (u - s) - y
                    s = u
                lanes.append((s, comp))
            chunks.append(_pairwise(lanes, _join))
        s, comp = _pairwise(chunks, _join)
        r = s - comp
        if not np.isfinite(r):
            return _pairwise(list(t), lambda a, b: a + b)
        return r


@pytest.mark.parametrize("dtype", DTYPES)
def test_reference_is_the_definition(ref, dtype):
    rng = np.random.default_rng(1)
    for n in (1, 5, 16, 17, 100, 1024, 1025, 3000, 4100):
        x, y = values(rng, n, dtype), values(rng, n, dtype)
        same(ref.sum(x, "kahan"), py_kahan(x), f"sum n={n}")
        same(ref.asum(x, "kahan"), py_kahan(np.abs(x)), f"asum n={n}")
        with np.errstate(all="ignore"):
            same(ref.dot(x, y, "kahan"), py_kahan(x * y), f"dot n={n}")
    x = np.array([1.0, np.inf, 2.0], dtype)
    same(py_kahan(x), dtype(np.inf), "an infinite term: the pairwise sum")


@pytest.mark.parametrize("isa", ISAS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_every_path_and_thread_count(monkeypatch, ref, isa, dtype):
    monkeypatch.setenv("REPROBLAS_ISA", isa)
    rng = np.random.default_rng(2)
    data = [(n, values(rng, n, dtype), values(rng, n, dtype)) for n in LENGTHS]
    want = {(r, n): ref_call(ref, r, x, y) for n, x, y in data for r in ROUTINES}
    for tuning in TUNINGS:
        with _core.tuning(l1=tuning):
            for threads in (1, 2, 3):
                monkeypatch.setenv("REPROBLAS_NUM_THREADS", str(threads))
                for n, x, y in data:
                    for r in ROUTINES:
                        same(call(r, x, y), want[r, n],
                             f"{r} n={n} isa={isa} threads={threads} tuning={tuning}")


@pytest.mark.parametrize("isa", ISAS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_special_values(monkeypatch, ref, isa, dtype):
    monkeypatch.setenv("REPROBLAS_ISA", isa)
    big = np.finfo(dtype).max
    rng = np.random.default_rng(3)
    cases = {
        "empty": [], "one": [-2.5], "negzero": [-0.0] * 3000, "mixed_zero": [-0.0, 0.0],
        "inf": [1.0, np.inf, 2.0], "neg_inf": [1.0] * 2000 + [-np.inf],
        "both_inf": [np.inf, 1.0, -np.inf], "nan": [1.0] * 1500 + [np.nan],
        "overflow": [big, big, 1.0] * 700, "huge_nrm2": [big / 4] * 50 + [1.0],
        "tiny": list(np.finfo(dtype).smallest_subnormal * np.arange(-40, 4000)),
    }
    for name, v in cases.items():
        x = np.array(v, dtype)
        y = rng.permutation(x) if x.size else x
        for threads in (1, 3):
            monkeypatch.setenv("REPROBLAS_NUM_THREADS", str(threads))
            with _core.tuning(l1=(1024, 1)):
                for r in ROUTINES:
                    same(call(r, x, y), ref_call(ref, r, x, y),
                         f"{r} {name} isa={isa} threads={threads}")
    assert rb.sum(np.array([1.0, np.inf], dtype), order="kahan") == np.inf
    assert np.isnan(rb.sum(np.array([np.inf, -np.inf], dtype), order="kahan"))
    assert rb.sum(np.array([big, big], dtype), order="kahan") == np.inf
    assert np.signbit(rb.sum(np.array([-0.0] * 5, dtype), order="kahan"))
    assert not np.signbit(rb.sum(np.array([], dtype), order="kahan"))


@pytest.mark.parametrize("dtype", DTYPES)
def test_error_bound(dtype):
    """|S - sum| <= u |sum| + 3u sum|t| (docs/contract.md §5.5) on ill-conditioned and on
    long positive sums, the exact sum from order='exact' (itself checked against rationals
    in test_reproblas_exact.py); the sequential order's error, which grows with n, exceeds
    it on the long positive sum."""
    u = float(np.finfo(dtype).eps) / 2
    rng = np.random.default_rng(4)
    for n in (100, 3000, 50000, 400000):
        a = values(rng, n // 2, dtype)
        cancel = rng.permutation(np.concatenate([a, -a * (1 + u * 4)]).astype(dtype))
        positive = rng.uniform(0, 1, n).astype(dtype)
        for name, x in (("cancel", cancel), ("positive", positive)):
            exact = float(rb.sum(x, order="exact"))
            mag = float(rb.asum(x, order="exact"))
            err = abs(float(rb.sum(x, order="kahan")) - exact)
            assert err <= u * abs(exact) + 3 * u * mag, (name, n, err, exact, mag)
            if name == "positive" and n == 400000:
                assert abs(float(rb.sum(x)) - exact) > 10 * err + u * mag, (err, exact)


@pytest.mark.parametrize("dtype", DTYPES)
def test_axis(dtype):
    rng = np.random.default_rng(5)
    x = values(rng, 4 * 3000, dtype).reshape(4, 3000)
    y = values(rng, 4 * 3000, dtype).reshape(4, 3000)
    for r in ROUTINES:
        got = call(r, x, y, axis=1)
        for i in range(4):
            same(got[i], call(r, x[i], y[i]), f"{r} axis=1 row {i}")


@pytest.mark.parametrize("isa", ISAS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_gemv_gemm(monkeypatch, ref, isa, dtype):
    """Each element S_ij in the kahan order, scaled as docs/contract.md §2.4: the reference's
    bits, for row lengths around the chunk size, any layout, alpha and beta."""
    monkeypatch.setenv("REPROBLAS_ISA", isa)
    rng = np.random.default_rng(6)
    for k in (1, 17, 1024, 2100):
        a = values(rng, 9 * k, dtype).reshape(9, k)
        if k > 1:
            a[2, 1] = np.inf  # the pairwise sum for that row
        x = values(rng, k, dtype)
        b = values(rng, 3 * k, dtype).reshape(k, 3)
        y0 = values(rng, 9, dtype)
        c0 = values(rng, 27, dtype).reshape(9, 3)
        for threads in (1, 3):
            monkeypatch.setenv("REPROBLAS_NUM_THREADS", str(threads))
            with _core.tuning(l3={"min_work": 1}):
                for av, bv, aa, trans in ((1.0, 0.0, a, False), (-2.5, 0.5, a.T.copy(), True),
                                          (0.75, -1.0, np.asfortranarray(a), False)):
                    yv = None if bv == 0 else y0
                    same(rb.gemv(av, aa, x, bv, yv, trans=trans, order="kahan"),
                         ref.gemv(av, aa, x, bv, yv, trans=trans, order="kahan"),
                         f"gemv k={k} alpha={av} beta={bv} trans={trans} threads={threads}")
                same(rb.gemm(1.5, a, b, -0.5, c0, order="kahan"),
                     ref.gemm(1.5, a, b, -0.5, c0, order="kahan"), f"gemm k={k}")
                same(rb.gemm(1.0, a, b.T.copy(), trans_b=True, order="kahan"),
                     ref.gemm(1.0, a, b.T.copy(), trans_b=True, order="kahan"), f"gemm^T k={k}")
    got = rb.gemv(1.0, a, x, order="kahan")
    for i in range(9):
        same(got[i], rb.dot(a[i], x, order="kahan"), f"gemv row {i} = dot")


def test_order_names_and_refusals():
    x = np.arange(10.0)
    assert rb.sum(x, order="Kahan") == rb.sum(x, order="kahan") == 45.0
    with pytest.raises(ValueError, match=r"reproblas\.matmul: order='kahan': use 'sequential' or "
                                         r"'pairwise'"):
        rb.matmul(np.eye(10), np.eye(10), order="kahan")
    with pytest.raises(ValueError, match=r"reproblas\.nrm2: order='exact': use 'sequential', "
                                         r"'pairwise' or 'kahan'"):
        rb.nrm2(x, order="exact")


@pytest.mark.parametrize("dtype", DTYPES)
def test_cuda_emulated(dtype):
    """The CUDA kernels (src/cuda/reproblas/kahan.cuh, host emulation) give the CPU's bits:
    lengths around the chunk and lane sizes, more chunks than the emulated grid holds at once
    (8 blocks of 16 chunks: the grid-stride rounds), and the special values (their pairwise fallback), for every routine."""
    from cuda_support import EmuDevice
    from reproblas import _cuda
    emu = EmuDevice()
    rng = np.random.default_rng(17)
    big = np.finfo(dtype).max
    inputs = [(f"n={n}", values(rng, n, dtype)) for n in
              (1, 2, 15, 17, 1023, 1024, 1025, 3072 + 5, 9 * 1024 + 1, 130 * 1024 + 7)]
    inputs += [("negzero", np.full(1500, -0.0, dtype)), ("inf", np.array([1.0, np.inf], dtype)),
               ("both_inf", np.array([np.inf, 1.0, -np.inf] * 400, dtype)),
               ("nan", np.array([1.0] * 1500 + [np.nan], dtype)),
               ("overflow", np.array([big, big, 1.0] * 700, dtype)),
               ("huge_nrm2", np.array([big / 4] * 50 + [1.0], dtype)),
               ("tiny", np.finfo(dtype).smallest_subnormal * np.arange(-40, 1100).astype(dtype))]
    for name, x in inputs:
        y = rng.permutation(x)
        for r in ROUTINES:
            got = _cuda.reduce(emu, r, x, y if r == "dot" else None, "kahan")
            same(np.asarray(got)[()], call(r, x, y), f"cuda {r} {name}")
