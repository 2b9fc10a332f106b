"""Public level-2/3 routines: gemm, gemv, ger, matmul (contract §3).

Each routine checks its arguments once (_validate.py) and runs on the backend of
its arrays' device (_backend.py); plain NumPy operands with default options take a
fast path straight into the C core (_core.product_plain). Results never depend
on the layout: each element's terms and their order are fixed.

Outputs follow scipy.linalg.blas: a new array is returned unless
overwrite_c / overwrite_y / overwrite_a is true, in which case that operand
is updated in place (any layout) and returned.
"""
import numpy as np

from . import _backend, _core, _cpu
from . import _validate as V


def gemm(alpha, a, b, beta=0.0, c=None, trans_a=False, trans_b=False, overwrite_c=False,
         order="sequential", *, out=None):
    """General matrix product ``alpha * op(a) @ op(b) + beta * c`` in a fixed order.

    ``S_ij`` is the sum of the terms ``op(a)[i, k] * op(b)[k, j]`` over k ascending,
    in the order `order`. The result is ``alpha*S_ij`` (one rounding) when beta is 0,
    and then c is never read (NaN in it has no effect); otherwise
    ``fma(beta, c[i, j], alpha*S_ij)``.

    Parameters
    ----------
    alpha : float or numpy scalar
        Scale of the product (Python float/int, or a NumPy scalar of the arrays' dtype).
    a, b : numpy.ndarray
        2-D arrays of one dtype, float32 or float64, any layout (C, Fortran, strided).
    beta : float or numpy scalar, optional
        Scale of c (default 0: c is not read).
    c : numpy.ndarray, optional
        2-D array of shape (m, n); required when beta is not 0.
    trans_a, trans_b : bool, optional
        Use ``a.T`` (``b.T``) instead of a (b).
    overwrite_c : bool, optional
        Write the result into c (any layout) and return c, instead of a new array.
    order : {'sequential', 'pairwise', 'kahan', 'exact'}, optional
        Summation order (contract §2, §5.4, §5.5): 'sequential' (default) adds left to
        right, 'pairwise' uses the fixed binary tree, 'kahan' compensated chunks joined by
        that tree, 'exact' gives each S the float nearest to its exact value ('kahan' and
        'exact': NumPy arrays only).

    out : numpy.ndarray, optional
        Array of the result's exact shape and dtype (any layout) to write it into,
        NumPy's ``out=`` (not with overwrite_*); it may share memory with the inputs
        (the result is that of their old values). It is returned.

    Returns
    -------
    numpy.ndarray
        The (m, n) result: a new C-ordered array, or c when overwrite_c is true.

    Raises
    ------
    TypeError
        Not float32/float64 NumPy arrays, or mixed dtypes.
    ValueError
        Shapes do not match, beta != 0 without c, or c is read-only with overwrite_c.
    """
    if c is None and overwrite_c is False and out is None:  # the small call: b 2-D
        out = _core.product_plain(order, alpha, a, trans_a, b, trans_b, beta, 2)
        if out is not None:
            return out
    trans_a, trans_b = V.flag(trans_a, "trans_a", "gemm"), V.flag(trans_b, "trans_b", "gemm")
    overwrite_c = V.flag(overwrite_c, "overwrite_c", "gemm")
    caller_c, caller_out = c, out
    be = _backend.select(a, b, c, out)
    out = _exclusive_out(be, out, overwrite_c, "overwrite_c", "gemm")
    code = V.order(order, "gemm")
    a, b, c = V.operands(be, "gemm", ("a", "b", "c"), (a, b, c), (2, 2, 2), optional=("c",))
    al = V.scalar(alpha, a.dtype, "gemm")
    bt = V.scalar(beta, a.dtype, "gemm", "beta")
    m, ka = (a.shape[1], a.shape[0]) if trans_a else a.shape
    kb, n = (b.shape[1], b.shape[0]) if trans_b else b.shape
    if ka != kb:
        raise ValueError(f"reproblas.gemm: op(a) is {m}x{ka} but op(b) is {kb}x{n}: the inner "
                         f"dimensions differ (check trans_a/trans_b)")
    reads_c = V.reads_old(bt)
    if c is None:
        if reads_c:
            raise ValueError("reproblas.gemm: beta != 0 needs c")
    else:
        if c.shape != (m, n):
            raise ValueError(f"reproblas.gemm: c has shape {c.shape}, expected {(m, n)}")
        if overwrite_c:
            V.writeable(c, "c", "gemm", True)
    if out is not None:
        V.output(out, (m, n), a.dtype, "gemm", be.xp)
        if c is None and be is _backend.CPU:  # straight into out (overlaps as overwrite_c)
            be.gemm(code, al, a, trans_a, b, trans_b, bt, out, (m, n), True, False)
            return caller_out
    res = be.gemm(code, al, a, trans_a, b, trans_b, bt, c, (m, n), overwrite_c, reads_c)
    if c is not None and overwrite_c:
        return caller_c
    return V.deliver(out, caller_out, res, "gemm", be.xp)


