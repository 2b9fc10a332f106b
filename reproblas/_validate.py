"""Argument checks of every public routine, for both backends.

The public routines (_level1.py, _level23.py, _solve.py, _conv.py) run these once,
on the arrays of either backend (``xp``: NumPy or CuPy), before calling the
backend (_backend.py), which trusts what it receives: dtypes, dimensions,
shapes, flags, the order and the scalars. Every message names the routine.
"""
import math

import numpy as np
from repro_runtime.util import short_repr

from . import _core, _fp

ORDERS = {"sequential": _core.SEQUENTIAL, "pairwise": _core.PAIRWISE}
LOWER, UPPER = 1, 2  # src/c/reproblas/terms.h's rb_uplo: the triangle of C a product writes
FLOAT_TYPES = (np.dtype(np.float32), np.dtype(np.float64))
_F32_MAX = float(np.finfo(np.float32).max)
MAX_DIM = 2 ** 30  # RB_CONV_MAX_DIM of conv.h


# ---- options ----

# The orders of docs/contract.md §5.4-§5.5 and the routines that implement them; every
# other routine refuses them with the list of its own orders.
EXTRA_ORDERS = {
    "kahan": (_core.KAHAN, frozenset({"sum", "asum", "dot", "nrm2", "gemv", "gemm", "cumsum",
                                      "scan_by_key", "segment_sum", "reduce_by_key"})),
    "exact": (_core.EXACT, frozenset({"sum", "asum", "dot", "gemv", "gemm", "cumsum", "cumprod",
                                      "scan_by_key", "segment_sum", "reduce_by_key"})),
}


def orders_of(routine):
    """The order names `routine` accepts."""
    return list(ORDERS) + [name for name, (_, routines) in EXTRA_ORDERS.items()
                           if routine in routines]


def order(value, routine):
    """The core's code of a summation order (contract §2, §5.4-§5.5), its name in any
    case ('Pairwise'); an order the routine does not implement is a ValueError."""
    name = value.lower() if isinstance(value, str) else None
    code = ORDERS.get(name)
    if code is None:
        code, routines = EXTRA_ORDERS.get(name, (None, ()))
        if routine not in routines:
            names = orders_of(routine)
            listed = ", ".join(repr(n) for n in names[:-1]) + f" or {names[-1]!r}"
            raise ValueError(f"reproblas.{routine}: order={value!r}: use {listed}")
    return code


def flag(value, name, routine):
    """A bool option: True/False, or scipy's 0/1 integers (for trans, 2 = conjugate transpose,
    the transpose of real data). Anything else, e.g. a BLAS letter 'N' (truthy), is refused."""
    if value is True or value is False:
        return value
    if isinstance(value, np.bool_) or (isinstance(value, (int, np.integer)) and
                                       0 <= value <= (2 if "trans" in name else 1)):
        return bool(value)
    raise TypeError(f"reproblas.{routine}: {name} must be True or False, got {value!r}")


_SIDES = {"left": 0, "l": 0, 0: 0, "right": 1, "r": 1, 1: 1}


def side(value):
    """trsm's side: 0 (left) or 1 (right)."""
    # only a str or a true int names a side (not 1.0, True, a list or an array)
    key = None
    if isinstance(value, str):
        key = value.lower()
    elif isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        key = int(value)
    if key not in _SIDES:
        raise ValueError(f"reproblas.trsm: side={value!r}: use 'left' (or 0: op(a) @ x = "
                         f"alpha*b) or 'right' (or 1: x @ op(a) = alpha*b)")
    return _SIDES[key]


# ---- arrays ----

def float_array(x, name, routine):
    """TypeError unless x (an array) is unmasked, of native float32 or float64."""
    if isinstance(x, np.ma.MaskedArray):  # its mask would be ignored: refuse, never guess
        raise TypeError(f"reproblas.{routine}: {name} is a masked array, whose mask reproblas "
                        f"would ignore; pass {name}.filled(v), v the value masked entries take")
    if x.dtype in FLOAT_TYPES:
        return
    if x.dtype.kind == "f" and x.dtype.newbyteorder("=") in FLOAT_TYPES:
        raise TypeError(f"reproblas.{routine}: {name} has non-native byte order ({x.dtype.str}); "
                        f"convert it with {name}.astype({name}.dtype.newbyteorder('='))")
    raise TypeError(f"reproblas.{routine}: {name} has dtype {x.dtype}; reproblas computes "
                    f"in float32 or float64 only: convert it explicitly, e.g. "
                    f"{name}.astype(np.float64)")


