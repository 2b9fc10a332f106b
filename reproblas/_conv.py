"""conv2d and its three gradients (SPEC §3 "Convolution"), NCHW, NumPy arrays.

Every routine is reduced to the C core's gather gemm (src/c/reproblas/conv.h):
dst[doff[j] + i*drow] = the ordered sum over t of A(i, t) * src[toff[t] + coff[j]].

Padding positions are absent terms, not zeros, so outputs whose windows are
cut by the border cannot share one im2col matrix with the others. Along each
spatial axis the output positions are grouped into *classes* with the same
set of present kernel taps (for a 3x3 kernel with padding 1: first row,
interior rows, last row); each pair of a row class and a column class is one
gather gemm whose term list holds exactly the present terms, in SPEC's
order. Within a class the source index separates as base[position] +
delta[tap], which is what makes the offsets toff[t] + coff[j].
"""
import functools

import numpy as np

from . import _api, _core, _cuda
from ._level23 import _matrix, _run_gemm


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

    def axis(self, a):
        """The hashable description of axis a: (input, kernel, stride, pad, dilation, output)."""
        return (self.in_hw[a], self.k_hw[a], self.stride[a], self.pad[a], self.dilation[a],
                self.out[a])


def _source_index(axis):
    """(output position p, tap r) -> input index p*stride - pad + r*dilation, and whether
    it lies in the input (not in the padding)."""
    size, k, stride, pad, dil, out = axis
    idx = np.arange(out)[:, None] * stride - pad + np.arange(k)[None, :] * dil
    return idx, (idx >= 0) & (idx < size)


def _output_index(axis):
    """(input index h, tap r) -> the output position p with h = p*stride - pad +
    r*dilation, and whether such a p exists (the transposed convolution)."""
    size, k, stride, pad, dil, out = axis
    num = np.arange(size)[:, None] + pad - np.arange(k)[None, :] * dil
    p = num // stride
    return p, (num % stride == 0) & (p >= 0) & (p < out)


def _classes(idx, valid):
    """Groups the positions (rows of idx) by their set of present taps.

    Returns [(positions, taps, base, delta)]: for every position i and tap r of
    the class, idx[i, r] = base[i] + delta[r] (exactly: both index maps are affine
    in the position and the tap over a class)."""
    if valid.shape[0] == 0:
        return []
    keys, inverse = np.unique(valid, axis=0, return_inverse=True)
    out = []
    for c, key in enumerate(keys):
        pos = np.nonzero(inverse.ravel() == c)[0]
        taps = np.nonzero(key)[0]
        if taps.size:
            base = idx[pos, taps[0]]
            delta = idx[pos[0], taps] - idx[pos[0], taps[0]]
            assert np.array_equal(idx[np.ix_(pos, taps)], base[:, None] + delta[None, :])
        else:
            base, delta = np.zeros(pos.size, np.int64), taps
        out.append((pos, taps, base.astype(np.int64), delta.astype(np.int64)))
    return out


def _outer(*parts):
    """Flattened sum of broadcast 1-D offset arrays, first one outermost."""
    total = np.zeros((), np.int64)
    for axis, p in enumerate(parts):
        shape = [1] * len(parts)
        shape[axis] = -1
        total = total + np.asarray(p, np.int64).reshape(shape)
    return np.ascontiguousarray(total.reshape(-1), dtype=np.int64)


def _prepare(routine, order, arrays, ndim=4):
    """Backend, order code and dtype checks shared by the four routines."""
    _api._backend(*arrays.values())
    code = _api._order(order)
    checked = {name: _matrix(v, name, routine, ndim=1 if name == "bias" else ndim)
               for name, v in arrays.items() if v is not None}
    _api._same_dtype(routine, **checked)
    return code, {k: _api._contiguous(v) for k, v in checked.items()}


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
        shape = tuple(int(v) for v in value)
    except TypeError:
        raise TypeError(f"reproblas.{routine}: {name} must be a sequence of 4 ints") from None
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


@functools.lru_cache(maxsize=16)
def _plan(transposed, n, src_chw, dst_chw, src_cg, rows, axes):
    """The gather gemms of one group (group 0's channels) of a convolution
    (transposed=False: conv2d, src = x, dst = y) or of its input gradient
    (transposed=True: src = grad_y, dst = grad_x), as [(aoff, toff, coff, doff)],
    one per pair of classes; aoff addresses the weights laid out as
    (src channel, r, s, dst channel). Cached: a network calls the same geometries
    again and again."""
    index = _output_index if transposed else _source_index
    (sc, sh, sw), (dc, dh, dw) = src_chw, dst_chw
    kr, ks = axes[0][1], axes[1][1]
    plan = []
    for ps, rs, pbase, rdelta in _classes(*index(axes[0])):
        for qs, ss, qbase, sdelta in _classes(*index(axes[1])):
            arrays = (_outer(np.arange(src_cg) * (kr * ks * rows), rs * (ks * rows), ss * rows),
                      _outer(np.arange(src_cg) * (sh * sw), rdelta * sw, sdelta),
                      _outer(np.arange(n) * (sc * sh * sw), pbase * sw, qbase),
                      _outer(np.arange(n) * (dc * dh * dw), ps * dw, qs))
            for a in arrays:
                a.flags.writeable = False
            plan.append(arrays)
    return plan


