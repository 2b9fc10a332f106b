"""The rest of the reference BLAS's level 1: rot, rotm, rotg, rotmg, swap, copy, sdsdot, dsdot
(docs/contract.md §3.5).

Names, argument order and results are scipy.linalg.blas's (``srot``/``drot`` and so on, the
element type chosen by the arrays as in the rest of reproblas). As everywhere in reproblas a
vector is a 1-D array with any strides: scipy's ``n, offx, incx`` are a view such as
``x[offx::incx]``. The elementwise routines are single rounded NumPy operations (no fma), the
same bits as the drop-in library's C code; sdsdot and dsdot are :func:`reproblas.dot` on the
vectors widened to float64, so they run wherever ``dot`` runs (CPU paths, CUDA).
"""
import numpy as np

from . import _backend
from . import _validate as V


def _pair(routine, x, y):
    be = _backend.select(x, y)
    x, y = V.operands(be, routine, ("x", "y"), (x, y), (1, 1), check=V.vector)
    V.same_length(routine, x, y)
    return be, x, y


def _targets(be, routine, x, y, overwrite_x, overwrite_y):
    """Where the results go: x and y themselves with overwrite_*, else new arrays."""
    ox = V.flag(overwrite_x, "overwrite_x", routine)
    oy = V.flag(overwrite_y, "overwrite_y", routine)
    V.writeable(x, "x", routine, ox)
    V.writeable(y, "y", routine, oy)
    return (x if ox else be.xp.empty_like(x)), (y if oy else be.xp.empty_like(y))


def rot(x, y, c, s, *, overwrite_x=False, overwrite_y=False):
    """Plane rotation: ``x_k <- c*x_k + s*y_k``, ``y_k <- c*y_k - s*x_k`` (scipy's ``srot``/
    ``drot``).

    Each product and each sum is rounded once, without fma, from the old values.

    Parameters
    ----------
    x, y : numpy.ndarray
        1-D arrays of one dtype (float32 or float64) and length, any strides.
    c, s : float or numpy scalar
        The rotation, rounded to the arrays' dtype as ``alpha`` elsewhere.
    overwrite_x, overwrite_y : bool, optional
        Write the result into x (y) instead of a new array.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        The rotated x and y.
    """
    be, x, y = _pair("rot", x, y)
    c = V.scalar(c, x.dtype, "rot", "c")[0]
    s = V.scalar(s, x.dtype, "rot", "s")[0]
    rx, ry = _targets(be, "rot", x, y, overwrite_x, overwrite_y)
    nx = c * x + s * y
    ny = c * y - s * x
    rx[...] = nx
    ry[...] = ny
    return rx, ry


def rotm(x, y, param, *, overwrite_x=False, overwrite_y=False):
    """Modified plane rotation by the matrix H that ``param`` describes (scipy's ``srotm``).

    ``param = (flag, h11, h21, h12, h22)``; flag -1: H is full; 0: h11 = h22 = 1; 1:
    h21 = -1, h12 = 1; -2: H is the identity (x, y unchanged). The reference BLAS's formulas,
    each operation rounded once (docs/contract.md §3.5).

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        The rotated x and y (new arrays unless overwrite_*).
    """
    be, x, y = _pair("rotm", x, y)
    p = np.asarray(param)
    if p.shape != (5,) or p.dtype.kind not in "fi":
        raise ValueError(f"reproblas.rotm: param must hold 5 numbers (flag, h11, h21, h12, "
                         f"h22), got {param!r}")
    flag, h11, h21, h12, h22 = (V.scalar(float(v), x.dtype, "rotm", "param")[0] for v in p)
    rx, ry = _targets(be, "rotm", x, y, overwrite_x, overwrite_y)
    if flag == -2:
        nx, ny = x, y
    elif flag < 0:
        nx, ny = x * h11 + y * h12, x * h21 + y * h22
    elif flag == 0:
        nx, ny = x + y * h12, x * h21 + y
    else:
        nx, ny = x * h11 + y, -x + h22 * y
    nx, ny = be.xp.array(nx, copy=True), be.xp.array(ny, copy=True)
    rx[...] = nx
    ry[...] = ny
    return rx, ry


