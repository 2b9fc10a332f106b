"""On a real GPU (marker `cuda`; skipped without CuPy or a device): our CUDA
kernels against the CPU backend, bit for bit."""
import numpy as np
import pytest

import crlibm_py
import reproblas
from cuda_support import gpu_or_skip, same_bits

pytestmark = pytest.mark.cuda


@pytest.fixture(scope="module")
def cp():
    return gpu_or_skip().xp


@pytest.mark.parametrize("fname", crlibm_py.FUNCTIONS)
def test_crlibm_sample(cp, fname):
    rng = np.random.default_rng(1)
    bits = np.concatenate([rng.integers(0, 2**32, 1 << 22, dtype=np.uint64).astype(np.uint32),
                           np.array([0, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00001],
                                    np.uint32)])
    x = bits.view(np.float32)
    got = getattr(crlibm_py, fname)(cp.asarray(x))
    assert isinstance(got, cp.ndarray) and got.device == cp.cuda.Device()
    same_bits(cp.asnumpy(got).view(np.uint32), getattr(crlibm_py, fname)(x).view(np.uint32))


@pytest.mark.slow
@pytest.mark.parametrize("fname", crlibm_py.FUNCTIONS)
def test_crlibm_all_inputs(cp, fname):
    """All 2^32 inputs, in chunks of 2^28: GPU == CPU (best CPU path)."""
    f, chunk = getattr(crlibm_py, fname), 1 << 28
    for start in range(0, 1 << 32, chunk):
        bits = cp.arange(start, start + chunk, dtype=cp.uint64).astype(cp.uint32)
        got = cp.asnumpy(f(bits.view(cp.float32))).view(np.uint32)
        x = cp.asnumpy(bits).view(np.float32)
        expected = f(x).view(np.uint32)
        bad = np.nonzero(got != expected)[0]
        assert bad.size == 0, (f"{fname}: {bad.size} differ in chunk {start:#x}, first x=0x"
                               f"{x.view(np.uint32)[bad[0]]:08x}")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("order", ["sequential", "pairwise"])
def test_reproblas_routines(cp, dtype, order):
    rng = np.random.default_rng(2)
    for n in (0, 1, 1000, 100_003, 3_000_001):
        x, y = rng.standard_normal(n).astype(dtype), rng.standard_normal(n).astype(dtype)
        for r, args in (("sum", (x,)), ("asum", (x,)), ("nrm2", (x,)), ("dot", (x, y))):
            got = getattr(reproblas, r)(*map(cp.asarray, args), order=order)
            same_bits(cp.asnumpy(got), np.asarray(getattr(reproblas, r)(*args, order=order)))
        if n:
            assert reproblas.iamax(cp.asarray(x)) == reproblas.iamax(x)
    for m, n, k in ((1, 1, 1), (129, 257, 63), (1000, 700, 513), (37, 1, 4000)):
        a = rng.standard_normal((m, k)).astype(dtype)
        b = np.asfortranarray(rng.standard_normal((k, n)).astype(dtype))
        c = rng.standard_normal((m, n)).astype(dtype)
        same_bits(cp.asnumpy(reproblas.gemm(0.5, cp.asarray(a), cp.asarray(b), 2.0,
                                            cp.asarray(c), order=order)),
                  reproblas.gemm(0.5, a, b, 2.0, c, order=order))
        same_bits(cp.asnumpy(reproblas.gemv(1.0, cp.asarray(a), cp.asarray(c[:, 0]),
                                            trans=True, order=order)),
                  reproblas.gemv(1.0, a, c[:, 0], trans=True, order=order))
    v = rng.standard_normal(300).astype(dtype)
    same_bits(cp.asnumpy(reproblas.ger(2.0, cp.asarray(v), cp.asarray(v[:50]))),
              reproblas.ger(2.0, v, v[:50]))
    same_bits(cp.asnumpy(reproblas.axpy(3.0, cp.asarray(v), cp.asarray(v[::-1]))),
              reproblas.axpy(3.0, v, v[::-1].copy()))
    same_bits(cp.asnumpy(reproblas.scal(-0.5, cp.asarray(v)[::3])),
              reproblas.scal(-0.5, v[::3].copy()))
    batch = rng.standard_normal((2, 3, 65, 33)).astype(dtype)
    w = rng.standard_normal((33, 70)).astype(dtype)
    same_bits(cp.asnumpy(reproblas.matmul(cp.asarray(batch), cp.asarray(w), order=order)),
              reproblas.matmul(batch, w, order=order))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("order", ["sequential", "pairwise"])
