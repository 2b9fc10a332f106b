"""Scans and segmented reductions (docs/contract.md §5.2, §5.3): cumsum, cumprod,
segment_sum, reduce_by_key, scan_by_key.

Arguments are checked here (with _validate.py's rules: float32/float64 only, no
silent cast, lists as np.asarray makes them); the C core (scan.h) computes on
contiguous copies, so strides, axis and memory order never change a bit.
"""
import numpy as np
from repro_runtime import cuda as rt_cuda
from repro_runtime.cuda import on_device

from . import _backend, _core, _cpu, _scan_cuda, _scan_cuda_extra
from . import _validate as V

_TRANSFORMS = {None: 0, "abs": 1, "square": 2}  # core terms: x, abs(x), x*y
_TERM_XY = 2


def _run(be, kind, *args):
    """The core call (CPU) or the kernels (CUDA): kind 'rows' (op, order, term,
    exclusive, x2, y2, out2), 'scan' or 'reduce' (order, term, [exclusive,] x, y,
    offsets, out)."""
    if be is _backend.CPU:
        isa, threads = _cpu.isa(), _cpu.threads()
        if kind == "rows":
            _core.scan(*args, isa, threads)
        elif kind == "scan":
            _core.segments("scan", *args, isa, threads)
        else:
            order, term, x, y, off, out = args
            _core.segments("reduce", order, term, False, x, y, off, out, isa, threads)
        return
    with on_device(args[-1]):
        if _scan_cuda_extra.takes(kind, args):  # the orders kahan and exact
            _scan_cuda_extra.run(be.dev, kind, *args)
        elif kind == "rows":
            _scan_cuda.scan_rows(be.dev, *args)
        elif kind == "scan":
            _scan_cuda.scan_segments(be.dev, *args)
        else:
            _scan_cuda.segment_reduce(be.dev, *args)


def _axis(axis, ndim, routine):
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)):
        raise TypeError(f"reproblas.{routine}: axis must be an int or None, got {axis!r}")
    if not -ndim <= axis < ndim:
        raise np.exceptions.AxisError(f"reproblas.{routine}: axis {axis} is out of bounds "
                                      f"for an array of dimension {ndim}")
    return int(axis) % ndim


def _scan(routine, op, x, axis, order, exclusive, out):
    be = _backend.select(x, out)
    xp = be.xp
    code = V.order(order, routine)
    exclusive = V.flag(exclusive, "exclusive", routine)
    (x,) = V.operands(be, routine, ("x",), (x,), (None,))
    caller_out = out
    out = V.out_operand(be, out, routine)
    if axis is None:  # NumPy's rule: the flattened array, C order
        x = xp.ravel(x)
        ax = 0
    else:
        if x.ndim == 0:
            raise ValueError(f"reproblas.{routine}: x is 0-d; pass axis=None to scan it "
                             f"as a 1-element array")
        ax = _axis(axis, x.ndim, routine)
    if out is not None:
        V.output(out, x.shape, x.dtype, routine, xp)
    xm = xp.moveaxis(x, ax, -1)
    n = xm.shape[-1]
    x2 = xp.ascontiguousarray(xm).reshape(-1, n) if n else xp.empty((0, 0), x.dtype)
    direct = (be is _backend.CPU and out is not None and ax == x.ndim - 1 and
              _cpu.direct_out(out, x, contiguous=True))
    res2 = out.reshape(x2.shape) if direct else xp.empty(x2.shape, x.dtype)
    if x2.size:
        _run(be, "rows", op, code, 0, exclusive, x2, None, res2)
    if direct:
        return caller_out
    res = xp.ascontiguousarray(xp.moveaxis(res2.reshape(xm.shape), -1, ax))
    return V.deliver(out, caller_out, res, routine, xp)


