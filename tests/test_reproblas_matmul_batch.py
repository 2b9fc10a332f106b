"""The batched matmul (one C call over the broadcast batch, threads over batch
entries and tiles): every entry has the bits of the unbatched gemm on it, for
broadcast (stride-0), strided, negative-stride and Fortran-ordered batches,
every path, thread count and block size, and the literal reference."""
import numpy as np
import pytest

import reproblas as rb
import test_reproblas_reference as ref
from test_reproblas_gemm import ISAS, ORDERS, data, each_config, layout

# thread splits that cut entries in the middle (min_work 1, one-tile blocks)
TUNINGS = [(0, 0, 0, 0), (1, 1, 3, 1), (16, 12, 8, 1)]
CASES = [((3, 1, 9, 7), (4, 7, 5)), ((2, 6, 1, 11), (11, 13)), ((5, 4, 3), (5, 3, 1)),
         ((2, 3, 1, 4), (1, 1, 4, 6)), ((7, 2), (3, 2, 9))]


def entries(a, b, out_shape):
    """(index, a entry, b entry) over the broadcast batch (NumPy's rules, 2-D operands)."""
    batch = out_shape[:-2]
    ab = np.broadcast_to(a, batch + a.shape[-2:])
    bb = np.broadcast_to(b, batch + b.shape[-2:])
    for idx in np.ndindex(*batch):
        yield idx, ab[idx], bb[idx]


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_each_entry_is_the_unbatched_gemm(order, dtype, monkeypatch):
    rng = np.random.default_rng([ORDERS.index(order), dtype(0).nbytes, 3])
    for idx, (sa, sb) in enumerate(CASES):
        a = layout(data(rng, sa, dtype), ["C", "F", "strided", "negative"][idx % 4])
        b = layout(data(rng, sb, dtype), ["negative", "strided", "C", "F"][idx % 4])
        want = None
        for cfg in each_config(monkeypatch, tunings=TUNINGS):
            got = rb.matmul(a, b, order=order)
            if want is None:
                want = got.copy()
                for e, ae, be in entries(a, b, got.shape):
                    alone = rb.gemm(1.0, ae, be, order=order)
                    assert ref.same_bits(got[e], alone), (sa, sb, e, cfg)
                e, ae, be = next(entries(a, b, got.shape))
                assert ref.same_bits(got[e], ref.gemm(1.0, ae, be, order=order))
            assert ref.same_bits(got, want), (sa, sb, cfg)


def test_broadcast_batch_reads_shared_operand():
    """A (1, ...) operand broadcast over 6 entries: the C core walks it with stride 0."""
    rng = np.random.default_rng(1)
    a = data(rng, (6, 1, 5, 8), np.float64)
    b = data(rng, (1, 3, 8, 4), np.float64)
    out = rb.matmul(a, b)
    assert out.shape == (6, 3, 5, 4)
    for p in range(6):
        for q in range(3):
            assert ref.same_bits(out[p, q], rb.gemm(1.0, a[p, 0], b[0, q]))


def test_empty_and_unit_batches():
    z = rb.matmul(np.ones((0, 3, 4)), np.ones((4, 2)))
    assert z.shape == (0, 3, 2)
    z = rb.matmul(np.ones((2, 3, 0)), np.ones((2, 0, 5)))
    assert z.shape == (2, 3, 5) and ref.same_bits(z, np.zeros((2, 3, 5)))
    row = rb.matmul(np.ones((4, 1, 3), np.float32), np.ones((4, 3, 6), np.float32))
    assert ref.same_bits(row, np.full((4, 1, 6), 3, np.float32))
