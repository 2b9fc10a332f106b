"""reproblas level 1 against the literal contract reference, bit for bit, on every
CPU path and thread count (test_reproblas_reference.py)."""
import ctypes
import ctypes.util

import numpy as np
import pytest

import reproblas as rb
from reproblas import _core
import test_reproblas_reference as ref

DTYPES = [np.float32, np.float64]
ORDERS = ["sequential", "pairwise"]
REDUCTIONS = ["sum", "asum", "dot", "nrm2"]
ISAS = [name for name in _core.isa_names() if _core.isa_code(name) >= 0]
THREADS = [1, 2, 3, 4]
# Lengths around the lane widths (4..16), unroll (4 vectors) and the test split sizes.
LENGTHS = sorted({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128,
                  129, 255, 256, 257, 511, 512, 513, 1000, 1023, 1024, 1025, 2047, 2049, 3333,
                  4096, 4097, 6000})


@pytest.fixture(autouse=True)
def small_splits():
    """Pieces of 64 terms and 50 elements per thread, so that thread splits and
    the piece tree happen on short vectors (for this test only)."""
    with _core.tuning(l1=(64, 50)):
        yield


def data(rng, n, dtype):
    """Values of spread-out magnitudes and both signs: the order of additions
    changes the rounded result, so a wrong order cannot pass."""
    return (rng.standard_normal(n) * 2.0 ** rng.integers(-12, 13, n)).astype(dtype)


def call(routine, x, y, order, isa, threads, monkeypatch):
    monkeypatch.setenv("REPROBLAS_ISA", isa)
    monkeypatch.setenv("REPROBLAS_NUM_THREADS", str(threads))
    f = getattr(rb, routine)
    return f(x, y, order=order) if routine == "dot" else f(x, order=order)


def check_all_paths(routine, x, y, order, monkeypatch):
    """Every path and thread count, with the small test splits and with the
    default ones (whole vectors up to 2^15 terms go through one kernel call)."""
    want = ref.reduce(routine, x, y, order)
    for tuning in ((64, 50), (0, 0)):
        with _core.tuning(l1=tuning):
            for isa in ISAS:
                for threads in THREADS:
                    got = call(routine, x, y, order, isa, threads, monkeypatch)
                    assert type(got) is x.dtype.type
                    assert ref.same_bits(got, want), (routine, order, isa, threads, tuning, len(x))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("routine", REDUCTIONS)
def test_reductions_match_reference(routine, order, dtype, monkeypatch):
    rng = np.random.default_rng([REDUCTIONS.index(routine), ORDERS.index(order), dtype(0).nbytes])
    for n in LENGTHS + [int(v) for v in rng.integers(1, 3000, 4)]:
        x, y = data(rng, n, dtype), data(rng, n, dtype)
        check_all_paths(routine, x, y if routine == "dot" else None, order, monkeypatch)


@pytest.mark.parametrize("dtype", DTYPES)
def test_orders_differ_on_test_data(dtype):
    """The data above separates the two orders (else the tests could not see a swap)."""
    rng = np.random.default_rng(5)
    x, y = data(rng, 1000, dtype), data(rng, 1000, dtype)
    for routine in REDUCTIONS:
        yy = y if routine == "dot" else None
        differ = sum(not ref.same_bits(ref.reduce(routine, x[:n], None if yy is None else yy[:n],
                                                  "sequential"),
                                       ref.reduce(routine, x[:n], None if yy is None else yy[:n],
                                                  "pairwise"))
                     for n in range(100, 1001, 100))
        # positive terms (asum) and the square root (nrm2) hide some differences
        assert differ >= 3, (routine, differ)


@pytest.mark.parametrize("dtype", DTYPES)
def test_long_vectors_default_splits(dtype, monkeypatch):
    """Default split sizes on 2^20 + 12345 elements (several pieces per thread)."""
    with _core.tuning(l1=(0, 0)):
        rng = np.random.default_rng(7)
        n = (1 << 20) + 12345
        x, y = data(rng, n, dtype), data(rng, n, dtype)
        for routine in REDUCTIONS:
            yy = y if routine == "dot" else None
            want = {"pairwise": ref.reduce(routine, x, yy, "pairwise")}
            if routine in ("sum", "asum"):  # the fma chains are too slow in Python here
                want["sequential"] = ref.reduce(routine, x, yy, "sequential")
            results = {(o, isa, t): call(routine, x, yy, o, isa, t, monkeypatch)
                       for o in ORDERS for isa in ISAS for t in THREADS}
            for (o, isa, t), got in results.items():
                expected = want.get(o, results[(o, ISAS[0], 1)])
                assert ref.same_bits(got, expected), (routine, o, isa, t)


