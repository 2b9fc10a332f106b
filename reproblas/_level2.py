"""Public level-2 routines on symmetric, triangular, band and packed matrices
(docs/contract.md §3.6): symv, spmv, sbmv, gbmv, trmv, tpmv, tbmv, tbsv, tpsv,
syr, spr, syr2, spr2.

Names, argument order and storage conventions follow scipy.linalg.blas (``dsymv``,
``dgbmv``, ``dtpmv``, ...): band matrices in BLAS band storage (``a[ku + i - j, j] =
A[i, j]``; symmetric/triangular: ``a[k + i - j, j]`` upper, ``a[i - j, j]`` lower),
packed triangles column by column in a 1-D ``ap``. scipy's ``offx``/``incx`` are
NumPy views here (``x[off::inc]``), ``diag`` is ``unit_diagonal`` as in
:func:`reproblas.trsv`, and every reduction takes ``order=``. Each routine checks its
arguments once (_validate.py) and runs on the backend of its arrays' device
(_backend.py ``level2``); results are new arrays unless ``overwrite_*`` is true.
"""
import numpy as np

from . import _backend, _core
from . import _validate as V

GENERAL, SYMMETRIC, TRIANGULAR = 0, 1, 2
FULL, BAND, PACKED = 0, 1, 2
MV, SV, RANK = 0, 1, 2


