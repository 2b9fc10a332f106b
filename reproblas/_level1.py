"""Public level-1 routines: sum, asum, dot, nrm2, iamax, axpy, scal (contract §2-§3).

Each routine checks its arguments once (_validate.py) and runs on the backend of
its arrays' device (_backend.py). Plain NumPy operands of the reductions take a
fast path straight into the C core, whose own test (_core.plain) accepts only
what the checks would.
"""
import math

import numpy as np

from . import _backend, _core, _cpu
from . import _validate as V


# The fast path of each reduction, written out in each routine (a Python call
# level costs as much as the rest of a 16-element sum): operands that pass every
# check of _reduction, used as they are (_core.plain accepts only those; looked up
# at each call, so that a test can hide the fast path). The core reads the
# environment knobs; None from it: one is invalid, the general path says which.
_reduce_env, _ORDERS = _core.reduce_env, V.ORDERS


def _reduction(routine, x, y, order, axis, keepdims, out):
    if axis is not None or keepdims is not False or out is not None:
        return _along(routine, x, y, order, axis, keepdims, out)
    be = _backend.select(x, y)
    code = V.order(order, routine)
    x, y = V.operands(be, routine, ("x", "y"), (x, y), (1, 1), optional=("y",), check=V.vector)
    if y is not None:
        V.same_length(routine, x, y)
    return be.reduce(routine, code, x, y)


def _rows(be, routine, x, y, axis, keepdims):
    """(x2, y2, shape): the elements reduced into each output element as the rows of
    x2 (y2), the reduced axes last in C order, and the result's shape."""
    xp = be.xp
    ax = V.axes(axis, x.ndim, routine)
    keep = tuple(d for d in range(x.ndim) if d not in ax)
    kept = tuple(x.shape[d] for d in keep)
    if keepdims:
        shape = tuple(1 if d in ax else x.shape[d] for d in range(x.ndim))
    else:
        shape = kept
    rows, n = math.prod(kept), math.prod(x.shape[d] for d in ax)
    perm = keep + ax

    def flat(v):
        return None if v is None else xp.reshape(xp.transpose(v, perm), (rows, n))
    return flat(x), flat(y), shape


def _along(routine, x, y, order, axis, keepdims, out):
    """The reduction of the elements along `axis` (docs: "axis, keepdims, out")."""
    keepdims = V.flag(keepdims, "keepdims", routine)
    caller_out = out
    be = _backend.select(x, y, out)
    code = V.order(order, routine)
    x, y = V.operands(be, routine, ("x", "y"), (x, y), (None, None), optional=("y",))
    out = V.out_operand(be, out, routine)
    if axis is None and x.ndim != 1:  # as the 1-D call: N-D x needs an explicit axis
        V.vector(x, "x", routine)
    if y is not None and x.shape != y.shape:
        raise ValueError(f"reproblas.{routine}: x has shape {x.shape} but y has {y.shape}")
    x2, y2, shape = _rows(be, routine, x, y, axis, keepdims)
    if out is not None:
        V.output(out, shape, x.dtype, routine, be.xp)
    res = be.reduce_rows(routine, code, x2, y2, be.xp.empty(x2.shape[0], x.dtype))
    res = res.reshape(shape)
    if out is not None:
        out[...] = res
        return caller_out
    return res[()] if be.scalars and res.ndim == 0 else res


def sum(x, order="sequential", *, axis=None, keepdims=False, out=None):
    """Sum of the elements of x, added in a fixed order.

    Parameters
    ----------
    x : numpy.ndarray
        Array of float32 or float64 (any strides), or a list/tuple of floats.
    order : {'sequential', 'pairwise', 'kahan', 'exact'}, optional
        Summation order (contract §2, §5.4, §5.5): 'sequential' (default) adds left to
        right, 'pairwise' uses the fixed binary tree, 'kahan' compensated chunks joined by
        that tree, 'exact' the float nearest to the exact sum.
    axis : None, int or tuple of ints, optional
        Reduce along these axes (negative: from the end), as NumPy's reductions:
        each result element is the reduction of the elements along them, in C index
        order, with the bits of the 1-D call on those elements. None (default): x
        must be 1-D; ``axis=tuple(range(x.ndim))`` reduces all of an N-D x in C order.
    keepdims : bool, optional
        Keep the reduced axes with size 1.
    out : numpy.ndarray, optional
        Array of the result's exact shape and dtype (any strides) to write it into;
        it is returned.

    Returns
    -------
    numpy.float32 or numpy.float64, or numpy.ndarray
        The sum, of x's dtype (an array with `axis`/`keepdims`; `out` if given). An
        empty x gives +0; one element gives that element.

    Raises
    ------
    TypeError
        x is not a float32/float64 NumPy array.
    ValueError
        `order` or `axis` is invalid, or `out` has another shape.

    Examples
    --------
    >>> t = np.array([1.0, 1e16, -1e16, 1.0, 1.0])
    >>> reproblas.sum(t), reproblas.sum(t, order="pairwise")
    (np.float64(2.0), np.float64(1.0))
    """
    if axis is None and out is None and keepdims is False and _core.plain(x, 1):
        try:
            code = _ORDERS[order]
        except (KeyError, TypeError):  # another case ('Pairwise'), or not an order
            code = V.order(order, "sum")
        res = _reduce_env("sum", code, x, None)
        if res is not None:
            return res
    return _reduction("sum", x, None, order, axis, keepdims, out)


