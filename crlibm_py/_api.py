"""Public wrappers: input checks, then the float32 ufunc."""
import os

import numpy as np

from repro_runtime import cuda as rt_cuda
from repro_runtime.knobs import isa_from_code
from repro_runtime.util import short_repr

from . import _cuda, _ufuncs

ufuncs = dict(_ufuncs.ufuncs)
FUNCTIONS = tuple(_ufuncs.function_names())

# Input dtypes that convert to float32 exactly; NumPy casts them on the way in.
_EXACT_KINDS = {np.dtype(t) for t in ("float32", "float16", "int8", "uint8", "int16", "uint16",
                                      "bool")}


def check_isa_env(var="CRLIBM_ISA"):
    """Raise a clear error if ``var`` names a CPU path that is unknown or absent."""
    name = os.environ.get(var, "")
    if name and not _ufuncs.isa_supported(name):
        isa_from_code(var, name, _ufuncs.isa_code(name), _ufuncs.isa_names(), _ufuncs.best_isa())


def _int_has_float32_value(x):
    """Whether a Python int is a float32 value: at most 24 significant bits, below 2^128
    (integer arithmetic only: no conversion can round or overflow on the way)."""
    n = abs(x)
    if n == 0:
        return True
    trailing = (n & -n).bit_length() - 1
    return n.bit_length() - trailing <= 24 and n.bit_length() <= 128


def _converts_to_float_exactly(v):
    """Whether a Python number is a float, or an int that float() converts exactly
    with a float32 value (the float itself is judged afterwards, in float32_if_exact)."""
    return isinstance(v, float) or (isinstance(v, int) and _int_has_float32_value(v))


def _python_number_as_float32(x, fname):
    """A Python float or int with an exact float32 value as np.float32, or a TypeError."""
    converted = None
    if _converts_to_float_exactly(x):
        converted = _ufuncs.float32_if_exact(np.array([float(x)]))
    if converted is None:
        raise TypeError(f"crlibm_py.{fname}: {short_repr(x)} is not exactly representable in "
                        f"float32; pass np.float32(x) if rounding the input first is what "
                        f"you want")
    return converted[0]


def _exact_float32_array(x):
    """A list/tuple converted by NumPy to another dtype, as float32 if that is exact."""
    if x.dtype == np.float64:
        return _ufuncs.float32_if_exact(x)
    with np.errstate(over="ignore", invalid="ignore"):
        converted = x.astype(np.float32)
        if x.dtype.kind == "f":  # long double: no subnormal float32 is at stake
            exact = np.array_equal(converted, x, equal_nan=True)
        else:  # integers: float32 values inside the integer type convert back exactly
            itype = np.uint64 if x.dtype.kind == "u" else np.int64
            info = np.iinfo(itype)  # float(info.max) is 2^63 or 2^64 (rounded up)
            inside = (converted >= float(info.min)) & (converted < float(info.max))
            exact = bool(np.all(inside)) and np.array_equal(converted.astype(itype), x)
    return converted if exact else None


def _exact_float32_objects(x):
    """An object array of Python numbers as float32 if every value is exactly a float32."""
    values = list(x.flat)
    if not all(_converts_to_float_exactly(v) for v in values):
        return None
    return _ufuncs.float32_if_exact(np.array([float(v) for v in values]).reshape(x.shape))


