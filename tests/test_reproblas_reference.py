"""An independent reference for reproblas level 1, following contract §2-§3 literally.

Scalar NumPy arithmetic (np.float32 / np.float64 scalars round once per
operation, subnormals honoured) and fma through MPFR (gmpy2's ieee(32/64)
contexts: exact a*b+c, rounded once, subnormalised). Nothing here shares code
with the library. This module also checks the reference itself.
"""
import math

import gmpy2
import numpy as np
import pytest

_CONTEXTS = {np.float32: gmpy2.ieee(32), np.float64: gmpy2.ieee(64)}


def fma(a, b, c):
    """fma(a, b, c) rounded once in the type of a (all three of one type)."""
    t = type(a)
    # gmpy2 takes Python floats exactly; every float32/float64 value is one.
    return t(float(_CONTEXTS[t].fma(float(a), float(b), float(c))))


def pairwise_tree(terms):
    """P(t_0..t_{n-1}) of contract §2: t_0, or P(first h) + P(rest), h the largest
    power of two strictly below n."""
    n = len(terms)
    if n == 1:
        return terms[0]
    h = 1 << ((n - 1).bit_length() - 1)
    return pairwise_tree(terms[:h]) + pairwise_tree(terms[h:])


def pairwise_tree_vectorised(terms):
    """The same tree, level by level with NumPy array adds (each element one
    rounded add): the blocks of n's binary expansion, perfect trees, joined
    right to left. Independent of pairwise_tree; used for long vectors."""
    t = np.asarray(terms)
    blocks, start = [], 0
    for b in range(len(t).bit_length() - 1, -1, -1):
        if len(t) >> b & 1:
            v = t[start:start + (1 << b)]
            while len(v) > 1:
                v = v[0::2] + v[1::2]
            blocks.append(v[0])
            start += 1 << b
    acc = blocks[-1]
    for blk in reversed(blocks[:-1]):
        acc = blk + acc
    return acc


def _plain_terms(routine, x):
    return [abs(v) for v in x] if routine == "asum" else list(x)


def _sequential_plain(terms):
    s = terms[0]
    for t in terms[1:]:
        s = s + t
    return s


def _sequential_products(a, b):
    s = a[0] * b[0]
    for k in range(1, len(a)):
        s = fma(a[k], b[k], s)
    return s


def _ordered_products(a, b, order, dtype):
    if len(a) == 0:
        return dtype(0)
    if order == "sequential":
        return _sequential_products(a, b)
    prods = [p * q for p, q in zip(a, b)]
    return pairwise_tree(prods) if len(prods) < 4096 else pairwise_tree_vectorised(prods)


def reduce(routine, x, y=None, order="sequential"):
    """sum / asum / dot / nrm2 of contract §3 (x, y: 1-D arrays of one float dtype)."""
    dtype = x.dtype.type
    xs = [dtype(v) for v in x]
    with np.errstate(all="ignore"):
        if routine == "dot":
            return _ordered_products(xs, [dtype(v) for v in y], order, dtype)
        if routine == "nrm2":
            return _nrm2(xs, order, dtype)
        if not xs:
            return dtype(0)
        terms = _plain_terms(routine, xs)
        if order == "sequential":
            return _sequential_plain(terms)
        return pairwise_tree(terms) if len(terms) < 4096 else pairwise_tree_vectorised(terms)


def _nrm2(xs, order, dtype):
    if not xs:
        return dtype(0)
    if any(math.isnan(float(v)) for v in xs):
        return dtype(np.nan)
    m = max(abs(float(v)) for v in xs)
    if m == math.inf:
        return dtype(np.inf)
    if m == 0:
        return dtype(0)
    emin, emax = (-126, 127) if dtype is np.float32 else (-1022, 1023)
    e = min(max(math.frexp(m)[1] - 1, emin), emax)
    scale = dtype(2.0 ** -e)
    z = [v * scale for v in xs]
    s = _ordered_products(z, z, order, dtype)
    return np.sqrt(s) * dtype(2.0 ** e)


def iamax(x):
    """First NaN, else the smallest index of the largest abs(x_k)."""
    vals = [float(v) for v in x]
    for k, v in enumerate(vals):
        if math.isnan(v):
            return k
    m = max(abs(v) for v in vals)
    return next(k for k, v in enumerate(vals) if abs(v) == m)


def axpy(alpha, x, y):
    dtype = y.dtype.type
    a = dtype(alpha)
    return np.array([fma(a, dtype(p), dtype(q)) for p, q in zip(x, y)], dtype=y.dtype)


def scal(alpha, x):
    dtype = x.dtype.type
    with np.errstate(all="ignore"):
        return np.array([dtype(alpha) * dtype(v) for v in x], dtype=x.dtype)


