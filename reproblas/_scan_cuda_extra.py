"""CUDA launches of the scans and segmented routines in the orders kahan and exact
(docs/contract.md §5.3-§5.5): src/cuda/reproblas/kahan_scan.cuh, seg_extra.cuh,
exact_prod.cuh (cumprod).

Arguments are checked by reproblas/_scan.py (contiguous device arrays of one float
dtype, int64 host offsets). A thread scans or sums one segment (a row of a cumsum is
a segment); which thread, block or grid never changes an operation. A segment sum of
at least BIG terms is the level-1 call on it (reproblas/_cuda.py: many threads), whose
bits are the one thread's; a kahan (exact) scan of at least KSCAN_BIG (XSCAN_BIG) terms
is cut into aligned pieces scanned by a thread each from their starting states (the same
operations; for exact, the same exact values)."""
import os

import numpy as np
from repro_runtime.cuda import THREADS, grid_1d

from . import _core, _cpu, _cuda

BIG = 1 << 16  # segment sums from this length on: the level-1 kernels
KSCAN_BIG = 1 << 15  # kahan scans from this length on: aligned pieces on many threads
XSCAN_BIG = 1 << 15  # exact scans by key from this length on: pieces on many threads
XPROD_BIG = 1 << 15  # exact cumprod rows from this length on: pieces on many threads
MAX_PIECES = 4096  # pieces of a long scan at most (the terms per piece double)
XPROD_STATE_BYTES = 64  # RB_XPROD_STATE_BYTES (exact_prod.cuh): sizeof(rb_xprod)
STATE_BYTES = 4096  # RB_KSCAN_STATE_BYTES (kahan_scan.cuh): a piece's starting state
_ROUTINES = ("sum", "asum", "dot")  # by term (terms.h): x, abs(x), x*y
_NAMES = {_core.KAHAN: "kahan", _core.EXACT: "exact"}


def _sfx(dtype):
    return "f32" if dtype == np.float32 else "f64"


def takes(kind, args):
    """Whether this module runs the _run call (kind, args) of reproblas/_scan.py."""
    if kind == "rows":
        op, order = args[0], args[1]
        return order == _core.KAHAN or (order == _core.EXACT and op == _core.SCAN_PROD)
    return args[0] in _NAMES