def gemv(alpha, a, x, beta=0.0, y=None, trans=False, overwrite_y=False, order="sequential", *,
         out=None):
    """Matrix-vector product ``alpha * op(a) @ x + beta * y`` in a fixed order.

    ``S_i`` is the sum of the terms ``op(a)[i, j] * x[j]`` over j ascending; scaling as
    in :func:`reproblas.gemm` (y is never read when beta is 0).

    Parameters
    ----------
    alpha : float or numpy scalar
        Scale of the product.
    a : numpy.ndarray
        2-D array, float32 or float64, any layout.
    x : numpy.ndarray
        1-D array of a's dtype, of length ``op(a).shape[1]``.
    beta : float or numpy scalar, optional
        Scale of y (default 0: y is not read).
    y : numpy.ndarray, optional
        1-D array of length ``op(a).shape[0]``; required when beta is not 0.
    trans : bool, optional
        Use ``a.T`` instead of a.
    overwrite_y : bool, optional
        Write the result into y and return y, instead of a new array.
    order : {'sequential', 'pairwise', 'kahan', 'exact'}, optional
        Summation order (contract §2, §5.4, §5.5): 'sequential' (default) adds left to
        right, 'pairwise' uses the fixed binary tree, 'kahan' compensated chunks joined by
        that tree, 'exact' gives each S the float nearest to its exact value ('kahan' and
        'exact': NumPy arrays only).

    out : numpy.ndarray, optional
        Array of the result's exact shape and dtype (any layout) to write it into,
        NumPy's ``out=`` (not with overwrite_*); it may share memory with the inputs
        (the result is that of their old values). It is returned.

    Returns
    -------
    numpy.ndarray
        The 1-D result: a new array, or y when overwrite_y is true.
    """
    if y is None and overwrite_y is False and out is None:  # the small call: x 1-D
        out = _core.product_plain(order, alpha, a, trans, x, False, beta, 1)
        if out is not None:
            return out
    trans, overwrite_y = V.flag(trans, "trans", "gemv"), V.flag(overwrite_y, "overwrite_y", "gemv")
    caller_y, caller_out = y, out
    be = _backend.select(a, x, y, out)
    out = _exclusive_out(be, out, overwrite_y, "overwrite_y", "gemv")
    code = V.order(order, "gemv")
    a, x, y = V.operands(be, "gemv", ("a", "x", "y"), (a, x, y), (2, 1, 1), optional=("y",))
    al = V.scalar(alpha, a.dtype, "gemv")
    bt = V.scalar(beta, a.dtype, "gemv", "beta")
    m, k = (a.shape[1], a.shape[0]) if trans else a.shape
    if x.shape[0] != k:
        raise ValueError(f"reproblas.gemv: op(a) is {m}x{k} but x has {x.shape[0]} elements "
                         f"(check trans)")
    reads_y = V.reads_old(bt)
    if y is None:
        if reads_y:
            raise ValueError("reproblas.gemv: beta != 0 needs y")
    else:
        if y.shape != (m,):
            raise ValueError(f"reproblas.gemv: y has shape {y.shape}, expected {(m,)}")
        if overwrite_y:
            V.writeable(y, "y", "gemv", True)
    if out is not None:
        V.output(out, (m,), a.dtype, "gemv", be.xp)
        if y is None and be is _backend.CPU:  # straight into out (overlaps as overwrite_y)
            be.gemv(code, al, a, trans, x, bt, out, m, True, False)
            return caller_out
    res = be.gemv(code, al, a, trans, x, bt, y, m, overwrite_y, reads_y)
    if y is not None and overwrite_y:
        return caller_y
    return V.deliver(out, caller_out, res, "gemv", be.xp)


