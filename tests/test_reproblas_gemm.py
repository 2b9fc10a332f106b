"""reproblas gemm / gemv / ger / matmul against the literal contract reference
(test_reproblas_reference.py), bit for bit, on every CPU path, thread count
and block size, and for every operand layout."""
import numpy as np
import pytest

import reproblas as rb
from reproblas import _core
import test_reproblas_reference as ref

DTYPES = [np.float32, np.float64]
ORDERS = ["sequential", "pairwise"]
ISAS = [name for name in _core.isa_names() if _core.isa_code(name) >= 0]
THREADS = [1, 2, 3, 4]
# (mc, nc, kc, min_work[, ws]): defaults; one-tile blocks with kc = 3
# (pairwise: 2) and every thread split; mid-size blocks with kc = 8 (pairwise
# tails 1..7), sequential: all rows in one workspace, then 2 mc blocks
# (64 or 80 rows) per workspace, so that m = 150 needs 2-3 of them.
TUNINGS = [(0, 0, 0, 0), (1, 1, 3, 1), (40, 30, 8, 1), (40, 30, 8, 1, 2400)]
# Around the tiles (scalar 4x3 / 2x2, AVX2 2Wx6 / 2Wx2, AVX-512 2Wx12 / 2Wx4,
# W = 8/4 or 16/8; gemv 8W rows), empty and unit dimensions, k around kc = 256;
# k = 256: a power-of-two multiple of every pairwise kc (one level, no tail).
SHAPES = [(0, 5, 3), (4, 0, 3), (3, 4, 0), (0, 0, 0), (1, 1, 1), (1, 7, 5), (6, 1, 9),
          (1, 1, 40), (17, 13, 37), (33, 25, 19), (35, 14, 66), (65, 3, 31), (2, 30, 17),
          (9, 4, 257), (3, 2, 515), (129, 1, 12), (5, 7, 256), (150, 9, 21)]
LAYOUTS = ["C", "F", "strided", "negative"]


def data(rng, shape, dtype):
    """Spread-out magnitudes, both signs: a changed order changes the bits."""
    return (rng.standard_normal(shape) * 2.0 ** rng.integers(-12, 13, shape)).astype(dtype)


def layout(x, kind):
    """A copy of x's values in the given memory layout."""
    if kind in ("C", "F"):
        return np.array(x, order=kind, copy=True)
    if kind == "strided":
        big = np.zeros(tuple(2 * s + 1 for s in x.shape), dtype=x.dtype)
        view = big[(slice(1, None, 2),) * x.ndim]
        view[...] = x
        return view
    rev = (slice(None, None, -1),) * x.ndim
    return x[rev].copy()[rev]


def each_path(monkeypatch, tune, tunings, isas, threads):
    """Runs the loop body under every (tuning, ISA, thread count), set through
    _core.tuning(**tune(tuning)) and the environment knobs; yields each triple for
    failure messages."""
    for tuning in tunings:
        with _core.tuning(**tune(tuning)):
            for isa in isas:
                monkeypatch.setenv("REPROBLAS_ISA", isa)
                for t in threads:
                    monkeypatch.setenv("REPROBLAS_NUM_THREADS", str(t))
                    yield (tuning, isa, t)


def each_config(monkeypatch, tunings=TUNINGS, isas=ISAS, threads=THREADS):
    return each_path(monkeypatch, lambda t: {"l3": t}, tunings, isas, threads)


