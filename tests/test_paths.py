"""Every CPU path gives the same bits, whatever the length, offset, stride or aliasing
(contract §0: results do not depend on the ISA path, alignment, strides or memory order)."""
import functools

import numpy as np
import pytest

import crlibm_py
from helpers import FUNCTIONS, SUPPORTED_ISAS, apply, assert_same_bits
from mpfr_ref import ref_bits

N_RANDOM = 1 << 20


@functools.lru_cache(maxsize=None)
def random_bits(fname):
    rng = np.random.default_rng([FUNCTIONS.index(fname), 2020])
    return rng.integers(0, 2 ** 32, N_RANDOM, dtype=np.uint64).astype(np.uint32)


def test_paths_bitwise_equal(fname):
    if len(SUPPORTED_ISAS) < 2:
        pytest.skip("needs a CPU with AVX2 or AVX-512: this one has only the scalar path, so "
                    "there is no second path to compare")
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
    assert not crlibm_py.isa_supported("neon")  # not a path of this library: no
    with pytest.raises(TypeError):
        crlibm_py.isa_supported(None)


def _positive_normals(rng, n):
    return ((rng.integers(1, 255, n, dtype=np.uint32) << 23)
            | rng.integers(0, 1 << 23, n, dtype=np.uint32)).view(np.float32)


# Per function: ordinary inputs, the rare ones that send a block to the other body, and
# ordinary inputs at the edge of the screen (a run of them fills whole blocks).
BLOCK_SCREENS = {
    # sin, cos: the reduction for |x| >= 2^32 (and inf, NaN); edge: the largest float below 2^32
    "sin": (lambda rng, n: rng.uniform(-100, 100, n).astype(np.float32),
            [2.0 ** 32, -2.0 ** 32, 3e9 * 2, 1e30, -1e38, np.inf, -np.inf, np.nan],
            [4294967040.0, -4294967040.0]),
    # log: the domain test (0, negative, inf, NaN); edge: the extreme positive finite floats
    "log": (_positive_normals,
            [0.0, -0.0, -1.0, -1e-45, -np.inf, np.inf, np.nan, -np.nan],
            [1e-45, 3.4028235e38, 1.1754942e-38, 1.17549435e-38]),
}
BLOCK_SCREENS["cos"] = BLOCK_SCREENS["sin"]


@pytest.mark.parametrize("fn", sorted(BLOCK_SCREENS))
def test_block_screens(fn, isa):
    """sin, cos and log pick, per block of the kernel, a lighter body when a screen on float
    lanes finds no rare input (sin, cos: |x| >= 2^32, inf, NaN; log: outside its domain), and
    the full body otherwise; an element's bits never depend on its neighbours: ordinary
    values in blocks with and without a rare lane give what they give alone, on every path,
    and every result is MPFR's."""
    ordinary, rare, edge = BLOCK_SCREENS[fn]
    rng = np.random.default_rng(13)
    x = ordinary(rng, 1024)
    rare = np.array(rare, dtype=np.float32)
    # a rare value every 3*37 elements: blocks of every width get both kinds, at every lane
    where = np.arange(5, x.size, 111)
    x[where] = rare[np.arange(where.size) % rare.size]
    x[700:740] = np.resize(np.array(edge, dtype=np.float32), 40)
    got = apply(fn, isa, x).view(np.uint32)
    alone = np.array([apply(fn, isa, x[i:i + 1]).view(np.uint32)[0] for i in range(x.size)])
    assert_same_bits(got.view(np.float32), alone, x, f"{fn} on {isa}: array vs one by one")
    assert_same_bits(got.view(np.float32), ref_bits(fn, x), x, f"{fn} on {isa} vs MPFR")


def _big_inputs(rng, n):
    """Floats with |x| >= 2^32 (every exponent up to the largest, random signs and
    mantissas), with some inf and NaN: the inputs of sin's and cos's big reduction."""
    bits = (rng.integers(127 + 32, 255, n, dtype=np.uint32) << 23) | rng.integers(
        0, 1 << 23, n, dtype=np.uint32)
    x = (bits | (rng.integers(0, 2, n, dtype=np.uint32) << 31)).view(np.float32)
    x[::53], x[1::97], x[2::89] = np.inf, -np.inf, np.nan
    return x


@pytest.mark.parametrize("fn", ["sin", "cos"])
def test_all_big_blocks(fn, isa):
    """A block whose inputs are all big (|x| >= 2^32, inf, NaN) runs the big reduction alone
    (no Cody-Waite, no blend); one other input among them (ordinary, +-0, subnormal, the
    largest float below 2^32) sends the block to the blended body. Lone inputs every 67
    elements reach every lane of blocks of 4, 16 and 32, with all-big blocks between them;
    results match the same input alone (a zero-padded, mixed block) and MPFR."""
    rng = np.random.default_rng(29)
    x = _big_inputs(rng, 2560)
    lone = np.array([1.5, -0.0, 0.0, 4294967040.0, -3.0e9, 1e-40, -100.0], dtype=np.float32)
    where = np.arange(3, x.size, 67)
    x[where] = np.resize(lone, where.size)
    got = apply(fn, isa, x)
    alone = np.array([apply(fn, isa, x[i:i + 1]).view(np.uint32)[0] for i in range(x.size)])
    assert_same_bits(got, alone, x, f"{fn} on {isa}: array vs one by one")
    assert_same_bits(got, ref_bits(fn, x), x, f"{fn} on {isa} vs MPFR")
