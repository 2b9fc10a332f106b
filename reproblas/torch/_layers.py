"""Batch norm, pooling, embedding, dropout and attention (docs/contract.md §5.7).

Compositions of reproblas (sums, conv2d, matmul), crlibm_py and exact tensor operations.
The two scatter-type backward passes (max_pool2d, embedding) are autograd Functions whose
gradient is a sequential index_add / scatter_add in C order of the positions.
"""
import math

import numpy as np
import torch

from reproblas import _core, _validate

from . import _device
from . import _elementwise as E
from . import _kernels as K
from . import _nn
from ._functions import conv2d, matmul
from ._prims import array, broadcast_shapes, expand, records, rsum, run


def _pair(v, name, routine):
    if isinstance(v, bool):
        raise TypeError(f"reproblas.torch.{routine}: {name} must be an int or a pair of ints")
    if isinstance(v, int):
        return (v, v)
    v = tuple(v)
    if len(v) == 1:
        v = v * 2
    if len(v) != 2 or not all(isinstance(i, int) and not isinstance(i, bool) for i in v):
        raise TypeError(f"reproblas.torch.{routine}: {name} must be an int or a pair of ints, "
                        f"got {v!r}")
    return v


def _image(input, routine, dtypes=None):
    array(input, "input", routine, dtypes or E.dtypes())
    if input.ndim not in (3, 4):
        raise ValueError(f"reproblas.torch.{routine}: input must be (N, C, H, W) or (C, H, W), "
                         f"got shape {tuple(input.shape)}")


# ---- batch norm ----

def _affine(y, weight, bias, order):
    """``y ⊗ weight[c]``, then ``⊕ bias[c]`` (c the axis 1; None: absent)."""
    view = [1] * y.ndim
    view[1] = y.shape[1]
    if weight is not None:
        y = y * expand(weight.reshape(view), y.shape, order)
    if bias is not None:
        y = y + expand(bias.reshape(view), y.shape, order)
    return y


class _BatchNormTrain(torch.autograd.Function):
    """Training batch norm with its affine step as one C kernel over each channel's values
    (in C order over the other axes, docs/contract.md §5.7). Also gives mu and s = Σ (d ⊗ d)
    per channel (the running statistics; no gradient). A backward that builds a graph goes
    through the composition (the same bits)."""

    @staticmethod
    def forward(ctx, x, weight, bias, dims, n, eps, order):
        y, stats = K.batch_norm(order, x, weight, bias, eps)
        ctx.save_for_backward(x, weight, bias, stats)
        ctx.args = (dims, n, eps, order)
        kept = [1] * x.ndim
        kept[1] = x.shape[1]
        mu, s = stats[:, 0].reshape(kept).clone(), stats[:, 2].reshape(kept).clone()
        ctx.mark_non_differentiable(mu, s)
        return y, mu, s

    @staticmethod
    def backward(ctx, g, _gmu, _gs):
        x, weight, bias, stats = ctx.saved_tensors
        dims, n, eps, order = ctx.args
        need = ctx.needs_input_grad[:3]
        if torch.is_grad_enabled() or not K.usable(g):
            with torch.enable_grad():
                y0 = _nn._layer_norm_graph(x, dims, n, None, None, eps, order)
                y = _affine(y0, weight, bias, order)
                wrt = [t for t, k in zip((x, weight, bias), need) if k]
                found = iter(torch.autograd.grad(y, wrt, g, create_graph=torch.is_grad_enabled()))
            grads = [next(found) if k else None for k in need]
            return (*grads, None, None, None, None)
        dx, dw, db = K.batch_norm_backward(order, x, weight, g, stats, need[1], need[2])
        return dx, dw, db, None, None, None, None


