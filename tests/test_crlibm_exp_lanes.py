"""exp's array kernel reads the right table row and flags the right lanes, in every lane.

The array kernels test exp's domain on the float inputs, V32_W lanes at a time
(cr_exp_special_f32, CR_DEFINE_BLOCK_FMASK in src/c/crlibm/kernels.inc), then
split the lane bits among the double vectors; the table is read by a lookup
(v64_lookup16 for 16 entries, a gather otherwise). A lane bit or a table index landing
in the wrong lane still gives plausible values, so these inputs put every
domain edge and every table row at every lane position of a block, on every
path, and compare with MPFR.
"""
import os
import re

import numpy as np
import pytest

from helpers import apply, assert_same_bits, isa_params
from mpfr_ref import ref_bits
from test_crlibm_lookups import every_row_at_every_position


def table_size():
    """N = 2^CR_EXP_TABLE_BITS, read from the generated header."""
    path = os.path.join(os.path.dirname(__file__), "..", "src", "c", "crlibm", "exp",
                        "table.h")
    with open(path) as fh:
        bits = re.search(r"#define CR_EXP_TABLE_BITS (\d+)", fh.read()).group(1)
    return 1 << int(bits)


TABLE_SIZE = table_size()

# Bit patterns on both sides of every edge of the fast path's domain
# (CR_EXP_MIN = -104 <= x <= CR_EXP_MAX = 0x1.62e42ep+6), the specials, and
# the overflow / underflow neighbourhoods the scalar path settles.
EDGES = (0x42B17217, 0x42B17218, 0x42B17216, 0xC2D00000, 0xC2D00001, 0xC2CFFFFF,
         0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000, 0x7F800001, 0xFFBFFFFF,
         0x7F7FFFFF, 0xFF7FFFFF, 0x00000000, 0x80000000, 0x00000001, 0x80000001,
         0x807FFFFF, 0xC2CE8ED0, 0xC2B17218, 0x42B20000, 0x42D00000, 0xC3000000)


def f32(bits):
    return np.array(bits, dtype=np.uint32).view(np.float32)


def table_rows():
    """rows[j]: floats whose reduction reads row j (k = rint(x N/ln2), j = k mod N),
    of both signs and several magnitudes; x sits within 0.3 of k, far from a tie."""
    rng = np.random.default_rng(11)
    rows = []
    for j in range(TABLE_SIZE):
        k = j + TABLE_SIZE * np.array([-140, -3, 0, 7, 120])
        x = ((k + rng.uniform(-0.3, 0.3, k.size)) * np.log(2) / TABLE_SIZE).astype(np.float32)
        kx = np.rint(x.astype(np.float64) * TABLE_SIZE / np.log(2)).astype(np.int64)
        assert np.all(kx % TABLE_SIZE == j)
        rows.append(x)
    return rows


@pytest.mark.parametrize("isa", isa_params())
def test_domain_edges_in_every_lane(isa):
    inside = [f32([0x3F400000, 0xC2A00000, 0x42A00000])]  # 0.75, -80, 80
    x = every_row_at_every_position([f32([b]) for b in EDGES] + inside * 8)
    assert_same_bits(apply("exp", isa, x), ref_bits("exp", x), x, f"exp on {isa}")


@pytest.mark.parametrize("isa", isa_params())
def test_every_table_row_in_every_lane(isa):
    x = every_row_at_every_position(table_rows())
    assert x.size >= TABLE_SIZE * 32
    assert_same_bits(apply("exp", isa, x), ref_bits("exp", x), x, f"exp on {isa}")
