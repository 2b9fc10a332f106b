"""Modules: drop-in subclasses of torch.nn modules, and convert().

They keep their parent's parameters, names and initialisation, so state dicts load in
both directions; only forward (and with it backward) runs on reproblas.
"""
import copy
import inspect
import math

import torch

from reproblas import _validate

from . import _elementwise as _E
from . import _layers, _nn
from ._functions import conv2d, linear
from ._functions import matmul as _matmul
from ._prims import broadcast_shapes
from ._prims import expand as _expand


class _Reproducible:
    """What both modules add to their torch parent: `order` and the constructor from it."""

    def _set_order(self, order):
        _validate.order(order, f"torch.{type(self).__name__}")
        self.order = order

    def extra_repr(self):
        return f"{super().extra_repr()}, order={self.order!r}"

    @classmethod
    def _from(cls, module, order, **kwargs):
        """A module of this class sharing module's parameters (no copy, no new init)."""
        new = cls(**kwargs, bias=module.bias is not None, device="meta",
                  dtype=module.weight.dtype, order=order)
        new.weight, new.bias = module.weight, module.bias
        return new.train(module.training)


class Linear(_Reproducible, torch.nn.Linear):
    """:class:`torch.nn.Linear` whose forward and backward are reproblas products.

    ``y = S (+) bias`` with S the ordered sum over the input features
    (:func:`reproblas.torch.linear`). Same parameters, initialisation and state dict as
    ``torch.nn.Linear``.

    Parameters
    ----------
    in_features, out_features, bias, device, dtype
        As for ``torch.nn.Linear`` (CPU, float32 or float64).
    order : {'sequential', 'pairwise'}
        Summation order of every sum, forward and backward.
    """

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None, *,
                 order="sequential"):
        super().__init__(in_features, out_features, bias=bias, device=device, dtype=dtype)
        self._set_order(order)

    def forward(self, input):
        return linear(input, self.weight, self.bias, order=self.order)

    @classmethod
    def from_torch(cls, module, order="sequential"):
        """The reproblas version of a ``torch.nn.Linear``, sharing its parameters."""
        return cls._from(module, order, in_features=module.in_features,
                         out_features=module.out_features)