def _as_float32_input(x, fname):
    """x as something the float32 loop takes without rounding, or a TypeError.

    NumPy arrays and scalars are judged by their dtype (np.float64(0.5) is a TypeError,
    as a float64 array is); Python numbers and lists by their values. Other array
    objects (a CPU torch tensor) go through np.asarray.
    """
    if isinstance(x, (float, int)) and not isinstance(x, (bool, np.generic)):
        return _python_number_as_float32(x, fname)
    dtype = getattr(x, "dtype", None)
    if dtype is None:  # a list or tuple: judged by its values
        x = np.asarray(x)
        dtype = x.dtype
        converted = None
        if dtype.kind in "fiu" and dtype not in _EXACT_KINDS:
            converted = _exact_float32_array(x)
        elif dtype.kind == "O":  # Python ints beyond int64 ([2**70]): by each value
            converted = _exact_float32_objects(x)
        if converted is not None:
            return converted
    elif not isinstance(dtype, np.dtype):  # another library's CPU array: by its dtype
        x = np.asarray(x)
        dtype = x.dtype
    if dtype.newbyteorder("=") not in _EXACT_KINDS:
        raise TypeError(
            f"crlibm_py.{fname} computes in float32 and got {dtype} input; cast it "
            f"explicitly with x.astype(np.float32) (rounding the input silently would defeat "
            f"correct rounding)")
    return x


def _check_out(out, fname):
    """A TypeError unless out is a float32 array: NumPy would cast the results to another
    dtype outside the library, under the caller's FTZ/DAZ bits (docs/contract.md §0)."""
    target = out[0] if isinstance(out, tuple) and len(out) == 1 else out
    dtype = getattr(target, "dtype", None)
    if isinstance(dtype, np.dtype) and dtype.newbyteorder("=") != np.float32:
        raise TypeError(f"crlibm_py.{fname}: out must be a float32 array (got {dtype}); "
                        f"its results are float32: convert them afterwards if you need "
                        f"another dtype")


def _make(fname):
    ufunc = ufuncs[fname]

    def wrapper(x, out=None, **kwargs):
        if rt_cuda.is_device_array(x):  # our CUDA kernel, result on x's device
            if kwargs:
                raise TypeError(f"crlibm_py.{fname}: {', '.join(kwargs)} is not supported for "
                                f"GPU arrays (only out=)")
            dev = rt_cuda.device()
            x = _as_float32_input(dev.as_array(x), fname)
            with rt_cuda.on_device(x):
                return _cuda.apply(dev, fname, x, out)
        check_isa_env()
        x = _as_float32_input(x, fname)
        if out is None:
            return ufunc(x, **kwargs)
        _check_out(out, fname)
        return ufunc(x, out=out, **kwargs)

    wrapper.__name__ = wrapper.__qualname__ = fname
    wrapper.__doc__ = f"""Correctly rounded float32 {fname}(x).

    Every float32 input gives the float32 nearest to the exact value of {fname}(x)
    (round to nearest, ties to even), with the same bits on every CPU path. Special
    values follow the contract's table; every NaN returned is the quiet NaN 0x7FC00000.

    Parameters
    ----------
    x : array_like
        float32 array or scalar; a CuPy array (or a CUDA tensor exposing
        ``__cuda_array_interface__`` / DLPack) runs the CUDA kernel and returns a
        CuPy array on x's device. Inputs that convert to float32 exactly are accepted
        (float16, int8/uint8/int16/uint16, bool, Python numbers with a float32 value);
        NumPy arrays and scalars are judged by dtype, Python numbers and lists by value.
    out : numpy.ndarray, optional
        float32 array to write the result into, as for a NumPy ufunc (another dtype is
        a TypeError: NumPy's cast would run under the caller's FTZ/DAZ bits).
    **kwargs
        Other NumPy ufunc keywords (``where``, ...); the ufunc is
        ``crlibm_py.ufuncs[{fname!r}]``.

    Returns
    -------
    numpy.ndarray or numpy.float32
        The correctly rounded results (``out`` if given).

    Raises
    ------
    TypeError
        x would be rounded on the way to float32 (float64, int32, the Python float 0.1,
        ...): cast it explicitly with ``x.astype(np.float32)``; or ``out`` is not float32.
    ValueError, RuntimeError
        ``CRLIBM_ISA`` names an unknown path, or one this CPU lacks.
    """
    return wrapper


# One wrapper per function of the registry (src/c/crlibm/functions.def), in its order;
# crlibm_py exports them by name (crlibm_py.exp, ...).
wrappers = {fname: _make(fname) for fname in FUNCTIONS}
globals().update(wrappers)
