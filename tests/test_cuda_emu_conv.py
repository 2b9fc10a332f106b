"""conv2d and its gradients on the CUDA kernels (src/cuda/reproblas/conv.cuh),
host-emulated and driven through the public API on "device" arrays: bitwise
the CPU backend's results (every CPU path, 1 and 3 threads): padding borders
(absent terms), stride, dilation, groups, 'same', ragged thread blocks,
non-power-of-two pairwise lengths, special values."""
import numpy as np
import pytest

import reproblas
from cuda_support import emu_array, same_bits
from test_cuda_emu_api import _emu, gpu  # noqa: F401 (fixtures: GPU arrays to the emulator)
from test_cuda_emu_reproblas import _cpu_everywhere

DTYPES = (np.float32, np.float64)
ORDERS = ("sequential", "pairwise")
# (N, C, H, W), (K, R, S), stride, padding, dilation, groups
CASES = [
    ((2, 3, 7, 6), (4, 3, 3), 1, 1, 1, 1),
    ((1, 4, 17, 18), (2, 3, 2), 1, "same", 2, 2),      # 306 positions: two blocks
    ((2, 2, 9, 8), (4, 3, 3), (2, 3), (2, 1), (1, 2), 2),
    ((1, 5, 6, 7), (3, 5, 1), 2, "valid", 1, 1),
    ((1, 3, 5, 5), (3, 1, 1), 1, 0, 1, 3),             # depthwise 1x1
    ((1, 2, 4, 4), (2, 4, 4), 1, 3, 1, 1),             # windows reaching one row / column in
    ((2, 6, 5, 6), (10, 3, 2), 1, 1, 1, 2),            # channel blocks of 8 ragged (5 per group)
    ((1, 12, 5, 4), (9, 2, 3), 1, 1, 1, 1),            # 72 taps: three weight stages; 9 = 8 + 1
    ((1, 2, 3, 3), (2, 2, 2), 1, 3, 1, 1),             # border outputs with no term at all: +0
    ((1, 3, 6, 5), (70, 3, 3), 1, 1, 1, 1),            # > 64 channels: float32's wide tiles
]


