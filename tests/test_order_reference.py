"""Every reproblas routine against its executable definition, bit for bit.

The definition is src/c/order/reference.c: plain scalar C over the primitives of
src/c/order/order.h (tests/reference_lib.py builds it at test time). Each routine,
both orders, both dtypes, is compared on every CPU path (REPROBLAS_ISA), 1 and 3
threads and small work splits (so that the threads and the kernels' blocks cut
short operands), over sizes around the trees' and kernels' block boundaries,
special values and any NumPy layout; then the CUDA kernels through the host
emulation. The reference itself is checked against the contract's worked
examples and the independent Python reference (test_reproblas_reference.py)."""
import ctypes
import platform
import subprocess

import numpy as np
import pytest

import crlibm_py
import reproblas as rb
from reproblas import _core, _cuda
import reference_lib
import test_reproblas_reference as pyref
from cuda_support import emu_array
from test_cuda_emu_api import _emu, gpu  # noqa: F401 (fixtures: GPU arrays to the emulator)

DTYPES = (np.float32, np.float64)
ORDERS = ("sequential", "pairwise")
ISA_PARAMS = [pytest.param(isa, marks=pytest.mark.skipif(
    not crlibm_py.isa_supported(isa),
    reason=f"needs a CPU with the {isa} path (this one lacks it; its other paths are tested)"))
    for isa in rb.isa_names()]
THREADS = (1, 3)
# Work-split knobs (never change a result): defaults, and splits small enough that
# threads, pieces and kernel blocks cut the short operands of these tests.
L1_TUNINGS = [(0, 0), (64, 50), (8, 16)]
L3_TUNINGS = [(0, 0, 0, 0), (40, 30, 8, 1, 2400), (1, 1, 3, 1)]
TRSM_TUNINGS = [((0, 0), (0, 0, 0, 0)), ((1, 1), (1, 1, 3, 1)), ((4, 3), (5, 4, 3, 1))]
CONV_TUNINGS = [(0, 0, 0, 0, 0), (1, 2, 1, -1, 1), (7, 5, 1, 5, 60)]
LENGTHS = [0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255,
           256, 257, 1000, 1023, 1024, 1025, 4096, 4097, 6001]


@pytest.fixture(scope="session")
def ref(tmp_path_factory):
    try:
        return reference_lib.build(tmp_path_factory.mktemp("reference"))
    except FileNotFoundError as e:
        pytest.skip(f"needs a C compiler to build the reference (src/c/order/reference.c): {e}")


def each_path(monkeypatch, isa, tunings, tune):
    """The loop body under each tuning and thread count on the path isa."""
    monkeypatch.setenv("REPROBLAS_ISA", isa)
    for tuning in tunings:
        with tune(tuning):
            for t in THREADS:
                monkeypatch.setenv("REPROBLAS_NUM_THREADS", str(t))
                yield f"isa={isa} threads={t} tuning={tuning}"


def l1_paths(monkeypatch, isa):
    return each_path(monkeypatch, isa, L1_TUNINGS, lambda t: _core.tuning(l1=t))


def l3_paths(monkeypatch, isa):
    return each_path(monkeypatch, isa, L3_TUNINGS, lambda t: _core.tuning(l3=t))


def trsm_paths(monkeypatch, isa):
    return each_path(monkeypatch, isa, TRSM_TUNINGS, lambda t: _core.tuning(trsm=t[0], l3=t[1]))


def conv_paths(monkeypatch, isa):
    return each_path(monkeypatch, isa, CONV_TUNINGS, lambda t: _core.tuning(conv=t))