def strided(rng, values, stride):
    """A view with the given element stride (negative allowed) holding values in index order."""
    n = len(values)
    base = data(rng, max(1, n * abs(stride) + 3), values.dtype)
    view = base[1::stride] if stride > 0 else base[::stride][1:]
    view = view[:n]
    view[...] = values
    return view


@pytest.mark.parametrize("dtype", DTYPES)
def test_strides(dtype, monkeypatch):
    rng = np.random.default_rng(11)
    for trial in range(40):
        n = int(rng.integers(0, 700))
        sx, sy = (int(rng.choice([-3, -2, -1, 1, 2, 5])) for _ in range(2))
        x, y = data(rng, n, dtype), data(rng, n, dtype)
        xv, yv = strided(rng, x, sx), strided(rng, y, sy)
        assert np.array_equal(xv, x) and xv.strides[0] == sx * x.itemsize
        for routine in REDUCTIONS:
            for order in ORDERS:
                got = call(routine, xv, yv if routine == "dot" else None, order, ISAS[-1], 2,
                           monkeypatch)
                want = ref.reduce(routine, x, y if routine == "dot" else None, order)
                assert ref.same_bits(got, want), (routine, order, n, sx, sy)
        if n:
            assert rb.iamax(xv) == ref.iamax(x)
        alpha = dtype(rng.standard_normal())
        out = rb.axpy(alpha, xv, yv)
        assert out is yv and ref.same_bits(yv, ref.axpy(alpha, x, y))
        assert rb.scal(alpha, xv) is xv and ref.same_bits(xv, ref.scal(alpha, x))


SPECIALS = {
    np.float32: [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 3.0, -0.5, 3.4028235e38,
                 -3.4028235e38, 1.1754944e-38, 1.4e-45, -1.4e-45, 7e-45, 1e-40, 1e30, -1e30],
    np.float64: [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 3.0, -0.5, 1.7976931348623157e308,
                 -1.7976931348623157e308, 2.2250738585072014e-308, 5e-324, -5e-324, 1.5e-323,
                 1e-310, 1e300, -1e300],
}


@pytest.mark.parametrize("dtype", DTYPES)
def test_special_values(dtype, monkeypatch):
    """Signed zeros, infinities, NaN, subnormals and overflow, mixed at random."""
    rng = np.random.default_rng(13)
    pool = np.array(SPECIALS[dtype], dtype=dtype)
    for trial in range(150):
        n = int(rng.integers(0, 40))
        # some draws without NaN/inf so that the finite special cases show
        choices = pool if trial % 3 else pool[np.isfinite(pool)]
        x, y = rng.choice(choices, n), rng.choice(choices, n)
        for routine in REDUCTIONS:
            for order in ORDERS:
                got = call(routine, x, y if routine == "dot" else None, order, ISAS[trial % len(ISAS)],
                           1 + trial % 3, monkeypatch)
                want = ref.reduce(routine, x, y if routine == "dot" else None, order)
                assert ref.same_bits(got, want), (routine, order, x, y, got, want)
        if n:
            assert rb.iamax(x) == ref.iamax(x), x
        alpha = rng.choice(pool)
        assert ref.same_bits(rb.axpy(alpha, x, y.copy()), ref.axpy(alpha, x, y))
        assert ref.same_bits(rb.scal(alpha, x.copy()), ref.scal(alpha, x))


@pytest.mark.parametrize("dtype", DTYPES)
def test_signed_zero_results(dtype):
    z, nz = dtype(0.0), dtype(-0.0)
    for order in ORDERS:
        assert ref.same_bits(rb.sum(np.array([], dtype), order=order), z)
        assert ref.same_bits(rb.dot(np.array([], dtype), np.array([], dtype), order=order), z)
        assert ref.same_bits(rb.sum(np.array([nz], dtype), order=order), nz)
        assert ref.same_bits(rb.sum(np.array([nz, nz, nz], dtype), order=order), nz)
        assert ref.same_bits(rb.sum(np.array([nz, z], dtype), order=order), z)
        # first product rounded (-0), then fma(-0, 1, -0) = -0
        assert ref.same_bits(rb.dot(np.array([nz, nz], dtype), np.array([1, 1], dtype),
                                    order=order), nz)
        assert ref.same_bits(rb.nrm2(np.array([nz, nz], dtype), order=order), z)
        assert ref.same_bits(rb.asum(np.array([nz], dtype), order=order), z)


