"""The sequential convolution's paths for few output rows, bit for bit: the
narrow tile kernel (panels of one vector of rows, taken when the rows fit in
one vector: rows 1 to W), the single kc block of a one-panel problem, the
staged store (columns ordered by destination through the cached plan's
slots) and the AVX2 / AVX-512 store's masked runs (destinations in runs
shorter than W, border classes of one column per image row, partial column
groups, bias).

Small cases are checked against the literal reference
(test_reproblas_conv_reference.py); the demo's layers (batch 64, 8 x 8 images,
16 -> 16 and 1 -> 16 channels) and row counts around every ISA's vector width
against the scalar path (whose tiles are the 4-row wide kernel there, and whose
store is element by element), on every ISA, threads 1 and 3 and several
tunings."""
import numpy as np
import pytest

import reproblas as rb
import test_reproblas_conv_reference as cref
from test_reproblas_conv import check, each_config
from test_reproblas_gemm import data
from test_reproblas_reference import same_bits

DTYPES = [np.float32, np.float64]
# (chunk, kc, min_work, mc, batch): defaults (one kc block for one panel, the
# plan cached with its column slots: the staged store); explicit kc = 5
# (chains carried through the workspace across blocks) with small chunks; tiny
# chunks with a thread per unit; every class pair a batch of its own (no
# cached plan: the store chunk by chunk)
TUNINGS = [(0, 0, 0, 0, 0), (7, 5, 1, 5, 0), (1, 0, 1, 0, 0), (0, 0, 1, 0, 1)]
# rows around the vector widths: W = 4, 8, 16 (float64 / float32 on AVX2 and AVX-512)
ROWS = [1, 3, 4, 5, 7, 8, 9, 15, 16, 17]


def run_all(x, w, b, gy, params):
    """The three routines into outputs filled with NaN first (an output the store
    missed cannot hold an earlier call's bits)."""
    y, gx, gw = (np.full(s, np.nan, x.dtype) for s in (gy.shape, x.shape, w.shape))
    return (rb.conv2d(x, w, b, **params, out=y),
            rb.conv2d_grad_input(gy, w, x.shape, **params, out=gx),
            rb.conv2d_grad_weight(x, gy, w.shape, **params, out=gw))


