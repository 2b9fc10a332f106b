"""Coefficients of the correctly rounded erff (src/c/crlibm/functions/erf.h).

[0, ERF_ONE] is cut into intervals of width 1/K centred on i/K (i = rint(K*a)),
interval 0 being [0, 1/(2K)]. On each, erf(i/K + t) = a0 + t*H + t*L(t) with
L of degree DEG-1, fitted by relative minimax (core.fit_minimax against
200-bit MPFR values). H is 0 except on interval 0, where a0 = 0 and
H + L(0) is 2/sqrt(pi) split into two doubles: the leading term stays exact
to ~2^-106, so tiny and subnormal results carry a single rounding.

The table is coefficient-major (slot j of interval i at j*N + i) so that the
kernel gathers slot j of every lane with one index.

Usage: python tools/polygen/erf.py   (rewrites coeffs/erf_poly.h)
"""
import os
import sys

import gmpy2
import numpy as np
from gmpy2 import mpfr

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import core  # noqa: E402

K = 32                                   # CR_ERF_K in erf.h
ERF_ONE = float.fromhex("0x1.f5a88ap+1")  # least float with erf rounding to 1
N = int(round(ERF_ONE * K)) + 1          # intervals 0..N-1
DEG = 7                                  # degree of the polynomial in t
SLOTS = DEG + 2                          # a0, H, L_0..L_{DEG-1}
NODES = 160
PREC = 200


def _cheb(a, b, n):
    k = np.arange(n)
    return np.sort((a + b) / 2 + (b - a) / 2 * np.cos(np.pi * (k + 0.5) / n))


def _refit(r, f, exps, base):
    """Two LP passes: the second refines around the first (HiGHS tolerance)."""
    c, _ = core.fit_minimax(r, f, exps, base=base)
    return core.fit_minimax(r, f, exps, base=c)


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
    """a0 = 0, H + L_0 = 2/sqrt(pi); fit the odd remainder erf(t) - C t."""
    h = 0.5 / K
    t = _cheb(0.0, h, NODES)
    with gmpy2.context(precision=PREC):
        c = 2 / gmpy2.sqrt(gmpy2.const_pi())
        c_hi = float(c)
        c_lo = float(c - c_hi)
        f = [gmpy2.erf(mpfr(float(v))) - c * mpfr(float(v)) for v in t]
    exps = list(range(3, DEG + 1, 2))
    base = _taylor(0.0, DEG + 1)[exps]
    rest, err = _refit(t, f, exps, base)
    # Relative to erf itself, the correction weighs at most ~t^2/3.
    err *= h * h / 3
    poly = np.zeros(DEG + 1)
    poly[exps] = rest
    return [0.0, c_hi, c_lo] + list(poly[2:]), err


def fit_interval(i):
    h = 0.5 / K
    t = _cheb(-h, min(h, ERF_ONE - i / K), NODES)
    with gmpy2.context(precision=PREC):
        f = [gmpy2.erf(mpfr(i) / K + mpfr(float(v))) for v in t]
    c, err = _refit(t, f, range(DEG + 1), _taylor(i / K, DEG + 1))
    return [c[0], 0.0] + list(c[1:]), err


def main():
    rows, errs = [], []
    for i in range(N):
        row, err = fit_interval0() if i == 0 else fit_interval(i)
        rows.append(row)
        errs.append(err)
    worst = max(errs)
    names = ["a0", "H"] + [f"L{j}" for j in range(DEG)]
    values, comments = [], []
    for j in range(SLOTS):
        for i in range(N):
            values.append(rows[i][j])
            comments.append(f"{names[j]}, interval {i} (centre {i}/{K})")
    summary = (f"erf(i/{K} + t) = a0 + t*H + t*L(t), |t| <= 1/{2 * K}, i = 0..{N - 1}; relative minimax\n"
               f"error <= 2^{np.log2(worst):.1f}. Coefficient-major: slot j of interval i at [j*{N} + i].")
    core.write_header("erf_poly.h", summary, "python tools/polygen/erf.py",
                      [core.Table("cr_erf_table", values, comments)])
    print(f"K={K} N={N} DEG={DEG}: worst error 2^{np.log2(worst):.2f} "
          f"(interval {int(np.argmax(errs))}), interval 0: 2^{np.log2(errs[0]):.2f}")


if __name__ == "__main__":
    main()