def asum(x, order="sequential", *, axis=None, keepdims=False, out=None):
    """Sum of the absolute values of x, added in a fixed order.

    The terms are ``abs(x_k)``; otherwise as :func:`reproblas.sum`.

    Parameters
    ----------
    x : numpy.ndarray
        Array of float32 or float64, or a list/tuple of floats.
    order : {'sequential', 'pairwise', 'kahan', 'exact'}, optional
        Summation order (contract §2, §5.4, §5.5): 'sequential' (default) adds left to
        right, 'pairwise' uses the fixed binary tree, 'kahan' compensated chunks joined by
        that tree, 'exact' the float nearest to the exact sum.
    axis : None, int or tuple of ints, optional
        Reduce along these axes (negative: from the end), as NumPy's reductions:
        each result element is the reduction of the elements along them, in C index
        order, with the bits of the 1-D call on those elements. None (default): x
        must be 1-D; ``axis=tuple(range(x.ndim))`` reduces all of an N-D x in C order.
    keepdims : bool, optional
        Keep the reduced axes with size 1.
    out : numpy.ndarray, optional
        Array of the result's exact shape and dtype (any strides) to write it into;
        it is returned.

    Returns
    -------
    numpy.float32 or numpy.float64
        The sum of ``abs(x_k)``, of x's dtype.
    """
    if axis is None and out is None and keepdims is False and _core.plain(x, 1):
        try:
            code = _ORDERS[order]
        except (KeyError, TypeError):  # another case ('Pairwise'), or not an order
            code = V.order(order, "asum")
        res = _reduce_env("asum", code, x, None)
        if res is not None:
            return res
    return _reduction("asum", x, None, order, axis, keepdims, out)


def dot(x, y, order="sequential", *, axis=None, keepdims=False, out=None):
    """Dot product of x and y in a fixed order.

    The terms are the products ``x_k*y_k``. 'sequential' starts from the rounded
    product ``x_0*y_0`` and adds each further product exactly with one fma
    (``S = fma(x_k, y_k, S)``); 'pairwise' rounds each product, then adds them with
    the fixed tree.

    Parameters
    ----------
    x, y : numpy.ndarray
        Arrays of the same shape and dtype (float32 or float64); the terms pair
        x and y elementwise.
    order : {'sequential', 'pairwise', 'kahan', 'exact'}, optional
        Summation order (contract §2, §5.4, §5.5): 'sequential' (default) adds left to
        right, 'pairwise' uses the fixed binary tree, 'kahan' compensated chunks joined by
        that tree, 'exact' the float nearest to the exact sum.
    axis : None, int or tuple of ints, optional
        Reduce along these axes (negative: from the end), as NumPy's reductions:
        each result element is the reduction of the elements along them, in C index
        order, with the bits of the 1-D call on those elements. None (default): x
        must be 1-D; ``axis=tuple(range(x.ndim))`` reduces all of an N-D x in C order.
    keepdims : bool, optional
        Keep the reduced axes with size 1.
    out : numpy.ndarray, optional
        Array of the result's exact shape and dtype (any strides) to write it into;
        it is returned.

    Returns
    -------
    numpy.float32 or numpy.float64
        The dot product, of the arrays' dtype (+0 for empty arrays).

    Raises
    ------
    TypeError
        Not float32/float64 NumPy arrays, or mixed dtypes.
    ValueError
        Shapes differ, `order` or `axis` is invalid.
    """
    if (axis is None and out is None and keepdims is False and _core.plain(x, 1, y, 1) and
            x.shape[0] == y.shape[0]):
        try:
            code = _ORDERS[order]
        except (KeyError, TypeError):  # another case ('Pairwise'), or not an order
            code = V.order(order, "dot")
        res = _reduce_env("dot", code, x, y)
        if res is not None:
            return res
    if y is None:  # to _reduction, None means "no second vector": reject it here
        V.vector(y, "y", "dot")
    return _reduction("dot", x, y, order, axis, keepdims, out)


