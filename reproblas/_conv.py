"""conv2d and its three gradients (contract §3 "Convolution"), NCHW (or CHW unbatched).

Each routine checks and normalises its arguments once (PyTorch's conventions,
_validate.py) and runs on the backend of its arrays' device (_backend.py); on the
CPU, the C core (src/c/reproblas/frame/conv_driver.c, shared with the C ABI) plans each
routine into implicit gemms and runs it.
"""
from . import _backend, _cpu
from . import _validate as V


_LAYOUTS = {"input": "(N, C, H, W)", "grad_output": "(N, K, P, Q)"}


def _prepare(routine, order, names, arrays, out):
    """(backend, order code, checked arrays with the image batch axis, whether the
    call is unbatched, out): shared by the four routines. As PyTorch, an image
    operand (input, grad_output) may be 3-D, one unbatched image: then all of them
    are, and so is the result."""
    be = _backend.select(*arrays, out)
    code = V.order(order, routine)
    ndims = [1 if name == "bias" else 4 if name == "weight" else None for name in names]
    checked = V.operands(be, routine, names, arrays, ndims, optional=("bias",))
    images = {name: a.ndim for name, a in zip(names, checked) if name in _LAYOUTS}
    for name, nd in images.items():
        if nd not in (3, 4):
            layout = _LAYOUTS[name]
            raise ValueError(f"reproblas.{routine}: {name} must be 4-D {layout} or 3-D "
                             f"({layout[4:]} for one unbatched image, got "
                             f"{nd}-D shape {checked[names.index(name)].shape}")
    if len(set(images.values())) > 1:
        raise ValueError(f"reproblas.{routine}: " + " but ".join(
            f"{name} is {nd}-D" for name, nd in images.items()) + "; pass all of them "
            "batched (4-D) or all unbatched (3-D, one image)")
    unbatched = 3 in images.values()
    if unbatched:
        checked = [a[None] if name in _LAYOUTS else a for name, a in zip(names, checked)]
    return be, code, checked, unbatched, V.out_operand(be, out, routine)


def _direct(be, out, unbatched, *inputs):
    """out (batched) for the CPU core to write as it is, or None (then a new array)."""
    if out is None or be is not _backend.CPU:
        return None
    view = out[None] if unbatched else out
    return view if _cpu.direct_out(view, *inputs, contiguous=True) else None


def _finish(be, routine, result, unbatched, out, caller_out):
    """The result (without its batch axis when unbatched), or out holding it."""
    return V.deliver(out, caller_out, result[0] if unbatched else result, routine, be.xp)


def _check_out(be, routine, out, shape, dtype, unbatched):
    """out checked before the work (the result's shape is known)."""
    if out is not None:
        V.output(out, shape[1:] if unbatched else shape, dtype, routine, be.xp)


def _shape_arg(value, name, routine, unbatched):
    """input_shape / weight_shape; a 3-int input_shape of an unbatched call gets N = 1."""
    if unbatched and name == "input_shape":
        try:
            value = tuple(value)
        except TypeError:
            raise TypeError(f"reproblas.{routine}: {name} must be a sequence of ints") from None
        if len(value) != 3:
            raise ValueError(f"reproblas.{routine}: grad_output is 3-D (one unbatched image), "
                             f"so input_shape must be 3 ints (C, H, W), got {value!r}")
        return (1,) + value
    return value


# ---- routines ----

def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, *,
           order="sequential", out=None):
    """2-D convolution (cross-correlation) with PyTorch's ``F.conv2d`` conventions, in a
    fixed order.

    ``y[n, k, p, q]`` is the ordered sum of the terms
    ``x[n, c, p*sh - ph + r*dh, q*sw - pw + s*dw] * w[k, c', r, s]`` over ``(c', r, s)``
    lexicographic (c the channel c' of k's group); terms that fall into the padding are
    absent (not multiplied by zero). With a bias, ``y = S + bias[k]`` (one rounding).

    Parameters
    ----------
    input : numpy.ndarray
        ``(N, C, H, W)``, float32 or float64, any layout; or ``(C, H, W)``, one
        unbatched image (as PyTorch), giving an unbatched ``(K, P, Q)`` result.
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

    out : numpy.ndarray, optional
        Array of the result's exact shape and dtype (any layout) to write it into,
        NumPy's ``out=``; it may share memory with the inputs. It is returned.

    Returns
    -------
    numpy.ndarray
        ``(N, K, P, Q)``, a new C-ordered array of input's dtype.
    """
    caller_out = out
    be, code, (x, w, b), unbatched, out = _prepare(
        "conv2d", order, ("input", "weight", "bias"), (input, weight, bias), out)
    groups, g, shape = V.conv2d_setup(x, w, b, stride, padding, dilation, groups)
    _check_out(be, "conv2d", out, shape, x.dtype, unbatched)
    direct = _direct(be, out, unbatched, x, w, b)
    if direct is not None:
        be.conv2d(code, x, w, b, groups, g, shape, out=direct)
        return caller_out
    y = be.conv2d(code, x, w, b, groups, g, shape)
    return _finish(be, "conv2d", y, unbatched, out, caller_out)