def same(got, want, what):
    """Bitwise equality; every NaN equals every NaN (docs/contract.md, reproblas)."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, \
        f"{what}: got {got.dtype}{got.shape}, want {want.dtype}{want.shape}"
    u = {4: np.uint32, 8: np.uint64}[got.dtype.itemsize]
    g, w = got.reshape(-1).view(u), want.reshape(-1).view(u)
    bad = np.nonzero((g != w) & ~(np.isnan(got.reshape(-1)) & np.isnan(want.reshape(-1))))[0]
    assert bad.size == 0, (f"{what}: {bad.size} of {g.size} differ; first at {bad[:5]}: got "
                           f"{got.reshape(-1)[bad[:5]]!r}, want {want.reshape(-1)[bad[:5]]!r}")


def values(rng, shape, dtype, special=False):
    """Spread magnitudes and both signs (a wrong order changes the bits); special:
    about one element in eight is NaN, ±inf, ±0, a subnormal or near overflow."""
    x = (rng.standard_normal(shape) * np.exp2(rng.integers(-12, 13, shape))).astype(dtype)
    if special:
        fi = np.finfo(dtype)
        pick = rng.random(shape) < 0.125
        x[pick] = rng.choice(np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, fi.smallest_subnormal,
                                       -3 * fi.smallest_subnormal, fi.tiny, fi.max, -fi.max / 2],
                                      dtype), int(pick.sum()))
    return x


def layout(x, kind):
    """A copy of x's values in a memory layout: C, F, strided (every other element),
    reversed."""
    if kind in ("C", "F"):
        return np.array(x, order=kind, copy=True)
    if kind == "strided":
        big = np.zeros(tuple(2 * s + 1 for s in x.shape), x.dtype)
        view = big[(slice(1, None, 2),) * x.ndim]
        view[...] = x
        return view
    rev = (slice(None, None, -1),) * x.ndim
    return x[rev].copy()[rev]


LAYOUTS = ("C", "F", "strided", "reversed")


# ---- the reference against the contract's own examples and the Python reference ----

def test_reference_contract_examples(ref):
    t = np.array([1.0, 1e16, -1e16, 1.0, 1.0])
    assert ref.sum(t, "sequential") == 2.0 and ref.sum(t, "pairwise") == 1.0
    for order in ORDERS:
        for dtype in DTYPES:
            assert np.signbit(ref.sum(np.array([-0.0], dtype), order))
            assert not np.signbit(ref.sum(np.zeros(0, dtype), order))
            assert not np.signbit(ref.dot(np.zeros(0, dtype), np.zeros(0, dtype), order))
            assert np.signbit(ref.dot(np.array([-0.0], dtype), np.array([1.0], dtype), order))
    # nrm2 scales: sqrt(dot) would overflow
    assert ref.nrm2(np.array([3e200, 4e200]), "sequential") == 4.9999999999999995e+200
    # sequential adds each product exactly: (1+e)^2 - (1+2e) = e^2
    e = 2.0 ** -52
    a, b = np.array([-1.0, 1 + e]), np.array([1 + 2 * e, 1 + e])
    assert ref.dot(a, b, "sequential") == e * e and ref.dot(a, b, "pairwise") == 0.0
    # padding terms are absent: at the left edge, [2^53, 1, 1] is (2^53 ⊕ 1) ⊕ 1 = 2^53
    x = np.array([2.0 ** 53, 1.0, 1.0]).reshape(1, 1, 1, 3)
    w = np.ones((1, 1, 1, 4))
    y = ref.conv2d(x, w, padding=(0, 1), order="pairwise")
    assert y[0, 0, 0, 0] == 2.0 ** 53
    # beta = 0: c is not read
    c = np.full((2, 2), np.nan)
    same(ref.gemm(1.0, np.eye(2), np.eye(2), -0.0, c), np.eye(2), "gemm beta=-0")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order", ORDERS)
def test_reference_agrees_with_python_reference(ref, dtype, order):
    rng = np.random.default_rng(11)
    for n in (0, 1, 2, 3, 5, 8, 9, 33, 100, 257):
        for special in (False, True):
            x, y = values(rng, n, dtype, special), values(rng, n, dtype)
            for r in ("sum", "asum", "nrm2"):
                assert pyref.same_bits(getattr(ref, r)(x, order), pyref.reduce(r, x, None, order))
            assert pyref.same_bits(ref.dot(x, y, order), pyref.reduce("dot", x, y, order))
            if n:
                assert ref.iamax(x) == pyref.iamax(x)
                for alpha in (dtype(0.75), dtype(-0.0), dtype(np.inf)):
                    assert pyref.same_bits(ref.axpy(alpha, x, y), pyref.axpy(alpha, x, y))
                    assert pyref.same_bits(ref.scal(alpha, x), pyref.scal(alpha, x))
    for m, n, k in ((1, 1, 1), (3, 2, 0), (5, 3, 9), (4, 6, 17)):
        a, b, c = values(rng, (m, k), dtype), values(rng, (k, n), dtype), values(rng, (m, n), dtype)
        for alpha, beta in ((1.0, 0.0), (-0.5, 1.5)):
            al, be = dtype(alpha), dtype(beta)
            assert pyref.same_bits(ref.gemm(al, a, b, be, c, order=order),
                                   pyref.gemm(alpha, a, b, beta, c, order=order))
            assert pyref.same_bits(ref.gemv(al, a, b[:, 0], be, c[:, 0], order=order),
                                   pyref.gemv(alpha, a, b[:, 0], beta, c[:, 0], order=order))
        assert pyref.same_bits(ref.ger(dtype(0.5), c[:, 0], c[0], c),
                               pyref.ger(0.5, c[:, 0], c[0], c))


def test_reference_ignores_the_callers_ftz_daz(ref, tmp_path):
    """The definition runs in the default environment whatever the caller set."""
    if platform.machine().lower() not in ("x86_64", "amd64", "i686", "i386"):
        pytest.skip("needs an x86 CPU (the MXCSR FTZ/DAZ bits exist on x86 only)")
    cc = reference_lib.compiler()
    src = tmp_path / "csr.c"
    src.write_text("#include <xmmintrin.h>\nunsigned get_csr(void) { return _mm_getcsr(); }\n"
                   "void set_csr(unsigned v) { _mm_setcsr(v); }\n")
    subprocess.run(cc + ["-O1", "-shared", "-fPIC", str(src), "-o", str(tmp_path / "csr.so")],
                   check=True, capture_output=True)
    lib = ctypes.CDLL(str(tmp_path / "csr.so"))
    lib.get_csr.restype = ctypes.c_uint
    lib.set_csr.argtypes = [ctypes.c_uint]
    tiny = np.finfo(np.float64).smallest_subnormal
    x = np.array([tiny, tiny, 3 * tiny])
    saved = lib.get_csr()
    lib.set_csr(saved | 0x8040)
    try:
        got = [ref.sum(x, o) for o in ORDERS] + [ref.dot(x, np.ones(3), o) for o in ORDERS]
        after = lib.get_csr()
    finally:
        lib.set_csr(saved)
    assert after & 0x8040 == 0x8040  # the caller's bits are restored
    assert got == [5 * tiny] * 4


# ---- level 1 ----

@pytest.mark.parametrize("isa", ISA_PARAMS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order", ORDERS)
def test_reductions(ref, isa, dtype, order, monkeypatch):
    rng = np.random.default_rng(1)
    cases = []
    for n in LENGTHS:
        x, y = values(rng, 3 * n, dtype, special=n % 3 == 1), values(rng, 2 * n, dtype)
        cases.append((x[:n], y[:n]))
        if n in (2, 9, 33, 257, 1025, 4097):
            cases += [(x[::3], y[::-2]), (x[n:2 * n], y[::2])]  # strided, reversed, unaligned
    want = {(r, i): (ref.dot(x, y, order) if r == "dot" else getattr(ref, r)(x, order))
            for i, (x, y) in enumerate(cases) for r in ("sum", "asum", "dot", "nrm2")}
    for where in l1_paths(monkeypatch, isa):
        for (r, i), w in want.items():
            x, y = cases[i]
            got = rb.dot(x, y, order=order) if r == "dot" else getattr(rb, r)(x, order=order)
            assert type(got) is x.dtype.type
            same(got, w, f"{r} n={x.shape[0]} strides={x.strides},{y.strides} {where}")


def special_vectors(dtype):
    """Vectors where a wrong sign, a flushed subnormal or an overflow shows."""
    fi = np.finfo(dtype)
    tiny, big = fi.smallest_subnormal, fi.max
    out = [np.array(v, dtype) for v in (
        [-0.0], [-0.0, -0.0], [-0.0] * 5, [0.0, -0.0], [-0.0, 0.0, -0.0],
        [tiny] * 7, [tiny, -tiny, tiny * 5, fi.tiny, -fi.tiny / 2], [fi.tiny] * 33,
        [big, big, -big], [big, -big, big, -big, 1.0], [big / 2] * 9,
        [np.inf, -np.inf], [np.inf, 1.0, np.inf], [1.0, np.nan, np.inf], [-np.inf] * 3,
        [1.0, 2.0 ** 60, -(2.0 ** 60), 1.0, 1.0], [big / 4, big / 4, big / 4, big / 4, -big],
        [np.sqrt(big)] * 5, [tiny * 3, 0.0])]
    for n in (31, 64, 129):
        for fill in (-0.0, tiny, big / 8, np.nan, np.inf):
            x = np.full(n, fill, dtype)
            x[n // 2] = 1.0 if fill != 1.0 else 2.0
            out.append(x)
    return out


@pytest.mark.parametrize("isa", ISA_PARAMS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order", ORDERS)
def test_reduction_special_values(ref, isa, dtype, order, monkeypatch):
    vecs = special_vectors(dtype)
    want = [{r: getattr(ref, r)(x, order) for r in ("sum", "asum", "nrm2")}
            | {"dot": ref.dot(x, x[::-1], order)} for x in vecs]
    for where in l1_paths(monkeypatch, isa):
        for x, w in zip(vecs, want):
            for r in ("sum", "asum", "nrm2"):
                same(getattr(rb, r)(x, order=order), w[r], f"{r}({x!r}) {where}")
            same(rb.dot(x, x[::-1], order=order), w["dot"], f"dot({x!r}) {where}")


@pytest.mark.parametrize("isa", ISA_PARAMS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_iamax_axpy_scal(ref, isa, dtype, monkeypatch):
    rng = np.random.default_rng(2)
    fi = np.finfo(dtype)
    vecs = [values(rng, n, dtype, special=s) for n in (1, 2, 7, 8, 9, 33, 257, 1000)
            for s in (False, True)]
    vecs += [np.array(v, dtype) for v in ([0.0, -0.0], [-0.0, 0.0], [1.0, -1.0, 1.0],
                                          [2.0, np.inf, -np.inf], [1.0, np.nan, np.nan, np.inf],
                                          [-np.inf, np.nan], [fi.smallest_subnormal, 0.0])]
    vecs += [v[::-3] for v in vecs[:8]]
    alphas = [dtype(a) for a in (0.75, -0.0, 0.0, 1.0, np.inf, np.nan, fi.smallest_subnormal,
                                 fi.max)]
    ys = [values(rng, v.shape[0], dtype, special=True) for v in vecs]
    want = [(ref.iamax(x), [(ref.axpy(a, x, y), ref.scal(a, x)) for a in alphas])
            for x, y in zip(vecs, ys)]
    for where in l1_paths(monkeypatch, isa):
        for i, (x, y, (wi, wa)) in enumerate(zip(vecs, ys, want)):
            assert rb.iamax(x) == wi, f"iamax({x!r}) {where}"
            for a, (w_axpy, w_scal) in zip(alphas, wa):
                # in place: fresh copies, in a layout of their own
                got = rb.axpy(a, x, layout(y, LAYOUTS[i % 4]))
                same(got, w_axpy, f"axpy({a!r}, {x!r}, {y!r}) {where}")
                same(rb.scal(a, layout(x, LAYOUTS[i % 4])), w_scal, f"scal({a!r}, {x!r}) {where}")


# ---- level 2 and 3 ----

GEMM_SHAPES = [(0, 3, 4), (3, 0, 4), (3, 4, 0), (1, 1, 1), (2, 3, 1), (7, 5, 3), (1, 9, 33),
               (17, 13, 31), (9, 33, 64), (5, 7, 65), (31, 17, 129), (9, 11, 257),
               (13, 6, 513), (4, 3, 1000)]
SCALINGS = [(1.0, 0.0), (0.5, -1.5), (-1.0, -0.0), (2.0, 1.0)]


@pytest.mark.parametrize("isa", ISA_PARAMS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order", ORDERS)
def test_gemm(ref, isa, dtype, order, monkeypatch):
    rng = np.random.default_rng(3)
    cases = []
    for i, (m, n, k) in enumerate(GEMM_SHAPES):
        for ta in (False, True):
            for tb in (False, True):
                special = (i + ta + tb) % 3 == 0
                opa, opb = values(rng, (m, k), dtype, special), values(rng, (k, n), dtype, special)
                a = layout(opa.T if ta else opa, LAYOUTS[(i + 2 * ta) % 4])
                b = layout(opb.T if tb else opb, LAYOUTS[(i + tb + 1) % 4])
                alpha, beta = SCALINGS[(i + ta + 2 * tb) % 4]
                c = values(rng, (m, n), dtype, special=True)
                if beta == 0:
                    c[...] = np.nan  # never read
                c = layout(c, LAYOUTS[i % 4])
                cases.append((dtype(alpha), a, b, dtype(beta), c, ta, tb))
    want = [ref.gemm(*case, order=order) for case in cases]
    for where in l3_paths(monkeypatch, isa):
        for (al, a, b, be, c, ta, tb), w in zip(cases, want):
            got = rb.gemm(al, a, b, be, c, trans_a=ta, trans_b=tb, order=order)
            same(got, w, f"gemm op(a)={w.shape[0]}x{a.shape[ta]} ta={ta} tb={tb} "
                 f"alpha={al} beta={be} a.strides={a.strides} b.strides={b.strides} {where}")


@pytest.mark.parametrize("isa", ISA_PARAMS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order", ORDERS)
def test_matmul(ref, isa, dtype, order, monkeypatch):
    """matmul: each batch entry is gemm(1, a_i, b_i, 0)."""
    rng = np.random.default_rng(4)
    a, b = values(rng, (3, 2, 9, 33), dtype, True), values(rng, (2, 33, 7), dtype)
    want = np.stack([np.stack([ref.gemm(dtype(1), a[i, j], b[j], order=order) for j in range(2)])
                     for i in range(3)])
    v = values(rng, 33, dtype)
    want_v = ref.gemv(dtype(1), a[1, 1], v, order=order)
    for where in l3_paths(monkeypatch, isa):
        same(rb.matmul(a, b, order=order), want, f"matmul {where}")
        same(rb.matmul(a[1, 1], v, order=order), want_v, f"matmul matrix @ vector {where}")


@pytest.mark.parametrize("isa", ISA_PARAMS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order", ORDERS)
def test_gemv_ger(ref, isa, dtype, order, monkeypatch):
    rng = np.random.default_rng(5)
    gemv_cases, ger_cases = [], []
    for i, (m, n) in enumerate([(0, 3), (3, 0), (1, 1), (2, 7), (7, 8), (9, 31), (33, 32),
                                (5, 129), (64, 65), (3, 1000), (257, 9)]):
        special = i % 3 == 1
        for trans in (False, True):
            a = layout(values(rng, (m, n), dtype, special), LAYOUTS[(i + trans) % 4])
            x = values(rng, 2 * (m if trans else n), dtype, special)[::2 if i % 2 else 1]
            x = x[:(m if trans else n)]
            alpha, beta = SCALINGS[(i + trans) % 4]
            y = None if beta == 0 and i % 2 else values(rng, n if trans else m, dtype, True)
            if y is not None and beta == 0:
                y[...] = np.nan
            gemv_cases.append((dtype(alpha), a, x, dtype(beta), y, trans))
        x, y = values(rng, m, dtype, special)[::-1], values(rng, 3 * n, dtype, special)[::3]
        a = None if i % 4 == 3 else layout(values(rng, (m, n), dtype, True), LAYOUTS[i % 4])
        ger_cases.append((dtype(SCALINGS[i % 4][0] * 0.75), x, y, a))
    want_gemv = [ref.gemv(al, a, x, be, y, trans, order) for al, a, x, be, y, trans in gemv_cases]
    want_ger = [ref.ger(*case) for case in ger_cases]
    for where in l3_paths(monkeypatch, isa):
        for (al, a, x, be, y, trans), w in zip(gemv_cases, want_gemv):
            same(rb.gemv(al, a, x, be, y, trans=trans, order=order), w,
                 f"gemv a={a.shape} trans={trans} alpha={al} beta={be} {where}")
        for case, w in zip(ger_cases, want_ger):
            same(rb.ger(*case), w, f"ger x={case[1].shape} y={case[2].shape} {where}")


def triangular(rng, n, dtype, special):
    """Well-conditioned on its diagonal (solutions stay finite), but any value
    off it; special: a few special values, a zero on the diagonal."""
    a = values(rng, (n, n), dtype, special) * dtype(0.25)
    np.fill_diagonal(a, (rng.random(n) + 1) * rng.choice([-1, 1], n))
    if special and n > 2:
        a[n // 2, n // 2] = 0.0
    return a


@pytest.mark.parametrize("isa", ISA_PARAMS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order", ORDERS)
def test_trsv(ref, isa, dtype, order, monkeypatch):
    rng = np.random.default_rng(6)
    cases = []
    for i, n in enumerate((0, 1, 2, 3, 7, 8, 9, 31, 33, 64, 65, 130)):
        for flags in range(8):
            lower, trans, unit = bool(flags & 1), bool(flags & 2), bool(flags & 4)
            special = (i + flags) % 5 == 0
            a = layout(triangular(rng, n, dtype, special), LAYOUTS[(i + flags) % 4])
            b = values(rng, 2 * n, dtype, special)[::2 if flags % 3 else 1][:n]
            cases.append((a, b, lower, trans, unit))
    want = [ref.trsv(*case, order=order) for case in cases]
    for where in trsm_paths(monkeypatch, isa):
        for (a, b, lower, trans, unit), w in zip(cases, want):
            same(rb.trsv(a, b, lower, trans, unit, order=order), w,
                 f"trsv n={b.shape[0]} lower={lower} trans={trans} unit={unit} "
                 f"a.strides={a.strides} {where}")


@pytest.mark.parametrize("isa", ISA_PARAMS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order", ORDERS)
def test_trsm(ref, isa, dtype, order, monkeypatch):
    rng = np.random.default_rng(7)
    cases = []
    for i, (m, n) in enumerate([(0, 3), (3, 0), (1, 1), (2, 5), (7, 9), (9, 7), (17, 33),
                                (33, 17), (65, 4), (4, 65)]):
        for flags in range(16):
            side = "right" if flags & 8 else "left"
            lower, trans, unit = bool(flags & 1), bool(flags & 2), bool(flags & 4)
            special = (i + flags) % 7 == 0
            a = layout(triangular(rng, n if side == "right" else m, dtype, special),
                       LAYOUTS[(i + flags) % 4])
            b = layout(values(rng, (m, n), dtype, special), LAYOUTS[(i + flags + 1) % 4])
            alpha = dtype((1.0, -0.5, 3.0, -0.0)[(i + flags) % 4])
            cases.append((alpha, a, b, side, lower, trans, unit))
    want = [ref.trsm(*case, order=order) for case in cases]
    for where in trsm_paths(monkeypatch, isa):
        for (alpha, a, b, side, lower, trans, unit), w in zip(cases, want):
            same(rb.trsm(alpha, a, b, side, lower, trans, unit, order=order), w,
                 f"trsm b={b.shape} side={side} lower={lower} trans={trans} unit={unit} "
                 f"alpha={alpha} {where}")


# ---- convolution ----

# (N, C, H, W), (K, R, S), stride, padding, dilation, groups
CONV_CASES = [
    ((2, 3, 7, 6), (4, 3, 3), 1, 1, 1, 1),
    ((1, 4, 17, 18), (2, 3, 2), 1, "same", 2, 2),
    ((2, 2, 9, 8), (4, 3, 3), (2, 3), (2, 1), (1, 2), 2),
    ((1, 5, 6, 7), (3, 5, 1), 2, "valid", 1, 1),
    ((1, 3, 5, 5), (3, 1, 1), 1, 0, 1, 3),
    ((1, 2, 4, 4), (2, 4, 4), 1, 3, 1, 1),
    ((2, 6, 5, 6), (10, 3, 2), 1, 1, 1, 2),
    ((1, 12, 5, 4), (9, 2, 3), 1, 1, 1, 1),
    ((1, 2, 3, 3), (2, 2, 2), 1, 3, 1, 1),
    ((3, 9, 6, 5), (5, 3, 3), (1, 2), (0, 2), 1, 1),
    ((1, 1, 40, 3), (1, 5, 3), 3, 2, (2, 1), 1),
    ((1, 3, 6, 5), (70, 3, 3), 1, 1, 1, 1),
]


def conv_operands(rng, case, dtype):
    (n, c, h, w), (k, r, s), stride, padding, dilation, groups = CONV_CASES[case]
    special = case % 2 == 1
    x = layout(values(rng, (n, c, h, w), dtype, special), LAYOUTS[case % 4])
    wt = layout(values(rng, (k, c // groups, r, s), dtype, special), LAYOUTS[(case + 1) % 4])
    bias = values(rng, 2 * k, dtype)[::2] if case % 3 else None
    kw = dict(stride=stride, padding=padding, dilation=dilation, groups=groups)
    y_shape = reference_lib.conv_geometry(x.shape, wt.shape, stride, padding, dilation, groups)
    gy = layout(values(rng, (n, k, int(y_shape[8]), int(y_shape[9])), dtype, special),
                LAYOUTS[(case + 2) % 4])
    return x, wt, bias, gy, kw


def conv_all(lib, x, wt, bias, gy, kw, order):
    """The four convolution routines of lib (reproblas or the reference)."""
    return (lib.conv2d(x, wt, bias, order=order, **kw),
            lib.conv2d_grad_input(gy, wt, x.shape, order=order, **kw),
            lib.conv2d_grad_weight(x, gy, wt.shape, order=order, **kw),
            lib.conv2d_grad_bias(gy, order=order))


@pytest.mark.parametrize("isa", ISA_PARAMS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order", ORDERS)
def test_conv(ref, isa, dtype, order, monkeypatch):
    rng = np.random.default_rng(8)
    cases = [conv_operands(rng, i, dtype) for i in range(len(CONV_CASES))]
    want = [conv_all(ref, *case, order) for case in cases]
    for where in conv_paths(monkeypatch, isa):
        for i, (case, w) in enumerate(zip(cases, want)):
            for name, g, wi in zip(("conv2d", "grad_input", "grad_weight", "grad_bias"),
                                   conv_all(rb, *case, order), w):
                same(g, wi, f"{name} case {CONV_CASES[i]} {where}")


# ---- the CUDA kernels, host-emulated, through the public API on "device" arrays ----

def host(v):
    return np.asarray(v).view(np.ndarray) if isinstance(v, np.ndarray) else np.asarray(v)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("pieces", [(2048, 4096), (4, 16)], ids=["default", "small_pieces"])
def test_cuda_emulated_level1(ref, gpu, dtype, order, pieces, monkeypatch):
    """small_pieces: many pairwise items, pieces that double, blocks of several
    items (the device join's trees) on short vectors."""
    monkeypatch.setattr(_cuda, "PIECE", pieces[0])
    monkeypatch.setattr(_cuda, "MAX_ITEMS", pieces[1])
    rng = np.random.default_rng(9)
    small = pieces[0] < 2048
    for n in (3, 37, 100, 1023, 1029) if small else (0, 1, 2, 3, 7, 33, 255, 256, 257, 1000,
                                                      4097):
        x, y = values(rng, 2 * n, dtype, special=n % 2 == 1), values(rng, 2 * n, dtype)
        for xs, ys in ((x[:n], y[:n]), (x[1:n + 1], y[::-2])):
            for r in ("sum", "asum", "nrm2"):
                same(host(getattr(rb, r)(emu_array(xs), order=order)), getattr(ref, r)(xs, order),
                     f"emulated CUDA {r} n={n} strides={xs.strides}")
            same(host(rb.dot(emu_array(xs), emu_array(ys), order=order)), ref.dot(xs, ys, order),
                 f"emulated CUDA dot n={n}")
    if small:
        return
    for x in special_vectors(dtype):
        for r in ("sum", "asum", "nrm2"):
            same(host(getattr(rb, r)(emu_array(x), order=order)), getattr(ref, r)(x, order),
                 f"emulated CUDA {r}({x!r})")
    if order == "sequential":  # no order: once per dtype
        for n in (1, 9, 1000):
            x, y = values(rng, n, dtype, True), values(rng, n, dtype, True)
            assert int(rb.iamax(emu_array(x))) == ref.iamax(x)
            for a in (dtype(0.75), dtype(-0.0), dtype(np.inf)):  # in place: on copies
                same(host(rb.axpy(a, emu_array(x), emu_array(y.copy()))), ref.axpy(a, x, y),
                     f"emulated CUDA axpy n={n}")
                same(host(rb.scal(a, emu_array(x.copy()))), ref.scal(a, x),
                     f"emulated CUDA scal n={n}")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order", ORDERS)
def test_cuda_emulated_level23(ref, gpu, dtype, order):
    rng = np.random.default_rng(10)
    for i, (m, n, k) in enumerate([(3, 4, 0), (1, 1, 1), (7, 5, 3), (17, 13, 31), (5, 7, 65),
                                   (33, 9, 129), (4, 3, 257)]):
        for ta, tb in ((False, False), (True, False), (False, True), (True, True)):
            special = (i + ta) % 3 == 0
            opa, opb = values(rng, (m, k), dtype, special), values(rng, (k, n), dtype, special)
            a = layout(opa.T if ta else opa, LAYOUTS[(i + ta) % 4])
            b = layout(opb.T if tb else opb, LAYOUTS[(i + tb) % 4])
            alpha, beta = SCALINGS[(i + ta + 2 * tb) % 4]
            c = values(rng, (m, n), dtype, True)
            if beta == 0:
                c[...] = np.nan
            args = (dtype(alpha), a, b, dtype(beta), c)
            same(host(rb.gemm(*map(lambda v: emu_array(v) if isinstance(v, np.ndarray) else v,
                                   args), trans_a=ta, trans_b=tb, order=order)),
                 ref.gemm(*args, trans_a=ta, trans_b=tb, order=order),
                 f"emulated CUDA gemm {m}x{n}x{k} ta={ta} tb={tb}")
        for trans in (False, True):
            a = values(rng, (m, k), dtype, special)
            x = values(rng, m if trans else k, dtype)
            y = values(rng, k if trans else m, dtype)
            same(host(rb.gemv(dtype(1.5), emu_array(a), emu_array(x), dtype(-0.5), emu_array(y),
                              trans=trans, order=order)),
                 ref.gemv(dtype(1.5), a, x, dtype(-0.5), y, trans, order),
                 f"emulated CUDA gemv {m}x{k} trans={trans}")
        x, y, a = values(rng, m, dtype), values(rng, n, dtype), values(rng, (m, n), dtype, True)
        same(host(rb.ger(dtype(-0.75), emu_array(x), emu_array(y), emu_array(a))),
             ref.ger(dtype(-0.75), x, y, a), f"emulated CUDA ger {m}x{n}")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("trsm_block", [128, 4])
def test_cuda_emulated_solves(ref, gpu, dtype, order, trsm_block, monkeypatch):
    """trsm_block 4: many diagonal blocks and carried updates on small systems."""
    monkeypatch.setattr(_cuda, "TRSM_BLOCK", trsm_block)
    rng = np.random.default_rng(14)
    shapes = [(1, 1), (7, 9), (33, 17), (65, 4), (130, 3), (3, 131)] if trsm_block == 128 \
        else [(1, 1), (6, 9), (19, 5), (5, 14)]
    for i, (m, n) in enumerate(shapes):
        # every side, triangle, transpose and diagonal; past a block, four of them
        for flags in range(16) if max(m, n) <= 64 else (0, 3, 9, 14):
            side = "right" if flags & 8 else "left"
            lower, trans, unit = bool(flags & 1), bool(flags & 2), bool(flags & 4)
            a = triangular(rng, n if side == "right" else m, dtype, (i + flags) % 5 == 0)
            b = values(rng, (m, n), dtype)
            same(host(rb.trsm(dtype(0.5), emu_array(a), emu_array(b), side, lower, trans, unit,
                              order=order)),
                 ref.trsm(dtype(0.5), a, b, side, lower, trans, unit, order),
                 f"emulated CUDA trsm {m}x{n} side={side} lower={lower} trans={trans} "
                 f"unit={unit}")
            if side == "left":
                same(host(rb.trsv(emu_array(a), emu_array(b[:, 0]), lower, trans, unit,
                                  order=order)),
                     ref.trsv(a, b[:, 0], lower, trans, unit, order),
                     f"emulated CUDA trsv n={m} lower={lower} trans={trans} unit={unit}")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order", ORDERS)
def test_cuda_emulated_conv(ref, gpu, dtype, order):
    rng = np.random.default_rng(12)
    for i in range(len(CONV_CASES)):
        x, wt, bias, gy, kw = conv_operands(rng, i, dtype)
        want = conv_all(ref, x, wt, bias, gy, kw, order)
        got = conv_all(rb, emu_array(x), emu_array(wt), None if bias is None else emu_array(bias),
                       emu_array(gy), kw, order)
        for name, g, w in zip(("conv2d", "grad_input", "grad_weight", "grad_bias"), got, want):
            same(host(g), w, f"emulated CUDA {name} case {CONV_CASES[i]}")


# ---- values whose bytes are all zero but one 0x80 byte (float32 2^-126 = 0x00800000,
# float64 2^-1015 = 0x0080000000000000): stripping zero bytes leaves b"\x80", as for -0,
# which is how reproblas/_fp.py's zero_bits once misread them.

def lone_0x80_byte(v):
    """Whether v's bytes are zeros and a single 0x80 (and v is not -0)."""
    raw = np.asarray(v).tobytes()
    return raw.strip(b"\0") == b"\x80" and not (np.asarray(v) == 0)


LONE_0X80 = {np.float32: np.float32(2.0 ** -126), np.float64: np.float64(2.0 ** -1015)}


# A beta or max abs(x) whose bytes are zero but for one 0x80 byte (float32 2^-126, float64
# 2^-1015) is not -0: its c must be read and added, and the CUDA nrm2 must scale by it.
@pytest.mark.parametrize("dtype", DTYPES)
def test_lone_0x80_byte_is_not_zero(ref, gpu, dtype, monkeypatch):
    beta = LONE_0X80[dtype]
    assert lone_0x80_byte(beta)
    rng = np.random.default_rng(13)
    a, x = values(rng, (3, 4), dtype), values(rng, 4, dtype)
    c = np.full((3, 4), 2.0 ** (100 if dtype is np.float32 else 1000), dtype)
    failures = []

    def check(got, want, what):
        try:
            same(host(got), want, what)
        except AssertionError as e:
            failures.append(str(e).splitlines()[0])

    for isa in (p.values[0] for p in ISA_PARAMS if crlibm_py.isa_supported(p.values[0])):
        monkeypatch.setenv("REPROBLAS_ISA", isa)
        check(rb.gemm(dtype(1), a, a.T, beta, c[:, :3]), ref.gemm(dtype(1), a, a.T, beta, c[:, :3]),
              f"gemm beta={beta!r} on {isa}")
        check(rb.gemv(dtype(1), a, x, beta, c[:, 0]), ref.gemv(dtype(1), a, x, beta, c[:, 0]),
              f"gemv beta={beta!r} on {isa}")
    check(rb.gemm(dtype(1), emu_array(a), emu_array(a.T), beta, emu_array(c[:, :3])),
          ref.gemm(dtype(1), a, a.T, beta, c[:, :3]), "emulated CUDA gemm")
    for v in (np.array([beta, -beta / 2], dtype), np.full(33, beta, dtype)):
        for order in ORDERS:
            check(rb.nrm2(emu_array(v), order=order), ref.nrm2(v, order),
                  f"emulated CUDA nrm2({v[:2]!r}...) {order}")
            check(rb.nrm2(v, order=order), ref.nrm2(v, order), f"CPU nrm2 {order}")
    assert not failures, "\n".join(failures)
