"""Public level-1 routines: argument checks, then the C core (NumPy arrays).

Every routine looks at its array arguments first (`_backend`): that is the
single place where GPU arrays are routed to the CUDA implementation (_cuda.py).
"""
import math

import numpy as np
from crlibm_py._common import isa_from_code, short_repr

from crlibm_py import _cuda as _cuda_arrays

from . import _core, _cuda

ORDERS = {"sequential": _core.SEQUENTIAL, "pairwise": _core.PAIRWISE}
_FLOAT_TYPES = (np.dtype(np.float32), np.dtype(np.float64))
_F32_MAX = float(np.finfo(np.float32).max)
_INT_MAX = 2 ** 31 - 1


# ---- environment knobs (SPEC §4), read at every call ----

_isa_codes = {}  # REPROBLAS_ISA value -> path code (the CPU does not change)


def _isa():
    name = _core.env(b"REPROBLAS_ISA")
    code = _isa_codes.get(name)
    if code is None:
        code = _isa_codes.setdefault(name, _core.isa_code(name))
    if code < 0:
        isa_from_code("REPROBLAS_ISA", name, code, _core.isa_names(), _core.best_isa())
    return code


def _threads():
    n = _core.threads()  # the C ABI's parser
    if n < 0:
        value = _core.env(b"REPROBLAS_NUM_THREADS").strip(" \t\n\v\f\r")  # C's isspace
        raise ValueError(f"REPROBLAS_NUM_THREADS={value!r} must be a positive integer "
                         f"(at most {_INT_MAX})")
    return n


def _order(order):
    try:
        return ORDERS[order]
    except (KeyError, TypeError):
        raise ValueError(f"order={order!r}: use 'sequential' or 'pairwise'") from None


# ---- arguments ----

def _backend(*arrays):
    """NumPy, or the CUDA device backend (reproblas/_cuda.py) when the operands
    live on a GPU (CuPy arrays, __cuda_array_interface__ or DLPack CUDA tensors)."""
    if all(type(a) is np.ndarray or a is None for a in arrays):
        return np  # the common case, kept cheap for small calls
    on_gpu = [_cuda_arrays.is_device_array(a) for a in arrays if a is not None]
    if not any(on_gpu):
        return np
    if not all(on_gpu):
        raise TypeError("reproblas: some operands are on a GPU and some in host memory; move "
                        "them to one place first (cupy.asarray(x) or cupy.asnumpy(x))")
    return _cuda_arrays.device()


def _flag(value, name, routine):
    """A bool option: True/False, or scipy's 0/1 integers (for trans, 2 = conjugate transpose,
    the transpose of real data). Anything else, e.g. a BLAS letter 'N' (truthy), is refused."""
    if value is True or value is False:
        return value
    if isinstance(value, np.bool_) or (isinstance(value, (int, np.integer)) and
                                       0 <= value <= (2 if "trans" in name else 1)):
        return bool(value)
    raise TypeError(f"reproblas.{routine}: {name} must be True or False, got {value!r}")


def _float_array(x, name, routine):
    """TypeError unless x (an array) is unmasked, of native float32 or float64."""
    if isinstance(x, np.ma.MaskedArray):  # its mask would be ignored: refuse, never guess
        raise TypeError(f"reproblas.{routine}: {name} is a masked array, whose mask reproblas "
                        f"would ignore; pass {name}.filled(v), v the value masked entries take")
    if x.dtype in _FLOAT_TYPES:
        return
    if x.dtype.kind == "f" and x.dtype.newbyteorder("=") in _FLOAT_TYPES:
        raise TypeError(f"reproblas.{routine}: {name} has non-native byte order ({x.dtype.str}); "
                        f"convert it with {name}.astype({name}.dtype.newbyteorder('='))")
    raise TypeError(f"reproblas.{routine}: {name} has dtype {x.dtype}; reproblas computes "
                    f"in float32 or float64 only: convert it explicitly, e.g. "
                    f"{name}.astype(np.float64)")


def _vector(x, name, routine):
    if not isinstance(x, np.ndarray):
        raise TypeError(f"reproblas.{routine}: {name} must be a NumPy array of float32 or "
                        f"float64, got {type(x).__name__} (use np.asarray({name}, "
                        f"dtype=np.float64))")
    _float_array(x, name, routine)
    if x.ndim != 1:
        raise ValueError(f"reproblas.{routine}: {name} must be 1-D, got shape {x.shape} "
                         f"(use {name}.ravel() for a flattened view)")
    return x


