"""conv2d and its three gradients (contract §3 "Convolution"), NCHW.

Each routine checks and normalises its arguments once (PyTorch's conventions,
_validate.py) and runs on the backend of its arrays' device (_backend.py); on the
CPU, the C core (src/c/reproblas/conv_driver.c, shared with the C ABI) plans each
routine into gather gemms and runs it.
"""
from . import _backend
from . import _validate as V


def _prepare(routine, order, names, arrays):
    """(backend, order code, checked arrays): shared by the four routines."""
    be = _backend.select(*arrays)
    code = V.order(order, routine)
    ndims = [1 if name == "bias" else 4 for name in names]
    return be, code, V.operands(be, routine, names, arrays, ndims, optional=("bias",))


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
    be, code, (x, w, b) = _prepare("conv2d", order, ("input", "weight", "bias"),
                                   (input, weight, bias))
    groups, g, shape = V.conv2d_setup(x, w, b, stride, padding, dilation, groups)
    return be.conv2d(code, x, w, b, groups, g, shape)


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
    be, code, (gy, w) = _prepare("conv2d_grad_input", order, ("grad_output", "weight"),
                                 (grad_output, weight))
    groups, g, shape = V.grad_input_setup(gy, w, input_shape, stride, padding, dilation, groups)
    return be.conv2d_grad_input(code, gy, w, groups, g, shape)


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
    be, code, (x, gy) = _prepare("conv2d_grad_weight", order, ("input", "grad_output"),
                                 (input, grad_output))
    groups, g, shape = V.grad_weight_setup(x, gy, weight_shape, stride, padding, dilation,
                                           groups)
    return be.conv2d_grad_weight(code, x, gy, groups, g, shape)


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
    be, code, (gy,) = _prepare("conv2d_grad_bias", order, ("grad_output",), (grad_output,))
    return be.conv2d_grad_bias(code, gy)