def test_reproblas_solves(cp, dtype, order):
    """trsm (lower, upper, transposed) and trsv; the convolutions: test_cuda_emu_conv.py's
    test_gpu_matches_cpu."""
    rng = np.random.default_rng(3)
    for n, nrhs in ((1, 1), (130, 7), (300, 65)):
        a = (np.tril(rng.standard_normal((n, n))) / n + np.eye(n) * 2).astype(dtype)
        b = rng.standard_normal((n, nrhs)).astype(dtype)
        for lower, trans in ((True, False), (False, False), (True, True)):
            m = a if lower else a.T.copy()
            same_bits(cp.asnumpy(reproblas.trsm(0.5, cp.asarray(m), cp.asarray(b), lower=lower,
                                                trans_a=trans, order=order)),
                      reproblas.trsm(0.5, m, b, lower=lower, trans_a=trans, order=order))
        same_bits(cp.asnumpy(reproblas.trsv(cp.asarray(a), cp.asarray(b[:, 0]), lower=True,
                                            order=order)),
                  reproblas.trsv(a, b[:, 0], lower=True, order=order))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_reproblas_kahan(cp, dtype):
    """order="kahan" (src/cuda/reproblas/kahan.cuh) against the CPU, long vectors and
    the special values of its chunks."""
    rng = np.random.default_rng(5)
    big = np.finfo(dtype).max
    for n in (1, 17, 1024, 1025, 100_003, 1 << 24):
        x = (rng.standard_normal(n) * np.exp2(rng.integers(-20, 20, n))).astype(dtype)
        y = rng.standard_normal(n).astype(dtype)
        for r, args in (("sum", (x,)), ("asum", (x,)), ("nrm2", (x,)), ("dot", (x, y))):
            same_bits(cp.asnumpy(getattr(reproblas, r)(*map(cp.asarray, args), order="kahan")),
                      np.asarray(getattr(reproblas, r)(*args, order="kahan")))
    for x in (np.array([1.0, np.inf] * 700, dtype), np.array([big, big, 1.0] * 700, dtype),
              np.array([1.0] * 1500 + [np.nan], dtype)):
        same_bits(cp.asnumpy(reproblas.sum(cp.asarray(x), order="kahan")),
                  np.asarray(reproblas.sum(x, order="kahan")))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("order", ["exact", "kahan"])
