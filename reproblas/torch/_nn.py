"""Functional deep-learning operations, each the graph written in docs/contract.md §5.7.

Every reduction is an ordered reproblas sum (``rsum``), every transcendental a crlibm_py
function, every other step one IEEE operation; broadcasts go through ``expand``, whose gradient
is an ordered sum too. softmax, log_softmax and logsumexp are autograd Functions with the
written derivative; the others are compositions, differentiated by the chain rule over the
same primitives. On float32 tensors the activations, softmax, log_softmax and the norms run as
fused C kernels (``_kernels``) with the bits of those compositions, which stay written here
(``*_graph``): they define the ops, serve float64 and build the graph of a backward that is
differentiated again. A row's result depends on that row alone.
"""
import math

import numpy as np
import torch

import reproblas
from reproblas import _validate

from . import _device
from . import _elementwise as E
from . import _kernels as K
from ._prims import array, broadcast_shapes, dims_of, expand, rsum, run, tensor

_ANY = (torch.float32, torch.float64)
_REDUCTIONS = ("none", "mean", "sum")


def _check(t, name, routine, dtypes=_ANY):
    array(t, name, routine, dtypes)
    return t


def _order(order, routine):
    _validate.order(order, f"torch.{routine}")
    return order.lower()


def _reduction(reduction, routine):
    if reduction not in _REDUCTIONS:
        raise ValueError(f"reproblas.torch.{routine}: reduction must be one of {_REDUCTIONS}, "
                         f"got {reduction!r}")


def _same_dtype(routine, **tensors):
    _device.same_device(routine, **tensors)
    kinds = {k: v.dtype for k, v in tensors.items() if v is not None}
    if len(set(kinds.values())) > 1:
        desc = ", ".join(f"{k} is {v}" for k, v in kinds.items())
        raise TypeError(f"reproblas.torch.{routine}: mixed dtypes ({desc}); nothing is cast "
                        f"silently: convert one of them with .to()")


def _one_dim(dim, ndim, routine):
    if isinstance(dim, bool) or not isinstance(dim, int):
        raise TypeError(f"reproblas.torch.{routine}: dim must be an int, got {dim!r}")
    return dims_of(dim, ndim, routine)[0]


# ---- activations ----

def relu(input):
    """``+0`` where ``x < 0``, else ``x`` (``torch.relu``: exact; −0 and NaN unchanged)."""
    _check(input, "input", "relu")
    return torch.relu(input)


def _sigmoid_graph(x):
    return torch.reciprocal(1.0 + E.exp(-x))


def _silu_graph(x):
    return x * _sigmoid_graph(x)


def _gelu_graph(x):
    return (x * 0.5) * (1.0 + E.erf(x * E._const(1.0 / math.sqrt(2.0), x)))


def _gelu_tanh_graph(x):
    cube = (x * x) * x
    inner = (x + cube * E._const(0.044715, x)) * E._const(math.sqrt(2.0 / math.pi), x)
    return (x * 0.5) * (1.0 + E.tanh(inner))


_GRAPHS = {"sigmoid": _sigmoid_graph, "silu": _silu_graph, "gelu": _gelu_graph,
           "gelu_tanh": _gelu_tanh_graph}


def _regraph(x, graph, g):
    """The gradient of graph at the saved x for g, through the composition with a graph of its
    own (a backward with create_graph=True: the same bits as the kernels)."""
    with torch.enable_grad():
        return torch.autograd.grad(graph(x), x, g, create_graph=True)[0]


class _Activation(torch.autograd.Function):
    """A fused activation: forward and first-order backward as C kernels."""

    @staticmethod
    def forward(ctx, x, name):
        ctx.save_for_backward(x)
        ctx.name = name
        return K.map_forward(name, x)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        if torch.is_grad_enabled() or not K.usable(g):
            return _regraph(x, _GRAPHS[ctx.name], g), None
        return K.map_backward(ctx.name, x, g), None


def _activation(name, input):
    if K.usable(input):
        return run(_Activation, input, name)
    if _device.fused(input):  # one node, as the kernel's on the CPU
        return _device.node(_GRAPHS[name], input)
    return _GRAPHS[name](input)


def sigmoid(input):
    """``1 ⊘ (1 ⊕ exp(−x))`` with the correctly rounded exp."""
    _check(input, "input", "sigmoid", E.dtypes())
    return _activation("sigmoid", input)