def _batch_norm_graph(x, weight, bias, dims, n, eps, order):
    return _affine(_nn._layer_norm_graph(x, dims, n, None, None, eps, order), weight, bias,
                   order)


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5, *, order="sequential"):
    """``torch.nn.functional.batch_norm`` as the graph of docs/contract.md §5.7: two-pass
    statistics over every axis but the channel axis 1, crlibm rsqrt; in training the running
    statistics (when given) are updated in place."""
    params = (("running_mean", running_mean), ("running_var", running_var),
              ("weight", weight), ("bias", bias))
    if not K.usable(input, running_mean, running_var, weight, bias):  # else all float32 CPU
        array(input, "input", "batch_norm", E.dtypes())
        for name, t in params:
            if t is not None:
                array(t, name, "batch_norm", E.dtypes())
        _nn._same_dtype("batch_norm", input=input, running_mean=running_mean,
                        running_var=running_var, weight=weight, bias=bias)
    _validate.order(order, "torch.batch_norm")
    if input.ndim < 2:
        raise ValueError(f"reproblas.torch.batch_norm: input must be (N, C, ...), got shape "
                         f"{tuple(input.shape)}")
    c = input.shape[1]
    for name, t in params:
        if t is not None and t.shape != (c,):
            raise ValueError(f"reproblas.torch.batch_norm: {name} has shape "
                             f"{tuple(t.shape)}, expected ({c},)")
    view = [1] * input.ndim
    view[1] = c

    def per_channel(t):
        return expand(t.reshape(view), input.shape, order)

    if training:
        dims = (0,) + tuple(range(2, input.ndim))
        n = float(math.prod(input.shape[d] for d in dims))
        if n <= 1:
            raise ValueError(f"reproblas.torch.batch_norm: training needs more than one value "
                             f"per channel, got input shape {tuple(input.shape)}")
        kernel = K.usable(input, weight, bias) and input.numel() > 0
        if kernel:
            y, mu, s = run(_BatchNormTrain, input, weight, bias, dims, n, eps, order)
            weight = bias = None  # applied by the kernel
        elif _device.fused(input, weight, bias) and input.numel() > 0:
            with torch.no_grad():  # the statistics; y one node, as _BatchNormTrain's
                mu = _device.div(rsum(input, dims, True, order), n)
                d = input - expand(mu, input.shape, order)
                s = rsum(d * d, dims, True, order)
            y = _device.node(_batch_norm_graph, input, weight, bias, dims, n, eps, order)
            weight = bias = None
        else:
            mu = _device.div(rsum(input, dims, True, order), n)
            d = input - expand(mu, input.shape, order)
            s = rsum(d * d, dims, True, order)
            y = d * expand(E.rsqrt(_device.div(s, n) + eps), input.shape, order)
        buffers = running_mean is not None or running_var is not None
        if buffers and not (kernel and K.batch_norm_running(mu, s, running_mean, running_var,
                                                            momentum, n)):
            with torch.no_grad():
                keep = 1.0 - momentum
                if running_mean is not None:
                    running_mean.copy_(running_mean * keep + mu.reshape(c) * momentum)
                if running_var is not None:
                    v = _device.div(s.reshape(c), n - 1.0)
                    running_var.copy_(running_var * keep + v * momentum)
    else:
        if running_mean is None or running_var is None:
            raise ValueError("reproblas.torch.batch_norm: evaluation needs running_mean and "
                             "running_var")
        tensors = (input, running_mean, running_var, weight, bias)
        if K.usable(*tensors) and input.numel() > 0 and not records(*tensors):
            return K.batch_norm_eval(input, running_mean, running_var, weight, bias, eps)
        y = (input - per_channel(running_mean)) * per_channel(E.rsqrt(running_var + eps))
    return _affine(y, weight, bias, order)


# ---- pooling ----

def _window_counts(h, w, kernel, stride, padding, dtype):
    """How many positions of each output window lie inside the (h, w) input."""
    def axis(size, k, s, p):
        out = (size + 2 * p - k) // s + 1
        start = np.arange(out) * s - p
        return np.minimum(start + k, size) - np.maximum(start, 0)
    return torch.from_numpy(np.outer(axis(h, kernel[0], stride[0], padding[0]),
                                     axis(w, kernel[1], stride[1], padding[1])).astype(
        np.float64)).to(dtype)