def _kscan_long(dev, term, x, y, out, m):
    """The kahan prefixes of x[:m] (and y) into out[:m], 1-D contiguous, in aligned pieces
    of P chunks (kahan_scan.cuh): at most MAX_PIECES pieces, each scanned by a thread from
    the state the counters over the earlier pieces give it."""
    xp, dtype, sfx = dev.xp, x.dtype, _sfx(x.dtype)
    yy = x if y is None else y
    P = 1
    while -(-m // (P * _cuda.KAHAN_CHUNK)) > MAX_PIECES:
        P *= 2
    ln = P * _cuda.KAHAN_CHUNK
    pieces = -(-m // ln)
    full = pieces - 1  # the pieces before the last: their chunks and trees
    cs, cc = xp.empty(max(full * P, 1), dtype), xp.empty(max(full * P, 1), dtype)
    tree = xp.empty(max(full, 1), dtype)
    states = xp.empty(pieces * STATE_BYTES, np.uint8)
    if full:
        dev.function(f"rb_kahan_chunks_{sfx}")(
            grid_1d(dev, full * P * _cuda.KAHAN_LANES), (THREADS,),
            (np.int32(term), x, yy, dtype.type(1), np.int64(full * ln), cs, cc))
        dev.function(f"rb_kscan_trees_{sfx}")(grid_1d(dev, full), (THREADS,), (
            np.int32(term), x, yy, np.int64(full), np.int64(ln), tree))
    dev.function(f"rb_kscan_states_{sfx}")((1,), (1,), (
        cs, cc, tree, np.int64(pieces), np.int64(P), states))
    dev.function(f"rb_kscan_pieces_{sfx}")(grid_1d(dev, pieces), (THREADS,), (
        np.int32(term), x, yy, np.int64(m), np.int64(ln), states, out))


def _xscan_long(dev, term, x, y, out, m):
    """The exact prefixes of x[:m] (and y) into out[:m], 1-D contiguous, in at most
    MAX_PIECES pieces (seg_extra.cuh): each piece starts from the exact sum of the pieces
    before it."""
    xp, sfx = dev.xp, _sfx(x.dtype)
    yy = x if y is None else y
    ln = _cuda.KAHAN_CHUNK
    while -(-m // ln) > MAX_PIECES:
        ln *= 2
    pieces = -(-m // ln)
    nl = _cuda.EXACT_LIMBS[sfx, term == _cuda.TERMS["dot"]]
    limbs, flags = xp.zeros(pieces * nl, np.int64), xp.zeros(pieces * 4, np.int32)
    if pieces > 1:
        dev.function(f"rb_xscan_parts_{sfx}")(grid_1d(dev, pieces - 1), (THREADS,), (
            np.int32(term), x, yy, np.int64(pieces - 1), np.int64(ln), limbs, flags))
        dev.function(f"rb_xscan_starts_{sfx}")((1,), (THREADS,), (
            np.int32(term), np.int64(pieces), limbs, flags))
    dev.function(f"rb_xscan_pieces_{sfx}")(grid_1d(dev, pieces), (THREADS,), (
        np.int32(term), x, yy, np.int64(m), np.int64(ln), limbs, flags, out))


def _scan_segments(dev, order, term, exclusive, x, y, off, out):
    """Each segment of off (int64, host) scanned into out (1-D contiguous)."""
    nseg = off.shape[0] - 1
    if nseg == 0:
        return
    sfx, yy = _sfx(x.dtype), x if y is None else y
    name, big, long = (("kscan", KSCAN_BIG, _kscan_long) if order == _core.KAHAN else
                       ("xscan", XSCAN_BIG, _xscan_long))
    dev.function(f"rb_{name}_segments_{sfx}")(grid_1d(dev, nseg), (THREADS,), (
        np.int32(term), np.int32(exclusive), x, yy, dev.xp.asarray(off), np.int64(nseg),
        np.int64(big), out))
    shift = 1 if exclusive else 0
    for s in np.flatnonzero(np.diff(off) >= big):
        lo, hi = int(off[s]), int(off[s + 1])
        m = hi - lo - shift
        if shift:
            out[lo] = 0
        long(dev, term, x[lo:lo + m], None if y is None else y[lo:lo + m], out[lo + shift:hi],
             m)


def _host(a):
    return a.get() if hasattr(a, "get") else np.asarray(a)


def _xprod_long(dev, check, x, out, m):
    """cumprod(order="exact") of x[:m] into out[:m] (1-D contiguous) in at most MAX_PIECES
    pieces (exact_prod.cuh); whether a piece left a prefix undecided."""
    xp, sfx = dev.xp, _sfx(x.dtype)
    ln = _cuda.KAHAN_CHUNK
    while -(-m // ln) > MAX_PIECES:
        ln *= 2
    pieces = -(-m // ln)
    part = xp.zeros(pieces * XPROD_STATE_BYTES, np.uint8)
    fail = xp.empty(pieces, np.int64)
    if pieces > 1:
        dev.function(f"rb_xprod_parts_{sfx}")(grid_1d(dev, pieces - 1), (THREADS,), (
            x, np.int64(pieces - 1), np.int64(ln), part))
    dev.function("rb_xprod_starts")((1,), (1,), (np.int64(pieces), part))
    dev.function(f"rb_xprod_pieces_{sfx}")(grid_1d(dev, pieces), (THREADS,), (
        np.int32(check), x, np.int64(m), np.int64(ln), part, out, fail))
    return bool((_host(fail) >= 0).any())


def _cumprod_exact(dev, exclusive, x2, out2):
    """Each row's exact prefixes on the device (a row of at least XPROD_BIG terms in
    pieces); the rows where the fast form could not decide a prefix (rare: a product
    within its error bound of a rounding boundary) copied to the host and scanned there
    by the C core (the same correctly rounded values)."""
    xp = dev.xp
    rows, n = x2.shape
    check = os.environ.get("REPROBLAS_EXACT_PROD_CHECK", "").startswith("1")  # as the core
    if n >= XPROD_BIG:
        shift = 1 if exclusive else 0
        bad = []
        for r in range(rows):
            if shift:
                out2[r, 0] = 1
            if _xprod_long(dev, check, x2[r, :n - shift], out2[r, shift:], n - shift):
                bad.append(r)
        bad = np.array(bad, np.int64)
    else:
        fail = xp.empty(rows, np.int64)
        dev.function(f"rb_xcumprod_{_sfx(x2.dtype)}")(grid_1d(dev, rows), (THREADS,), (
            np.int32(exclusive), np.int32(check), x2, np.int64(rows), np.int64(n), out2,
            fail))
        bad = np.flatnonzero(_host(fail) >= 0)
    if bad.size:
        idx = xp.asarray(bad)
        xh = np.ascontiguousarray(_host(x2[idx]))
        res = np.empty_like(xh)
        _core.scan(_core.SCAN_PROD, _core.EXACT, 0, exclusive, xh, None, res, _cpu.isa(),
                   _cpu.threads())
        out2[idx] = xp.asarray(res)


def run(dev, kind, *args):
    xp = dev.xp
    if kind == "rows":  # cumsum(order="kahan"), cumprod(order="exact"): row by row
        op, order, term, exclusive, x2, y2, out2 = args
        if op == _core.SCAN_PROD:
            _cumprod_exact(dev, exclusive, x2, out2)
            return
        rows, n = x2.shape
        off = np.arange(rows + 1, dtype=np.int64) * n
        _scan_segments(dev, order, term, exclusive, x2.reshape(-1),
                       None if y2 is None else y2.reshape(-1), off, out2.reshape(-1))
    elif kind == "scan":
        _scan_segments(dev, *args)
    else:
        order, term, x, y, off, out = args
        nseg = off.shape[0] - 1
        dev.function(f"rb_reduce_extra_{_sfx(x.dtype)}")(grid_1d(dev, nseg), (THREADS,), (
            np.int32(order), np.int32(term), x, x if y is None else y, xp.asarray(off),
            np.int64(nseg), np.int64(BIG), out))
        for s in np.flatnonzero(np.diff(off) >= BIG):
            lo, hi = int(off[s]), int(off[s + 1])
            out[s] = _cuda.reduce(dev, _ROUTINES[term], x[lo:hi],
                                  None if y is None else y[lo:hi], _NAMES[order])