def _scaled(s, alpha, beta, c_old, dtype):
    """Contract §2 scaling: alpha*S, or fma(beta, C_old, alpha*S) when beta != 0."""
    v = dtype(alpha) * s
    return v if dtype(beta) == 0 else fma(dtype(beta), dtype(c_old), v)


def gemm(alpha, a, b, beta=0.0, c=None, trans_a=False, trans_b=False, order="sequential"):
    """C_ij of contract §3: the terms op(A)_ik*op(B)_kj over k, scaled as §2."""
    dtype = a.dtype.type
    A = a.T if trans_a else a
    B = b.T if trans_b else b
    m, n = A.shape[0], B.shape[1]
    out = np.empty((m, n), dtype=a.dtype)
    with np.errstate(all="ignore"):
        for i in range(m):
            row = [dtype(v) for v in A[i]]
            for j in range(n):
                s = _ordered_products(row, [dtype(v) for v in B[:, j]], order, dtype)
                out[i, j] = _scaled(s, alpha, beta, None if c is None else c[i, j], dtype)
    return out


def gemv(alpha, a, x, beta=0.0, y=None, trans=False, order="sequential"):
    """y_i of contract §3: the terms op(A)_ij*x_j over j, scaled as §2."""
    dtype = a.dtype.type
    A = a.T if trans else a
    xs = [dtype(v) for v in x]
    out = np.empty(A.shape[0], dtype=a.dtype)
    with np.errstate(all="ignore"):
        for i in range(A.shape[0]):
            s = _ordered_products([dtype(v) for v in A[i]], xs, order, dtype)
            out[i] = _scaled(s, alpha, beta, None if y is None else y[i], dtype)
    return out


def ger(alpha, x, y, a):
    """A_ij <- fma(x_i, alpha*y_j, A_ij)."""
    dtype = a.dtype.type
    out = np.empty(a.shape, dtype=a.dtype)
    with np.errstate(all="ignore"):
        for i in range(a.shape[0]):
            for j in range(a.shape[1]):
                out[i, j] = fma(dtype(x[i]), dtype(alpha) * dtype(y[j]), dtype(a[i, j]))
    return out


def same_bits(a, b):
    """Bitwise equality of scalars or arrays; any NaN equals any NaN (contract §0)."""
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    u = np.uint32 if a.dtype == np.float32 else np.uint64
    both_nan = np.isnan(a) & np.isnan(b)
    return bool(np.all(both_nan | (a.view(u) == b.view(u))))


# ---- checks of the reference itself ----

@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fma_rounds_once(dtype):
    eps = dtype(np.finfo(dtype).eps)
    one = dtype(1)
    a = one + eps
    # (1+eps)^2 - (1+2eps) = eps^2 exactly: lost by a rounded product, kept by fma
    assert fma(a, a, -(one + 2 * eps)) == eps * eps
    assert a * a - (one + 2 * eps) == 0
    # subnormal results are rounded, not flushed; signed zeros follow IEEE
    tiny = dtype(np.finfo(dtype).smallest_subnormal)
    assert same_bits(fma(tiny, dtype(0.5), dtype(0)), tiny * dtype(0.5))
    assert same_bits(fma(dtype(3) * tiny, dtype(0.5), dtype(0)), dtype(3) * tiny * dtype(0.5))
    assert same_bits(fma(dtype(-0.0), one, dtype(-0.0)), dtype(-0.0))
    assert same_bits(fma(dtype(-0.0), one, dtype(0.0)), dtype(0.0))
    big = dtype(np.finfo(dtype).max)
    assert fma(big, dtype(2), -big) == big


def test_pairwise_tree_shape():
    # n = 6: h = 4, then (t4 + t5): ((t0+t1)+(t2+t3)) + (t4+t5)
    t = [np.float64(v) for v in (1e16, 1.0, -1e16, 1.0, 3.0, 2.0 ** -40)]
    expected = ((t[0] + t[1]) + (t[2] + t[3])) + (t[4] + t[5])
    assert same_bits(pairwise_tree(t), expected)
    # n = 7: blocks 4, 2, 1 joined right to left
    t.append(np.float64(0.5))
    expected = ((t[0] + t[1]) + (t[2] + t[3])) + ((t[4] + t[5]) + t[6])
    assert same_bits(pairwise_tree(t), expected)


@pytest.mark.parametrize("n", [1, 2, 3, 5, 6, 7, 8, 9, 31, 100, 1000, 4097])
def test_tree_references_agree(n):
    rng = np.random.default_rng(n)
    x = (rng.standard_normal(n) * 2.0 ** rng.integers(-30, 30, n)).astype(np.float32)
    terms = [np.float32(v) for v in x]
    assert same_bits(pairwise_tree(terms), pairwise_tree_vectorised(x))
