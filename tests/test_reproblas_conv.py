"""reproblas conv2d and its gradients against the literal contract reference
(test_reproblas_conv_reference.py), bit for bit: stride, padding ('same',
'valid', asymmetric), dilation, groups, bias, both orders and dtypes, special
values at the borders, every CPU path and thread count, chunk and kc splits,
batch invariance and operand layouts."""
import subprocess
import sys

import numpy as np
import pytest

import reproblas as rb
from reproblas import _core
import test_reproblas_conv_reference as cref
from test_reproblas_gemm import data, each_path
from test_reproblas_reference import same_bits

DTYPES = [np.float32, np.float64]
ORDERS = ["sequential", "pairwise"]
ISAS = [name for name in _core.isa_names() if _core.isa_code(name) >= 0]
THREADS = [1, 2, 3, 4]
# (chunk columns, kc, min_work, rows per block): defaults; one-column chunks,
# kc = 2 inside every term list, a thread per unit and the default row block;
# mid-size chunks, kc = 5 and 5-row blocks (one panel of the sequential kernel).
# (chunk, kc, min_work, mc, batch): batch 1 puts every class pair in a batch of its own
TUNINGS = [(0, 0, 0, 0, 0), (1, 2, 1, -1, 1), (7, 5, 1, 5, 60)]

# (N, C, H, W), (K, R, S), stride, padding, dilation, groups, bias
CASES = [
    ((2, 3, 5, 6), (4, 3, 3), 1, 1, 1, 1, True),
    ((1, 2, 7, 5), (3, 3, 2), (2, 1), (1, 2), (1, 2), 1, False),
    ((2, 4, 6, 6), (6, 2, 3), 1, "same", 2, 2, True),
    ((1, 2, 5, 4), (2, 4, 2), 1, "same", 1, 1, False),  # even kernel: extra pad bottom/right
    ((1, 3, 6, 7), (2, 3, 3), 3, "valid", 1, 1, True),
    ((2, 4, 4, 5), (4, 1, 1), 2, 0, 1, 4, False),  # depthwise 1x1, stride 2
    ((1, 1, 3, 3), (2, 3, 3), 1, 2, 1, 1, True),  # padding larger than the image edge
    ((1, 2, 3, 4), (2, 5, 3), (1, 2), (3, 1), (1, 1), 1, False),  # empty windows
]


def each_config(monkeypatch, tunings=TUNINGS, isas=ISAS, threads=THREADS):
    return each_path(monkeypatch, lambda t: {"conv": t}, tunings, isas, threads)


