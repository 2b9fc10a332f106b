"""Row-major gemv (k contiguous) on shapes that the small shapes of
test_reproblas_gemm.py never reach: a large A (edges of the row groups, special
values), and k around the skew of the two-group row kernels (gemv/common.inc:
the second group of W rows runs 512 bytes of terms behind the first). Against the literal contract reference on sampled rows, against the same
rows computed in small calls (the contract's batch invariance), and across CPU paths
(the portable path has no row kernel) and thread counts."""
import numpy as np
import pytest

import reproblas as rb
from reproblas import _core
import test_reproblas_reference as ref
from test_reproblas_gemm import ISAS, ORDERS, data, layout

SKEW_BYTES = 512  # the second row group's lag in gemv_rows_seq and gemv_rows_pw


def big_operands(rng, m, k, dtype):
    """Spread values, special values in A (zeros and tiny values in x), a row of -0 and a row of huge
    values (overflow to inf), rows not a multiple of any W, k with a tail."""
    fin = np.finfo(dtype)
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, fin.max, -fin.max,
                         fin.smallest_subnormal, -fin.tiny], dtype=dtype)
    a = data(rng, (m, k), dtype)
    a.flat[rng.integers(0, a.size, 40)] = rng.choice(specials, 40)
    a[5] = -0.0
    a[m - 2] = fin.max
    x = data(rng, k, dtype)  # finite: an inf or NaN in x would reach every row
    x[[3, 7, 9]] = [-0.0, fin.smallest_subnormal, -fin.tiny]
    return a, x


def check_rows_against_reference(got, alpha, a, x, beta, y, order, rows):
    for i in rows:
        want = ref.gemv(alpha, a[i:i + 1], x, beta, None if y is None else y[i:i + 1],
                        order=order)
        assert ref.same_bits(got[i:i + 1], want), i


@pytest.mark.parametrize("order", ORDERS)
def test_large_row_major_gemv(order, monkeypatch):
    dtype = np.float32
    rng = np.random.default_rng([21, ORDERS.index(order)])
    m, k = 1157, 1101  # 5.1 MB, far more terms than the skew
    a, x = big_operands(rng, m, k, dtype)
    y = data(rng, m, dtype)
    alpha, beta = -0.75, 1.5
    monkeypatch.setenv("REPROBLAS_NUM_THREADS", "1")
    got = rb.gemv(alpha, a, x, beta, y, order=order)
    assert np.isnan(got).any() and np.isinf(got).any()  # the specials reached the result
    # group edges, the -0 and the huge row, and the rows after the last whole group
    edge = [0, 1, 5, 7, 8, 15, 16, 511, m - 5, m - 4, m - 2, m - 1]
    check_rows_against_reference(got, alpha, a, x, beta, y, order, edge)
    # the same rows in calls of 24 rows (0.1 MB: the two-group kernel)
    small = np.concatenate([rb.gemv(alpha, a[r:r + 24], x, beta, y[r:r + 24], order=order)
                            for r in range(0, m, 24)])
    assert ref.same_bits(got, small)
    # rows 8 KiB apart (the skewed second group), from 0, 3 and 12 elements past a line
    for v in line_offset_views(a, 2048):
        assert ref.same_bits(rb.gemv(alpha, v, x, beta, y, order=order), got)
    # every path and thread count; x strided (gathered), A with negative strides
    # (both: not the row kernel; rows only: the row kernel walking rows backwards)
    xs = layout(x, "strided")
    a_neg = layout(a, "negative")
    for isa in ISAS:
        monkeypatch.setenv("REPROBLAS_ISA", isa)
        for threads in (1, 2, 3, 4):
            monkeypatch.setenv("REPROBLAS_NUM_THREADS", str(threads))
            assert ref.same_bits(rb.gemv(alpha, a, xs, beta, y, order=order), got), (isa, threads)
            assert ref.same_bits(rb.gemv(alpha, a_neg, x, beta, y, order=order), got), (isa, threads)
            assert ref.same_bits(rb.gemv(alpha, a[::-1], x, beta, y[::-1], order=order),
                                 got[::-1]), (isa, threads)


