"""Modules: drop-in subclasses of torch.nn.Linear and torch.nn.Conv2d, and convert().

They keep their parent's parameters, names and initialisation, so state dicts load in
both directions; only forward (and with it backward) runs on reproblas.
"""
import torch

from reproblas import _validate

from ._functions import conv2d, linear


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


_REPLACEMENTS = {torch.nn.Linear: Linear, torch.nn.Conv2d: Conv2d}


def convert(module, *, order="sequential"):
    """Swap every ``torch.nn.Linear`` and ``torch.nn.Conv2d`` in module for reproblas's.

    Walks the module tree and replaces each module whose type is exactly
    ``torch.nn.Linear`` or ``torch.nn.Conv2d`` (subclasses, which may compute otherwise,
    are left alone) by :class:`Linear` / :class:`Conv2d` sharing its parameters, so an
    optimizer made before or after the call trains the same tensors. Hooks registered on
    a replaced module are not carried over.

    Parameters
    ----------
    module : torch.nn.Module
        Changed in place (its children); returned, or its replacement if module itself is a
        Linear or Conv2d.
    order : {'sequential', 'pairwise'}
        Summation order of the new modules.

    Returns
    -------
    torch.nn.Module

    Raises
    ------
    TypeError
        module is not a torch.nn.Module.
    ValueError
        A Conv2d with a padding_mode other than 'zeros', or an unknown order.
    """
    _validate.order(order, "torch.convert")
    if not isinstance(module, torch.nn.Module):
        raise TypeError(f"reproblas.torch.convert: module must be a torch.nn.Module, got "
                        f"{type(module).__name__}")
    replacement = _REPLACEMENTS.get(type(module))
    if replacement is not None:
        return replacement.from_torch(module, order)
    for name, child in list(module.named_children()):
        setattr(module, name, convert(child, order=order))
    return module
