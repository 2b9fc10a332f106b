"""The pairwise implicit gemm of the convolutions (src/c/reproblas/frame/conv_pw.c), bit for
bit against independent computations of the same trees: grad_weight against per-tap
pairwise gemms of the gathered present terms (the gemm frame's own pairwise walk), and
conv2d / grad_input with long term lists against the literal reference. The kc tunings
cut the term lists into many chunks (several counter levels, tails of every binary
expansion), or leave them one tail; tiles of 1 to 8 columns and partial row panels;
every CPU path, threads 1 and 3."""
import numpy as np
import pytest

import reproblas as rb
import test_reproblas_conv_reference as cref
from test_reproblas_conv import ISAS, check, each_config, gathered_grad_weight
from test_reproblas_gemm import data

DTYPES = [np.float32, np.float64]
# (chunk, kc, min_work, mc, batch): kc 256 / 128 by default (one chunk or a tail only),
# kc = 1, 2, 4 and 16 (many chunks and levels), and a thread per unit
TUNINGS = [(0, 0, 0, 0, 0), (0, 1, 1, 0, 0), (0, 2, 0, 0, 0), (0, 6, 1, 0, 7),
           (0, 16, 1, 0, 0)]


# x shape, (K, R, S), stride, padding, dilation, groups
GW_SHAPES = [
    ((2, 37, 9, 8), (35, 3, 3), 1, 1, 1, 1),  # 144 terms per tap, 5 tiles of 7-8 columns
    ((1, 33, 2, 7), (34, 3, 2), (1, 2), 3, (3, 1), 1),  # taps r = 0, 2 meet only padding
    ((3, 12, 11, 13), (10, 3, 3), 2, (1, 2), (1, 2), 2),  # groups, stride, dilation
    ((2, 5, 17, 16), (3, 2, 2), 1, 0, 1, 1),  # 512 terms per tap, tiles of 5 and 1 column
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", range(len(GW_SHAPES)))
def test_grad_weight_matches_pairwise_gemms(shape, dtype, monkeypatch):
    xs, (k, r, s), stride, padding, dilation, groups = GW_SHAPES[shape]
    rng = np.random.default_rng(shape)
    x = data(rng, xs, dtype)
    w_shape = (k, xs[1] // groups, r, s)
    _, _, _, (p, q) = cref.geometry(xs[2:], (r, s), stride, padding, dilation)
    gy = data(rng, (xs[0], k, p, q), dtype)
    if xs[2] == 2:  # NaN and inf only where padding is read: the empty taps stay +0
        x[0, 0, 0, :2] = [np.nan, np.inf]
    want = gathered_grad_weight(x, gy, w_shape, stride, padding, dilation, groups,
                                order="pairwise")
    if xs[2] == 2:
        assert np.all(want[:, :, [0, 2]] == 0) and not np.any(np.signbit(want[:, :, [0, 2]]))
    params = dict(stride=stride, padding=padding, dilation=dilation, groups=groups)
    for cfg in each_config(monkeypatch, tunings=TUNINGS, isas=ISAS, threads=[1, 3]):
        check(rb.conv2d_grad_weight(x, gy, w_shape, **params, order="pairwise"), want,
              f"grad_weight {xs} {cfg}")


@pytest.mark.parametrize("dtype", DTYPES)
def test_long_term_lists_match_reference(dtype, monkeypatch):
    """33 channels x 9 taps: 297 terms in the interior (a 256-term chunk and a tail of
    41 = 32 + 8 + 1 for float32), fewer at the borders; 19 output channels (a partial
    row panel); output rows of 9 columns (tiles of 4-5 columns) and bias."""
    rng = np.random.default_rng(5)
    x = data(rng, (1, 33, 4, 9), dtype)
    w = data(rng, (19, 33, 3, 3), dtype)
    b = data(rng, (19,), dtype)
    gy = data(rng, (1, 19, 4, 9), dtype)
    ref_y = cref.conv2d(x, w, b, 1, 1, 1, 1, "pairwise")
    wt = data(rng, (33, 19, 3, 3), dtype)  # grad_input of 19 channels: 171 terms
    gx_shape = (1, 19, 4, 9)
    gy2 = data(rng, (1, 33, 4, 9), dtype)
    ref_gx = cref.grad_input(gy2, wt, gx_shape, 1, 1, 1, 1, "pairwise")
    for cfg in each_config(monkeypatch, tunings=TUNINGS, isas=ISAS, threads=[1, 3]):
        check(rb.conv2d(x, w, b, padding=1, order="pairwise"), ref_y, f"conv2d {cfg}")
        check(rb.conv2d_grad_input(gy2, wt, gx_shape, padding=1, order="pairwise"), ref_gx,
              f"grad_input {cfg}")


@pytest.mark.parametrize("dtype", DTYPES)
def test_many_rows_two_panels_per_call(dtype, monkeypatch):
    """300 output channels: 10 panels of 32 float32 rows (the last partial) or 19 of 16
    float64 rows (the last alone), where the AVX-512 kernel takes two panels per call;
    few tiles, so 3 threads split the panels too (two at a time)."""
    rng = np.random.default_rng(17)
    x = data(rng, (1, 7, 5, 6), dtype)
    w = data(rng, (300, 7, 3, 3), dtype)
    b = data(rng, (300,), dtype)
    gy = data(rng, (1, 300, 5, 6), dtype)
    ref_y = cref.conv2d(x, w, b, 1, 1, 1, 1, "pairwise")
    want_gw = gathered_grad_weight(x, gy, w.shape, 1, 1, 1, order="pairwise")
    for cfg in each_config(monkeypatch, tunings=TUNINGS, isas=ISAS, threads=[1, 3]):
        check(rb.conv2d(x, w, b, padding=1, order="pairwise"), ref_y, f"conv2d {cfg}")
        check(rb.conv2d_grad_weight(x, gy, w.shape, padding=1, order="pairwise"), want_gw,
              f"grad_weight {cfg}")