@pytest.mark.parametrize("order", ORDERS)
def test_threads_on_an_a_from_dram(order, monkeypatch):
    """An A beyond RB_GEMV_DRAM_BYTES (32 MiB): one thread takes two row groups, several
    threads one group each (gemv/common.inc, gemv_two_groups); the same bits either way,
    and the reference's on sampled rows (group edges, the rows after the last group)."""
    dtype = np.float32
    rng = np.random.default_rng([23, ORDERS.index(order)])
    m, k = 2085, 4040  # 33.7 MB
    a, x = data(rng, (m, k), dtype), data(rng, k, dtype)
    a[17] = -0.0
    monkeypatch.setenv("REPROBLAS_NUM_THREADS", "1")
    got = rb.gemv(1.0, a, x, order=order)
    check_rows_against_reference(got, 1.0, a, x, 0.0, None, order,
                                 [0, 15, 16, 17, 31, 32, 1040, m - 6, m - 5, m - 1])
    for isa in ISAS:
        monkeypatch.setenv("REPROBLAS_ISA", isa)
        for threads in (1, 2, 3):
            monkeypatch.setenv("REPROBLAS_NUM_THREADS", str(threads))
            assert ref.same_bits(rb.gemv(1.0, a, x, order=order), got), (isa, threads)


def strided_view(a, start, stride, filler):
    """a's values in a view whose rows are `stride` elements apart, the first
    `start` elements past a cache line, in a buffer whose other elements (before,
    between and right after the rows) are `filler`."""
    m, k = a.shape
    buf = np.full((m - 1) * stride + k + 16 + start + 16, filler, dtype=a.dtype)
    first = (-buf.ctypes.data % 64) // a.itemsize + start
    view = np.lib.stride_tricks.as_strided(buf[first:], (m, k), (stride * a.itemsize, a.itemsize))
    view[...] = a
    return view


def line_offset_views(a, stride):
    """a's values in views whose rows are `stride` elements apart, starting 0, 3
    and 12 elements past a cache line: the head of gemv_rows_seq (terms up to
    a line boundary) takes 0, 13 and 4 terms (float32)."""
    for off in (0, 3, 12):
        yield strided_view(a, off, stride, np.nan)


