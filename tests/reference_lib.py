"""The executable definition (src/c/order/reference.c) built at test time into a
small shared library, loaded with ctypes, with a NumPy face: each method takes
the public routine's arguments and returns the reference result (inputs are
never modified; any layout, negative strides included)."""
import ctypes
import os
import shlex
import shutil
import subprocess
import sysconfig
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "src" / "c" / "order" / "reference.c"
# The project's C flags (setup.py): no contraction, no fast math.
CFLAGS = ["-O2", "-std=gnu11", "-ffp-contract=off", "-fno-fast-math", "-fno-math-errno",
          "-fno-strict-aliasing", "-fPIC", "-shared"]
ORDERS = {"sequential": 0, "pairwise": 1, "kahan": 2, "exact": 3}


def compiler():
    """The C compiler command (CC, Python's own, cc or gcc), or None."""
    for cand in (os.environ.get("CC"), sysconfig.get_config_var("CC"), "cc", "gcc"):
        if cand and shutil.which(shlex.split(cand)[0]):
            return shlex.split(cand)[0:1]
    return None


def build(directory):
    """Compiles the reference into directory; returns its Reference, or raises
    RuntimeError with the compiler's message."""
    cc = compiler()
    if cc is None:
        raise FileNotFoundError("no C compiler (set CC, or install gcc)")
    out = Path(directory) / "libreproblas_reference.so"
    cmd = cc + CFLAGS + [f"-I{ROOT / 'src' / 'c'}", str(SOURCE), "-o", str(out), "-lm"]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{done.stderr}")
    return Reference(ctypes.CDLL(str(out)))


_P, _I, _L = ctypes.c_void_p, ctypes.c_int, ctypes.c_int64
_SIGNATURES = {  # name: (restype or None, argument kinds); "T" the element type
    "sum": ("T", [_I, _L, _P, _L]), "asum": ("T", [_I, _L, _P, _L]),
    "nrm2": ("T", [_I, _L, _P, _L]), "dot": ("T", [_I, _L, _P, _L, _P, _L]),
    "iamax": (_L, [_L, _P, _L]),
    "axpy": (None, [_L, "T", _P, _L, _P, _L]), "scal": (None, [_L, "T", _P, _L]),
    "gemv": (None, [_I, _I, _L, _L, "T", _P, _L, _L, _P, _L, "T", _P, _L]),
    "ger": (None, [_L, _L, "T", _P, _L, _P, _L, _P, _L, _L]),
    "gemm": (None, [_I, _I, _I, _L, _L, _L, "T", _P, _L, _L, _P, _L, _L, "T", _P, _L, _L]),
    "trsv": (None, [_I, _I, _I, _I, _L, _P, _L, _L, _P, _L]),
    "trsm": (None, [_I, _I, _I, _I, _I, _L, _L, "T", _P, _L, _L, _P, _L, _L]),
    "trmm": (None, [_I, _I, _I, _I, _I, _L, _L, "T", _P, _L, _L, _P, _L, _L]),
    "conv2d": (None, [_I, _P, _P, _P, _P, _P, _P, _L, _P, _P]),
    "conv2d_grad_input": (None, [_I, _P, _P, _P, _P, _P, _P, _P]),
    "conv2d_grad_weight": (None, [_I, _P, _P, _P, _P, _P, _P, _P]),
    "conv2d_grad_bias": (None, [_I, _P, _P, _P, _P, _L]),
    "scan": (None, [_I, _I, _I, _I, _L, _P, _L, _P, _L, _P, _L]),
}