@pytest.mark.parametrize("dtype", DTYPES)
def test_nrm2_scaling(dtype):
    big = np.finfo(dtype).max
    tiny = np.finfo(dtype).smallest_subnormal
    huge = dtype(2.0 ** (np.finfo(dtype).maxexp - 4))
    for order in ORDERS:
        # no overflow or underflow in the squares
        assert rb.nrm2(np.array([3, 4], dtype) * huge, order=order) == dtype(5) * huge
        assert rb.nrm2(np.array([3, 4], dtype) * dtype(tiny), order=order) == dtype(5) * tiny
        assert np.isinf(rb.nrm2(np.array([big, big], dtype), order=order))  # true overflow
        assert np.isnan(rb.nrm2(np.array([np.inf, np.nan], dtype), order=order))
        assert rb.nrm2(np.array([-np.inf, 1], dtype), order=order) == np.inf
        assert rb.nrm2(np.array([], dtype), order=order) == 0


@pytest.mark.parametrize("dtype", DTYPES)
def test_iamax_rules(dtype):
    a = lambda *v: np.array(v, dtype)  # noqa: E731
    assert rb.iamax(a(1, -3, 3, 2)) == 1
    assert rb.iamax(a(1, np.inf, -np.inf, np.nan, np.nan)) == 3
    assert rb.iamax(a(-np.inf, np.inf)) == 0
    assert rb.iamax(a(-0.0, 0.0)) == 0
    assert rb.iamax(a(*([1] * 100 + [np.nan]))) == 100
    assert type(rb.iamax(a(1))) is int
    with pytest.raises(ValueError, match="empty"):
        rb.iamax(a())


@pytest.mark.parametrize("dtype", DTYPES)
def test_axpy_scal_match_reference(dtype, monkeypatch):
    rng = np.random.default_rng(17)
    for n in LENGTHS:
        x, y = data(rng, n, dtype), data(rng, n, dtype)
        alpha = dtype(rng.standard_normal() * 3)
        want_axpy, want_scal = ref.axpy(alpha, x, y), ref.scal(alpha, x)
        for isa in ISAS:
            for threads in THREADS:
                monkeypatch.setenv("REPROBLAS_ISA", isa)
                monkeypatch.setenv("REPROBLAS_NUM_THREADS", str(threads))
                yy, xx = y.copy(), x.copy()
                assert rb.axpy(alpha, x, yy) is yy and ref.same_bits(yy, want_axpy)
                assert rb.scal(alpha, xx) is xx and ref.same_bits(xx, want_scal)


def test_axpy_overlap_reads_old_values():
    base = np.arange(10, dtype=np.float64)
    x, y = base[:-1], base[1:]
    want = ref.axpy(2.0, x.copy(), y.copy())
    rb.axpy(2.0, x, y)
    assert ref.same_bits(y, want)
    z = np.arange(5, dtype=np.float32)
    assert ref.same_bits(rb.axpy(np.float32(3), z, z), np.arange(5, dtype=np.float32) * 4)


def test_fma_and_rounding_of_alpha():
    # axpy fuses: 1 + eps^2 survives in the low part only with one rounding
    eps = np.finfo(np.float64).eps
    x, y = np.array([1 + eps]), np.array([-(1 + 2 * eps)])
    assert rb.axpy(1 + eps, x, y)[0] == eps * eps
    # a Python float alpha is rounded to the arrays' dtype (NumPy's rule for Python scalars)
    y32 = np.zeros(1, np.float32)
    assert rb.axpy(0.1, np.ones(1, np.float32), y32)[0] == np.float32(0.1)


def _libm_fesetround():
    lib = ctypes.CDLL(ctypes.util.find_library("m"))
    return lib.fesetround, lib.fegetround


def test_caller_rounding_mode_ignored():
    fesetround, fegetround = _libm_fesetround()
    rng = np.random.default_rng(19)
    x, y = data(rng, 5000, np.float32), data(rng, 5000, np.float32)
    routines = [lambda o: rb.sum(x, order=o), lambda o: rb.dot(x, y, order=o),
                lambda o: rb.nrm2(x, order=o), lambda o: rb.asum(y, order=o)]
    want = [f(o) for f in routines for o in ORDERS]
    alpha = np.float32(0.3)  # converted here: the conversion itself obeys the rounding mode
    want_axpy = rb.axpy(alpha, x, y.copy())
    old = fegetround()
    for mode in (0x400, 0x800, 0xC00):  # x86 FE_DOWNWARD, FE_UPWARD, FE_TOWARDZERO
        assert fesetround(mode) == 0
        try:
            got = [f(o) for f in routines for o in ORDERS]
            got_axpy = rb.axpy(alpha, x, y.copy())
            still = fegetround()
        finally:
            fesetround(old)
        assert still == mode  # the caller's mode is restored
        assert all(ref.same_bits(g, w) for g, w in zip(got, want))
        assert ref.same_bits(got_axpy, want_axpy)