def _same_dtype(routine, **arrays):
    first, *rest = arrays.values()
    if all(a.dtype == first.dtype for a in rest):
        return
    dtypes = {name: a.dtype for name, a in arrays.items()}
    if len(set(dtypes.values())) > 1:
        desc = ", ".join(f"{k} is {v}" for k, v in dtypes.items())
        raise TypeError(f"reproblas.{routine}: mixed dtypes ({desc}); reproblas never casts "
                        f"silently: convert one of them with .astype()")


def _same_length(routine, x, y):
    if x.shape[0] != y.shape[0]:
        raise ValueError(f"reproblas.{routine}: x has {x.shape[0]} elements but y has "
                         f"{y.shape[0]}")


def _contiguous(x):
    """x itself if contiguous and aligned, else a copy in index order (same values)."""
    flags = x.flags
    if flags.c_contiguous and flags.aligned:
        return x
    return np.require(x, requirements=["C", "A"])


def _scalar(alpha, dtype, routine, name="alpha"):
    """alpha as a 1-element array of dtype. Python int/float follow NumPy's rule
    for Python scalars (NEP 50): rounded to the array dtype; NumPy scalars
    must already have that dtype."""
    if type(alpha) is float and (dtype is _FLOAT_TYPES[1] or not abs(alpha) > _F32_MAX):
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
    # the library's FP environment: no mode of the caller applies (SPEC §0)
    try:
        a = _core.scalar_array(float(alpha), dtype)
        if not (np.isinf(a[0]) and math.isfinite(alpha)):
            return a
    except OverflowError:  # an int beyond the double range
        pass
    raise OverflowError(f"reproblas.{routine}: {name}={short_repr(alpha)} overflows {dtype}")


# ---- routines ----

def _reduction(routine, x, y, order):
    if (_core.plain(x, 1) if y is None else
            _core.plain(x, 1, y, 1) and x.shape[0] == y.shape[0]):
        # fast path: operands that pass every check below, used as they are
        return _core.reduce(routine, _order(order), x, y, _isa(), _threads())
    if (dev := _backend(x, y)) is not np:
        return _cuda.api_reduction(dev, routine, x, y, order)
    code = _order(order)
    x = _vector(x, "x", routine)
    if y is not None:
        y = _vector(y, "y", routine)
        _same_dtype(routine, x=x, y=y)
        _same_length(routine, x, y)
        y = _contiguous(y)
    return _core.reduce(routine, code, _contiguous(x), y, _isa(), _threads())


def sum(x, order="sequential"):
    """Sum of the elements of x, added in a fixed order.

    Parameters
    ----------
    x : numpy.ndarray
        1-D array of float32 or float64 (any stride).
    order : {'sequential', 'pairwise'}, optional
        Summation order (contract §2): 'sequential' (default) adds left to right,
        'pairwise' uses the fixed binary tree.

    Returns
    -------
    numpy.float32 or numpy.float64
        The sum, of x's dtype. An empty x gives +0; one element gives that element.

    Raises
    ------
    TypeError
        x is not a float32/float64 NumPy array.
    ValueError
        x is not 1-D, or `order` is unknown.

    Examples
    --------
    >>> t = np.array([1.0, 1e16, -1e16, 1.0, 1.0])
    >>> reproblas.sum(t), reproblas.sum(t, order="pairwise")
    (np.float64(2.0), np.float64(1.0))
    """
    return _reduction("sum", x, None, order)


def asum(x, order="sequential"):
    """Sum of the absolute values of x, added in a fixed order.

    The terms are ``abs(x_k)``; otherwise as :func:`reproblas.sum`.

    Parameters
    ----------
    x : numpy.ndarray
        1-D array of float32 or float64.
    order : {'sequential', 'pairwise'}, optional
        Summation order (contract §2): 'sequential' (default) adds left to right,
        'pairwise' uses the fixed binary tree.

    Returns
    -------
    numpy.float32 or numpy.float64
        The sum of ``abs(x_k)``, of x's dtype.
    """
    return _reduction("asum", x, None, order)


