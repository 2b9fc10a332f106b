"""``with reproblas.torch.reproducible():`` — unmodified PyTorch code on reproblas.

A TorchFunctionMode sends each PyTorch function that has a reproblas version (``F.linear``,
``torch.matmul`` and ``@``, ``F.conv2d``, softmax, norms, losses, ``exp``, ``sum``, ``mean``,
...) to it, lets through the operations whose results are exact or single IEEE operations
(views, indexing, ``+ − × ÷`` without ``alpha``, comparisons, ``where``, creation, metadata),
and raises for everything else (strict, the default), so nothing non-reproducible runs
silently. The autograd engine runs the backward passes of the routed operations, which are
reproblas's own.
"""
import torch
import torch.nn.functional as F
from torch.overrides import TorchFunctionMode

from reproblas import _validate

from . import _cumsum
from . import _elementwise as E
from . import _functions, _layers, _nn

T = torch.Tensor


def _no_dtype(name, dtype):
    if dtype is not None:
        raise NotImplementedError(f"reproblas.torch.reproducible: {name} with dtype= is not "
                                  f"supported: convert the input first")


def _reduction(fn, name):
    def route(order, input, dim=None, keepdim=False, *, dtype=None, out=None, **kw):
        _no_dtype(name, dtype)
        if out is not None:
            raise NotImplementedError(f"reproblas.torch.reproducible: {name} with out=")
        if not input.is_floating_point():  # integer and boolean sums are exact
            return None
        return fn(input, dim, keepdim, order=order)
    return route


def _var(order, input, dim=None, unbiased=None, keepdim=False, *, correction=None, **kw):
    if isinstance(dim, bool):  # var(input, unbiased)
        dim, unbiased = None, dim
    if correction is None:
        correction = 1 if unbiased is None or unbiased else 0
    return _nn.var(input, dim, correction=correction, keepdim=keepdim, order=order)


def _softmax(fn, name):
    def route(order, input, dim=None, _stacklevel=3, dtype=None, **kw):
        _no_dtype(name, dtype)
        if dim is None:
            raise NotImplementedError(f"reproblas.torch.reproducible: {name} needs dim")
        return fn(input, dim, order=order)
    return route


def _unary(fn):
    return lambda order, input, *a, **kw: fn(input)


def _linear(order, input, weight, bias=None):
    return _functions.linear(input, weight, bias, order=order)


def _matmul(order, a, b, **kw):
    return _functions.matmul(a, b, order=order)


def _conv2d(order, input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _functions.conv2d(input, weight, bias, stride, padding, dilation, groups, order=order)


def _gelu(order, input, approximate="none"):
    return _nn.gelu(input, approximate)


def _layer_norm(order, input, normalized_shape, weight=None, bias=None, eps=1e-5):
    return _nn.layer_norm(input, normalized_shape, weight, bias, eps, order=order)


def _rms_norm(order, input, normalized_shape, weight=None, eps=None):
    return _nn.rms_norm(input, normalized_shape, weight, eps, order=order)


def _group_norm(order, input, num_groups, weight=None, bias=None, eps=1e-5):
    return _layers.group_norm(input, num_groups, weight, bias, eps, order=order)


def _batch_norm(order, input, running_mean, running_var, weight=None, bias=None,
                training=False, momentum=0.1, eps=1e-5):
    return _layers.batch_norm(input, running_mean, running_var, weight, bias, training,
                              momentum, eps, order=order)


def _loss(fn, names):
    def route(order, input, target, *args, **kw):
        for legacy in ("size_average", "reduce"):
            if kw.pop(legacy, None) is not None:
                raise NotImplementedError(f"reproblas.torch.reproducible: {legacy}= is not "
                                          f"supported: use reduction=")
        bound = dict(zip(names, args), **kw)
        bound.pop("size_average", None), bound.pop("reduce", None)
        if "weight" in bound and "weight" not in names:  # F.mse_loss's newer weight=
            if bound.pop("weight") is not None:
                raise NotImplementedError("reproblas.torch.reproducible: mse_loss with weight= "
                                          "is not supported")
        return fn(input, target, **bound, order=order)
    return route


def _dropout(order, input, p=0.5, training=True, inplace=False):
    if not training or p == 0.0:
        return input
    raise NotImplementedError("reproblas.torch.reproducible: F.dropout in training draws from "
                              "PyTorch's generator; use reproblas.torch.dropout(x, p, seed=...) "
                              "or the module reproblas.torch.Dropout")


def _sdpa(order, query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False,
          scale=None, enable_gqa=False):
    if enable_gqa:
        raise NotImplementedError("reproblas.torch.reproducible: enable_gqa is not supported")
    return _layers.scaled_dot_product_attention(query, key, value, attn_mask, dropout_p,
                                                is_causal, scale, order=order)


def _avg_pool2d(order, input, kernel_size, stride=None, padding=0, ceil_mode=False,
                count_include_pad=True, divisor_override=None):
    return _layers.avg_pool2d(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                              divisor_override, order=order)


def _adaptive_avg_pool2d(order, input, output_size):
    return _layers.adaptive_avg_pool2d(input, output_size, order=order)


def _max_pool2d(order, input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                return_indices=False):
    return _layers.max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode,
                              return_indices)