def silu(input):
    """``x ⊗ sigmoid(x)``."""
    _check(input, "input", "silu", E.dtypes())
    return _activation("silu", input)


def tanh(input):
    """The correctly rounded tanh (crlibm_py)."""
    return E.tanh(input)


def gelu(input, approximate="none"):
    """GELU: ``(x ⊗ 0.5) ⊗ (1 ⊕ erf(x ⊗ 1/√2))``, or with ``approximate='tanh'``
    ``(x ⊗ 0.5) ⊗ (1 ⊕ tanh((x ⊕ x³ ⊗ 0.044715) ⊗ √(2/π)))`` (docs/contract.md §5.7)."""
    _check(input, "input", "gelu", E.dtypes())
    if approximate == "none":
        return _activation("gelu", input)
    if approximate == "tanh":
        return _activation("gelu_tanh", input)
    raise ValueError(f"reproblas.torch.gelu: approximate must be 'none' or 'tanh', got "
                     f"{approximate!r}")


# ---- reductions ----

def sum(input, dim=None, keepdim=False, *, order="sequential"):  # noqa: A001
    """Ordered sum over `dim` (all axes if None): each result one reproblas sum of its slice,
    terms in C index order over the reduced axes."""
    _check(input, "input", "sum")
    return rsum(input, dim, keepdim, _order(order, "sum"))


def _count(shape, dims):
    return float(math.prod(shape[d] for d in dims))


def mean(input, dim=None, keepdim=False, *, order="sequential"):
    """``Σ_D x ⊘ n``."""
    _check(input, "input", "mean")
    dims = dims_of(dim, input.ndim, "mean")
    total = rsum(input, dims, keepdim, _order(order, "mean"))
    return _device.div(total, _count(input.shape, dims))


def var(input, dim=None, *, correction=1, keepdim=False, order="sequential"):
    """Two-pass variance: ``μ = Σ_D x ⊘ n``, ``Σ_D (x ⊖ μ)² ⊘ max(0, n − correction)``."""
    _check(input, "input", "var")
    order = _order(order, "var")
    dims = dims_of(dim, input.ndim, "var")
    n = _count(input.shape, dims)
    mu = _device.div(rsum(input, dims, True, order), n)
    d = input - expand(mu, input.shape, order)
    return _device.div(rsum(d * d, dims, keepdim, order), max(0.0, n - correction))


# ---- softmax family ----

def _shift(x, dim):
    """The exact maximum over dim, a −0 made +0 (detached: the results do not depend on it
    mathematically)."""
    return torch.amax(x.detach(), dim=dim, keepdim=True) + 0.0


def _sum_np(t, dim, order):
    return tensor(reproblas.sum(array(t, "input", "sum"), order, axis=dim, keepdims=True))


def _softmax_graph(x, dim, order):
    """The forward graph, composed (float64; the kernels' reference in tests)."""
    e = E._apply("exp", x.detach() - _shift(x, dim))
    return e / _sum_np(e, dim, order)


def _log_softmax_graph(x, dim, order):
    z = x.detach() - _shift(x, dim)
    return z - E._apply("log", _sum_np(E._apply("exp", z), dim, order))


class _Softmax(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, dim, order):
        y = K.rows("softmax", order, x, dim) if K.usable(x) else _softmax_graph(x, dim, order)
        ctx.save_for_backward(y)
        ctx.dim, ctx.order = dim, order
        return y

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        if not torch.is_grad_enabled() and K.usable(y, g):
            return K.rows("softmax_b", ctx.order, y, ctx.dim, g), None, None
        s = rsum(g * y, ctx.dim, True, ctx.order)
        return y * (g - expand(s, y.shape, ctx.order)), None, None


class _LogSoftmax(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, dim, order):
        y = K.rows("log_softmax", order, x, dim) if K.usable(x) else \
            _log_softmax_graph(x, dim, order)
        ctx.save_for_backward(y)
        ctx.dim, ctx.order = dim, order
        return y

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        if not torch.is_grad_enabled() and K.usable(y, g):
            return K.rows("log_softmax_b", ctx.order, y, ctx.dim, g), None, None
        s = rsum(g, ctx.dim, True, ctx.order)
        return g - E.exp(y) * expand(s, y.shape, ctx.order), None, None


def _logsumexp_graph(x, dims, order):
    """The forward graph, composed, keepdim shape (float64; the kernels' reference)."""
    m = torch.amax(x.detach(), dim=dims, keepdim=True)
    m = torch.where(torch.isinf(m), 0.0, m)
    return E._apply("log", _sum_np(E._apply("exp", x.detach() - m), dims, order)) + m


