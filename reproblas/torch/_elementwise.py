"""The seven crlibm_py functions as differentiable tensor operations (docs/contract.md §5.7).

Forward: the crlibm kernels through the fused C kernels (``_kernels``), or on a CUDA tensor
crlibm_py's CUDA kernel (``_device``). Backward: the derivative written in the contract; a
first-order backward on the CPU runs it as one C kernel in the library's floating-point
environment, a backward that builds a graph (``create_graph=True``) or runs on a CUDA tensor
writes it with these functions and PyTorch's IEEE arithmetic, so it is differentiable again.
Both give the same bits.
"""
import contextlib
import math

import numpy as np
import torch

import crlibm_py

from . import _device
from . import _kernels as K
from ._prims import array, run, tensor

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
    if not K.usable(x_t) or _device.on_device(x_t):
        # array() says what is wrong, or gives the device array for crlibm_py's CUDA kernel
        return tensor(getattr(crlibm_py, name)(array(x_t, "input", name, _F32)))
    return K.map_forward(name, x_t)


def _kernel_grad(name, saved, g):
    """The first-order derivative as one C kernel, or None when a graph is being built
    (create_graph=True: the differentiable formula) or the operands do not suit it."""
    if torch.is_grad_enabled() or not K.usable(saved, g) or _device.on_device(saved):
        return None
    return K.map_backward(name, saved, g)


def _const(c, like):
    """A Python constant rounded once to like's dtype (as PyTorch's scalar operand is)."""
    return float(np.float32(c)) if like.dtype == torch.float32 else float(c)


def _function(name, saves_output, grad):
    """The autograd Function of crlibm's `name`. It saves its output (saves_output) or its
    input; the backward is the fused kernel on a first-order pass, else grad(g, saved),
    written with differentiable ops (contract §5.7's derivative)."""
    def forward(ctx, x):
        y = _apply(name, x)
        ctx.save_for_backward(y if saves_output else x)
        return y

    def backward(ctx, g):
        (saved,) = ctx.saved_tensors
        k = _kernel_grad(name, saved, g)
        return k if k is not None else grad(g, saved)
    return type(f"_{name.capitalize()}", (torch.autograd.Function,),
                {"forward": staticmethod(forward), "backward": staticmethod(backward)})


_FUNCTIONS = {
    "exp": _function("exp", True, lambda g, y: g * y),
    "log": _function("log", False, lambda g, x: g / x),
    "sin": _function("sin", False, lambda g, x: g * cos(x)),
    "cos": _function("cos", False, lambda g, x: -(g * sin(x))),
    "tanh": _function("tanh", True, lambda g, y: g * (1.0 - y * y)),
    "erf": _function("erf", False, lambda g, x: g * (exp(-(x * x)) *
                                                     _const(2.0 / math.sqrt(math.pi), x))),
    "rsqrt": _function("rsqrt", True, lambda g, y: g * (((y * y) * y) * -0.5)),
}


def dtypes():
    """The dtypes a crlibm-based op accepts now (float64 only under float64_reference)."""
    return _F64 if _reference64[0] else _F32


def _unary(name):
    fn = _FUNCTIONS[name]

    def op(input):
        array(input, "input", name, _F64 if _reference64[0] else _F32)
        return run(fn, input)
    op.__name__ = op.__qualname__ = name
    op.__doc__ = (f"Correctly rounded ``{name}`` of a float32 CPU or CUDA tensor (crlibm_py), "
                  f"differentiable to any order (docs/contract.md §5.7).")
    return op


exp, log, sin, cos, tanh, erf, rsqrt = (_unary(n) for n in _FUNCTIONS)