def matrix(a, name, routine, ndim=2, xp=np):
    """a itself, checked: an xp array of float32/float64 with ndim dimensions (None: any)."""
    if not isinstance(a, xp.ndarray):
        raise TypeError(f"reproblas.{routine}: {name} must be a NumPy array of float32 or "
                        f"float64, got {type(a).__name__} (use np.asarray({name}, "
                        f"dtype=np.float64))")
    float_array(a, name, routine)
    if ndim is not None and a.ndim != ndim:
        raise ValueError(f"reproblas.{routine}: {name} must be {ndim}-D, got shape {a.shape}")
    return a


def vector(x, name, routine, ndim=1, xp=np):
    """x itself, checked: a 1-D xp array of float32/float64 (level 1)."""
    matrix(x, name, routine, None, xp)
    if x.ndim != 1:
        raise ValueError(f"reproblas.{routine}: {name} must be 1-D, got shape {x.shape} "
                         f"(use {name}.ravel() for a flattened view; the reductions also take "
                         f"axis=)")
    return x


def sequence(x, name, routine):
    """A Python list or tuple as np.asarray makes it, when that is float32/float64
    (a list of Python floats is float64); any other dtype (ints give int64) is the
    TypeError an array of that dtype gets: reproblas never picks a dtype for the caller."""
    try:
        a = np.asarray(x)
    except ValueError as e:  # ragged
        raise ValueError(f"reproblas.{routine}: {name} is a sequence NumPy cannot make an "
                         f"array of ({e})") from None
    if a.dtype not in FLOAT_TYPES:
        raise TypeError(f"reproblas.{routine}: {name} is a {type(x).__name__} that NumPy "
                        f"converts to {a.dtype}; reproblas computes in float32 or float64 "
                        f"only: write its numbers as floats, or pass a NumPy array: "
                        f"np.asarray({name}, dtype=np.float64)")
    return a


def output(out, shape, dtype, routine, xp=np):
    """out checked as the destination of a result of this shape and dtype (NumPy's
    rules for out=: exactly that shape and dtype, writeable, any strides)."""
    if not isinstance(out, xp.ndarray):
        raise TypeError(f"reproblas.{routine}: out must be a {xp.__name__} array, got "
                        f"{type(out).__name__}")
    if out.dtype != dtype:
        raise TypeError(f"reproblas.{routine}: out has dtype {out.dtype} but the result is "
                        f"{dtype}; reproblas never casts silently: pass an out of dtype "
                        f"{dtype}")
    if tuple(out.shape) != tuple(shape):
        raise ValueError(f"reproblas.{routine}: out has shape {tuple(out.shape)} but the "
                         f"result has shape {tuple(shape)}")
    if not getattr(out.flags, "writeable", True):
        raise ValueError(f"reproblas.{routine}: out is read-only")
    return out


def out_operand(be, out, routine):
    """out as the backend's array (not converted from a list: it must be written into)."""
    if out is None:
        return None
    if isinstance(out, (list, tuple)):
        raise TypeError(f"reproblas.{routine}: out must be an array to write into, got "
                        f"{type(out).__name__}")
    return be.as_array(out, "out", routine)


def deliver(out, caller_out, result, routine, xp=np):
    """result itself without out; else result written into out (checked), and the
    caller's out returned. result is a fresh array, so an out that shares memory with
    an input gets the result of the old values."""
    if out is None:
        return result
    output(out, result.shape, result.dtype, routine, xp)
    out[...] = result
    return caller_out


def axes(axis, ndim, routine):
    """axis (None, an int or a tuple of ints, negative from the end) as a sorted tuple."""
    if axis is None:
        return tuple(range(ndim))
    items = axis if isinstance(axis, tuple) else (axis,)
    result = []
    for a in items:
        if isinstance(a, bool) or not isinstance(a, (int, np.integer)):
            raise TypeError(f"reproblas.{routine}: axis must be None, an int or a tuple of "
                            f"ints, got {axis!r}")
        if not -ndim <= a < ndim:
            raise np.exceptions.AxisError(f"reproblas.{routine}: axis {a} is out of bounds "
                                          f"for an array of dimension {ndim}")
        result.append(int(a) % ndim)
    if len(set(result)) != len(result):
        raise ValueError(f"reproblas.{routine}: axis={axis!r} repeats an axis")
    return tuple(sorted(result))


