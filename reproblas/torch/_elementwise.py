"""The seven crlibm_py functions as differentiable tensor operations (docs/contract.md §5.7).

Forward: the crlibm kernels through the fused C kernels (``_kernels``). Backward: the
derivative written in the contract; a first-order backward runs it as one C kernel in the
library's floating-point environment, a backward that builds a graph (``create_graph=True``)
writes it with these functions and PyTorch's IEEE arithmetic, so it is differentiable again.
Both give the same bits.
"""
import contextlib
import math

import numpy as np
import torch


from . import _kernels as K
from ._prims import array, tensor

_F32 = (torch.float32,)
_F64 = (torch.float32, torch.float64)
_reference64 = [False]


@contextlib.contextmanager
def float64_reference():
    """Tests only: float64 tensors use NumPy/SciPy's float64 functions (not correctly rounded,
    not reproducible) so that gradcheck can check every derivative formula in float64."""
    _reference64[0] = True
    try:
        yield
    finally:
        _reference64[0] = False


def _np64(name, x):
    if name == "erf":
        from scipy.special import erf
        return erf(x)
    if name == "rsqrt":
        return 1.0 / np.sqrt(x)
    return getattr(np, name)(x)


def _apply(name, x_t):
    if _reference64[0] and x_t.dtype == torch.float64:
        return tensor(_np64(name, array(x_t, "input", name)))
    array(x_t, "input", name, _F32)
    return K.map_forward(name, x_t)


def _kernel_grad(name, saved, g):
    """The first-order derivative as one C kernel, or None when a graph is being built
    (create_graph=True: the differentiable formula) or the operands do not suit it."""
    if torch.is_grad_enabled() or not K.usable(saved, g):
        return None
    return K.map_backward(name, saved, g)


def _const(c, like):
    """A Python constant rounded once to like's dtype (as PyTorch's scalar operand is)."""
    return float(np.float32(c)) if like.dtype == torch.float32 else float(c)


class _Exp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = _apply("exp", x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        k = _kernel_grad("exp", y, g)
        if k is not None:
            return k
        return g * y


class _Log(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return _apply("log", x)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        k = _kernel_grad("log", x, g)
        if k is not None:
            return k
        return g / x


class _Sin(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return _apply("sin", x)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        k = _kernel_grad("sin", x, g)
        if k is not None:
            return k
        return g * cos(x)


class _Cos(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return _apply("cos", x)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        k = _kernel_grad("cos", x, g)
        if k is not None:
            return k
        return -(g * sin(x))


class _Tanh(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = _apply("tanh", x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        k = _kernel_grad("tanh", y, g)
        if k is not None:
            return k
        return g * (1.0 - y * y)


class _Erf(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return _apply("erf", x)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        k = _kernel_grad("erf", x, g)
        if k is not None:
            return k
        return g * (exp(-(x * x)) * _const(2.0 / math.sqrt(math.pi), x))


class _Rsqrt(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = _apply("rsqrt", x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        k = _kernel_grad("rsqrt", y, g)
        if k is not None:
            return k
        return g * (((y * y) * y) * -0.5)


def dtypes():
    """The dtypes a crlibm-based op accepts now (float64 only under float64_reference)."""
    return _F64 if _reference64[0] else _F32


def _unary(fn, name):
    def op(input):
        array(input, "input", name, _F64 if _reference64[0] else _F32)
        return fn.apply(input)
    op.__name__ = op.__qualname__ = name
    op.__doc__ = (f"Correctly rounded ``{name}`` of a float32 CPU tensor (crlibm_py), "
                  f"differentiable to any order (docs/contract.md §5.7).")
    return op


exp = _unary(_Exp, "exp")
log = _unary(_Log, "log")
sin = _unary(_Sin, "sin")
cos = _unary(_Cos, "cos")
tanh = _unary(_Tanh, "tanh")
erf = _unary(_Erf, "erf")
rsqrt = _unary(_Rsqrt, "rsqrt")
