"""crlibm CUDA kernels, host-emulated: the same bits as the CPU (every path)."""
from pathlib import Path

import numpy as np
import pytest

import crlibm_py
from crlibm_py import _cuda
from cuda_support import EmuDevice
from helpers import FUNCTIONS, apply, assert_same_bits

DATA = Path(__file__).resolve().parent / "data"
SPECIALS = np.array([0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000,
                     0x7F800001, 0xFFBFFFFF, 0x00000001, 0x80000001, 0x007FFFFF, 0x807FFFFF,
                     0x00800000, 0x80800000, 0x7F7FFFFF, 0xFF7FFFFF, 0x3F800000, 0xBF800000,
                     0x4F800000, 0xCF800000, 0x42B17218, 0x42B17217, 0xC2CFF1B5, 0xC2D00000],
                    dtype=np.uint32)


@pytest.fixture(scope="module")
def emu():
    return EmuDevice()


def _hard(fname):
    words = [line.split("#")[0].strip() for line in
             (DATA / f"hard_inputs_{fname}.txt").read_text().splitlines()]
    return np.array([int(w, 16) for w in words if w], dtype=np.uint32)


def _inputs(fname):
    rng = np.random.default_rng(sum(map(ord, fname)))
    sample = rng.integers(0, 2**32, size=1 << 17, dtype=np.uint64).astype(np.uint32)
    # a dense run around 1.0 and every exponent's first patterns
    dense = np.arange(0x3F7F0000, 0x3F810000, 7, dtype=np.uint32)
    edges = (np.arange(512, dtype=np.uint32)[:, None] << 23 | np.arange(4, dtype=np.uint32))
    return np.concatenate([SPECIALS, _hard(fname), sample, dense, edges.ravel()]).view(np.float32)


@pytest.mark.parametrize("fname", FUNCTIONS)
def test_emulated_kernel_matches_cpu(emu, fname):
    x = _inputs(fname)
    got = _cuda.apply(emu, fname, x)
    for isa in [i for i in crlibm_py.isa_names() if crlibm_py.isa_supported(i)]:
        assert_same_bits(got, apply(fname, isa, x).view(np.uint32), x, f"emulated {fname} vs {isa}")


def test_shapes_out_and_in_place(emu):
    x = np.linspace(-3, 3, 2 * 3 * 35, dtype=np.float32).reshape(2, 3, 35)
    expected = crlibm_py.exp(x)
    strided = np.asfortranarray(x)[:, ::-1, ::2]
    assert_same_bits(_cuda.apply(emu, "exp", strided), crlibm_py.exp(strided).view(np.uint32),
                     strided, "strided")
    out = np.empty_like(x)
    assert _cuda.apply(emu, "exp", x, out=out) is out
    assert_same_bits(out, expected.view(np.uint32), x, "out=")
    y = x.copy()
    _cuda.apply(emu, "exp", y, out=y)  # in place: each element read before written
    assert_same_bits(y, expected.view(np.uint32), x, "in place")
    assert _cuda.apply(emu, "sin", np.empty((0, 3), np.float32)).shape == (0, 3)
    with pytest.raises(TypeError, match="float32"):
        _cuda.apply(emu, "exp", x, out=np.empty(x.shape, np.float64))