def operands(rng, m, n, k, dtype, trans_a, trans_b, lay_a, lay_b):
    opa, opb = data(rng, (m, k), dtype), data(rng, (k, n), dtype)
    a = layout(opa.T if trans_a else opa, lay_a)
    b = layout(opb.T if trans_b else opb, lay_b)
    return a, b


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order", ORDERS)
def test_gemm_matches_reference(order, dtype, monkeypatch):
    rng = np.random.default_rng([ORDERS.index(order), dtype(0).nbytes])
    for idx, (m, n, k) in enumerate(SHAPES):
        trans_a, trans_b = bool(idx & 1), bool(idx & 2)
        lay_a, lay_b, lay_c = (LAYOUTS[(idx + s) % 4] for s in (0, 1, 2))
        a, b = operands(rng, m, n, k, dtype, trans_a, trans_b, lay_a, lay_b)
        c = layout(data(rng, (m, n), dtype), lay_c)
        alpha, beta = (1.0, 0.0) if idx % 3 == 0 else (-0.75, 1.5)
        want = ref.gemm(alpha, a, b, beta, c, trans_a, trans_b, order)
        c_before = c.copy()
        for cfg in each_config(monkeypatch):
            got = rb.gemm(alpha, a, b, beta, c, trans_a=trans_a, trans_b=trans_b, order=order)
            assert ref.same_bits(got, want), (m, n, k, trans_a, trans_b, cfg)
        assert ref.same_bits(c, c_before)  # not overwritten by default


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order", ORDERS)
def test_gemv_matches_reference(order, dtype, monkeypatch):
    rng = np.random.default_rng([7, ORDERS.index(order), dtype(0).nbytes])
    for idx, (m, k) in enumerate([(0, 3), (3, 0), (1, 1), (1, 33), (7, 5), (65, 19), (130, 9),
                                  (5, 260), (33, 70)]):
        trans = bool(idx & 1)
        opa = data(rng, (m, k), dtype)
        a = layout(opa.T if trans else opa, LAYOUTS[idx % 4])
        x = layout(data(rng, k, dtype), LAYOUTS[(idx + 1) % 4])
        y = layout(data(rng, m, dtype), LAYOUTS[(idx + 2) % 4])
        alpha, beta = (2.0, 0.0) if idx % 2 else (0.5, -1.25)
        want = ref.gemv(alpha, a, x, beta, y, trans, order)
        for cfg in each_config(monkeypatch):
            got = rb.gemv(alpha, a, x, beta, y, trans=trans, order=order)
            assert ref.same_bits(got, want), (m, k, trans, cfg)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order", ORDERS)
def test_gemv_row_major_edges(order, dtype, monkeypatch):
    """Row-major op(A) (the unpacked, in-register transposing gemv path):
    rows and k around W and 2W, x contiguous and strided."""
    rng = np.random.default_rng([12, ORDERS.index(order), dtype(0).nbytes])
    for m, k in [(1, 1), (7, 15), (8, 16), (15, 17), (16, 8), (17, 40), (31, 33), (33, 16),
                 (47, 5)]:
        a = data(rng, (m, k), dtype)
        for x in (data(rng, k, dtype), layout(data(rng, k, dtype), "strided")):
            want = ref.gemv(1.0, a, x, order=order)
            for cfg in each_config(monkeypatch, tunings=TUNINGS[:2], threads=[1, 3]):
                assert ref.same_bits(rb.gemv(1.0, a, x, order=order), want), (m, k, cfg)
                assert ref.same_bits(rb.gemv(1.0, np.asfortranarray(a.T), x, trans=True,
                                             order=order), want), (m, k, cfg)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order", ORDERS)