def test_reproblas_extra_orders_gemm(cp, dtype, order):
    """gemv / gemm in order="exact" and "kahan" (src/cuda/reproblas/exact_gemm.cuh,
    kahan_gemm.cuh) against the CPU: tiles of every size, long sums (many chunks, the
    widest exact groups), transposes, beta = 0 over NaN, and non-finite entries."""
    rng = np.random.default_rng(7)
    big = np.finfo(dtype).max
    for m, n, k in ((1, 1, 1), (129, 257, 63), (300, 200, 1500), (5, 3, 100_003)):
        a = (rng.standard_normal((m, k)) * np.exp2(rng.integers(-20, 20, (m, k)))).astype(dtype)
        b = np.asfortranarray(rng.standard_normal((k, n)).astype(dtype))
        a[0, :3] = [big, big, -big] if k >= 3 else a[0, :3]
        if m > 2:
            a[1, 0], a[2, k // 2] = np.inf, np.nan
        c = np.full((m, n), np.nan, dtype)
        for trans_a, trans_b in ((False, False), (True, True)):
            aa = np.ascontiguousarray(a.T) if trans_a else a
            bb = np.ascontiguousarray(b.T) if trans_b else b
            same_bits(cp.asnumpy(reproblas.gemm(0.5, cp.asarray(aa), cp.asarray(bb), 0.0,
                                                cp.asarray(c), trans_a, trans_b, order=order)),
                      reproblas.gemm(0.5, aa, bb, 0.0, c, trans_a, trans_b, order=order))
        c = rng.standard_normal((m, n)).astype(dtype)
        same_bits(cp.asnumpy(reproblas.gemm(-2.0, cp.asarray(a), cp.asarray(b), 0.75,
                                            cp.asarray(c), order=order)),
                  reproblas.gemm(-2.0, a, b, 0.75, c, order=order))
    for m, k in ((4000, 3000), (3, 1 << 20)):
        a = rng.standard_normal((m, k)).astype(dtype)
        x, y = rng.standard_normal(k).astype(dtype), rng.standard_normal(m).astype(dtype)
        same_bits(cp.asnumpy(reproblas.gemv(1.5, cp.asarray(a), cp.asarray(x), -1.0,
                                            cp.asarray(y), order=order)),
                  reproblas.gemv(1.5, a, x, -1.0, y, order=order))
        same_bits(cp.asnumpy(reproblas.gemv(1.5, cp.asarray(a.T), cp.asarray(x), trans=True,
                                            order=order)),
                  reproblas.gemv(1.5, a.T, x, trans=True, order=order))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_reproblas_exact_cumsum(cp, dtype):
    """cumsum(order="exact") (src/cuda/reproblas/exact_scan.cuh) against the CPU: long rows
    (many pieces), many short rows, both axes, exclusive, non-finite terms."""
    rng = np.random.default_rng(8)
    for shape in ((3, 200_003), (1000, 300), (1, 1 << 21)):
        x = (rng.standard_normal(shape) * np.exp2(rng.integers(-40, 40, shape))).astype(dtype)
        x[0, 5], x[-1, -7] = np.inf, np.nan
        for axis in (-1, 0):
            for exclusive in (False, True):
                same_bits(cp.asnumpy(reproblas.cumsum(cp.asarray(x), axis=axis, order="exact",
                                                      exclusive=exclusive)),
                          reproblas.cumsum(x, axis=axis, order="exact", exclusive=exclusive))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_reproblas_scans_kahan_exact(cp, dtype):
    """cumsum(kahan) (long rows in pieces), scan_by_key / segment_sum / reduce_by_key in
    kahan and exact, cumprod(exact): src/cuda/reproblas/kahan_scan.cuh, seg_extra.cuh,
    exact_prod.cuh against the CPU."""
    rng = np.random.default_rng(6)
    big = np.finfo(dtype).max
    for n in (1, 17, 1025, 40_000, 1_000_003):
        x = (rng.standard_normal(n) * np.exp2(rng.integers(-20, 20, n))).astype(dtype)
        if n > 2000:
            x[[1500, 1501, n - 7]] = (big, big, np.nan)
        for excl in (False, True):
            with np.errstate(all="ignore"):
                want = reproblas.cumsum(x, order="kahan", exclusive=excl)
            same_bits(cp.asnumpy(reproblas.cumsum(cp.asarray(x), order="kahan",
                                                  exclusive=excl)), want)
    a = rng.standard_normal((300, 2000)).astype(dtype)
    for axis in (0, 1):
        same_bits(cp.asnumpy(reproblas.cumsum(cp.asarray(a), axis=axis, order="kahan")),
                  reproblas.cumsum(a, axis=axis, order="kahan"))
    n = 300_000
    v, w = rng.standard_normal(n).astype(dtype), rng.standard_normal(n).astype(dtype)
    off = np.unique(np.concatenate([[0, n, 5, 5, 6, 100_000, 200_000],
                                    rng.integers(0, n, 3000)])).astype(np.int64)
    keys = np.repeat(np.arange(off.shape[0] - 1), np.diff(off))
    for order in ("kahan", "exact"):
        for kw in ({}, {"transform": "abs"}, {"transform": "square"}):
            same_bits(cp.asnumpy(reproblas.segment_sum(cp.asarray(v), off, order=order, **kw)),
                      reproblas.segment_sum(v, off, order=order, **kw))
            same_bits(cp.asnumpy(reproblas.scan_by_key(keys, cp.asarray(v), order=order,
                                                       **kw)),
                      reproblas.scan_by_key(keys, v, order=order, **kw))
        same_bits(cp.asnumpy(reproblas.segment_sum(cp.asarray(v), off, order=order,
                                                   weights=cp.asarray(w))),
                  reproblas.segment_sum(v, off, order=order, weights=w))
        _, s = reproblas.reduce_by_key(cp.asarray(keys), cp.asarray(v), order=order)
        same_bits(cp.asnumpy(s), reproblas.reduce_by_key(keys, v, order=order)[1])
        one_run = np.zeros(n, np.int64)  # a long run: in pieces
        same_bits(cp.asnumpy(reproblas.scan_by_key(one_run, cp.asarray(v), order=order,
                                                   weights=cp.asarray(w))),
                  reproblas.scan_by_key(one_run, v, order=order, weights=w))
    p = rng.uniform(0.5, 2.0, (64, 5000)).astype(dtype)
    p[3, 10], p[5, 0] = 0.0, np.inf
    long_row = (1 + rng.choice([-2, -1, 1, 2], 1_000_003) * float(np.finfo(dtype).eps) / 2)
    for q in (p, long_row.astype(dtype)):  # the long row in pieces
        for excl in (False, True):
            same_bits(cp.asnumpy(reproblas.cumprod(cp.asarray(q), order="exact",
                                                   exclusive=excl)),
                      reproblas.cumprod(q, order="exact", exclusive=excl))