class _LogSumExp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, dims, keepdim, order):
        r = K.logsumexp(order, x, dims) if K.usable(x) else _logsumexp_graph(x, dims, order)
        ctx.dims, ctx.order, ctx.keepdim = dims, order, keepdim
        out = r if keepdim else r.reshape([n for i, n in enumerate(r.shape) if i not in dims])
        ctx.save_for_backward(x, out)
        return out

    @staticmethod
    def backward(ctx, g):
        x, out = ctx.saved_tensors
        kept = [1 if i in ctx.dims else n for i, n in enumerate(x.shape)]
        if not torch.is_grad_enabled() and K.usable(x, g):
            return (K.logsumexp_backward(ctx.order, x, ctx.dims, out.reshape(kept),
                                         g.reshape(kept)), None, None, None)
        r = expand(out.reshape(kept), x.shape, ctx.order)
        return expand(g.reshape(kept), x.shape, ctx.order) * E.exp(x - r), None, None, None


def _empty_dim(x, dims):
    return any(x.shape[d] == 0 for d in dims) if x.ndim else False


def softmax(input, dim, *, order="sequential"):
    """``e ⊘ Σ_dim e`` with ``e = exp(x ⊖ max)`` (docs/contract.md §5.7)."""
    _check(input, "input", "softmax", E.dtypes())
    order = _order(order, "softmax")
    d = _one_dim(dim, input.ndim, "softmax")
    if input.ndim == 0 or input.numel() == 0:
        return run(_Softmax, input.reshape(1), 0, order).reshape(()) if input.ndim == 0 \
            else input.clone()
    return run(_Softmax, input, d, order)


def log_softmax(input, dim, *, order="sequential"):
    """``z ⊖ log(Σ_dim exp(z))`` with ``z = x ⊖ max`` (docs/contract.md §5.7)."""
    _check(input, "input", "log_softmax", E.dtypes())
    order = _order(order, "log_softmax")
    d = _one_dim(dim, input.ndim, "log_softmax")
    if input.ndim == 0 or input.numel() == 0:
        return run(_LogSoftmax, input.reshape(1), 0, order).reshape(()) if input.ndim == 0 \
            else input.clone()
    return run(_LogSoftmax, input, d, order)


def logsumexp(input, dim, keepdim=False, *, order="sequential"):
    """``log(Σ_dim exp(x ⊖ m)) ⊕ m``, ``m`` the maximum (+0 where it is infinite)."""
    _check(input, "input", "logsumexp", E.dtypes())
    order = _order(order, "logsumexp")
    if input.ndim == 0:
        return logsumexp(input.reshape(1), 0, False, order=order)
    dims = dims_of(dim, input.ndim, "logsumexp")
    if _empty_dim(input, dims):
        shape = [1 if i in dims else n for i, n in enumerate(input.shape)] if keepdim else \
            [n for i, n in enumerate(input.shape) if i not in dims]
        return torch.full(shape, -math.inf, dtype=input.dtype, device=input.device)
    return run(_LogSumExp, input, dims, bool(keepdim), order)


# ---- normalisations ----

def _norm_dims(input, normalized_shape, routine, **params):
    """The normalised axes and their element count, after checking input and params (the
    kinds one by one only where the kernels do not take them all)."""
    if not K.usable(input, *params.values()):
        _check(input, "input", routine, E.dtypes())
        for name, p in params.items():
            if p is not None:
                _check(p, name, routine, E.dtypes())
        _same_dtype(routine, input=input, **params)
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else \
        tuple(normalized_shape)
    k = len(shape)
    if k == 0 or input.ndim < k or input.shape[input.ndim - k:] != shape:
        raise ValueError(f"reproblas.torch.{routine}: normalized_shape {shape} must be the "
                         f"last axes of the input, whose shape is {tuple(input.shape)}")
    for name, p in params.items():
        if p is not None and p.shape != shape:
            raise ValueError(f"reproblas.torch.{routine}: {name} has shape "
                             f"{tuple(p.shape)}, expected {shape}")
    return tuple(range(input.ndim - k, input.ndim)), float(math.prod(shape))