def test_caller_ftz_daz_ignored():
    """A caller running with flush-to-zero and denormals-are-zero gets the same bits."""
    rng = np.random.default_rng(23)
    tiny = np.finfo(np.float64).smallest_subnormal
    x = rng.standard_normal(3000) * tiny * 2.0 ** 40  # subnormal and small normal values
    y = rng.standard_normal(3000)
    x32 = (rng.standard_normal(3000) * 1e-39).astype(np.float32)

    def run():
        return [rb.sum(x, order=o) for o in ORDERS] + [rb.dot(x, y, order=o) for o in ORDERS] + \
               [rb.nrm2(x, order=o) for o in ORDERS] + [rb.asum(x32, order=o) for o in ORDERS] + \
               [rb.nrm2(x32, order=o) for o in ORDERS] + [rb.axpy(np.float32(0.5), x32, x32.copy())]

    want = run()
    ftz_daz = 0x1F80 | 0x8000 | 0x0040  # default | FTZ | DAZ
    out = _core.call_with_mxcsr(ftz_daz, run)
    if out is None:
        pytest.skip("needs an x86 CPU (the MXCSR FTZ/DAZ bits exist on x86 only)")
    got, after = out
    assert after == ftz_daz  # the caller's FTZ/DAZ are restored
    assert any(r != 0 for r in want[:-1])
    for g, w in zip(got, want):
        assert ref.same_bits(g, w)
    # the reference agrees: subnormals are honoured, not flushed
    assert ref.same_bits(want[0], ref.reduce("sum", x, None, "sequential"))


@pytest.mark.parametrize("dtype", DTYPES)
def test_pairwise_kernel_blocks(dtype, monkeypatch):
    """The pairwise kernels fold blocks of W*W*4 terms (W lanes: 4 scalar,
    64 float64 / 256 float32 AVX2, 256 / 1024 AVX-512) with a transposed
    stream layout, and shorter stretches apart: lengths at and around block
    multiples and the default piece (2^15), whole vectors in one kernel call;
    then long vectors of special values (signed zeros, infinities, NaN,
    subnormals), where every lane of a block carries one."""
    with _core.tuning(l1=(0, 0)):
        rng = np.random.default_rng(17)
        for n in (64, 65, 255, 256, 257, 768, 1024 + 255, 2048, 5 * 1024 + 1, (1 << 15) - 1,
                  (1 << 15) + 257):
            x, y = data(rng, n, dtype), data(rng, n, dtype)
            for routine in REDUCTIONS:
                yy = y if routine == "dot" else None
                want = ref.reduce(routine, x, yy, "pairwise")
                for isa in ISAS:
                    for threads in (1, 2):
                        got = call(routine, x, yy, "pairwise", isa, threads, monkeypatch)
                        assert ref.same_bits(got, want), (routine, isa, threads, n)
        pool = np.array(SPECIALS[dtype], dtype=dtype)
        for trial in range(12):
            n = int(rng.integers(256, 3000))
            choices = pool if trial % 2 else pool[np.isfinite(pool)]
            if trial % 4 == 0:  # only zeros: the sign of the root depends on every term
                choices = np.array([0.0, -0.0], dtype=dtype) if trial % 8 else np.array([-0.0], dtype)
            x, y = rng.choice(choices, n), rng.choice(choices, n)
            for routine in REDUCTIONS:
                yy = y if routine == "dot" else None
                want = ref.reduce(routine, x, yy, "pairwise")
                for isa in ISAS:
                    got = call(routine, x, yy, "pairwise", isa, 1, monkeypatch)
                    assert ref.same_bits(got, want), (routine, isa, n, trial)


def test_python_float_alpha_rounded_in_the_library_environment():
    """A Python float alpha/beta is rounded to float32 in the library's environment: the
    caller's rounding mode or FTZ cannot change it (0.1 rounded down, 1e-40 flushed)."""
    fesetround, fegetround = _libm_fesetround()
    a32 = np.ones((2, 2), np.float32)
    one = np.ones(1, np.float32)

    def run():
        return [rb.scal(0.1, one.copy()), rb.scal(1e-40, one.copy()),
                rb.axpy(0.1, one, one.copy()),
                rb.gemm(0.1, a32, a32, beta=1e-40, c=a32.copy())]

    want = run()
    assert want[1].view(np.uint32)[0] == np.float32(1e-40).view(np.uint32)  # kept subnormal
    old = fegetround()
    for mode in (0x400, 0x800, 0xC00):
        assert fesetround(mode) == 0
        try:
            got = run()
        finally:
            fesetround(old)
        assert all(ref.same_bits(g, w) for g, w in zip(got, want)), mode
    out = _core.call_with_mxcsr(0x1F80 | 0x8000 | 0x0040, run)
    if out is not None:
        assert all(ref.same_bits(g, w) for g, w in zip(out[0], want))
