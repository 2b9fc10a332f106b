"""Public level-2/3 routines: gemm, gemv, ger, matmul (SPEC §3), NumPy arrays.

Argument checks reuse the level-1 helpers of _api.py; the C core (level3.h)
reads and writes matrices through element strides, so transposes, C/Fortran
order and strided or negative-stride views are used as they are. Results
never depend on the layout: each element's terms and their order are fixed.

Outputs follow scipy.linalg.blas: a new array is returned unless
overwrite_c / overwrite_y / overwrite_a is true, in which case that operand
is updated in place (any layout) and returned.
"""
import numpy as np

from . import _api, _core, _cuda, _fp
from ._api import _flag


def _matrix(a, name, routine, ndim=2, xp=np):
    if not isinstance(a, xp.ndarray):
        raise TypeError(f"reproblas.{routine}: {name} must be a NumPy array of float32 or "
                        f"float64, got {type(a).__name__} (use np.asarray({name}, "
                        f"dtype=np.float64))")
    _api._float_array(a, name, routine)
    if a.ndim != ndim:
        raise ValueError(f"reproblas.{routine}: {name} must be {ndim}-D, got shape {a.shape}")
    return a


def _elements(a):
    """(array, element strides) of a 2-D array: a itself when its strides are
    whole elements and it is aligned, else a C-ordered copy (same values, same
    index order). Unrolled for speed: small calls are dominated by this layer."""
    size = a.itemsize
    (s0, s1), (n0, n1) = a.strides, a.shape
    if a.flags.aligned and (n0 <= 1 or s0 % size == 0) and (n1 <= 1 or s1 % size == 0):
        return a, (s0 // size if n0 > 1 else 0, s1 // size if n1 > 1 else 0)
    a = np.ascontiguousarray(a)
    return a, (a.strides[0] // size, a.strides[1] // size)


def _elements_nd(a):
    """(array, int64 element strides) of an N-D array, as _elements (0 stays 0
    for broadcast dimensions); a C-ordered copy when a stride is not whole."""
    size = a.itemsize
    if not a.flags.aligned or any(s % size for s in a.strides):
        a = np.ascontiguousarray(a)
    return a, np.array([s // size if n > 1 else 0 for s, n in zip(a.strides, a.shape)],
                       dtype=np.int64)


def _self_overlapping(a):
    """Whether two elements of a 2-D array may share memory (a zero stride on a
    writeable output, say): then the core's threads would write one element in
    a launch-dependent order. Conservative: each axis must step past the whole
    extent of the axes with smaller strides."""
    if a.size == 0:  # (NumPy gives empty arrays zero strides)
        return False
    size, extent = a.itemsize, a.itemsize
    for s, n in sorted((abs(s), n) for n, s in zip(a.shape, a.strides) if n > 1):
        if s < extent:
            return True
        extent = (n - 1) * s + size
    return False


def _output(c, overwrite, name, routine, needs_old):
    """Where the core writes: c itself (overwrite), or a new C-ordered array (the
    caller assigns it to c when overwrite: deterministically also for a c whose
    elements share memory, as in axpy/scal)."""
    if overwrite:
        if not c.flags.writeable:
            raise ValueError(f"reproblas.{routine}: {name} is read-only but overwrite_{name}"
                             f"=True asks to update it in place")
        view = c[:, None] if c.ndim == 1 else c
        if _self_overlapping(view):
            return np.array(c, order="C")
        work, _ = _elements(view)
        return c if work is view else (work[:, 0] if c.ndim == 1 else work)
    out = np.empty(c.shape, dtype=c.dtype)
    if needs_old:
        out[...] = c
    return out


def _unshared(out, *inputs):
    """The inputs, each copied if it may share memory with out: every result
    must use the old values (SPEC), but out is written block by block."""
    return [x.copy() if x is not None and np.may_share_memory(x, out) else x for x in inputs]


def _run_gemm(order, alpha, a, trans_a, b, trans_b, beta, c, isa, threads):
    """c <- alpha*op(a)op(b) [+ beta*c] through the core; c: the output array."""
    m, n = c.shape
    a, (a_rs, a_cs) = _elements(a)
    b, (b_rs, b_cs) = _elements(b)
    if trans_a:
        a_rs, a_cs = a_cs, a_rs
    if trans_b:
        b_rs, b_cs = b_cs, b_rs
    k = a.shape[0] if trans_a else a.shape[1]
    work, (c_rs, c_cs) = _elements(c)
    _core.gemm(order, m, n, k, alpha, a, a_rs, a_cs, b, b_rs, b_cs, beta, work, c_rs, c_cs,
               isa, threads)
    if work is not c:
        c[...] = work
    return c


def gemm(alpha, a, b, beta=0.0, c=None, trans_a=False, trans_b=False, overwrite_c=False,
         order="sequential"):
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
    order : {'sequential', 'pairwise'}, optional
        Summation order (contract §2): 'sequential' (default) adds left to right,
        'pairwise' uses the fixed binary tree.

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
    if c is None and overwrite_c is False and type(b) is np.ndarray and b.ndim == 2:
        out = _core.product_plain(order, alpha, a, trans_a, b, trans_b, beta)  # the small call
        if out is not None:
            return out
    trans_a, trans_b = _flag(trans_a, "trans_a", "gemm"), _flag(trans_b, "trans_b", "gemm")
    overwrite_c = _flag(overwrite_c, "overwrite_c", "gemm")
    if (dev := _api._backend(a, b, c)) is not np:
        return _cuda.api_gemm(dev, alpha, a, b, beta, c, trans_a, trans_b, overwrite_c, order)
    code = _api._order(order)
    a = _matrix(a, "a", "gemm")
    b = _matrix(b, "b", "gemm")
    arrays = {"a": a, "b": b}
    if c is not None:
        arrays["c"] = _matrix(c, "c", "gemm")
    _api._same_dtype("gemm", **arrays)
    dtype = a.dtype
    al = _api._scalar(alpha, dtype, "gemm")
    be = _api._scalar(beta, dtype, "gemm", "beta")
    m, ka = (a.shape[1], a.shape[0]) if trans_a else a.shape
    kb, n = (b.shape[1], b.shape[0]) if trans_b else b.shape
    if ka != kb:
        raise ValueError(f"reproblas.gemm: op(a) is {m}x{ka} but op(b) is {kb}x{n}: the inner "
                         f"dimensions differ (check trans_a/trans_b)")
    if c is None:
        if not _fp.zero_bits(be[0]):
            raise ValueError("reproblas.gemm: beta != 0 needs c")
        out = np.empty((m, n), dtype=dtype)
    else:
        if c.shape != (m, n):
            raise ValueError(f"reproblas.gemm: c has shape {c.shape}, expected {(m, n)}")
        out = _output(c, overwrite_c, "c", "gemm", not _fp.zero_bits(be[0]))
        a, b = _unshared(out, a, b)
    _run_gemm(code, al, a, trans_a, b, trans_b, be, out, _api._isa(), _api._threads())
    if c is not None and overwrite_c and out is not c:
        c[...] = out
        return c
    return out


def gemv(alpha, a, x, beta=0.0, y=None, trans=False, overwrite_y=False, order="sequential"):
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
    order : {'sequential', 'pairwise'}, optional
        Summation order (contract §2): 'sequential' (default) adds left to right,
        'pairwise' uses the fixed binary tree.

    Returns
    -------
    numpy.ndarray
        The 1-D result: a new array, or y when overwrite_y is true.
    """
    if y is None and overwrite_y is False and type(x) is np.ndarray and x.ndim == 1:
        out = _core.product_plain(order, alpha, a, trans, x, False, beta)  # the small call
        if out is not None:
            return out
    trans, overwrite_y = _flag(trans, "trans", "gemv"), _flag(overwrite_y, "overwrite_y", "gemv")
    if (dev := _api._backend(a, x, y)) is not np:
        return _cuda.api_gemv(dev, alpha, a, x, beta, y, trans, overwrite_y, order)
    code = _api._order(order)
    a = _matrix(a, "a", "gemv")
    x = _matrix(x, "x", "gemv", ndim=1)
    arrays = {"a": a, "x": x}
    if y is not None:
        arrays["y"] = _matrix(y, "y", "gemv", ndim=1)
    _api._same_dtype("gemv", **arrays)
    dtype = a.dtype
    al = _api._scalar(alpha, dtype, "gemv")
    be = _api._scalar(beta, dtype, "gemv", "beta")
    m, k = (a.shape[1], a.shape[0]) if trans else a.shape
    if x.shape[0] != k:
        raise ValueError(f"reproblas.gemv: op(a) is {m}x{k} but x has {x.shape[0]} elements "
                         f"(check trans)")
    if y is None:
        if not _fp.zero_bits(be[0]):
            raise ValueError("reproblas.gemv: beta != 0 needs y")
        out = np.empty(m, dtype=dtype)
    else:
        if y.shape != (m,):
            raise ValueError(f"reproblas.gemv: y has shape {y.shape}, expected {(m,)}")
        out = _output(y, overwrite_y, "y", "gemv", not _fp.zero_bits(be[0]))
        a, x = _unshared(out, a, x)
    _run_gemm(code, al, a, trans, x[:, None], False, be, out[:, None], _api._isa(),
              _api._threads())
    if y is not None and overwrite_y and out is not y:
        y[...] = out
        return y
    return out


def ger(alpha, x, y, a=None, overwrite_a=False):
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

    Returns
    -------
    numpy.ndarray
        The updated matrix: a new array, or a when overwrite_a is true.
    """
    overwrite_a = _flag(overwrite_a, "overwrite_a", "ger")
    if (dev := _api._backend(x, y, a)) is not np:
        return _cuda.api_ger(dev, alpha, x, y, a, overwrite_a)
    x = _matrix(x, "x", "ger", ndim=1)
    y = _matrix(y, "y", "ger", ndim=1)
    arrays = {"x": x, "y": y}
    if a is not None:
        arrays["a"] = _matrix(a, "a", "ger")
    _api._same_dtype("ger", **arrays)
    dtype = x.dtype
    al = _api._scalar(alpha, dtype, "ger")
    shape = (x.shape[0], y.shape[0])
    if a is None:
        out = np.zeros(shape, dtype=dtype)
    else:
        if a.shape != shape:
            raise ValueError(f"reproblas.ger: a has shape {a.shape}, expected (len(x), len(y)) "
                             f"= {shape}")
        out = _output(a, overwrite_a, "a", "ger", True)
        x, y = _unshared(out, x, y)
    isa, threads = _api._isa(), _api._threads()
    work, (rs, cs) = _elements(out)
    _core.ger(al, _api._contiguous(x), _api._contiguous(y), work, rs, cs, isa, threads)
    if work is not out:
        out[...] = work
    if a is not None and overwrite_a and out is not a:
        a[...] = out
        return a
    return out


def _matmul_shapes(a, b):
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


def _matmul_unpromote(out, a, b):
    """Drops the dimensions _matmul_shapes added for 1-D operands."""
    if a.ndim == 1:
        out = out[..., 0, :]
    if b.ndim == 1:
        out = out[..., 0]
    return out


def matmul(a, b, order="sequential"):
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
    out = _core.product_plain(order, 1.0, a, False, b, False, 0.0)  # alpha 1: exactly S
    if out is not None:
        return out
    if (dev := _api._backend(a, b)) is not np:
        return _cuda.api_matmul(dev, a, b, order)
    code = _api._order(order)
    for name, v in (("a", a), ("b", b)):
        _matrix(v, name, "matmul", ndim=v.ndim if isinstance(v, np.ndarray) else 2)
    _api._same_dtype("matmul", a=a, b=b)
    a2, b2, batch, (m, k, n) = _matmul_shapes(a, b)
    out = np.empty(batch + (m, n), dtype=a.dtype)
    ab, a_st = _elements_nd(np.broadcast_to(a2, batch + (m, k)))
    bb, b_st = _elements_nd(np.broadcast_to(b2, batch + (k, n)))
    _core.matmul(code, ab, a_st, bb, b_st, out, _elements_nd(out)[1], k, _api._isa(),
                 _api._threads())
    out = _matmul_unpromote(out, a, b)
    return out[()] if out.ndim == 0 else out
