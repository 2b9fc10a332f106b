"""Every CPU path gives the same bits, whatever the length, offset, stride or aliasing
(SPEC §0: results do not depend on the ISA path, alignment, strides or memory order)."""
import functools

import numpy as np
import pytest

import crlibm_py
from helpers import FUNCTIONS, SUPPORTED_ISAS, apply, assert_same_bits

N_RANDOM = 1 << 20


@functools.lru_cache(maxsize=None)
def random_bits(fname):
    rng = np.random.default_rng([FUNCTIONS.index(fname), 2020])
    return rng.integers(0, 2 ** 32, N_RANDOM, dtype=np.uint64).astype(np.uint32)


def test_paths_bitwise_equal(fname):
    if len(SUPPORTED_ISAS) < 2:
        pytest.skip("this CPU has only one path; nothing to compare")
    x = random_bits(fname).view(np.float32)
    first = apply(fname, SUPPORTED_ISAS[0], x).view(np.uint32)
    for isa in SUPPORTED_ISAS[1:]:
        assert_same_bits(apply(fname, isa, x), first, x, f"{fname}: {isa} vs {SUPPORTED_ISAS[0]}")


def mixed_inputs(n, seed):
    """Ordinary values with specials (NaN, inf, zeros, subnormals, huge) sprinkled in,
    so special lanes land at every position."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(-4, 4, n).astype(np.float32)
    specials = np.array([0x7FC00000, 0x7F800001, 0xFF800000, 0x7F800000, 0, 0x80000000, 1,
                         0x807FFFFF, 0x7F7FFFFF, 0x42B17218, 0xC2D00000], dtype=np.uint32)
    pick = rng.random(n) < 0.25
    x.view(np.uint32)[pick] = rng.choice(specials, pick.sum())
    return x


def test_tails_and_offsets(fname, use_isa):
    """Lengths 0..33 at offsets 0..16 floats (every alignment mod 64 bytes) give the
    bits of the same elements in one contiguous call."""
    f = getattr(crlibm_py, fname)
    base = mixed_inputs(64, 7)
    whole = f(base).view(np.uint32)
    for off in range(17):
        for n in range(34):
            part = f(base[off:off + n])
            assert part.shape == (n,)
            assert np.array_equal(part.view(np.uint32), whole[off:off + n]), (off, n)


def test_tails_forced_kernel(fname, isa):
    """The same through the raw kernel entry of each path."""
    base = mixed_inputs(64, 8)
    whole = apply(fname, isa, base).view(np.uint32)
    for off in range(17):
        for n in range(34):
            part = apply(fname, isa, base[off:off + n]).view(np.uint32)
            assert np.array_equal(part, whole[off:off + n]), (off, n)


def test_unaligned_buffer(fname, use_isa):
    """A float32 array starting 4 bytes past an aligned address."""
    f = getattr(crlibm_py, fname)
    x = mixed_inputs(1000, 9)
    raw = np.zeros(4 * 1000 + 64, dtype=np.uint8)
    start = (-raw.ctypes.data) % 64 + 4
    xu = raw[start:start + 4000].view(np.float32)
    xu[:] = x
    assert xu.ctypes.data % 8 == 4
    assert np.array_equal(f(xu).view(np.uint32), f(x).view(np.uint32))


def test_in_place(fname, use_isa):
    f = getattr(crlibm_py, fname)
    x = mixed_inputs(3001, 10)
    expected = f(x).view(np.uint32)
    y = x.copy()
    r = f(y, out=y)
    assert r is y
    assert np.array_equal(y.view(np.uint32), expected)


@pytest.mark.parametrize("step", [2, 3, -1, -2, -5])
def test_strided_inputs(fname, use_isa, step):
    """Strided and negative-strided views, longer than the driver's 1024-element chunk."""
    f = getattr(crlibm_py, fname)
    x = mixed_inputs(7500, 11)
    view = x[::step]
    expected = f(np.ascontiguousarray(view)).view(np.uint32)
    assert np.array_equal(f(view).view(np.uint32), expected)
    out = np.full(2 * view.size, 5.0, dtype=np.float32)
    f(view, out=out[::-2])
    assert np.array_equal(out[::-2].view(np.uint32), expected)
    assert np.all(out[-2::-2] == 5.0), "a strided out= wrote outside its elements"


def test_memory_orders(fname, use_isa):
    f = getattr(crlibm_py, fname)
    x = mixed_inputs(60 * 70, 12).reshape(60, 70)
    expected = f(x).view(np.uint32)
    assert np.array_equal(f(np.asfortranarray(x)).view(np.uint32), expected)
    assert np.array_equal(f(x.T).view(np.uint32), expected.T)
    assert np.array_equal(f(x[::-1, ::2]).view(np.uint32), expected[::-1, ::2])


def test_supported_paths_listed():
    assert "scalar" in SUPPORTED_ISAS
    assert crlibm_py.best_isa() in SUPPORTED_ISAS


@pytest.mark.parametrize("fn", ["sin", "cos"])
def test_sincos_block_modes(fn, isa):
    """sin and cos pick, per block of the kernel, the body with or without the reduction for
    |x| >= 2^32 (and inf, NaN); an element's bits never depend on its neighbours: ordinary
    values in blocks with and without a big lane give what they give alone, on every path."""
    rng = np.random.default_rng(13)
    x = rng.uniform(-100, 100, 1024).astype(np.float32)
    big = np.array([2.0 ** 32, -2.0 ** 32, 3e9 * 2, 1e30, -1e38, np.inf, -np.inf, np.nan],
                   dtype=np.float32)
    # a big value every 3*37 elements: blocks of every width get both kinds, at every lane
    where = np.arange(5, x.size, 111)
    x[where] = big[np.arange(where.size) % big.size]
    x[700:740] = np.float32(4294967040.0)  # the largest float below 2^32 (ordinary)
    got = apply(fn, isa, x).view(np.uint32)
    alone = np.array([apply(fn, isa, x[i:i + 1]).view(np.uint32)[0] for i in range(x.size)])
    assert_same_bits(got.view(np.float32), alone, x, f"{fn} on {isa}: array vs one by one")
