"""CUDA backend: launch geometry for the kernels of src/cuda/reproblas.cu.

The kernel launchers take a *device* (``xp`` + ``function(name)``, see
repro_runtime/cuda.py) and arrays of that device; ``CudaBackend`` is the backend
protocol (reproblas/_backend.py) over them, receiving arguments that the public
routines have checked (reproblas/_validate.py). The bits are the CPU's: the
kernels run the contract's terms in its order; this layer only decides who
computes which aligned block, which never changes an operation.
"""
import numpy as np
from repro_runtime.cuda import MAX_BLOCKS, THREADS, grid_1d, on_device, register_kernels

from . import _fp, _order, _validate

register_kernels("rb_", "reproblas")

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
    """(piece, items): the pairwise tree over n terms as aligned power-of-two items
    (reproblas/_order.py), each block of n's binary expansion cut into items of
    min(block, piece) terms; the kernels find their item from n and piece."""
    piece = PIECE
    while n // piece > MAX_ITEMS:
        piece *= 2
    return piece, _order.pieces(n, piece)


def _ordered_sum(dev, term, x, y, scale, order, two_e=None):
    """A 1-element array: S over the terms (docs/contract.md §2), or sqrt(S) * two_e."""
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


# order="exact" (src/cuda/reproblas/exact.cuh): blocks of THREADS accumulators at most, and
# the limbs of each accumulator by (dtype, products): rb_xacc_limbs of src/c/order/exact.h.
EXACT_BLOCKS = 64
EXACT_LIMBS = {("f32", False): 11, ("f32", True): 20, ("f64", False): 68, ("f64", True): 134}
KAHAN_CHUNK, KAHAN_LANES = 1024, 16  # RB_KAHAN_CHUNK, RB_KAHAN_LANES (order/kahan.h): a chunk
# is 16 threads of THREADS (= RB_KAHAN_THREADS of src/cuda/reproblas/kahan.cuh)