def test_gemv_column_major_edges(order, dtype, monkeypatch):
    """Column-major op(A) (trans=True on a C-ordered A, or a Fortran-ordered A:
    the column kernels): k around the groups of 4 and 8 (4 with a 4 KiB column
    stride: m = 1024 float32, 512 float64) and the pairwise counter's
    levels, rows around W and the 4096-row chunk, special values in A and x,
    beta != 0; x contiguous and strided."""
    rng = np.random.default_rng([13, ORDERS.index(order), dtype(0).nbytes])
    fin = np.finfo(dtype)
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, fin.max, fin.smallest_subnormal],
                        dtype=dtype)
    for m, k in [(1, 1), (9, 2), (17, 3), (5, 4), (31, 5), (33, 6), (7, 7), (16, 8), (3, 13),
                 (12, 31), (19, 33), (1023, 3), (1030, 9), (2050, 2), (40, 67), (4095, 3),
                 (4097, 5), (8195, 2), (9, 15), (21, 23), (33, 135), (512, 13), (1024, 21)]:
        opa = data(rng, (m, k), dtype)
        if m * k > 30:
            opa.flat[rng.integers(0, m * k, 6)] = rng.choice(specials, 6)
            opa[m // 2] = -0.0  # a row of -0 terms: S = -0 in both orders
        x = data(rng, k, dtype)
        y = data(rng, m, dtype)
        for xv in (x, layout(x, "strided")):
            for alpha, beta, yv in ((1.0, 0.0, None), (-0.5, 2.0, y)):
                want = ref.gemv(alpha, opa, xv, beta, yv, order=order)
                for cfg in each_config(monkeypatch, tunings=TUNINGS[:2], threads=[1, 3]):
                    got_t = rb.gemv(alpha, np.ascontiguousarray(opa.T), xv, beta, yv, trans=True,
                                    order=order)
                    got_f = rb.gemv(alpha, np.asfortranarray(opa), xv, beta, yv, order=order)
                    assert ref.same_bits(got_t, want), (m, k, alpha, cfg)
                    assert ref.same_bits(got_f, want), (m, k, alpha, cfg)


@pytest.mark.parametrize("dtype", DTYPES)
def test_ger_matches_reference(dtype, monkeypatch):
    rng = np.random.default_rng([8, dtype(0).nbytes])
    for idx, (m, n) in enumerate([(0, 3), (3, 0), (1, 1), (7, 5), (33, 17), (5, 40)]):
        x, y = data(rng, m, dtype), layout(data(rng, n, dtype), LAYOUTS[idx % 4])
        a = layout(data(rng, (m, n), dtype), LAYOUTS[(idx + 1) % 4])
        want = ref.ger(-1.5, x, y, a)
        for cfg in each_config(monkeypatch, tunings=TUNINGS[:2]):
            assert ref.same_bits(rb.ger(-1.5, x, y, a), want), (m, n, cfg)
        for lay in LAYOUTS:  # in place, any layout of a
            a2 = layout(a, lay)
            assert rb.ger(-1.5, x, y, a2, overwrite_a=True) is a2
            assert ref.same_bits(a2, want)
    assert ref.same_bits(rb.ger(2.0, x, y), ref.ger(2.0, x, y, np.zeros((m, n), dtype)))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order", ORDERS)
def test_beta_zero_never_reads_c(order, dtype, monkeypatch):
    rng = np.random.default_rng(3)
    a, b = data(rng, (20, 30), dtype), data(rng, (30, 14), dtype)
    want = ref.gemm(1.5, a, b, order=order)
    assert not np.isnan(want).any()
    for fill in (np.nan, np.inf):
        c = np.full((20, 14), fill, dtype=dtype)
        for cfg in each_config(monkeypatch, tunings=TUNINGS[:2], threads=[1, 3]):
            assert ref.same_bits(rb.gemm(1.5, a, b, 0.0, c, order=order), want), cfg
            assert ref.same_bits(rb.gemv(1.5, a, b[:, 0], 0.0, c[:, 0], order=order),
                                 want[:, 0]), cfg
        assert ref.same_bits(rb.gemm(1.5, a, b, -0.0, c, order=order), want)


@pytest.mark.parametrize("dtype", DTYPES)
def test_overwrite_c_in_place(dtype):
    rng = np.random.default_rng(4)
    a, b = data(rng, (9, 6), dtype), data(rng, (6, 11), dtype)
    for lay in LAYOUTS:
        c = layout(data(rng, (9, 11), dtype), lay)
        want = ref.gemm(0.5, a, b, 2.0, c)
        assert rb.gemm(0.5, a, b, 2.0, c, overwrite_c=True) is c
        assert ref.same_bits(c, want)
        y = layout(data(rng, 9, dtype), lay)
        want = ref.gemv(0.5, a, b[:, 0], 2.0, y)
        assert rb.gemv(0.5, a, b[:, 0], 2.0, y, overwrite_y=True) is y
        assert ref.same_bits(y, want)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order", ORDERS)
def test_write_c_every_layout(order, dtype, monkeypatch):
    """The final scaling into C of every layout (row-major C: W x W register
    transposes; column-major: tile columns; the edges and other strides: one
    element at a time), with block and W edges inside the matrix."""
    rng = np.random.default_rng(14)
    for m, n, k in ((37, 29, 11), (32, 24, 9), (5, 3, 4)):
        a, b = data(rng, (m, k), dtype), data(rng, (k, n), dtype)
        for idx, lay in enumerate(LAYOUTS):
            alpha, beta = (-1.5, 0.0) if idx % 2 else (0.75, -2.0)
            c0 = layout(data(rng, (m, n), dtype), lay)
            want = ref.gemm(alpha, a, b, beta, c0, order=order)
            for cfg in each_config(monkeypatch, tunings=TUNINGS[::2], threads=[1, 3]):
                c = c0.copy(order="K") if lay in ("C", "F") else layout(c0, lay)
                assert rb.gemm(alpha, a, b, beta, c, overwrite_c=True, order=order) is c
                assert ref.same_bits(c, want), (m, n, k, lay, cfg)


def test_overwrite_with_overlapping_operands():
    """c (or y, a) updated in place while it is also an input: the old values are used."""
    rng = np.random.default_rng(13)
    for n in (5, 40):
        a = data(rng, (n, n), np.float64)
        want = ref.gemm(1.0, a, a, 0.5, a)
        got = a.copy()
        assert rb.gemm(1.0, got, got, 0.5, got, overwrite_c=True) is got
        assert ref.same_bits(got, want)
        x = data(rng, n, np.float64)
        want = ref.gemv(2.0, a, x, 1.0, x)
        got = x.copy()
        rb.gemv(2.0, a, got, 1.0, got, overwrite_y=True)
        assert ref.same_bits(got, want)
        m = a.copy()
        want = ref.ger(1.5, m[0], m[:, 1], m)
        rb.ger(1.5, m[0], m[:, 1], m, overwrite_a=True)
        assert ref.same_bits(m, want)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order", ORDERS)
def test_special_values(order, dtype, monkeypatch):
    rng = np.random.default_rng(5)
    fin = np.finfo(dtype)
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, fin.max, -fin.max, fin.tiny,
                         fin.smallest_subnormal, -3 * fin.smallest_subnormal, 1.0, -1.0],
                        dtype=dtype)
    m, n, k = 13, 7, 11
    a, b = data(rng, (m, k), dtype), data(rng, (k, n), dtype)
    a.flat[rng.integers(0, a.size, 12)] = rng.choice(specials, 12)
    b.flat[rng.integers(0, b.size, 8)] = rng.choice(specials, 8)
    # all-zero rows/cols of either sign (signed-zero results), huge values (overflow)
    a[3] = -0.0
    b[:, 2] = 0.0
    a[4] = fin.max
    c = data(rng, (m, n), dtype)
    c[0, 0] = np.nan
    for alpha, beta in ((1.0, 0.0), (-1.0, 1.0), (0.0, 1.0), (2.0, -0.0)):
        want = ref.gemm(alpha, a, b, beta, c, order=order)
        for cfg in each_config(monkeypatch, tunings=TUNINGS[:2], threads=[1, 2]):
            got = rb.gemm(alpha, a, b, beta, c, order=order)
            assert ref.same_bits(got, want), (alpha, beta, cfg)
    # k = 0: S = +0, so alpha*S is +0 or -0 and fma(beta, C, ...) follows
    empty_a, empty_b = np.zeros((2, 0), dtype), np.zeros((0, 3), dtype)
    assert ref.same_bits(rb.gemm(-1.0, empty_a, empty_b), np.full((2, 3), -0.0, dtype))
    # a single term: S_0 = a*b rounded, so -0 survives (no +0 start value)
    assert ref.same_bits(rb.gemm(1.0, np.array([[-0.0]], dtype), np.array([[1.0]], dtype),
                                 order=order), np.array([[-0.0]], dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order", ORDERS)
def test_paths_and_threads_agree_on_large_shapes(order, dtype, monkeypatch):
    """Default and odd block sizes, every path, 1-4 threads: the same bits
    (the portable path, with libm fma calls, gets the smaller shapes)."""
    rng = np.random.default_rng(6)
    for m, n, k in ((301, 203, 531), (2, 700, 300), (520, 1, 700), (97, 45, 1100)):
        a, b = data(rng, (m, k), dtype), np.asfortranarray(data(rng, (k, n), dtype))
        want = rb.gemm(1.0, a, b, order=order)
        assert np.allclose(want, a.astype(np.float64) @ b, rtol=1e-3,
                           atol=1e-3 * np.abs(a).max() * np.abs(b).max() * k)
        isas = [i for i in ISAS if i != "scalar" or m * n * k < 2e7]
        # the last: 2 workspaces of rows (192 + 109) for m = 301
        tunings = [(0, 0, 0, 0), (100, 50, 100, 1), (100, 50, 100, 1, 10000)]
        for cfg in each_config(monkeypatch, tunings=tunings, isas=isas):
            got = rb.gemm(1.0, a, b, order=order)
            assert ref.same_bits(got, want), (m, n, k, cfg)
        i, j = min(17, m - 1), min(5, n - 1)  # one element against the reference
        assert ref.same_bits(want[i, j], ref.gemm(1.0, a[i:i + 1], b[:, j:j + 1],
                                                  order=order)[0, 0])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order", ORDERS)
def test_batch_invariance(order, dtype):
    """A row, a column, a sub-block or a batch entry computed alone has the
    same bits as in the full product (the same terms in the same order)."""
    rng = np.random.default_rng(9)
    a, b = data(rng, (70, 300), dtype), data(rng, (300, 50), dtype)
    full = rb.gemm(1.0, a, b, order=order)
    for i in (0, 33, 69):
        assert ref.same_bits(rb.gemm(1.0, a[i:i + 1], b, order=order), full[i:i + 1])
        assert ref.same_bits(rb.gemv(1.0, b, a[i], trans=True, order=order), full[i])
        assert ref.same_bits(rb.matmul(a[i], b, order=order), full[i])
    for j in (0, 13, 49):
        assert ref.same_bits(rb.gemv(1.0, a, b[:, j], order=order), full[:, j])
        assert ref.same_bits(rb.matmul(a, b[:, j], order=order), full[:, j])
    assert ref.same_bits(rb.gemm(1.0, a[5:40], b[:, 7:31], order=order), full[5:40, 7:31])
    # transposed problem: (A B)^T = B^T A^T element by element
    assert ref.same_bits(rb.gemm(1.0, b, a, trans_a=True, trans_b=True, order=order), full.T)
    batch_a = data(rng, (3, 1, 8, 30), dtype)
    batch_b = data(rng, (4, 30, 5), dtype)
    out = rb.matmul(batch_a, batch_b, order=order)
    assert out.shape == (3, 4, 8, 5)
    for p in range(3):
        for q in range(4):
            assert ref.same_bits(out[p, q], rb.matmul(batch_a[p, 0], batch_b[q], order=order))
    assert ref.same_bits(out[1, 2], ref.gemm(1.0, batch_a[1, 0], batch_b[2], order=order))


@pytest.mark.parametrize("dtype", DTYPES)
def test_matmul_shapes_like_numpy(dtype):
    rng = np.random.default_rng(10)
    for sa, sb in [((5,), (5,)), ((5,), (5, 3)), ((4, 5), (5,)), ((2, 4, 5), (5,)),
                   ((5,), (3, 5, 2)), ((2, 1, 4, 5), (3, 5, 2)), ((0, 4, 5), (5, 2)),
                   ((4, 0), (0, 3)), ((1, 3), (3, 1))]:
        a, b = data(rng, sa, dtype), data(rng, sb, dtype)
        got, npy = rb.matmul(a, b), np.matmul(a, b)
        assert np.shape(got) == np.shape(npy), (sa, sb)
        assert type(got) is type(npy) or isinstance(got, np.ndarray)
        assert np.allclose(got, npy, rtol=1e-4, atol=1e-4 * float(np.abs(npy).max(initial=1)))
    assert ref.same_bits(rb.matmul(a, b, order="pairwise"), ref.gemm(1.0, a, b, order="pairwise"))


def test_caller_ftz_daz_does_not_change_results():
    rng = np.random.default_rng(11)
    tiny = np.finfo(np.float64).smallest_subnormal
    a = rng.standard_normal((20, 30)) * tiny * 2.0 ** 30
    b = rng.standard_normal((30, 9))
    a32 = (rng.standard_normal((20, 30)) * 1e-39).astype(np.float32)
    b32 = rng.standard_normal((30, 9)).astype(np.float32)

    def run():
        return [rb.gemm(1.0, a, b, order=o) for o in ORDERS] + \
               [rb.gemm(0.5, a32, b32, order=o) for o in ORDERS] + [rb.ger(0.5, a32[:, 0], b32[0])]

    want = run()
    out = _core.call_with_mxcsr(0x1F80 | 0x8000 | 0x0040, run)
    if out is None:
        pytest.skip("needs an x86 CPU (the MXCSR FTZ/DAZ bits exist on x86 only)")
    for g, w in zip(out[0], want):
        assert ref.same_bits(g, w)
    assert np.any(want[0] != 0)
    assert ref.same_bits(want[0], ref.gemm(1.0, a, b))


def test_subnormal_beta_under_caller_daz():
    """beta != 0 is read from its bits: under the caller's DAZ a subnormal beta
    compared equal to 0, so c was neither read (gemm returned alpha S) nor
    required (c=None computed fma(beta, <uninitialised>, alpha S))."""
    cases = [(np.float64, 1e-310, 1e300), (np.float64, np.float64(1e-310), 1e300),
             (np.float32, np.float32(1e-40), 1e38)]

    def run():
        out = []
        for dt, beta, big in cases:
            a, b = np.ones((3, 2), dt), np.ones((2, 4), dt)
            c, y = np.full((3, 4), big, dt), np.full(3, big, dt)
            out += [rb.gemm(1.0, a, b, beta, c), rb.gemv(1.0, a, b[:, 0], beta, y),
                    rb.gemm(1.0, a, b, beta, c.copy(), overwrite_c=True)]
            for call in (lambda: rb.gemm(1.0, a, b, beta), lambda: rb.gemv(1.0, a, b[:, 0], beta)):
                try:
                    out.append(call())
                except ValueError as e:
                    out.append(str(e))
        return out

    want = run()
    got = _core.call_with_mxcsr(0x1F80 | 0x8000 | 0x0040, run)
    if got is None:
        pytest.skip("needs an x86 CPU (the MXCSR FTZ/DAZ bits exist on x86 only)")
    for (dt, beta, big), g, w in zip(cases, np.array_split(np.array(got[0], object), 3),
                                     np.array_split(np.array(want, object), 3)):
        a, b = np.ones((3, 2), dt), np.ones((2, 4), dt)
        assert ref.same_bits(w[0], ref.gemm(1.0, a, b, beta, np.full((3, 4), big, dt)))
        assert w[0][0, 0] != 2  # beta * c counts
        for gi, wi in zip(g[:3], w[:3]):
            assert ref.same_bits(gi, wi)
        assert list(g[3:]) == list(w[3:]) == ["reproblas.gemm: beta != 0 needs c",
                                              "reproblas.gemv: beta != 0 needs y"]


def test_errors():
    f32, f64 = np.ones((3, 4), np.float32), np.ones((4, 2), np.float64)
    with pytest.raises(TypeError, match="mixed dtypes"):
        rb.gemm(1.0, f32, f64)
    with pytest.raises(TypeError, match="astype"):
        rb.gemm(1.0, np.ones((3, 4), np.int64), np.ones((4, 2), np.int64))
    with pytest.raises(TypeError, match="NumPy array"):
        rb.gemm(1.0, [[1]], np.ones((1, 1)))  # ([[1.0]] is a float64 array: accepted)
    # a missing operand on the fast path's shapes (a plain 2-D a): an error, not a crash
    for dt in (np.float32, np.float64):
        a = np.ones((3, 3), dt)
        for call in (lambda: rb.gemm(1.0, a, None), lambda: rb.gemm(1.0, None, a),
                     lambda: rb.gemv(1.0, a, None), lambda: rb.matmul(a, None),
                     lambda: rb.ger(1.0, a[0], None), lambda: rb.trsm(1.0, a, None),
                     lambda: rb.trsv(a, None)):
            with pytest.raises(TypeError, match="NumPy array"):
                call()
    with pytest.raises(ValueError, match="inner dimensions"):
        rb.gemm(1.0, np.ones((3, 4)), np.ones((3, 2)))
    with pytest.raises(ValueError, match="2-D"):
        rb.gemm(1.0, np.ones(3), np.ones((3, 2)))
    with pytest.raises(ValueError, match="c has shape"):
        rb.gemm(1.0, np.ones((3, 4)), np.ones((4, 2)), 1.0, np.ones((2, 3)))
    with pytest.raises(ValueError, match="beta != 0 needs c"):
        rb.gemm(1.0, np.ones((3, 4)), np.ones((4, 2)), 1.0)
    with pytest.raises(TypeError, match="beta has dtype"):
        rb.gemm(1.0, np.ones((3, 4)), np.ones((4, 2)), np.float32(1), np.ones((3, 2)))
    with pytest.raises(ValueError, match="order="):
        rb.gemm(1.0, np.ones((3, 4)), np.ones((4, 2)), order="fast")
    ro = np.ones((3, 2))
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        rb.gemm(1.0, np.ones((3, 4)), np.ones((4, 2)), 1.0, ro, overwrite_c=True)
    with pytest.raises(ValueError, match="x has 3 elements"):
        rb.gemv(1.0, np.ones((3, 4)), np.ones(3))
    with pytest.raises(ValueError, match="expected"):
        rb.ger(1.0, np.ones(3), np.ones(2), np.ones((2, 3)))
    with pytest.raises(TypeError, match="mixed dtypes"):
        rb.ger(1.0, np.ones(3, np.float32), np.ones(2), np.ones((3, 2)))
    with pytest.raises(ValueError, match="0-d"):
        rb.matmul(np.ones(()), np.ones(3))
    with pytest.raises(ValueError, match="contracted"):
        rb.matmul(np.ones((2, 3)), np.ones((4, 2)))
    with pytest.raises(ValueError, match="broadcast"):
        rb.matmul(np.ones((2, 2, 3)), np.ones((3, 3, 2)))
    with pytest.raises(TypeError, match="mixed dtypes"):
        rb.matmul(np.ones(3, np.float32), np.ones(3))