def _window_sums(x, kernel, stride, padding, order):
    """Each window's ordered sum over its (r, s) positions in C order: a depthwise conv2d with
    a kernel of ones. Windows that tile the input (stride = kernel, no padding) are the same
    terms in the same order as an rsum over the window axes of a reshaped view, whose
    backward is a broadcast instead of a convolution's grad_input."""
    if stride == kernel and padding == (0, 0) and order in ("sequential", "pairwise"):
        (kh, kw), (h, w) = kernel, x.shape[-2:]
        p, q = h // kh, w // kw
        lead = tuple(x.shape[:-2])
        v = x[..., :p * kh, :q * kw].reshape(lead + (p, kh, q, kw))
        return rsum(v, (v.ndim - 3, v.ndim - 1), False, order)
    c = x.shape[-3]
    ones = torch.ones((c, 1) + kernel, dtype=x.dtype, device=x.device)
    return conv2d(x, ones, None, stride, padding, 1, c, order=order)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None, *, order="sequential"):
    """The window sums of a depthwise reproblas.conv2d with a kernel of ones, ``⊘`` the
    divisor (docs/contract.md §5.7)."""
    _image(input, "avg_pool2d", (torch.float32, torch.float64))
    _validate.order(order, "torch.avg_pool2d")
    kernel = _pair(kernel_size, "kernel_size", "avg_pool2d")
    stride = kernel if stride is None or stride == [] else _pair(stride, "stride", "avg_pool2d")
    padding = _pair(padding, "padding", "avg_pool2d")
    if ceil_mode:
        raise NotImplementedError("reproblas.torch.avg_pool2d: ceil_mode=True is not supported")
    if any(p * 2 > k for p, k in zip(padding, kernel)):
        raise ValueError(f"reproblas.torch.avg_pool2d: padding {padding} must be at most half "
                         f"the kernel {kernel}")
    return _avg_pool(input, kernel, stride, padding, count_include_pad, divisor_override, order)


def _avg_pool(input, kernel, stride, padding, count_include_pad, divisor_override, order):
    """avg_pool2d on checked arguments (pairs of ints)."""
    total = _window_sums(input, kernel, stride, padding, order)
    if divisor_override is not None:
        return _device.div(total, float(divisor_override))
    if count_include_pad or padding == (0, 0):
        return _device.div(total, float(kernel[0] * kernel[1]))
    h, w = input.shape[-2:]
    return total / _window_counts(h, w, kernel, stride, padding, input.dtype).to(input.device)


