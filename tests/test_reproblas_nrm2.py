"""nrm2 at the edges of its one-pass pairwise path (level1_driver.inc): the
tree of the unscaled x_k * x_k, rescaled by 2^-2e, is used only when every
nonzero abs(x_k) >= 2^(E_MIN/2 + max(0, e)) and nothing overflows; otherwise
the scaled terms of contract §3 are summed in a second pass. Values at, just
above and just below that threshold, subnormals, huge values and zeros,
both orders, both dtypes, every path and 1-4 threads, bit for bit against
the literal contract reference (test_reproblas_reference.py)."""
import math

import numpy as np
import pytest

import reproblas as rb
from reproblas import _core
import test_reproblas_reference as ref

DTYPES = [np.float32, np.float64]
ORDERS = ["sequential", "pairwise"]
ISAS = [name for name in _core.isa_names() if _core.isa_code(name) >= 0]
LENGTHS = [1, 2, 7, 37, 1000, 5001]


def cluster(rng, n, lo, hi, dtype):
    """n values of both signs with exponents in [lo, hi), random significands."""
    sig = 1 + rng.random(n)
    return (rng.choice([-1.0, 1.0], n) * sig * np.exp2(rng.integers(lo, hi, n))).astype(dtype)


def cases(rng, n, dtype):
    """(name, x): the data around the one-pass condition."""
    fin = np.finfo(dtype)
    emin = -126 if dtype is np.float32 else -1022
    half = emin // 2
    big_e = 40 if dtype is np.float32 else 300  # e > 0: the threshold moves up by e
    thr_small, thr_big = dtype(2.0 ** half), dtype(2.0 ** (half + big_e))
    out = [("spread", (rng.standard_normal(n) * 2.0 ** rng.integers(-20, 21, n)).astype(dtype))]
    for name, lo, thr, top in (("e<0", half, thr_small, None),
                               ("e>0", half + big_e, thr_big, dtype(1.5 * 2.0 ** big_e))):
        for where, t in (("at", thr), ("below", np.nextafter(thr, dtype(0)))):
            x = cluster(rng, n, lo, lo + 4, dtype)
            x[n // 2] = -t  # the smallest nonzero magnitude
            if top is not None and n > 1:
                x[0] = top  # sets e
            out.append((f"{name} {where} threshold", x))
        # clusters partly below the threshold: unscaled squares lose bits
        out.append((f"{name} cluster below", cluster(rng, n, lo - 6, lo + 2, dtype)))
        out.append((f"{name} cluster just below", cluster(rng, n, lo - 2, lo + 1, dtype)))
    sub = cluster(rng, n, -20, 20, dtype)
    sub[::3] = fin.smallest_subnormal * rng.integers(1, 1000, len(sub[::3]))
    out.append(("subnormals mixed", sub))
    out.append(("all subnormal", (fin.smallest_subnormal * rng.integers(1, 2 ** 20, n))
                .astype(dtype)))
    out.append(("huge", cluster(rng, n, fin.maxexp - 3, fin.maxexp, dtype)))
    zeros = cluster(rng, n, -3, 3, dtype)
    zeros[::2] = rng.choice([dtype(0.0), dtype(-0.0)], len(zeros[::2]))
    out.append(("signed zeros", zeros))
    return out


def unscaled(x, dtype):
    """What the one pass would return if its condition were ignored."""
    emin, emax = (-126, 127) if dtype is np.float32 else (-1022, 1023)
    m = float(np.max(np.abs(x)))
    if m == 0:
        return dtype(0)
    e = min(max(math.frexp(m)[1] - 1, emin), emax)
    u = ref.reduce("dot", x, x, "pairwise")
    with np.errstate(all="ignore"):
        return np.sqrt(dtype(math.ldexp(float(u), -2 * e))) * dtype(2.0 ** e)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order", ORDERS)
def test_nrm2_one_pass_edges(order, dtype, monkeypatch):
    rng = np.random.default_rng([21, ORDERS.index(order), dtype(0).nbytes])
    differs = set()
    for n in LENGTHS:
        for name, x in cases(rng, n, dtype):
            want = ref.reduce("nrm2", x, order=order)
            if order == "pairwise" and not ref.same_bits(unscaled(x, dtype), want):
                differs.add(name)
            for tuning in ((64, 50), (0, 0)):
                with _core.tuning(l1=tuning):
                    for isa in ISAS:
                        monkeypatch.setenv("REPROBLAS_ISA", isa)
                        for threads in (1, 2, 3, 4):
                            monkeypatch.setenv("REPROBLAS_NUM_THREADS", str(threads))
                            got = rb.nrm2(x, order=order)
                            assert ref.same_bits(got, want), (name, n, isa, threads, tuning)
    if order == "pairwise":
        # the data can tell the paths apart: below the threshold (and for
        # subnormals or overflow) the unscaled tree is wrong
        assert {"e<0 cluster below", "all subnormal", "huge"} <= differs, differs


@pytest.mark.parametrize("dtype", DTYPES)
def test_nrm2_one_pass_long(dtype, monkeypatch):
    """Default splits on a long vector (pieces in sub-blocks, threads): at the
    threshold (one pass) and one ulp below it (two passes)."""
    rng = np.random.default_rng([22, dtype(0).nbytes])
    n = (1 << 17) + 3
    half = (-126 if dtype is np.float32 else -1022) // 2
    x = cluster(rng, n, half, half + 6, dtype)
    for t in (dtype(2.0 ** half), np.nextafter(dtype(2.0 ** half), dtype(0))):
        x[12345] = t
        for order in ORDERS:
            want = ref.reduce("nrm2", x, order=order)
            for isa in ISAS:
                monkeypatch.setenv("REPROBLAS_ISA", isa)
                for threads in (1, 2, 4):
                    monkeypatch.setenv("REPROBLAS_NUM_THREADS", str(threads))
                    assert ref.same_bits(rb.nrm2(x, order=order), want), (t, order, isa, threads)