def _layer_norm_graph(input, dims, n, weight, bias, eps, order):
    mu = _device.div(rsum(input, dims, True, order), n)
    d = input - expand(mu, input.shape, order)
    r = E.rsqrt(_device.div(rsum(d * d, dims, True, order), n) + eps)
    y = d * expand(r, input.shape, order)
    if weight is not None:
        y = y * expand(weight, input.shape, order)
    if bias is not None:
        y = y + expand(bias, input.shape, order)
    return y


def _rms_norm_graph(input, dims, n, weight, bias, eps, order):
    r = E.rsqrt(_device.div(rsum(input * input, dims, True, order), n) + eps)
    y = input * expand(r, input.shape, order)
    if weight is not None:
        y = y * expand(weight, input.shape, order)
    return y


class _Norm(torch.autograd.Function):
    """layer_norm / rms_norm as C kernels, forward and first-order backward; a backward that
    builds a graph goes through the written graph (the same bits)."""

    @staticmethod
    def forward(ctx, input, weight, bias, dims, n, eps, order, rms):
        y, stats = K.norm(rms, order, input, len(dims), weight, bias, eps)
        ctx.save_for_backward(input, weight, bias, stats)
        ctx.args = (dims, n, eps, order, rms)
        return y

    @staticmethod
    def backward(ctx, g):
        input, weight, bias, stats = ctx.saved_tensors
        dims, n, eps, order, rms = ctx.args
        grads = [None] * 8
        if torch.is_grad_enabled() or not K.usable(g):
            wanted = [i for i in range(3) if ctx.needs_input_grad[i]]
            graph = _rms_norm_graph if rms else _layer_norm_graph
            with torch.enable_grad():
                saved = (input, weight, bias)
                y = graph(input, dims, n, weight, bias, eps, order)
                got = torch.autograd.grad(y, [saved[i] for i in wanted], g,
                                          create_graph=torch.is_grad_enabled())
            for i, t in zip(wanted, got):
                grads[i] = t
            return tuple(grads)
        dx, gw = K.norm_backward(rms, order, input, len(dims), weight, g, stats,
                                 ctx.needs_input_grad[1])
        lead = tuple(range(input.ndim - len(dims)))
        if ctx.needs_input_grad[0]:
            grads[0] = dx
        if ctx.needs_input_grad[1]:  # the expand's gradient: the ordered sum over the rows
            grads[1] = rsum(gw, lead, True, order).reshape(weight.shape) if lead else gw
        if ctx.needs_input_grad[2]:
            gb = g.expand(input.shape)
            grads[2] = rsum(gb, lead, True, order).reshape(bias.shape) if lead else gb
        return tuple(grads)


def _norm(rms, input, dims, n, weight, bias, eps, order):
    if K.usable(input, weight, bias) and input.numel() > 0:
        return run(_Norm, input, weight, bias, dims, n, eps, order, rms)
    graph = _rms_norm_graph if rms else _layer_norm_graph
    if _device.fused(input, weight, bias) and input.numel() > 0:  # one node, as on the CPU
        return _device.node(graph, input, dims, n, weight, bias, eps, order)
    return graph(input, dims, n, weight, bias, eps, order)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5, *,
               order="sequential"):
    """``(x ⊖ μ) ⊗ rsqrt(v ⊕ eps)`` (two-pass mean and biased variance over the last axes),
    then ``⊗ weight``, ``⊕ bias`` (docs/contract.md §5.7)."""
    order = _order(order, "layer_norm")
    dims, n = _norm_dims(input, normalized_shape, "layer_norm", weight=weight, bias=bias)
    return _norm(False, input, dims, n, weight, bias, eps, order)


def rms_norm(input, normalized_shape, weight=None, eps=None, *, order="sequential"):
    """``x ⊗ rsqrt(Σ x² ⊘ n ⊕ eps)`` over the last axes, then ``⊗ weight``."""
    order = _order(order, "rms_norm")
    dims, n = _norm_dims(input, normalized_shape, "rms_norm", weight=weight)
    if eps is None:
        eps = torch.finfo(input.dtype).eps
    return _norm(True, input, dims, n, weight, None, eps, order)


# ---- losses ----

def _reduce(loss, reduction, order, denominator=None):
    if reduction == "none":
        return loss
    total = rsum(loss, None, False, order)
    if reduction == "sum":
        return total
    return _device.div(total, float(loss.numel()) if denominator is None else denominator)