def nrm2(x, order="sequential", *, axis=None, keepdims=False, out=None):
    """Euclidean norm of x, scaled by a power of two so that it does not overflow.

    With ``e`` the exponent of ``max abs(x_k)`` (clamped to the normal range), the
    result is ``sqrt(S) * 2**e`` where S is the ordered sum of the squares of
    ``x_k * 2**-e``. NaN if any element is NaN, +inf if any is infinite, +0 for an
    empty or all-zero x. Computed in x's dtype throughout.

    Parameters
    ----------
    x : numpy.ndarray
        Array of float32 or float64, or a list/tuple of floats.
    order : {'sequential', 'pairwise', 'kahan'}, optional
        Summation order (contract §2, §5.5): 'sequential' (default) adds left to right,
        'pairwise' uses the fixed binary tree, 'kahan' compensated chunks joined by that
        tree.
    axis : None, int or tuple of ints, optional
        Reduce along these axes (negative: from the end), as NumPy's reductions:
        each result element is the reduction of the elements along them, in C index
        order, with the bits of the 1-D call on those elements. None (default): x
        must be 1-D; ``axis=tuple(range(x.ndim))`` reduces all of an N-D x in C order.
    keepdims : bool, optional
        Keep the reduced axes with size 1.
    out : numpy.ndarray, optional
        Array of the result's exact shape and dtype (any strides) to write it into;
        it is returned.

    Returns
    -------
    numpy.float32 or numpy.float64
        The norm, of x's dtype.
    """
    if axis is None and out is None and keepdims is False and _core.plain(x, 1):
        try:
            code = _ORDERS[order]
        except (KeyError, TypeError):  # another case ('Pairwise'), or not an order
            code = V.order(order, "nrm2")
        res = _reduce_env("nrm2", code, x, None)
        if res is not None:
            return res
    return _reduction("nrm2", x, None, order, axis, keepdims, out)


def iamax(x, *, axis=None, keepdims=False):
    """Index of the element of largest absolute value.

    Parameters
    ----------
    x : numpy.ndarray
        Array of float32 or float64 (or a list/tuple of floats); 1-D unless `axis`
        is given.
    axis : int, optional
        As :func:`numpy.argmax`: the index along this axis (negative: from the end)
        for each position of the other axes, each the 1-D call's on that slice.
    keepdims : bool, optional
        Keep the reduced axis with size 1.

    Returns
    -------
    int or numpy.ndarray
        0-based index of the first NaN if x has one, else the smallest index k
        with ``abs(x[k])`` maximal; with `axis`, a NumPy int64 array of them (in host
        memory also for GPU arrays).

    Raises
    ------
    ValueError
        x (or the axis) is empty (like :func:`numpy.argmax`), or x is not 1-D
        without `axis`.
    """
    if axis is None and keepdims is False and _core.plain(x, 1):  # the fast path
        if x.shape[0] == 0:
            raise ValueError("reproblas.iamax: x is empty, it has no largest element")
        res = _core.iamax_env(x)
        if res is not None:
            return res
    be = _backend.select(x)
    if axis is None and keepdims is False:
        (x,) = V.operands(be, "iamax", ("x",), (x,), (1,), check=V.vector)
        if x.shape[0] == 0:
            raise ValueError("reproblas.iamax: x is empty, it has no largest element")
        return be.iamax(x)
    keepdims = V.flag(keepdims, "keepdims", "iamax")
    (x,) = V.operands(be, "iamax", ("x",), (x,), (None,))
    if axis is None or isinstance(axis, tuple):
        raise TypeError(f"reproblas.iamax: axis must be an int (one axis, as numpy.argmax), "
                        f"got {axis!r}")
    x2, _, shape = _rows(be, "iamax", x, None, axis, keepdims)
    if x2.shape[1] == 0:
        raise ValueError(f"reproblas.iamax: axis {axis} of x (shape {x.shape}) is empty, it "
                         f"has no largest element")
    res = np.array([be.iamax(row) for row in x2], dtype=np.int64).reshape(shape)
    return res[()] if res.ndim == 0 else res  # a NumPy int64 for one slice, as np.argmax


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
    if _core.plain(x, 1, y, 1) and x.shape[0] == y.shape[0] and y.flags.writeable:
        _cpu.BACKEND.axpy(V.scalar(alpha, y.dtype, "axpy"), x, y)  # the fast path
        return y
    caller_y = y  # in place: the caller's object is returned (a torch tensor stays one)
    be = _backend.select(x, y)
    x, y = V.operands(be, "axpy", ("x", "y"), (x, y), (1, 1), check=V.vector)
    V.same_length("axpy", x, y)
    V.writeable(y, "y", "axpy", False)
    be.axpy(V.scalar(alpha, y.dtype, "axpy"), x, y)
    return caller_y


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
    if _core.plain(x, 1) and x.flags.writeable:
        _cpu.BACKEND.scal(V.scalar(alpha, x.dtype, "scal"), x)  # the fast path
        return x
    caller_x = x
    be = _backend.select(x)
    (x,) = V.operands(be, "scal", ("x",), (x,), (1,), check=V.vector)
    V.writeable(x, "x", "scal", False)
    be.scal(V.scalar(alpha, x.dtype, "scal"), x)
    return caller_x