class Conv2d(_Reproducible, torch.nn.Conv2d):
    """:class:`torch.nn.Conv2d` whose forward and backward are reproblas convolutions.

    ``y = S (+) bias`` and the gradients as fixed by the contract (§3,
    :func:`reproblas.torch.conv2d`). Same parameters, initialisation and state dict as
    ``torch.nn.Conv2d``. Only ``padding_mode='zeros'`` (padded positions are absent terms).

    Parameters
    ----------
    in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias, device, dtype
        As for ``torch.nn.Conv2d`` (CPU, float32 or float64).
    order : {'sequential', 'pairwise'}
        Summation order of every sum, forward and backward.
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode="zeros", device=None, dtype=None, *,
                 order="sequential"):
        if padding_mode != "zeros":
            raise ValueError(f"reproblas.torch.Conv2d: padding_mode={padding_mode!r} is not "
                             f"supported; only 'zeros' (pad the input with F.pad first)")
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, bias, padding_mode, device=device, dtype=dtype)
        self._set_order(order)

    def forward(self, input):
        return conv2d(input, self.weight, self.bias, self.stride, self.padding, self.dilation,
                      self.groups, order=self.order)

    @classmethod
    def from_torch(cls, module, order="sequential"):
        """The reproblas version of a ``torch.nn.Conv2d``, sharing its parameters."""
        return cls._from(module, order, in_channels=module.in_channels,
                         out_channels=module.out_channels, kernel_size=module.kernel_size,
                         stride=module.stride, padding=module.padding,
                         dilation=module.dilation, groups=module.groups,
                         padding_mode=module.padding_mode)


class _Converted(_Reproducible):
    """A torch.nn module whose forward is the reproblas op of the same name; built like its
    parent (same arguments and state dict) with an extra ``order=`` keyword."""

    def __init_subclass__(cls, **kwargs):
        """Each module's __init__ takes its torch parent's arguments plus order=, and says so
        in its signature (the stubs are checked against it)."""
        super().__init_subclass__(**kwargs)
        if "__init__" in cls.__dict__:
            return
        parent = next((b for b in cls.__mro__ if b.__module__.startswith("torch.")), None)
        if parent is None:  # an intermediate base (_BatchNorm)
            return
        sig = inspect.signature(parent.__init__)
        params = [p for p in sig.parameters.values()
                  if p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)]
        params.append(inspect.Parameter("order", inspect.Parameter.KEYWORD_ONLY,
                                        default="sequential"))

        def __init__(self, *args, order="sequential", **kw):
            parent.__init__(self, *args, **kw)
            self._set_order(order)

        __init__.__signature__ = sig.replace(parameters=params)
        __init__.__qualname__ = f"{cls.__qualname__}.__init__"
        __init__.__doc__ = f"As torch.nn.{parent.__name__}, plus order= (the summation order)."
        cls.__init__ = __init__

    @classmethod
    def from_torch(cls, module, order="sequential"):
        """The reproblas version of a module of the parent type, sharing its parameters,
        buffers and attributes (the parent's __init__ is not run again)."""
        new = copy.copy(module)
        for name in ("_parameters", "_buffers", "_modules"):
            setattr(new, name, dict(getattr(module, name)))
        new.__class__ = cls
        new._set_order(order)
        return new


class ReLU(_Converted, torch.nn.ReLU):
    """:class:`torch.nn.ReLU` (exact; ``inplace`` is accepted and ignored)."""

    def forward(self, input):
        return _nn.relu(input)


class Sigmoid(_Converted, torch.nn.Sigmoid):
    """:class:`torch.nn.Sigmoid` through the correctly rounded exp."""

    def forward(self, input):
        return _nn.sigmoid(input)


class Tanh(_Converted, torch.nn.Tanh):
    """:class:`torch.nn.Tanh`, the correctly rounded tanh."""

    def forward(self, input):
        return _nn.tanh(input)


class SiLU(_Converted, torch.nn.SiLU):
    """:class:`torch.nn.SiLU`: ``x ⊗ sigmoid(x)``."""

    def forward(self, input):
        return _nn.silu(input)


class GELU(_Converted, torch.nn.GELU):
    """:class:`torch.nn.GELU` through erf, or tanh with ``approximate='tanh'``."""

    def forward(self, input):
        return _nn.gelu(input, self.approximate)


def _explicit_dim(module):
    if module.dim is None:
        raise ValueError(f"reproblas.torch.{type(module).__name__}: dim=None (PyTorch's "
                         f"implicit choice of axis) is not supported: give dim")


class Softmax(_Converted, torch.nn.Softmax):
    """:class:`torch.nn.Softmax` (an explicit ``dim`` only)."""

    def forward(self, input):
        _explicit_dim(self)
        return _nn.softmax(input, self.dim, order=self.order)


class LogSoftmax(_Converted, torch.nn.LogSoftmax):
    """:class:`torch.nn.LogSoftmax` (an explicit ``dim`` only)."""

    def forward(self, input):
        _explicit_dim(self)
        return _nn.log_softmax(input, self.dim, order=self.order)


class LayerNorm(_Converted, torch.nn.LayerNorm):
    """:class:`torch.nn.LayerNorm`: two-pass mean and variance, crlibm rsqrt."""

    def forward(self, input):
        return _nn.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps,
                              order=self.order)


class RMSNorm(_Converted, torch.nn.RMSNorm):
    """:class:`torch.nn.RMSNorm`: ordered sum of squares, crlibm rsqrt."""

    def forward(self, input):
        return _nn.rms_norm(input, self.normalized_shape, self.weight, self.eps,
                            order=self.order)


class MSELoss(_Converted, torch.nn.MSELoss):
    """:class:`torch.nn.MSELoss`."""

    def forward(self, input, target):
        return _nn.mse_loss(input, target, self.reduction, order=self.order)


