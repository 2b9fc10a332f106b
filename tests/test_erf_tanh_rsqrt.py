"""erf, tanh and rsqrt where their code changes regime, against MPFR on every path;
the scalar-call benchmark baseline; one RLIBM interval of erf regenerated bit for bit."""
import math
import os
import re
import sys

import numpy as np
import pytest

from crlibm_py import _ufuncs
from helpers import FUNCTIONS, SUPPORTED_ISAS, apply, assert_same_bits
from mpfr_ref import ref_bits

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))


def _with_neighbours(bits, k=2):
    b = np.asarray(bits, dtype=np.int64)
    out = np.unique((b[:, None] + np.arange(-k, k + 1)[None, :]).ravel())
    return out.astype(np.uint32)


def _check_every_path(fname, bits):
    bits = np.asarray(bits, dtype=np.uint32)
    x = bits.view(np.float32)
    want = ref_bits(fname, x)
    for isa in SUPPORTED_ISAS:
        assert_same_bits(apply(fname, isa, x), want, x, f"{fname} on {isa}")


def _bits(v):
    return int(np.float32(v).view(np.uint32))


def test_erf_interval_boundaries():
    """i = floor(4|x|) switches intervals at the multiples of 1/4; m = min(|x|, 1/4) has
    its kink at the first; from CR_ERF_ONE on every result is 1; interval 0 reaches down
    to the subnormals (m = |x|), checked on every binade."""
    edges = [_bits(i / 4) for i in range(1, 16)] + [0x407AD445]  # + CR_ERF_ONE
    exponent = np.arange(0, 0x7D, dtype=np.uint32)[:, None] << 23  # below 1/4, + subnormals
    tiny = (exponent | np.array([1, 2, 0x2AAAAA, 0x555555, 0x7FFFFF], dtype=np.uint32)).ravel()
    b = np.concatenate([_with_neighbours(edges), tiny])
    _check_every_path("erf", np.concatenate([b, b | np.uint32(0x80000000)]))


def test_tanh_regime_boundaries():
    """tanh.h's reduction 2a = k ln2/16 + r switches k (and the table entry k mod 16) at
    a = (k + 1/2) ln2 / 32 (k = 0..416);
    the fitted range starts at 2^-12 (below it every result is a, checked here on every
    binade down to the subnormals); from 0x41102cb4 (excluded from the fit) every result
    is 1."""
    switches = [_bits((k + 0.5) * math.log(2) / 32) for k in range(417)]
    b = _with_neighbours(switches + [_bits(2.0 ** -12), 0x41102CB4], k=3)
    exponent = np.arange(0, 0x73, dtype=np.uint32)[:, None] << 23  # below 2^-12, + subnormals
    tiny = (exponent | np.array([1, 2, 0x2AAAAA, 0x555555, 0x7FFFFF], dtype=np.uint32)).ravel()
    b = np.concatenate([b, tiny])
    _check_every_path("tanh", np.concatenate([b, b | np.uint32(0x80000000)]))


def _rsqrt_near_midpoints(count):
    """Floats in [1, 1.25) and [2, 2.5) (2^21 each: both parities of the exponent)
    whose 1/sqrt lies closest to a float midpoint (float64 estimate, good to 2^-52),
    the ones the fast path must hand to the exact decision."""
    bits = np.concatenate([np.arange(_bits(v), _bits(v) + (1 << 21), dtype=np.uint32)
                           for v in (1.0, 2.0)])
    r = 1.0 / np.sqrt(bits.view(np.float32).astype(np.float64))
    ulp = np.spacing(r.astype(np.float32)).astype(np.float64)
    frac = (r - r.astype(np.float32).astype(np.float64)) / ulp  # in (-1/2, 1/2]
    dist = np.abs(np.abs(frac) - 0.5)
    nearest = np.sort(np.argpartition(dist, count)[:count])
    assert np.all(dist[nearest] < 2.0 ** -12)  # each one well inside the exact path's window
    return bits[nearest]


