"""conv2d and its three gradients (SPEC §3 "Convolution"), NCHW, NumPy arrays.

This layer checks and normalises the arguments (PyTorch's conventions) and
makes the operands contiguous; the C core (src/c/reproblas/conv_driver.c, shared
with the C ABI) plans each routine into gather gemms and runs it.
"""
import numpy as np

from . import _api, _core, _cuda
from ._level23 import _matrix


# ---- arguments ----

def _pair(value, name, routine, minimum):
    if isinstance(value, (tuple, list)) and len(value) == 2:
        pair = tuple(value)
    elif isinstance(value, (tuple, list)):
        raise ValueError(f"reproblas.{routine}: {name} must be an int or a pair of ints, "
                         f"got {value!r}")
    else:
        pair = (value, value)
    for v in pair:
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise TypeError(f"reproblas.{routine}: {name} must be an int or a pair of ints, "
                            f"got {value!r}")
        if v < minimum:
            raise ValueError(f"reproblas.{routine}: {name}={value!r} must be >= {minimum}")
    return int(pair[0]), int(pair[1])


class _Geometry:
    """Sizes and hyper-parameters of one convolution, checked.

    pad[a] is the padding before axis a (top / left); out[a] the output size."""

    def __init__(self, routine, in_hw, k_hw, stride, padding, dilation):
        self.stride = _pair(stride, "stride", routine, 1)
        self.dilation = _pair(dilation, "dilation", routine, 1)
        if 0 in k_hw:  # as PyTorch: no output size is defined for an empty window
            raise ValueError(f"reproblas.{routine}: the kernel's height and width must be "
                             f"positive, got {tuple(k_hw)}")
        span = [d * (k - 1) for d, k in zip(self.dilation, k_hw)]
        if isinstance(padding, str):
            if padding == "valid":
                before, total = (0, 0), (0, 0)
            elif padding == "same":
                if self.stride != (1, 1):
                    raise ValueError(f"reproblas.{routine}: padding='same' needs stride 1 "
                                     f"(as in PyTorch), got stride={stride!r}")
                before, total = tuple(s // 2 for s in span), tuple(span)
            else:
                raise ValueError(f"reproblas.{routine}: padding={padding!r}: use an int, a "
                                 f"pair of ints, 'same' or 'valid'")
        else:
            p = _pair(padding, "padding", routine, 0)
            before, total = p, (2 * p[0], 2 * p[1])
        self.pad = before
        out = []
        for a, name in enumerate(("height", "width")):
            room = in_hw[a] + total[a] - span[a] - 1
            if room < 0:
                raise ValueError(f"reproblas.{routine}: the input {name} {in_hw[a]} with "
                                 f"padding {total[a]} is smaller than the dilated kernel "
                                 f"({span[a] + 1}); the output would be empty")
            out.append(room // self.stride[a] + 1)
        self.out = tuple(out)
        self.in_hw, self.k_hw = tuple(in_hw), tuple(k_hw)
        if max(self.stride + self.dilation + self.pad + self.out) > _MAX_DIM:  # before any allocation
            raise ValueError(f"reproblas.{routine}: strides, paddings, dilations and output sizes "
                             f"must be at most 2**30, got stride {self.stride}, padding "
                             f"{self.pad}, dilation {self.dilation}, output {self.out}")

    def axis(self, a):
        """The hashable description of axis a: (input, kernel, stride, pad, dilation, output)."""
        return (self.in_hw[a], self.k_hw[a], self.stride[a], self.pad[a], self.dilation[a],
                self.out[a])


def _prepare(routine, order, arrays, ndim=4):
    """Backend, order code and dtype checks shared by the four routines."""
    _api._backend(*arrays.values())
    code = _api._order(order)
    checked = {name: _matrix(v, name, routine, ndim=1 if name == "bias" else ndim)
               for name, v in arrays.items() if v is not None or name != "bias"}
    _api._same_dtype(routine, **checked)
    return code, checked  # made contiguous by _run, after every size check


def _groups(groups, routine, channels, out_channels):
    if isinstance(groups, bool) or not isinstance(groups, (int, np.integer)) or groups < 1:
        raise ValueError(f"reproblas.{routine}: groups={groups!r} must be a positive int")
    groups = int(groups)
    if channels % groups or out_channels % groups:
        raise ValueError(f"reproblas.{routine}: groups={groups} must divide the input channels "
                         f"({channels}) and the output channels ({out_channels})")
    return groups


def _shape(value, name, routine):
    try:
        shape = tuple(value)
    except TypeError:
        raise TypeError(f"reproblas.{routine}: {name} must be a sequence of 4 ints") from None
    if any(isinstance(v, bool) or not isinstance(v, (int, np.integer)) for v in shape):
        raise TypeError(f"reproblas.{routine}: {name} must be a sequence of 4 ints, got "
                        f"{value!r}")
    shape = tuple(int(v) for v in shape)
    if len(shape) != 4 or min(shape) < 0:
        raise ValueError(f"reproblas.{routine}: {name} must be 4 non-negative ints "
                         f"(N, C, H, W / K, C/groups, R, S), got {value!r}")
    return shape


def _check_weight(w_shape, c, groups, routine):
    k, cg = w_shape[:2]
    groups = _groups(groups, routine, c, k)
    if cg * groups != c:
        raise ValueError(f"reproblas.{routine}: weight has {cg} input channels per group but "
                         f"the input has {c} channels in {groups} group(s): expected weight "
                         f"shape ({k}, {c // groups}, R, S)")
    return groups


_MAX_DIM = 2 ** 30  # RB_CONV_MAX_DIM of conv.h
_ROUTINE_NAMES = {_core.CONV2D: "conv2d", _core.CONV2D_GRAD_INPUT: "conv2d_grad_input",
                  _core.CONV2D_GRAD_WEIGHT: "conv2d_grad_weight",
                  _core.CONV2D_GRAD_BIAS: "conv2d_grad_bias"}


def _core_shape(x_shape, w_shape, g, groups):
    """The 16 ints of the core's rb_conv_shape."""
    n, c, h, wd = x_shape
    k, _, r, s = w_shape
    return (n, c, h, wd, k, r, s) + g.out + g.stride + g.pad + g.dilation + (groups,)


def _run(routine, code, shape, a, b, bias, out):
    """The core call on C-ordered copies where needed, once shape is known to fit."""
    if max(shape) > _MAX_DIM:
        raise ValueError(f"reproblas.{_ROUTINE_NAMES[routine]}: sizes, strides, paddings and "
                         f"dilations must be at most 2**30, got {shape}")
    a, b, bias = (None if v is None else _api._contiguous(v) for v in (a, b, bias))
    _core.conv(routine, code, shape, a, b, bias, out, _api._isa(), _api._threads())
    return out


# ---- shapes and parameters (shared with the CUDA path, reproblas/_cuda.py) ----

def _conv2d_setup(x, w, b, stride, padding, dilation, groups):
    """(groups, geometry, output shape) of conv2d, checked."""
    n, c, h, wd = x.shape
    k, cg, r, s = w.shape
    groups = _check_weight(w.shape, c, groups, "conv2d")
    if b is not None and b.shape != (k,):
        raise ValueError(f"reproblas.conv2d: bias has shape {b.shape}, expected ({k},)")
    g = _Geometry("conv2d", (h, wd), (r, s), stride, padding, dilation)
    return groups, g, (n, k) + g.out


def _check_grad_output(routine, gy, expected, what):
    if gy.shape != expected:
        raise ValueError(f"reproblas.{routine}: grad_output has shape {gy.shape}, but a "
                         f"conv2d of {what} and these parameters gives {expected}")


def _grad_input_setup(gy, w, input_shape, stride, padding, dilation, groups):
    """(groups, geometry, grad_input shape) of conv2d_grad_input, checked."""
    n, c, h, wd = _shape(input_shape, "input_shape", "conv2d_grad_input")
    k, cg, r, s = w.shape
    groups = _check_weight(w.shape, c, groups, "conv2d_grad_input")
    g = _Geometry("conv2d_grad_input", (h, wd), (r, s), stride, padding, dilation)
    _check_grad_output("conv2d_grad_input", gy, (n, k) + g.out,
                       f"input_shape {(n, c, h, wd)} with this weight")
    return groups, g, (n, c, h, wd)


def _grad_weight_setup(x, gy, weight_shape, stride, padding, dilation, groups):
    """(groups, geometry, grad_weight shape) of conv2d_grad_weight, checked."""
    n, c, h, wd = x.shape
    k, cg, r, s = _shape(weight_shape, "weight_shape", "conv2d_grad_weight")
    groups = _check_weight((k, cg, r, s), c, groups, "conv2d_grad_weight")
    g = _Geometry("conv2d_grad_weight", (h, wd), (r, s), stride, padding, dilation)
    _check_grad_output("conv2d_grad_weight", gy, (n, k) + g.out,
                       f"this input with weight_shape {(k, cg, r, s)}")
    return groups, g, (k, cg, r, s)


# ---- routines ----

def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, *,
           order="sequential"):
    """2-D convolution (cross-correlation) with PyTorch's ``F.conv2d`` conventions, in a
    fixed order.

    ``y[n, k, p, q]`` is the ordered sum of the terms
    ``x[n, c, p*sh - ph + r*dh, q*sw - pw + s*dw] * w[k, c', r, s]`` over ``(c', r, s)``
    lexicographic (c the channel c' of k's group); terms that fall into the padding are
    absent (not multiplied by zero). With a bias, ``y = S + bias[k]`` (one rounding).

    Parameters
    ----------
    input : numpy.ndarray
        ``(N, C, H, W)``, float32 or float64, any layout.
    weight : numpy.ndarray
        ``(K, C/groups, R, S)`` of input's dtype.
    bias : numpy.ndarray, optional
        ``(K,)`` of input's dtype.
    stride, dilation : int or pair of ints, optional
    padding : int, pair of ints, 'same' or 'valid', optional
        'same' needs stride 1; an odd total padding puts the extra row/column at the
        bottom/right (as PyTorch).
    groups : int, optional
    order : {'sequential', 'pairwise'}, optional
        Summation order (contract §2).

    Returns
    -------
    numpy.ndarray
        ``(N, K, P, Q)``, a new C-ordered array of input's dtype.
    """
    if (dev := _api._backend(input, weight, bias)) is not np:
        return _cuda.api_conv2d(dev, input, weight, bias, stride, padding, dilation, groups,
                                order)
    code, a = _prepare("conv2d", order, {"input": input, "weight": weight, "bias": bias})
    x, w, b = a["input"], a["weight"], a.get("bias")
    groups, g, y_shape = _conv2d_setup(x, w, b, stride, padding, dilation, groups)
    y = np.empty(y_shape, dtype=x.dtype)
    if y.size == 0:
        return y
    shape = _core_shape(x.shape, w.shape, g, groups)
    return _run(_core.CONV2D, code, shape, x, w, b, y)


def conv2d_grad_input(grad_output, weight, input_shape, stride=1, padding=0, dilation=1,
                      groups=1, *, order="sequential"):
    """Gradient of :func:`conv2d` with respect to its input, in a fixed order.

    ``gx[n, c, h, v]`` is the ordered sum of ``grad_y[n, k, p, q] * w[k, c', r, s]`` over
    ``(k, r, s)`` lexicographic (k in c's group), for the taps with
    ``h = p*sh - ph + r*dh`` and ``v = q*sw - pw + s*dw`` at a valid output ``(p, q)``.

    Parameters
    ----------
    grad_output : numpy.ndarray
        ``(N, K, P, Q)``, the gradient of conv2d's output.
    weight : numpy.ndarray
        ``(K, C/groups, R, S)``.
    input_shape : sequence of 4 ints
        ``(N, C, H, W)`` of conv2d's input.
    stride, padding, dilation, groups, order
        As for :func:`conv2d`.

    Returns
    -------
    numpy.ndarray
        ``input_shape``, a new C-ordered array.
    """
    if (dev := _api._backend(grad_output, weight)) is not np:
        return _cuda.api_conv2d_grad_input(dev, grad_output, weight, input_shape, stride,
                                           padding, dilation, groups, order)
    code, a = _prepare("conv2d_grad_input", order, {"grad_output": grad_output,
                                                    "weight": weight})
    gy, w = a["grad_output"], a["weight"]
    groups, g, (n, c, h, wd) = _grad_input_setup(gy, w, input_shape, stride, padding, dilation,
                                                 groups)
    gx = np.empty((n, c, h, wd), dtype=gy.dtype)
    if gx.size == 0:
        return gx
    shape = _core_shape(gx.shape, w.shape, g, groups)
    return _run(_core.CONV2D_GRAD_INPUT, code, shape, gy, w, None, gx)


def conv2d_grad_weight(input, grad_output, weight_shape, stride=1, padding=0, dilation=1,
                       groups=1, *, order="sequential"):
    """Gradient of :func:`conv2d` with respect to its weight, in a fixed order.

    ``gw[k, c', r, s]`` is the ordered sum of ``grad_y[n, k, p, q] * x[n, c, h, v]`` over
    ``(n, p, q)`` lexicographic, for the output positions whose tap ``(r, s)`` reads the
    input (not the padding).

    Parameters
    ----------
    input : numpy.ndarray
        ``(N, C, H, W)``, conv2d's input.
    grad_output : numpy.ndarray
        ``(N, K, P, Q)``.
    weight_shape : sequence of 4 ints
        ``(K, C/groups, R, S)``.
    stride, padding, dilation, groups, order
        As for :func:`conv2d`.

    Returns
    -------
    numpy.ndarray
        ``weight_shape``, a new C-ordered array.
    """
    if (dev := _api._backend(input, grad_output)) is not np:
        return _cuda.api_conv2d_grad_weight(dev, input, grad_output, weight_shape, stride,
                                            padding, dilation, groups, order)
    code, a = _prepare("conv2d_grad_weight", order, {"input": input,
                                                     "grad_output": grad_output})
    x, gy = a["input"], a["grad_output"]
    groups, g, (k, cg, r, s) = _grad_weight_setup(x, gy, weight_shape, stride, padding,
                                                  dilation, groups)
    gw = np.empty((k, cg, r, s), dtype=x.dtype)
    if gw.size == 0:
        return gw
    shape = _core_shape(x.shape, gw.shape, g, groups)
    return _run(_core.CONV2D_GRAD_WEIGHT, code, shape, x, gy, None, gw)


def conv2d_grad_bias(grad_output, *, order="sequential"):
    """Gradient of :func:`conv2d` with respect to its bias, in a fixed order.

    ``gb[k]`` is the ordered sum of ``grad_y[n, k, p, q]`` over ``(n, p, q)``
    lexicographic (plain terms, contract §2).

    Parameters
    ----------
    grad_output : numpy.ndarray
        ``(N, K, P, Q)``.
    order : {'sequential', 'pairwise'}, optional

    Returns
    -------
    numpy.ndarray
        ``(K,)``, a new array.
    """
    if (dev := _api._backend(grad_output)) is not np:
        return _cuda.api_conv2d_grad_bias(dev, grad_output, order)
    code, a = _prepare("conv2d_grad_bias", order, {"grad_output": grad_output})
    gy = a["grad_output"]
    n, k, p, q = gy.shape
    gb = np.empty(k, dtype=gy.dtype)
    if k == 0 or p == 0 or q == 0:  # no positions: every sum is empty, +0
        gb[...] = 0
        return gb
    # as the gradient of a 1x1 convolution of stride 1 whose output is grad_output
    shape = (n, k, p, q, k, 1, 1, p, q, 1, 1, 0, 0, 1, 1, k)
    return _run(_core.CONV2D_GRAD_BIAS, code, shape, gy, None, None, gb)