def _data(rng, shape, dtype, special):
    x = (rng.standard_normal(shape) * np.exp2(rng.integers(-6, 6, shape))).astype(dtype)
    if special:
        fi = np.finfo(dtype)
        pick = rng.random(shape) < 0.1
        x[pick] = rng.choice(np.array([-0.0, 0.0, np.inf, -np.inf, np.nan, fi.smallest_subnormal,
                                       fi.max], dtype), pick.sum())
    return x


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("case", range(len(CASES)))
def test_conv_and_gradients(gpu, case, order, dtype, monkeypatch):
    (n, c, h, w), (k, r, s), stride, padding, dilation, groups = CASES[case]
    rng = np.random.default_rng(case)
    special = case % 2 == 1
    x = _data(rng, (n, c, h, w), dtype, special)
    wt = _data(rng, (k, c // groups, r, s), dtype, special)
    bias = _data(rng, (k,), dtype, False)
    kw = dict(stride=stride, padding=padding, dilation=dilation, groups=groups, order=order)
    for b in (None, bias):
        y = reproblas.conv2d(emu_array(x), emu_array(wt), None if b is None else emu_array(b),
                             **kw)
        same_bits(y, _cpu_everywhere(monkeypatch, lambda: reproblas.conv2d(x, wt, b, **kw)))
    gy = _data(rng, y.shape, dtype, special)
    same_bits(reproblas.conv2d_grad_input(emu_array(gy), emu_array(wt), x.shape, **kw),
              _cpu_everywhere(monkeypatch, lambda: reproblas.conv2d_grad_input(
                  gy, wt, x.shape, **kw)))
    same_bits(reproblas.conv2d_grad_weight(emu_array(x), emu_array(gy), wt.shape, **kw),
              _cpu_everywhere(monkeypatch, lambda: reproblas.conv2d_grad_weight(
                  x, gy, wt.shape, **kw)))
    same_bits(reproblas.conv2d_grad_bias(emu_array(gy), order=order),
              _cpu_everywhere(monkeypatch, lambda: reproblas.conv2d_grad_bias(gy, order=order)))


def test_layouts_empty_and_errors(gpu):
    rng = np.random.default_rng(7)
    x = _data(rng, (2, 4, 6, 5), np.float32, False)
    wt = _data(rng, (3, 4, 3, 3), np.float32, False)
    xf = emu_array(np.asfortranarray(x))[:, :, ::-1]  # any layout: copied to C order
    same_bits(reproblas.conv2d(xf, emu_array(wt), padding=1),
              reproblas.conv2d(x[:, :, ::-1], wt, padding=1))
    same_bits(reproblas.conv2d(emu_array(x[:, :0]), emu_array(wt[:, :0]), padding=1),
              reproblas.conv2d(x[:, :0], wt[:, :0], padding=1))  # C = 0: +0
    same_bits(reproblas.conv2d(emu_array(x[:0]), emu_array(wt)), reproblas.conv2d(x[:0], wt))
    gy = np.ones((2, 3, 4, 3), np.float32)
    same_bits(reproblas.conv2d_grad_bias(emu_array(gy[:, :0])), np.zeros(0, np.float32))
    same_bits(reproblas.conv2d_grad_input(emu_array(gy[:, :0]), emu_array(wt[:0]), x.shape),
              reproblas.conv2d_grad_input(gy[:, :0], wt[:0], x.shape))
    with pytest.raises(ValueError, match="groups"):
        reproblas.conv2d(emu_array(x), emu_array(wt), groups=3)
    with pytest.raises(ValueError, match="same"):
        reproblas.conv2d(emu_array(x), emu_array(wt), stride=2, padding="same")
    with pytest.raises(ValueError, match="grad_output has shape"):
        reproblas.conv2d_grad_weight(emu_array(x), emu_array(gy), wt.shape, padding=1)
    with pytest.raises(TypeError, match="mixed dtypes"):
        reproblas.conv2d(emu_array(x), emu_array(wt.astype(np.float64)))
    with pytest.raises(ValueError, match="4-D"):
        reproblas.conv2d(emu_array(x[0, 0]), emu_array(wt))  # (3-D: one unbatched image)
    with pytest.raises(TypeError, match="GPU and some in host"):
        reproblas.conv2d(emu_array(x), wt)


@pytest.mark.cuda
@pytest.mark.cuda
@pytest.mark.parametrize("order", ORDERS)
def test_gpu_matches_cpu(order):
    """On a real GPU (skipped without CuPy or a device): the cases above and a
    ResNet-like layer, all four routines."""
    from cuda_support import gpu_or_skip
    cp = gpu_or_skip().xp
    cases = CASES + [((4, 32, 28, 28), (64, 3, 3), 1, 1, 1, 1)]
    for dtype in DTYPES:
        for case, ((n, c, h, w), (k, r, s), stride, padding, dilation, groups) in enumerate(cases):
            rng = np.random.default_rng(case)
            x = _data(rng, (n, c, h, w), dtype, case % 2 == 1)
            wt = _data(rng, (k, c // groups, r, s), dtype, case % 2 == 1)
            bias = _data(rng, (k,), dtype, False)
            kw = dict(stride=stride, padding=padding, dilation=dilation, groups=groups,
                      order=order)
            y = reproblas.conv2d(x, wt, bias, **kw)
            same_bits(cp.asnumpy(reproblas.conv2d(cp.asarray(x), cp.asarray(wt),
                                                  cp.asarray(bias), **kw)), y)
            gy = _data(rng, y.shape, dtype, False)
            same_bits(cp.asnumpy(reproblas.conv2d_grad_input(cp.asarray(gy), cp.asarray(wt),
                                                             x.shape, **kw)),
                      reproblas.conv2d_grad_input(gy, wt, x.shape, **kw))
            same_bits(cp.asnumpy(reproblas.conv2d_grad_weight(cp.asarray(x), cp.asarray(gy),
                                                              wt.shape, **kw)),
                      reproblas.conv2d_grad_weight(x, gy, wt.shape, **kw))
            same_bits(cp.asnumpy(reproblas.conv2d_grad_bias(cp.asarray(gy), order=order)),
                      reproblas.conv2d_grad_bias(gy, order=order))