def conv2d_grad_input(grad_output, weight, input_shape, stride=1, padding=0, dilation=1,
                      groups=1, *, order="sequential", out=None):
    """Gradient of :func:`conv2d` with respect to its input, in a fixed order.

    ``gx[n, c, h, v]`` is the ordered sum of ``grad_y[n, k, p, q] * w[k, c', r, s]`` over
    ``(k, r, s)`` lexicographic (k in c's group), for the taps with
    ``h = p*sh - ph + r*dh`` and ``v = q*sw - pw + s*dw`` at a valid output ``(p, q)``.

    Parameters
    ----------
    grad_output : numpy.ndarray
        ``(N, K, P, Q)``, the gradient of conv2d's output; ``(K, P, Q)`` for an
        unbatched image (then input_shape is ``(C, H, W)`` and so is the result).
    weight : numpy.ndarray
        ``(K, C/groups, R, S)``.
    input_shape : sequence of 4 ints
        ``(N, C, H, W)`` of conv2d's input (3 ints ``(C, H, W)`` when unbatched).
    stride, padding, dilation, groups, order
        As for :func:`conv2d`.

    out : numpy.ndarray, optional
        Array of the result's exact shape and dtype (any layout) to write it into,
        NumPy's ``out=``; it may share memory with the inputs. It is returned.

    Returns
    -------
    numpy.ndarray
        ``input_shape``, a new C-ordered array.
    """
    caller_out, routine = out, "conv2d_grad_input"
    be, code, (gy, w), unbatched, out = _prepare(
        routine, order, ("grad_output", "weight"), (grad_output, weight), out)
    input_shape = _shape_arg(input_shape, "input_shape", routine, unbatched)
    groups, g, shape = V.grad_input_setup(gy, w, input_shape, stride, padding, dilation, groups)
    _check_out(be, routine, out, shape, gy.dtype, unbatched)
    direct = _direct(be, out, unbatched, gy, w)
    if direct is not None:
        be.conv2d_grad_input(code, gy, w, groups, g, shape, out=direct)
        return caller_out
    gx = be.conv2d_grad_input(code, gy, w, groups, g, shape)
    return _finish(be, routine, gx, unbatched, out, caller_out)


def conv2d_grad_weight(input, grad_output, weight_shape, stride=1, padding=0, dilation=1,
                       groups=1, *, order="sequential", out=None):
    """Gradient of :func:`conv2d` with respect to its weight, in a fixed order.

    ``gw[k, c', r, s]`` is the ordered sum of ``grad_y[n, k, p, q] * x[n, c, h, v]`` over
    ``(n, p, q)`` lexicographic, for the output positions whose tap ``(r, s)`` reads the
    input (not the padding).

    Parameters
    ----------
    input : numpy.ndarray
        ``(N, C, H, W)``, conv2d's input.
    grad_output : numpy.ndarray
        ``(N, K, P, Q)``. Both may be unbatched, ``(C, H, W)`` and ``(K, P, Q)``.
    weight_shape : sequence of 4 ints
        ``(K, C/groups, R, S)``.
    stride, padding, dilation, groups, order
        As for :func:`conv2d`.

    out : numpy.ndarray, optional
        Array of the result's exact shape and dtype (any layout) to write it into,
        NumPy's ``out=``; it may share memory with the inputs. It is returned.

    Returns
    -------
    numpy.ndarray
        ``weight_shape``, a new C-ordered array.
    """
    caller_out, routine = out, "conv2d_grad_weight"
    be, code, (x, gy), unbatched, out = _prepare(
        routine, order, ("input", "grad_output"), (input, grad_output), out)
    groups, g, shape = V.grad_weight_setup(x, gy, weight_shape, stride, padding, dilation,
                                           groups)
    if out is not None:
        V.output(out, shape, x.dtype, routine, be.xp)
    direct = _direct(be, out, False, x, gy)
    if direct is not None:
        be.conv2d_grad_weight(code, x, gy, groups, g, shape, out=direct)
        return caller_out
    gw = be.conv2d_grad_weight(code, x, gy, groups, g, shape)
    return _finish(be, routine, gw, False, out, caller_out)


def conv2d_grad_bias(grad_output, *, order="sequential", out=None):
    """Gradient of :func:`conv2d` with respect to its bias, in a fixed order.

    ``gb[k]`` is the ordered sum of ``grad_y[n, k, p, q]`` over ``(n, p, q)``
    lexicographic (plain terms, contract §2).

    Parameters
    ----------
    grad_output : numpy.ndarray
        ``(N, K, P, Q)``, or ``(K, P, Q)`` unbatched.
    order : {'sequential', 'pairwise'}, optional

    out : numpy.ndarray, optional
        Array of the result's exact shape and dtype (any layout) to write it into,
        NumPy's ``out=``; it may share memory with the inputs. It is returned.

    Returns
    -------
    numpy.ndarray
        ``(K,)``, a new array.
    """
    caller_out = out
    be, code, (gy,), _, out = _prepare("conv2d_grad_bias", order, ("grad_output",),
                                       (grad_output,), out)
    if out is not None:
        V.output(out, (gy.shape[1],), gy.dtype, "conv2d_grad_bias", be.xp)
    direct = _direct(be, out, False, gy)
    if direct is not None:
        be.conv2d_grad_bias(code, gy, out=direct)
        return caller_out
    gb = be.conv2d_grad_bias(code, gy)
    return _finish(be, "conv2d_grad_bias", gb, False, out, caller_out)