def _size(value, name, routine):
    """A non-negative Python/NumPy integer (not bool)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"reproblas.{routine}: {name} must be an int, got "
                        f"{type(value).__name__}")
    if value < 0:
        raise ValueError(f"reproblas.{routine}: {name} must be >= 0, got {value}")
    return int(value)


def _length(x, n, name, routine, what):
    if x.shape[0] != n:
        raise ValueError(f"reproblas.{routine}: {name} has {x.shape[0]} elements, expected "
                         f"{n} ({what})")


def _band(a, k_rows, n, routine, what):
    """a: a band array of at least k_rows rows and exactly n columns."""
    if a.shape[1] != n or a.shape[0] < k_rows:
        raise ValueError(f"reproblas.{routine}: a has shape {a.shape}, expected at least "
                         f"({k_rows}, {n}) ({what}; BLAS band storage)")


def _packed(ap, n, routine):
    need = n * (n + 1) // 2
    if ap.shape[0] < need:
        raise ValueError(f"reproblas.{routine}: ap has {ap.shape[0]} elements, a packed "
                         f"{n}x{n} triangle needs n*(n+1)/2 = {need}")


class _Call:
    """The prologue every routine shares: its flags checked, the destination chosen once
    (``overwrite_<name>`` or ``out=``, not both), the backend picked from the operands and
    the operands checked (in the order given)."""

    def __init__(self, routine, operands, ndims, out, overwrite, optional=(), **flags):
        self.routine = routine
        self.flags = [V.flag(v, name, routine) for name, v in flags.items()]
        name, value = overwrite
        self.overwrite = V.flag(value, f"overwrite_{name}", routine)
        if out is not None and self.overwrite:
            raise ValueError(f"reproblas.{routine}: overwrite_{name}=True and out= both name "
                             f"the destination; pass one of them")
        self.dest, self.caller, self.caller_out = name, operands[name], out
        self.be = _backend.select(*operands.values(), out)
        self.out = V.out_operand(self.be, out, routine)
        self.arrays = V.operands(self.be, routine, tuple(operands), tuple(operands.values()),
                                 ndims, optional=optional)

    def deliver(self, work, dest):
        """work into the overwritten operand (returned as the caller passed it), or out=,
        or work itself."""
        if self.overwrite and dest is not None:
            dest[...] = work
            return self.caller
        return V.deliver(self.out, self.caller_out, work, self.routine, self.be.xp)


def _product(c, desc, a, x, al, bt, y, rows, order):
    """y <- alpha op(M) x [+ beta y] for the checked operands (desc: rb_l2_matrix's
    kind, storage, lower, trans, unit, m, n, kl, ku)."""
    code = V.order(order, c.routine)
    reads_y = V.reads_old(bt)
    if y is None:
        if reads_y:
            raise ValueError(f"reproblas.{c.routine}: beta != 0 needs y")
    else:
        if y.shape != (rows,):
            raise ValueError(f"reproblas.{c.routine}: y has shape {y.shape}, expected "
                             f"{(rows,)}")
        if c.overwrite:
            V.writeable(y, "y", c.routine, True)
    if c.out is not None:
        V.output(c.out, (rows,), a.dtype, c.routine, c.be.xp)
    xp = c.be.xp
    work = xp.array(y, order="C") if y is not None and reads_y else xp.empty(rows, a.dtype)
    c.be.level2(MV, code, desc, a, al, xp.ascontiguousarray(x), bt, work)
    return c.deliver(work, y)


def symv(alpha, a, x, beta=0.0, y=None, lower=False, overwrite_y=False, order="sequential", *,
         out=None):
    """Symmetric matrix-vector product ``alpha * A @ x + beta * y`` in a fixed order.

    ``A`` is the symmetric matrix whose triangle selected by `lower` is stored in
    `a` (the other triangle is not read). ``S_i`` sums ``A[i, k] * x[k]`` over all k
    ascending: the bits of :func:`reproblas.gemv` on the full symmetric matrix.
    Scaling as gemv (y is not read when beta is 0).

    Parameters
    ----------
    alpha, beta : float or numpy scalar
        Scales (beta default 0).
    a : numpy.ndarray
        Square 2-D float32/float64 array, any layout.
    x : numpy.ndarray
        1-D array of a's dtype and length.
    y : numpy.ndarray, optional
        1-D array of that length; required when beta is not 0.
    lower : bool, optional
        Read a's lower triangle (default: the upper one, as scipy).
    overwrite_y : bool, optional
        Write the result into y and return y.
    order : {'sequential', 'pairwise'}, optional
        Summation order (docs/contract.md §2).
    out : numpy.ndarray, optional
        Array of the result's shape and dtype to write it into (not with overwrite_y).

    Returns
    -------
    numpy.ndarray
        The result: a new array, y (overwrite_y) or out.
    """
    if y is None and out is None and overwrite_y is False:  # the small call, checked in C
        r = _core.level2_plain(SYMMETRIC, order, alpha, beta, a, x, lower, False, False)
        if r is not None:
            return r
    c = _Call("symv", dict(a=a, x=x, y=y), (2, 1, 1), out, ("y", overwrite_y),
              optional=("y",), lower=lower)
    (lower,), (a, x, y) = c.flags, c.arrays
    n = x.shape[0]
    V.square(a, "symv", n, f"x has {n} elements")
    al, bt = V.scalar(alpha, a.dtype, "symv"), V.scalar(beta, a.dtype, "symv", "beta")
    return _product(c, (SYMMETRIC, FULL, lower, False, False, n, n, 0, 0), a, x, al, bt, y, n,
                    order)


def spmv(n, alpha, ap, x, beta=0.0, y=None, lower=False, overwrite_y=False, order="sequential",
         *, out=None):
    """:func:`symv` with the triangle in packed storage: ``ap`` holds it column by column
    (upper: ``A[i, j]`` at ``i + j*(j+1)/2``, i <= j; lower: at ``i + (2n-j-1)*j/2``,
    i >= j). Same terms and bits as symv of the same matrix.

    Parameters
    ----------
    n : int
        The matrix's order.
    alpha, beta, x, y, lower, overwrite_y, order, out
        As in :func:`symv`.
    ap : numpy.ndarray
        1-D array of at least ``n*(n+1)/2`` elements (the rest is not read).
    """
    n = _size(n, "n", "spmv")
    c = _Call("spmv", dict(ap=ap, x=x, y=y), (1, 1, 1), out, ("y", overwrite_y),
              optional=("y",), lower=lower)
    (lower,), (ap, x, y) = c.flags, c.arrays
    _packed(ap, n, "spmv")
    _length(x, n, "x", "spmv", f"n = {n}")
    al, bt = V.scalar(alpha, ap.dtype, "spmv"), V.scalar(beta, ap.dtype, "spmv", "beta")
    return _product(c, (SYMMETRIC, PACKED, lower, False, False, n, n, 0, 0), ap, x, al, bt, y,
                    n, order)


def sbmv(k, alpha, a, x, beta=0.0, y=None, lower=False, overwrite_y=False, order="sequential",
         *, out=None):
    """:func:`symv` of a symmetric band matrix with `k` off-diagonals, in BLAS band
    storage ``a`` of shape (k+1, n): upper ``a[k + i - j, j] = A[i, j]``, lower
    ``a[i - j, j] = A[i, j]``. ``S_i`` sums over the k with ``abs(i - k) <= k`` only:
    the positions outside the band are absent terms (docs/contract.md §3.6).

    Parameters
    ----------
    k : int
        Off-diagonals on each side.
    alpha, beta, x, y, lower, overwrite_y, order, out
        As in :func:`symv`.
    a : numpy.ndarray
        2-D band array, at least k+1 rows, n columns.
    """
    k = _size(k, "k", "sbmv")
    c = _Call("sbmv", dict(a=a, x=x, y=y), (2, 1, 1), out, ("y", overwrite_y),
              optional=("y",), lower=lower)
    (lower,), (a, x, y) = c.flags, c.arrays
    n = x.shape[0]
    _band(a, k + 1, n, "sbmv", f"k = {k}, x has {n} elements")
    al, bt = V.scalar(alpha, a.dtype, "sbmv"), V.scalar(beta, a.dtype, "sbmv", "beta")
    desc = (SYMMETRIC, BAND, lower, False, False, n, n, k if lower else 0, 0 if lower else k)
    return _product(c, desc, a, x, al, bt, y, n, order)


def gbmv(m, n, kl, ku, alpha, a, x, beta=0.0, y=None, trans=False, overwrite_y=False,
         order="sequential", *, out=None):
    """General band matrix-vector product ``alpha * op(A) @ x + beta * y``.

    ``A`` is m x n with `kl` sub- and `ku` superdiagonals, in BLAS band storage:
    ``a[ku + i - j, j] = A[i, j]``. ``S_i`` sums ``op(A)[i, k] * x[k]`` over the k
    inside the band only, ascending (docs/contract.md §3.6): with the whole band
    (kl = m-1, ku = n-1) the bits of gemv, otherwise not those of gemv on the dense
    matrix with zeros (zero terms are not absent terms).

    Parameters
    ----------
    m, n, kl, ku : int
        A's shape and band.
    alpha, beta, y, overwrite_y, order, out
        As in :func:`reproblas.gemv`.
    a : numpy.ndarray
        2-D band array, at least kl+ku+1 rows, n columns.
    x : numpy.ndarray
        1-D, length n (m with trans).
    trans : bool, optional
        Use A's transpose.
    """
    m, n = _size(m, "m", "gbmv"), _size(n, "n", "gbmv")
    kl, ku = _size(kl, "kl", "gbmv"), _size(ku, "ku", "gbmv")
    c = _Call("gbmv", dict(a=a, x=x, y=y), (2, 1, 1), out, ("y", overwrite_y),
              optional=("y",), trans=trans)
    (trans,), (a, x, y) = c.flags, c.arrays
    _band(a, kl + ku + 1, n, "gbmv", f"kl = {kl}, ku = {ku}, n = {n}")
    rows, cols = (n, m) if trans else (m, n)
    _length(x, cols, "x", "gbmv", "op(A)'s columns: check trans")
    al, bt = V.scalar(alpha, a.dtype, "gbmv"), V.scalar(beta, a.dtype, "gbmv", "beta")
    return _product(c, (GENERAL, BAND, False, trans, False, m, n, kl, ku), a, x, al, bt, y, rows,
                    order)


def _triangular(routine, operands, ndims, out, lower, trans, unit_diagonal, overwrite_x):
    """The prologue of trmv/tpmv/tbmv/tbsv/tpsv (flags, destination, operands)."""
    c = _Call(routine, operands, ndims, out, ("x", overwrite_x), lower=lower, trans=trans,
              unit_diagonal=unit_diagonal)
    return c, c.flags, c.arrays


def _tri_run(c, op, desc, a, x, order):
    """trmv/tpmv/tbmv (op MV) and tbsv/tpsv (op SV) on checked operands."""
    code = V.order(order, c.routine)
    if c.overwrite:
        V.writeable(x, "x", c.routine, True)
    if c.out is not None:
        V.output(c.out, x.shape, x.dtype, c.routine, c.be.xp)
    xp = c.be.xp
    if op == MV:
        work = xp.empty(x.shape[0], x.dtype)
        one = np.ones(1, x.dtype)
        c.be.level2(MV, code, desc, a, one, xp.ascontiguousarray(x), np.zeros(1, x.dtype), work)
    else:
        work = xp.array(x, order="C")
        c.be.level2(SV, code, desc, a, None, work, None, None)
    return c.deliver(work, x)


def trmv(a, x, lower=False, trans=False, unit_diagonal=False, overwrite_x=False,
         order="sequential", *, out=None):
    """Triangular matrix-vector product ``op(A) @ x`` in a fixed order.

    ``S_i`` sums ``op(A)[i, k] * x[k]`` over the k of op(A)'s triangle (diagonal
    included), ascending; the other triangle is not read and is no term
    (docs/contract.md §3.6). With `unit_diagonal` the diagonal is taken as 1 (not
    read): the bits of a stored 1.

    Parameters
    ----------
    a : numpy.ndarray
        Square 2-D float32/float64 array, any layout.
    x : numpy.ndarray
        1-D array of a's dtype and length.
    lower : bool, optional
        A is a's lower triangle (default: upper, as scipy).
    trans : bool, optional
        Use A's transpose.
    unit_diagonal : bool, optional
        Take the diagonal as ones (scipy's ``diag=1``).
    overwrite_x : bool, optional
        Write the result into x and return x.
    order : {'sequential', 'pairwise'}, optional
        Summation order (docs/contract.md §2).
    out : numpy.ndarray, optional
        Array of x's shape and dtype to write the result into (not with overwrite_x).

    Returns
    -------
    numpy.ndarray
        The product: a new array, x (overwrite_x) or out.
    """
    if out is None and overwrite_x is False:  # the small call, checked in C
        r = _core.level2_plain(TRIANGULAR, order, 1.0, 0.0, a, x, lower, trans, unit_diagonal)
        if r is not None:
            return r
    c, (lower, trans, unit), (a, x) = _triangular(
        "trmv", dict(a=a, x=x), (2, 1), out, lower, trans, unit_diagonal, overwrite_x)
    n = x.shape[0]
    V.square(a, "trmv", n, f"x has {n} elements")
    desc = (TRIANGULAR, FULL, lower, trans, unit, n, n, 0, 0)
    return _tri_run(c, MV, desc, a, x, order)


def tpmv(n, ap, x, lower=False, trans=False, unit_diagonal=False, overwrite_x=False,
         order="sequential", *, out=None):
    """:func:`trmv` with the triangle in packed storage (as :func:`spmv`): the same
    terms and bits as trmv of the same matrix."""
    n = _size(n, "n", "tpmv")
    c, (lower, trans, unit), (ap, x) = _triangular(
        "tpmv", dict(ap=ap, x=x), (1, 1), out, lower, trans, unit_diagonal, overwrite_x)
    _packed(ap, n, "tpmv")
    _length(x, n, "x", "tpmv", f"n = {n}")
    desc = (TRIANGULAR, PACKED, lower, trans, unit, n, n, 0, 0)
    return _tri_run(c, MV, desc, ap, x, order)


def tbmv(k, a, x, lower=False, trans=False, unit_diagonal=False, overwrite_x=False,
         order="sequential", *, out=None):
    """:func:`trmv` of a triangular band matrix with `k` off-diagonals (band storage as
    :func:`sbmv`); the positions outside the band are absent terms."""
    k = _size(k, "k", "tbmv")
    c, (lower, trans, unit), (a, x) = _triangular(
        "tbmv", dict(a=a, x=x), (2, 1), out, lower, trans, unit_diagonal, overwrite_x)
    n = x.shape[0]
    _band(a, k + 1, n, "tbmv", f"k = {k}, x has {n} elements")
    desc = (TRIANGULAR, BAND, lower, trans, unit, n, n, k if lower else 0, 0 if lower else k)
    return _tri_run(c, MV, desc, a, x, order)


def tbsv(k, a, x, lower=False, trans=False, unit_diagonal=False, overwrite_x=False,
         order="sequential", *, out=None):
    """Solve ``op(A) @ z = x`` for a triangular band A (storage as :func:`tbmv`): the
    :func:`reproblas.trsv` recurrence over the present terms only (docs/contract.md
    §3.6). Returns z (new, x with overwrite_x, or out)."""
    k = _size(k, "k", "tbsv")
    c, (lower, trans, unit), (a, x) = _triangular(
        "tbsv", dict(a=a, x=x), (2, 1), out, lower, trans, unit_diagonal, overwrite_x)
    n = x.shape[0]
    _band(a, k + 1, n, "tbsv", f"k = {k}, x has {n} elements")
    desc = (TRIANGULAR, BAND, lower, trans, unit, n, n, k if lower else 0, 0 if lower else k)
    return _tri_run(c, SV, desc, a, x, order)


def tpsv(n, ap, x, lower=False, trans=False, unit_diagonal=False, overwrite_x=False,
         order="sequential", *, out=None):
    """Solve ``op(A) @ z = x`` for a packed triangular A (storage as :func:`tpmv`): the
    bits of :func:`reproblas.trsv` on the unpacked matrix."""
    n = _size(n, "n", "tpsv")
    c, (lower, trans, unit), (ap, x) = _triangular(
        "tpsv", dict(ap=ap, x=x), (1, 1), out, lower, trans, unit_diagonal, overwrite_x)
    _packed(ap, n, "tpsv")
    _length(x, n, "x", "tpsv", f"n = {n}")
    desc = (TRIANGULAR, PACKED, lower, trans, unit, n, n, 0, 0)
    return _tri_run(c, SV, desc, ap, x, order)


def _rank(c, desc, a, al, x, y, shape):
    """syr/spr/syr2/spr2 on checked operands; a None: zeros of `shape`."""
    xp = c.be.xp
    if a is not None and c.overwrite:
        V.writeable(a, c.dest, c.routine, True)
    if c.out is not None:
        V.output(c.out, shape, x.dtype, c.routine, xp)
    work = xp.zeros(shape, x.dtype) if a is None else xp.array(a, order="C")
    c.be.level2(RANK, 0, desc, work, al, xp.ascontiguousarray(x), None,
                None if y is None else xp.ascontiguousarray(y))
    return c.deliver(work, a)


def syr(alpha, x, lower=False, a=None, overwrite_a=False, *, out=None):
    """Symmetric rank-1 update of a's stored triangle:
    ``a[i, j] = fma(x[i], alpha*x[j], a[i, j])`` there, ``alpha*x[j]`` rounded once; the
    other triangle is neither read nor written (zeros when a is None, as scipy).
    No sum, so no order. Bits: the triangle of :func:`reproblas.ger` ``(alpha, x, x, a)``.
    """
    c = _Call("syr", dict(x=x, a=a), (1, 2), out, ("a", overwrite_a), optional=("a",),
              lower=lower)
    (lower,), (x, a) = c.flags, c.arrays
    n = x.shape[0]
    if a is not None:
        V.square(a, "syr", n, f"x has {n} elements")
    al = V.scalar(alpha, x.dtype, "syr")
    desc = (SYMMETRIC, FULL, lower, False, False, n, n, 0, 0)
    return _rank(c, desc, a, al, x, None, (n, n))


def syr2(alpha, x, y, lower=False, a=None, overwrite_a=False, *, out=None):
    """Symmetric rank-2 update of a's stored triangle:
    ``a[i, j] = fma(y[i], alpha*x[j], fma(x[i], alpha*y[j], a[i, j]))`` there (the
    reference BLAS's order); the other triangle is neither read nor written."""
    c = _Call("syr2", dict(x=x, y=y, a=a), (1, 1, 2), out, ("a", overwrite_a), optional=("a",),
              lower=lower)
    (lower,), (x, y, a) = c.flags, c.arrays
    n = x.shape[0]
    V.same_length("syr2", x, y)
    if a is not None:
        V.square(a, "syr2", n, f"x has {n} elements")
    al = V.scalar(alpha, x.dtype, "syr2")
    desc = (SYMMETRIC, FULL, lower, False, False, n, n, 0, 0)
    return _rank(c, desc, a, al, x, y, (n, n))


def spr(n, alpha, x, ap, lower=False, overwrite_ap=False, *, out=None):
    """:func:`syr` on a packed triangle (storage as :func:`spmv`); returns the updated
    ap (new, ap itself with overwrite_ap, or out). Elements of ap past n*(n+1)/2 are
    copied unchanged."""
    n = _size(n, "n", "spr")
    c = _Call("spr", dict(x=x, ap=ap), (1, 1), out, ("ap", overwrite_ap), lower=lower)
    (lower,), (x, ap) = c.flags, c.arrays
    _packed(ap, n, "spr")
    _length(x, n, "x", "spr", f"n = {n}")
    al = V.scalar(alpha, x.dtype, "spr")
    desc = (SYMMETRIC, PACKED, lower, False, False, n, n, 0, 0)
    return _rank(c, desc, ap, al, x, None, ap.shape)


def spr2(n, alpha, x, y, ap, lower=False, overwrite_ap=False, *, out=None):
    """:func:`syr2` on a packed triangle (storage as :func:`spmv`)."""
    n = _size(n, "n", "spr2")
    c = _Call("spr2", dict(x=x, y=y, ap=ap), (1, 1, 1), out, ("ap", overwrite_ap),
              lower=lower)
    (lower,), (x, y, ap) = c.flags, c.arrays
    _packed(ap, n, "spr2")
    _length(x, n, "x", "spr2", f"n = {n}")
    _length(y, n, "y", "spr2", f"n = {n}")
    al = V.scalar(alpha, x.dtype, "spr2")
    desc = (SYMMETRIC, PACKED, lower, False, False, n, n, 0, 0)
    return _rank(c, desc, ap, al, x, y, ap.shape)
