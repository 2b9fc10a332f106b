"""Public level-2/3 routines: gemm, symm, syrk, syr2k, gemv, ger, matmul (contract §3).

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
        that tree, 'exact' gives each S the float nearest to its exact value.

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
    reads_c = _check_c(be, "gemm", c, bt, (m, n), overwrite_c, out, a.dtype)
    if out is not None:
        if c is None and be is _backend.CPU:  # straight into out (overlaps as overwrite_c)
            be.gemm(code, al, a, trans_a, b, trans_b, bt, out, (m, n), True, False)
            return caller_out
    res = be.gemm(code, al, a, trans_a, b, trans_b, bt, c, (m, n), overwrite_c, reads_c)
    if c is not None and overwrite_c:
        return caller_c
    return V.deliver(out, caller_out, res, "gemm", be.xp)


def syrk(alpha, a, beta=0.0, c=None, trans=False, lower=False, overwrite_c=False,
         order="sequential", *, out=None):
    """Symmetric rank-k update of one triangle: ``alpha * op(a) @ op(a).T + beta * c``.

    The upper (default) or lower triangle of the n x n result, each element
    computed as :func:`reproblas.gemm` computes it for ``gemm(alpha, op(a), op(a).T,
    beta, c)``: ``S_ij`` is the sum of ``op(a)[i, k] * op(a)[j, k]`` over k ascending
    in the order `order` (contract §3.1). The other triangle is c's, unread and
    unchanged (``+0`` when c is not given, as in scipy.linalg.blas.dsyrk).

    Parameters
    ----------
    alpha : float or numpy scalar
        Scale of the product.
    a : numpy.ndarray
        2-D float32 or float64 array, any layout: n x k (k x n with trans).
    beta : float or numpy scalar, optional
        Scale of c (default 0: c is not read).
    c : numpy.ndarray, optional
        n x n array of a's dtype; required when beta is not 0.
    trans : bool, optional
        ``op(a) = a.T`` (the update ``a.T @ a``) instead of a.
    lower : bool, optional
        Compute the lower triangle (``i >= j``) instead of the upper one (``i <= j``).
    overwrite_c : bool, optional
        Update c's triangle in place (any layout) and return c.
    order : {'sequential', 'pairwise'}, optional
        Summation order (contract §2).
    out : numpy.ndarray, optional
        Array of shape (n, n) and a's dtype to write the whole result into (not with
        overwrite_c).

    Returns
    -------
    numpy.ndarray
        The (n, n) result: a new array, or c when overwrite_c is true.

    Raises
    ------
    TypeError
        Not float32/float64 arrays, or mixed dtypes.
    ValueError
        a not 2-D, c not n x n, beta != 0 without c, or c read-only with overwrite_c.
    """
    return _rank_update("syrk", alpha, a, None, beta, c, trans, lower, overwrite_c, order, out)


def syr2k(alpha, a, b, beta=0.0, c=None, trans=False, lower=False, overwrite_c=False,
          order="sequential", *, out=None):
    """Symmetric rank-2k update of one triangle:
    ``alpha * (op(a) @ op(b).T + op(b) @ op(a).T) + beta * c``.

    ``S_ij`` sums, for k ascending, ``op(a)[i, k] * op(b)[j, k]`` and then
    ``op(b)[i, k] * op(a)[j, k]`` (2k terms, in the order `order`; contract §3.1);
    the scaling and the other triangle are as in :func:`reproblas.syrk`.

    Parameters
    ----------
    alpha : float or numpy scalar
        Scale of the products.
    a, b : numpy.ndarray
        2-D arrays of one dtype (float32 or float64) and one shape: n x k (k x n with
        trans), any layout.
    beta, c, trans, lower, overwrite_c, order, out
        As in :func:`reproblas.syrk`.

    Returns
    -------
    numpy.ndarray
        The (n, n) result: a new array, or c when overwrite_c is true.

    Raises
    ------
    TypeError
        Not float32/float64 arrays, or mixed dtypes.
    ValueError
        a and b of different shapes, c not n x n, beta != 0 without c, or c read-only
        with overwrite_c.
    """
    return _rank_update("syr2k", alpha, a, b, beta, c, trans, lower, overwrite_c, order, out)


def _rank_update(routine, alpha, a, b, beta, c, trans, lower, overwrite_c, order, out):
    """syrk (b None) and syr2k: one triangle of a product whose B is op(a).T (syr2k:
    op(b).T, with op(b) op(a).T's terms alternating); the other triangle is c's."""
    trans, lower = V.flag(trans, "trans", routine), V.flag(lower, "lower", routine)
    overwrite_c = V.flag(overwrite_c, "overwrite_c", routine)
    caller_c, caller_out = c, out
    be = _backend.select(a, b, c, out)
    out = _exclusive_out(be, out, overwrite_c, "overwrite_c", routine)
    code = V.order(order, routine)
    names, ops = (("a", "c"), (a, c)) if b is None else (("a", "b", "c"), (a, b, c))
    ops = V.operands(be, routine, names, ops, (2,) * len(ops), optional=("c",))
    a, c = ops[0], ops[-1]
    b = None if b is None else ops[1]
    if b is not None and b.shape != a.shape:
        raise ValueError(f"reproblas.{routine}: a has shape {a.shape} but b {b.shape}; they "
                         f"must have one shape")
    al = V.scalar(alpha, a.dtype, routine)
    bt = V.scalar(beta, a.dtype, routine, "beta")
    n = a.shape[1] if trans else a.shape[0]
    reads_c = _check_c(be, routine, c, bt, (n, n), overwrite_c, out, a.dtype)
    if c is None:
        work = be.xp.zeros((n, n), a.dtype)
    else:  # the other triangle is c's
        work = c if overwrite_c else be.xp.array(c, copy=True)
    uplo = V.LOWER if lower else V.UPPER
    if b is None:
        res = be.gemm(code, al, a, trans, a, not trans, bt, work, (n, n), True, reads_c, uplo)
    else:
        res = be.gemm(code, al, a, trans, b, not trans, bt, work, (n, n), True, reads_c, uplo,
                      pair=(b, a))
    if c is not None and overwrite_c:
        return caller_c
    return V.deliver(out, caller_out, res, routine, be.xp)


def symm(alpha, a, b, beta=0.0, c=None, side=0, lower=False, overwrite_c=False,
         order="sequential", *, out=None):
    """Product with a symmetric matrix stored in one triangle: ``alpha * a @ b + beta * c``
    (side 0) or ``alpha * b @ a + beta * c`` (side 1).

    Each element is computed as :func:`reproblas.gemm` computes it with the whole
    symmetric matrix: its upper (default) or lower triangle is read, and the element
    at (i, k) outside it is taken from (k, i) (contract §3.1).

    Parameters
    ----------
    alpha : float or numpy scalar
        Scale of the product.
    a : numpy.ndarray
        The symmetric matrix, m x m (side 0) or n x n (side 1); only one triangle is read.
    b : numpy.ndarray
        m x n array of a's dtype.
    beta, c, overwrite_c, order, out
        As in :func:`reproblas.gemm`.
    side : {0, 1}, optional
        0: a on the left (scipy's convention), 1: on the right.
    lower : bool, optional
        Read the lower triangle of a instead of the upper one.

    Returns
    -------
    numpy.ndarray
        The (m, n) result: a new array, or c when overwrite_c is true.

    Raises
    ------
    TypeError
        Not float32/float64 arrays, or mixed dtypes.
    ValueError
        a not square, shapes that do not match, beta != 0 without c, or c read-only with
        overwrite_c.
    """
    lower = V.flag(lower, "lower", "symm")
    right = V.flag(side, "side", "symm")
    overwrite_c = V.flag(overwrite_c, "overwrite_c", "symm")
    caller_c, caller_out = c, out
    be = _backend.select(a, b, c, out)
    out = _exclusive_out(be, out, overwrite_c, "overwrite_c", "symm")
    code = V.order(order, "symm")
    a, b, c = V.operands(be, "symm", ("a", "b", "c"), (a, b, c), (2, 2, 2), optional=("c",))
    al = V.scalar(alpha, a.dtype, "symm")
    bt = V.scalar(beta, a.dtype, "symm", "beta")
    m, n = b.shape
    need = n if right else m
    if a.shape != (need, need):
        raise ValueError(f"reproblas.symm: a has shape {a.shape}; with b {b.shape} and side="
                         f"{int(right)} it must be {(need, need)}")
    reads_c = _check_c(be, "symm", c, bt, (m, n), overwrite_c, out, a.dtype)
    tri = V.LOWER if lower else V.UPPER
    if right:
        res = be.gemm(code, al, b, False, a, False, bt, c, (m, n), overwrite_c, reads_c, b_sym=tri)
    else:
        res = be.gemm(code, al, a, False, b, False, bt, c, (m, n), overwrite_c, reads_c, a_sym=tri)
    if c is not None and overwrite_c:
        return caller_c
    return V.deliver(out, caller_out, res, "symm", be.xp)


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
        that tree, 'exact' gives each S the float nearest to its exact value.

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
        if res is None:
            res = _core.matmul_plain(order, a, b)
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


def _check_c(be, routine, c, beta, shape, overwrite_c, out, dtype):
    """Whether the result reads c's old values (beta != 0); checks c (given when read,
    of the result's shape, writeable when overwritten) and out."""
    reads_c = V.reads_old(beta)
    if c is None:
        if reads_c:
            raise ValueError(f"reproblas.{routine}: beta != 0 needs c")
    else:
        if c.shape != shape:
            raise ValueError(f"reproblas.{routine}: c has shape {c.shape}, expected {shape}")
        if overwrite_c:
            V.writeable(c, "c", routine, True)
    if out is not None:
        V.output(out, shape, dtype, routine, be.xp)
    return reads_c


def _exclusive_out(be, out, overwrite, name, routine):
    """out as the backend's array; a ValueError with overwrite_* (two destinations)."""
    if out is not None and overwrite:
        raise ValueError(f"reproblas.{routine}: {name}=True and out= both name the "
                         f"destination; pass one of them")
    return V.out_operand(be, out, routine)