def _gather_convolution(code, w_terms, src, dst, plan, bias, isa, threads):
    """Runs a plan for every group. w_terms: per group, the weights as a contiguous
    (src channel, r, s, dst channel) array; src, dst: contiguous NCHW arrays."""
    groups = len(w_terms)
    src_flat, dst_flat = src.reshape(-1), dst.reshape(-1)
    src_step, dst_step = src[0].size // groups, dst[0].size // groups
    rows = dst.shape[1] // groups
    for gi, wt in enumerate(w_terms):
        # the group's channels: the same offsets from its first channel
        s_g, d_g = src_flat[gi * src_step:], dst_flat[gi * dst_step:]
        b_g = None if bias is None else bias[gi * rows:(gi + 1) * rows]
        for aoff, toff, coff, doff in plan:
            _core.gather_gemm(code, rows, wt, aoff, s_g, toff, coff, d_g, doff,
                              dst.shape[2] * dst.shape[3], b_g, isa, threads)


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
    groups, g, shape = _conv2d_setup(x, w, b, stride, padding, dilation, groups)
    n, c, h, wd = x.shape
    k, cg, r, s = w.shape
    p, q = g.out
    y = np.empty(shape, dtype=x.dtype)
    if y.size == 0:
        return y
    kg = k // groups
    plan = _plan(False, n, (c, h, wd), (k, p, q), cg, kg, (g.axis(0), g.axis(1)))
    # A(k, (c', r, s)) as (c', r, s, k): a class's taps are then a block of it
    w_terms = [_core.transpose_last2(w[gi * kg:(gi + 1) * kg].reshape(1, kg, -1))
               for gi in range(groups)]
    _gather_convolution(code, w_terms, x, y, plan, b, _api._isa(), _api._threads())
    return y


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
    k, cg, r, s = w.shape
    p, q = g.out
    gx = np.empty((n, c, h, wd), dtype=gy.dtype)
    if gx.size == 0:
        return gx
    kg = k // groups
    plan = _plan(True, n, (k, p, q), (c, h, wd), kg, cg, (g.axis(0), g.axis(1)))
    # A(c', (k, r, s)) as (k, r, s, c')
    w_terms = [_core.transpose_last2(w[gi * kg:(gi + 1) * kg].reshape(kg, cg, r * s))
               for gi in range(groups)]
    _gather_convolution(code, w_terms, gy, gx, plan, None, _api._isa(), _api._threads())
    return gx


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
    kg = k // groups
    isa, threads = _api._isa(), _api._threads()
    (hidx, hok), (vidx, vok) = _source_index(g.axis(0)), _source_index(g.axis(1))
    # channels outermost, so that a tap's terms (n, p, q) are the rows of a matrix
    gyk = np.ascontiguousarray(gy.transpose(1, 0, 2, 3))
    xc = np.ascontiguousarray(x.transpose(1, 0, 2, 3))
    one, zero = np.ones(1, x.dtype), np.zeros(1, x.dtype)
    out = np.empty((kg, cg), dtype=x.dtype)
    for ri in range(r):
        ps = np.nonzero(hok[:, ri])[0]
        for si in range(s):
            qs = np.nonzero(vok[:, si])[0]
            # valid outputs of a tap are a range; the inputs they read a strided range
            prange, qrange = _span(ps), _span(qs)
            hrange = _span(hidx[ps, ri], g.stride[0])
            vrange = _span(vidx[qs, si], g.stride[1])
            for gi in range(groups):
                a = gyk[gi * kg:(gi + 1) * kg, :, prange, qrange].reshape(kg, -1)
                b = xc[gi * cg:(gi + 1) * cg, :, hrange, vrange].reshape(cg, -1)
                _run_gemm(code, one, a, False, b, True, zero, out, isa, threads)
                gw[gi * kg:(gi + 1) * kg, :, ri, si] = out
    return gw


def _span(idx, step=1):
    """The slice of a sorted, evenly spaced index array (empty: an empty slice)."""
    if idx.size == 0:
        return slice(0, 0)
    return slice(int(idx[0]), int(idx[-1]) + 1, step)


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
    if k == 0:
        return gb
    # the terms g*1: g ⊗ 1 = g and fma(g, 1, S) = S ⊕ g, so a gemv with a vector of
    # ones adds the plain terms in order
    a = np.ascontiguousarray(gy.transpose(1, 0, 2, 3)).reshape(k, -1)
    ones = np.ones((a.shape[1], 1), dtype=gy.dtype)
    _run_gemm(code, np.ones(1, gy.dtype), a, False, ones, False, np.zeros(1, gy.dtype), gb[:, None],
              _api._isa(), _api._threads())
    return gb