class NLLLoss(_Converted, torch.nn.NLLLoss):
    """:class:`torch.nn.NLLLoss`."""

    def forward(self, input, target):
        return _nn.nll_loss(input, target, self.weight, self.ignore_index, self.reduction,
                            order=self.order)


class CrossEntropyLoss(_Converted, torch.nn.CrossEntropyLoss):
    """:class:`torch.nn.CrossEntropyLoss` (ignore_index, label_smoothing, weight,
    class-probability targets)."""

    def forward(self, input, target):
        return _nn.cross_entropy(input, target, self.weight, self.ignore_index, self.reduction,
                                 self.label_smoothing, order=self.order)


class _BatchNorm(_Converted):
    def forward(self, input):  # PyTorch's own bookkeeping (torch.nn.modules.batchnorm)
        self._check_input_dim(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)
            if self.momentum is None:  # a cumulative moving average
                factor = 1.0 / float(self.num_batches_tracked)
        use_batch = self.training or (self.running_mean is None and self.running_var is None)
        stats = not self.training or self.track_running_stats
        return _layers.batch_norm(input, self.running_mean if stats else None,
                                  self.running_var if stats else None, self.weight, self.bias,
                                  use_batch, factor, self.eps, order=self.order)


class BatchNorm1d(_BatchNorm, torch.nn.BatchNorm1d):
    """:class:`torch.nn.BatchNorm1d` (docs/contract.md §5.7, float32)."""


class BatchNorm2d(_BatchNorm, torch.nn.BatchNorm2d):
    """:class:`torch.nn.BatchNorm2d` (docs/contract.md §5.7, float32)."""


class AvgPool2d(_Converted, torch.nn.AvgPool2d):
    """:class:`torch.nn.AvgPool2d` (no ceil_mode)."""

    def forward(self, input):
        return _layers.avg_pool2d(input, self.kernel_size, self.stride, self.padding,
                                  self.ceil_mode, self.count_include_pad, self.divisor_override,
                                  order=self.order)


class AdaptiveAvgPool2d(_Converted, torch.nn.AdaptiveAvgPool2d):
    """:class:`torch.nn.AdaptiveAvgPool2d` (output sizes that divide the input's)."""

    def forward(self, input):
        return _layers.adaptive_avg_pool2d(input, self.output_size, order=self.order)


class MaxPool2d(_Converted, torch.nn.MaxPool2d):
    """:class:`torch.nn.MaxPool2d` (no return_indices)."""

    def forward(self, input):
        return _layers.max_pool2d(input, self.kernel_size, self.stride, self.padding,
                                  self.dilation, self.ceil_mode, self.return_indices)


class Embedding(_Converted, torch.nn.Embedding):
    """:class:`torch.nn.Embedding` (no max_norm, scale_grad_by_freq or sparse)."""

    def forward(self, input):
        if self.max_norm is not None or self.scale_grad_by_freq or self.sparse:
            raise ValueError("reproblas.torch.Embedding: max_norm, scale_grad_by_freq and "
                             "sparse are not supported")
        return _layers.embedding(input, self.weight, self.padding_idx)


class GroupNorm(_Converted, torch.nn.GroupNorm):
    """:class:`torch.nn.GroupNorm` (docs/contract.md §5.7, float32)."""

    def forward(self, input):
        return _layers.group_norm(input, self.num_groups, self.weight, self.bias, self.eps,
                                  order=self.order)