def mse_loss(input, target, reduction="mean", *, order="sequential"):
    """``(x ⊖ t)²`` per element, reduced (``'mean'``: ``Σ ⊘ numel``)."""
    _check(input, "input", "mse_loss")
    _check(target, "target", "mse_loss")
    _same_dtype("mse_loss", input=input, target=target)
    _reduction(reduction, "mse_loss")
    order = _order(order, "mse_loss")
    try:
        shape = broadcast_shapes(input.shape, target.shape)
    except RuntimeError as exc:
        raise ValueError(f"reproblas.torch.mse_loss: input {tuple(input.shape)} and target "
                         f"{tuple(target.shape)} do not broadcast") from exc
    d = expand(input, shape, order) - expand(target, shape, order)
    return _reduce(d * d, reduction, order)


def _index_target(input, target, routine):
    """target checked as the class indices of input: (class axis, target as int64)."""
    if not isinstance(target, torch.Tensor):
        raise TypeError(f"reproblas.torch.{routine}: target must be a torch.Tensor, got "
                        f"{type(target).__name__}")
    _device.same_device(routine, input=input, target=target)
    if target.dtype.is_floating_point or target.dtype.is_complex or target.dtype == torch.bool:
        raise TypeError(f"reproblas.torch.{routine}: target must hold class indices (an "
                        f"integer tensor), got {target.dtype}")
    if input.ndim == 0:
        raise ValueError(f"reproblas.torch.{routine}: input must have a class axis")
    cd = 0 if input.ndim == 1 else 1
    expected = tuple(n for i, n in enumerate(input.shape) if i != cd)
    if tuple(target.shape) != expected:
        raise ValueError(f"reproblas.torch.{routine}: target has shape {tuple(target.shape)}, "
                         f"expected {expected} for input {tuple(input.shape)}")
    return cd, target.long()


def _outside(routine, value, c, ignore_index):
    return IndexError(f"reproblas.torch.{routine}: target holds {value}, outside [0, {c}) and "
                      f"not ignore_index={ignore_index}")


def _class_targets(input, target, weight, ignore_index, routine):
    """(class axis, valid mask, safe indices, per-element weights or None)."""
    cd, target = _index_target(input, target, routine)
    c = input.shape[cd]
    valid = target != ignore_index
    safe = torch.where(valid, target, 0)
    bad = valid & ((target < 0) | (target >= c))
    if bool(bad.any()):
        raise _outside(routine, int(target[bad].flatten()[0]), c, ignore_index)
    wt = None
    if weight is not None:
        _check(weight, "weight", routine)
        if tuple(weight.shape) != (c,):
            raise ValueError(f"reproblas.torch.{routine}: weight has shape "
                             f"{tuple(weight.shape)}, expected ({c},)")
        wt = torch.where(valid, weight.gather(0, safe.flatten()).reshape(safe.shape), 0.0)
    return cd, valid, safe, wt


def _nll(input, target, weight, ignore_index, reduction, order, routine):
    cd, valid, safe, wt = _class_targets(input, target, weight, ignore_index, routine)
    gather = _device.gather if _device.on_device(input) else torch.gather  # no atomic adds
    picked = gather(input, cd, safe.unsqueeze(cd)).squeeze(cd)
    loss = torch.where(valid, -(picked if wt is None else wt * picked), 0.0)
    denom = None
    if reduction == "mean":
        denom = float(int(valid.sum())) if wt is None else rsum(wt, None, False, order)
    return _reduce(loss, reduction, order, denom), (cd, valid, wt)


def nll_loss(input, target, weight=None, ignore_index=-100, reduction="mean", *,
             order="sequential"):
    """``−(w[t] ⊗ input[t])`` per element (``+0`` where ``t == ignore_index``), reduced
    (``'mean'``: divided by the sum of the non-ignored weights)."""
    _check(input, "input", "nll_loss")
    _same_dtype("nll_loss", input=input, weight=weight)
    _reduction(reduction, "nll_loss")
    return _nll(input, target, weight, ignore_index, reduction, _order(order, "nll_loss"),
                "nll_loss")[0]


