"""Autograd functions over reproblas: linear, matmul, conv2d.

Tensors go to NumPy (CPU) or CuPy (CUDA, through DLPack) without a copy, reproblas computes
there, and the result comes back as a tensor on the same device. Every gradient is a
reproblas product or sum with the terms and order written in docs/torch.md, in the
forward's `order`.
Each backward is written with these Functions again (and exact views), so derivatives of
every order exist and are reproducible: a gradient penalty or ``gradgradcheck`` differentiates
the backward's own reproblas products (docs/contract.md §5.6).
"""
import math

import numpy as np
import torch

import reproblas
from reproblas import _core, _validate

from . import _device
from ._prims import array as _array
from ._prims import broadcast_shapes, expand, rsum, run
from ._prims import tensor as _tensor


def _check(routine, **tensors):
    """Each tensor is a float tensor (the bias may be None: absent), all of one dtype and on
    one device."""
    _device.same_device(routine, **tensors)
    for name, t in tensors.items():
        if t is not None or name != "bias":
            _array(t, name, routine)
    dtypes = {name: t.dtype for name, t in tensors.items() if t is not None}
    if len(set(dtypes.values())) > 1:
        desc = ", ".join(f"{k} is {v}" for k, v in dtypes.items())
        raise TypeError(f"reproblas.torch.{routine}: mixed dtypes ({desc}); reproblas never "
                        f"casts silently: convert one of them with .to()")


def _rows(a):
    """(..., f) as the 2-D (rows, f), rows in C order of the leading axes."""
    return a.reshape(math.prod(a.shape[:-1]), a.shape[-1])


def _trows(t):
    """A tensor (..., f) as the 2-D (rows, f), rows in C order of the leading axes."""
    return t.reshape(math.prod(t.shape[:-1]), t.shape[-1])


# ---- linear: y = x W^T (+ b) ----

class _Linear(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input, weight, bias, order):
        x, w = _array(input, "input", "linear"), _array(weight, "weight", "linear")
        x2 = _rows(x)
        if bias is None:
            y = reproblas.gemm(1.0, x2, w, trans_b=True, order=order)
        else:  # y = fma(1, b, S) = S + b, one rounding per element, in the core's FP
            # environment (NumPy's += would round in the caller's: mode, FTZ/DAZ)
            bv = _array(bias, "bias", "linear")
            y = _core.linear_plain(order, x2, w, bv)
            if y is None:
                b = np.broadcast_to(bv, (x2.shape[0], w.shape[0]))
                y = reproblas.gemm(1.0, x2, w, 1.0, b, trans_b=True, order=order)
        ctx.save_for_backward(input, weight)
        ctx.order, ctx.has_bias = order, bias is not None
        return _tensor(y.reshape(x.shape[:-1] + (w.shape[0],)))

    @staticmethod
    def backward(ctx, grad_output):
        input, weight = ctx.saved_tensors
        g = _trows(grad_output)
        grad_input = grad_weight = grad_bias = None
        if ctx.needs_input_grad[0]:  # sum over the output features o
            grad_input = run(_Matmul, g, weight, ctx.order).reshape(input.shape)
        if ctx.needs_input_grad[1]:  # sum over the rows of the flattened batch
            grad_weight = run(_Matmul, g.t(), _trows(input), ctx.order)
        if ctx.has_bias and ctx.needs_input_grad[2]:
            # the ordered sum of g[r, o] over the rows r (the terms of gemv with ones)
            grad_bias = rsum(g, 0, order=ctx.order)
        return grad_input, grad_weight, grad_bias, None


def linear(input, weight, bias=None, *, order="sequential"):
    """``torch.nn.functional.linear`` on reproblas: ``y = S (+) bias``.

    ``S[..., o]`` is the ordered sum over i of ``input[..., i] * weight[o, i]`` (a
    :func:`reproblas.gemm`); the bias is added after it, one rounding per element.
    Backward: ``grad_input = grad @ weight`` (terms over o), ``grad_weight = grad^T @
    input`` and ``grad_bias`` (terms over the flattened batch rows, ascending).

    Parameters
    ----------
    input : torch.Tensor
        ``(..., in_features)``, CPU or CUDA, float32 or float64.
    weight : torch.Tensor
        ``(out_features, in_features)``, input's dtype.
    bias : torch.Tensor, optional
        ``(out_features,)``.
    order : {'sequential', 'pairwise'}
        Summation order of every sum, forward and backward.

    Returns
    -------
    torch.Tensor
        ``(..., out_features)``.
    """
    _validate.order(order, "torch.linear")
    _check("linear", input=input, weight=weight, bias=bias)
    if weight.ndim != 2 or input.ndim < 1 or input.shape[-1] != weight.shape[1]:
        raise ValueError(f"reproblas.torch.linear: input {tuple(input.shape)} and weight "
                         f"{tuple(weight.shape)} do not match: weight must be (out, in) "
                         f"with in = input.shape[-1]")
    if bias is not None and tuple(bias.shape) != (weight.shape[0],):
        raise ValueError(f"reproblas.torch.linear: bias has shape {tuple(bias.shape)}, "
                         f"expected ({weight.shape[0]},)")
    return run(_Linear, input, weight, bias, order)


