"""CPU backend: the C core (reproblas._core) on NumPy arrays.

The methods receive arguments that the public routines have checked
(reproblas/_validate.py): arrays of one float dtype with the right dimensions
and shapes, the order's core code, scalars as 1-element arrays of that dtype.
The core reads and writes matrices through element strides, so transposes,
C/Fortran order and strided or negative-stride views are used as they are.
"""
import numpy as np
from repro_runtime.knobs import bad_count, isa_from_code

from . import _core

_INT_MAX = 2 ** 31 - 1


# ---- environment knobs (docs/contract.md §4), read at every call ----

_isa_codes = {}  # REPROBLAS_ISA value -> path code (the CPU does not change)


def isa():
    name = _core.env(b"REPROBLAS_ISA")
    code = _isa_codes.get(name)
    if code is None:
        code = _isa_codes.setdefault(name, _core.isa_code(name))
    if code < 0:
        isa_from_code("REPROBLAS_ISA", name, code, _core.isa_names(), _core.best_isa())
    return code


def threads():
    n = _core.threads()  # the C ABI's parser
    if n < 0:
        raise bad_count("REPROBLAS_NUM_THREADS", _core.env(b"REPROBLAS_NUM_THREADS"), _INT_MAX)
    return n


# ---- layouts ----

def contiguous(x):
    """x itself if contiguous and aligned, else a copy in index order (same values)."""
    flags = x.flags
    if flags.c_contiguous and flags.aligned:
        return x
    return np.require(x, requirements=["C", "A"])