def operands(rng, n, c, k, hw, rs, params, dtype, bias):
    x = data(rng, (n, c) + hw, dtype)
    w = data(rng, (k, c // params.get("groups", 1)) + rs, dtype)
    b = data(rng, (k,), dtype) if bias else None
    _, _, _, pq = cref.geometry(hw, rs, params.get("stride", 1), params.get("padding", 0),
                                params.get("dilation", 1))
    gy = data(rng, (n, k) + pq, dtype)
    return x, w, b, gy


def agree_with_scalar(monkeypatch, x, w, b, gy, params, what):
    monkeypatch.setenv("REPROBLAS_ISA", "scalar")
    monkeypatch.setenv("REPROBLAS_NUM_THREADS", "1")
    expected = run_all(x, w, b, gy, params)
    for cfg in each_config(monkeypatch, tunings=TUNINGS, threads=[1, 3]):
        for got, exp, name in zip(run_all(x, w, b, gy, params), expected,
                                  ("conv2d", "grad_input", "grad_weight")):
            check(got, exp, f"{what} {name} {cfg}")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("rows", [1, 7, 8, 9, 16])
def test_few_rows_match_reference(rows, dtype, monkeypatch):
    """conv2d with `rows` output channels and grad_input with `rows` input channels
    (their tile rows), 8 x 8 images with padding 1 (every border class: corners,
    edges of one column per image row, 6-column interior runs), bias."""
    rng = np.random.default_rng(rows)
    x, w, b, gy = operands(rng, 2, rows, rows, (8, 8), (3, 3), {"padding": 1}, dtype, True)
    ref_y = cref.conv2d(x, w, b, 1, 1, 1, 1, "sequential")
    ref_gx = cref.grad_input(gy, w, x.shape, 1, 1, 1, 1, "sequential")
    ref_gw = cref.grad_weight(x, gy, w.shape, 1, 1, 1, 1, "sequential")
    for cfg in each_config(monkeypatch, tunings=TUNINGS[:2], threads=[1, 3]):
        for got, exp, name in zip(run_all(x, w, b, gy, {"padding": 1}), (ref_y, ref_gx, ref_gw),
                                  ("conv2d", "grad_input", "grad_weight")):
            check(got, exp, f"{name} {cfg}")


@pytest.mark.parametrize("dtype", DTYPES)
def test_rows_around_the_vector_widths(dtype, monkeypatch):
    """Every row count from 1 to W + 1 of each ISA's narrow/wide switch, odd image
    sizes (runs of 5 and 9 destinations: partial and multi-run column groups)."""
    rng = np.random.default_rng(3)
    for rows in ROWS:
        x, w, b, gy = operands(rng, 3, rows, rows, (5, 11), (3, 3), {"padding": 1}, dtype,
                               rows % 2 == 1)
        agree_with_scalar(monkeypatch, x, w, b, gy, {"padding": 1}, f"rows={rows}")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("params", [
    {"stride": 2, "padding": 1},
    {"padding": (2, 1), "dilation": 2},
    {"padding": 1, "groups": 2},
    {"stride": (1, 2), "padding": (1, 0), "dilation": (2, 1)},
])
def test_few_rows_strides_dilations_groups(params, dtype, monkeypatch):
    rng = np.random.default_rng(5)
    x, w, b, gy = operands(rng, 4, 16, 16, (9, 8), (3, 3), params, dtype, True)
    agree_with_scalar(monkeypatch, x, w, b, gy, params, str(params))


@pytest.mark.parametrize("c", [16, 1])
def test_demo_layers(c, monkeypatch):
    """The digits demo's convolutions (reproblas/torch/demo.py): batch 64 of 8 x 8
    images, 3 x 3 with padding 1, c -> 16 channels, float32."""
    rng = np.random.default_rng(c)
    x, w, _, gy = operands(rng, 64, c, 16, (8, 8), (3, 3), {"padding": 1}, np.float32, False)
    agree_with_scalar(monkeypatch, x, w, None, gy, {"padding": 1}, f"{c}->16")



# shapes that differ from the first in one field each (image count, channels, size,
# output channels, kernel, stride, padding, dilation, groups): a plan cached for
# one must never serve another; more shapes than the per-thread cache holds
PLAN_SHAPES = [
    ((2, 4, 5, 6), (4, 3, 3), dict(padding=1)),
    ((3, 4, 5, 6), (4, 3, 3), dict(padding=1)),
    ((2, 2, 5, 6), (4, 3, 3), dict(padding=1)),
    ((2, 4, 6, 6), (4, 3, 3), dict(padding=1)),
    ((2, 4, 5, 7), (4, 3, 3), dict(padding=1)),
    ((2, 4, 5, 6), (6, 3, 3), dict(padding=1)),
    ((2, 4, 5, 6), (4, 3, 2), dict(padding=1)),
    ((2, 4, 5, 6), (4, 3, 3), dict(padding=1, stride=2)),
    ((2, 4, 5, 6), (4, 3, 3), dict(padding=(1, 2))),
    ((2, 4, 5, 6), (4, 3, 3), dict(padding=2, dilation=2)),
    ((2, 4, 5, 6), (4, 3, 3), dict(padding=1, groups=2)),
]


def plan_operands(i, dtype):
    (n, c, h, w), (k, r, s), params = PLAN_SHAPES[i]
    x, wt, b, gy = operands(np.random.default_rng(i), n, c, k, (h, w), (r, s), params, dtype,
                            True)
    return x, wt, b, gy, params


def plan_reference(i, dtype):
    x, w, b, gy, p = plan_operands(i, dtype)
    args = (p.get("stride", 1), p["padding"], p.get("dilation", 1), p.get("groups", 1),
            "sequential")
    return (cref.conv2d(x, w, b, *args), cref.grad_input(gy, w, x.shape, *args),
            cref.grad_weight(x, gy, w.shape, *args))


@pytest.mark.parametrize("dtype", DTYPES)
def test_cached_plans_serve_only_their_shape(dtype, monkeypatch):
    """Each routine's plan is cached per thread and shape: shapes that differ in
    one field, called round-robin (more of them than the cache holds, so plans are
    evicted and planned again), with the batch tuning changed in between, always
    give their literal reference's bits."""
    expected = [plan_reference(i, dtype) for i in range(len(PLAN_SHAPES))]
    monkeypatch.setenv("REPROBLAS_NUM_THREADS", "1")
    for tuning in [(0, 0, 0, 0, 0), (0, 0, 0, 0, 60), (0, 0, 0, 0, 0)]:
        for cfg in each_config(monkeypatch, tunings=[tuning], threads=[1]):
            for rnd in range(2):
                for i in list(range(len(PLAN_SHAPES))) + [0, 1, 0]:
                    x, w, b, gy, p = plan_operands(i, dtype)
                    for got, exp, name in zip(run_all(x, w, b, gy, p), expected[i],
                                              ("conv2d", "grad_input", "grad_weight")):
                        check(got, exp, f"{name} shape {i} round {rnd} {cfg}")


def test_cached_plans_are_per_thread():
    """Threads calling at once, each its own sequence of shapes (the caches are the
    threads' own), get the bits of single-threaded calls."""
    import threading
    expected = [plan_reference(i, np.float32) for i in range(len(PLAN_SHAPES))]
    errors = []

    def worker(start):
        try:
            for step in range(40):
                i = (start + step * (start + 1)) % len(PLAN_SHAPES)
                x, w, b, gy, p = plan_operands(i, np.float32)
                for got, exp in zip(run_all(x, w, b, gy, p), expected[i]):
                    if not same_bits(got, exp):
                        errors.append((start, step, i))
        except Exception as e:  # reported below
            errors.append(repr(e))

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[:5]
