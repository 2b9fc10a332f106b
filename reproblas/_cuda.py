"""CUDA backend of reproblas: launch geometry and host-side joins for the
kernels of src/cuda/reproblas.cu (loaded by crlibm_py._cuda).

Every function takes a *device* (``xp`` + ``function(name)``, see
crlibm_py/_cuda.py) and arrays of that device whose dtype and shape the
public layer (_api.py, _level23.py) has already checked. The bits are the
CPU's: the kernels run SPEC's terms in SPEC's order; this layer only decides
who computes which aligned block, which never changes an operation.
"""
import numpy as np

from crlibm_py._cuda import THREADS, grid_1d, on_device

from . import _fp

TERMS = {"sum": 0, "asum": 1, "dot": 2, "nrm2": 3}
PIECE = 2048       # terms per pairwise item at least (THREADS leaves of 8)
MAX_ITEMS = 4096   # the piece doubles until the items fit
# (BM, BN) of the gemm tiles in reproblas.cu; 256 threads each.
TILES = {("seq", "f32"): (128, 128), ("seq", "f64"): (64, 64), ("pw", "f32"): (32, 32),
         ("pw", "f64"): (32, 32)}
GEMV_ROWS = 256
TRSM_BLOCK = 128   # rows per diagonal block of a lower solve (a power of two)
CONV_CHANNELS = 8  # output channels per thread of the conv kernels (RB_CONV_TK)


def _sfx(dtype):
    return "f32" if dtype == np.float32 else "f64"


