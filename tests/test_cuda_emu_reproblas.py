"""reproblas CUDA kernels, host-emulated through the real host code
(reproblas/_cuda.py): bitwise the CPU backend's results."""
import numpy as np
import pytest

import crlibm_py
import reproblas
from reproblas import _cuda
from cuda_support import EmuDevice, same_bits

DTYPES = (np.float32, np.float64)
ORDERS = ("sequential", "pairwise")
_SUPPORTED = [i for i in reproblas.isa_names() if crlibm_py.isa_supported(i)]  # same CPU check


@pytest.fixture(scope="module")
def emu():
    return EmuDevice()


def _cpu_everywhere(monkeypatch, call):
    """call() on every CPU path this machine has and 1 and 3 threads; all must agree
    (the CPU tests' claim), and the common result is what the GPU must give."""
    results = []
    for isa in _SUPPORTED:
        for threads in ("1", "3"):
            monkeypatch.setenv("REPROBLAS_ISA", isa)
            monkeypatch.setenv("REPROBLAS_NUM_THREADS", threads)
            results.append(np.asarray(call()))
    for r in results[1:]:
        same_bits(r, results[0])
    return results[0]


def _vector(rng, n, dtype, special=False):
    x = (rng.standard_normal(n) * np.exp2(rng.integers(-8, 8, n))).astype(dtype)
    if special and n > 4:
        tiny = np.finfo(dtype).smallest_subnormal
        idx = rng.choice(n, 4, replace=False)
        x[idx] = [-0.0, tiny * 3, -tiny, np.finfo(dtype).max / 4]
    return x


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("n", [0, 1, 2, 3, 5, 255, 256, 257, 1000, 2048, 4097, 6001])
def test_reductions(emu, dtype, order, n, monkeypatch):
    rng = np.random.default_rng(n)
    x, y = _vector(rng, n, dtype, special=True), _vector(rng, n, dtype)
    for routine, args in (("sum", (x,)), ("asum", (x,)), ("dot", (x, y)), ("nrm2", (x,))):
        got = _cuda.reduce(emu, routine, *args[:1], args[1] if len(args) > 1 else None, order)
        same_bits(got, _cpu_everywhere(
            monkeypatch, lambda: getattr(reproblas, routine)(*args, order=order)))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order", ORDERS)
def test_reductions_unaligned(emu, dtype, order, monkeypatch):
    """Vectors one element past a 16-byte boundary: the pairwise leaves' 16-byte
    loads give way to element loads (x alone, or y alone, unaligned)."""
    rng = np.random.default_rng(3)
    big_x, big_y = _vector(rng, 6002, dtype), _vector(rng, 6002, dtype)
    for x, y in ((big_x[1:], big_y[1:]), (big_x[1:], big_y[:-1].copy()),
                 (big_x[:-1].copy(), big_y[1:])):
        for routine, args in (("sum", (x,)), ("dot", (x, y))):
            got = _cuda.reduce(emu, routine, *args[:1], args[1] if len(args) > 1 else None,
                               order)
            same_bits(got, _cpu_everywhere(
                monkeypatch, lambda: getattr(reproblas, routine)(*args, order=order)))


@pytest.mark.parametrize("dtype", DTYPES)
def test_pairwise_items_and_joins(emu, dtype, monkeypatch):
    """Small pieces and a low item cap: many items, pieces that double, blocks
    of several items each (the join's perfect trees)."""
    monkeypatch.setattr(_cuda, "PIECE", 4)
    monkeypatch.setattr(_cuda, "MAX_ITEMS", 16)
    rng = np.random.default_rng(7)
    for n in (3, 37, 100, 1023, 1029):
        x = _vector(rng, n, dtype)
        piece, items = _cuda.pairwise_items(n)
        assert piece & (piece - 1) == 0 and items <= 2 * 16 + n.bit_length()
        same_bits(_cuda.reduce(emu, "sum", x, None, "pairwise"),
                  np.asarray(reproblas.sum(x, order="pairwise")))


@pytest.mark.parametrize("dtype", DTYPES)
def test_reduction_special_values(emu, dtype):
    big = np.finfo(dtype).max
    cases = [[np.nan, 1.0], [1.0, np.inf, -np.inf], [big, big, -big], [-0.0, -0.0],
             [-0.0], [0.0, -0.0, 0.0], [np.inf, 2.0], [0.0, 0.0], [big, big]]
    for values in cases:
        x = np.array(values, dtype)
        for order in ORDERS:
            for routine in ("sum", "asum", "nrm2"):
                same_bits(_cuda.reduce(emu, routine, x, None, order),
                          np.asarray(getattr(reproblas, routine)(x, order=order)))
            same_bits(_cuda.reduce(emu, "dot", x, x[::-1].copy(), order),
                      np.asarray(reproblas.dot(x, x[::-1].copy(), order=order)))


