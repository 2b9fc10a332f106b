"""gemv / gemm in order="exact" and "kahan" and cumsum(order="exact") on CUDA arrays
(src/cuda/reproblas/exact_gemm.cuh, kahan_gemm.cuh, exact_scan.cuh), through the host
emulation: every result has the CPU's bits (docs/contract.md §5.4, §5.5)."""
import numpy as np
import pytest

import reproblas as rb
from cuda_support import emu_array, same_bits
from reproblas import _cuda, _scan_cuda
from test_cuda_emu_api import _emu, gpu  # noqa: F401 (fixtures: GPU arrays to the emulator)
from test_cuda_emu_reproblas import _cpu_everywhere

DTYPES = [np.float32, np.float64]
ORDERS = ["exact", "kahan"]


def _wide(rng, shape, dtype, lo=-30, hi=30):
    """Values over many binades (cancellation and rounding in every sum)."""
    return (rng.standard_normal(shape) * np.exp2(rng.integers(lo, hi, shape))).astype(dtype)


def _operands(rng, dtype, m, k, n, kind):
    a, b = _wide(rng, (m, k), dtype), _wide(rng, (k, n), dtype)
    if kind == "cancel" and k >= 2:  # each row's products cancel but for a tiny rest
        a[:, 1::2][:, :k // 2] = a[:, 0::2][:, :k // 2]
        b[1::2][:k // 2] = -b[0::2][:k // 2]
        if k % 2:
            a[:, -1] = np.finfo(dtype).tiny
    elif kind == "special" and m * k * n:
        big = np.finfo(dtype).max
        a.flat[::7] = big                 # products that overflow
        a[0, 0], b[0, 0] = np.inf, 0.0    # inf * 0: NaN
        if m > 1:
            a[1, 0] = -np.inf
        if m > 2 and k > 1:
            a[2, :2] = [np.inf, -np.inf]  # inf - inf: NaN
        if m > 3:
            a[3, :] = -0.0
            b[:, :] = np.where(b == 0, 1.0, b)
        if m > 4 and k > 1:
            a[4, 1] = np.nan
    return a, b


CASES = [  # (m, k, n)
    (5, 37, 3), (1, 9, 6), (6, 1, 2), (4, 0, 3), (7, 2500, 1), (3, 1100, 2), (9, 16, 1),
    (2, 17, 5), (0, 3, 2), (3, 4, 0),
]
SCALES = [(1.0, 0.0), (-2.5, 0.0), (0.75, -1.25), (3.0, -0.0), (1.0, 1.0)]


def _cpu_and_gpu(monkeypatch, order, alpha, a, trans_a, b, trans_b, beta, c):
    """(GPU result, the result of every CPU path and thread count)."""
    want = _cpu_everywhere(monkeypatch, lambda: rb.gemm(alpha, a, b, beta, c.copy(), trans_a,
                                                        trans_b, order=order))
    got = rb.gemm(alpha, emu_array(a), emu_array(b), beta, emu_array(c.copy()), trans_a,
                  trans_b, order=order)
    return got, want


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order", ORDERS)
def test_gemm_against_the_cpu(gpu, monkeypatch, order, dtype):
    rng = np.random.default_rng(5)
    for m, k, n in CASES:
        for kind in ("wide", "cancel", "special"):
            a, b = _operands(rng, dtype, m, k, n, kind)
            for trans_a in (False, True):
                for trans_b in (False, True):
                    aa = np.ascontiguousarray(a.T) if trans_a else a
                    bb = np.ascontiguousarray(b.T) if trans_b else b
                    for alpha, beta in SCALES:
                        c = _wide(rng, (m, n), dtype)
                        if beta == 0.0:
                            c[...] = np.nan  # never read (§2.4)
                        got, want = _cpu_and_gpu(monkeypatch, order, alpha, aa, trans_a, bb,
                                                 trans_b, beta, c)
                        same_bits(got, want)
                        if (m, k, n, kind) == (5, 37, 3, "cancel") and order == "exact":
                            # the exact sums really cancel: far from the sequential order's
                            assert not np.array_equal(
                                want, rb.gemm(alpha, aa, bb, beta, c.copy(), trans_a, trans_b))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order", ORDERS)
def test_gemv_against_the_cpu(gpu, order, dtype):
    rng = np.random.default_rng(6)
    for m, k in ((7, 2500), (1, 3000), (33, 5), (4, 0), (0, 5), (3, 1024), (5, 1040)):
        for kind in ("wide", "cancel", "special"):
            a, x = _operands(rng, dtype, m, k, 1, kind)
            x = x[:, 0]
            for trans in (False, True):
                aa = np.ascontiguousarray(a.T) if trans else a
                for alpha, beta in SCALES:
                    y = _wide(rng, m, dtype)
                    if beta == 0.0:
                        y[...] = np.nan
                    want = rb.gemv(alpha, aa, x, beta, y.copy(), trans, order=order)
                    got = rb.gemv(alpha, emu_array(aa), emu_array(x), beta, emu_array(y.copy()),
                                  trans, order=order)
                    same_bits(got, want)
    # out= and overwrite_y on the device, strided operands
    a, x = _wide(rng, (6, 40), dtype), _wide(rng, 40, dtype)
    y = _wide(rng, 6, dtype)
    want = rb.gemv(2.0, a[:, ::2], x[::2], 0.5, y.copy(), order=order)
    yy = emu_array(y.copy())
    assert rb.gemv(2.0, emu_array(a)[:, ::2], emu_array(x)[::2], 0.5, yy, overwrite_y=True,
                   order=order) is yy
    same_bits(yy, want)
    out = emu_array(np.empty(6, dtype))
    assert rb.gemv(2.0, emu_array(a)[:, ::2], emu_array(x)[::2], order=order, out=out) is out
    same_bits(out, rb.gemv(2.0, a[:, ::2], x[::2], order=order))


@pytest.mark.parametrize("dtype", DTYPES)
def test_exact_gemm_group_never_changes_a_bit(_emu, dtype):
    """Any split of an element's terms among a group's threads gives the same bits (the
    accumulators add exactly), the grid stride included (few emulated blocks)."""
    rng = np.random.default_rng(7)
    for m, k, n in ((3, 700, 2), (40, 9, 3)):
        for kind in ("wide", "cancel", "special"):
            a, b = _operands(rng, dtype, m, k, n, kind)
            want = rb.gemm(1.5, a, b, order="exact")
            for group in (1, 2, 16, 64, 256):
                c = np.full((m, n), np.nan, dtype)
                _cuda.extra_gemm(_emu, "exact", 1.5, a, (k, 1), b, (n, 1), 0.0, c, (n, 1), k,
                                 group=group)
                same_bits(c, want)


@pytest.mark.parametrize("dtype", DTYPES)
def test_kahan_gemm_both_decompositions(_emu, dtype):
    """A group per element or a group per (element, chunk) with a join per element: the same
    joins, so the CPU's bits either way (more chunks than the emulated grid holds at once)."""
    rng = np.random.default_rng(10)
    for m, k, n in ((3, 5000, 2), (2, 1025, 3), (4, 40, 1)):
        for kind in ("wide", "cancel", "special"):
            a, b = _operands(rng, dtype, m, k, n, kind)
            bt = np.ascontiguousarray(b.T)  # op(B) = bt.T: unit stride along k
            for alpha, beta in ((1.0, 0.0), (0.5, -2.0)):
                c0 = _wide(rng, (m, n), dtype)
                want = rb.gemm(alpha, a, bt, beta, c0.copy(), trans_b=True, order="kahan")
                for split in (False, True):
                    c = c0.copy()
                    _cuda.extra_gemm(_emu, "kahan", alpha, a, (k, 1), bt, (1, k), beta, c, (n, 1),
                                     k, split=split)
                    same_bits(c, want)


def test_kahan_gemm_split_choice():
    assert _cuda.kahan_gemm_split(3, 5000) and _cuda.kahan_gemm_split(1, 1 << 20)
    assert not _cuda.kahan_gemm_split(3, 1024)          # one chunk
    assert not _cuda.kahan_gemm_split(10**6, 5000)      # the elements fill the device
    assert not _cuda.kahan_gemm_split(1000, 1 << 30)    # too many pairs to store


def test_exact_gemm_group_choice():
    """A power of two dividing the block; wider for long sums, narrower when the elements
    fill the device."""
    for elements, k in ((1, 10), (1, 10**6), (10, 5000), (10**6, 5000), (3000, 3000)):
        g = _cuda.exact_gemm_group(elements, k)
        assert 1 <= g <= _cuda.THREADS and _cuda.THREADS % g == 0
    assert _cuda.exact_gemm_group(1, 10) == 1
    assert _cuda.exact_gemm_group(1, 10**6) == _cuda.THREADS
    assert _cuda.exact_gemm_group(10**6, 10**6) == 1


def test_kahan_gemv_fallback_is_the_pairwise_sum(gpu):
    """S not finite: the pairwise sum of the terms (§5.5), here different from the
    sequential one ([max, max, -max, -max, 1]: inf + -inf is NaN, the sequential sum is inf)."""
    big = np.finfo(np.float64).max
    a = np.array([[big, big, -big, -big, 1.0], [big, 1.0, 1.0, 1.0, 1.0]])
    x = np.ones(5)
    got = np.asarray(rb.gemv(1.0, emu_array(a), emu_array(x), order="kahan"))
    assert np.isnan(got[0]) and got[1] == big
    same_bits(got, rb.gemv(1.0, a, x, order="kahan"))


def test_gemm_new_orders_keep_refusing_other_routines(gpu):
    a = emu_array(np.ones((3, 3)))
    for order in ORDERS:
        with pytest.raises(ValueError, match=rf"reproblas\.matmul: order='{order}'"):
            rb.matmul(a, a, order=order)
        with pytest.raises(ValueError, match=rf"reproblas\.syrk: order='{order}'"):
            rb.syrk(1.0, a, order=order)


# ---- cumsum(order="exact") ----

def _scan_cases(rng, dtype):
    info = np.finfo(dtype)
    a = _wide(rng, (5, 2600), dtype, info.minexp, info.maxexp - 12)
    a[1, 3], a[1, 2000], a[2, 1500] = np.inf, -np.inf, np.nan
    a[3, :] = -0.0
    a[4, 1::2] = -a[4, 0::2]  # every other prefix exactly zero
    return a


@pytest.mark.parametrize("dtype", DTYPES)
def test_cumsum_exact_against_the_cpu(gpu, dtype):
    rng = np.random.default_rng(8)
    a = _scan_cases(rng, dtype)
    for exclusive in (False, True):
        same_bits(rb.cumsum(emu_array(a), order="exact", exclusive=exclusive),
                  rb.cumsum(a, order="exact", exclusive=exclusive))
        b = a[:, :300]
        same_bits(rb.cumsum(emu_array(b), axis=0, order="exact", exclusive=exclusive),
                  rb.cumsum(b, axis=0, order="exact", exclusive=exclusive))
        same_bits(rb.cumsum(emu_array(b), axis=None, order="exact", exclusive=exclusive),
                  rb.cumsum(b, axis=None, order="exact", exclusive=exclusive))
    same_bits(rb.cumsum(emu_array(a[:, :0]), order="exact"), rb.cumsum(a[:, :0], order="exact"))
    same_bits(rb.cumsum(emu_array(a[0, :1]), order="exact", exclusive=True),
              np.zeros(1, dtype))
    out = emu_array(np.empty_like(a))
    assert rb.cumsum(emu_array(a), order="exact", out=out) is out
    same_bits(out, rb.cumsum(a, order="exact"))


@pytest.mark.parametrize("dtype", DTYPES)
def test_cumsum_exact_pieces_never_change_a_bit(_emu, dtype):
    """The pieces' accumulators and their running starts add exactly: any piece size gives
    the bits of one accumulator per row (the CPU's)."""
    rng = np.random.default_rng(9)
    a = _scan_cases(rng, dtype)[:, :700]
    for exclusive in (0, 1):
        want = rb.cumsum(a, order="exact", exclusive=bool(exclusive))
        for piece in (1, 3, 64, 700, 5000):
            out = np.full_like(a, np.nan)
            _scan_cuda.exact_scan_rows(_emu, exclusive, np.ascontiguousarray(a), out,
                                       piece=piece)
            same_bits(out, want)


def test_cumsum_exact_partial_sums_never_overflow(gpu):
    big = np.finfo(np.float32).max
    x = np.array([big, big, -big, -big, 1.0], np.float32)
    got = np.asarray(rb.cumsum(emu_array(x), order="exact"))
    assert got[0] == big and np.isinf(got[1]) and got[2] == big and got[3] == 0 and got[4] == 1
    same_bits(got, rb.cumsum(x, order="exact"))


def test_scan_limb_counts_are_the_headers():
    """_scan_cuda sizes its slots by rb_xacc_limbs (checked against src/c/order/exact.h by
    test_reproblas_exact.py's test_cuda_limb_counts_match_the_header)."""
    assert _scan_cuda.EXACT_LIMBS == {s: _cuda.EXACT_LIMBS[s, False] for s in ("f32", "f64")}