def elements(a):
    """(array, element strides) of a 2-D array: a itself when its strides are
    whole elements and it is aligned, else a C-ordered copy (same values, same
    index order). Unrolled for speed: small calls are dominated by this layer."""
    size = a.itemsize
    (s0, s1), (n0, n1) = a.strides, a.shape
    if a.flags.aligned and (n0 <= 1 or s0 % size == 0) and (n1 <= 1 or s1 % size == 0):
        return a, (s0 // size if n0 > 1 else 0, s1 // size if n1 > 1 else 0)
    a = np.ascontiguousarray(a)
    return a, (a.strides[0] // size, a.strides[1] // size)


def elements_nd(a):
    """(array, int64 element strides) of an N-D array, as elements (0 stays 0
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


def _output(c, overwrite, needs_old):
    """Where the core writes: c itself (overwrite), or a new C-ordered array (the
    caller assigns it to c when overwrite: deterministically also for a c whose
    elements share memory, as in axpy/scal)."""
    if overwrite:
        view = c[:, None] if c.ndim == 1 else c
        if _self_overlapping(view):
            return np.array(c, order="C")
        work, _ = elements(view)
        return c if work is view else (work[:, 0] if c.ndim == 1 else work)
    out = np.empty(c.shape, dtype=c.dtype)
    if needs_old:
        out[...] = c
    return out


def direct_out(out, *inputs, contiguous=False):
    """Whether the core may write a caller's out= array as it is: aligned whole-element
    strides (C-contiguous if `contiguous`), no two elements sharing memory, and no memory
    shared with an input (else the result goes through a new array, then into out)."""
    if contiguous and not out.flags.c_contiguous:
        return False
    if not out.flags.aligned or any(s % out.itemsize for s in out.strides):
        return False
    if out.ndim and _self_overlapping(out):
        return False
    return not any(x is not None and np.may_share_memory(x, out) for x in inputs)


def _unshared(out, *inputs):
    """The inputs, each copied if it may share memory with out: every result
    must use the old values (contract §3), but out is written block by block."""
    return [x.copy() if x is not None and np.may_share_memory(x, out) else x for x in inputs]


def _finish(out, c, overwrite):
    """The result: c (updated from out when they differ) when overwrite, else out."""
    if c is not None and overwrite and out is not c:
        c[...] = out
        return c
    return out


def _op(x, trans):
    """x as the core reads it, with op(x)'s element strides."""
    x, (rs, cs) = elements(x)
    return (x, cs, rs) if trans else (x, rs, cs)


def _run_gemm(order, alpha, a, trans_a, b, trans_b, beta, c, uplo=0, a_sym=0, b_sym=0, pair=None):
    """c <- alpha*op(a)op(b) [+ beta*c] through the core; c: the output array (only its
    triangle when uplo is _validate.LOWER or UPPER). a_sym / b_sym: that operand is
    symmetric, read from one triangle (_validate.LOWER / UPPER); pair: syr2k's (a2, b2),
    taken with trans_a / trans_b, whose products alternate with op(a)op(b)'s."""
    m, n = c.shape
    a, a_rs, a_cs = _op(a, trans_a)
    b, b_rs, b_cs = _op(b, trans_b)
    k = a.shape[0] if trans_a else a.shape[1]
    work, (c_rs, c_cs) = elements(c)
    if a_sym or b_sym or pair is not None:
        a2, a2_rs, a2_cs = _op(pair[0], trans_a) if pair else (None, 0, 0)
        b2, b2_rs, b2_cs = _op(pair[1], trans_b) if pair else (None, 0, 0)
        _core.gemm_ex(order, m, n, 2 * k if pair else k, alpha, a, a_rs, a_cs, a_sym, b, b_rs,
                      b_cs, b_sym, a2, a2_rs, a2_cs, b2, b2_rs, b2_cs, beta, work, c_rs, c_cs,
                      isa(), threads(), uplo)
    else:
        _core.gemm(order, m, n, k, alpha, a, a_rs, a_cs, b, b_rs, b_cs, beta, work, c_rs, c_cs,
                   isa(), threads(), uplo)
    if work is not c:
        c[...] = work
    return c


_CONV_ROUTINES = {"conv2d": _core.CONV2D, "conv2d_grad_input": _core.CONV2D_GRAD_INPUT,
                  "conv2d_grad_weight": _core.CONV2D_GRAD_WEIGHT,
                  "conv2d_grad_bias": _core.CONV2D_GRAD_BIAS}
_MAX_DIM = 2 ** 30  # RB_CONV_MAX_DIM of conv.h


def _core_shape(x_shape, w_shape, g, groups):
    """The 16 ints of the core's rb_conv_shape."""
    n, c, h, wd = x_shape
    k, _, r, s = w_shape
    return (n, c, h, wd, k, r, s) + g.out + g.stride + g.pad + g.dilation + (groups,)


def _conv(routine, order, shape, a, b, bias, out):
    """The core call on C-ordered copies where needed, once shape is known to fit."""
    if max(shape) > _MAX_DIM:
        raise ValueError(f"reproblas.{routine}: sizes, strides, paddings and "
                         f"dilations must be at most 2**30, got {shape}")
    a, b, bias = (None if v is None else contiguous(v) for v in (a, b, bias))
    _core.conv(_CONV_ROUTINES[routine], order, shape, a, b, bias, out, isa(), threads())
    return out


class CpuBackend:
    """The backend protocol of reproblas/_backend.py over the C core."""
    xp = np
    scalars = True  # a 0-d matmul result is a NumPy scalar, as np.matmul's

    @staticmethod
    def as_array(x, name, routine):
        # NumPy arrays as they are; lists and tuples as np.asarray makes them when that
        # is a float dtype (reproblas/__init__.py "Sequences"); anything else fails the checks
        if isinstance(x, (list, tuple)):
            from ._validate import sequence
            return sequence(x, name, routine)
        return x

    # ---- level 1 ----

    @staticmethod
    def reduce(routine, order, x, y):
        return _core.reduce(routine, order, contiguous(x), None if y is None else contiguous(y),
                            isa(), threads())

    @staticmethod
    def reduce_rows(routine, order, x2, y2, out):
        """out[i] = the reduction of row i of the 2-D x2 (and y2): one core call per row,
        each the 1-D call's (the core has no batched reduction)."""
        isa_, threads_ = isa(), threads()
        x2 = contiguous(x2)
        y2 = None if y2 is None else contiguous(y2)
        for i in range(x2.shape[0]):
            out[i] = _core.reduce(routine, order, x2[i], None if y2 is None else y2[i],
                                  isa_, threads_)
        return out

    @staticmethod
    def iamax(x):
        return int(_core.iamax(contiguous(x), isa(), threads()))

    @staticmethod
    def axpy(alpha, x, y):
        if np.may_share_memory(x, y):
            x = x.copy()  # y is written while x is read: read the old values
        isa_, threads_ = isa(), threads()
        work = contiguous(y)
        _core.axpy(alpha, contiguous(x), work, isa_, threads_)
        if work is not y:
            y[...] = work

    @staticmethod
    def scal(alpha, x):
        isa_, threads_ = isa(), threads()
        work = contiguous(x)
        _core.scal(alpha, work, isa_, threads_)
        if work is not x:
            x[...] = work

    # ---- levels 2 and 3 ----

    @staticmethod
    def gemm(order, alpha, a, trans_a, b, trans_b, beta, c, shape, overwrite, reads_c, uplo=0,
             a_sym=0, b_sym=0, pair=None):
        """alpha*op(a)op(b) [+ beta*c]: c itself when overwrite, else a new array."""
        if c is None:
            out = np.empty(shape, dtype=a.dtype)
        else:
            out = _output(c, overwrite, reads_c)
            a, b = _unshared(out, a, b)
            if pair is not None:
                pair = _unshared(out, *pair)
        _run_gemm(order, alpha, a, trans_a, b, trans_b, beta, out, uplo, a_sym, b_sym, pair)
        return _finish(out, c, overwrite)

    @staticmethod
    def gemv(order, alpha, a, trans, x, beta, y, m, overwrite, reads_y):
        if y is None:
            out = np.empty(m, dtype=a.dtype)
        else:
            out = _output(y, overwrite, reads_y)
            a, x = _unshared(out, a, x)
        _run_gemm(order, alpha, a, trans, x[:, None], False, beta, out[:, None])
        return _finish(out, y, overwrite)

    @staticmethod
    def ger(alpha, x, y, a, shape, overwrite):
        if a is None:
            out = np.zeros(shape, dtype=x.dtype)
        else:
            out = _output(a, overwrite, True)
            x, y = _unshared(out, x, y)
        isa_, threads_ = isa(), threads()
        work, (rs, cs) = elements(out)
        _core.ger(alpha, contiguous(x), contiguous(y), work, rs, cs, isa_, threads_)
        if work is not out:
            out[...] = work
        return _finish(out, a, overwrite)

    @staticmethod
    def matmul(order, a2, b2, batch, mkn, out=None):
        """The (batch, m, n) products of the broadcast batch entries (into out, a
        direct_out array of that shape, when given)."""
        m, k, n = mkn
        if out is None:
            out = np.empty(batch + (m, n), dtype=a2.dtype)
        ab, a_st = elements_nd(np.broadcast_to(a2, batch + (m, k)))
        bb, b_st = elements_nd(np.broadcast_to(b2, batch + (k, n)))
        _core.matmul(order, ab, a_st, bb, b_st, out, elements_nd(out)[1], k, isa(), threads())
        return out

    # ---- solves ----

    @staticmethod
    def trsm(order, right, lower, trans, unit, alpha, a, b, overwrite, multiply=False):
        """X (b's shape): b itself when overwrite, else a new array. multiply: the
        product alpha op(a) b / alpha b op(a) instead (trmm)."""
        out = _output(b, overwrite, True)
        (a,) = _unshared(out, a)
        work2 = out[:, None] if out.ndim == 1 else out
        work, (b_rs, b_cs) = elements(work2)
        a, (a_rs, a_cs) = elements(a)
        m, n = work.shape
        _core.trsm(order, right, lower, trans, unit, alpha, a, a_rs, a_cs, work, m, n,
                   b_rs, b_cs, isa(), threads(), multiply)
        if work is not work2:
            work2[...] = work
        return _finish(out, b, overwrite)

    # ---- level 2 on symmetric, triangular, band, packed matrices (_level2.py) ----

    @staticmethod
    def level2(op, order, desc, a, alpha, x, beta, y):
        """One rb_l2_* call (op: _core.L2_MV / L2_SV / L2_RANK): y (MV), x (SV) or a
        (RANK) is updated in place; desc without a's element strides."""
        if a.ndim == 1:
            if not (a.flags.aligned and a.strides[0] % a.itemsize == 0):
                a = np.ascontiguousarray(a)
            rs, cs = (a.strides[0] // a.itemsize if a.shape[0] > 1 else 1), 0
        else:
            a, (rs, cs) = elements(a)
        size = x.itemsize
        incx = x.strides[0] // size if x.shape[0] > 1 else 1
        incy = y.strides[0] // size if y is not None and y.shape[0] > 1 else 1
        _core.level2(op, order, desc + (rs, cs), a, alpha, x, incx, beta, y, incy, isa(),
                     threads())

    # ---- convolutions ----

    @staticmethod
    def conv2d(order, x, w, b, groups, g, shape, out=None):
        y = np.empty(shape, dtype=x.dtype) if out is None else out
        if y.size == 0:
            return y
        return _conv("conv2d", order, _core_shape(x.shape, w.shape, g, groups), x, w, b, y)

    @staticmethod
    def conv2d_grad_input(order, gy, w, groups, g, shape, out=None):
        gx = np.empty(shape, dtype=gy.dtype) if out is None else out
        if gx.size == 0:
            return gx
        return _conv("conv2d_grad_input", order, _core_shape(shape, w.shape, g, groups), gy,
                     w, None, gx)

    @staticmethod
    def conv2d_grad_weight(order, x, gy, groups, g, shape, out=None):
        gw = np.empty(shape, dtype=x.dtype) if out is None else out
        if gw.size == 0:
            return gw
        return _conv("conv2d_grad_weight", order, _core_shape(x.shape, shape, g, groups), x,
                     gy, None, gw)

    @staticmethod
    def conv2d_grad_bias(order, gy, out=None):
        n, k, p, q = gy.shape
        gb = np.empty(k, dtype=gy.dtype) if out is None else out
        if k == 0 or p == 0 or q == 0:  # no positions: every sum is empty, +0
            gb[...] = 0
            return gb
        # as the gradient of a 1x1 convolution of stride 1 whose output is grad_output
        shape = (n, k, p, q, k, 1, 1, p, q, 1, 1, 0, 0, 1, 1, k)
        return _conv("conv2d_grad_bias", order, shape, gy, None, None, gb)


BACKEND = CpuBackend()