class MultiheadAttention(_Converted, torch.nn.MultiheadAttention):
    """:class:`torch.nn.MultiheadAttention` on reproblas: the three input projections and
    the output projection are :func:`linear`, the heads :func:`scaled_dot_product_attention`
    (docs/contract.md §5.7). Not supported: ``dropout > 0``, ``add_bias_kv``,
    ``add_zero_attn``. Boolean masks mean what they mean for PyTorch's module: True = masked.
    """

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True,
                attn_mask=None, average_attn_weights=True, is_causal=False):
        problem = _mha_problem(self)
        if problem:
            raise ValueError(f"reproblas.torch.MultiheadAttention: {problem}")
        batched = query.dim() == 3
        if not batched:
            query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
            if key_padding_mask is not None:
                key_padding_mask = key_padding_mask.unsqueeze(0)
        elif self.batch_first:
            query, key, value = (t.transpose(0, 1) for t in (query, key, value))
        tgt, n, e = query.shape
        src = key.shape[0]
        h, dh = self.num_heads, self.head_dim
        if self._qkv_same_embed_dim:
            wq, wk, wv = self.in_proj_weight.chunk(3)
        else:
            wq, wk, wv = self.q_proj_weight, self.k_proj_weight, self.v_proj_weight
        bq = bk = bv = None
        if self.in_proj_bias is not None:
            bq, bk, bv = self.in_proj_bias.chunk(3)
        o = self.order

        def heads(t, w, b, length):  # (length, n, e) -> (n, h, length, dh)
            return linear(t, w, b, order=o).reshape(length, n, h, dh).permute(1, 2, 0, 3)

        q, k, v = heads(query, wq, bq, tgt), heads(key, wk, bk, src), heads(value, wv, bv, src)
        mask = _mha_mask(attn_mask, key_padding_mask, is_causal, n, h, tgt, src, q.dtype,
                         q.device)
        scores = _matmul(q, k.transpose(-2, -1), order=o) * _E._const(1.0 / math.sqrt(dh), q)
        if mask is not None:
            scores = (torch.where(mask, -math.inf, scores) if mask.dtype == torch.bool
                      else scores + _expand(mask, scores.shape, o))
        weights = _nn.softmax(scores, -1, order=o)
        out = _matmul(weights, v, order=o).permute(2, 0, 1, 3).reshape(tgt, n, e)
        out = linear(out, self.out_proj.weight, self.out_proj.bias, order=o)
        if not batched:
            out = out.squeeze(1)
        elif self.batch_first:
            out = out.transpose(0, 1)
        if not need_weights:
            return out, None
        if average_attn_weights:
            weights = _nn.mean(weights, 1, order=o)
        return out, (weights if batched else weights.squeeze(0))


def _mha_problem(module):
    if module.dropout > 0.0:
        return f"dropout={module.dropout} (only 0; apply reproblas.torch.Dropout yourself)"
    if module.bias_k is not None or module.bias_v is not None or module.add_zero_attn:
        return "add_bias_kv / add_zero_attn (not supported)"
    return None


def _mha_mask(attn_mask, key_padding_mask, is_causal, n, h, tgt, src, dtype, device=None):
    """One mask broadcastable to (n, h, tgt, src): bool (True = masked) or float (added)."""
    if is_causal and attn_mask is None:
        attn_mask = torch.ones(tgt, src, dtype=torch.bool, device=device).triu(1)
    masks = []
    if attn_mask is not None:
        m = attn_mask if attn_mask.dim() == 2 else attn_mask.reshape(n, h, tgt, src)
        masks.append(m)
    if key_padding_mask is not None:
        masks.append(key_padding_mask.reshape(n, 1, 1, src))
    if not masks:
        return None
    if all(m.dtype == torch.bool for m in masks):
        out = masks[0]
        for m in masks[1:]:
            out = out | m
        return out
    floats = [torch.where(m, -math.inf, 0.0).to(dtype) if m.dtype == torch.bool else m
              for m in masks]
    shape = broadcast_shapes(*(m.shape for m in floats), (n, h, tgt, src))
    out = floats[0].expand(shape)
    for m in floats[1:]:
        out = out + m.expand(shape)  # masks are constants: no gradient flows here
    return out