def exact_sum(dev, term, x, y):
    """A 1-element array: RN of the exact sum of the terms (docs/contract.md §5.4)."""
    xp, dtype, n, sfx = dev.xp, x.dtype, x.shape[0], _sfx(x.dtype)
    blocks = max(1, min(EXACT_BLOCKS, -(-n // THREADS)))
    rows = blocks * THREADS
    limbs = xp.empty(rows * EXACT_LIMBS[sfx, term == TERMS["dot"]], np.int64)
    flags = xp.empty(rows * 4, np.int32)
    out = xp.empty(1, dtype)
    dev.function(f"rb_exact_part_{sfx}")((blocks,), (THREADS,), (
        np.int32(term), x, x if y is None else y, np.int64(n), limbs, flags))
    dev.function(f"rb_exact_join_{sfx}")((1,), (THREADS,), (
        np.int32(term), np.int64(rows), limbs, flags, np.int64(n), out))
    return out


def kahan_sum(dev, term, x, y, scale):
    """S of order="kahan" (docs/contract.md §5.5, src/cuda/reproblas/kahan.cuh) as a host
    scalar of x's dtype; the caller takes the pairwise sum when it is not finite."""
    xp, dtype, n, sfx = dev.xp, x.dtype, x.shape[0], _sfx(x.dtype)
    chunks = -(-n // KAHAN_CHUNK)
    s, c, out = xp.empty(chunks, dtype), xp.empty(chunks, dtype), xp.empty(1, dtype)
    dev.function(f"rb_kahan_chunks_{sfx}")(grid_1d(dev, chunks * KAHAN_LANES), (THREADS,), (
        np.int32(term), x, x if y is None else y, dtype.type(scale), np.int64(n), s, c))
    dev.function(f"rb_kahan_join_{sfx}")((1,), (1,), (s, c, np.int64(chunks), out))
    return dtype.type(float(out[0]))


def _kahan_reduce(dev, routine, x, y):
    """sum / asum / dot / nrm2 in order="kahan", not finite: the pairwise sum (§5.5)."""
    xp, dtype = dev.xp, x.dtype
    if routine != "nrm2":
        r = kahan_sum(dev, TERMS[routine], x, y, 1)
        if np.isfinite(r):
            return xp.full((), r, dtype)
        return _ordered_sum(dev, TERMS[routine], x, y, 1, "pairwise").reshape(())
    m, has_nan = _max_abs(dev, x)  # docs/contract.md §3.2, as the CPU's two passes
    if has_nan or np.isinf(m) or _fp.zero_bits(m):
        return xp.full((), np.nan if has_nan else m, dtype)
    info = np.finfo(dtype)
    e = min(max(_fp.floor_log2(m), int(info.minexp)), int(info.maxexp) - 1)
    s = kahan_sum(dev, TERMS["nrm2"], x, None, np.ldexp(1.0, -e))
    if not np.isfinite(s):
        return _ordered_sum(dev, TERMS["nrm2"], x, None, np.ldexp(1.0, -e), "pairwise",
                            two_e=np.ldexp(1.0, e)).reshape(())
    with np.errstate(over="ignore"):
        return xp.full((), np.sqrt(s) * dtype.type(np.ldexp(1.0, e)), dtype)


def reduce(dev, routine, x, y, order):
    """sum / asum / dot / nrm2 of contiguous 1-D x (and y): a 0-d array."""
    xp, dtype, n = dev.xp, x.dtype, x.shape[0]
    if n == 0:
        return xp.zeros((), dtype)
    if order == "exact":
        return exact_sum(dev, TERMS[routine], x, y).reshape(())
    if order == "kahan":
        return _kahan_reduce(dev, routine, x, y)
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


def gemm(dev, order, alpha, a, trans_a, b, trans_b, beta, c, uplo=0):
    """c <- alpha*op(a)op(b) [+ beta*c] in place (c: any strides, not aliasing a, b); only
    its lower (uplo 1) or upper (2) triangle when uplo is not 0."""
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
    if order in ("exact", "kahan"):  # docs/contract.md §5.4-§5.5: plain gemv and gemm
        if uplo:
            raise ValueError(f"reproblas: order={order!r} computes whole products only")
        return extra_gemm(dev, order, alpha, a, (a_rs, a_cs), b, (b_rs, b_cs), beta, c,
                          (c_rs, c_cs), k)
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
        b, np.int64(b_rs), np.int64(b_cs), t(beta), c, np.int64(c_rs), np.int64(c_cs),
        np.int32(uplo)))
    return c


# gemv / gemm in order="exact" (src/cuda/reproblas/exact_gemm.cuh): an element takes a group
# of threads, at least EXACT_GEMM_TERMS terms per thread, at most THREADS threads, fewer when
# the elements alone fill EXACT_GEMM_FILL threads (the group never changes a bit).
EXACT_GEMM_TERMS, EXACT_GEMM_FILL = 128, 1 << 20


def exact_gemm_group(elements, k):
    """Threads per element of the exact gemm: a power of two dividing THREADS."""
    group = 1
    while group < THREADS and group * EXACT_GEMM_TERMS < k:
        group *= 2
    while group > 1 and elements * group > EXACT_GEMM_FILL:
        group //= 2
    return group


# order="kahan": a group of 16 threads per (element, chunk) instead of per element when the
# elements alone fill fewer than KAHAN_SPLIT_FILL threads and their chunk pairs fit in
# KAHAN_SPLIT_PAIRS (the same joins either way).
KAHAN_SPLIT_FILL, KAHAN_SPLIT_PAIRS = 1 << 16, 1 << 22


def kahan_gemm_split(elements, k):
    """Whether the kahan gemm computes its chunks apart (rb_gemm_kahan_chunks / _join)."""
    chunks = -(-k // KAHAN_CHUNK)
    return chunks > 1 and elements * KAHAN_LANES < KAHAN_SPLIT_FILL and \
        elements * chunks <= KAHAN_SPLIT_PAIRS


def _blocks(dev, threads):
    return max(1, min(-(-threads // THREADS), getattr(dev, "max_blocks", MAX_BLOCKS)))


def extra_gemm(dev, order, alpha, a, a_strides, b, b_strides, beta, c, c_strides, k,
               group=None, split=None):
    """c <- alpha*op(a)op(b) [+ beta*c] in order "exact" or "kahan" (docs/contract.md §5.4,
    §5.5), op() given by the element strides (rows, columns); each element computed by a
    group of threads (exact: `group`, a power of two dividing THREADS, by default
    exact_gemm_group; kahan: the 16 lanes, or with `split` (default kahan_gemm_split) a
    group per chunk of each element), a grid stride of the groups."""
    m, n = c.shape
    t, sfx = c.dtype.type, _sfx(c.dtype)
    ab = (a, np.int64(a_strides[0]), np.int64(a_strides[1]), b, np.int64(b_strides[0]),
          np.int64(b_strides[1]))
    mnk = (np.int64(m), np.int64(n), np.int64(k))
    out = (t(beta), c, np.int64(c_strides[0]), np.int64(c_strides[1]))
    if order == "exact":
        group = exact_gemm_group(m * n, k) if group is None else group
        dev.function(f"rb_gemm_exact_{sfx}")((_blocks(dev, m * n * group),), (THREADS,), (
            *mnk, t(alpha), *ab, *out, np.int32(group)))
    elif kahan_gemm_split(m * n, k) if split is None else split:
        chunks = -(-k // KAHAN_CHUNK)
        ps, pc = dev.xp.empty(m * n * chunks, c.dtype), dev.xp.empty(m * n * chunks, c.dtype)
        dev.function(f"rb_gemm_kahan_chunks_{sfx}")(
            (_blocks(dev, m * n * chunks * KAHAN_LANES),), (THREADS,), (*mnk, *ab, ps, pc))
        dev.function(f"rb_gemm_kahan_join_{sfx}")((_blocks(dev, m * n),), (THREADS,), (
            *mnk, t(alpha), *ab, *out, ps, pc))
    else:
        dev.function(f"rb_gemm_kahan_{sfx}")((_blocks(dev, m * n * KAHAN_LANES),), (THREADS,), (
            *mnk, t(alpha), *ab, *out))
    return c


def _symmetric(xp, a, lower):
    """The whole symmetric matrix whose lower (1) or upper (2) triangle a stores."""
    i, j = xp.indices(a.shape)
    return xp.where(i >= j if lower == 1 else i <= j, a, a.T)


def _interleaved(xp, a, a2, trans_a, b, b2, trans_b):
    """syr2k's alternating products as one plain product: column 2k of the first
    operand is op(a)'s column k, column 2k + 1 op(a2)'s; rows likewise for b, b2."""
    opa, opa2 = (a.T, a2.T) if trans_a else (a, a2)
    opb, opb2 = (b.T, b2.T) if trans_b else (b, b2)
    m, k = opa.shape
    return (xp.stack([opa, opa2], axis=2).reshape(m, 2 * k),
            xp.stack([opb, opb2], axis=1).reshape(2 * k, opb.shape[1]))


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


# ---- triangular solves and convolutions (src/cuda/reproblas/trsm.cuh, conv.cuh) ----

def trsm(dev, order, right, lower, trans, unit, alpha, a, x):
    """Solves in place the C-ordered (systems, right-hand sides) array x: column c
    of x is one right-hand side, scaled by alpha first unless alpha is None. The
    case (side, lower, trans) maps onto one lower or upper M as on the CPU
    (src/c/reproblas/frame/trsm.c): right side and transpose each transpose M. Lower M
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
    blocks = [(0, r0)] if order == "sequential" else _order.blocks(r0)
    carry = dev.xp.empty((len(blocks), r1 - r0, x.shape[1]), x.dtype)
    for c, (k0, size) in zip(carry, blocks):
        gemm(dev, order, 1, mat[r0:r1, k0:k0 + size], False, x[k0:k0 + size], False, 0, c)
    return carry


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


# ---- the backend protocol (reproblas/_backend.py) on device arrays ----
# Results are device arrays (reductions: 0-d arrays, as CuPy's own reductions return).

_ORDER_NAMES = {code: name for name, code in _validate.ORDERS.items()}
_ORDER_NAMES.update({code: name for name, (code, _) in _validate.EXTRA_ORDERS.items()})


def _result(dev, c, shape, dtype, overwrite, needs_old):
    """Where the kernel writes: c itself (overwrite), or a new C-ordered array."""
    xp = dev.xp
    if c is None:
        return xp.empty(shape, dtype)
    if overwrite:
        return c
    out = xp.empty(shape, dtype)
    if needs_old:
        out[...] = c
    return out


def _unshared(dev, out, *inputs):
    """The inputs, each copied if it may share memory with out (results use the old
    values; out is written block by block)."""
    return [dev.xp.array(v, copy=True) if dev.xp.may_share_memory(v, out) else v
            for v in inputs]


class CudaBackend:
    """Checked arguments on one device (CuPy's, or the emulator's in the tests)."""
    scalars = False  # 0-d results stay device arrays

    def __init__(self, dev):
        self.dev, self.xp = dev, dev.xp

    def as_array(self, x, name, routine):
        try:
            return self.dev.as_array(x)
        except TypeError as e:
            raise TypeError(f"reproblas.{routine}: {name}: {e} (CuPy cannot use it)") from None

    # ---- level 1 ----

    def reduce(self, routine, order, x, y):
        xp = self.xp
        if y is not None:
            y = xp.ascontiguousarray(y)
        with on_device(x):
            return reduce(self.dev, routine, xp.ascontiguousarray(x), y, _ORDER_NAMES[order])

    def reduce_rows(self, routine, order, x2, y2, out):
        """out[i] = the reduction of row i of the 2-D x2 (and y2), each the 1-D call's."""
        xp = self.xp
        x2 = xp.ascontiguousarray(x2)
        y2 = None if y2 is None else xp.ascontiguousarray(y2)
        with on_device(x2):
            for i in range(x2.shape[0]):
                out[i] = reduce(self.dev, routine, x2[i], None if y2 is None else y2[i],
                                _ORDER_NAMES[order])
        return out

    def iamax(self, x):
        with on_device(x):
            return iamax(self.dev, self.xp.ascontiguousarray(x))

    def axpy(self, alpha, x, y):
        xp = self.xp
        with on_device(x):
            work = y if y.flags.c_contiguous else xp.ascontiguousarray(y)
            xc = xp.ascontiguousarray(x)
            if xp.may_share_memory(xc, work):
                xc = xc.copy()  # y is written while x is read: read the old values
            axpy(self.dev, alpha[0], xc, work)
            if work is not y:
                y[...] = work

    def scal(self, alpha, x):
        with on_device(x):
            work = x if x.flags.c_contiguous else self.xp.ascontiguousarray(x)
            scal(self.dev, alpha[0], work)
            if work is not x:
                x[...] = work

    # ---- levels 2 and 3 ----

    def gemm(self, order, alpha, a, trans_a, b, trans_b, beta, c, shape, overwrite, reads_c,
             uplo=0, a_sym=0, b_sym=0, pair=None):
        with on_device(a):
            out = _result(self.dev, c, shape, a.dtype, overwrite, reads_c)
            # the kernels read plain operands: the same terms, rebuilt (new arrays, so
            # they share no memory with c)
            if a_sym:
                a = _symmetric(self.xp, a, a_sym)
            if b_sym:
                b = _symmetric(self.xp, b, b_sym)
            if pair is not None:
                a, b = _interleaved(self.xp, a, pair[0], trans_a, b, pair[1], trans_b)
                trans_a = trans_b = False
            if c is not None and overwrite:  # results must use the old a, b
                a, b = _unshared(self.dev, c, a, b)
            gemm(self.dev, _ORDER_NAMES[order], alpha[0], a, trans_a, b, trans_b, beta[0], out,
                 uplo)
        return out

    def gemv(self, order, alpha, a, trans, x, beta, y, m, overwrite, reads_y):
        c = None if y is None else y[:, None]
        return self.gemm(order, alpha, a, trans, x[:, None], False, beta, c, (m, 1), overwrite,
                         reads_y)[:, 0]

    def ger(self, alpha, x, y, a, shape, overwrite):
        xp = self.xp
        with on_device(x):
            if a is None:
                out = xp.zeros(shape, x.dtype)
            else:
                out = _result(self.dev, a, shape, x.dtype, overwrite, True)
                x, y = _unshared(self.dev, out, x, y)
            ger(self.dev, alpha[0], xp.ascontiguousarray(x), xp.ascontiguousarray(y), out)
        return out

    def matmul(self, order, a2, b2, batch, mkn):
        """Every batch entry an independent gemm (alpha 1, beta 0)."""
        m, k, n = mkn
        xp, name = self.xp, _ORDER_NAMES[order]
        out = xp.empty(batch + (m, n), a2.dtype)
        ab, bb = xp.broadcast_to(a2, batch + (m, k)), xp.broadcast_to(b2, batch + (k, n))
        with on_device(a2):
            for idx in np.ndindex(*batch):
                gemm(self.dev, name, 1, ab[idx], False, bb[idx], False, 0, out[idx])
        return out

    # ---- solves ----

    def trsm(self, order, right, lower, trans, unit, alpha, a, b, overwrite, multiply=False):
        """trsv (b 1-D, alpha None) and trsm: b itself when overwrite, else a new array;
        multiply: trmm."""
        if multiply:
            return self._trmm(order, right, lower, trans, unit, alpha, a, b, overwrite)
        xp = self.xp
        b2 = b[:, None] if b.ndim == 1 else b
        with on_device(a):
            # the right-hand sides unit-stride (coalesced), always a fresh copy
            x = xp.array(b2.T if right else b2, order="C", copy=True)
            trsm(self.dev, _ORDER_NAMES[order], right, lower, trans, unit,
                 None if alpha is None else alpha[0], a, x)
            result = x.T if right else x
            if overwrite:
                b2[...] = result
                return b
            return xp.ascontiguousarray(result).reshape(b.shape)

    def _trmm(self, order, right, lower, trans, unit, alpha, a, b, overwrite):
        """Row by row: row i of alpha op(a) b is the gemm of op(a)'s row segment in its
        triangle (1 on the diagonal when unit) with the matching rows of b, so each
        element has the CPU's terms in the CPU's order (src/c/reproblas/frame/trmm.c);
        the right side is the transposed problem."""
        xp, name = self.xp, _ORDER_NAMES[order]
        with on_device(a):
            mat = a.T if trans != right else a  # M = op(a), or op(a).T on the right
            low = lower != (trans != right)
            bb = xp.array(b.T if right else b, order="C", copy=True)
            m, n = bb.shape
            res = xp.empty((m, n), b.dtype)
            for i in range(m):
                lo, hi = (0, i + 1) if low else (i, m)
                seg = xp.array(mat[i, lo:hi], copy=True)
                if unit:
                    seg[i - lo] = 1
                gemm(self.dev, name, 1, seg[None, :], False, bb[lo:hi], False, 0, res[i:i + 1])
            res *= b.dtype.type(alpha[0])
            result = res.T if right else res
            if overwrite:
                b[...] = result
                return b
            return xp.ascontiguousarray(result)
    # ---- level 2 on symmetric, triangular, band, packed matrices (_level2.py) ----

    def level2(self, op, order, desc, a, alpha, x, beta, y):
        """One level-2 kernel of src/cuda/reproblas/level2.cuh on the contiguous work
        arrays _level2.py prepares: y (op 0, products), x (op 1, solves) or a (op 2,
        rank updates) is updated in place."""
        xp, dev = self.xp, self.dev
        sfx, t = _sfx(a.dtype), a.dtype.type
        kind = "pw" if order == 1 else "seq"
        with on_device(a):
            if a.ndim == 1:
                a = xp.ascontiguousarray(a)
                rs, cs = 1, 0
            else:
                a, (rs, cs) = element_strides(dev, a)
            d = tuple(np.int32(v) for v in desc[:5]) + tuple(np.int64(v) for v in desc[5:])
            d += (np.int64(rs), np.int64(cs))
            n = desc[6]
            if op == 0:
                rows = y.shape[0]
                if rows:
                    dev.function(f"rb_l2mv_{kind}_{sfx}")((-(-rows // THREADS),), (THREADS,), d + (
                        t(alpha[0]), a, x, t(beta[0]), y))
            elif op == 1:
                if n:
                    dev.function(f"rb_l2sv_{kind}_{sfx}")((1,), (1,), d + (a, x))
            elif n:
                grid = (-(-n // 32), min(-(-n // 8), 65535))
                dev.function(f"rb_l2rank_{sfx}")(grid, (32, 8), d + (
                    t(alpha[0]), x, x if y is None else y, np.int32(y is not None), a))

    # ---- convolutions ----

    def conv2d(self, order, x, w, b, groups, g, shape):
        dev, xp, name = self.dev, self.xp, _ORDER_NAMES[order]
        x, w = xp.ascontiguousarray(x), xp.ascontiguousarray(w)
        b = None if b is None else xp.ascontiguousarray(b)
        with on_device(x):
            y = xp.empty(shape, x.dtype)
            if y.size:
                geo = _conv_geo(dev, x.shape, w.shape, g, groups)
                kernel, threads, (bm, bn) = _conv2d_gemm_tiles(x.dtype, shape[1] // groups)
                grid = (-(-(shape[1] // groups) // bm), -(-shape[2] * shape[3] // bn),
                        shape[0] * groups)
                if name == "sequential" and grid[1] <= 65535 and grid[2] <= 65535:
                    _conv2d_gemm(dev, kernel, threads, geo, x, w, b, g, grid, y)
                else:
                    _conv_launch(dev, "conv2d", name, x.dtype, shape[0], groups,
                                 shape[1] // groups, shape[2] * shape[3],
                                 (geo, x, w, w if b is None else b, np.int32(b is not None), y))
        return y

    def conv2d_grad_input(self, order, gy, w, groups, g, shape):
        dev, xp = self.dev, self.xp
        gy, w = xp.ascontiguousarray(gy), xp.ascontiguousarray(w)
        with on_device(gy):
            gx = xp.empty(shape, gy.dtype)
            if gx.size:
                geo = _conv_geo(dev, shape, w.shape, g, groups)
                _conv_launch(dev, "conv2d_grad_input", _ORDER_NAMES[order], gy.dtype, shape[0],
                             groups, shape[1] // groups, shape[2] * shape[3], (geo, gy, w, gx))
        return gx

    def conv2d_grad_weight(self, order, x, gy, groups, g, shape):
        dev, xp = self.dev, self.xp
        x, gy = xp.ascontiguousarray(x), xp.ascontiguousarray(gy)
        with on_device(x):
            gw = xp.empty(shape, x.dtype)
            if gw.size:
                geo = _conv_geo(dev, x.shape, shape, g, groups)
                _conv_launch(dev, "conv2d_grad_weight", _ORDER_NAMES[order], x.dtype, 1, groups,
                             shape[0] // groups, shape[1] * shape[2] * shape[3],
                             (geo, x, gy, gw))
        return gw

    def conv2d_grad_bias(self, order, gy):
        """The plain terms grad_y[n, k, p, q] over (n, p, q): a gemv with ones, as on the
        CPU (g * 1 = g and fma(g, 1, S) = S + g exactly)."""
        xp = self.xp
        gy = xp.ascontiguousarray(gy)
        n, k, p, q = gy.shape
        with on_device(gy):
            gb = xp.empty(k, gy.dtype)
            if k:
                a = xp.ascontiguousarray(gy.transpose(1, 0, 2, 3)).reshape(k, -1)
                gemm(self.dev, _ORDER_NAMES[order], 1, a, False,
                     xp.ones((a.shape[1], 1), gy.dtype), False, 0, gb[:, None])
        return gb
