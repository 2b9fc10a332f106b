"""Coefficients of the correctly rounded erff (src/c/crlibm/erf/core.h).

[0, ERF_ONE] is cut into N = 16 intervals [i/K, (i+1)/K), K = 4,
i = floor(K a). On interval i, erf(a) = m * P_i(t) with t = a - i/K,
m = min(a, 1/K) and P_i of degree DEG.

Each interval is one RLIBM fit (core.rlibm_fit): a FunctionSpec whose domain
is the floats of the interval, whose polynomial is the interval's
coefficients, and whose compensation is m * p. Interval 0 starts at the least
subnormal: with m = a it fits erf(a)/a, whose constraints (even those of the
subnormal results) are all of one scale, near 2/sqrt(pi), so every tiny input
is an ordinary constraint of the LP. Every input of every interval is checked
in C.

DEG: degree 9. At degree 7 interval 0 ([2^-12, 1/4) alone) has no
admissible polynomial, at degree 8 it fails at stride 1 (LP margin -1.2e-8);
intervals 1-3 converge at both.

The header holds the coefficients twice, by value (16 entries per
coefficient: one two-register permute each on AVX-512) and by row (the DEG + 1
coefficients of an interval: a few loads per lane on AVX2); v64_lookup16_n
reads the layout its path loads faster.

Usage: python tools/polygen.py erf   (rewrites erf/poly.h)
"""
import math
import os
import sys

import gmpy2
import numpy as np
from gmpy2 import mpfr

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import core  # noqa: E402

K = 4                                    # CR_ERF_K in erf.h
ERF_ONE = float.fromhex("0x1.f5a88ap+1")  # least float with erf rounding to 1
N = 16                                   # intervals 0..N-1 (floor(K * ERF_ONE) = 15)
DEG = 9                                  # degree of P_i (odd: AVX2 reads rows of pairs)
PREC = 200
assert int(K * ERF_ONE) == N - 1 and DEG % 2 == 1


def _taylor(i, n):
    """Taylor coefficients in t of erf(i/K + t) / m at t = 0 (the LP's start):
    m = 1/K for i > 0; for i = 0, m = a = t and erf(t)/t's series."""
    if i == 0:
        c = 2 / np.sqrt(np.pi)
        return np.array([0.0 if j % 2 else c * (-1) ** (j // 2) / (math.factorial(j // 2) * (j + 1))
                         for j in range(n)])
    with gmpy2.context(precision=PREC):
        x = mpfr(i) / K
        d = [gmpy2.erf(x)]
        # erf^(k+1)(x) = 2/sqrt(pi) (-1)^k H_k(x) exp(-x^2), Hermite H_k.
        h_prev, h = mpfr(0), mpfr(1)
        g = 2 / gmpy2.sqrt(gmpy2.const_pi()) * gmpy2.exp(-x * x)
        fact = mpfr(1)
        for k in range(n - 1):
            fact *= k + 1
            d.append((-1) ** k * h * g / fact)
            h_prev, h = h, 2 * x * h - 2 * k * h_prev
        return np.array([float(v * K) for v in d])


def interval_bits(i):
    """Inclusive float32 bit range of the a > 0 with floor(K*a) = i, the last
    interval ending at ERF_ONE (larger a are clamped to it); 0 is left out
    (m = 0: any polynomial gives erf(0) = 0)."""
    def bits(v):
        return int(np.float32(v).view(np.uint32))
    lo = 1 if i == 0 else bits(i / K)
    hi = bits(ERF_ONE) if i == N - 1 else bits((i + 1) / K) - 1
    return lo, hi


def position(i, j):
    """Index of c_j of interval i in the by-value table cr_erf_poly."""
    return 16 * j + i


def write_headers(rows, summary, directory=core.COEFF_DIR):
    """The coefficients by value (cr_erf_poly, c_j of interval i at 16 j + i)
    and by row (cr_erf_rows, at (DEG + 1) i + j): the same values in the two
    layouts v64_lookup16_n reads."""
    n = DEG + 1
    by_value, value_notes = [0.0] * (N * n), [""] * (N * n)
    by_row, row_notes = [], []
    for i, row in enumerate(rows):
        for j in range(n):
            note = f"t^{j}, interval {i} ([{i}/{K}, {i + 1}/{K}))"
            by_value[position(i, j)], value_notes[position(i, j)] = row[j], note
            by_row.append(row[j])
            row_notes.append(note)
    return core.write_header("erf/poly.h", summary, "python tools/polygen.py erf",
                             [core.Table("cr_erf_poly", by_value, value_notes),
                              core.Table("cr_erf_rows", by_row, row_notes)], directory=directory)


def spec(rows, i):
    """The FunctionSpec of interval i (rows: the table the harness starts from)."""
    return core.FunctionSpec(
        name="erf", header="crlibm/erf/core.h", reduce="cr_erf_reduce",
        compensate="cr_erf_compensate", fast="cr_erf_fast", libm_ref="erf",
        mpfr_fn=gmpy2.erf, domain=[interval_bits(i)], poly_symbol="cr_erf_poly",
        exponents=list(range(DEG + 1)), base=list(rows[i]),
        write_headers=lambda coeffs, directory: write_headers(rows, "erf (generator build)",
                                                              directory),
        libm_err="0x1p-48", poly_offset=position(i, 0), poly_step=position(0, 1))


def main():
    rows = [list(_taylor(i, DEG + 1)) for i in range(N)]
    h = core.Harness(spec(rows, 0))
    iters, constraints, checked = 0, 0, 0
    try:
        for i in range(N):
            res = core.rlibm_fit(spec(rows, i), n_init=1000, harness=h,
                                 log=lambda *a: print(f"interval {i}:", *a))
            rows[i] = list(res.coeffs)
            iters, constraints = iters + res.iterations, constraints + res.sample_size
            checked += res.checked
    finally:
        h.close()
    summary = (f"erf(a) = m P_i(t), i = floor({K} a), t = a - i/{K}, m = min(a, 1/{K}),\n"
               f"P_i(t) = sum_j c_j t^j (j = 0..{DEG}), i = 0..{N - 1}; RLIBM fits ({iters} iterations,\n"
               f"{constraints} constraints in all, {checked} inputs checked).\n"
               f"By value: c_j of interval i at cr_erf_poly[16 j + i]; by row: at cr_erf_rows[{DEG + 1} i + j].")
    print(write_headers(rows, summary))
    print(f"K={K} N={N} DEG={DEG}: {iters} RLIBM iterations, {constraints} constraints")


TARGETS = {"erf": lambda argv: main()}

if __name__ == "__main__":
    main()
