"""Public triangular routines: the solves trsv, trsm and the product trmm (contract §3).

Argument names and defaults follow scipy.linalg.blas ``?trsv`` / ``?trsm``
(``lower``, ``trans``/``trans_a``, ``side``), with ``unit_diagonal`` spelled out
(scipy's ``diag``) and the right-hand side named ``b`` in both. Each routine checks
its arguments once (_validate.py) and runs on the backend of its arrays' device
(_backend.py); the C core (level3.h rb_trsm) reads A and writes X through element
strides, so any layout works without a copy of A.
"""
from . import _backend
from . import _validate as V


def _flags(routine, lower, trans, unit_diagonal, overwrite_b):
    """The bool options of trsv/trsm/trmm."""
    names = ("lower", "trans" if routine == "trsv" else "trans_a", "unit_diagonal", "overwrite_b")
    return [V.flag(v, name, routine)
            for v, name in zip((lower, trans, unit_diagonal, overwrite_b), names)]


def _out(be, out, overwrite_b, b, routine):
    """out checked (b's shape and dtype), not together with overwrite_b."""
    if out is None:
        return None
    if overwrite_b:
        raise ValueError(f"reproblas.{routine}: overwrite_b=True and out= both name the "
                         f"destination; pass one of them")
    out = V.out_operand(be, out, routine)
    return V.output(out, b.shape, b.dtype, routine, be.xp)


def trsv(a, b, lower=False, trans=False, unit_diagonal=False, *, order="sequential",
         overwrite_b=False, out=None):
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

    out : numpy.ndarray, optional
        Array of b's shape and dtype (any layout) to write x into, NumPy's ``out=``
        (not with overwrite_b); it may be b or share memory with a. It is returned.

    Returns
    -------
    numpy.ndarray
        x: a new array, or b when overwrite_b is true.
    """
    lower, trans, unit_diagonal, overwrite_b = _flags("trsv", lower, trans, unit_diagonal,
                                                      overwrite_b)
    caller_b, caller_out = b, out
    be = _backend.select(a, b, out)
    a, b = V.operands(be, "trsv", ("a", "b"), (a, b), (2, 1))
    V.square(a, "trsv", b.shape[0], f"b has {b.shape[0]} elements")
    if overwrite_b:
        V.writeable(b, "b", "trsv", True)
    code = V.order(order, "trsv")
    out = _out(be, out, overwrite_b, b, "trsv")
    x = be.trsm(code, 0, lower, trans, unit_diagonal, None, a, b, overwrite_b)
    return caller_b if overwrite_b else V.deliver(out, caller_out, x, "trsv", be.xp)


def trsm(alpha, a, b, side="left", lower=False, trans_a=False, unit_diagonal=False, *,
         order="sequential", overwrite_b=False, out=None):
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

    out : numpy.ndarray, optional
        Array of b's shape and dtype (any layout) to write x into, NumPy's ``out=``
        (not with overwrite_b); it may be b or share memory with a. It is returned.

    Returns
    -------
    numpy.ndarray
        x: a new C-ordered array, or b when overwrite_b is true.
    """
    return _triangular("trsm", alpha, a, b, side, lower, trans_a, unit_diagonal, order,
                       overwrite_b, out)


def trmm(alpha, a, b, side="left", lower=False, trans_a=False, unit_diagonal=False, *,
         order="sequential", overwrite_b=False, out=None):
    """Triangular matrix product ``alpha * op(a) @ b`` (side 'left') or
    ``alpha * b @ op(a)`` ('right') in a fixed order.

    Each element is ``alpha * S`` (one rounding), S the sum of the products with the
    entries of op(a) inside its triangle, in the order `order`: the entries outside
    are absent terms, not zeros, and with unit_diagonal the diagonal term is b's own
    element (contract §3.1).

    Parameters
    ----------
    alpha : float or numpy scalar
        Scale of the product.
    a : numpy.ndarray
        Square triangular 2-D array (m x m for 'left', n x n for 'right'); only its
        triangle is read (and its diagonal unless unit_diagonal).
    b : numpy.ndarray
        2-D (m, n) array of a's dtype, any layout.
    side, lower, trans_a, unit_diagonal, order, overwrite_b, out
        As in :func:`trsm`.

    Returns
    -------
    numpy.ndarray
        The product: a new C-ordered array, or b when overwrite_b is true.
    """
    return _triangular("trmm", alpha, a, b, side, lower, trans_a, unit_diagonal, order,
                       overwrite_b, out)


def _triangular(routine, alpha, a, b, side, lower, trans_a, unit_diagonal, order, overwrite_b,
                out):
    """trsm and trmm: the same arguments and checks; the backend solves or multiplies."""
    lower, trans_a, unit_diagonal, overwrite_b = _flags(routine, lower, trans_a, unit_diagonal,
                                                        overwrite_b)
    caller_b, caller_out = b, out
    be = _backend.select(a, b, out)
    right = V.side(side)
    a, b = V.operands(be, routine, ("a", "b"), (a, b), (2, 2))
    al = V.scalar(alpha, a.dtype, routine)
    size = b.shape[1] if right else b.shape[0]
    V.square(a, routine, size, f"b has shape {b.shape}, side={'right' if right else 'left'}")
    if overwrite_b:
        V.writeable(b, "b", routine, True)
    code = V.order(order, routine)
    out = _out(be, out, overwrite_b, b, routine)
    x = be.trsm(code, right, lower, trans_a, unit_diagonal, al, a, b, overwrite_b,
                multiply=routine == "trmm")
    return caller_b if overwrite_b else V.deliver(out, caller_out, x, routine, be.xp)
