"""The sequential symv kernels on rows that start inside a cache line
(docs/contract.md §3.6): for a whole matrix whose rows are whole lines apart, the
upper kernel moves its groups of rows to the first row whose diagonal block starts
a line, after finishing the rows before it apart (level2/kernels.inc,
l2_symv_upper). Every offset of the rows in a line, sizes whose trailing matrix
ends anywhere in a group, rows padded past n, NaN / inf in x and NaN in the
triangle not stored: bit for bit against the reference on every CPU path and
thread count (the threads' parts keep the unmoved grid)."""
import numpy as np
import pytest

import reproblas as rb
from level2_support import FULL, SYMMETRIC, TRIANGULAR, Reference
from test_reproblas_level2 import each_path, junk_matrix, vector


@pytest.fixture(scope="module")
def ref(tmp_path_factory):
    try:
        return Reference(tmp_path_factory.mktemp("l2ref_lines"))
    except FileNotFoundError as e:
        pytest.skip(f"needs a C compiler to build the reference: {e}")


def _rows_at(a, offset, ld):
    """a copy of a whose rows are ld elements apart and start `offset` elements past
    a 64-byte line (a view of a larger buffer when ld > n)."""
    n = a.shape[0]
    buf = np.full(n * ld + 64, np.nan, a.dtype)
    first = (-buf.ctypes.data % 64) // a.itemsize + offset
    view = buf[first:first + n * ld].reshape(n, ld)[:, :n]
    view[...] = a
    assert view.ctypes.data % 64 == offset * a.itemsize and view.strides[0] == ld * a.itemsize
    return view


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_symv_rows_inside_lines(ref, monkeypatch, dtype):
    line = 64 // np.dtype(dtype).itemsize
    rng = np.random.default_rng(5)
    # n a multiple of the line (rows whole lines apart), the smallest size that moves
    # the grid, and one padded to whole lines
    for n, ld in ((4 * line, 4 * line), (5 * line, 5 * line), (13 * line, 13 * line),
                  (4 * line + 6, 5 * line)):
        x = vector(rng, n, dtype, n % 2 == 1 or n == 5 * line)
        for lower in (False, True):
            a0 = junk_matrix(rng, n, dtype, lower)
            want = ref.mv("sequential", SYMMETRIC, FULL, lower, 0, 0, n, n, 0, 0, 1.0, a0, x)
            w_tri = ref.mv("sequential", TRIANGULAR, FULL, lower, 0, 0, n, n, 0, 0, 1.0, a0, x)
            for offset in range(line):
                a = _rows_at(a0, offset, ld)
                for isa, t in each_path(monkeypatch):
                    what = f"n={n} ld={ld} lower={lower} offset={offset} isa={isa} threads={t}"
                    with np.errstate(all="ignore"):
                        got = rb.symv(1.0, a, x, lower=lower)
                        tri = rb.trmv(a, x, lower=lower)
                    assert got.tobytes() == want.tobytes(), "symv " + what
                    assert tri.tobytes() == w_tri.tobytes(), "trmv " + what
