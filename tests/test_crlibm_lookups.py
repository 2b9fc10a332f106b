"""The table lookups of log, sin, cos, erf and tanh read the right row in every lane.

On AVX2 the four row indices of a vector reach the integer registers together
(lanes_avx2_nibbles in src/c/lanes/avx2.h), and sin/cos read (A, B) and the
rows of the big reduction as pairs: a lane reading another lane's row, or a
wrong nibble, would still give plausible values. These inputs put every row
of each table at every lane position of a block (4 vectors of up to 8 lanes),
on every path, and compare with MPFR. (The exhaustive verification runs
consecutive inputs, whose lanes nearly always read the same row.)
"""
import numpy as np
import pytest

from helpers import apply, assert_same_bits, isa_params
from mpfr_ref import ref_bits

POSITIONS = 32  # a block: 4 vectors of 8 lanes (AVX-512), 16 lanes (AVX2)


def every_row_at_every_position(rows):
    """rows[j]: inputs whose lookup reads row j. Rotations so that position p
    (mod POSITIONS) meets every row; several inputs per row where given."""
    n = len(rows)
    picks = [np.asarray(r, dtype=np.float32) for r in rows]
    out = []
    for shift in range(max(n, POSITIONS)):
        out.extend(picks[(i + shift) % n][(shift + i) % len(picks[(i + shift) % n])]
                   for i in range(POSITIONS))
    return np.array(out, dtype=np.float32)


def log_rows():
    """Positive floats grouped by log.h's row: bits 48..51 of bits(x) - bits(0x1.58p-1)."""
    rng = np.random.default_rng(5)
    bits = rng.integers(0x00000001, 0x7F800000, 40000, dtype=np.uint32)
    x = bits.view(np.float32)
    t = x.astype(np.float64).view(np.uint64) - np.uint64(0x3FE5800000000000)
    j = (t >> np.uint64(48)) & np.uint64(15)
    return [x[j == row][:8] for row in range(16)]


def sincos_rows(off):
    """Floats with k = rint(x 8/pi), k + off = row mod 16, both signs, |x| < 2^32."""
    rng = np.random.default_rng(6)
    rows = [[] for _ in range(16)]
    for k in list(range(-40, 40)) + [1000003, -2000017, 123456789]:
        x = np.float32((k + rng.uniform(-0.4, 0.4)) * np.pi / 8)
        k_x = int(np.rint(np.float64(x) * 8 / np.pi))
        rows[(k_x + off) % 16].append(x)
    return rows


def erf_rows():
    """Floats grouped by erf.h's interval floor(4|x|) (16 rows of 10 coefficients, read by
    permutes on AVX-512 and by row loads on AVX2), both signs; row 15 also holds inputs
    clamped to CR_ERF_ONE."""
    rng = np.random.default_rng(8)
    rows = []
    for i in range(16):
        v = (i + rng.random(6)) / 4
        if i == 15:
            v = np.concatenate([15 / 4 + rng.random(4) * (3.9192 - 15 / 4), [4.5, 30.0]])
        rows.append((v * np.where(rng.random(v.size) < 0.5, -1.0, 1.0)).astype(np.float32))
    return rows


def tanh_rows():
    """Floats grouped by the entry of exp's 16-entry table tanh.h reads: k mod 16 for
    2|x| = k ln2/16 + r, both signs, from the tiny to the clamped (|x| >= 9.02)."""
    rng = np.random.default_rng(9)
    rows = [[] for _ in range(16)]
    for k in list(range(0, 48)) + [200, 201, 333, 415]:
        x = np.float32((k + rng.uniform(-0.45, 0.45)) * np.log(2) / 32 * rng.choice([-1, 1]))
        k_x = int(np.rint(2 * abs(np.float64(x)) * 16 / np.log(2)))
        rows[k_x % 16].append(x)
    rows[0] += [np.float32(1e-30), np.float32(-20.0)]
    return rows


def big_rows():
    """Floats of every exponent from 32 to 127 (rows of sin_cos/big.h), both signs."""
    rng = np.random.default_rng(7)
    rows = []
    for e in range(32, 128):
        m = 1 + rng.random(4)
        rows.append((m * np.where(rng.random(4) < 0.5, -1.0, 1.0) * 2.0 ** e).astype(np.float32))
    return rows


# Inputs outside log's domain: with one of them in a block, the array kernels run the
# body with the domain test (log_rows alone run the body without it).
LOG_OUTSIDE = [0.0, -1.0, np.inf, np.nan, -0.0]

CASES = {
    "log": lambda: [("log", log_rows()), ("log", log_rows() + [LOG_OUTSIDE])],
    "sin": lambda: [("sin", sincos_rows(0)), ("sin", big_rows())],
    "cos": lambda: [("cos", sincos_rows(4)), ("cos", big_rows())],
    "erf": lambda: [("erf", erf_rows())],
    "tanh": lambda: [("tanh", tanh_rows())],
}


@pytest.mark.parametrize("fname", sorted(CASES))
@pytest.mark.parametrize("isa", isa_params())
def test_every_row_in_every_lane(fname, isa):
    for fn, rows in CASES[fname]():
        assert all(len(r) > 0 for r in rows), "every row needs an input"
        x = every_row_at_every_position(rows)
        assert_same_bits(apply(fn, isa, x), ref_bits(fn, x), x, f"{fn} on {isa}")