def _embedding(order, input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
               scale_grad_by_freq=False, sparse=False):
    if max_norm is not None or scale_grad_by_freq or sparse:
        raise NotImplementedError("reproblas.torch.reproducible: embedding with max_norm, "
                                  "scale_grad_by_freq or sparse is not supported")
    return _layers.embedding(input, weight, padding_idx)


_ROUTES = {}


def _add(funcs, route):
    for f in funcs:
        _ROUTES[f] = route


_add([F.linear], _linear)
_add([torch.matmul, T.matmul, T.__matmul__, torch.mm, T.mm, torch.bmm, T.bmm], _matmul)
_add([T.__rmatmul__], lambda order, b, a: _functions.matmul(a, b, order=order))
_add([F.conv2d, torch.conv2d], _conv2d)
for _names, _fn in ((("exp",), E.exp), (("log",), E.log), (("sin",), E.sin), (("cos",), E.cos),
                     (("tanh",), E.tanh), (("erf",), E.erf), (("rsqrt",), E.rsqrt),
                     (("sigmoid",), _nn.sigmoid), (("relu",), _nn.relu)):
    for _n in _names:
        _add([getattr(torch, _n), getattr(T, _n)], _unary(_fn))
_add([F.sigmoid], _unary(_nn.sigmoid))
_add([F.tanh], _unary(E.tanh))
_add([F.relu], _unary(_nn.relu))
_add([F.silu], _unary(_nn.silu))
_add([F.gelu], _gelu)
_add([F.softmax, torch.softmax, T.softmax], _softmax(_nn.softmax, "softmax"))
_add([F.log_softmax, torch.log_softmax, T.log_softmax],
     _softmax(_nn.log_softmax, "log_softmax"))
_add([torch.logsumexp, T.logsumexp],
     lambda order, input, dim, keepdim=False: _nn.logsumexp(input, dim, keepdim, order=order))
_add([torch.sum, T.sum], _reduction(_nn.sum, "sum"))
_add([torch.mean, T.mean], _reduction(_nn.mean, "mean"))
_add([torch.var, T.var], _var)
_add([torch.cumsum, T.cumsum], _cumsum.route)
_add([F.layer_norm], _layer_norm)
_add([F.rms_norm], _rms_norm)
_add([F.group_norm], _group_norm)
_add([F.batch_norm], _batch_norm)
_add([F.embedding], _embedding)
_add([F.dropout], _dropout)
_add([F.scaled_dot_product_attention], _sdpa)
_add([F.avg_pool2d, torch._C._nn.avg_pool2d], _avg_pool2d)
_add([F.adaptive_avg_pool2d], _adaptive_avg_pool2d)
_add([F.max_pool2d, torch.max_pool2d], _max_pool2d)
_add([F.cross_entropy], _loss(_nn.cross_entropy, ("weight", "size_average", "ignore_index",
                                                  "reduce", "reduction", "label_smoothing")))
_add([F.nll_loss], _loss(_nn.nll_loss, ("weight", "size_average", "ignore_index", "reduce",
                                        "reduction")))
_add([F.mse_loss], _loss(_nn.mse_loss, ("size_average", "reduce", "reduction")))

