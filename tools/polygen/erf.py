"""Coefficients of the correctly rounded erff (src/c/crlibm/functions/erf.h).

[0, ERF_ONE] is cut into intervals of width 1/K centred on i/K (i = rint(K*a)),
interval 0 being [0, 1/(2K)]. On each, erf(i/K + t) is a polynomial of degree
DEG in t.

* Intervals 1..N-1 (RLIBM, core.rlibm_fit): one FunctionSpec per interval,
  whose domain is the floats that reach it and whose polynomial is that
  interval's row of the table; the result is the polynomial's value itself
  (no compensation), so each input's constraint is the rounding interval of
  its correctly rounded result. Every input of every interval is checked in C.
* Interval 0 (every tiny and subnormal input) is odd: c_1 = 2/sqrt(pi)
  rounded (within 2^-56 of it, so that c_1 * a, the result of tiny inputs, is
  as exact as it can be) and c_3, c_5 by relative minimax against 200-bit MPFR
  (core.fit_minimax); a free c_1 would let the LP trade it against c_3, and
  its constraints span results from 2^-149 to 2^-7 (the LP's scaling takes
  one unit per fit). The exhaustive verification covers it.

K and DEG: degree 5 at width 1/64 (the minimax fit needed it too: degree 4
leaves interval 0 with t, t^3 only; at width 1/32 degree 6 gave 6 wrong
results on interval 0).

The table is interval-major (c_j of interval i at i*(DEG+1) + j) so that the
kernel reads each lane's coefficients as adjacent pairs (vd_gather_pair).

Usage: python tools/polygen.py erf   (rewrites coeffs/erf_poly.h)
"""
import os
import sys

import gmpy2
import numpy as np
from gmpy2 import mpfr

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import core  # noqa: E402

from dataclasses import replace  # noqa: E402

K = 64                                   # CR_ERF_K in erf.h
ERF_ONE = float.fromhex("0x1.f5a88ap+1")  # least float with erf rounding to 1
N = int(round(ERF_ONE * K)) + 1          # intervals 0..N-1
DEG = 5                                  # degree of the polynomial in t
NODES = 160
PREC = 200



def _taylor(center, n):
    """erf's Taylor coefficients at center (good LP starting point)."""
    c = mpfr(center)
    d = [gmpy2.erf(c)]
    # erf^(k+1)(c) = 2/sqrt(pi) * (-1)^k H_k(c) exp(-c^2), Hermite H_k.
    h_prev, h = mpfr(0), mpfr(1)
    g = 2 / gmpy2.sqrt(gmpy2.const_pi()) * gmpy2.exp(-c * c)
    fact = mpfr(1)
    for k in range(n - 1):
        fact *= k + 1
        d.append((-1) ** k * h * g / fact)
        h_prev, h = h, 2 * c * h - 2 * k * h_prev
    return np.array([float(v) for v in d])


def fit_interval0():
    """Odd: c_1 = 2/sqrt(pi) rounded to double (within 2^-56 of it), and the
    rest fitted to erf(t) - (2/sqrt(pi)) t, so c_1 is not perturbed by the fit
    (tiny inputs, whose results are c_1 * t, need it as exact as it can be)."""
    h = 0.5 / K
    t = core.chebyshev_nodes(0.0, h, NODES)
    with gmpy2.context(precision=PREC):
        c = 2 / gmpy2.sqrt(gmpy2.const_pi())
        f = [gmpy2.erf(mpfr(float(v))) - c * mpfr(float(v)) for v in t]
    exps = list(range(3, DEG + 1, 2))
    rest, err = core.fit_minimax_refined(t, f, exps, _taylor(0.0, DEG + 1)[exps])
    poly = np.zeros(DEG + 1)
    poly[1] = float(c)
    poly[exps] = rest
    # The correction weighs at most h^2/3 relative to erf itself.
    return list(poly), err * h * h / 3


def interval_bits(i):
    """Inclusive float32 bit range of the a >= 0 with rint(K*a) = i (ties to
    even, as vd_rint), the last interval ending at ERF_ONE (larger a are
    clamped to it)."""
    def bits(v):
        return int(np.float32(v).view(np.uint32))
    lo = bits((i - 0.5) / K) + (i % 2)         # an odd i loses the tie below
    hi = bits(ERF_ONE) if i == N - 1 else bits((i + 0.5) / K) - (i % 2)
    return lo, hi


def write_headers(rows, summary, directory=core.COEFF_DIR):
    values, comments = [], []
    for i, row in enumerate(rows):
        for j in range(DEG + 1):
            values.append(row[j])
            comments.append(f"t^{j}, interval {i} (centre {i}/{K})")
    return core.write_header("erf_poly.h", summary, "python tools/polygen.py erf",
                             [core.Table("cr_erf_table", values, comments)], directory=directory)


def spec(rows):
    """The FunctionSpec of interval 1 (the others: replace domain, offset, base)."""
    return core.FunctionSpec(
        name="erf", header="crlibm/functions/erf.h", reduce="cr_erf_reduce",
        compensate="cr_erf_compensate", fast="cr_erf_fast", libm_ref="erf",
        mpfr_fn=gmpy2.erf, domain=[interval_bits(1)], poly_symbol="cr_erf_table",
        exponents=list(range(DEG + 1)), base=list(_taylor(1 / K, DEG + 1)),
        write_headers=lambda coeffs, directory: write_headers(rows, "erf (generator build)",
                                                              directory),
        libm_err="0x1p-48", poly_offset=DEG + 1)


def main():
    row0, err0 = fit_interval0()
    # The harness build starts from Taylor rows; each fit replaces its own row.
    rows = [row0] + [list(_taylor(i / K, DEG + 1)) for i in range(1, N)]
    base_spec = spec(rows)
    h = core.Harness(base_spec)
    iters, constraints = 0, 0
    try:
        for i in range(1, N):
            s = replace(base_spec, domain=[interval_bits(i)], poly_offset=i * (DEG + 1),
                        base=rows[i])
            res = core.rlibm_fit(s, n_init=1000, harness=h, log=lambda *a: None)
            h.set_coeffs(res.coeffs)  # later intervals run with this row in place
            rows[i] = list(res.coeffs)
            iters, constraints = iters + res.iterations, constraints + res.sample_size
    finally:
        h.close()
    summary = (f"erf(i/{K} + t) ~ sum_j c_j t^j, |t| <= 1/{2 * K}, i = 0..{N - 1}. Intervals 1..{N - 1}:\n"
               f"RLIBM fits ({iters} iterations, {constraints} constraints in all), every input\n"
               f"checked; interval 0: odd, relative minimax error 2^{np.log2(err0):.1f}.\n"
               f"Interval-major: c_j of interval i at [i*{DEG + 1} + j].")
    print(write_headers(rows, summary))
    print(f"K={K} N={N} DEG={DEG}: {iters} RLIBM iterations, {constraints} constraints")


TARGETS = {"erf": lambda argv: main()}

if __name__ == "__main__":
    main()