# ---- matmul, with NumPy/PyTorch broadcasting ----

def _reduce_matmul(left, right, shape, order):
    """``sum(left @ right)`` over the batch axes that broadcast onto `shape` (tensors).

    left ``(B..., p, c)`` and right ``(B..., c, q)`` share the full batch shape B; the
    result has batch shape `shape` (B with some axes of size 1). Each element is one
    ordered sum whose terms run over (the reduced batch indices, lexicographic; then c).
    """
    batch = tuple(left.shape[:-2])
    nb = len(batch)
    target = (1,) * (nb - len(shape)) + tuple(shape)
    reduced = [i for i in range(nb) if target[i] == 1 and batch[i] != 1]
    kept = [i for i in range(nb) if i not in reduced]
    p, c, q = left.shape[-2], left.shape[-1], right.shape[-1]
    kept_shape = tuple(batch[i] for i in kept)
    r = math.prod(batch[i] for i in reduced)
    lt = left.permute(kept + [nb] + reduced + [nb + 1]).reshape(kept_shape + (p, r * c))
    rt = right.permute(kept + reduced + [nb, nb + 1]).reshape(kept_shape + (r * c, q))
    return run(_Matmul, lt, rt, order).reshape(tuple(shape) + (p, q))


class _Matmul(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a_t, b_t, order):
        a, b = _array(a_t, "input", "matmul"), _array(b_t, "other", "matmul")
        ctx.save_for_backward(a_t, b_t)
        ctx.order = order
        return _tensor(reproblas.matmul(a, b, order=order))

    @staticmethod
    def backward(ctx, grad_output):
        a_t, b_t = ctx.saved_tensors
        a2 = a_t.unsqueeze(0) if a_t.ndim == 1 else a_t
        b2 = b_t.unsqueeze(1) if b_t.ndim == 1 else b_t
        batch = tuple(broadcast_shapes(a2.shape[:-2], b2.shape[:-2]))
        m, n = a2.shape[-2], b2.shape[-1]
        g = grad_output.reshape(batch + (m, n))
        grad_a = grad_b = None
        if ctx.needs_input_grad[0]:  # grad @ b^T: terms over (reduced batch, n)
            bt = expand(b2, batch + tuple(b2.shape[-2:]), ctx.order).transpose(-1, -2)
            grad_a = _reduce_matmul(g, bt, a2.shape[:-2], ctx.order).reshape(a_t.shape)
        if ctx.needs_input_grad[1]:  # a^T @ grad: terms over (reduced batch, m)
            at = expand(a2, batch + tuple(a2.shape[-2:]), ctx.order).transpose(-1, -2)
            grad_b = _reduce_matmul(at, g, b2.shape[:-2], ctx.order).reshape(b_t.shape)
        return grad_a, grad_b, None


def matmul(input, other, *, order="sequential"):
    """``torch.matmul`` on reproblas (shapes and broadcasting as torch/NumPy).

    Forward: :func:`reproblas.matmul`. Backward: ``grad @ other^T`` and ``input^T @ grad``;
    where an operand was broadcast over batch axes, its gradient is one ordered sum
    whose terms run over (those batch indices, lexicographic; then the contracted index).

    Parameters
    ----------
    input, other : torch.Tensor
        CPU or CUDA tensors of one dtype (float32 or float64), at least 1-D.
    order : {'sequential', 'pairwise'}
        Summation order of every sum, forward and backward.

    Returns
    -------
    torch.Tensor
        The product (0-d for two vectors).
    """
    _validate.order(order, "torch.matmul")
    _check("matmul", input=input, other=other)
    return run(_Matmul, input, other, order)


# ---- conv2d (NCHW, PyTorch conventions; contract §3 "Convolution") ----

# Each gradient is bilinear in its two tensor arguments; its own gradients are the other two
# operations of the triple (conv2d, grad_input, grad_weight), so every order is reproblas.