def cumsum(x, axis=-1, order="sequential", exclusive=False, out=None):
    """Cumulative sum along an axis, in a fixed order (docs/contract.md §5.2).

    Parameters
    ----------
    x : numpy.ndarray
        Array of float32 or float64 (any strides), or a list/tuple of floats.
    axis : int or None, optional
        The axis scanned (default: the last); each 1-D slice along it is scanned on
        its own, with the bits of the 1-D call. None scans the flattened array (C
        order), as NumPy's default.
    order : {'sequential', 'pairwise', 'kahan', 'exact'}, optional
        'sequential' (default): ``s_k = s_(k-1) + x_k``, the bits of ``np.cumsum``.
        'pairwise': ``s_k`` joins, from the left, the perfect pairwise trees of the
        aligned blocks of ``k+1``'s binary expansion; when ``k+1`` is a power of two it
        is ``reproblas.sum(x[:k+1], order="pairwise")``. Parallel on threads.
        'kahan': ``s_k`` is ``reproblas.sum(x[:k+1], order="kahan")`` bit for bit
        (contract §5.5), in one pass (on CUDA, a thread per row).
        'exact': ``s_k`` is the float nearest to the exact sum of ``x[:k+1]``
        (contract §5.4).
    exclusive : bool, optional
        Shift by one: the first result is +0, result k is the inclusive result k-1.
    out : numpy.ndarray, optional
        Array of x's shape (flattened size with axis=None) and dtype to write into.

    Returns
    -------
    numpy.ndarray
        The prefixes, x's shape and dtype (C-contiguous), or `out`.

    Examples
    --------
    >>> t = np.array([1.0, 1e16, -1e16, 1.0])
    >>> reproblas.cumsum(t)  # s_3 = ((1 + 1e16) - 1e16) + 1
    array([1.e+00, 1.e+16, 0.e+00, 1.e+00])
    >>> reproblas.cumsum(t, order="pairwise")  # s_3 = (1 + 1e16) + (-1e16 + 1)
    array([1.e+00, 1.e+16, 0.e+00, 0.e+00])
    """
    return _scan("cumsum", _core.SCAN_SUM, x, axis, order, exclusive, out)


def cumprod(x, axis=-1, order="sequential", exclusive=False, out=None):
    """Cumulative product along an axis, in a fixed order (docs/contract.md §5.2).

    As :func:`reproblas.cumsum` with products: 'sequential' gives the bits of
    ``np.cumprod``; 'pairwise' joins perfect product trees; 'exact' gives each prefix
    as the float nearest to the exact product of ``x[:k+1]``, partial products never
    overflowing or underflowing (contract §5.4). An exclusive scan starts from 1.
    'kahan' is a summation order: cumprod refuses it.

    Examples
    --------
    >>> reproblas.cumprod(np.array([1e30, 1e30, 1e-30, 1e-30], np.float32), order="exact")
    array([1.e+30,    inf, 1.e+30, 1.e+00], dtype=float32)
    """
    return _scan("cumprod", _core.SCAN_PROD, x, axis, order, exclusive, out)


# ---- segmented reductions and scans ----

def _host(a):
    """a on the host: offsets and keys are checked and cut into runs there (a GPU
    array is copied)."""
    if rt_cuda.is_device_array(a) and hasattr(a, "get"):
        return a.get()
    return np.asarray(a)


def _offsets(offsets, n, routine):
    """offsets as a contiguous int64 host array, checked: 1-D, at least one entry,
    0 <= o_0 <= o_1 <= ... <= o_S <= n."""
    o = _host(offsets)
    if o.size and (o.dtype.kind not in "iu" or o.dtype == np.bool_):
        raise TypeError(f"reproblas.{routine}: offsets must be integers, got dtype {o.dtype}")
    if o.ndim != 1 or o.shape[0] == 0:
        raise ValueError(f"reproblas.{routine}: offsets must be a 1-D array with at least one "
                         f"entry (CSR style: segment i is values[offsets[i]:offsets[i+1]]), "
                         f"got shape {o.shape}")
    if o.dtype.kind == "u" and o.size and int(o.max()) > np.iinfo(np.int64).max:
        raise ValueError(f"reproblas.{routine}: offsets exceed the length of values ({n})")
    o = np.ascontiguousarray(o, dtype=np.int64)
    if o[0] < 0 or o[-1] > n:
        raise ValueError(f"reproblas.{routine}: offsets must lie in [0, {n}] (the length of "
                         f"values), got {int(o.min())}..{int(o.max())}")
    if o.shape[0] > 1 and np.any(o[1:] < o[:-1]):
        i = int(np.flatnonzero(o[1:] < o[:-1])[0])
        raise ValueError(f"reproblas.{routine}: offsets must be non-decreasing, but "
                         f"offsets[{i + 1}] = {int(o[i + 1])} < offsets[{i}] = {int(o[i])}")
    return o