@pytest.mark.parametrize("dtype", DTYPES)
def test_iamax_axpy_scal(emu, dtype):
    rng = np.random.default_rng(3)
    for n in (1, 5, 300, 3000):
        x = _vector(rng, n, dtype)
        assert _cuda.iamax(emu, x) == reproblas.iamax(x)
        x[n // 2] = -np.abs(x).max()  # ties: the first wins
        x[-1] = np.abs(x).max()
        assert _cuda.iamax(emu, x) == reproblas.iamax(x)
        if n > 3:
            x[n - 2] = np.nan
            x[n - 1] = np.nan
            assert _cuda.iamax(emu, x) == reproblas.iamax(x) == n - 2
        y = _vector(rng, n, dtype)
        x = np.nan_to_num(x)
        for alpha in (0.0, -1.5, 3.0e-3):
            got = y.copy()
            _cuda.axpy(emu, alpha, x, got)
            same_bits(got, reproblas.axpy(alpha, x, y.copy()))
            got = x.copy()
            _cuda.scal(emu, alpha, got)
            same_bits(got, reproblas.scal(alpha, x.copy()))


GEMM_CASES = [  # m, n, k, trans_a, trans_b
    (1, 1, 1, False, False), (3, 2, 0, False, False), (70, 130, 45, False, False),
    (129, 65, 17, True, False), (33, 31, 100, False, True), (64, 64, 8, True, True),
    (5, 200, 3, False, False), (150, 2, 9, True, False)]


def _operand(rng, shape, dtype, trans, layout):
    a = rng.standard_normal(shape[::-1] if trans else shape).astype(dtype)
    if layout == "F":
        return np.asfortranarray(a)
    if layout == "strided":
        big = np.zeros((a.shape[0], 2 * a.shape[1]), dtype)
        big[:, ::2] = a
        return big[:, ::2]
    return a


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("case", GEMM_CASES)
def test_gemm(emu, dtype, order, case, monkeypatch):
    m, n, k, ta, tb = case
    rng = np.random.default_rng(m * 1000 + n + k)
    layouts = ("C", "F", "strided")
    a = _operand(rng, (m, k), dtype, ta, layouts[m % 3])
    b = _operand(rng, (k, n), dtype, tb, layouts[n % 3])
    for alpha, beta in ((1.0, 0.0), (-0.5, 2.0)):
        c = rng.standard_normal((m, n)).astype(dtype)
        if beta == 0:
            c[...] = np.nan  # never read
        expected = _cpu_everywhere(monkeypatch, lambda: reproblas.gemm(
            alpha, a, b, beta, c, trans_a=ta, trans_b=tb, order=order))
        got = c.copy(order="F" if n % 2 else "C")
        _cuda.gemm(emu, order, alpha, a, ta, b, tb, beta, got)
        same_bits(got, expected)


def _laid_out(a, layout):
    """a in a C / Fortran layout, or one element past a 16-byte boundary (the
    sequential kernel's 16-byte loads must then fall back to element loads)."""
    if layout == "unaligned":
        flat = np.zeros(a.size + 1, a.dtype)
        flat[1:] = a.ravel()
        return flat[1:].reshape(a.shape)
    return np.asfortranarray(a) if layout == "F" else np.ascontiguousarray(a)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layouts", [("C", "C"), ("F", "F"), ("C", "F"), ("F", "C"),
                                     ("unaligned", "C"), ("C", "unaligned")])
def test_gemm_sequential_load_paths(emu, dtype, layouts, monkeypatch):
    """Every load path of the sequential kernel (16-byte runs along k or along
    m/n, element loads) with edges that cut a run: dimensions that are and are
    not multiples of 4, a last k slice shorter than the tile's."""
    rng = np.random.default_rng(7)
    for m, n, k in ((132, 136, 72), (20, 12, 33), (4, 260, 16)):
        a = _laid_out(rng.standard_normal((m, k)).astype(dtype), layouts[0])
        b = _laid_out(rng.standard_normal((k, n)).astype(dtype), layouts[1])
        c = rng.standard_normal((m, n)).astype(dtype)
        expected = _cpu_everywhere(monkeypatch, lambda: reproblas.gemm(0.75, a, b, -1.0, c))
        got = c.copy()
        _cuda.gemm(emu, "sequential", 0.75, a, False, b, False, -1.0, got)
        same_bits(got, expected)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order", ORDERS)
def test_gemv_and_ger(emu, dtype, order):
    rng = np.random.default_rng(11)
    for m, k, trans in ((300, 37, False), (7, 260, True), (1, 1, False)):
        a = rng.standard_normal((k, m) if trans else (m, k)).astype(dtype)
        x = rng.standard_normal(k).astype(dtype)
        y = rng.standard_normal(m).astype(dtype)
        expected = reproblas.gemv(1.25, a, x, 0.5, y, trans=trans, order=order)
        got = y.copy()
        _cuda.gemm(emu, order, 1.25, a, trans, x[:, None], False, 0.5, got[:, None])
        same_bits(got, expected)
        a2 = rng.standard_normal((m, k)).astype(dtype)
        got = np.array(a2, order="F")  # a copy even when already F-ordered
        _cuda.ger(emu, -0.75, y, x, got)
        same_bits(got, reproblas.ger(-0.75, y, x, a2))
