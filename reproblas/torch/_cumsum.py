"""``cumsum`` of reproblas.torch (docs/contract.md §5.7): the forward is ``reproblas.cumsum``
along ``dim`` (§5.2, in the mode's order); the gradient is the reverse cumulative sum of the
incoming gradient, ``flip(cumsum(flip(g)))`` in the same order, itself this function, so that
its gradient (double backward) is the forward scan again. ``route`` is the
``reproducible()`` route of ``torch.cumsum`` and ``Tensor.cumsum``."""
import numpy as np
import torch

import reproblas
from reproblas import _validate

from ._prims import array, dims_of, run, tensor


class _Cumsum(torch.autograd.Function):
    """x scanned along `dim` (reverse: from the far end, flip(cumsum(flip(x))))."""

    @staticmethod
    def forward(ctx, x_t, dim, order, reverse):
        x = array(x_t, "input", "cumsum")
        ctx.dim, ctx.order, ctx.reverse = dim, order, reverse
        if x.ndim == 0:  # PyTorch: the scan of a 0-d tensor is the tensor
            return x_t.detach().clone()
        if reverse:
            x = np.flip(x, axis=dim)
        s = reproblas.cumsum(x, axis=dim, order=order)
        return tensor(np.flip(s, axis=dim) if reverse else s)

    @staticmethod
    def backward(ctx, g):
        # d s_k / d x_i = 1 for k >= i: gradient i is g_(n-1) + ... + g_i, scanned from the end
        return run(_Cumsum, g, ctx.dim, ctx.order, not ctx.reverse), None, None, None


def cumsum(input, dim, *, order="sequential"):
    """Differentiable ``reproblas.cumsum`` of a CPU or CUDA float32/float64 tensor along
    ``dim``."""
    _validate.order(order, "torch.cumsum")
    if isinstance(dim, bool) or not isinstance(dim, int):
        raise TypeError(f"reproblas.torch.cumsum: dim must be an int, got {dim!r}")
    array(input, "input", "cumsum")  # the checks, before autograd sees the tensor
    return run(_Cumsum, input, dims_of(dim, input.ndim, "cumsum")[0], order.lower(), False)


def route(order, input, dim=None, *, dtype=None, out=None):
    """``torch.cumsum(input, dim)`` / ``Tensor.cumsum(dim)`` under ``reproducible()``."""
    if dtype is not None or out is not None:
        raise NotImplementedError("reproblas.torch.reproducible: cumsum with dtype= or out= is "
                                  "not supported: convert the input first")
    if not input.is_floating_point():  # integer and boolean scans are exact
        return None
    if dim is None:
        raise TypeError("reproblas.torch.reproducible: cumsum needs dim")
    return cumsum(input, dim, order=order)