def _ptr(a):
    """Address of element [0, ...] (also for negative strides) and element strides."""
    return a.ctypes.data, [s // a.itemsize for s in a.strides]


def _i64(values):
    return np.ascontiguousarray(values, dtype=np.int64)


def _pair(v):
    return (v, v) if isinstance(v, (int, np.integer)) else tuple(v)


def conv_geometry(x_shape, w_shape, stride, padding, dilation, groups):
    """{N, C, H, W, K, groups, R, S, P, Q, sh, sw, ph, pw, dh, dw} (PyTorch's sizes;
    'same' pads span // 2 before, the rest after)."""
    (n, c, h, w), (k, _, r, s) = x_shape, w_shape
    (sh, sw), (dh, dw) = _pair(stride), _pair(dilation)
    span = (dh * (r - 1), dw * (s - 1))
    if padding == "valid":
        before, total = (0, 0), (0, 0)
    elif padding == "same":
        before, total = (span[0] // 2, span[1] // 2), span
    else:
        before = _pair(padding)
        total = (2 * before[0], 2 * before[1])
    p = (h + total[0] - span[0] - 1) // sh + 1
    q = (w + total[1] - span[1] - 1) // sw + 1
    return _i64([n, c, h, w, k, groups, r, s, p, q, sh, sw, before[0], before[1], dh, dw])


class Reference:
    def __init__(self, lib):
        self._fn = {}
        for sfx, ct in (("f32", ctypes.c_float), ("f64", ctypes.c_double)):
            for name, (res, args) in _SIGNATURES.items():
                f = getattr(lib, f"rb_ref_{name}_{sfx}")
                f.restype = ct if res == "T" else res
                f.argtypes = [ct if a == "T" else a for a in args]
                self._fn[name, sfx] = f

    def _f(self, name, dtype):
        return self._fn[name, {4: "f32", 8: "f64"}[np.dtype(dtype).itemsize]]

    # ---- level 1
    def _reduce(self, name, x, order):
        p, (sx,) = _ptr(x)
        return x.dtype.type(self._f(name, x.dtype)(ORDERS[order], x.shape[0], p, sx))

    def sum(self, x, order="sequential"):
        return self._reduce("sum", x, order)

    def asum(self, x, order="sequential"):
        return self._reduce("asum", x, order)

    def nrm2(self, x, order="sequential"):
        return self._reduce("nrm2", x, order)

    def dot(self, x, y, order="sequential"):
        (px, (sx,)), (py, (sy,)) = _ptr(x), _ptr(y)
        return x.dtype.type(self._f("dot", x.dtype)(ORDERS[order], x.shape[0], px, sx, py, sy))

    def iamax(self, x):
        p, (sx,) = _ptr(x)
        return int(self._f("iamax", x.dtype)(x.shape[0], p, sx))

    def axpy(self, alpha, x, y):
        out = y.copy()
        (px, (sx,)), (py, (sy,)) = _ptr(x), _ptr(out)
        self._f("axpy", x.dtype)(x.shape[0], alpha, px, sx, py, sy)
        return out

    def scal(self, alpha, x):
        out = x.copy()
        p, (sx,) = _ptr(out)
        self._f("scal", x.dtype)(x.shape[0], alpha, p, sx)
        return out

    # ---- level 2 and 3
    def gemv(self, alpha, a, x, beta=0.0, y=None, trans=False, order="sequential"):
        m, n = a.shape
        out = (np.full((n if trans else m,), np.nan, a.dtype) if y is None else y.copy())
        (pa, (s0, s1)), (px, (sx,)), (py, (sy,)) = _ptr(a), _ptr(x), _ptr(out)
        self._f("gemv", a.dtype)(ORDERS[order], int(trans), m, n, alpha, pa, s0, s1, px, sx,
                                 beta, py, sy)
        return out

    def ger(self, alpha, x, y, a=None):
        out = np.zeros((x.shape[0], y.shape[0]), x.dtype) if a is None else a.copy()
        (px, (sx,)), (py, (sy,)), (pa, (s0, s1)) = _ptr(x), _ptr(y), _ptr(out)
        self._f("ger", x.dtype)(x.shape[0], y.shape[0], alpha, px, sx, py, sy, pa, s0, s1)
        return out

    def gemm(self, alpha, a, b, beta=0.0, c=None, trans_a=False, trans_b=False,
             order="sequential"):
        m, k = a.shape[::-1] if trans_a else a.shape
        n = b.shape[0] if trans_b else b.shape[1]
        out = np.full((m, n), np.nan, a.dtype) if c is None else c.copy()
        (pa, (a0, a1)), (pb, (b0, b1)), (pc, (c0, c1)) = _ptr(a), _ptr(b), _ptr(out)
        self._f("gemm", a.dtype)(ORDERS[order], int(trans_a), int(trans_b), m, n, k, alpha,
                                 pa, a0, a1, pb, b0, b1, beta, pc, c0, c1)
        return out

    def trsv(self, a, b, lower=False, trans=False, unit_diagonal=False, order="sequential"):
        out = b.copy()
        (pa, (a0, a1)), (pb, (sb,)) = _ptr(a), _ptr(out)
        self._f("trsv", a.dtype)(ORDERS[order], int(lower), int(trans), int(unit_diagonal),
                                 b.shape[0], pa, a0, a1, pb, sb)
        return out

    def trsm(self, alpha, a, b, side="left", lower=False, trans_a=False, unit_diagonal=False,
             order="sequential"):
        out = b.copy()
        (pa, (a0, a1)), (pb, (b0, b1)) = _ptr(a), _ptr(out)
        self._f("trsm", a.dtype)(ORDERS[order], int(side == "right"), int(lower), int(trans_a),
                                 int(unit_diagonal), b.shape[0], b.shape[1], alpha, pa, a0, a1,
                                 pb, b0, b1)
        return out

    def trmm(self, alpha, a, b, side="left", lower=False, trans_a=False, unit_diagonal=False,
             order="sequential"):
        out = b.copy()
        (pa, (a0, a1)), (pb, (b0, b1)) = _ptr(a), _ptr(out)
        self._f("trmm", a.dtype)(ORDERS[order], int(side == "right"), int(lower), int(trans_a),
                                 int(unit_diagonal), b.shape[0], b.shape[1], alpha, pa, a0, a1,
                                 pb, b0, b1)
        return out

    # ---- convolution
    def conv2d(self, x, w, bias=None, stride=1, padding=0, dilation=1, groups=1,
               order="sequential"):
        geo = conv_geometry(x.shape, w.shape, stride, padding, dilation, groups)
        y = np.empty((x.shape[0], w.shape[0], geo[8], geo[9]), x.dtype)
        (px, sx), (pw, sw), (py, sy) = _ptr(x), _ptr(w), _ptr(y)
        pb, (sb,) = (None, (0,)) if bias is None else _ptr(bias)
        self._f("conv2d", x.dtype)(ORDERS[order], geo.ctypes, px, _i64(sx).ctypes,
                                   pw, _i64(sw).ctypes, pb, sb, py, _i64(sy).ctypes)
        return y

    def conv2d_grad_input(self, gy, w, input_shape, stride=1, padding=0, dilation=1, groups=1,
                          order="sequential"):
        geo = conv_geometry(input_shape, w.shape, stride, padding, dilation, groups)
        gx = np.empty(input_shape, gy.dtype)
        (pg, sg), (pw, sw), (px, sx) = _ptr(gy), _ptr(w), _ptr(gx)
        self._f("conv2d_grad_input", gy.dtype)(
            ORDERS[order], geo.ctypes, pg, _i64(sg).ctypes, pw, _i64(sw).ctypes,
            px, _i64(sx).ctypes)
        return gx

    def conv2d_grad_weight(self, x, gy, weight_shape, stride=1, padding=0, dilation=1, groups=1,
                           order="sequential"):
        geo = conv_geometry(x.shape, weight_shape, stride, padding, dilation, groups)
        gw = np.empty(weight_shape, x.dtype)
        (px, sx), (pg, sg), (pw, sw) = _ptr(x), _ptr(gy), _ptr(gw)
        self._f("conv2d_grad_weight", x.dtype)(
            ORDERS[order], geo.ctypes, px, _i64(sx).ctypes, pg, _i64(sg).ctypes,
            pw, _i64(sw).ctypes)
        return gw

    def conv2d_grad_bias(self, gy, order="sequential"):
        n, k, p, q = gy.shape
        geo = _i64([n, 0, 0, 0, k, 1, 0, 0, p, q, 1, 1, 0, 0, 1, 1])
        gb = np.empty(k, gy.dtype)
        (pg, sg), (pb, (sb,)) = _ptr(gy), _ptr(gb)
        self._f("conv2d_grad_bias", gy.dtype)(ORDERS[order], geo.ctypes, pg,
                                              _i64(sg).ctypes, pb, sb)
        return gb

    # ---- scans (docs/contract.md §5.2)
    def scan(self, x, order="sequential", op="sum", transform=None, y=None, exclusive=False):
        """The 1-D scan of x: op 'sum' (cumsum) or 'prod' (cumprod); transform None,
        'abs', 'square' or 'multiply' (terms x*y)."""
        term = {None: 0, "abs": 1, "square": 2, "multiply": 2}[transform]
        if transform == "square":
            y = x
        out = np.empty(x.shape[0], x.dtype)
        px, (sx,) = _ptr(x)
        py, (sy,) = _ptr(y) if y is not None else (None, (0,))
        po, (so,) = _ptr(out)
        self._f("scan", x.dtype)(ORDERS[order], int(op == "prod"), term, int(exclusive),
                                 x.shape[0], px, sx, py, sy, po, so)
        return out