def same_dtype(routine, **arrays):
    first, *rest = arrays.values()
    if all(a.dtype == first.dtype for a in rest):
        return
    dtypes = {name: a.dtype for name, a in arrays.items()}
    if len(set(dtypes.values())) > 1:
        desc = ", ".join(f"{k} is {v}" for k, v in dtypes.items())
        raise TypeError(f"reproblas.{routine}: mixed dtypes ({desc}); reproblas never casts "
                        f"silently: convert one of them with .astype()")


def same_device(routine, arrays):
    """ValueError if GPU operands are on different GPUs (host arrays have no device id)."""
    devices = {getattr(getattr(a, "device", None), "id", None) for a in arrays} - {None}
    if len(devices) > 1:
        raise ValueError(f"reproblas.{routine}: the operands are on different GPUs "
                         f"{sorted(devices)}; copy them to one device first")


def operands(backend, routine, names, arrays, ndims, optional=(), check=matrix):
    """The arrays as the backend's (``backend.as_array``), checked by ``check`` with
    their ndims; one dtype, one device. None stays None for the names in `optional`
    (absent operands) and is a TypeError for the others."""
    xp, out = backend.xp, []
    for name, a, nd in zip(names, arrays, ndims):
        if a is None:
            if name in optional:
                out.append(None)
                continue
            matrix(a, name, routine)  # raises the TypeError naming NoneType
        out.append(check(backend.as_array(a, name, routine), name, routine, nd, xp))
    present = [a for a in out if a is not None]
    if len(present) > 1:
        dtype = present[0].dtype
        if any(a.dtype != dtype for a in present):
            _sequence_dtype(routine, names, arrays, out)
            same_dtype(routine, **{n: a for n, a in zip(names, out) if a is not None})
        if xp is not np:
            same_device(routine, present)
    return out


def _sequence_dtype(routine, names, given, arrays):
    """The TypeError of a list/tuple whose float64 meets float32 arrays: name the fix."""
    for name, g, a in zip(names, given, arrays):
        if isinstance(g, (list, tuple)):
            other = next(b.dtype for b in arrays if b is not None and b.dtype != a.dtype)
            raise TypeError(f"reproblas.{routine}: {name} is a {type(g).__name__}, which "
                            f"NumPy makes a {a.dtype} array, but the other operands are "
                            f"{other}; pass a NumPy array: np.asarray({name}, "
                            f"dtype=np.{other.name})")


def same_length(routine, x, y):
    if x.shape[0] != y.shape[0]:
        raise ValueError(f"reproblas.{routine}: x has {x.shape[0]} elements but y has "
                         f"{y.shape[0]}")


def writeable(a, name, routine, overwrite):
    """ValueError if a read-only a would be updated in place (CuPy arrays always may)."""
    if getattr(a.flags, "writeable", True):
        return
    if overwrite:
        raise ValueError(f"reproblas.{routine}: {name} is read-only but overwrite_{name}"
                         f"=True asks to update it in place")
    raise ValueError(f"reproblas.{routine}: {name} is read-only; it is updated in place")


def square(a, routine, size, what):
    if a.shape != (size, size):
        raise ValueError(f"reproblas.{routine}: a has shape {a.shape} but must be square "
                         f"{size}x{size} ({what})")


# ---- scalars ----

def scalar(alpha, dtype, routine, name="alpha"):
    """alpha as a 1-element NumPy array of dtype. Python int/float follow NumPy's rule
    for Python scalars (NEP 50): rounded to the array dtype; NumPy scalars
    must already have that dtype."""
    if type(alpha) is float and (dtype is FLOAT_TYPES[1] or not abs(alpha) > _F32_MAX):
        return _core.scalar_array(alpha, dtype)  # the common case first: cannot overflow
    if isinstance(alpha, (np.generic, np.ndarray)):
        a = np.asarray(alpha)
        if a.ndim != 0:
            raise ValueError(f"reproblas.{routine}: {name} must be a scalar, got shape {a.shape}")
        if a.dtype != dtype:
            raise TypeError(f"reproblas.{routine}: {name} has dtype {a.dtype} but the arrays "
                            f"are {dtype}; pass np.{dtype.name}({name}) or a Python float")
        return a.reshape(1).copy()
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)):
        raise TypeError(f"reproblas.{routine}: {name} must be a Python float/int or a NumPy "
                        f"{dtype} scalar, got {type(alpha).__name__}")
    # float() rounds an int by integer arithmetic and scalar_array rounds to float32 in
    # the library's FP environment: no mode of the caller applies (docs/contract.md §0)
    try:
        a = _core.scalar_array(float(alpha), dtype)
        if not (np.isinf(a[0]) and math.isfinite(alpha)):
            return a
    except OverflowError:  # an int beyond the double range
        pass
    raise OverflowError(f"reproblas.{routine}: {name}={short_repr(alpha)} overflows {dtype}")