# Exact results, or one IEEE operation per element (no fused forms, no float reductions).
_EXACT_NAMES = {
    # arithmetic and selection
    "add", "sub", "mul", "div", "neg", "abs", "__add__", "__radd__", "__iadd__", "__sub__",
    "__rsub__", "__isub__", "__mul__", "__rmul__", "__imul__", "__truediv__", "__rtruediv__",
    "__itruediv__", "__neg__", "__abs__", "add_", "sub_", "mul_", "div_", "neg_", "where",
    "maximum", "minimum", "clamp", "clamp_", "clamp_min", "clamp_max", "amax", "amin",
    "reciprocal", "square", "masked_fill", "masked_fill_", "sign", "copysign",
    # comparisons and logic
    "eq", "ne", "lt", "le", "gt", "ge", "__eq__", "__ne__", "__lt__", "__le__", "__gt__",
    "__ge__", "logical_and", "logical_or", "logical_not", "__and__", "__or__", "__xor__",
    "__invert__", "__rand__", "__ror__", "isinf", "isnan", "isfinite", "any", "all",
    "argmax", "argmin", "equal", "allclose", "isclose", "__bool__", "nonzero",
    # views, copies, indexing
    "view", "view_as", "reshape", "reshape_as", "permute", "transpose", "t", "flatten",
    "unflatten", "squeeze", "unsqueeze", "expand", "expand_as", "contiguous", "clone",
    "detach", "detach_", "cat", "concat", "stack", "chunk", "split", "unbind", "narrow",
    "select", "__getitem__", "__setitem__", "index_select", "gather", "flip", "roll", "tril",
    "triu", "repeat", "tile", "movedim", "swapaxes", "broadcast_to", "masked_select",
    "copy_", "zero_", "fill_", "requires_grad_", "retain_grad", "backward", "register_hook",
    "broadcast_tensors",
    # creation and conversion (random draws are not here: allow them knowingly)
    "zeros", "ones", "empty", "full", "arange", "tensor", "as_tensor", "asarray", "eye",
    "linspace", "scalar_tensor", "_record_function_enter_new", "_record_function_exit",
    "_set_grad_enabled", "is_grad_enabled", "set_grad_enabled", "is_inference_mode_enabled",
    "zeros_like", "ones_like", "full_like", "empty_like", "rand_like", "randn_like",
    "new_zeros", "new_ones", "new_full", "new_empty", "new_tensor", "to", "float", "double",
    "long", "int", "bool", "half", "type_as", "type", "numpy", "tolist", "item", "cpu",
    "__float__", "__int__", "__index__", "__len__", "__iter__", "__repr__", "__format__",
    "__reduce_ex__", "__deepcopy__", "__hash__", "__contains__", "__array__",
    # metadata
    "__get__", "__set__", "size", "dim", "ndimension", "numel", "nelement", "stride",
    "is_contiguous", "data_ptr", "is_conj", "is_neg", "is_floating_point", "is_complex",
    "element_size", "storage_offset", "untyped_storage", "_is_view", "is_leaf",
    "get_device", "is_nonzero", "is_same_size", "dim_order",
}


def _name(func):
    """The function's name without an overload suffix (``_record_exit._RecordFunction``)."""
    name = getattr(func, "__name__", None) or repr(func)
    return name.split(".")[0]


class _Mode(TorchFunctionMode):
    def __init__(self, order, strict, allow):
        super().__init__()
        self.order, self.strict, self.allow = order, strict, allow

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        route = _ROUTES.get(func)
        if route is not None:
            result = route(self.order, *args, **kwargs)
            if result is not None:
                return result
            return func(*args, **kwargs)
        name = _name(func)
        if name in ("add", "sub", "__iadd__", "add_", "sub_") and \
                kwargs.get("alpha", 1) != 1:
            self._refuse(func, "add/sub with alpha (PyTorch fuses it into one fma)")
        if name in ("div", "div_") and kwargs.get("rounding_mode") not in (None, "trunc",
                                                                             "floor"):
            self._refuse(func, "this rounding mode")
        if not self.strict or name in _EXACT_NAMES or func in self.allow:
            return func(*args, **kwargs)
        self._refuse(func, "no reproducible version")

    def _refuse(self, func, why):
        raise NotImplementedError(
            f"reproblas.torch.reproducible: {_name(func)} ({why}) would not be reproducible; "
            f"use a reproblas.torch function, or allow it knowingly with "
            f"reproducible(allow=[...]) or strict=False")


def reproducible(*, order="sequential", strict=True, allow=()):
    """A context in which PyTorch's functions run on reproblas where they have a version.

    ``F.linear``, ``torch.matmul`` / ``@`` / ``mm`` / ``bmm``, ``F.conv2d``, ``exp``, ``log``,
    ``sin``, ``cos``, ``tanh``, ``erf``, ``rsqrt``, ``sigmoid``, ``relu``, ``F.silu``,
    ``F.gelu``, softmax, log_softmax, logsumexp, ``sum`` / ``mean`` / ``var``, layer, RMS,
    group and batch norm, embedding, the pools, ``F.scaled_dot_product_attention``,
    cross-entropy, NLL and MSE losses, ``cumsum`` go to their reproblas versions (forward and
    backward).
    Exact operations pass. With ``strict`` (the default) any other function raises
    ``NotImplementedError`` naming it, unless it is in ``allow``.

    Parameters
    ----------
    order : {'sequential', 'pairwise'}
        Summation order of every routed operation.
    strict : bool
        Raise for functions without a reproducible version (default), or let them run.
    allow : iterable of functions
        Functions to let run as PyTorch's, knowingly (e.g. ``torch.cumprod``).
    """
    _validate.order(order, "torch.reproducible")
    return _Mode(order.lower(), bool(strict), frozenset(allow))