def adaptive_avg_pool2d(input, output_size, *, order="sequential"):
    """``avg_pool2d`` with kernel = stride = the input size over output_size (sizes that
    divide only)."""
    _image(input, "adaptive_avg_pool2d", (torch.float32, torch.float64))
    h, w = input.shape[-2:]
    items = (output_size, output_size) if isinstance(output_size, int) or output_size is None \
        else tuple(output_size)
    if len(items) != 2 or any(o is not None and (isinstance(o, bool) or not isinstance(o, int))
                              for o in items):
        raise TypeError(f"reproblas.torch.adaptive_avg_pool2d: output_size must be an int or a "
                        f"pair of ints (or None), got {output_size!r}")
    out = tuple(size if o is None else o for o, size in zip(items, (h, w)))
    if any(o <= 0 or s % o for o, s in zip(out, (h, w))):
        raise NotImplementedError(f"reproblas.torch.adaptive_avg_pool2d: output size {out} must "
                                  f"divide the input size {(h, w)}")
    _validate.order(order, "torch.adaptive_avg_pool2d")
    kernel = (h // out[0], w // out[1])
    return _avg_pool(input, kernel, kernel, (0, 0), True, None, order)


class _MaxPool(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, args):
        y, idx = torch.nn.functional.max_pool2d(x.detach(), *args, return_indices=True)
        ctx.save_for_backward(idx)
        ctx.shape = x.shape
        return y

    @staticmethod
    def backward(ctx, g):
        (idx,) = ctx.saved_tensors
        return _scatter_plane(g, idx, ctx.shape), None


def _scatter_plane(g, idx, shape):
    """Each (n, c) plane: the sum, sequential from +0, of g over the output positions in C
    order that chose an input position (scatter_add along one row per plane)."""
    planes = math.prod(shape[:-2])
    if _device.on_device(g):  # the same sums without CUDA's atomic adds
        flat = idx.reshape(planes, -1) + torch.arange(planes, device=idx.device).unsqueeze(1) * (
            shape[-2] * shape[-1])
        return _device.index_add(g.reshape(-1), flat.reshape(-1), math.prod(shape)).reshape(shape)
    src = g.reshape(planes, -1)
    out = torch.zeros(planes, shape[-2] * shape[-1], dtype=g.dtype)
    return out.scatter_add(1, idx.reshape(planes, -1), src).reshape(shape)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """PyTorch's exact window maximum; the gradient an ordered scatter-add (contract §5.7)."""
    _image(input, "max_pool2d", (torch.float32, torch.float64))
    if return_indices:
        raise NotImplementedError("reproblas.torch.max_pool2d: return_indices=True is not "
                                  "supported")
    stride = kernel_size if stride is None or stride == [] else stride
    return run(_MaxPool, input, (kernel_size, stride, padding, dilation, ceil_mode))


# ---- embedding ----

class _Embedding(torch.autograd.Function):
    @staticmethod
    def forward(ctx, weight, idx, padding_idx):
        ctx.save_for_backward(idx)
        ctx.rows, ctx.padding_idx = weight.shape[0], padding_idx
        try:  # index_select checks every index (cheaper than a min/max pass first)
            rows = weight.detach().index_select(0, idx.reshape(-1))
        except (IndexError, RuntimeError) as exc:
            raise IndexError(f"reproblas.torch.embedding: indices must be in "
                             f"[0, {weight.shape[0]})") from exc
        return rows.reshape(tuple(idx.shape) + (weight.shape[1],))

    @staticmethod
    def backward(ctx, g):
        (idx,) = ctx.saved_tensors
        flat = idx.reshape(-1)
        src = g.reshape(flat.numel(), g.shape[-1])
        if ctx.padding_idx is not None:
            src = torch.where((flat != ctx.padding_idx).unsqueeze(1), src, 0.0)
        if _device.on_device(g):  # the same sums without CUDA's atomic adds
            return _device.index_add(src, flat, ctx.rows), None, None
        out = torch.zeros(ctx.rows, g.shape[-1], dtype=g.dtype)
        return out.index_add(0, flat, src), None, None


def embedding(input, weight, padding_idx=None):
    """Rows of weight (exact); the gradient a sequential index_add in C order of the
    positions, +0 for padding_idx (docs/contract.md §5.7)."""
    array(weight, "weight", "embedding")
    if not isinstance(input, torch.Tensor) or input.dtype not in (torch.int32, torch.int64):
        raise TypeError("reproblas.torch.embedding: input must be an integer tensor of "
                        "indices (int32 or int64)")
    _device.same_device("embedding", input=input, weight=weight)
    if weight.ndim != 2:
        raise ValueError(f"reproblas.torch.embedding: weight must be 2-D, got shape "
                         f"{tuple(weight.shape)}")
    rows = weight.shape[0]
    if padding_idx is not None:
        if not -rows <= padding_idx < rows:
            raise ValueError(f"reproblas.torch.embedding: padding_idx {padding_idx} is out of "
                             f"range for {rows} rows")
        padding_idx %= rows
    return run(_Embedding, weight, input.long(), padding_idx)


# ---- dropout ----

def _splitmix64(z):
    with np.errstate(over="ignore"):
        z = z + np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


def dropout_mask(shape, p, seed, offset=0):
    """The keep-mask of docs/contract.md §5.7 (a bool tensor of `shape`)."""
    n = math.prod(shape)
    i = np.arange(n, dtype=np.uint64) + np.uint64(offset)
    z = _splitmix64(np.uint64(seed & 0xFFFFFFFFFFFFFFFF) ^ _splitmix64(i))
    u = (z >> np.uint64(40)).astype(np.float64) / float(1 << 24)
    return torch.from_numpy(u >= p).reshape(shape)


def dropout(input, p=0.5, training=True, *, seed, offset=0):
    """Dropout whose mask depends only on (seed, offset + element index)."""
    array(input, "input", "dropout")
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"reproblas.torch.dropout: p must be in [0, 1], got {p!r}")
    for name, v in (("seed", seed), ("offset", offset)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise TypeError(f"reproblas.torch.dropout: {name} must be a non-negative int, "
                            f"got {v!r}")
    if not training or p == 0.0:
        return input
    if p == 1.0:  # every element dropped (the scale would be infinite)
        return torch.where(torch.zeros(input.shape, dtype=torch.bool, device=input.device),
                           input, 0.0)
    keep = dropout_mask(tuple(input.shape), p, seed, offset).to(input.device)
    return torch.where(keep, input * (1.0 / (1.0 - p)), 0.0)


# ---- attention ----

def _attention_fits(query, key, value, attn_mask, usable=None):
    """Whether _Attention takes these: float32 q, k, v of one batch shape (no broadcast, no
    empty axis) and a mask that is absent, boolean, or a float32 tensor without a gradient,
    broadcasting to the scores without growing them (usable: K.usable)."""
    usable = usable or K.usable
    if (not usable(query, key, value) or query.ndim < 3 or key.shape[:-2] != query.shape[:-2]
            or value.shape[:-2] != query.shape[:-2] or key.shape[-1] != query.shape[-1]
            or value.shape[-2] != key.shape[-2] or 0 in query.shape or 0 in key.shape
            or 0 in value.shape):
        return False
    if attn_mask is None:
        return True
    if not isinstance(attn_mask, torch.Tensor) or (attn_mask.dtype != torch.bool and (
            not usable(attn_mask) or attn_mask.requires_grad)):
        return False
    scores = query.shape[:-1] + key.shape[-2:-1]
    try:
        return broadcast_shapes(scores, attn_mask.shape) == scores
    except RuntimeError:
        return False


def _attention_graph(query, key, value, attn_mask, is_causal, scale, order):
    """``softmax(q kᵀ ⊗ scale + mask) v`` composed of reproblas.torch operations: the graph
    of docs/contract.md §5.7, differentiable to any order."""
    s = matmul(query, key.transpose(-2, -1), order=order) * E._const(scale, query)
    lq, lk = s.shape[-2], s.shape[-1]
    if is_causal:
        attn_mask = torch.ones(lq, lk, dtype=torch.bool, device=s.device).tril()
    if attn_mask is not None:
        if not isinstance(attn_mask, torch.Tensor):
            raise TypeError("reproblas.torch.scaled_dot_product_attention: attn_mask must be "
                            "a tensor")
        try:
            shape = broadcast_shapes(s.shape, attn_mask.shape)
        except RuntimeError as exc:
            raise ValueError(f"reproblas.torch.scaled_dot_product_attention: attn_mask "
                             f"{tuple(attn_mask.shape)} does not broadcast to the scores "
                             f"{tuple(s.shape)}") from exc
        s = expand(s, shape, order)
        if attn_mask.dtype == torch.bool:
            s = torch.where(attn_mask.expand(shape), s, -math.inf)
        else:
            array(attn_mask, "attn_mask", "scaled_dot_product_attention", E.dtypes())
            _nn._same_dtype("scaled_dot_product_attention", query=query, attn_mask=attn_mask)
            s = s + expand(attn_mask, shape, order)
    return matmul(_nn.softmax(s, -1, order=order), value, order=order)


def _product(order, a, b):
    """a @ b of two stacks of one batch shape (any non-negative strides), as a tensor."""
    return torch.from_numpy(_core.matmul_plain(order, a, b))


class _Attention(torch.autograd.Function):
    """The graph of _attention_graph for the operands _attention_fits takes, without its
    autograd nodes: each product the core's batched call on the tensors' memory, PyTorch's
    broadcasting for the mask. Its first-order backward is that graph's, node by node (the
    same products, softmax's backward kernel, where's and ⊗ scale's derivatives); a backward
    that builds a graph goes through _attention_graph (the same bits)."""

    @staticmethod
    def forward(ctx, query, key, value, attn_mask, is_causal, scale, order):
        q, k, v = K.view(query), K.view(key), K.view(value)
        c = E._const(scale, query)
        s = _product(order, q, k.swapaxes(-1, -2))
        mask = attn_mask
        if is_causal:
            mask = torch.ones(s.shape[-2], s.shape[-1], dtype=torch.bool).tril()
        if mask is None or mask.dtype == torch.bool:  # ⊗ c and where(mask, ·, −inf) fused
            mask = None if mask is None else K.mask_bytes(mask, s.shape)
            p = K.attention_softmax(order, s, c, mask)
        else:
            p = K.rows("softmax", order, s * c + mask, s.ndim - 1)
            mask = False  # additive: the backward's ⊗ c alone
        ctx.save_for_backward(query, key, value, p)
        ctx.args = (attn_mask, is_causal, scale, order, mask, c)
        return _product(order, K.view(p), v)

    @staticmethod
    def backward(ctx, g):
        query, key, value, p = ctx.saved_tensors
        attn_mask, is_causal, scale, order, mask, c = ctx.args
        need = ctx.needs_input_grad[:3]
        if torch.is_grad_enabled() or not K.usable(g):
            with torch.enable_grad():
                out = _attention_graph(query, key, value, attn_mask, is_causal, scale, order)
                wrt = [t for t, n in zip((query, key, value), need) if n]
                found = iter(torch.autograd.grad(out, wrt, g,
                                                 create_graph=torch.is_grad_enabled()))
            return (*[next(found) if n else None for n in need], None, None, None, None)
        gv, pv = K.view(g), K.view(p)
        dq = dk = dv = None
        if need[2]:
            dv = _product(order, pv.swapaxes(-1, -2), gv)
        if need[0] or need[1]:
            dp = _product(order, gv, K.view(value).swapaxes(-1, -2))
            if mask is False:
                ds = K.rows("softmax_b", order, p, p.ndim - 1, dp) * c
            else:  # where(mask, softmax_b, 0) ⊗ c
                ds = K.attention_softmax(order, p, c, mask, dp)
            dsv = K.view(ds)
            if need[0]:
                dq = _product(order, dsv, K.view(key))
            if need[1]:
                dk = _product(order, dsv.swapaxes(-1, -2), K.view(query))
        return dq, dk, dv, None, None, None, None


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, scale=None, *, order="sequential"):
    """``softmax(q kᵀ ⊗ scale + mask) v`` with reproblas products and softmax
    (docs/contract.md §5.7)."""
    for name, t in (("query", query), ("key", key), ("value", value)):
        array(t, name, "scaled_dot_product_attention", E.dtypes())
        if t.ndim < 2:
            raise ValueError(f"reproblas.torch.scaled_dot_product_attention: {name} must be "
                             f"at least 2-D, got shape {tuple(t.shape)}")
    _nn._same_dtype("scaled_dot_product_attention", query=query, key=key, value=value)
    if dropout_p:
        raise NotImplementedError("reproblas.torch.scaled_dot_product_attention: dropout_p "
                                  "must be 0 (apply reproblas.torch.dropout explicitly)")
    if is_causal and attn_mask is not None:
        raise ValueError("reproblas.torch.scaled_dot_product_attention: give attn_mask or "
                         "is_causal, not both")
    e = query.shape[-1]
    if scale is None:
        scale = 1.0 / math.sqrt(e)
    if _attention_fits(query, key, value, attn_mask):
        return run(_Attention, query, key, value, attn_mask, is_causal, scale, order)
    if _device.on_device(query) and _attention_fits(query, key, value, attn_mask, _device.fused):
        return _device.node(_attention_graph, query, key, value, attn_mask, is_causal, scale,
                            order)  # one node, as _Attention on the CPU
    return _attention_graph(query, key, value, attn_mask, is_causal, scale, order)


