"""Coefficients of the correctly rounded erff (src/c/crlibm/functions/erf.h).

[0, ERF_ONE] is cut into intervals of width 1/K centred on i/K (i = rint(K*a)),
interval 0 being [0, 1/(2K)]. On each, erf(i/K + t) is a polynomial of degree
DEG in t, fitted by relative minimax (core.fit_minimax against 200-bit MPFR
values); on interval 0 it is odd (no constant term: tiny and subnormal
results keep their relative accuracy) with c_1 = 2/sqrt(pi) rounded.

K and DEG: degree 5 at width 1/64 is the lowest for which the exhaustive check
against MPFR finds no wrong result (degree 4 leaves interval 0 with t, t^3
only; at width 1/32 degree 6 gave 6 wrong results on interval 0).

The table is coefficient-major (c_j of interval i at j*N + i) so that the
kernel gathers c_j of every lane with one index.

Usage: python tools/polygen/erf.py   (rewrites coeffs/erf_poly.h)
"""
import os
import sys

import gmpy2
import numpy as np
from gmpy2 import mpfr

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import core  # noqa: E402

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


def fit_interval(i):
    h = 0.5 / K
    t = core.chebyshev_nodes(-h, min(h, ERF_ONE - i / K), NODES)
    with gmpy2.context(precision=PREC):
        f = [gmpy2.erf(mpfr(i) / K + mpfr(float(v))) for v in t]
    c, err = core.fit_minimax_refined(t, f, range(DEG + 1), _taylor(i / K, DEG + 1))
    return list(c), err


def main():
    rows, errs = [], []
    for i in range(N):
        row, err = fit_interval0() if i == 0 else fit_interval(i)
        rows.append(row)
        errs.append(err)
    worst = max(errs)
    values, comments = [], []
    for j in range(DEG + 1):
        for i in range(N):
            values.append(rows[i][j])
            comments.append(f"t^{j}, interval {i} (centre {i}/{K})")
    summary = (f"erf(i/{K} + t) ~ sum_j c_j t^j, |t| <= 1/{2 * K}, i = 0..{N - 1}; relative minimax\n"
               f"error <= 2^{np.log2(worst):.1f}. Coefficient-major: c_j of interval i at [j*{N} + i].")
    core.write_header("erf_poly.h", summary, "python tools/polygen.py erf",
                      [core.Table("cr_erf_table", values, comments)])
    print(f"K={K} N={N} DEG={DEG}: worst error 2^{np.log2(worst):.2f} "
          f"(interval {int(np.argmax(errs))}), interval 0: 2^{np.log2(errs[0]):.2f}")


TARGETS = {"erf": lambda argv: main()}

if __name__ == "__main__":
    main()