def test_rsqrt_near_midpoints_on_every_path():
    """Lanes near a midpoint take the exact decision; 4^k x gives 2^-k rsqrt(x), so the
    same mantissas are as hard in every other binade (subnormal inputs included)."""
    base = _rsqrt_near_midpoints(60)
    shifts = np.array([-74, -70, -40, -1, 0, 1, 30, 62], dtype=np.float64)
    x = (base.view(np.float32).astype(np.float64)[:, None] * 4.0 ** shifts[None, :]).ravel()
    _check_every_path("rsqrt", np.asarray(x, dtype=np.float32).view(np.uint32))


def test_rsqrt_every_binade_on_every_path():
    """The float-lane fast path scales x by 4^-j into [1/2, 2) from the exponent's bits:
    every exponent field (both parities, subnormals and inf/NaN included), both signs,
    the first, last and some middle mantissas, and results that are powers of two."""
    mantissas = np.array([0, 1, 2, 0x3504F3, 0x400000, 0x7FFFFE, 0x7FFFFF], dtype=np.uint32)
    bits = (np.arange(256, dtype=np.uint32)[:, None] << 23 | mantissas[None, :]).ravel()
    _check_every_path("rsqrt", np.concatenate([bits, bits | np.uint32(0x80000000)]))


@pytest.mark.skipif(not _ufuncs.scalar_calls_available(), reason="needs x86-64 with AVX2+FMA")
@pytest.mark.parametrize("fname", FUNCTIONS)
def test_scalar_calls_give_the_same_bits(fname):
    rng = np.random.default_rng(FUNCTIONS.index(fname))
    bits = np.concatenate([rng.integers(0, 1 << 32, 5000, dtype=np.uint64).astype(np.uint32),
                           np.array([0, 1, 0x007FFFFF, 0x00800000, 0x3F800000, 0x7F7FFFFF,
                                     0x7F800000, 0x7FC00000, 0x7FA00001], np.uint32)])
    bits = np.concatenate([bits, bits | np.uint32(0x80000000)])
    x = bits.view(np.float32)
    y = np.empty_like(x)
    _ufuncs.apply_scalar_calls(FUNCTIONS.index(fname), x, y)
    for isa in SUPPORTED_ISAS:
        assert_same_bits(y, apply(fname, isa, x).view(np.uint32), x, f"{fname}: calls vs {isa}")


@pytest.mark.skipif(not _ufuncs.scalar_calls_available(), reason="needs x86-64 with AVX2+FMA")
def test_scalar_calls_reject_bad_arguments():
    x = np.ones(4, np.float32)
    with pytest.raises(TypeError, match="float32"):
        _ufuncs.apply_scalar_calls(0, x.astype(np.float64), np.empty(4))
    with pytest.raises(ValueError, match="same length"):
        _ufuncs.apply_scalar_calls(0, x, np.empty(3, np.float32))
    with pytest.raises(ValueError, match="out of range"):
        _ufuncs.apply_scalar_calls(len(FUNCTIONS), x, np.empty_like(x))
    with pytest.raises(ValueError, match="contiguous"):
        _ufuncs.apply_scalar_calls(0, np.ones(8, np.float32)[::2], np.empty_like(x))


def _committed_erf_row(erf, i):
    with open(os.path.join(ROOT, "src", "c", "crlibm", "erf", "poly.h")) as fh:
        values = re.findall(r"^\s+(\S+), /\* t\^", fh.read(), flags=re.M)
    return [float.fromhex(values[erf.position(i, j)]) for j in range(erf.DEG + 1)]


def test_erf_rlibm_interval_regenerates_bit_for_bit():
    """The RLIBM fit of the last erf interval ([15/4, CR_ERF_ONE], every input checked
    in C) reproduces the committed coefficients: the generator is deterministic."""
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    from polygen import core, erf

    i = erf.N - 1
    rows = [list(erf._taylor(k, erf.DEG + 1)) for k in range(erf.N)]
    res = core.rlibm_fit(erf.spec(rows, i), n_init=1000, log=lambda *a: None)
    assert res.checked == erf.interval_bits(i)[1] - erf.interval_bits(i)[0] + 1
    assert [float(c) for c in res.coeffs] == _committed_erf_row(erf, i)