def swap(x, y):
    """Exchanges the elements of x and y in place (scipy's ``sswap``); returns ``(x, y)``."""
    be, x, y = _pair("swap", x, y)
    V.writeable(x, "x", "swap", True)
    V.writeable(y, "y", "swap", True)
    old = be.xp.array(x, copy=True)
    x[...] = y
    y[...] = old
    return x, y


def copy(x, y):
    """Copies x into y in place (scipy's ``scopy``); returns y."""
    be, x, y = _pair("copy", x, y)
    V.writeable(y, "y", "copy", True)
    y[...] = x
    return y


def _dtype_of(routine, *values):
    """float32 when a value is a NumPy float32 and none is float64, else float64."""
    kinds = {np.asarray(v).dtype for v in values if isinstance(v, (np.generic, np.ndarray))}
    if kinds - {np.dtype(np.float32), np.dtype(np.float64)}:
        raise TypeError(f"reproblas.{routine}: arguments must be floats or float32/float64 "
                        f"NumPy scalars, got {values!r}")
    if len(kinds) > 1:
        raise TypeError(f"reproblas.{routine}: float32 and float64 arguments mixed: "
                        f"{values!r}")
    return np.float32 if kinds == {np.dtype(np.float32)} else np.float64


def _scalars(routine, values):
    dt = _dtype_of(routine, *values)
    out = []
    for v in values:
        if isinstance(v, bool) or not isinstance(v, (int, float, np.floating)):
            raise TypeError(f"reproblas.{routine}: {v!r} is not a float")
        out.append(V.scalar(v, np.dtype(dt), routine, "argument")[0])
    return dt, out


def rotg(a, b):
    """Givens rotation ``(c, s)`` with ``[c s; -s c] @ [a, b] = [r, 0]`` (scipy's ``srotg``/
    ``drotg``).

    The reference BLAS's safe-scaling construction (docs/contract.md §3.5). float32 when a or
    b is a NumPy float32, else float64.

    Returns
    -------
    (numpy scalar, numpy scalar)
        c and s.
    """
    dt, (a, b) = _scalars("rotg", (a, b))
    one, zero = dt(1), dt(0)
    info = np.finfo(dt)
    safmin = dt(np.ldexp(1.0, int(info.minexp)))
    safmax = dt(np.ldexp(1.0, int(info.maxexp) - 1))
    anorm, bnorm = abs(a), abs(b)
    if bnorm == 0:
        return one, zero
    if anorm == 0:
        return zero, one
    scl = min(safmax, max(safmin, anorm, bnorm))
    sigma = (dt(-1) if np.signbit(a) else one) if anorm > bnorm else (
        dt(-1) if np.signbit(b) else one)
    sa, sb = a / scl, b / scl
    r = sigma * (scl * np.sqrt(sa * sa + sb * sb))
    return a / r, b / r