def _terms(routine, values, transform, weights):
    """(values, weights or None, the core's term) checked: 1-D float arrays of one
    dtype and length."""
    be = _backend.select(values, weights)
    if transform not in _TRANSFORMS:
        raise ValueError(f"reproblas.{routine}: transform={transform!r}: use None, 'abs' or "
                         f"'square' (or weights= for products of two arrays)")
    values, weights = V.operands(be, routine, ("values", "weights"), (values, weights), (1, 1),
                                 optional=("weights",), check=V.vector)
    if weights is not None:
        if transform is not None:
            raise ValueError(f"reproblas.{routine}: pass either transform= or weights=, not "
                             f"both (the terms are values*weights)")
        if weights.shape != values.shape:
            raise ValueError(f"reproblas.{routine}: values has {values.shape[0]} elements but "
                             f"weights has {weights.shape[0]}")
    term = _TERM_XY if weights is not None else _TRANSFORMS[transform]
    contiguous = _cpu.contiguous if be is _backend.CPU else be.xp.ascontiguousarray
    values = contiguous(values)
    if term == _TERM_XY:
        weights = values if weights is None else contiguous(weights)
    return be, values, weights, term


def _reduce_segments(routine, values, o, order, transform, weights, out):
    code = V.order(order, routine)
    be, values, weights, term = _terms(routine, values, transform, weights)
    res = be.xp.empty(o.shape[0] - 1, values.dtype)
    if out is not None:
        out = V.out_operand(be, out, routine)
        V.output(out, res.shape, res.dtype, routine, be.xp)
    if res.shape[0]:
        _run(be, "reduce", code, term, values, weights, o, res)
    return be, res, out


def segment_sum(values, offsets, order="sequential", *, transform=None, weights=None,
                out=None):
    """Sum of each segment ``values[offsets[i]:offsets[i+1]]`` (CSR row sums), in a
    fixed order (docs/contract.md §5.3).

    Result i is bit for bit ``reproblas.sum(values[offsets[i]:offsets[i+1]], order)``;
    with ``transform="abs"`` it is ``reproblas.asum`` of the segment, with
    ``transform="square"`` ``reproblas.dot(v, v)``, with ``weights=w``
    ``reproblas.dot(v, w[...])`` of the segment. An empty segment gives +0 (unlike
    ``np.add.reduceat``, which returns the element at the start index).

    Parameters
    ----------
    values : numpy.ndarray
        1-D array of float32 or float64 (any strides), or a list/tuple of floats.
    offsets : array_like of int
        The S+1 segment boundaries, non-decreasing, within ``[0, len(values)]``.
    order : {'sequential', 'pairwise', 'kahan', 'exact'}, optional
        Summation order of each segment (contract §2, §5.4, §5.5).
    transform : {None, 'abs', 'square'}, optional
        Terms ``x``, ``abs(x)`` or ``x*x``.
    weights : numpy.ndarray, optional
        Terms ``values*weights`` (same length and dtype); not with `transform`.
    out : numpy.ndarray, optional
        Array of shape (S,) and values' dtype to write the result into.

    Returns
    -------
    numpy.ndarray
        S sums, values' dtype (or `out`).
    """
    caller_out = out
    values, n = _values_length(values, "segment_sum")
    o = _offsets(offsets, n, "segment_sum")
    be, res, out = _reduce_segments("segment_sum", values, o, order, transform, weights, out)
    return V.deliver(out, caller_out, res, "segment_sum", be.xp)