def ger(alpha, x, y, a=None, overwrite_a=False, *, out=None):
    """Rank-1 update ``a + alpha * outer(x, y)``, each element with one fma.

    ``a[i, j] = fma(x[i], alpha*y[j], a[i, j])``, with ``alpha*y[j]`` rounded once.
    No sum is involved, so there is no `order` argument.

    Parameters
    ----------
    alpha : float or numpy scalar
        Scale of the outer product.
    x, y : numpy.ndarray
        1-D arrays of one dtype, float32 or float64.
    a : numpy.ndarray, optional
        2-D array of shape (len(x), len(y)); None means zeros (like scipy's ``?ger``).
    overwrite_a : bool, optional
        Update a in place and return it, instead of a new array.

    out : numpy.ndarray, optional
        Array of the result's exact shape and dtype (any layout) to write it into,
        NumPy's ``out=`` (not with overwrite_*); it may share memory with the inputs
        (the result is that of their old values). It is returned.

    Returns
    -------
    numpy.ndarray
        The updated matrix: a new array, or a when overwrite_a is true.
    """
    overwrite_a = V.flag(overwrite_a, "overwrite_a", "ger")
    caller_a, caller_out = a, out
    be = _backend.select(x, y, a, out)
    out = _exclusive_out(be, out, overwrite_a, "overwrite_a", "ger")
    x, y, a = V.operands(be, "ger", ("x", "y", "a"), (x, y, a), (1, 1, 2), optional=("a",))
    al = V.scalar(alpha, x.dtype, "ger")
    shape = (x.shape[0], y.shape[0])
    if a is not None:
        if a.shape != shape:
            raise ValueError(f"reproblas.ger: a has shape {a.shape}, expected (len(x), len(y)) "
                             f"= {shape}")
        if overwrite_a:
            V.writeable(a, "a", "ger", True)
    if out is not None:
        V.output(out, shape, x.dtype, "ger", be.xp)
    res = be.ger(al, x, y, a, shape, overwrite_a)
    if a is not None and overwrite_a:
        return caller_a
    return V.deliver(out, caller_out, res, "ger", be.xp)


def matmul(a, b, order="sequential", *, out=None):
    """Matrix product with NumPy's :func:`numpy.matmul` shapes, in a fixed order.

    Shapes follow NumPy: 1-D operands are promoted (and the added dimension
    removed), batch dimensions broadcast. Each element is the ordered sum S over the
    contracted index (alpha = 1, beta = 0). Every batch entry is computed on its own,
    so a batch entry has the bits of the unbatched call.

    Parameters
    ----------
    a, b : numpy.ndarray
        Arrays of one dtype (float32 or float64) with at least one dimension.
    order : {'sequential', 'pairwise'}, optional
        Summation order (contract §2): 'sequential' (default) adds left to right,
        'pairwise' uses the fixed binary tree.

    out : numpy.ndarray, optional
        Array of the result's exact shape and dtype (any layout) to write it into,
        NumPy's ``out=``; it may share memory with the inputs (the result is that of
        their old values). It is returned.

    Returns
    -------
    numpy.ndarray or numpy scalar
        The product; a NumPy scalar when both operands are 1-D.

    Raises
    ------
    ValueError
        0-d operands, contracted dimensions that differ, or batch shapes that do not
        broadcast.
    """
    if out is None:
        res = _core.product_plain(order, 1.0, a, False, b, False, 0.0)  # alpha 1: exactly S
        if res is not None:
            return res
    caller_out = out
    be = _backend.select(a, b, out)
    code = V.order(order, "matmul")
    a, b = V.operands(be, "matmul", ("a", "b"), (a, b), (None, None))
    out = V.out_operand(be, out, "matmul")
    a2, b2, batch, mkn = V.matmul_shapes(a, b)
    if out is not None:
        full = np.broadcast_to(np.bool_(0), batch + (mkn[0], mkn[2]))  # shape only, no memory
        shape = V.matmul_unpromote(full, a, b).shape
        V.output(out, shape, a.dtype, "matmul", be.xp)
        # the promoted view of out: the core writes it directly when it can
        view = out[..., None, :] if a.ndim == 1 else out
        view = view[..., None] if b.ndim == 1 else view
        if be is _backend.CPU and _cpu.direct_out(view, a2, b2):
            be.matmul(code, a2, b2, batch, mkn, out=view)
            return caller_out
    res = V.matmul_unpromote(be.matmul(code, a2, b2, batch, mkn), a, b)
    if out is not None:
        return V.deliver(out, caller_out, res, "matmul", be.xp)
    return res[()] if be.scalars and res.ndim == 0 else res


def _exclusive_out(be, out, overwrite, name, routine):
    """out as the backend's array; a ValueError with overwrite_* (two destinations)."""
    if out is not None and overwrite:
        raise ValueError(f"reproblas.{routine}: {name}=True and out= both name the "
                         f"destination; pass one of them")
    return V.out_operand(be, out, routine)