def dot(x, y, order="sequential"):
    """Dot product of x and y in a fixed order.

    The terms are the products ``x_k*y_k``. 'sequential' starts from the rounded
    product ``x_0*y_0`` and adds each further product exactly with one fma
    (``S = fma(x_k, y_k, S)``); 'pairwise' rounds each product, then adds them with
    the fixed tree.

    Parameters
    ----------
    x, y : numpy.ndarray
        1-D arrays of the same length and the same dtype (float32 or float64).
    order : {'sequential', 'pairwise'}, optional
        Summation order (contract §2): 'sequential' (default) adds left to right,
        'pairwise' uses the fixed binary tree.

    Returns
    -------
    numpy.float32 or numpy.float64
        The dot product, of the arrays' dtype (+0 for empty arrays).

    Raises
    ------
    TypeError
        Not float32/float64 NumPy arrays, or mixed dtypes.
    ValueError
        Not 1-D, lengths differ, or `order` is unknown.
    """
    if y is None:  # to _reduction, None means "no second vector": reject it here
        _vector(y, "y", "dot")
    return _reduction("dot", x, y, order)


def nrm2(x, order="sequential"):
    """Euclidean norm of x, scaled by a power of two so that it does not overflow.

    With ``e`` the exponent of ``max abs(x_k)`` (clamped to the normal range), the
    result is ``sqrt(S) * 2**e`` where S is the ordered sum of the squares of
    ``x_k * 2**-e``. NaN if any element is NaN, +inf if any is infinite, +0 for an
    empty or all-zero x. Computed in x's dtype throughout.

    Parameters
    ----------
    x : numpy.ndarray
        1-D array of float32 or float64.
    order : {'sequential', 'pairwise'}, optional
        Summation order (contract §2): 'sequential' (default) adds left to right,
        'pairwise' uses the fixed binary tree.

    Returns
    -------
    numpy.float32 or numpy.float64
        The norm, of x's dtype.
    """
    return _reduction("nrm2", x, None, order)


def iamax(x):
    """Index of the element of largest absolute value.

    Parameters
    ----------
    x : numpy.ndarray
        1-D array of float32 or float64, not empty.

    Returns
    -------
    int
        0-based index of the first NaN if x has one, else the smallest index k
        with ``abs(x[k])`` maximal.

    Raises
    ------
    ValueError
        x is empty (like :func:`numpy.argmax`) or not 1-D.
    """
    if (dev := _backend(x)) is not np:
        return _cuda.api_iamax(dev, x)
    x = _vector(x, "x", "iamax")
    if x.shape[0] == 0:
        raise ValueError("reproblas.iamax: x is empty, it has no largest element")
    return int(_core.iamax(_contiguous(x), _isa(), _threads()))


def axpy(alpha, x, y):
    """y <- alpha*x + y in place, each element with one fma.

    ``y[k] = fma(alpha, x[k], y[k])``: no shortcut for alpha = 0 (``0*inf`` is NaN).

    Parameters
    ----------
    alpha : float or numpy scalar
        A Python float/int (rounded to the arrays' dtype) or a NumPy scalar of that dtype.
    x : numpy.ndarray
        1-D array of float32 or float64. If it shares memory with y, the old values are used.
    y : numpy.ndarray
        1-D writeable array of the same length and dtype; updated in place.

    Returns
    -------
    numpy.ndarray
        y.
    """
    if (dev := _backend(x, y)) is not np:
        return _cuda.api_axpy(dev, alpha, x, y)
    x = _vector(x, "x", "axpy")
    y = _vector(y, "y", "axpy")
    _same_dtype("axpy", x=x, y=y)
    _same_length("axpy", x, y)
    if not y.flags.writeable:
        raise ValueError("reproblas.axpy: y is read-only; it is updated in place")
    a = _scalar(alpha, y.dtype, "axpy")
    if np.may_share_memory(x, y):
        x = x.copy()  # y is written while x is read: read the old values
    isa, threads = _isa(), _threads()
    work = _contiguous(y)
    _core.axpy(a, _contiguous(x), work, isa, threads)
    if work is not y:
        y[...] = work
    return y


def scal(alpha, x):
    """x <- alpha*x in place (each element one rounded product).

    Parameters
    ----------
    alpha : float or numpy scalar
        A Python float/int (rounded to x's dtype) or a NumPy scalar of that dtype.
    x : numpy.ndarray
        1-D writeable array of float32 or float64; updated in place.

    Returns
    -------
    numpy.ndarray
        x.
    """
    if (dev := _backend(x)) is not np:
        return _cuda.api_scal(dev, alpha, x)
    x = _vector(x, "x", "scal")
    if not x.flags.writeable:
        raise ValueError("reproblas.scal: x is read-only; it is updated in place")
    a = _scalar(alpha, x.dtype, "scal")
    isa, threads = _isa(), _threads()
    work = _contiguous(x)
    _core.scal(a, work, isa, threads)
    if work is not x:
        x[...] = work
    return x
