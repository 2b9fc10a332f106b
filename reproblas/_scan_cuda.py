"""CUDA launches of the scans and segmented reductions (src/cuda/reproblas/scan.cuh).

Arguments are checked by reproblas/_scan.py: contiguous device arrays of one float
dtype, int64 offsets. This layer only decides which thread computes which segment
or aligned piece, which never changes an operation (docs/contract.md §5.2)."""
import numpy as np
from repro_runtime.cuda import THREADS, grid_1d

from . import _core

PIECE = 1024  # terms per aligned piece of a long pairwise scan (a power of two)
# order="exact" (src/cuda/reproblas/exact_scan.cuh): terms per piece of a row (at most
# RB_XACC_BATCH = 2^30, so a piece needs no normalization), and the limbs of an accumulator
# (rb_xacc_limbs of src/c/order/exact.h; reproblas/_cuda.py EXACT_LIMBS).
EXACT_PIECE = 1024
EXACT_LIMBS = {"f32": 11, "f64": 68}


def _sfx(dtype):
    return "f32" if dtype == np.float32 else "f64"


def _scan_segments(dev, op, order, term, exclusive, x, y, off, out):
    nseg = off.shape[0] - 1
    if nseg:
        dev.function(f"rb_scan_segments_{_sfx(x.dtype)}")(grid_1d(dev, nseg), (THREADS,), (
            np.int32(op), np.int32(order), np.int32(term), np.int32(exclusive), x,
            x if y is None else y, off, np.int64(nseg), out))


def _pairwise(dev, op, term, x, y, out, m):
    """The inclusive pairwise scan of x[:m] into out[:m] (1-D contiguous): aligned
    pieces of PIECE terms; the prefixes at their ends are this scan over the pieces'
    trees (recursively)."""
    xp, sfx = dev.xp, _sfx(x.dtype)
    if m < 2 * PIECE:
        _scan_segments(dev, op, 1, term, 0, x, y, xp.asarray(np.array([0, m], np.int64)), out)
        return
    full = m // PIECE
    tree, pre = xp.empty(full, x.dtype), xp.empty(full, x.dtype)
    yy = x if y is None else y
    dev.function(f"rb_scan_trees_{sfx}")(grid_1d(dev, full), (THREADS,), (
        np.int32(op), np.int32(term), x, yy, np.int64(full), np.int64(PIECE), tree))
    _pairwise(dev, op, 0, tree, None, pre, full)
    dev.function(f"rb_scan_pieces_{sfx}")(grid_1d(dev, -(-m // PIECE)), (THREADS,), (
        np.int32(op), np.int32(term), x, yy, np.int64(m), np.int64(PIECE), pre, out))


def scan_rows(dev, op, order, term, exclusive, x2, y2, out2):
    """Each row of the C-contiguous 2-D x2 (y2) scanned into out2 (x2's shape)."""
    xp = dev.xp
    rows, n = x2.shape
    if order == _core.EXACT:
        exact_scan_rows(dev, exclusive, x2, out2)
        return
    if rows == 1 and order == 1 and n - exclusive >= 2 * PIECE:
        m = n - exclusive
        x, o = x2[0, :m], out2[0, exclusive:]
        _pairwise(dev, op, term, x, None if y2 is None else y2[0, :m], o, m)
        if exclusive:
            out2[0, :1] = 1 if op else 0
        return
    off = xp.asarray(np.arange(rows + 1, dtype=np.int64) * n)
    _scan_segments(dev, op, order, term, exclusive, x2, y2, off, out2)


def exact_scan_rows(dev, exclusive, x2, out2, piece=EXACT_PIECE):
    """cumsum(order="exact") of each row of the C-contiguous 2-D x2 into out2 (docs/contract.md
    §5.4): the pieces' exact accumulators, their running sums per row, then every prefix of
    each piece from its start. piece: any count of terms up to 2^30 (the same bits)."""
    rows, n = x2.shape
    if rows == 0 or n == 0:
        return
    sfx = _sfx(x2.dtype)
    per_row = -(-n // piece)
    pieces = dev.function(f"rb_exact_scan_pieces_{sfx}")

    def run(phase, acc):
        pieces(grid_1d(dev, rows * per_row), (THREADS,), (
            np.int32(phase), np.int32(exclusive), x2, np.int64(rows), np.int64(n),
            np.int64(piece), acc, out2))
    if per_row == 1:  # every row one piece: from a zero start, no accumulators stored
        run(2, dev.xp.empty(1, np.int64))
        return
    acc = dev.xp.empty(rows * per_row * (EXACT_LIMBS[sfx] + 4), np.int64)
    run(0, acc)
    dev.function(f"rb_exact_scan_starts_{sfx}")(grid_1d(dev, rows), (THREADS,), (
        np.int64(rows), np.int64(per_row), acc))
    run(1, acc)


def scan_segments(dev, order, term, exclusive, x, y, off, out):
    """scan_by_key: each segment of off (int64, host) scanned into out."""
    _scan_segments(dev, 0, order, term, exclusive, x, y, dev.xp.asarray(off), out)


def segment_reduce(dev, order, term, x, y, off, out):
    """out[s]: the level-1 reduction of segment s of off (int64, host)."""
    nseg = off.shape[0] - 1
    if nseg:
        dev.function(f"rb_segment_reduce_{_sfx(x.dtype)}")(grid_1d(dev, nseg), (THREADS,), (
            np.int32(order), np.int32(term), x, x if y is None else y, dev.xp.asarray(off),
            np.int64(nseg), out))