class Dropout(_Converted, torch.nn.Dropout):
    """:class:`torch.nn.Dropout` with the counter-based mask of docs/contract.md §5.7: the
    k-th call in training mode (k = 0, 1, ...; the count ``calls`` is not in the state dict)
    uses ``seed + k``."""

    def __init__(self, p=0.5, inplace=False, *, seed=0, order="sequential"):
        torch.nn.Dropout.__init__(self, p, inplace)
        self._set_order(order)
        self.seed, self.calls = seed, 0

    @classmethod
    def from_torch(cls, module, order="sequential", seed=0):
        new = super().from_torch(module, order)
        new.seed, new.calls = seed, 0
        return new

    def forward(self, input):
        if not self.training or self.p == 0.0:
            return input
        out = _layers.dropout(input, self.p, True, seed=self.seed + self.calls)
        self.calls += 1
        return out


_REPLACEMENTS = {torch.nn.BatchNorm1d: BatchNorm1d, torch.nn.BatchNorm2d: BatchNorm2d,
                 torch.nn.AvgPool2d: AvgPool2d, torch.nn.AdaptiveAvgPool2d: AdaptiveAvgPool2d,
                 torch.nn.MaxPool2d: MaxPool2d, torch.nn.Embedding: Embedding,
                 torch.nn.Dropout: Dropout, torch.nn.GroupNorm: GroupNorm,
                 torch.nn.MultiheadAttention: MultiheadAttention}
_REPLACEMENTS |= {torch.nn.Linear: Linear, torch.nn.Conv2d: Conv2d, torch.nn.ReLU: ReLU,
                 torch.nn.Sigmoid: Sigmoid, torch.nn.Tanh: Tanh, torch.nn.SiLU: SiLU,
                 torch.nn.GELU: GELU, torch.nn.Softmax: Softmax,
                 torch.nn.LogSoftmax: LogSoftmax, torch.nn.LayerNorm: LayerNorm,
                 torch.nn.RMSNorm: RMSNorm, torch.nn.MSELoss: MSELoss,
                 torch.nn.NLLLoss: NLLLoss, torch.nn.CrossEntropyLoss: CrossEntropyLoss}
_OURS = frozenset(_REPLACEMENTS.values())
# Stock modules that compute nothing themselves: convert walks into them.
_STRUCTURE = (torch.nn.Sequential, torch.nn.ModuleList, torch.nn.ModuleDict,
              torch.nn.ParameterList, torch.nn.ParameterDict, torch.nn.Identity,
              torch.nn.Flatten, torch.nn.Unflatten)


def _stock_base(cls):
    """The first class of cls's MRO that PyTorch defines."""
    for base in cls.__mro__:
        if base.__module__.startswith("torch."):
            return base
    return torch.nn.Module


def _problem(module):
    """Why module cannot be converted, or None (also None for modules walked into)."""
    cls = type(module)
    if cls in _REPLACEMENTS:
        if isinstance(module, torch.nn.Conv2d) and module.padding_mode != "zeros":
            return f"padding_mode={module.padding_mode!r} (only 'zeros')"
        if isinstance(module, (torch.nn.Softmax, torch.nn.LogSoftmax)) and module.dim is None:
            return "dim=None (give dim explicitly)"
        if getattr(module, "ceil_mode", False) or getattr(module, "return_indices", False):
            return "ceil_mode / return_indices (not supported)"
        if isinstance(module, torch.nn.MultiheadAttention) and _mha_problem(module):
            return _mha_problem(module)
        if isinstance(module, torch.nn.Embedding) and (
                module.max_norm is not None or module.scale_grad_by_freq or module.sparse):
            return "max_norm / scale_grad_by_freq / sparse (not supported)"
        return None
    if cls in _OURS:
        return None
    base = _stock_base(cls)
    if base is torch.nn.Module or issubclass(base, _STRUCTURE):
        return None  # the caller's own code, or a container: its children are converted
    if base is cls:
        return "no reproducible version"
    return f"a subclass of {base.__module__}.{base.__qualname__}, which may compute otherwise"