class _CrossEntropy(torch.autograd.Function):
    """cross_entropy of float32 (N, C) logits and class indices, without weight or label
    smoothing: the composed graph (log_softmax, gather, where, neg, the ordered sum, ⊘ the
    count) as one C kernel, forward and first-order backward (the count's division, where's
    zeros, gather's scatter-add into zeros, log_softmax's backward); a backward that builds a
    graph recomposes it (the same bits)."""

    @staticmethod
    def forward(ctx, input, target, ignore_index, reduction, order):
        t = _index_target(input, target, "cross_entropy")[1].contiguous()
        got = K.cross_entropy(order, input, t, ignore_index, reduction)
        if isinstance(got, int):
            raise _outside("cross_entropy", got, input.shape[1], ignore_index)
        lp, out, valid = got
        ctx.save_for_backward(input, lp)
        ctx.args = (target, ignore_index, reduction, order, t, valid)
        return out

    @staticmethod
    def backward(ctx, g):
        input, lp = ctx.saved_tensors
        target, ignore_index, reduction, order, t, valid = ctx.args
        if torch.is_grad_enabled() or not K.usable(g):
            with torch.enable_grad():
                out = _cross_entropy_graph(input, target, ignore_index, reduction, order)
                (dx,) = torch.autograd.grad(out, input, g, create_graph=torch.is_grad_enabled())
            return dx, None, None, None, None
        div = float(valid) if reduction == "mean" else 0.0
        if reduction == "none":
            g = g.expand(t.shape)
        return (K.cross_entropy_backward(order, lp, t, ignore_index, g, div),
                None, None, None, None)


def _cross_entropy_graph(input, target, ignore_index, reduction, order):
    return _nll(log_softmax(input, 1, order=order), target, None, ignore_index, reduction, order,
                "cross_entropy")[0]


def cross_entropy(input, target, weight=None, ignore_index=-100, reduction="mean",
                  label_smoothing=0.0, *, order="sequential"):
    """``nll_loss(log_softmax(input, class axis), target)`` with PyTorch's label smoothing
    and class-probability targets (docs/contract.md §5.7)."""
    _check(input, "input", "cross_entropy", E.dtypes())
    _same_dtype("cross_entropy", input=input, weight=weight)
    _reduction(reduction, "cross_entropy")
    order = _order(order, "cross_entropy")
    eps = float(label_smoothing)
    if not 0.0 <= eps <= 1.0:
        raise ValueError(f"reproblas.torch.cross_entropy: label_smoothing must be in [0, 1], "
                         f"got {label_smoothing!r}")
    if input.ndim == 0:
        raise ValueError("reproblas.torch.cross_entropy: input must have a class axis")
    if (input.ndim == 2 and weight is None and eps == 0.0 and K.usable(input) and
            input.numel() > 0 and isinstance(target, torch.Tensor) and
            not target.dtype.is_floating_point and isinstance(ignore_index, int) and
            -2**63 <= ignore_index < 2**63):
        return run(_CrossEntropy, input, target, ignore_index, reduction, order)
    if (input.ndim == 2 and weight is None and eps == 0.0 and _device.fused(input) and
            input.numel() > 0 and isinstance(target, torch.Tensor) and
            not target.dtype.is_floating_point):  # one node, as _CrossEntropy on the CPU
        return _device.node(_cross_entropy_graph, input, target, ignore_index, reduction, order)
    cd = 0 if input.ndim == 1 else 1
    c = input.shape[cd]
    lp = log_softmax(input, cd, order=order)
    wview = None
    if weight is not None:
        _check(weight, "weight", "cross_entropy")
        if tuple(weight.shape) != (c,):
            raise ValueError(f"reproblas.torch.cross_entropy: weight has shape "
                             f"{tuple(weight.shape)}, expected ({c},)")
        shape = [1] * input.ndim
        shape[cd] = c
        wview = expand(weight.reshape(shape), input.shape, order)
    if isinstance(target, torch.Tensor) and target.dtype.is_floating_point:
        _check(target, "target", "cross_entropy")
        _same_dtype("cross_entropy", input=input, target=target)
        if target.shape != input.shape:
            raise ValueError(f"reproblas.torch.cross_entropy: class-probability target has "
                             f"shape {tuple(target.shape)}, expected {tuple(input.shape)}")
        p = target if eps == 0.0 else target * (1.0 - eps) + eps / c
        term = lp if wview is None else lp * wview
        loss = -rsum(term * p, cd, False, order)
        return _reduce(loss, reduction, order)
    nll, (_, valid, wt) = _nll(lp, target, weight, ignore_index, reduction, order,
                               "cross_entropy")
    if eps == 0.0:
        return nll
    term = lp if wview is None else lp * wview
    smooth = torch.where(valid, -rsum(term, cd, False, order), 0.0)
    denom = float(int(valid.sum())) if wt is None else rsum(wt, None, False, order)
    return nll * (1.0 - eps) + _reduce(smooth, reduction, order, denom) * (eps / c)