class _Conv2d(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input, weight, bias, args, order):
        x, w = _array(input, "input", "conv2d"), _array(weight, "weight", "conv2d")
        b = None if bias is None else _array(bias, "bias", "conv2d")
        y = reproblas.conv2d(x, w, b, *args, order=order)
        ctx.save_for_backward(input, weight)
        ctx.args, ctx.order, ctx.has_bias = args, order, bias is not None
        return _tensor(y)

    @staticmethod
    def backward(ctx, grad_output):
        input, weight = ctx.saved_tensors
        grad_input = grad_weight = grad_bias = None
        if ctx.needs_input_grad[0]:
            grad_input = run(_ConvGradInput, grad_output, weight, tuple(input.shape),
                                              ctx.args, ctx.order)
        if ctx.needs_input_grad[1]:
            grad_weight = run(_ConvGradWeight, input, grad_output, tuple(weight.shape),
                                                ctx.args, ctx.order)
        if ctx.has_bias and ctx.needs_input_grad[2]:
            grad_bias = run(_ConvGradBias, grad_output, ctx.order)
        return grad_input, grad_weight, grad_bias, None, None


class _ConvGradInput(torch.autograd.Function):
    @staticmethod
    def forward(ctx, g_t, w_t, x_shape, args, order):
        g, w = _array(g_t, "grad_output", "conv2d"), _array(w_t, "weight", "conv2d")
        ctx.save_for_backward(g_t, w_t)
        ctx.args, ctx.order = args, order
        return _tensor(reproblas.conv2d_grad_input(g, w, x_shape, *args, order=order))

    @staticmethod
    def backward(ctx, h):  # <h, gx(g, w)> = <conv2d(h, w), g> = <w, gw(h, g)>
        g_t, w_t = ctx.saved_tensors
        dg = dw = None
        if ctx.needs_input_grad[0]:
            dg = run(_Conv2d, h, w_t, None, ctx.args, ctx.order)
        if ctx.needs_input_grad[1]:
            dw = run(_ConvGradWeight, h, g_t, tuple(w_t.shape), ctx.args, ctx.order)
        return dg, dw, None, None, None


class _ConvGradWeight(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x_t, g_t, w_shape, args, order):
        x, g = _array(x_t, "input", "conv2d"), _array(g_t, "grad_output", "conv2d")
        ctx.save_for_backward(x_t, g_t)
        ctx.args, ctx.order = args, order
        return _tensor(reproblas.conv2d_grad_weight(x, g, w_shape, *args, order=order))

    @staticmethod
    def backward(ctx, h):  # <h, gw(x, g)> = <conv2d(x, h), g> = <x, gx(g, h)>
        x_t, g_t = ctx.saved_tensors
        dx = dg = None
        if ctx.needs_input_grad[0]:
            dx = run(_ConvGradInput, g_t, h, tuple(x_t.shape), ctx.args, ctx.order)
        if ctx.needs_input_grad[1]:
            dg = run(_Conv2d, x_t, h, None, ctx.args, ctx.order)
        return dx, dg, None, None, None


class _ConvGradBias(torch.autograd.Function):
    @staticmethod
    def forward(ctx, g_t, order):
        ctx.shape, ctx.order = g_t.shape, order
        return _tensor(reproblas.conv2d_grad_bias(_array(g_t, "grad_output", "conv2d"),
                                                  order=order))

    @staticmethod
    def backward(ctx, h):  # gb is linear in g: its gradient broadcasts h[k] over (n, p, q)
        k_axis = len(ctx.shape) - 3
        view = [1] * len(ctx.shape)
        view[k_axis] = ctx.shape[k_axis]
        return expand(h.reshape(view), ctx.shape, ctx.order), None


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, *,
           order="sequential"):
    """``torch.nn.functional.conv2d`` on reproblas (NCHW, or CHW unbatched).

    Forward: :func:`reproblas.conv2d` (``y = S (+) bias``); backward:
    ``reproblas.conv2d_grad_input``, ``conv2d_grad_weight`` and ``conv2d_grad_bias``, whose
    terms and orders are fixed by the contract (§3).

    Parameters
    ----------
    input : torch.Tensor
        ``(N, C, H, W)`` or ``(C, H, W)``, CPU or CUDA, float32 or float64.
    weight : torch.Tensor
        ``(K, C/groups, R, S)``, input's dtype.
    bias : torch.Tensor, optional
        ``(K,)``.
    stride, padding, dilation, groups
        As in PyTorch (``padding`` may be ``'same'`` or ``'valid'``).
    order : {'sequential', 'pairwise'}
        Summation order of every sum, forward and backward.

    Returns
    -------
    torch.Tensor
        ``(N, K, P, Q)`` (or ``(K, P, Q)``).
    """
    if not hasattr(reproblas, "conv2d"):
        raise NotImplementedError("reproblas.torch.conv2d needs reproblas.conv2d, which this "
                                  "build of reproblas does not have yet")
    _validate.order(order, "torch.conv2d")
    _check("conv2d", input=input, weight=weight, bias=bias)
    # a 3-D input (one unbatched image) is reproblas.conv2d's own rule, as every shape check
    return run(_Conv2d, input, weight, bias, (stride, padding, dilation, groups), order)