def rotmg(d1, d2, x1, y1):
    """Modified Givens rotation (scipy's ``srotmg``/``drotmg``): the 5 numbers ``param =
    (flag, h11, h21, h12, h22)`` of H with ``H @ [sqrt(d1)*x1, sqrt(d2)*y1]`` having a zero
    second component, by the reference BLAS's algorithm step for step (docs/contract.md §3.5).
    Positions that the flag leaves implicit are 0.

    Returns
    -------
    numpy.ndarray
        param, float32 when an argument is a NumPy float32, else float64.
    """
    dt, (d1, d2, x1, y1) = _scalars("rotmg", (d1, d2, x1, y1))
    gam = dt(4096)
    gamsq, rgamsq = (dt(1.67772e7), dt(5.96046e-8)) if dt is np.float32 else (
        dt(16777216.0), dt(5.9604645e-8))
    param = np.zeros(5, dt)
    h11 = h12 = h21 = h22 = dt(0)
    if d1 < 0:
        flag = dt(-1)
        d1 = d2 = x1 = dt(0)
    else:
        p2 = d2 * y1
        if p2 == 0:
            param[0] = -2
            return param
        p1 = d1 * x1
        q2, q1 = p2 * y1, p1 * x1
        if abs(q1) > abs(q2):
            h21, h12 = -y1 / x1, p2 / p1
            u = dt(1) - h12 * h21
            if u > 0:
                flag = dt(0)
                d1, d2, x1 = d1 / u, d2 / u, x1 * u
            else:
                flag = dt(-1)
                h11 = h12 = h21 = h22 = dt(0)
                d1 = d2 = x1 = dt(0)
        elif q2 < 0:
            flag = dt(-1)
            h11 = h12 = h21 = h22 = dt(0)
            d1 = d2 = x1 = dt(0)
        else:
            flag = dt(1)
            h11, h22 = p1 / p2, x1 / y1
            u = dt(1) + h11 * h22
            d1, d2 = d2 / u, d1 / u
            x1 = y1 * u
        gg = gam * gam
        if d1 != 0:
            while (d1 <= rgamsq or d1 >= gamsq) and np.isfinite(d1):
                if flag == 0:
                    h11 = h22 = dt(1)
                else:
                    h21, h12 = dt(-1), dt(1)
                flag = dt(-1)
                if d1 <= rgamsq:
                    d1, x1, h11, h12 = d1 * gg, x1 / gam, h11 / gam, h12 / gam
                else:
                    d1, x1, h11, h12 = d1 / gg, x1 * gam, h11 * gam, h12 * gam
        if d2 != 0:
            while (abs(d2) <= rgamsq or abs(d2) >= gamsq) and np.isfinite(d2):
                if flag == 0:
                    h11 = h22 = dt(1)
                else:
                    h21, h12 = dt(-1), dt(1)
                flag = dt(-1)
                if abs(d2) <= rgamsq:
                    d2, h21, h22 = d2 * gg, h21 / gam, h22 / gam
                else:
                    d2, h21, h22 = d2 / gg, h21 * gam, h22 * gam
    if flag < 0:
        param[1:] = (h11, h21, h12, h22)
    elif flag == 0:
        param[2:4] = (h21, h12)
    else:
        param[1], param[4] = h11, h22
    param[0] = flag
    return param


def _widened(routine, x, y, order):
    """The backend, the order's code and x, y widened to float64 (on x's device)."""
    be, x, y = _pair(routine, x, y)
    if x.dtype != np.float32:
        raise TypeError(f"reproblas.{routine}: x and y must be float32 (the products are "
                        f"formed in float64), got {x.dtype}; for float64 use reproblas.dot")
    code = V.order(order, routine)
    return be, code, x.astype(np.float64), y.astype(np.float64)


def dsdot(x, y, order="sequential"):
    """Dot product of float32 vectors accumulated in float64: float64 ``dot`` of the widened
    vectors, whose products are exact (docs/contract.md §3.5).

    Parameters
    ----------
    x, y : numpy.ndarray
        1-D float32 arrays of one length (any strides), or GPU arrays.
    order : {'sequential', 'pairwise'}, optional
        Summation order (contract §2).

    Returns
    -------
    numpy.float64
        (a 0-d float64 array for GPU arrays, as :func:`reproblas.dot` returns there)
    """
    be, code, x64, y64 = _widened("dsdot", x, y, order)
    return be.reduce("dot", code, x64, y64)


def sdsdot(x, y, sb=0.0, order="sequential"):
    """``sb`` plus the dot product of float32 vectors, accumulated in float64 and rounded once
    to float32: the float64 sum of the terms ``sb, x_0*y_0, ...`` in this order
    (docs/contract.md §3.5; the reference BLAS's sdsdot in the sequential order).

    Parameters
    ----------
    x, y : numpy.ndarray
        1-D float32 arrays of one length (any strides), or GPU arrays.
    sb : float or numpy.float32, optional
        The first term, rounded to float32 as the reference's REAL argument.
    order : {'sequential', 'pairwise'}, optional
        Summation order (contract §2).

    Returns
    -------
    numpy.float32
        (a 0-d float32 array for GPU arrays, as :func:`reproblas.dot` returns there)
    """
    be, code, x64, y64 = _widened("sdsdot", x, y, order)
    xp = be.xp
    head = xp.asarray(V.scalar(sb, np.dtype(np.float32), "sdsdot", "sb").astype(np.float64))
    r = be.reduce("dot", code, xp.concatenate([head, x64]),
                  xp.concatenate([xp.ones(1, np.float64), y64]))
    return np.float32(r) if be is _backend.CPU else r.astype(np.float32)
