"""A literal reference for reproblas conv2d and its gradients (contract §3 "Convolution").

Python loops over the definition: each output lists its present terms (padding
positions are skipped, never multiplied by zero) and sums them with the level-1
reference (test_reproblas_reference: rounded first product then MPFR fma chain,
or the contract's pairwise tree of rounded products). Shares nothing with the library.
"""
import itertools

import numpy as np

import test_reproblas_reference as ref


def geometry(in_hw, k_hw, stride, padding, dilation):
    """(pad_before, out_hw) from PyTorch's rules, written out independently."""
    pairs = [(v, v) if isinstance(v, int) else tuple(v) for v in (stride, dilation)]
    (sh, sw), (dh, dw) = pairs
    if padding == "valid":
        before, total = (0, 0), (0, 0)
    elif padding == "same":
        total = (dh * (k_hw[0] - 1), dw * (k_hw[1] - 1))
        before = (total[0] // 2, total[1] // 2)
    else:
        p = (padding, padding) if isinstance(padding, int) else tuple(padding)
        before, total = p, (2 * p[0], 2 * p[1])
    out = ((in_hw[0] + total[0] - dh * (k_hw[0] - 1) - 1) // sh + 1,
           (in_hw[1] + total[1] - dw * (k_hw[1] - 1) - 1) // sw + 1)
    return (sh, sw), before, (dh, dw), out


def _sum(xs, ws, order, dtype):
    with np.errstate(all="ignore"):
        return ref._ordered_products([dtype(v) for v in xs], [dtype(v) for v in ws], order,
                                     dtype)


def conv2d(x, w, bias, stride, padding, dilation, groups, order):
    n_, c_, h_, w_ = x.shape
    k_, cg, r_, s_ = w.shape
    (sh, sw), (ph, pw), (dh, dw), (p_, q_) = geometry((h_, w_), (r_, s_), stride, padding,
                                                      dilation)
    kg = k_ // groups
    dtype = x.dtype.type
    y = np.empty((n_, k_, p_, q_), dtype=x.dtype)
    for n, k, p, q in itertools.product(range(n_), range(k_), range(p_), range(q_)):
        xs, ws = [], []
        for c1, r, s in itertools.product(range(cg), range(r_), range(s_)):
            h, v = p * sh - ph + r * dh, q * sw - pw + s * dw
            if 0 <= h < h_ and 0 <= v < w_:
                xs.append(x[n, (k // kg) * cg + c1, h, v])
                ws.append(w[k, c1, r, s])
        acc = _sum(xs, ws, order, dtype)
        if bias is not None:
            with np.errstate(all="ignore"):
                acc = acc + dtype(bias[k])
        y[n, k, p, q] = acc
    return y


def grad_input(gy, w, input_shape, stride, padding, dilation, groups, order):
    n_, c_, h_, w_ = input_shape
    k_, cg, r_, s_ = w.shape
    (sh, sw), (ph, pw), (dh, dw), (p_, q_) = geometry((h_, w_), (r_, s_), stride, padding,
                                                      dilation)
    kg = k_ // groups
    dtype = gy.dtype.type
    gx = np.empty(input_shape, dtype=gy.dtype)
    for n, c, h, v in itertools.product(range(n_), range(c_), range(h_), range(w_)):
        gs, ws = [], []
        g = c // cg
        for k, r, s in itertools.product(range(g * kg, (g + 1) * kg), range(r_), range(s_)):
            ph_num, pw_num = h + ph - r * dh, v + pw - s * dw
            if ph_num % sh or pw_num % sw:
                continue
            p, q = ph_num // sh, pw_num // sw
            if 0 <= p < p_ and 0 <= q < q_:
                gs.append(gy[n, k, p, q])
                ws.append(w[k, c - g * cg, r, s])
        gx[n, c, h, v] = _sum(gs, ws, order, dtype)
    return gx


def grad_weight(x, gy, weight_shape, stride, padding, dilation, groups, order):
    n_, c_, h_, w_ = x.shape
    k_, cg, r_, s_ = weight_shape
    (sh, sw), (ph, pw), (dh, dw), (p_, q_) = geometry((h_, w_), (r_, s_), stride, padding,
                                                      dilation)
    kg = k_ // groups
    dtype = x.dtype.type
    gw = np.empty(weight_shape, dtype=x.dtype)
    for k, c1, r, s in itertools.product(range(k_), range(cg), range(r_), range(s_)):
        gs, xs = [], []
        c = (k // kg) * cg + c1
        for n, p, q in itertools.product(range(n_), range(p_), range(q_)):
            h, v = p * sh - ph + r * dh, q * sw - pw + s * dw
            if 0 <= h < h_ and 0 <= v < w_:
                gs.append(gy[n, k, p, q])
                xs.append(x[n, c, h, v])
        gw[k, c1, r, s] = _sum(gs, xs, order, dtype)
    return gw


def grad_bias(gy, order):
    dtype = gy.dtype.type
    out = np.empty(gy.shape[1], dtype=gy.dtype)
    for k in range(gy.shape[1]):
        out[k] = ref.reduce("sum", np.ascontiguousarray(gy[:, k]).ravel(), order=order)
    return out


# ---- checks of the reference itself ----

def test_reference_matches_exact_convolution_on_integers():
    """Small integers: every order gives the exact value, so the reference must
    equal a float64 NumPy evaluation (indexing and padding checked, not order)."""
    rng = np.random.default_rng(1)
    x = rng.integers(-4, 5, (2, 4, 5, 6)).astype(np.float64)
    w = rng.integers(-4, 5, (6, 2, 3, 2)).astype(np.float64)
    xp = np.pad(x, ((0, 0), (0, 0), (2, 2), (1, 1)))  # zeros are exact on integers
    expected = np.zeros((2, 6, 3, 7))
    for k in range(6):
        g = k // 3
        for r in range(3):
            for s in range(2):
                patch = xp[:, 2 * g:2 * g + 2, 2 * r:2 * r + 5:2, s:s + 7]
                expected[:, k] += np.einsum("nchw,c->nhw", patch, w[k, :, r, s])
    for order in ("sequential", "pairwise"):
        y = conv2d(x, w, None, (2, 1), (2, 1), (2, 1), 2, order)
        assert np.array_equal(y, expected)
        gy = np.ones_like(y)
        # grad_input of all ones: each input counts the taps that read it
        gx = grad_input(gy, np.ones_like(w), x.shape, (2, 1), (2, 1), (2, 1), 2, order)
        ones_conv = conv2d(np.ones_like(x), np.ones_like(w), None, (2, 1), (2, 1), (2, 1), 2,
                           order)
        assert gx.sum() == ones_conv.sum()


def test_reference_same_padding_is_asymmetric_for_even_kernels():
    assert geometry((5, 5), (4, 2), 1, "same", 1) == ((1, 1), (1, 0), (1, 1), (5, 5))
    assert geometry((5, 5), (3, 3), 1, "same", 2) == ((1, 1), (2, 2), (2, 2), (5, 5))
