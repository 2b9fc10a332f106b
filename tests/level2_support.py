"""Shared by the level-2 tests: the executable reference of docs/contract.md §3.6
(src/c/order/reference.c rb_ref_l2*, through ctypes), storage conversions (band,
packed) and operand generators."""
import ctypes

import numpy as np

import reference_lib

ORDERS = {"sequential": 0, "pairwise": 1}
GENERAL, SYMMETRIC, TRIANGULAR = 0, 1, 2
FULL, BAND, PACKED = 0, 1, 2
_P, _I, _L = ctypes.c_void_p, ctypes.c_int, ctypes.c_int64


class Reference:
    def __init__(self, directory):
        reference_lib.build(directory)
        lib = ctypes.CDLL(str(directory / "libreproblas_reference.so"))
        self._fn = {}
        for sfx, ct in (("f32", ctypes.c_float), ("f64", ctypes.c_double)):
            f = lib[f"rb_ref_l2mv_{sfx}"]
            f.restype = None
            f.argtypes = [_I] * 6 + [_L] * 4 + [ct, _P, _L, _L, _P, _L, ct, _P, _L]
            self._fn["mv", sfx] = f
            f = lib[f"rb_ref_l2sv_{sfx}"]
            f.restype = None
            f.argtypes = [_I] * 5 + [_L, _L, _P, _L, _L, _P, _L]
            self._fn["sv", sfx] = f
            f = lib[f"rb_ref_l2rank_{sfx}"]
            f.restype = None
            f.argtypes = [_I, _I, _L, ct, _P, _L, _P, _L, _P, _L, _L]
            self._fn["rank", sfx] = f

    def _f(self, name, dtype):
        return self._fn[name, "f32" if np.dtype(dtype) == np.float32 else "f64"]

    def mv(self, order, kind, storage, lower, trans, unit, m, n, kl, ku, alpha, a, x, beta=0,
           y=None):
        pa, rs, cs = _mat(a)
        rows = n if kind == GENERAL and trans else m
        out = np.zeros(rows, a.dtype) if y is None else np.array(y, dtype=a.dtype)
        xc = np.ascontiguousarray(x)
        self._f("mv", a.dtype)(ORDERS[order], kind, storage, int(lower), int(trans), int(unit),
                               m, n, kl, ku, alpha, pa, rs, cs, xc.ctypes.data, 1, beta,
                               out.ctypes.data, 1)
        return out

    def sv(self, order, storage, lower, trans, unit, n, k, a, b):
        pa, rs, cs = _mat(a)
        out = np.array(b, dtype=a.dtype)
        self._f("sv", a.dtype)(ORDERS[order], storage, int(lower), int(trans), int(unit), n, k,
                               pa, rs, cs, out.ctypes.data, 1)
        return out

    def rank(self, storage, lower, n, alpha, x, y, a):
        out = np.array(a, order="C")
        pa, rs, cs = _mat(out)
        xc = np.ascontiguousarray(x)
        yc = None if y is None else np.ascontiguousarray(y)
        self._f("rank", x.dtype)(storage, int(lower), n, alpha, xc.ctypes.data, 1,
                                 None if yc is None else yc.ctypes.data, 1, pa, rs, cs)
        return out


def _mat(a):
    size = a.itemsize
    if a.ndim == 1:
        return a.ctypes.data, (a.strides[0] // size if a.shape[0] else 1), 0
    return a.ctypes.data, a.strides[0] // size, a.strides[1] // size


# ---- storage ----

def pack(full, lower):
    """The triangle of full, column by column (BLAS packed storage)."""
    n = full.shape[0]
    cols = [full[j:, j] if lower else full[: j + 1, j] for j in range(n)]
    return np.concatenate(cols) if cols else np.zeros(0, full.dtype)


def unpack(ap, n, lower, fill=0.0):
    full = np.full((n, n), fill, dtype=ap.dtype)
    p = 0
    for j in range(n):
        rows = range(j, n) if lower else range(j + 1)
        for i in rows:
            full[i, j] = ap[p]
            p += 1
    return full


def to_band(full, kl, ku, junk=np.nan):
    """BLAS band storage ab[ku + i - j, j] = A[i, j]; positions outside A are junk."""
    m, n = full.shape
    ab = np.full((kl + ku + 1, n), junk, dtype=full.dtype)
    for j in range(n):
        for i in range(max(0, j - ku), min(m, j + kl + 1)):
            ab[ku + i - j, j] = full[i, j]
    return ab


def sym_full(a, lower):
    """The symmetric matrix whose stored triangle is a's lower (upper) one."""
    t = np.tril(a) if lower else np.triu(a)
    return t + (np.tril(a, -1) if lower else np.triu(a, 1)).T


def data(rng, shape, dtype):
    """Spread-out magnitudes, both signs, some signed zeros: a changed order or a
    changed term changes the bits."""
    v = rng.standard_normal(shape) * 2.0 ** rng.integers(-12, 13, shape)
    v[rng.random(shape) < 0.05] = -0.0
    return v.astype(dtype)


def layout(x, kind):
    """A copy of x's values in the given memory layout."""
    if kind in ("C", "F"):
        return np.array(x, order=kind, copy=True)
    if kind == "strided":
        big = np.zeros(tuple(2 * s + 1 for s in x.shape), dtype=x.dtype)
        view = big[(slice(1, None, 2),) * x.ndim]
        view[...] = x
        return view
    rev = (slice(None, None, -1),) * x.ndim
    return x[rev].copy()[rev]


def same_bits(got, want, what):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, f"{what}: shape {got.shape} != {want.shape}"
    gb = got.view(np.uint32 if got.dtype == np.float32 else np.uint64)
    wb = want.view(np.uint32 if want.dtype == np.float32 else np.uint64)
    diff = (gb != wb) & ~(np.isnan(got) & np.isnan(want))
    assert not diff.any(), (f"{what}: {int(diff.sum())} of {got.size} differ, first at "
                            f"{np.argwhere(diff)[0]}: {got[diff][:3]} vs {want[diff][:3]}")
