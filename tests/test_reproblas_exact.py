"""order="exact" (docs/contract.md §5.4): sum, asum and dot give RN of the exact real
sum of their terms (products taken exactly), on every CPU path and thread count.

The oracle here is independent of the C code: every float is an integer multiple of
2^-149 (float32), 2^-1074 (float64), so each term becomes a Python integer at a common
scale (products at twice the scale), the integers are summed exactly, and the sum is
rounded to the format by integer arithmetic (ties to even, subnormals, overflow to inf).
"""
import math

import numpy as np
import pytest

import crlibm_py
import reproblas as rb
from reproblas import _core
import reference_lib

DTYPES = (np.float32, np.float64)
ROUTINES = ("sum", "asum", "dot")
ISAS = [pytest.param(isa, marks=pytest.mark.skipif(
    not crlibm_py.isa_supported(isa), reason=f"needs a CPU with the {isa} path"))
    for isa in rb.isa_names()]
# (piece, min_per_thread): the defaults, and splits that give each thread a few elements
TUNINGS = [(0, 0), (8, 3)]
FORMAT = {np.float32: (24, -126, 127, 149), np.float64: (53, -1022, 1023, 1074)}


# ---- the oracle ----

def _scaled(v, scale):
    """The float v (finite) as an integer multiple of 2^-scale."""
    num, den = float(v).as_integer_ratio()
    return num * ((1 << scale) // den)


def round_scaled(s, scale, dtype):
    """RN(s * 2^-scale) in dtype, s a nonzero integer: ties to even, gradual underflow,
    overflow to +-inf."""
    prec, emin, emax, _ = FORMAT[dtype]
    a = abs(s)
    e = a.bit_length() - 1 - scale          # 2^e <= |value| < 2^(e+1)
    q = max(e - prec + 1, emin - prec + 1)  # the exponent of the result's ulp
    sh = q + scale
    if sh > 0:
        m, rem, half = a >> sh, a & ((1 << sh) - 1), 1 << (sh - 1)
        if rem > half or (rem == half and m & 1):
            m += 1
    else:
        m = a << -sh
    if m.bit_length() - 1 + q > emax:
        v = math.inf
    else:
        v = math.ldexp(m, q)  # exact: m < 2^(prec + 1), the value is representable
    return dtype(-v if s < 0 else v)


def oracle(routine, x, y=None):
    """The contract's exact result of sum/asum/dot of 1-D x (and y)."""
    dtype = x.dtype.type
    scale = FORMAT[dtype][3]
    x = x.astype(np.float64) if dtype == np.float32 else x
    if routine == "asum":
        x = np.abs(x)
    if routine == "dot":
        y = y.astype(np.float64) if dtype == np.float32 else y
        finite = np.isfinite(x) & np.isfinite(y)
        with np.errstate(all="ignore"):
            special = (x * y)[~finite]  # IEEE's product of a non-finite factor
        terms = [_scaled(a, scale) * _scaled(b, scale) for a, b in zip(x[finite], y[finite])]
        scale *= 2
        negzero = [(a == 0 or b == 0) and (np.signbit(a) != np.signbit(b))
                   for a, b in zip(x[finite], y[finite])]
    else:
        finite = np.isfinite(x)
        special = x[~finite]
        terms = [_scaled(a, scale) for a in x[finite]]
        negzero = [a == 0 and np.signbit(a) for a in x[finite]]
    if np.isnan(special).any() or (np.inf in special and -np.inf in special):
        return dtype(np.nan)
    if special.size:
        return dtype(special[0])
    s = sum(terms)
    if s == 0:  # -0 only when every term is -0 (sequential IEEE sum from -0)
        return dtype(-0.0) if len(negzero) and all(negzero) else dtype(0.0)
    return round_scaled(s, scale, dtype)


def same(got, want, what):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, what
    if np.isnan(want):
        assert np.isnan(got), f"{what}: got {got!r}, want NaN"
        return
    u = {4: np.uint32, 8: np.uint64}[got.dtype.itemsize]
    assert got.view(u) == want.view(u), f"{what}: got {got!r}, want {want!r}"


# ---- inputs ----

def _spread(rng, n, dtype, lo, hi):
    """Random signs and mantissas times 2^k, k uniform in [lo, hi)."""
    m = rng.uniform(1, 2, n) * rng.choice([-1.0, 1.0], n)
    return np.ldexp(m, rng.integers(lo, hi, n)).astype(dtype)


def cases(dtype):
    """(name, x, y): adversarial and random inputs; y for dot (x is used for sum/asum)."""
    rng = np.random.default_rng(20261128)
    info = np.finfo(dtype)
    big, tiny = info.max, info.smallest_subnormal
    lo, hi = int(info.minexp) - int(info.nmant), int(info.maxexp)
    out = []

    def add(name, x, y=None):
        x = np.asarray(x, dtype)
        out.append((name, x, np.asarray(y, dtype) if y is not None else
                    rng.permutation(x).astype(dtype)))

    add("empty", [], [])
    add("one", [3.5], [-2.0])
    add("random", rng.standard_normal(1500))
    r = rng.standard_normal(800) * np.ldexp(1.0, rng.integers(-40, 40, 800))
    canc = np.concatenate([r, -r, [1e-7, -3e-9]])
    add("cancel", rng.permutation(canc), np.ones_like(canc))
    add("cancel_dot", canc, np.concatenate([r, r, [1.0, 1.0]]))
    add("range", _spread(rng, 2000, dtype, lo, hi))
    add("range_dot", _spread(rng, 700, dtype, lo // 2, hi // 2),
        _spread(rng, 700, dtype, lo // 2, hi // 2))
    add("tiny_products", _spread(rng, 300, dtype, lo, lo + 30),
        _spread(rng, 300, dtype, lo, lo + 30))
    add("huge_products", _spread(rng, 300, dtype, hi - 30, hi), _spread(rng, 300, dtype, hi - 30, hi))
    add("subnormal", rng.integers(-1000, 1000, 999) * tiny)
    add("overflow_partial", [big, big, big, -big, -big, -big, tiny, big / 2**30],
        [1.0] * 8)
    add("overflow_partial_dot", [2.0**(hi // 2 + 5)] * 3 + [-(2.0**(hi // 2 + 5))] * 3 + [3.0],
        [2.0**(hi // 2 + 5)] * 6 + [5.0])
    add("overflow_result", [big, big / 2], [1.0, 1.0])
    add("overflow_negative", [-big, -big / 2**20], [1.0, 1.0])
    ulp_max = big - np.nextafter(big, dtype(0))
    add("max_plus_half_ulp", [big, ulp_max / 2], [1.0, 1.0])  # tie, max is odd: inf
    add("max_plus_below_half", [big, ulp_max / 2, -tiny], [1.0, 1.0, 1.0])
    eps = np.finfo(dtype).eps
    add("tie_even_down", [1.0, eps / 2], [1.0, 1.0])
    add("tie_even_up", [1.0 + eps, eps / 2], [1.0, 1.0])
    add("tie_sticky", [1.0, eps / 2, tiny], [1.0, 1.0, 1.0])
    add("tie_sticky_neg", [1.0, eps / 2, -tiny], [1.0, 1.0, 1.0])
    add("neg_zeros", [-0.0] * 5, [1.0] * 5)
    add("mixed_zeros", [-0.0, 0.0, -0.0], [1.0, 1.0, 1.0])
    add("cancel_to_zero", [1.5, -1.5, 2.0**-30, -(2.0**-30)], [1.0] * 4)
    add("neg_zero_products", [0.0, -0.0, 0.0], [-1.0, 2.0, -0.0])
    add("tiny_negative_product", [-tiny], [tiny])
    add("nan", [1.0, np.nan, 2.0], [1.0, 1.0, 1.0])
    add("infs", [1.0, np.inf, -np.inf], [1.0, 1.0, 1.0])
    add("inf", [1.0, -np.inf, big], [1.0, 1.0, 1.0])
    add("inf_times_zero", [np.inf, 1.0], [0.0, 1.0])
    add("inf_products", [np.inf, -2.0], [-1.0, np.inf])
    add("subnormal_results", [tiny * 3, -tiny * 2, big * 0 + tiny], [1.0, 1.0, 1.0])
    add("round_to_subnormal", [2.0 ** (lo + 10) + tiny, -(2.0 ** (lo + 10))] if
        dtype == np.float64 else [np.float32(2.0**-140) + np.float32(tiny),
                                  -np.float32(2.0**-140)], [1.0, 1.0])
    add("long", rng.standard_normal(20000) * 1e3)
    return out


def call(routine, x, y, **kw):
    if routine == "dot":
        return getattr(rb, routine)(x, y, order="exact", **kw)
    return getattr(rb, routine)(x, order="exact", **kw)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("routine", ROUTINES)
def test_against_exact_rationals(routine, dtype):
    for name, x, y in cases(dtype):
        same(call(routine, x, y), oracle(routine, x, y if routine == "dot" else None),
             f"{routine} {name}")


@pytest.mark.parametrize("isa", ISAS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_every_path_and_thread_count(monkeypatch, isa, dtype):
    monkeypatch.setenv("REPROBLAS_ISA", isa)
    want = {(routine, name): oracle(routine, x, y if routine == "dot" else None)
            for name, x, y in cases(dtype) for routine in ROUTINES}
    for tuning in TUNINGS:
        with _core.tuning(l1=tuning):
            for threads in (1, 2, 3):
                monkeypatch.setenv("REPROBLAS_NUM_THREADS", str(threads))
                for name, x, y in cases(dtype):
                    for routine in ROUTINES:
                        same(call(routine, x, y), want[routine, name],
                             f"{routine} {name} isa={isa} threads={threads} tuning={tuning}")


@pytest.mark.parametrize("dtype", DTYPES)
def test_random_sizes_and_ranges(dtype):
    """Many random vectors of every length up to 300, magnitudes over a random window."""
    rng = np.random.default_rng(7)
    info = np.finfo(dtype)
    lo, hi = int(info.minexp) - int(info.nmant), int(info.maxexp)
    for n in range(300):
        a = int(rng.integers(lo, hi - 1))
        b = int(rng.integers(a + 1, min(a + 80, hi) + 1))
        x, y = _spread(rng, n, dtype, a, b), _spread(rng, n, dtype, (lo + a) // 2, (b + hi) // 2)
        for routine in ROUTINES:
            same(call(routine, x, y), oracle(routine, x, y if routine == "dot" else None),
                 f"{routine} n={n} window=2^[{a}, {b})")


@pytest.fixture(scope="module")
def ref(tmp_path_factory):
    try:
        return reference_lib.build(tmp_path_factory.mktemp("reference"))
    except FileNotFoundError as e:
        pytest.skip(f"needs a C compiler to build the reference: {e}")


@pytest.mark.parametrize("dtype", DTYPES)
def test_reference_definition(ref, dtype):
    """src/c/order/reference.c's exact order gives the oracle's bits, and so the library's;
    its gemv and gemm sum each output element exactly too."""
    for name, x, y in cases(dtype):
        same(ref.sum(x, "exact"), oracle("sum", x), f"reference sum {name}")
        same(ref.asum(x, "exact"), oracle("asum", x), f"reference asum {name}")
        same(ref.dot(x, y, "exact"), oracle("dot", x, y), f"reference dot {name}")
        # strided views: the same terms
        same(rb.sum(x[::-1], order="exact"), ref.sum(x[::-1].copy(), "exact"), f"strided {name}")
    rng = np.random.default_rng(3)
    a = _spread(rng, 12 * 40, dtype, -60, 60).reshape(12, 40)
    v = _spread(rng, 40, dtype, -60, 60)
    got = ref.gemv(1.0, a, v, order="exact")
    for i in range(12):
        same(got[i], oracle("dot", a[i], v), f"reference gemv row {i}")


@pytest.mark.parametrize("dtype", DTYPES)
def test_axis_and_out(dtype):
    rng = np.random.default_rng(5)
    x = _spread(rng, 6 * 50, dtype, -200, 100).reshape(6, 50)
    y = _spread(rng, 6 * 50, dtype, -100, 100).reshape(6, 50)
    for routine in ROUTINES:
        got = call(routine, x, y, axis=1)
        for i in range(6):
            same(got[i], oracle(routine, x[i], y[i] if routine == "dot" else None),
                 f"{routine} axis=1 row {i}")
        out = np.empty(50, dtype)
        r = call(routine, x, y, axis=0, out=out)
        assert r is out
        for j in range(50):
            same(out[j], oracle(routine, x[:, j], y[:, j] if routine == "dot" else None),
                 f"{routine} axis=0 column {j}")


def test_order_names_and_refusals():
    x = np.array([1.0, 2.0**60, -(2.0**60)])
    assert rb.sum(x, order="EXACT") == 1.0
    assert rb.sum(x, order="Exact") == rb.sum(x, order="exact")
    with pytest.raises(ValueError, match=r"reproblas\.nrm2: order='exact': use 'sequential', "
                                         r"'pairwise' or 'kahan'"):
        rb.nrm2(x, order="exact")
    for routine, args in (("matmul", (np.eye(3), np.eye(3))),
                          ("trsv", (np.eye(3), x))):
        with pytest.raises(ValueError, match=rf"reproblas\.{routine}: order='exact': use "
                                             r"'sequential' or 'pairwise'"):
            getattr(rb, routine)(*args, order="exact")
    with pytest.raises(ValueError, match=r"reproblas\.sum: order='exactly': use 'sequential', "
                                         r"'pairwise', 'kahan' or 'exact'"):
        rb.sum(x, order="exactly")


def test_exact_beats_both_orders():
    """The contract's §2 example: 3 is the exact sum, which neither other order gives."""
    t = np.array([1.0, 1e16, -1e16, 1.0, 1.0])
    assert rb.sum(t, order="exact") == 3.0
    assert rb.sum(t) == 2.0 and rb.sum(t, order="pairwise") == 1.0


# ---- CUDA, through the host emulation of src/cuda/reproblas/exact.cuh ----

@pytest.fixture(scope="module")
def emu():
    from cuda_support import EmuDevice
    return EmuDevice()


@pytest.mark.parametrize("dtype", DTYPES)
def test_cuda_emulated(emu, dtype):
    from reproblas import _cuda
    for name, x, y in cases(dtype):
        if name == "long":  # 20000 terms: 64 emulated blocks of 256 threads each
            x, y = x[:3000], y[:3000]
        for routine in ROUTINES:
            got = _cuda.reduce(emu, routine, x, y if routine == "dot" else None, "exact")
            same(np.asarray(got)[()], oracle(routine, x, y if routine == "dot" else None),
                 f"cuda {routine} {name}")


def test_cuda_limb_counts_match_the_header():
    """reproblas/_cuda.py sizes the scratch rows by the limb counts of src/c/order/exact.h."""
    from pathlib import Path
    import re
    from reproblas import _cuda
    text = (Path(__file__).resolve().parent.parent / "src/c/order/exact.h").read_text()
    m = re.search(r"return kind == RB_XK_F32 \? (\d+) : kind == RB_XK_F32_PROD \? (\d+) : "
                  r"kind == RB_XK_F64 \? (\d+) : (\d+);", text)
    assert m, "rb_xacc_limbs not found"
    assert [_cuda.EXACT_LIMBS[k] for k in (("f32", False), ("f32", True), ("f64", False),
                                          ("f64", True))] == [int(v) for v in m.groups()]


def _block_cases(dtype, rng):
    """Long vectors whose blocks (the SIMD kernels' 2048 terms, 1024 products) change
    magnitude, hold terms far below the rest, or an infinity/NaN in a late block, or sum
    to an exact zero (the sign then needs every term)."""
    n = 9000
    base = rng.standard_normal(n)
    jump = base.copy()
    jump[4000:] *= 2.0 ** 60          # later blocks far above the bound of the earlier ones
    drop = base.copy()
    drop[3000:] *= 2.0 ** -70         # later blocks far below it
    spread = base * np.ldexp(1.0, rng.integers(-90, 90, n))  # terms below every class
    late_inf = base.copy()
    late_inf[8500] = np.inf
    late_nan = base.copy()
    late_nan[7000] = np.nan
    zero = np.concatenate([base[:4500], -base[:4500]])
    negzero = np.full(n, -0.0)
    negzero_plus = negzero.copy()
    negzero_plus[6000] = 0.0
    tiny = np.finfo(dtype).smallest_subnormal
    sub = rng.integers(-5, 6, n) * tiny
    sub[::500] = 1.0
    for name, v in (("jump", jump), ("drop", drop), ("spread", spread), ("late_inf", late_inf),
                    ("late_nan", late_nan), ("zero", zero), ("negzero", negzero),
                    ("negzero_plus", negzero_plus), ("subnormal_and_one", sub)):
        x = v.astype(dtype)
        yield name, x, np.ones(n, dtype)
        yield name + "_y", np.ones(n, dtype), x
        yield name + "_xy", x, rng.permutation(x)


@pytest.mark.parametrize("isa", ISAS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_kernel_blocks(monkeypatch, isa, dtype):
    monkeypatch.setenv("REPROBLAS_ISA", isa)
    rng = np.random.default_rng(11)
    for name, x, y in _block_cases(dtype, rng):
        for threads in (1, 3):
            monkeypatch.setenv("REPROBLAS_NUM_THREADS", str(threads))
            with _core.tuning(l1=(8, 1000)):
                for routine in ROUTINES:
                    if routine != "dot" and name.endswith(("_y", "_xy")):
                        continue
                    same(call(routine, x, y), oracle(routine, x, y if routine == "dot" else None),
                         f"{routine} {name} isa={isa} threads={threads}")


# ---- gemv and gemm: every element an exact dot, scaled as docs/contract.md §2.4 ----

@pytest.mark.parametrize("isa", ISAS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_gemv_gemm(monkeypatch, ref, isa, dtype):
    monkeypatch.setenv("REPROBLAS_ISA", isa)
    rng = np.random.default_rng(13)
    lo, hi = (-60, 60)
    a = _spread(rng, 37 * 300, dtype, lo, hi).reshape(37, 300)
    a[3, :150] = -a[3, 150:]        # a row that cancels to zero
    a[5, 7] = np.inf                # IEEE's rules for one row
    x = _spread(rng, 300, dtype, lo, hi)
    b = _spread(rng, 300 * 4, dtype, lo, hi).reshape(300, 4)
    y0 = _spread(rng, 37, dtype, -5, 5)
    for threads in (1, 3):
        monkeypatch.setenv("REPROBLAS_NUM_THREADS", str(threads))
        with _core.tuning(l3={"min_work": 1}):
            got = rb.gemv(1.0, a, x, order="exact")
            for i in range(37):
                same(got[i], oracle("dot", a[i], x), f"gemv row {i} threads={threads}")
            for av, bv, trans, aa, xx in ((2.5, 0.0, False, a, x),
                                          (-0.75, 1.5, False, np.asfortranarray(a), x),
                                          (1.0, -2.0, True, a.T.copy(), x[::-1][::-1]),
                                          (3.0, 0.5, False, a, np.repeat(x, 2)[::2])):
                yv = None if bv == 0 else y0.copy()
                got = rb.gemv(av, aa, xx, bv, yv, trans=trans, order="exact")
                want = ref.gemv(av, aa, xx, bv, y0 if bv else None, trans=trans, order="exact")
                for i in range(37):
                    same(got[i], want[i], f"gemv alpha={av} beta={bv} trans={trans} row {i}")
            got = rb.gemm(1.0, a, b, order="exact")
            for i in range(37):
                for j in range(4):
                    same(got[i, j], oracle("dot", a[i], b[:, j]), f"gemm ({i}, {j})")
            c = _spread(rng, 37 * 4, dtype, -3, 3).reshape(37, 4)
            got = rb.gemm(-1.5, a, b.T.copy(), 0.25, c, trans_b=True, order="exact")
            want = ref.gemm(-1.5, a, b.T.copy(), 0.25, c, trans_b=True, order="exact")
            for i in range(37):
                for j in range(4):
                    same(got[i, j], want[i, j], f"gemm scaled ({i}, {j})")
    with pytest.raises(ValueError, match=r"reproblas\.matmul: order='exact'"):
        rb.matmul(a, b, order="exact")


def test_cuda_products_take_the_new_orders():
    """gemv/gemm on CUDA arrays run the orders' own kernels (exact_gemm.cuh, kahan_gemm.cuh;
    tests/test_cuda_emu_extra_orders.py covers them), not another order's: the CPU's bits."""
    from cuda_support import EmuDevice, same_bits
    from reproblas import _cuda
    a = np.array([[1.0, 1e16, -1e16], [1.0, 2.0, 3.0], [-0.0, 0.0, 5e-324]])
    b = np.array([[1.0, 1.0, 2.0], [1.0, -1.0, 0.5], [1.0, 1.0, 0.25]])
    for order in ("exact", "kahan"):
        c = np.zeros((3, 3))
        _cuda.gemm(EmuDevice(), order, 1.0, a, False, b, False, 0.0, c)
        same_bits(c, rb.gemm(1.0, a, b, order=order))
        c = np.zeros((3, 1))
        _cuda.gemm(EmuDevice(), order, 1.0, a, False, b[:, :1], False, 0.0, c)
        same_bits(c[:, 0], rb.gemv(1.0, a, b[:, 0], order=order))
    assert rb.gemv(1.0, a, b[:, 0], order="exact")[0] == 1.0  # not the sequential 0.0


@pytest.mark.parametrize("order", ["exact", "kahan"])
def test_gemm_interrupted(order):
    """Ctrl-C stops a long gemm in the new orders too, and the next call gives the bits of
    an uninterrupted one (tests/test_interrupt.py's protocol)."""
    from test_interrupt import run_interrupted
    setup = f"""
        import reproblas
        rng = np.random.default_rng(1)
        sa = rng.standard_normal((120, 300)).astype(np.float32)
        sb = rng.standard_normal((300, 130)).astype(np.float32)
        before = reproblas.gemm(1.0, sa, sb, order="{order}")
        big = np.ones((3000, 3000), np.float32)
        """
    run_interrupted(setup, f'reproblas.gemm(1.0, big, big, order="{order}")',
                    f'reproblas.gemm(1.0, sa, sb, order="{order}")',
                    {"REPROBLAS_NUM_THREADS": "2"}, bound=3.0)


def test_public_api_on_emulated_gpu_arrays(monkeypatch):
    """reproblas.sum/asum/dot(order='exact') on (emulated) GPU arrays route to the CUDA
    kernels and give the CPU's bits, axis= included, as kahan's sum and nrm2 and the exact
    gemv."""
    from cuda_support import EmuDevice, emu_array, same_bits
    from repro_runtime import cuda as rt_cuda
    monkeypatch.setattr(rt_cuda, "_device", [EmuDevice()])
    rng = np.random.default_rng(21)
    for dtype in DTYPES:
        x = _spread(rng, 2 * 700, dtype, -100, 100).reshape(2, 700)
        y = _spread(rng, 2 * 700, dtype, -100, 100).reshape(2, 700)
        for routine in ROUTINES:
            args = (x[0], y[0]) if routine == "dot" else (x[0],)
            got = getattr(rb, routine)(*map(emu_array, args), order="exact")
            same(np.asarray(got)[()], call(routine, x[0], y[0]), f"gpu {routine}")
            args2 = (x, y) if routine == "dot" else (x,)
            got = getattr(rb, routine)(*map(emu_array, args2), order="exact", axis=1)
            for i in range(2):
                same(np.asarray(got)[i], call(routine, x[i], y[i]), f"gpu {routine} axis row {i}")
        for routine in ("sum", "nrm2"):  # kahan: the CUDA kernels too (test_reproblas_kahan)
            same(np.asarray(getattr(rb, routine)(emu_array(x[0]), order="kahan"))[()],
                 getattr(rb, routine)(x[0], order="kahan"), f"gpu kahan {routine}")
        a2 = x[:, :2].T.copy()
        same_bits(rb.gemv(1.0, emu_array(a2), emu_array(x[:, 0]), order="exact"),
                  rb.gemv(1.0, a2, x[:, 0], order="exact"))


@pytest.mark.parametrize("isa", ISAS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_nan_inside_long_blocks(monkeypatch, isa, dtype):
    """A NaN deep inside a block of zeros, of ones, or of wide-range terms (where a vector
    path's block bound may not see it) gives NaN in every routine, as IEEE's sum would."""
    monkeypatch.setenv("REPROBLAS_ISA", isa)
    rng = np.random.default_rng(23)
    n = 5000
    for name, base in (("zeros", np.zeros(n)), ("ones", np.ones(n)),
                       ("range", _spread(rng, n, dtype, -60, 60))):
        for at in (37, 1500, 4099):
            x = base.astype(dtype)
            x[at] = np.nan
            ones = np.ones(n, dtype)
            for routine, args in (("sum", (x,)), ("asum", (x,)), ("dot", (x, ones)),
                                  ("dot", (ones, x))):
                got = getattr(rb, routine)(*args, order="exact")
                assert np.isnan(got), f"{routine} {name} NaN at {at} isa={isa}: got {got!r}"


# ---- cumsum (contract §5.4: each prefix the exact sum of its terms, rounded once) ----

@pytest.mark.parametrize("dtype", DTYPES)
def test_cumsum_prefixes_against_exact_rationals(dtype):
    for name, x, _ in cases(dtype):
        x = x[:40]  # every prefix against the rational oracle
        got = rb.cumsum(x, order="exact")
        ex = rb.cumsum(x, order="exact", exclusive=True)
        for k in range(x.size):
            same(got[k], oracle("sum", x[:k + 1]), f"cumsum {name} prefix {k}")
            same(ex[k], oracle("sum", x[:k]), f"exclusive cumsum {name} prefix {k}")


@pytest.mark.parametrize("isa", ISAS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_cumsum_every_path_thread_count_and_layout(monkeypatch, isa, dtype):
    """Every prefix equals the exact sum of its terms (itself checked against the
    rationals above), on 2-D arrays scanned along either axis, in place too."""
    rng = np.random.default_rng(11)
    info = np.finfo(dtype)
    a = (rng.standard_normal((7, 300)) *
         np.exp2(rng.integers(info.minexp, info.maxexp - 10, (7, 300)))).astype(dtype)
    a[2, 5], a[3, 7], a[3, 9], a[4, :] = np.inf, np.nan, -np.inf, -0.0
    want = np.stack([[rb.sum(row[:k + 1], order="exact") for k in range(row.size)] for row in a])
    monkeypatch.setenv("REPROBLAS_ISA", isa)
    u = {4: np.uint32, 8: np.uint64}[np.dtype(dtype).itemsize]
    for threads in ("1", "3"):
        monkeypatch.setenv("REPROBLAS_NUM_THREADS", threads)
        for got in (rb.cumsum(a, order="exact"),
                    rb.cumsum(np.asfortranarray(a.T), axis=0, order="exact").T):
            nan = np.isnan(want)
            assert (np.isnan(got) == nan).all()
            assert (got.view(u)[~nan] == want.view(u)[~nan]).all()
        b = a.copy()
        assert rb.cumsum(b, order="exact", exclusive=True, out=b) is b
        assert (b[:, 0].view(u) == 0).all()
        assert (b[:, 1:][~nan[:, :-1]].view(u) == want[:, :-1][~nan[:, :-1]].view(u)).all()


def test_exact_scans_on_emulated_gpu_arrays():
    x = np.ones(4)
    from cuda_support import EmuDevice, emu_array, same_bits
    from repro_runtime import cuda as rt_cuda
    old = list(rt_cuda._device)
    rt_cuda._device[:] = [EmuDevice()]
    try:  # GPU arrays take the exact scans (tests/test_cuda_emu_extra_orders.py, _scan_extra)
        same_bits(rb.cumsum(emu_array(x), order="exact"), rb.cumsum(x, order="exact"))
        same_bits(rb.cumprod(emu_array(x), order="exact"), rb.cumprod(x, order="exact"))
    finally:
        rt_cuda._device[:] = old