def _walk(module, prefix, keep, found):
    """Collect (name, type, reason) of the modules convert cannot handle."""
    if keep and isinstance(module, keep):
        return
    reason = _problem(module)
    if reason is not None:
        found.append((prefix or "(the module itself)", type(module), reason))
        return
    if type(module) in _REPLACEMENTS or type(module) in _OURS:
        return
    for name, child in module.named_children():
        _walk(child, f"{prefix}.{name}" if prefix else name, keep, found)


def _replace(module, order, keep):
    if keep and isinstance(module, keep):
        return module
    replacement = _REPLACEMENTS.get(type(module))
    if replacement is not None:
        return replacement.from_torch(module, order)
    if type(module) in _OURS:
        return module
    for name, child in list(module.named_children()):
        setattr(module, name, _replace(child, order, keep))
    return module


def convert(module, *, order="sequential", keep=()):
    """Swap every module of model that has a reproblas version for it; refuse the others.

    Walks the module tree. A module whose type is exactly one of ``torch.nn.Linear``,
    ``Conv2d``, ``ReLU``, ``Sigmoid``, ``Tanh``, ``SiLU``, ``GELU``, ``Softmax``,
    ``LogSoftmax``, ``LayerNorm``, ``RMSNorm``, ``GroupNorm``, ``BatchNorm1d``,
    ``BatchNorm2d``, ``AvgPool2d``, ``AdaptiveAvgPool2d``, ``MaxPool2d``, ``Embedding``,
    ``MultiheadAttention``, ``Dropout`` (seed 0: set ``module.seed`` afterwards),
    ``MSELoss``, ``NLLLoss`` or ``CrossEntropyLoss`` is replaced by the reproblas module
    sharing its parameters, so an optimizer made before or after the call trains the same
    tensors. Containers (``Sequential``, ``ModuleList``, ``ModuleDict``, ``Identity``,
    ``Flatten``, ...) and modules of the caller's own classes (subclasses of
    ``torch.nn.Module``) are walked into; their own ``forward`` code is not changed. Any other
    PyTorch module (``Upsample``, ``InstanceNorm2d``, ``TransformerEncoderLayer``, a subclass
    of ``Linear``, ...) is an error that lists them all, raised before anything is changed,
    unless its type is in `keep`: then it is
    left as it is, children included, and is not reproducible.

    Parameters
    ----------
    module : torch.nn.Module
        Changed in place (its children); returned, or its replacement if module itself is
        replaced.
    order : {'sequential', 'pairwise'}
        Summation order of the new modules.
    keep : type or tuple of types
        Module types to leave as PyTorch's, knowingly.

    Returns
    -------
    torch.nn.Module

    Raises
    ------
    TypeError
        module is not a torch.nn.Module, keep holds something else than module types, or
        modules without a reproducible version (listed) are not in keep.
    ValueError
        An unknown order, or only modules of supported types with unsupported settings
        (listed: a Conv2d padding_mode other than 'zeros', a Softmax without dim).
    """
    _validate.order(order, "torch.convert")
    if not isinstance(module, torch.nn.Module):
        raise TypeError(f"reproblas.torch.convert: module must be a torch.nn.Module, got "
                        f"{type(module).__name__}")
    keep = (keep,) if isinstance(keep, type) else tuple(keep)
    for k in keep:
        if not (isinstance(k, type) and issubclass(k, torch.nn.Module)):
            raise TypeError(f"reproblas.torch.convert: keep must hold torch.nn.Module types, "
                            f"got {k!r}")
    found = []
    _walk(module, "", keep, found)
    if found:
        lines = "; ".join(f"{name} ({t.__module__}.{t.__qualname__}: {why})"
                          for name, t, why in found)
        types = ", ".join(sorted({f"{t.__module__}.{t.__qualname__}" for _, t, _ in found}))
        # a supported type with an unsupported setting is a ValueError, as from_torch's
        error = ValueError if all(t in _REPLACEMENTS for _, t, _ in found) else TypeError
        raise error(f"reproblas.torch.convert: these modules cannot be made reproducible: "
                    f"{lines}. Pass keep=({types},) to leave them as PyTorch's (not "
                    f"reproducible)")
    return _replace(module, order, keep)
