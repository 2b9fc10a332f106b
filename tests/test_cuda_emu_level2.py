"""Level-2 CUDA kernels (src/cuda/reproblas/level2.cuh), host-emulated and driven
through the public API on "device" arrays: bitwise the CPU backend's results (every
CPU path, 1 and 3 threads) for every routine, both orders, every flag; errors as on
the CPU."""
import itertools

import numpy as np
import pytest

import reproblas as rb
from reproblas import _cuda as rb_cuda
from cuda_support import emu_array, same_bits
from level2_support import data, pack, sym_full, to_band
from test_cuda_emu_api import _emu, gpu  # noqa: F401 (fixtures: GPU arrays to the emulator)
from test_cuda_emu_reproblas import _cpu_everywhere

DTYPES = (np.float32, np.float64)
ORDERS = ("sequential", "pairwise")


@pytest.fixture
def launched(monkeypatch):
    """The level-2 calls that reach the CUDA backend."""
    calls = []
    real = rb_cuda.CudaBackend.level2

    def spy(self, *args):
        calls.append(args[0])
        return real(self, *args)

    monkeypatch.setattr(rb_cuda.CudaBackend, "level2", spy)
    return calls


def _x(rng, n, dtype, special):
    x = data(rng, n, dtype)
    if special and n > 3:
        x[[1, n - 2]] = [np.inf, np.nan]
    return x


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order", ORDERS)
def test_products_and_solves(gpu, order, dtype, monkeypatch, launched):
    rng = np.random.default_rng(21)
    n = 37
    E = emu_array
    for special in (False, True):
        x, y = _x(rng, n, dtype, special), data(rng, n, dtype)
        for lower in (False, True):
            a = data(rng, (n, n), dtype)
            full = sym_full(a, lower)
            ap = pack(full, lower)
            kl, ku = (3, 0) if lower else (0, 3)
            band = to_band(full, kl, ku)[: 4] if lower else to_band(full, kl, ku)[-4:]
            calls = [
                ("symv", lambda m, A: m.symv(1.5, A(a), A(x), -0.5, A(y), lower=lower,
                                              order=order)),
                ("symv F", lambda m, A: m.symv(1.0, A(np.asfortranarray(a)), A(x), lower=lower,
                                                order=order)),
                ("spmv", lambda m, A: m.spmv(n, 2.0, A(ap), A(x), lower=lower, order=order)),
                ("sbmv", lambda m, A: m.sbmv(3, 1.0, A(band), A(x), 2.0, A(y), lower=lower,
                                              order=order)),
            ]
            for trans, unit in itertools.product((False, True), repeat=2):
                f = dict(lower=lower, trans=trans, unit_diagonal=unit, order=order)
                tri = a.copy()
                tri[np.diag_indices(n)] = 2.0 ** rng.integers(-1, 2, n)
                tb = to_band(tri, kl, ku)
                tb = tb[:4] if lower else tb[-4:]
                tp = pack(tri, lower)
                calls += [
                    ("trmv", lambda m, A, f=f, tri=tri: m.trmv(A(tri), A(x), **f)),
                    ("tpmv", lambda m, A, f=f, tp=tp: m.tpmv(n, A(tp), A(x), **f)),
                    ("tbmv", lambda m, A, f=f, tb=tb: m.tbmv(3, A(tb), A(x), **f)),
                    ("tbsv", lambda m, A, f=f, tb=tb: m.tbsv(3, A(tb), A(y), **f)),
                    ("tpsv", lambda m, A, f=f, tp=tp: m.tpsv(n, A(tp), A(y), **f)),
                ]
            for trans in (False, True):
                gb = to_band(a[:30], 2, 5)
                xx = x[:30] if trans else x
                calls.append(("gbmv", lambda m, A, gb=gb, xx=xx, trans=trans: m.gbmv(
                    30, n, 2, 5, 0.75, A(gb), A(xx), trans=trans, order=order)))
            for name, call in calls:
                with np.errstate(all="ignore"):
                    before = len(launched)
                    got = call(rb, E)
                    assert len(launched) == before + 1, f"{name}: no level-2 kernel ran"
                    want = _cpu_everywhere(monkeypatch, lambda: call(rb, lambda v: v))
                same_bits(got, want)


@pytest.mark.parametrize("dtype", DTYPES)
def test_rank_updates(gpu, dtype, monkeypatch):
    rng = np.random.default_rng(22)
    n = 29
    x, y = data(rng, n, dtype), data(rng, n, dtype)
    E = emu_array
    for lower in (False, True):
        a = data(rng, (n, n), dtype)
        ap = pack(a, lower)
        for name, call in [
                ("syr", lambda m, A: m.syr(0.5, A(x), lower=lower, a=A(a))),
                ("syr none", lambda m, A: m.syr(0.5, A(x), lower=lower)),
                ("syr2", lambda m, A: m.syr2(-1.5, A(x), A(y), lower=lower, a=A(a))),
                ("spr", lambda m, A: m.spr(n, 0.5, A(x), A(ap), lower=lower)),
                ("spr2", lambda m, A: m.spr2(n, 0.5, A(x), A(y), A(ap), lower=lower))]:
            got = call(rb, E)
            same_bits(got, _cpu_everywhere(monkeypatch, lambda: call(rb, lambda v: v)))


def test_overwrite_empty_and_errors(gpu):
    rng = np.random.default_rng(23)
    a = data(rng, (5, 5), np.float64)
    x = data(rng, 5, np.float64)
    xd = emu_array(x.copy())
    assert rb.trmv(emu_array(a), xd, overwrite_x=True) is xd
    same_bits(xd, rb.trmv(a, x))
    yd = emu_array(x.copy())
    assert rb.symv(1.0, emu_array(a), emu_array(x), 1.0, yd, overwrite_y=True) is yd
    same_bits(yd, rb.symv(1.0, a, x, 1.0, x))
    same_bits(rb.symv(1.0, emu_array(a[:0, :0]), emu_array(x[:0])), x[:0])
    same_bits(rb.tpsv(0, emu_array(x[:0]), emu_array(x[:0])), x[:0])
    with pytest.raises(ValueError, match="square"):
        rb.symv(1.0, emu_array(a[:4]), emu_array(x))
    with pytest.raises(TypeError, match="dtype"):
        rb.trmv(emu_array(a), emu_array(x.astype(np.float32)))
