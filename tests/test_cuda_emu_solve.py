"""trsv / trsm CUDA kernels (src/cuda/reproblas/trsm.cuh), host-emulated and
driven through the public API on "device" arrays: bitwise the CPU backend's
results (every CPU path, 1 and 3 threads), with the NumPy path's checks."""
import itertools

import numpy as np
import pytest

import reproblas
from reproblas import _cuda as rb_cuda
from cuda_support import emu_array, same_bits
from test_cuda_emu_api import _emu, gpu  # noqa: F401 (fixtures: GPU arrays to the emulator)
from test_cuda_emu_reproblas import _cpu_everywhere
from test_reproblas_gemm import data
from test_reproblas_trsm import triangle

DTYPES = (np.float32, np.float64)
ORDERS = ("sequential", "pairwise")
FLAGS = list(itertools.product((False, True), repeat=3))  # lower, trans, unit


def _specials(rng, a, b, lower, dtype):
    fi = np.finfo(dtype)
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, fi.smallest_subnormal,
                         -fi.smallest_subnormal, fi.max, fi.tiny], dtype=dtype)
    n = a.shape[0]
    tri = np.tril_indices(n) if lower else np.triu_indices(n)
    pick = rng.random(len(tri[0])) < 0.15
    a[tri[0][pick], tri[1][pick]] = rng.choice(specials, pick.sum())
    pick = rng.random(b.shape) < 0.15
    b[pick] = rng.choice(specials, pick.sum())