def check_every_path_and_split(monkeypatch, layouts, call, want, what):
    """call(v) for each layout v on every path and 1-4 threads, in parts of
    down to one row (min_work = 1): want's bits every time."""
    with _core.tuning(l3={"min_work": 1}):
        for isa in ISAS:
            monkeypatch.setenv("REPROBLAS_ISA", isa)
            for threads in (1, 2, 3, 4):
                monkeypatch.setenv("REPROBLAS_NUM_THREADS", str(threads))
                for v in layouts:
                    assert ref.same_bits(call(v), want), (what, isa, threads)


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_skew_edges_and_small_tunings(dtype, order, monkeypatch):
    """k around the skew (the second group starts, the lines of both groups and
    the tails of each), after heads of 0..15 terms, with row strides of 4 KiB
    (the skew is on) and of k (off), and with a one-row thread split (min_work
    = 1, so up to 4 parts): every layout, split and path gives the reference's
    bits on every row. Pairwise: the second group's lag is the same 512 bytes,
    in chunks of W terms; k = 2 skew and 4 skew + 17 give blocks of the binary
    expansion longer than the lag on every path, the others shorter ones."""
    rng = np.random.default_rng([22, dtype(0).nbytes, ORDERS.index(order)])
    skew, line = SKEW_BYTES // dtype(0).nbytes, 64 // dtype(0).nbytes
    # two-group blocks of every path (2W = 8..32 rows), then on each path a one-group block
    # (m mod 2W >= W for W = 4, 8, 16) and single rows
    m = 3 * 32 - 1
    for k in (1, line - 1, skew - 1, skew, skew + 1, skew + line - 1, skew + line,
              skew + line + 11, 2 * skew + 5) + ((2 * skew, 4 * skew + 17) if order == "pairwise"
                                                  else ()):
        a, x = data(rng, (m, k), dtype), data(rng, k, dtype)
        a[5], a[m - 2] = -0.0, np.finfo(dtype).max  # -0 sums; overflow to inf
        want = ref.gemv(1.0, a, x, order=order)
        layouts = [a] + list(line_offset_views(a, 4096 // dtype(0).nbytes))
        check_every_path_and_split(monkeypatch, layouts,
                                   lambda v: rb.gemv(1.0, v, x, order=order), want, k)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_pairwise_rows_read_as_whole_lines(dtype, monkeypatch):
    """Rows 16-byte aligned but not line-aligned (NumPy puts large arrays 16
    bytes into a line): the AVX-512 float32 pairwise row kernel reads them as
    whole cache lines and moves each chunk's 4-term blocks into place
    (gemv/rows_pw.inc, pw_rows_leaf_lines), reading up to a line before and after
    the terms. Every start in the line, row strides whose rows start at one or
    at several offsets in a line, and NaN / inf around and between the rows,
    which must not reach any result: the reference's bits on every path."""
    rng = np.random.default_rng([24, dtype(0).nbytes])
    m = 3 * 16 + 5  # whole groups of W rows, a part group and single rows on every path
    for k in (16, 48, 272, 1040):
        a, x = data(rng, (m, k), dtype), data(rng, k, dtype)
        a[5] = -0.0
        want = ref.gemv(1.0, a, x, order="pairwise")
        for pad in (0, 4, 8, 12, 16, 3):
            for start in (0, 4, 8, 12, 2):
                for filler in (np.nan, np.inf):
                    v = strided_view(a, start, k + pad, filler)
                    for isa in ISAS:
                        monkeypatch.setenv("REPROBLAS_ISA", isa)
                        for threads in (1, 3):
                            monkeypatch.setenv("REPROBLAS_NUM_THREADS", str(threads))
                            got = rb.gemv(1.0, v, x, order="pairwise")
                            assert ref.same_bits(got, want), (k, pad, start, filler, isa, threads)


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_short_heads_tails_and_last_rows(dtype, order, monkeypatch):
    """The terms before a row's first line boundary and after its last whole
    block come from one block inside the rows (gemv/rows_seq.inc, seq_rows_part:
    k just above W on every path, heads of 0, 13 and 4 float32 terms), and the
    last rows of a thread's part, fewer than W, are the last W rows computed
    again and stored once (gemv_group_start): with beta != 0 a row stored twice
    would take beta twice. Parts of one row and more (min_work = 1), every
    path: the reference's bits on every row."""
    rng = np.random.default_rng([25, dtype(0).nbytes, ORDERS.index(order)])
    for m, k in ((5, 9), (19, 17), (37, 31), (40, 33), (21, 47)):
        a, x, y = data(rng, (m, k), dtype), data(rng, k, dtype), data(rng, m, dtype)
        a[m // 2] = -0.0
        want = ref.gemv(0.5, a, x, 1.5, y, order=order)
        layouts = [a] + list(line_offset_views(a, k + 5))
        check_every_path_and_split(monkeypatch, layouts,
                                   lambda v: rb.gemv(0.5, v, x, 1.5, y.copy(), order=order),
                                   want, (m, k))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fewer_rows_than_lanes(dtype, monkeypatch):
    """An A of fewer rows than a vector has lanes (or a thread's part of one): the rows'
    pieces go through a buffer of W rows, 128 terms at a time (gemv/rows_seq.inc,
    seq_rows_few), so k on both sides of a piece and tails shorter than W; a -0 row, a row
    that overflows, and NaN / inf around the rows, which must not reach any result. The
    reference's bits on every path and split."""
    rng = np.random.default_rng([26, dtype(0).nbytes])
    for m in (1, 3, 8, 15):
        for k in (7, 127, 128, 129, 300, 1000):
            a, x, y = data(rng, (m, k), dtype), data(rng, k, dtype), data(rng, m, dtype)
            a[m // 2] = -0.0
            a[m - 1, :4] = np.finfo(dtype).max
            want = ref.gemv(0.5, a, x, 1.5, y, order="sequential")
            layouts = [a] + [strided_view(a, start, k + 7, np.nan) for start in (0, 3)]
            check_every_path_and_split(
                monkeypatch, layouts,
                lambda v: rb.gemv(0.5, v, x, 1.5, y.copy(), order="sequential"), want, (m, k))
