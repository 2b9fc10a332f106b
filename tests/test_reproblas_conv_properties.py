"""Hypothesis: conv2d and its gradients equal the literal contract reference for any small
geometry (stride, padding incl. 'same'/'valid', dilation, groups, bias) and values
(finite or not), on every CPU path, thread count and chunk split."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import reproblas as rb
from reproblas import _core
import test_reproblas_conv_reference as cref
from test_reproblas_conv import check

ISAS = [name for name in _core.isa_names() if _core.isa_code(name) >= 0]


@st.composite
def convolutions(draw):
    dtype = draw(st.sampled_from([np.float32, np.float64]))
    groups = draw(st.integers(1, 2))
    cg, kg = draw(st.integers(0, 2)), draw(st.integers(1, 2))
    r, s = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    stride = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    dilation = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    padding = draw(st.one_of(st.sampled_from(["valid", "same"]),
                             st.tuples(st.integers(0, 3), st.integers(0, 3))))
    if padding == "same":
        stride = (1, 1)
    pad = (0, 0) if isinstance(padding, str) else padding
    # the input is at least the dilated kernel minus the padding
    h = draw(st.integers(max(0, dilation[0] * (r - 1) + 1 - 2 * pad[0]), 6))
    w = draw(st.integers(max(0, dilation[1] * (s - 1) + 1 - 2 * pad[1]), 6))
    n = draw(st.integers(0, 2))
    width = 32 if dtype is np.float32 else 64
    elem = st.one_of(st.floats(width=width, min_value=-1e3, max_value=1e3),
                     st.sampled_from([0.0, -0.0, np.inf, -np.inf, np.nan]),
                     st.floats(width=width, allow_nan=True, allow_infinity=True))
    seed = draw(st.integers(0, 2 ** 32 - 1))
    specials = draw(st.lists(elem, min_size=4, max_size=4))
    params = dict(stride=stride, padding=padding, dilation=dilation, groups=groups)
    cfg = (draw(st.sampled_from(ISAS)), draw(st.integers(1, 4)),
           (draw(st.integers(0, 5)), draw(st.integers(0, 4)), 1, draw(st.integers(-1, 30))))
    order = draw(st.sampled_from(["sequential", "pairwise"]))
    has_bias = draw(st.booleans())
    return dtype, (n, groups * cg, h, w), (groups * kg, cg, r, s), params, seed, specials, \
        cfg, order, has_bias


def fill(rng, shape, dtype, specials):
    a = (rng.standard_normal(shape) * 2.0 ** rng.integers(-8, 9, shape)).astype(dtype)
    flat = a.reshape(-1)
    if flat.size:
        idx = rng.integers(0, flat.size, len(specials))
        flat[idx] = np.array(specials, dtype=np.float64).astype(dtype)
    return a


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(convolutions())
def test_conv_matches_reference(case):
    dtype, xs, ws, params, seed, specials, (isa, threads, tuning), order, has_bias = \
        case
    rng = np.random.default_rng(seed)
    x, w = fill(rng, xs, dtype, specials), fill(rng, ws, dtype, specials)
    b = fill(rng, (ws[0],), dtype, specials[:1]) if has_bias else None
    _, _, _, (p, q) = cref.geometry(xs[2:], ws[2:], params["stride"], params["padding"],
                                    params["dilation"])
    gy = fill(rng, (xs[0], ws[0], p, q), dtype, specials)
    args = (params["stride"], params["padding"], params["dilation"], params["groups"], order)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("REPROBLAS_ISA", isa)
        mp.setenv("REPROBLAS_NUM_THREADS", str(threads))
        with _core.tuning(conv=tuning), np.errstate(all="ignore"):
            check(rb.conv2d(x, w, b, **params, order=order), cref.conv2d(x, w, b, *args),
                  "conv2d")
            check(rb.conv2d_grad_input(gy, w, xs, **params, order=order),
                  cref.grad_input(gy, w, xs, *args), "grad_input")
            check(rb.conv2d_grad_weight(x, gy, ws, **params, order=order),
                  cref.grad_weight(x, gy, ws, *args), "grad_weight")
            check(rb.conv2d_grad_bias(gy, order=order), cref.grad_bias(gy, order),
                  "grad_bias")