@pytest.fixture(params=[128, 2], ids=lambda b: f"block{b}")
def block(request, monkeypatch):
    """Rows per diagonal block of a lower solve: small ones force the gemm
    updates, and pairwise several carried blocks (r0 = 6: 4 + 2, 14: 8 + 4 + 2)."""
    monkeypatch.setattr(rb_cuda, "TRSM_BLOCK", request.param)
    return request.param


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order", ORDERS)
def test_trsm_every_case(gpu, block, order, dtype, monkeypatch):
    """Both sides, triangles, transposes, unit or not; odd sizes, strided and
    Fortran-ordered b, alpha scaling, special values (zero diagonals included)."""
    rng = np.random.default_rng(11)
    for idx, (lower, trans, unit) in enumerate(FLAGS):
        for side in ("left", "right"):
            m, n = 7, 5
            size = m if side == "left" else n
            a = triangle(rng, size, dtype, lower)
            b = data(rng, (m, n), dtype)
            if idx % 2:
                _specials(rng, a, b, lower, dtype)
                a[2, 2] = [0.0, -0.0][idx % 4 // 2]  # singular: inf / NaN as IEEE
            if idx % 3 == 0:
                b = np.asfortranarray(b)
            alpha = [1.0, -0.75, 3.0][idx % 3]
            kw = dict(side=side, lower=lower, trans_a=trans, unit_diagonal=unit, order=order)
            got = reproblas.trsm(alpha, emu_array(a), emu_array(b), **kw)
            assert got.flags.c_contiguous and got.shape == b.shape
            same_bits(got, _cpu_everywhere(monkeypatch, lambda: reproblas.trsm(
                alpha, a, b, **kw)))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order", ORDERS)
def test_trsv_every_case(gpu, block, order, dtype, monkeypatch):
    rng = np.random.default_rng(12)
    for idx, (lower, trans, unit) in enumerate(FLAGS):
        a = triangle(rng, 15, dtype, lower)
        b = data(rng, (15,), dtype)
        if idx % 2:
            _specials(rng, a, b, lower, dtype)
        a_dev = emu_array(np.asfortranarray(a) if idx % 3 else a)  # any layout of a
        got = reproblas.trsv(a_dev, emu_array(b[::1]), lower=lower, trans=trans,
                             unit_diagonal=unit, order=order)
        same_bits(got, _cpu_everywhere(monkeypatch, lambda: reproblas.trsv(
            a, b, lower=lower, trans=trans, unit_diagonal=unit, order=order)))


@pytest.mark.parametrize("order", ORDERS)
def test_long_rows_and_many_rhs(gpu, order, monkeypatch):
    """Rows longer than one shared-memory stretch (256), more right-hand sides
    than one block, non-power-of-two pairwise lengths, a lower solve in blocks of
    32 rows (pairwise r0 = 288: carried blocks of 256 and 32)."""
    monkeypatch.setattr(rb_cuda, "TRSM_BLOCK", 32)
    rng = np.random.default_rng(13)
    a = triangle(rng, 300, np.float32, True)
    a[np.tril_indices(300, -1)] /= 30
    b = data(rng, (300, 2), np.float32)
    same_bits(reproblas.trsm(0.5, emu_array(a), emu_array(b), order=order, lower=True),
              _cpu_everywhere(monkeypatch, lambda: reproblas.trsm(0.5, a, b, order=order,
                                                                  lower=True)))
    a = triangle(rng, 3, np.float64, False)
    b = data(rng, (261, 3), np.float64)
    same_bits(reproblas.trsm(1.0, emu_array(a), emu_array(b), side="right", order=order),
              _cpu_everywhere(monkeypatch, lambda: reproblas.trsm(1.0, a, b, side="right",
                                                                  order=order)))


def test_overwrite_empty_and_errors(gpu):
    rng = np.random.default_rng(14)
    a = triangle(rng, 6, np.float64, True)
    b = data(rng, (6, 4), np.float64)
    bb = emu_array(b.copy()[:, ::-1])  # strided, written in place
    assert reproblas.trsm(2.0, emu_array(a), bb, lower=True, overwrite_b=True) is bb
    same_bits(bb, reproblas.trsm(2.0, a, b[:, ::-1], lower=True))
    v = emu_array(b[:, 0].copy())
    assert reproblas.trsv(emu_array(a), v, lower=True, overwrite_b=True) is v
    same_bits(v, reproblas.trsv(a, b[:, 0], lower=True))
    same_bits(reproblas.trsm(1.0, emu_array(a), emu_array(b[:, :0])), b[:, :0])
    same_bits(reproblas.trsv(emu_array(a[:0, :0]), emu_array(b[:0, 0])), b[:0, 0])
    with pytest.raises(ValueError, match="square"):
        reproblas.trsm(1.0, emu_array(a), emu_array(b), side="right")
    with pytest.raises(ValueError, match="side"):
        reproblas.trsm(1.0, emu_array(a), emu_array(b), side="up")
    with pytest.raises(TypeError, match="mixed dtypes"):
        reproblas.trsv(emu_array(a), emu_array(b[:, 0].astype(np.float32)))
    with pytest.raises(TypeError, match="lower"):
        reproblas.trsv(emu_array(a), emu_array(b[:, 0]), lower="yes")
    with pytest.raises(ValueError, match="order"):
        reproblas.trsv(emu_array(a), emu_array(b[:, 0]), order="tree")
    with pytest.raises(TypeError, match="GPU and some in host"):
        reproblas.trsm(1.0, emu_array(a), b)


@pytest.mark.cuda
@pytest.mark.parametrize("order", ORDERS)
def test_gpu_matches_cpu(order):
    """On a real GPU (skipped without CuPy or a device): every case, larger sizes."""
    from cuda_support import gpu_or_skip
    cp = gpu_or_skip().xp
    rng = np.random.default_rng(15)
    for dtype in DTYPES:
        for lower, trans, unit in FLAGS:
            for side in ("left", "right"):
                a = triangle(rng, 300, dtype, lower)
                a[~np.eye(300, dtype=bool)] /= 40  # well conditioned (junk NaN stays)
                b = data(rng, (300, 300), dtype)
                kw = dict(side=side, lower=lower, trans_a=trans, unit_diagonal=unit, order=order)
                got = reproblas.trsm(0.5, cp.asarray(a), cp.asarray(b), **kw)
                assert isinstance(got, cp.ndarray)
                same_bits(cp.asnumpy(got), reproblas.trsm(0.5, a, b, **kw))
            got = reproblas.trsv(cp.asarray(a), cp.asarray(b[:, 0]), lower=lower, trans=trans,
                                 unit_diagonal=unit, order=order)
            same_bits(cp.asnumpy(got), reproblas.trsv(a, b[:, 0], lower=lower, trans=trans,
                                                      unit_diagonal=unit, order=order))
