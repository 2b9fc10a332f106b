"""Public triangular solves: trsv, trsm (SPEC §3), NumPy arrays.

Argument names and defaults follow scipy.linalg.blas ``?trsv`` / ``?trsm``
(``lower``, ``trans``/``trans_a``, ``side``), with ``unit_diagonal`` spelled out
(scipy's ``diag``) and the right-hand side named ``b`` in both. Checks reuse
the level-2/3 helpers; the C core (level3.h rb_trsm) reads A and writes X
through element strides, so any layout works without a copy of A.
"""
import numpy as np

from . import _api, _core, _cuda
from ._level23 import _elements, _matrix, _output, _unshared

_SIDES = {"left": 0, "l": 0, 0: 0, "right": 1, "r": 1, 1: 1}


def _flags(routine, lower, trans, unit_diagonal, overwrite_b):
    """The bool options of trsv/trsm, checked once for both backends."""
    names = ("lower", "trans" if routine == "trsv" else "trans_a", "unit_diagonal", "overwrite_b")
    return [_api._flag(v, name, routine)
            for v, name in zip((lower, trans, unit_diagonal, overwrite_b), names)]


def _side(side):
    # only a str or a true int names a side (not 1.0, True, a list or an array)
    key = None
    if isinstance(side, str):
        key = side.lower()
    elif isinstance(side, (int, np.integer)) and not isinstance(side, bool):
        key = int(side)
    if key not in _SIDES:
        raise ValueError(f"reproblas.trsm: side={side!r}: use 'left' (or 0: op(a) @ x = alpha*b) "
                         f"or 'right' (or 1: x @ op(a) = alpha*b)")
    return _SIDES[key]


def _square(a, routine, size, what):
    if a.shape != (size, size):
        raise ValueError(f"reproblas.{routine}: a has shape {a.shape} but must be square "
                         f"{size}x{size} ({what})")


def _solve(routine, order, right, lower, trans, unit, alpha, a, b, overwrite_b):
    """X (b's shape) through the core: b itself when overwrite_b, else a new array."""
    out = _output(b, overwrite_b, "b", routine, True)
    (a,) = _unshared(out, a)
    work2 = out[:, None] if out.ndim == 1 else out
    work, (b_rs, b_cs) = _elements(work2)
    a, (a_rs, a_cs) = _elements(a)
    m, n = work.shape
    _core.trsm(_api._order(order), right, lower, trans, unit, alpha, a, a_rs, a_cs, work, m, n,
               b_rs, b_cs, _api._isa(), _api._threads())
    if work is not work2:
        work2[...] = work
    if overwrite_b and out is not b:
        b[...] = out
        return b
    return out


def trsv(a, b, lower=False, trans=False, unit_diagonal=False, *, order="sequential",
         overwrite_b=False):
    """Solve the triangular system ``op(a) @ x = b`` in a fixed order.

    Row by row (top-down when ``op(a)`` is lower triangular, bottom-up when upper),
    ``x[i] = (b[i] - S_i) / op(a)[i, i]`` with ``S_i`` the sum of the terms
    ``op(a)[i, j] * x[j]`` over the already solved j, j ascending, in the order
    `order` (``S_i = +0`` when there is none; no division when `unit_diagonal`).
    A zero diagonal gives inf/NaN as IEEE arithmetic does, not an exception.

    Parameters
    ----------
    a : numpy.ndarray
        Square 2-D array, float32 or float64, any layout; only the triangle
        selected by `lower` is read (and its diagonal unless `unit_diagonal`).
    b : numpy.ndarray
        1-D right-hand side of a's dtype and length.
    lower : bool, optional
        Use a's lower triangle (default: the upper one, as scipy).
    trans : bool, optional
        Solve with ``a.T`` (scipy's trans=1; 2 also means the transpose here).
    unit_diagonal : bool, optional
        Take the diagonal as ones without reading it (scipy's ``diag=1``).
    order : {'sequential', 'pairwise'}, optional
        Summation order of each S_i (contract §2).
    overwrite_b : bool, optional
        Write x into b and return b, instead of a new array.

    Returns
    -------
    numpy.ndarray
        x: a new array, or b when overwrite_b is true.
    """
    lower, trans, unit_diagonal, overwrite_b = _flags("trsv", lower, trans, unit_diagonal,
                                                      overwrite_b)
    if (dev := _api._backend(a, b)) is not np:
        return _cuda.api_trsm(dev, "trsv", None, a, b, 0, lower, trans, unit_diagonal, order,
                              overwrite_b)
    a = _matrix(a, "a", "trsv")
    b = _matrix(b, "b", "trsv", ndim=1)
    _api._same_dtype("trsv", a=a, b=b)
    _square(a, "trsv", b.shape[0], f"b has {b.shape[0]} elements")
    return _solve("trsv", order, False, lower, trans, unit_diagonal, None, a, b, overwrite_b)


def trsm(alpha, a, b, side="left", lower=False, trans_a=False, unit_diagonal=False, *,
         order="sequential", overwrite_b=False):
    """Solve ``op(a) @ x = alpha*b`` (side 'left') or ``x @ op(a) = alpha*b`` ('right').

    ``alpha*b`` is rounded first. Left: each column of x is :func:`trsv` of
    ``op(a)`` and that column; right: each row ``x[i, :]`` is :func:`trsv` of
    ``op(a).T`` and ``alpha*b[i, :]``. Every element of x depends only on its own
    column (left) or row (right), whatever the shape, layout or thread count.

    Parameters
    ----------
    alpha : float or numpy scalar
        Scale of b.
    a : numpy.ndarray
        Square triangular 2-D array (m x m for 'left', n x n for 'right').
    b : numpy.ndarray
        2-D (m, n) right-hand sides of a's dtype, any layout.
    side : {'left', 'right', 0, 1}, optional
        Where op(a) stands (scipy's side=0 is left, 1 right).
    lower, trans_a, unit_diagonal : bool, optional
        As in :func:`trsv` (``trans_a``: solve with ``a.T``).
    order : {'sequential', 'pairwise'}, optional
        Summation order (contract §2).
    overwrite_b : bool, optional
        Write x into b and return b, instead of a new array.

    Returns
    -------
    numpy.ndarray
        x: a new C-ordered array, or b when overwrite_b is true.
    """
    lower, trans_a, unit_diagonal, overwrite_b = _flags("trsm", lower, trans_a, unit_diagonal,
                                                        overwrite_b)
    if (dev := _api._backend(a, b)) is not np:
        return _cuda.api_trsm(dev, "trsm", alpha, a, b, side, lower, trans_a, unit_diagonal,
                              order, overwrite_b)
    right = _side(side)
    a = _matrix(a, "a", "trsm")
    b = _matrix(b, "b", "trsm")
    _api._same_dtype("trsm", a=a, b=b)
    al = _api._scalar(alpha, a.dtype, "trsm")
    size = b.shape[1] if right else b.shape[0]
    _square(a, "trsm", size, f"b has shape {b.shape}, side={'right' if right else 'left'}")
    return _solve("trsm", order, right, lower, trans_a, unit_diagonal, al, a, b, overwrite_b)