def _runs(keys, n, routine):
    """The CSR offsets of the runs of equal consecutive keys (host keys, offsets)."""
    k = _host(keys)
    if k.ndim != 1:
        raise ValueError(f"reproblas.{routine}: keys must be 1-D, got shape {k.shape}")
    if k.shape[0] != n:
        raise ValueError(f"reproblas.{routine}: keys has {k.shape[0]} elements but values "
                         f"has {n}")
    starts = np.flatnonzero(k[1:] != k[:-1]) + 1 if n else np.empty(0, np.int64)
    o = np.empty(starts.shape[0] + 2 if n else 1, np.int64)
    o[0] = 0
    o[1:-1] = starts
    o[-1] = n
    return k, o


def _values_length(values, routine):
    if isinstance(values, (list, tuple)):
        values = V.sequence(values, "values", routine)
    if not hasattr(values, "shape"):
        V.vector(values, "values", routine)
    if len(values.shape) != 1:
        V.vector(values, "values", routine)
    return values, values.shape[0]


def reduce_by_key(keys, values, order="sequential", *, transform=None, weights=None):
    """The sum of each run of equal consecutive keys (rocThrust's ``reduce_by_key``),
    in a fixed order (docs/contract.md §5.3).

    A run starts wherever ``keys[k] != keys[k-1]`` (sorted keys make each key one run;
    a NaN key is a run of its own). Each run is reduced as :func:`segment_sum`
    reduces a segment: the bits of ``reproblas.sum`` (``asum``, ``dot``) over it.

    Parameters
    ----------
    keys : array_like
        1-D keys, any dtype NumPy compares with ``!=``, as long as values.
    values : numpy.ndarray
        1-D float32 or float64 array.
    order, transform, weights
        As :func:`segment_sum`.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        Each run's first key, and its sum (values' dtype).
    """
    values, n = _values_length(values, "reduce_by_key")
    k, o = _runs(keys, n, "reduce_by_key")
    be, res, _ = _reduce_segments("reduce_by_key", values, o, order, transform, weights, None)
    if rt_cuda.is_device_array(keys):  # the run keys where the keys were
        return keys[be.xp.asarray(o[:-1])], res
    return k[o[:-1]], res


def scan_by_key(keys, values, order="sequential", *, exclusive=False, transform=None,
                weights=None, out=None):
    """Segmented scan: each run of equal consecutive keys scanned on its own (rocThrust's
    ``inclusive_scan_by_key`` / ``exclusive_scan_by_key``; docs/contract.md §5.3).

    Each run has the bits of :func:`cumsum` over it (with `transform`/`weights`, the
    terms of :func:`segment_sum`: product terms fused in the sequential order). In the
    orders 'kahan' and 'exact', prefix j of a run is ``reproblas.sum(run[:j+1], order)``
    (``asum``/``dot`` with a transform or weights: kahan's rounded products, exact's
    exact ones) bit for bit.

    Parameters
    ----------
    keys : array_like
        1-D keys as long as values (see :func:`reduce_by_key`).
    values : numpy.ndarray
        1-D float32 or float64 array.
    order : {'sequential', 'pairwise', 'kahan', 'exact'}, optional
        The scan order (contract §5.2, §5.4, §5.5).
    exclusive : bool, optional
        Each run starts from +0 and is shifted by one.
    transform, weights
        As :func:`segment_sum`.
    out : numpy.ndarray, optional
        Array of values' shape and dtype to write the result into.

    Returns
    -------
    numpy.ndarray
        The prefixes, values' shape and dtype (or `out`).
    """
    routine = "scan_by_key"
    values, n = _values_length(values, routine)
    k, o = _runs(keys, n, routine)
    code = V.order(order, routine)
    exclusive = V.flag(exclusive, "exclusive", routine)
    be, values, weights, term = _terms(routine, values, transform, weights)
    caller_out = out
    out = V.out_operand(be, out, routine)
    if out is not None:
        V.output(out, values.shape, values.dtype, routine, be.xp)
    res = be.xp.empty(values.shape, values.dtype)
    if n:
        _run(be, "scan", code, term, exclusive, values, weights, o, res)
    return V.deliver(out, caller_out, res, routine, be.xp)