def operands(case, dtype, seed=0):
    (n, c, h, w), (k, r, s), stride, padding, dilation, groups, has_bias = case
    rng = np.random.default_rng(seed)
    x = data(rng, (n, c, h, w), dtype)
    wt = data(rng, (k, c // groups, r, s), dtype)
    bias = data(rng, (k,), dtype) if has_bias else None
    params = dict(stride=stride, padding=padding, dilation=dilation, groups=groups)
    _, _, _, (p, q) = cref.geometry((h, w), (r, s), stride, padding, dilation)
    gy = data(rng, (n, k, p, q), dtype)
    return x, wt, bias, gy, params


def check(got, expected, what):
    assert got.dtype == expected.dtype and got.shape == expected.shape, what
    assert got.flags.c_contiguous, what
    if not same_bits(got, expected):
        bad = np.argwhere(~((got == expected) | (np.isnan(got) & np.isnan(expected)) )
                          | (np.signbit(got) != np.signbit(expected)))
        i = tuple(bad[0])
        pytest.fail(f"{what}: {len(bad)} of {got.size} differ, first at {i}: "
                    f"got {got[i]!r}, expected {expected[i]!r}")


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", range(len(CASES)))
def test_matches_reference(case, dtype, order, monkeypatch):
    x, w, b, gy, params = operands(CASES[case], dtype, seed=case)
    ref_y = cref.conv2d(x, w, b, params["stride"], params["padding"], params["dilation"],
                        params["groups"], order)
    ref_gx = cref.grad_input(gy, w, x.shape, params["stride"], params["padding"],
                             params["dilation"], params["groups"], order)
    ref_gw = cref.grad_weight(x, gy, w.shape, params["stride"], params["padding"],
                              params["dilation"], params["groups"], order)
    ref_gb = cref.grad_bias(gy, order)
    for cfg in each_config(monkeypatch):
        check(rb.conv2d(x, w, b, **params, order=order), ref_y, f"conv2d {cfg}")
        check(rb.conv2d_grad_input(gy, w, x.shape, **params, order=order), ref_gx,
              f"grad_input {cfg}")
        check(rb.conv2d_grad_weight(x, gy, w.shape, **params, order=order), ref_gw,
              f"grad_weight {cfg}")
        check(rb.conv2d_grad_bias(gy, order=order), ref_gb, f"grad_bias {cfg}")


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_padding_is_absent_not_zero(order, dtype, monkeypatch):
    """-0 inputs sum to -0 (a padded +0 product would make the border +0), and an
    infinite weight on a tap that only meets padding leaves the border finite (0*inf
    would be NaN under an im2col with zeros)."""
    x = np.full((1, 2, 4, 5), -0.0, dtype)
    w = np.ones((3, 2, 3, 3), dtype)
    y = rb.conv2d(x, w, padding=1, order=order)
    assert np.all(y == 0) and np.all(np.signbit(y))
    x = np.ones((1, 1, 4, 5), dtype)
    w = np.ones((1, 1, 3, 3), dtype)
    w[0, 0, 0, :] = np.inf  # the top row of taps: absent on the first output row
    for _ in each_config(monkeypatch, tunings=TUNINGS[:2]):
        y = rb.conv2d(x, w, padding=1, order=order)
        assert np.all(np.isfinite(y[0, 0, 0])) and np.all(np.isposinf(y[0, 0, 1:]))
        check(y, cref.conv2d(x, w, None, 1, 1, 1, 1, order), "inf weights")
        gy = np.ones((1, 1, 4, 5), dtype)
        gx = rb.conv2d_grad_input(gy, w, x.shape, padding=1, order=order)
        # input row 3 is read by the top tap row only from output row 4, which does not exist
        assert np.all(np.isfinite(gx[0, 0, 3]))
        check(gx, cref.grad_input(gy, w, x.shape, 1, 1, 1, 1, order), "inf weights grad_input")


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_special_values(order, dtype, monkeypatch):
    rng = np.random.default_rng(5)
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-310, -5e-324, 1e-45, 3e38],
                        dtype=np.float64).astype(dtype)
    x = data(rng, (2, 2, 5, 4), dtype)
    w = data(rng, (3, 2, 2, 3), dtype)
    gy = data(rng, (2, 3, 5, 4), dtype)
    for a in (x, w, gy):
        flat = a.reshape(-1)
        idx = rng.choice(flat.size, flat.size // 4, replace=False)
        flat[idx] = rng.choice(specials, idx.size)
    b = rng.choice(specials, 3).astype(dtype)
    ref_y = cref.conv2d(x, w, b, 1, "same", 1, 1, order)
    ref_gx = cref.grad_input(gy, w, x.shape, 1, "same", 1, 1, order)
    ref_gw = cref.grad_weight(x, gy, w.shape, 1, "same", 1, 1, order)
    ref_gb = cref.grad_bias(gy, order)
    with np.errstate(all="ignore"):
        for cfg in each_config(monkeypatch, tunings=TUNINGS[:2], threads=[1, 3]):
            check(rb.conv2d(x, w, b, padding="same", order=order), ref_y, f"conv2d {cfg}")
            check(rb.conv2d_grad_input(gy, w, x.shape, padding="same", order=order), ref_gx,
                  f"grad_input {cfg}")
            check(rb.conv2d_grad_weight(x, gy, w.shape, padding="same", order=order), ref_gw,
                  f"grad_weight {cfg}")
            check(rb.conv2d_grad_bias(gy, order=order), ref_gb, f"grad_bias {cfg}")


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_paths_threads_and_batch_agree_on_a_larger_layer(order, dtype, monkeypatch):
    """A layer big enough for several chunks, row splits and kc blocks: every path
    and thread count gives the same bits, and each image of the batch alone gives
    the bits of its row of the batched call (batch invariance)."""
    rng = np.random.default_rng(7)
    x = data(rng, (3, 24, 11, 13), dtype)
    w = data(rng, (40, 12, 3, 3), dtype)
    b = data(rng, (40,), dtype)
    gy = data(rng, (3, 40, 6, 7), dtype)
    params = dict(stride=2, padding=(1, 2), dilation=(1, 2), groups=2)
    results = None
    for cfg in each_config(monkeypatch, tunings=[(0, 0, 0, 0), (50, 100, 1, -1),
                                                  (0, 0, 1, 100)]):
        got = (rb.conv2d(x, w, b, **params, order=order),
               rb.conv2d_grad_input(gy, w, x.shape, **params, order=order),
               rb.conv2d_grad_weight(x, gy, w.shape, **params, order=order),
               rb.conv2d_grad_bias(gy, order=order))
        if results is None:
            results = got
        for r, g, name in zip(results, got, ("conv2d", "grad_input", "grad_weight",
                                              "grad_bias")):
            check(g, r, f"{name} {cfg}")
    y, gx = results[:2]
    for i in range(3):
        check(rb.conv2d(x[i:i + 1], w, b, **params, order=order), y[i:i + 1], f"image {i}")
        check(rb.conv2d_grad_input(gy[i:i + 1], w, (1,) + x.shape[1:], **params, order=order),
              gx[i:i + 1], f"grad_input image {i}")


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_many_rows_and_narrow_classes(order, dtype, monkeypatch):
    """Enough output channels for several row panels plus a partial one (70 = 4*16 + 6
    for AVX2 float32), a single image whose border classes are 1 to 3 columns wide (the
    sequential kernel then takes up to 4 panels per call), kc blocks that cut the term
    lists of the classes differently, and rows per block below, at and above a panel.
    grad_input has 12 rows (channels): one partial panel."""
    rng = np.random.default_rng(11)
    x = data(rng, (1, 12, 3, 4), dtype)
    w = data(rng, (70, 12, 3, 3), dtype)
    b = data(rng, (70,), dtype)
    gy = data(rng, (1, 70, 3, 4), dtype)
    ref_y = cref.conv2d(x, w, b, 1, 1, 1, 1, order)
    ref_gx = cref.grad_input(gy, w, x.shape, 1, 1, 1, 1, order)
    for cfg in each_config(monkeypatch, tunings=[(0, 0, 0, 0), (5, 100, 1, 8), (1, 9, 1, 40)],
                           threads=[1, 2, 3]):
        check(rb.conv2d(x, w, b, padding=1, order=order), ref_y, f"conv2d {cfg}")
        check(rb.conv2d_grad_input(gy, w, x.shape, padding=1, order=order), ref_gx,
              f"grad_input {cfg}")


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("padding", [1, (4, 1)])
def test_wide_rows_and_empty_classes(padding, order, dtype, monkeypatch):
    """Output rows wide enough for runs of W consecutive columns (the sequential
    store transposes W x W blocks) that cross tile and chunk boundaries, rows in
    whole W-row groups plus a partial one (19 channels: both routines), with bias;
    padding (4, 1) adds classes without terms (+0, then + bias)."""
    rng = np.random.default_rng(13)
    x = data(rng, (1, 9, 4, 21), dtype)
    w = data(rng, (19, 9, 3, 3), dtype)
    b = data(rng, (19,), dtype)
    _, _, _, (p, q) = cref.geometry((4, 21), (3, 3), 1, padding, 1)
    gy = data(rng, (1, 19, p, q), dtype)
    ref_y = cref.conv2d(x, w, b, 1, padding, 1, 1, order)
    ref_gx = cref.grad_input(gy, w, x.shape, 1, padding, 1, 1, order)
    for cfg in each_config(monkeypatch, tunings=[(0, 0, 0, 0), (7, 2, 1, -1), (0, 5, 1, 16)],
                           threads=[1, 2, 3]):
        check(rb.conv2d(x, w, b, padding=padding, order=order), ref_y, f"conv2d {cfg}")
        check(rb.conv2d_grad_input(gy, w, x.shape, padding=padding, order=order), ref_gx,
              f"grad_input {cfg}")


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("stride, dilation", [(1, 1), (2, 1), (3, 2), (4, 2), (6, 4), (2, 3),
                                              (6, 3)])
def test_wide_kernels_strides_and_dilations(stride, dilation, order):
    """A kernel wider than the image with padding on both sides: every output column is
    a border class. grad_input's taps per input column are every (stride / g)-th tap,
    g = gcd(stride, dilation), so strides sharing a factor with the dilation (and
    those that do not) give the classes the other tap steps."""
    rng = np.random.default_rng(17)
    x = data(rng, (2, 3, 5, 13), np.float64)
    w = data(rng, (4, 3, 3, 9), np.float64)
    pad = (2, dilation * 8 - 3)
    _, _, _, (p, q) = cref.geometry((5, 13), (3, 9), (1, stride), pad, (1, dilation))
    gy = data(rng, (2, 4, p, q), np.float64)
    params = dict(stride=(1, stride), padding=pad, dilation=(1, dilation))
    args = ((1, stride), pad, (1, dilation), 1, order)
    check(rb.conv2d(x, w, None, **params, order=order), cref.conv2d(x, w, None, *args), "conv2d")
    check(rb.conv2d_grad_input(gy, w, x.shape, **params, order=order),
          cref.grad_input(gy, w, x.shape, *args), "grad_input")


def test_layouts_do_not_change_results():
    rng = np.random.default_rng(3)
    x = data(rng, (2, 3, 6, 5), np.float32)
    w = data(rng, (4, 3, 3, 3), np.float32)
    gy = data(rng, (2, 4, 6, 5), np.float32)
    y, gx = rb.conv2d(x, w, padding=1), rb.conv2d_grad_input(gy, w, x.shape, padding=1)
    gw = rb.conv2d_grad_weight(x, gy, w.shape, padding=1)
    for view in (lambda a: np.asfortranarray(a), lambda a: a[::-1].copy()[::-1],
                 lambda a: np.repeat(a, 2, axis=-1)[..., ::2]):
        check(rb.conv2d(view(x), view(w), padding=1), y, "conv2d layout")
        check(rb.conv2d_grad_input(view(gy), view(w), x.shape, padding=1), gx, "gx layout")
        check(rb.conv2d_grad_weight(view(x), view(gy), w.shape, padding=1), gw, "gw layout")


@pytest.mark.parametrize("dtype", DTYPES)
def test_empty_dimensions(dtype):
    z = np.zeros
    assert rb.conv2d(z((0, 2, 4, 4), dtype), z((3, 2, 3, 3), dtype)).shape == (0, 3, 2, 2)
    assert rb.conv2d(z((1, 2, 4, 4), dtype), z((0, 2, 3, 3), dtype)).shape == (1, 0, 2, 2)
    # no input channels: no terms, S = +0, then the bias
    y = rb.conv2d(z((1, 0, 3, 3), dtype), z((2, 0, 1, 1), dtype), np.array([-0.0, 2], dtype))
    assert y.shape == (1, 2, 3, 3) and np.all(y[0, 1] == 2)
    assert np.all(y[0, 0] == 0) and not np.any(np.signbit(y[0, 0]))  # +0 ⊕ -0 = +0
    # an empty image with padding: every output is in the padding
    y = rb.conv2d(z((1, 1, 0, 0), dtype), np.ones((1, 1, 1, 1), dtype), padding=1)
    assert y.shape == (1, 1, 2, 2) and np.all(y == 0) and not np.any(np.signbit(y))
    gb = rb.conv2d_grad_bias(z((0, 3, 2, 2), dtype))
    assert gb.shape == (3,) and np.all(gb == 0) and not np.any(np.signbit(gb))
    assert rb.conv2d_grad_weight(z((0, 2, 4, 4), dtype), z((0, 3, 2, 2), dtype),
                                 (3, 2, 3, 3)).shape == (3, 2, 3, 3)
    assert rb.conv2d_grad_input(z((0, 3, 2, 2), dtype), z((3, 2, 3, 3), dtype),
                                (0, 2, 4, 4)).shape == (0, 2, 4, 4)


def test_errors():
    x = np.zeros((1, 4, 5, 5), np.float32)
    w = np.zeros((2, 4, 3, 3), np.float32)
    gy = np.zeros((1, 2, 3, 3), np.float32)
    with pytest.raises(TypeError, match="mixed dtypes"):
        rb.conv2d(x, w.astype(np.float64))
    with pytest.raises(TypeError, match="mixed dtypes"):
        rb.conv2d(x, w, np.zeros(2))
    with pytest.raises(TypeError, match="float32 or float64"):
        rb.conv2d(x.astype(np.int32), w)
    with pytest.raises(TypeError, match="NumPy array"):
        rb.conv2d(x.tolist(), w)
    with pytest.raises(ValueError, match="4-D"):
        rb.conv2d(x[0, 0], w)  # (3-D is one unbatched image, as in PyTorch)
    with pytest.raises(ValueError, match="input channels"):
        rb.conv2d(x, w[:, :3])
    with pytest.raises(ValueError, match="groups"):
        rb.conv2d(x, w[:, :2], groups=3)
    with pytest.raises(ValueError, match="bias"):
        rb.conv2d(x, w, np.zeros(3, np.float32))
    with pytest.raises(ValueError, match="stride 1"):
        rb.conv2d(x, w, stride=2, padding="same")
    with pytest.raises(ValueError, match="padding="):
        rb.conv2d(x, w, padding="full")
    with pytest.raises(ValueError, match=">= 1"):
        rb.conv2d(x, w, stride=0)
    with pytest.raises(ValueError, match=">= 0"):
        rb.conv2d(x, w, padding=(-1, 0))
    with pytest.raises(TypeError, match="pair of ints"):
        rb.conv2d(x, w, dilation=1.5)
    with pytest.raises(ValueError, match="pair of ints"):
        rb.conv2d(x, w, stride=(1, 1, 1))
    with pytest.raises(ValueError, match="smaller than the dilated kernel"):
        rb.conv2d(x, w, dilation=3)
    with pytest.raises(ValueError, match="order="):
        rb.conv2d(x, w, order="random")
    with pytest.raises(ValueError, match="grad_output has shape"):
        rb.conv2d_grad_input(gy, w, (1, 4, 6, 6))
    with pytest.raises(ValueError, match="grad_output has shape"):
        rb.conv2d_grad_weight(x, gy[:, :1], w.shape)
    with pytest.raises(ValueError, match="4 non-negative ints"):
        rb.conv2d_grad_input(gy, w, (1, 4, 5))
    with pytest.raises(TypeError, match="4 ints"):
        rb.conv2d_grad_weight(x, gy, 3)
    with pytest.raises(TypeError, match="4 ints"):
        rb.conv2d_grad_input(gy, w, (1, 4, 5.5, 5))
    with pytest.raises(ValueError, match="4 non-negative ints"):
        rb.conv2d_grad_input(gy, w, (1, 4, -5, 5))
    for call in (lambda: rb.conv2d(None, w), lambda: rb.conv2d(x, None),
                 lambda: rb.conv2d_grad_bias(None), lambda: rb.conv2d_grad_input(None, w, x.shape),
                 lambda: rb.conv2d_grad_weight(x, None, w.shape)):
        with pytest.raises(TypeError, match="NumPy array"):
            call()
    # an empty kernel window (PyTorch refuses it too): 'same' would pad by -1
    for padding in (0, "same"):
        with pytest.raises(ValueError, match="kernel's height and width"):
            rb.conv2d(x, w[:, :, :0], padding=padding)
        with pytest.raises(ValueError, match="kernel's height and width"):
            rb.conv2d_grad_weight(x, gy, (2, 4, 3, 0), padding=padding)
    with pytest.raises(ValueError, match="4-D"):
        rb.conv2d_grad_bias(gy[0, 0])  # (3-D is one unbatched image)
    with pytest.raises(ValueError, match="at most 2"):  # beyond the core's index range
        rb.conv2d(x, w, stride=2 ** 31)
    with pytest.raises(ValueError, match="at most 2"):
        rb.conv2d_grad_weight(x, np.zeros((1, 2, 1, 3), np.float32), w.shape,
                              stride=(2 ** 31, 1))
    for padding in (2 ** 40, 2 ** 62):  # refused before the output is allocated
        with pytest.raises(ValueError, match="at most 2"):
            rb.conv2d(x, w, padding=padding)
    # refused from the shapes alone: a 2**32-element broadcast view is never copied
    huge = np.broadcast_to(np.float32(0), (1, 1, 2 ** 31, 2))
    for call in (lambda: rb.conv2d(huge, w[:1, :1, :1, :1]), lambda: rb.conv2d_grad_bias(huge),
                 lambda: rb.conv2d_grad_weight(huge, huge, (1, 1, 1, 1))):
        with pytest.raises(ValueError, match="conv2d.*at most 2"):
            call()


def test_torch_sanity():
    """Loose agreement with PyTorch (a different order: only close, not equal)."""
    torch = pytest.importorskip("torch", reason="needs PyTorch (pip install -e '.[torch]')")
    F = torch.nn.functional
    rng = np.random.default_rng(11)
    x = rng.standard_normal((2, 4, 9, 8))
    w = rng.standard_normal((6, 2, 3, 2))
    b = rng.standard_normal(6)
    params = dict(stride=(2, 1), padding=(1, 2), dilation=(1, 2), groups=2)
    tx = torch.from_numpy(x).requires_grad_()
    tw = torch.from_numpy(w).requires_grad_()
    tb = torch.from_numpy(b).requires_grad_()
    ty = F.conv2d(tx, tw, tb, **params)
    gy = rng.standard_normal(tuple(ty.shape))
    ty.backward(torch.from_numpy(gy))
    np.testing.assert_allclose(rb.conv2d(x, w, b, **params), ty.detach().numpy(), rtol=1e-10,
                               atol=1e-10)
    np.testing.assert_allclose(rb.conv2d_grad_input(gy, w, x.shape, **params),
                               tx.grad.numpy(), rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(rb.conv2d_grad_weight(x, gy, w.shape, **params),
                               tw.grad.numpy(), rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(rb.conv2d_grad_bias(gy), tb.grad.numpy(), rtol=1e-10,
                               atol=1e-10)
    same = F.conv2d(torch.from_numpy(x), torch.from_numpy(w[:, :, :, :1]), padding="same",
                    groups=2)
    np.testing.assert_allclose(rb.conv2d(x, w[:, :, :, :1], padding="same", groups=2),
                               same.numpy(), rtol=1e-10, atol=1e-10)


def test_caller_ftz_daz_does_not_change_results():
    """Subnormal inputs and results are honoured even when the caller set FTZ/DAZ."""
    rng = np.random.default_rng(13)
    x = (rng.standard_normal((2, 3, 5, 6)) * 1e-39).astype(np.float32)  # float32 subnormals
    w = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
    gy = (rng.standard_normal((2, 4, 5, 6)) * 1e-39).astype(np.float32)

    def run():
        return [f(order=o) for o in ORDERS for f in (
            lambda order: rb.conv2d(x, w, padding=1, order=order),
            lambda order: rb.conv2d_grad_input(gy, w, x.shape, padding=1, order=order),
            lambda order: rb.conv2d_grad_weight(x, gy, w.shape, padding=1, order=order),
            lambda order: rb.conv2d_grad_bias(gy, order=order))]

    want = run()
    out = _core.call_with_mxcsr(0x1F80 | 0x8000 | 0x0040, run)
    if out is None:
        pytest.skip("needs an x86 CPU (the MXCSR FTZ/DAZ bits exist on x86 only)")
    for g, e in zip(out[0], want):
        check(g, e, "FTZ/DAZ caller")
    assert np.any(want[0] != 0)
    check(want[0], cref.conv2d(x, w, None, 1, 1, 1, 1, "sequential"), "subnormals")


LARGE_KERNEL = r"""
import numpy as np, reproblas as rb
x = np.ones((1, 1, 128, 128), np.float32)
for order in ("sequential", "pairwise"):
    y = rb.conv2d(x, x, padding="same", order=order)
    # all ones: each output is its count of present taps, rows times columns
    taps = np.array([min(i + 64, 127) - max(i - 63, 0) + 1 for i in range(128)], np.float32)
    assert np.array_equal(y[0, 0], np.outer(taps, taps)), order
# this process's own peak (VmHWM; ru_maxrss keeps the forking parent's peak across exec)
print(int(next(l for l in open("/proc/self/status") if l.startswith("VmHWM")).split()[1]) // 1024)
"""


def test_kernel_as_large_as_the_image_memory_bounded():
    """A 128 x 128 'same' kernel makes every output row and column a class of its own;
    the pairs' term tables (2.4 GB at once) are built a batch of pairs at a time."""
    out = subprocess.run([sys.executable, "-c", LARGE_KERNEL], capture_output=True, text=True,
                         check=True)
    assert int(out.stdout.split()[-1]) < 600  # MB of peak memory, was 3500


WIDE_ROW = r"""
import numpy as np, reproblas as rb
taps = 8191
x = np.ones((1, 1, 1, taps + 100), np.float32)
w = np.ones((1, 1, 1, taps), np.float32)
for order in ("sequential", "pairwise"):
    y = rb.conv2d(x, w, padding="same", order=order)
    # all ones: each output is its count of present taps
    q = np.arange(x.shape[3])
    want = np.minimum(q + taps // 2, x.shape[3] - 1) - np.maximum(q - taps // 2, 0) + 1
    assert np.array_equal(y[0, 0, 0], want.astype(np.float32)), order
# this process's own peak (VmHWM; ru_maxrss keeps the forking parent's peak across exec)
print(int(next(l for l in open("/proc/self/status") if l.startswith("VmHWM")).split()[1]) // 1024)
"""


def test_kernel_row_as_wide_as_the_image_memory_bounded():
    """An 8191-tap row: 8191 border classes, each with its own range of taps. The
    classes keep their taps as a progression, not a list per position."""
    out = subprocess.run([sys.executable, "-c", WIDE_ROW], capture_output=True, text=True,
                         check=True)
    assert int(out.stdout.split()[-1]) < 600  # MB of peak memory, was 2000


def gathered_grad_weight(x, gy, weight_shape, stride, padding, dilation, groups=1,
                         order="sequential"):
    """grad_weight tap by tap and group by group as gemms of the gathered present (n, p, q)
    terms, +0 where a tap has none (rb.gemm's orders are checked against the reference
    elsewhere)."""
    n_, c_, h_, w_ = x.shape
    k_, cg, r_, s_ = weight_shape
    kg = k_ // groups
    (sh, sw), (ph, pw), (dh, dw), (p_, q_) = cref.geometry((h_, w_), (r_, s_), stride, padding,
                                                          dilation)
    gw = np.empty(weight_shape, x.dtype)
    for r in range(r_):
        for s in range(s_):
            p = [p for p in range(p_) if 0 <= p * sh - ph + r * dh < h_]
            q = [q for q in range(q_) if 0 <= q * sw - pw + s * dw < w_]
            h = [i * sh - ph + r * dh for i in p]
            v = [j * sw - pw + s * dw for j in q]
            for g in range(groups):
                a = gy[:, g * kg:(g + 1) * kg][:, :, p][:, :, :, q]
                b = x[:, g * cg:(g + 1) * cg][:, :, h][:, :, :, v]
                a = a.transpose(1, 0, 2, 3).reshape(kg, -1)
                b = b.transpose(1, 0, 2, 3).reshape(cg, -1)
                if a.shape[1] == 0:
                    gw[g * kg:(g + 1) * kg, :, r, s] = 0
                else:
                    gw[g * kg:(g + 1) * kg, :, r, s] = rb.gemm(
                        1.0, np.ascontiguousarray(a), np.ascontiguousarray(b).T, order=order)
    return gw


@pytest.mark.parametrize("dtype", DTYPES)
def test_grad_weight_sequential_many_channels(dtype, monkeypatch):
    """The sequential grad_weight packs grad_y once for all taps (several panels of
    rows, tiles of several taps, rows split over threads) and stores tap-major, then
    transposes: the same bits as tap-by-tap gemms of the gathered terms. Taps r = 0
    and 2 of the second shape meet only padding: +0, even with NaN and inf in x."""
    rng = np.random.default_rng(11)
    shapes = [((2, 37, 6, 5), (35, 3, 3), 1, 1, 1), ((1, 33, 2, 7), (34, 3, 2), (1, 2), 3, (3, 1)),
              ((3, 36, 4, 4), (40, 1, 1), 1, 0, 1)]
    for xs, (k, r, s), stride, padding, dilation in shapes:
        x = data(rng, xs, dtype)
        w_shape = (k, xs[1], r, s)
        _, _, _, (p, q) = cref.geometry(xs[2:], (r, s), stride, padding, dilation)
        gy = data(rng, (xs[0], k, p, q), dtype)
        if r == 3 and xs[2] == 2:
            x[0, 0, 0, :2] = [np.nan, np.inf]
        want = gathered_grad_weight(x, gy, w_shape, stride, padding, dilation)
        if r == 3 and xs[2] == 2:
            assert np.all(want[:, :, [0, 2]] == 0) and not np.any(np.signbit(want[:, :, [0, 2]]))
        for cfg in each_config(monkeypatch, tunings=TUNINGS, threads=[1, 3]):
            check(rb.conv2d_grad_weight(x, gy, w_shape, stride=stride, padding=padding,
                                        dilation=dilation), want, f"grad_weight {xs} {cfg}")


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_reused_buffers_hold_nothing_of_earlier_calls(order, dtype, monkeypatch):
    """The drivers' per-thread buffers (transposed weights, gathered terms,
    compacted rows, chunk columns) are reused by the next call: a larger call full
    of NaN before each call leaves the next result exactly the reference."""
    rng = np.random.default_rng(21)
    params = dict(stride=1, padding=1, dilation=1, groups=1)
    bx, bw = np.full((2, 9, 10, 9), np.nan, dtype), np.full((8, 9, 3, 3), np.nan, dtype)
    bgy = np.full((2, 8, 10, 9), np.nan, dtype)
    x, w, gy = data(rng, (1, 5, 6, 7), dtype), data(rng, (4, 5, 3, 3), dtype), \
        data(rng, (1, 4, 6, 7), dtype)
    want = (cref.conv2d(x, w, None, 1, 1, 1, 1, order),
            cref.grad_input(gy, w, x.shape, 1, 1, 1, 1, order),
            cref.grad_weight(x, gy, w.shape, 1, 1, 1, 1, order), cref.grad_bias(gy, order))
    calls = (lambda x, w, gy: rb.conv2d(x, w, **params, order=order),
             lambda x, w, gy: rb.conv2d_grad_input(gy, w, x.shape, **params, order=order),
             lambda x, w, gy: rb.conv2d_grad_weight(x, gy, w.shape, **params, order=order),
             lambda x, w, gy: rb.conv2d_grad_bias(gy, order=order))
    with np.errstate(all="ignore"):
        for cfg in each_config(monkeypatch, tunings=TUNINGS[:1] + TUNINGS[2:], threads=[1, 3]):
            for call, ref, name in zip(calls, want, ("conv2d", "grad_input", "grad_weight",
                                                     "grad_bias")):
                assert np.isnan(call(bx, bw, bgy)).any()
                check(call(x, w, gy), ref, f"{name} after a NaN call {cfg}")