def reads_old(beta):
    """Whether beta (a 1-element array) is not +-0: then the old output is read. Read
    from the bits: under DAZ a subnormal beta compares equal to 0."""
    return not _fp.zero_bits(beta[0])


# ---- shapes ----

def matmul_shapes(a, b):
    """NumPy's matmul rules: (a, b promoted to at least 2-D, batch shape, (m, k, n))."""
    for name, v in (("a", a), ("b", b)):
        if v.ndim == 0:
            raise ValueError(f"reproblas.matmul: {name} is 0-d; matmul needs arrays of at "
                             f"least 1 dimension (use * for scalars)")
    a2 = a[None, :] if a.ndim == 1 else a
    b2 = b[:, None] if b.ndim == 1 else b
    m, k = a2.shape[-2:]
    k2, n = b2.shape[-2:]
    if k != k2:
        raise ValueError(f"reproblas.matmul: contracted dimensions differ: a has {k} columns "
                         f"(shape {a.shape}) but b has {k2} rows (shape {b.shape})")
    try:
        batch = np.broadcast_shapes(a2.shape[:-2], b2.shape[:-2])
    except ValueError:
        raise ValueError(f"reproblas.matmul: batch dimensions of shapes {a.shape} and "
                         f"{b.shape} do not broadcast") from None
    return a2, b2, batch, (m, k, n)


def matmul_unpromote(out, a, b):
    """Drops the dimensions matmul_shapes added for 1-D operands."""
    if a.ndim == 1:
        out = out[..., 0, :]
    if b.ndim == 1:
        out = out[..., 0]
    return out


# ---- convolutions (PyTorch's conventions) ----

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


class Geometry:
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
        # before any allocation
        if max(self.stride + self.dilation + self.pad + self.out) > MAX_DIM:
            raise ValueError(f"reproblas.{routine}: strides, paddings, dilations and output sizes "
                             f"must be at most 2**30, got stride {self.stride}, padding "
                             f"{self.pad}, dilation {self.dilation}, output {self.out}")

    def axis(self, a):
        """The hashable description of axis a: (input, kernel, stride, pad, dilation, output)."""
        return (self.in_hw[a], self.k_hw[a], self.stride[a], self.pad[a], self.dilation[a],
                self.out[a])


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


def conv2d_setup(x, w, b, stride, padding, dilation, groups):
    """(groups, geometry, output shape) of conv2d, checked."""
    n, c, h, wd = x.shape
    k, cg, r, s = w.shape
    groups = _check_weight(w.shape, c, groups, "conv2d")
    if b is not None and b.shape != (k,):
        raise ValueError(f"reproblas.conv2d: bias has shape {b.shape}, expected ({k},)")
    g = Geometry("conv2d", (h, wd), (r, s), stride, padding, dilation)
    return groups, g, (n, k) + g.out


def _check_grad_output(routine, gy, expected, what):
    if gy.shape != expected:
        raise ValueError(f"reproblas.{routine}: grad_output has shape {gy.shape}, but a "
                         f"conv2d of {what} and these parameters gives {expected}")


def grad_input_setup(gy, w, input_shape, stride, padding, dilation, groups):
    """(groups, geometry, grad_input shape) of conv2d_grad_input, checked."""
    n, c, h, wd = _shape(input_shape, "input_shape", "conv2d_grad_input")
    k, cg, r, s = w.shape
    groups = _check_weight(w.shape, c, groups, "conv2d_grad_input")
    g = Geometry("conv2d_grad_input", (h, wd), (r, s), stride, padding, dilation)
    _check_grad_output("conv2d_grad_input", gy, (n, k) + g.out,
                       f"input_shape {(n, c, h, wd)} with this weight")
    return groups, g, (n, c, h, wd)


def grad_weight_setup(x, gy, weight_shape, stride, padding, dilation, groups):
    """(groups, geometry, grad_weight shape) of conv2d_grad_weight, checked."""
    n, c, h, wd = x.shape
    k, cg, r, s = _shape(weight_shape, "weight_shape", "conv2d_grad_weight")
    groups = _check_weight((k, cg, r, s), c, groups, "conv2d_grad_weight")
    g = Geometry("conv2d_grad_weight", (h, wd), (r, s), stride, padding, dilation)
    _check_grad_output("conv2d_grad_weight", gy, (n, k) + g.out,
                       f"this input with weight_shape {(k, cg, r, s)}")
    return groups, g, (k, cg, r, s)