def pairwise_items(n):
    """(piece, items): SPEC's pairwise tree over n terms as aligned power-of-two
    items, n's binary expansion largest block first, each block cut into items
    of min(block, piece) terms (the kernels find their item from n and piece:
    rb_pairwise_item in level1.cuh)."""
    piece = PIECE
    while n // piece > MAX_ITEMS:
        piece *= 2
    return piece, sum(max(1, (1 << b) // piece) for b in range(n.bit_length()) if n >> b & 1)


def _ordered_sum(dev, term, x, y, scale, order, two_e=None):
    """A 1-element array: S over the terms (SPEC §2), or sqrt(S) * two_e."""
    xp, dtype = dev.xp, x.dtype
    t, n, sfx = dtype.type, x.shape[0], _sfx(dtype)
    out = xp.empty(1, dtype)
    y = x if y is None else y
    if order == "sequential":  # one item (the join's n = piece = 1): passed through
        val, tree, piece = xp.empty(1, dtype), 1, 1
        dev.function(f"rb_sequential_{sfx}")((1,), (THREADS,), (
            np.int32(term), x, y, t(scale), np.int64(n), val))
    else:
        (piece, items), tree = pairwise_items(n), n
        val = xp.empty(items, dtype)
        dev.function(f"rb_pairwise_{sfx}")((items,), (THREADS,), (
            np.int32(term), x, y, t(scale), np.int64(n), np.int64(piece), val))
    dev.function(f"rb_join_{sfx}")((1,), (1,), (
        val, np.int64(tree), np.int64(piece), np.int32(two_e is not None),
        t(1 if two_e is None else two_e), out))
    return out


def _max_abs(dev, x):
    """(max abs(x_k) over the non-NaN elements, whether x has a NaN), on the host."""
    xp, n = dev.xp, x.shape[0]
    grid = grid_1d(dev, n)
    block_max = xp.empty(grid[0], x.dtype)
    has_nan = xp.zeros(1, np.int32)
    dev.function(f"rb_max_abs_{_sfx(x.dtype)}")(grid, (THREADS,), (
        x, np.int64(n), block_max, has_nan))
    return x.dtype.type(float(block_max.max())), bool(int(has_nan[0]))  # float(): CuPy 0-d


def reduce(dev, routine, x, y, order):
    """sum / asum / dot / nrm2 of contiguous 1-D x (and y): a 0-d array."""
    xp, dtype, n = dev.xp, x.dtype, x.shape[0]
    if n == 0:
        return xp.zeros((), dtype)
    if routine != "nrm2":
        return _ordered_sum(dev, TERMS[routine], x, y, 1, order).reshape(())
    m, has_nan = _max_abs(dev, x)
    if has_nan or np.isinf(m) or _fp.zero_bits(m):
        return xp.full((), np.nan if has_nan else m, dtype)
    info = np.finfo(dtype)
    e = min(max(_fp.floor_log2(m), int(info.minexp)), int(info.maxexp) - 1)
    return _ordered_sum(dev, TERMS["nrm2"], x, None, np.ldexp(1.0, -e), order,
                        two_e=np.ldexp(1.0, e)).reshape(())


def iamax(dev, x):
    """Index of the first NaN, else of the first maximal abs(x_k); x not empty."""
    xp, n = dev.xp, x.shape[0]
    m, has_nan = _max_abs(dev, x)
    first = xp.full(1, np.iinfo(np.uint64).max, np.uint64)
    dev.function(f"rb_find_first_{_sfx(x.dtype)}")(grid_1d(dev, n), (THREADS,), (
        x, np.int64(n), m, np.int32(has_nan), first))
    return int(first[0])


def axpy(dev, alpha, x, y):
    """y <- fma(alpha, x, y) on contiguous x, y."""
    n = y.shape[0]
    if n:
        dev.function(f"rb_axpy_{_sfx(y.dtype)}")(grid_1d(dev, n), (THREADS,), (
            y.dtype.type(alpha), x, y, np.int64(n)))


def scal(dev, alpha, x):
    n = x.shape[0]
    if n:
        dev.function(f"rb_scal_{_sfx(x.dtype)}")(grid_1d(dev, n), (THREADS,), (
            x.dtype.type(alpha), x, np.int64(n)))


def element_strides(dev, a):
    """(array, element strides) of a 2-D device array: a itself when its strides are
    whole elements, else a contiguous copy (same values)."""
    size = a.itemsize
    (s0, s1), (n0, n1) = a.strides, a.shape
    if (n0 <= 1 or s0 % size == 0) and (n1 <= 1 or s1 % size == 0):
        return a, (s0 // size if n0 > 1 else 0, s1 // size if n1 > 1 else 0)
    a = dev.xp.ascontiguousarray(a)
    return a, (a.strides[0] // size, a.strides[1] // size)


def gemm(dev, order, alpha, a, trans_a, b, trans_b, beta, c):
    """c <- alpha*op(a)op(b) [+ beta*c] in place (c: any strides, not aliasing a, b)."""
    m, n = c.shape
    a, (a_rs, a_cs) = element_strides(dev, a)
    b, (b_rs, b_cs) = element_strides(dev, b)
    if trans_a:
        a_rs, a_cs = a_cs, a_rs
    if trans_b:
        b_rs, b_cs = b_cs, b_rs
    k = a.shape[0] if trans_a else a.shape[1]
    c_rs, c_cs = c.strides[0] // c.itemsize, c.strides[1] // c.itemsize
    if m == 0 or n == 0:
        return c
    sfx, kind = _sfx(c.dtype), "seq" if order == "sequential" else "pw"
    if n == 1:
        name, (bm, bn) = f"rb_gemv_{kind}_{sfx}", (GEMV_ROWS, 1)
    else:
        name, (bm, bn) = f"rb_gemm_{kind}_{sfx}", TILES[kind, sfx]
    t = c.dtype.type
    grid = (-(-m // bm), -(-n // bn))
    if grid[1] > 65535:
        raise ValueError(f"reproblas: {n} columns exceed the CUDA grid limit of this kernel "
                         f"({65535 * bn}); split the call")
    dev.function(name)(grid, (THREADS,), (
        np.int64(m), np.int64(n), np.int64(k), t(alpha), a, np.int64(a_rs), np.int64(a_cs),
        b, np.int64(b_rs), np.int64(b_cs), t(beta), c, np.int64(c_rs), np.int64(c_cs)))
    return c


def ger(dev, alpha, x, y, a):
    """a <- fma(x_i, alpha*y_j, a_ij) in place (a: any whole-element strides)."""
    m, n = a.shape
    if m and n:
        rs, cs = a.strides[0] // a.itemsize, a.strides[1] // a.itemsize
        grid = (-(-n // 32), min(-(-m // 8), 65535))
        dev.function(f"rb_ger_{_sfx(a.dtype)}")(grid, (32, 8), (
            np.int64(m), np.int64(n), a.dtype.type(alpha), x, y, a, np.int64(rs),
            np.int64(cs)))
    return a


# ---- public routines on device arrays (called by _api.py / _level23.py) ----
# Same checks and semantics as the NumPy path; results are device arrays
# (reductions: 0-d arrays, as CuPy's own reductions return).

def _checked(dev, routine, names, arrays, ndims, optional=()):
    """The arrays on dev, checked like the NumPy path's; None stays None for the names in
    `optional` (absent operands) and is a TypeError for the others."""
    from . import _api, _level23
    out = {}
    for name, a, nd in zip(names, arrays, ndims):
        if a is None and name in optional:
            continue
        if a is None:
            _level23._matrix(a, name, routine)  # raises the NumPy path's TypeError
        try:
            a = dev.as_array(a)
        except TypeError as e:
            raise TypeError(f"reproblas.{routine}: {name}: {e} (CuPy cannot use it)") from None
        out[name] = _level23._matrix(a, name, routine, ndim=nd, xp=dev.xp)
    _api._same_dtype(routine, **out)
    devices = {getattr(a.device, "id", None) for a in out.values()} - {None}
    if len(devices) > 1:
        raise ValueError(f"reproblas.{routine}: the operands are on different GPUs "
                         f"{sorted(devices)}; copy them to one device first")
    return [out.get(name) for name in names]


def _on_device(arrays):
    return on_device(next(a for a in arrays if a is not None))


def api_reduction(dev, routine, x, y, order):
    from . import _api
    _api._order(order)
    x, y = _checked(dev, routine, ("x", "y"), (x, y), (1, 1), optional=("y",))
    if y is not None:
        _api._same_length(routine, x, y)
        y = dev.xp.ascontiguousarray(y)
    with _on_device([x]):
        return reduce(dev, routine, dev.xp.ascontiguousarray(x), y, order)


def api_iamax(dev, x):
    (x,) = _checked(dev, "iamax", ("x",), (x,), (1,))
    if x.shape[0] == 0:
        raise ValueError("reproblas.iamax: x is empty, it has no largest element")
    with _on_device([x]):
        return iamax(dev, dev.xp.ascontiguousarray(x))


def api_axpy(dev, alpha, x, y):
    from . import _api
    caller_y = y  # in place: the caller's object is returned (a torch tensor stays one)
    x, y = _checked(dev, "axpy", ("x", "y"), (x, y), (1, 1))
    _api._same_length("axpy", x, y)
    a = _api._scalar(alpha, y.dtype, "axpy")[0]
    with _on_device([x]):
        work = y if y.flags.c_contiguous else dev.xp.ascontiguousarray(y)
        xc = dev.xp.ascontiguousarray(x)
        if dev.xp.may_share_memory(xc, work):
            xc = xc.copy()  # y is written while x is read: read the old values
        axpy(dev, a, xc, work)
        if work is not y:
            y[...] = work
    return caller_y


def api_scal(dev, alpha, x):
    from . import _api
    caller_x = x
    (x,) = _checked(dev, "scal", ("x",), (x,), (1,))
    a = _api._scalar(alpha, x.dtype, "scal")[0]
    with _on_device([x]):
        work = x if x.flags.c_contiguous else dev.xp.ascontiguousarray(x)
        scal(dev, a, work)
        if work is not x:
            x[...] = work
    return caller_x


def _result(dev, c, shape, dtype, overwrite, needs_old, routine, name):
    """Where the kernel writes: c itself (overwrite), or a new C-ordered array."""
    xp = dev.xp
    if c is None:
        return xp.empty(shape, dtype)
    if c.shape != shape:
        raise ValueError(f"reproblas.{routine}: {name} has shape {c.shape}, expected {shape}")
    if overwrite:
        return c
    out = xp.empty(shape, dtype)
    if needs_old:
        out[...] = c
    return out


def api_gemm(dev, alpha, a, b, beta, c, trans_a, trans_b, overwrite_c, order,
             routine="gemm"):
    from . import _api
    _api._order(order)
    caller_c = c
    a, b, c = _checked(dev, routine, ("a", "b", "c"), (a, b, c), (2, 2, 2), optional=("c",))
    al = _api._scalar(alpha, a.dtype, routine)[0]
    be = _api._scalar(beta, a.dtype, routine, "beta")[0]
    m, ka = (a.shape[1], a.shape[0]) if trans_a else a.shape
    kb, n = (b.shape[1], b.shape[0]) if trans_b else b.shape
    if ka != kb:
        raise ValueError(f"reproblas.{routine}: op(a) is {m}x{ka} but op(b) is {kb}x{n}: the "
                         f"inner dimensions differ (check trans_a/trans_b)")
    reads_c = not _fp.zero_bits(be)
    if c is None and reads_c:
        raise ValueError(f"reproblas.{routine}: beta != 0 needs c")
    with _on_device([a]):
        out = _result(dev, c, (m, n), a.dtype, overwrite_c, reads_c, routine, "c")
        if c is not None and overwrite_c:  # results must use the old a, b
            a, b = (dev.xp.array(v, copy=True) if dev.xp.may_share_memory(v, c) else v
                    for v in (a, b))
        gemm(dev, order, al, a, trans_a, b, trans_b, be, out)
    return caller_c if out is c and routine == "gemm" else out


def api_gemv(dev, alpha, a, x, beta, y, trans, overwrite_y, order):
    caller_y = y
    a, x, y = _checked(dev, "gemv", ("a", "x", "y"), (a, x, y), (2, 1, 1), optional=("y",))
    m = a.shape[1] if trans else a.shape[0]
    if y is not None and y.shape != (m,):
        raise ValueError(f"reproblas.gemv: y has shape {y.shape}, expected {(m,)}")
    out = api_gemm(dev, alpha, a, x[:, None], beta, None if y is None else y[:, None],
                   trans, False, overwrite_y, order, routine="gemv")
    return caller_y if y is not None and overwrite_y else out[:, 0]


def api_ger(dev, alpha, x, y, a, overwrite_a):
    from . import _api
    caller_a = a
    x, y, a = _checked(dev, "ger", ("x", "y", "a"), (x, y, a), (1, 1, 2), optional=("a",))
    al = _api._scalar(alpha, x.dtype, "ger")[0]
    shape = (x.shape[0], y.shape[0])
    with _on_device([x]):
        if a is None:
            out = dev.xp.zeros(shape, x.dtype)
        else:
            out = _result(dev, a, shape, x.dtype, overwrite_a, True, "ger", "a")
            x, y = (dev.xp.array(v, copy=True) if dev.xp.may_share_memory(v, out) else v
                    for v in (x, y))
        ger(dev, al, dev.xp.ascontiguousarray(x), dev.xp.ascontiguousarray(y), out)
    return caller_a if out is a else out


def api_matmul(dev, a, b, order):
    """NumPy matmul shapes; every batch entry an independent gemm (alpha 1, beta 0)."""
    from . import _api
    from ._level23 import _matmul_shapes, _matmul_unpromote
    _api._order(order)
    a, b = _checked(dev, "matmul", ("a", "b"), (a, b), (getattr(a, "ndim", 2),
                                                          getattr(b, "ndim", 2)))
    xp = dev.xp
    a2, b2, batch, (m, k, n) = _matmul_shapes(a, b)
    out = xp.empty(batch + (m, n), a.dtype)
    ab, bb = xp.broadcast_to(a2, batch + (m, k)), xp.broadcast_to(b2, batch + (k, n))
    with _on_device([a]):
        for idx in np.ndindex(*batch):
            gemm(dev, order, 1, ab[idx], False, bb[idx], False, 0, out[idx])
    return _matmul_unpromote(out, a, b)


# ---- triangular solves and convolutions (src/cuda/reproblas/trsm.cuh, conv.cuh) ----

def trsm(dev, order, right, lower, trans, unit, alpha, a, x):
    """Solves in place the C-ordered (systems, right-hand sides) array x: column c
    of x is one right-hand side, scaled by alpha first unless alpha is None. The
    case (side, lower, trans) maps onto one lower or upper M as on the CPU
    (src/c/reproblas/trsm.c): right side and transpose each transpose M. Lower M
    is solved TRSM_BLOCK rows at a time after gemm updates (trsm.cuh)."""
    nsys, nrhs = x.shape
    if nsys == 0 or nrhs == 0:
        return x
    t = trans != right
    mat = a.T if t else a  # M, any strides
    mat_e, (m_rs, m_cs) = element_strides(dev, mat)
    lower = lower != t
    kind, tp = "seq" if order == "sequential" else "pw", x.dtype.type
    solve = dev.function(f"rb_trsm_{kind}_{_sfx(x.dtype)}")
    step = TRSM_BLOCK if lower else nsys
    for r0 in range(0, nsys, step):
        r1 = min(r0 + step, nsys)
        carry = _trsm_carry(dev, order, mat, x, r0, r1) if lower and r0 else None
        solve((-(-nrhs // THREADS),), (THREADS,), (
            np.int64(nsys), np.int64(nrhs), tp(1 if alpha is None else alpha),
            np.int32(alpha is not None and r0 == 0), np.int32(lower), np.int32(unit), mat_e,
            np.int64(m_rs), np.int64(m_cs), x, np.int64(nrhs), np.int64(1), np.int64(r0),
            np.int64(r1), x if carry is None else carry,
            np.int32(0 if carry is None else carry.shape[0]),
            np.int64((r1 - r0) * nrhs)))
    return x


def _trsm_carry(dev, order, mat, x, r0, r1):
    """The sums over j < r0 of rows [r0, r1) of lower M times the solved rows of x:
    sequential, one gemm (its S is each element's fma chain so far); pairwise,
    one perfect tree per aligned block of r0's binary expansion, largest first
    (r0 is a multiple of the power-of-two TRSM_BLOCK)."""
    if order == "sequential":
        blocks = [(0, r0)]
    else:
        blocks = [(r0 & ~((1 << (b + 1)) - 1), 1 << b)
                  for b in range(r0.bit_length() - 1, -1, -1) if r0 >> b & 1]
    carry = dev.xp.empty((len(blocks), r1 - r0, x.shape[1]), x.dtype)
    for c, (k0, size) in zip(carry, blocks):
        gemm(dev, order, 1, mat[r0:r1, k0:k0 + size], False, x[k0:k0 + size], False, 0, c)
    return carry


def api_trsm(dev, routine, alpha, a, b, side, lower, trans, unit, order, overwrite_b):
    """trsv (b 1-D, alpha None) and trsm on device arrays, with _solve.py's checks (the
    bool options arrive checked)."""
    from . import _api, _solve
    _api._order(order)
    caller_b = b
    right = _solve._side(side) if routine == "trsm" else 0
    a, b = _checked(dev, routine, ("a", "b"), (a, b), (2, 1 if routine == "trsv" else 2))
    al = None if alpha is None else _api._scalar(alpha, a.dtype, routine)[0]
    b2 = b[:, None] if b.ndim == 1 else b
    size = b2.shape[1] if right else b2.shape[0]
    what = (f"b has {size} elements" if routine == "trsv" else
            f"b has shape {b.shape}, side={'right' if right else 'left'}")
    _solve._square(a, routine, size, what)
    with _on_device([a]):
        # the right-hand sides unit-stride (coalesced), always a fresh copy
        x = dev.xp.array(b2.T if right else b2, order="C", copy=True)
        trsm(dev, order, right, lower, trans, unit, al, a, x)
        result = x.T if right else x
        if overwrite_b:
            b2[...] = result
            return caller_b
        return dev.xp.ascontiguousarray(result).reshape(b.shape)


def _conv_geo(dev, shape_x, shape_w, g, groups):
    """The kernels' geometry array (conv.cuh): N, C, H, W, K, Cg, R, S, P, Q,
    stride, padding before, dilation, groups."""
    return dev.xp.asarray(np.array(tuple(shape_x) + tuple(shape_w) + g.out + g.stride + g.pad
                                   + g.dilation + (groups,), np.int64))


def _conv_launch(dev, name, order, dtype, images, groups, channels, positions, args):
    """(image, group, block of CONV_CHANNELS of the group's channels) on grid.x,
    positions (grad_weight: taps) THREADS per block on grid.y."""
    rows = images * groups * -(-channels // CONV_CHANNELS)
    grid = (rows, -(-positions // THREADS))
    if grid[1] > 65535 or rows > 2**31 - 1:
        raise ValueError(f"reproblas: {positions} positions per channel (or {rows} "
                         f"image-channel blocks) exceed the CUDA grid of this kernel; split "
                         f"the batch or the image")
    kind = "seq" if order == "sequential" else "pw"
    dev.function(f"rb_{name}_{kind}_{_sfx(dtype)}")(grid, (THREADS,), args)


def _conv_operands(dev, routine, order, names, arrays, ndims):
    from . import _api
    _api._order(order)
    checked = _checked(dev, routine, names, arrays, ndims, optional=("bias",))
    return [None if v is None else dev.xp.ascontiguousarray(v) for v in checked]


def api_conv2d(dev, input, weight, bias, stride, padding, dilation, groups, order):
    from . import _conv
    x, w, b = _conv_operands(dev, "conv2d", order, ("input", "weight", "bias"),
                             (input, weight, bias), (4, 4, 1))
    groups, g, shape = _conv._conv2d_setup(x, w, b, stride, padding, dilation, groups)
    with _on_device([x]):
        y = dev.xp.empty(shape, x.dtype)
        if y.size:
            geo = _conv_geo(dev, x.shape, w.shape, g, groups)
            kernel, threads, (bm, bn) = _conv2d_gemm_tiles(x.dtype, shape[1] // groups)
            grid = (-(-(shape[1] // groups) // bm), -(-shape[2] * shape[3] // bn),
                    shape[0] * groups)
            if order == "sequential" and grid[1] <= 65535 and grid[2] <= 65535:
                _conv2d_gemm(dev, kernel, threads, geo, x, w, b, g, grid, y)
            else:
                _conv_launch(dev, "conv2d", order, x.dtype, shape[0], groups,
                             shape[1] // groups, shape[2] * shape[3],
                             (geo, x, w, w if b is None else b, np.int32(b is not None), y))
    return y


def _conv2d_gemm_tiles(dtype, channels):
    """(kernel, threads, (BM, BN)) of the sequential conv2d: the gemm's tiles, or
    64-row tiles for float32 layers of at most 64 channels per group (reproblas.cu)."""
    if dtype == np.float32 and channels <= 64:
        return "rb_conv2d_gemm_narrow_f32", 128, (64, 128)
    return f"rb_conv2d_gemm_{_sfx(dtype)}", THREADS, TILES["seq", _sfx(dtype)]


def _conv2d_gemm(dev, kernel, threads, geo, x, w, b, g, grid, y):
    """Sequential conv2d as an implicit gemm (conv_gemm.cuh): the tap table
    (offset of tap (c', r, s) in the input, r*dh, s*dw) and, with a bias, y
    filled with it and beta = 1 (fma(1, bias, S) = S + bias)."""
    (_, _, h, wd), (_, cg, r, s) = x.shape, w.shape
    tap = np.arange(cg * r * s)
    dh, dw = tap // s % r * g.dilation[0], tap % s * g.dilation[1]
    table = np.empty((tap.size, 4), np.int32)
    table[:, :2] = ((tap // (r * s)) * h * wd + dh * wd + dw).astype(np.int64)[:, None].view(
        np.int32)
    table[:, 2], table[:, 3] = dh, dw
    if b is not None:
        y[...] = b[None, :, None, None]
    t = y.dtype.type
    dev.function(kernel)(grid, (threads,), (
        geo, dev.xp.asarray(table), x, w, t(0 if b is None else 1), y))


def api_conv2d_grad_input(dev, grad_output, weight, input_shape, stride, padding, dilation,
                          groups, order):
    from . import _conv
    gy, w = _conv_operands(dev, "conv2d_grad_input", order, ("grad_output", "weight"),
                           (grad_output, weight), (4, 4))
    groups, g, shape = _conv._grad_input_setup(gy, w, input_shape, stride, padding, dilation,
                                               groups)
    with _on_device([gy]):
        gx = dev.xp.empty(shape, gy.dtype)
        if gx.size:
            geo = _conv_geo(dev, shape, w.shape, g, groups)
            _conv_launch(dev, "conv2d_grad_input", order, gy.dtype, shape[0], groups,
                         shape[1] // groups, shape[2] * shape[3], (geo, gy, w, gx))
    return gx


def api_conv2d_grad_weight(dev, input, grad_output, weight_shape, stride, padding, dilation,
                           groups, order):
    from . import _conv
    x, gy = _conv_operands(dev, "conv2d_grad_weight", order, ("input", "grad_output"),
                           (input, grad_output), (4, 4))
    groups, g, shape = _conv._grad_weight_setup(x, gy, weight_shape, stride, padding,
                                                dilation, groups)
    with _on_device([x]):
        gw = dev.xp.empty(shape, x.dtype)
        if gw.size:
            geo = _conv_geo(dev, x.shape, shape, g, groups)
            _conv_launch(dev, "conv2d_grad_weight", order, x.dtype, 1, groups,
                         shape[0] // groups, shape[1] * shape[2] * shape[3], (geo, x, gy, gw))
    return gw


def api_conv2d_grad_bias(dev, grad_output, order):
    """The plain terms grad_y[n, k, p, q] over (n, p, q): a gemv with ones, as on the CPU
    (g * 1 = g and fma(g, 1, S) = S + g exactly)."""
    (gy,) = _conv_operands(dev, "conv2d_grad_bias", order, ("grad_output",), (grad_output,),
                           (4,))
    n, k, p, q = gy.shape
    xp = dev.xp
    with _on_device([gy]):
        gb = xp.empty(k, gy.dtype)
        if k:
            a = xp.ascontiguousarray(gy.transpose(1, 0, 2, 3)).reshape(k, -1)
            gemm(dev, order, 1, a, False, xp.ones((a.shape[1], 1), gy.dtype), False, 0,
                 gb[:, None])
    return gb