# ---- group norm ----

def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5, *, order="sequential"):
    """``torch.nn.functional.group_norm``: layer norm over each group's channels and spatial
    positions (C index order), then ``⊗ weight[c]``, ``⊕ bias[c]`` (docs/contract.md §5.7)."""
    array(input, "input", "group_norm", E.dtypes())
    _validate.order(order, "torch.group_norm")
    if input.ndim < 2:
        raise ValueError(f"reproblas.torch.group_norm: input must be (N, C, ...), got shape "
                         f"{tuple(input.shape)}")
    c = input.shape[1]
    if isinstance(num_groups, bool) or not isinstance(num_groups, int) or num_groups <= 0 \
            or c % num_groups:
        raise ValueError(f"reproblas.torch.group_norm: num_groups must be a positive int "
                         f"dividing the {c} channels, got {num_groups!r}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None:
            array(t, name, "group_norm", E.dtypes())
            if tuple(t.shape) != (c,):
                raise ValueError(f"reproblas.torch.group_norm: {name} has shape "
                                 f"{tuple(t.shape)}, expected ({c},)")
    _nn._same_dtype("group_norm", input=input, weight=weight, bias=bias)
    n = input.shape[0]
    grouped = input.reshape(n, num_groups, -1)
    y = _nn.layer_norm(grouped, grouped.shape[-1], None, None, eps, order=order)
    y = y.reshape(input.shape)
    view = [1] * input.ndim
    view[1] = c
    if weight is not None:
        y = y * expand(weight.reshape(view), input.shape, order)
    if bias is not None:
        y = y + expand(bias.reshape(view), input.shape, order)
    return y


# ---- batched products ----

def bmm(input, mat2, *, order="sequential"):
    """``torch.bmm``: (B, n, m) @ (B, m, p), each product a reproblas sum over m."""
    for name, t in (("input", input), ("mat2", mat2)):
        array(t, name, "bmm")
        if t.ndim != 3:
            raise ValueError(f"reproblas.torch.bmm: {name} must be 3-D, got shape "
                             f"{tuple(t.shape)}")
    if input.shape[0] != mat2.shape[0]:
        raise ValueError(f"reproblas.torch.bmm: batch sizes differ: {input.shape[0]} and "
                         f"{mat2.shape[0]}")
    return matmul(input, mat2, order=order)


def baddbmm(input, batch1, batch2, *, beta=1.0, alpha=1.0, order="sequential"):
    """``torch.baddbmm``: ``(input ⊗ beta) ⊕ (bmm(batch1, batch2) ⊗ alpha)``; with
    ``beta = 0`` input is not read (NaN in it does not propagate), as PyTorch."""
    p = bmm(batch1, batch2, order=order)
    array(input, "input", "baddbmm")
    _nn._same_dtype("baddbmm", input=input, batch1=batch1)
    try:
        shape = broadcast_shapes(input.shape, p.shape)
    except RuntimeError as exc:
        raise ValueError(f"reproblas.torch.baddbmm: input {tuple(input.shape)} does not "
                         f"broadcast to the product {tuple(p.shape)}") from exc
    if shape != p.shape:
        raise ValueError(f"reproblas.torch.baddbmm: input {tuple(input.shape)} does not "
                         f"broadcast to the product {tuple(p.shape)}")
    scaled = p if alpha == 1.0 else p * E._const(alpha, p)
    if beta == 0.0:
        return scaled
    return expand(input, shape, order) * E._const(beta, p) + scaled


# ---- rotary position embedding ----

def rotary_cos_sin(positions, dim, base=10000.0):
    """cos and sin tables ``(len(positions), dim)`` of rotary embeddings (float32):
    ``f_i = exp(log(base) ⊗ (−2i ⊘ dim))`` for ``i < dim/2``, angle ``pos ⊗ f_i``, each
    frequency used for the two halves (docs/contract.md §5.7)."""
    if isinstance(dim, bool) or not isinstance(dim, int) or dim <= 0 or dim % 2:
        raise ValueError(f"reproblas.torch.rotary_cos_sin: dim must be a positive even int, "
                         f"got {dim!r}")
    if not isinstance(positions, torch.Tensor) or positions.dtype not in (torch.int32,
                                                                          torch.int64):
        raise TypeError("reproblas.torch.rotary_cos_sin: positions must be an integer tensor")
    if positions.numel() and int(positions.abs().max()) >= 1 << 24:
        raise ValueError("reproblas.torch.rotary_cos_sin: positions must be below 2^24 (exact "
                         "in float32)")
    half = dim // 2
    dev = positions.device
    expo = _device.div(-(torch.arange(half, dtype=torch.float32, device=dev) * 2.0), float(dim))
    freq = E.exp(E.log(torch.tensor(float(np.float32(base)), device=dev)) * expo)
    angle = positions.reshape(-1, 1).to(torch.float32) * freq.reshape(1, half)
    angle = torch.cat([angle, angle], dim=1)
    return E.cos(angle), E.sin(angle)


def apply_rotary(x, cos, sin):
    """``(x ⊗ cos) ⊕ (rotate_half(x) ⊗ sin)`` with ``rotate_half(x) = cat(−x₂, x₁)`` over
    the last axis (cos and sin broadcast as PyTorch would, through expand)."""
    if not K.usable(x, cos, sin):  # else all float32 CPU tensors
        array(x, "input", "apply_rotary", E.dtypes())
        for name, t in (("cos", cos), ("sin", sin)):
            array(t, name, "apply_rotary", E.dtypes())
    if x.shape[-1] % 2:
        raise ValueError(f"reproblas.torch.apply_rotary: the last axis must be even, got "
                         f"{x.shape[-1]}")
    try:
        shape = broadcast_shapes(x.shape, cos.shape, sin.shape)
    except RuntimeError as exc:
        raise ValueError(f"reproblas.torch.apply_rotary: cos {tuple(cos.shape)} and sin "
                         f"{tuple(sin.shape)} do not broadcast to x {tuple(x.shape)}") from exc
    if shape != x.shape:
        raise ValueError(f"reproblas.torch.apply_rotary: cos and sin must broadcast to x "
                         f"{tuple(x.shape)}")
    h = x.shape[-1] // 2
    rot = torch.cat([-x[..., h:], x[..., :h]], dim=-1)
    if not records(x, cos, sin):  # broadcasting's values; expand only routes the gradient
        return x * cos + rot * sin
    return x * expand(cos, shape) + rot * expand(sin, shape)
