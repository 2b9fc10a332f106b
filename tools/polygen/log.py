"""Tables and polynomial of the correctly rounded logf (src/c/crlibm/functions/log.h).

Reduction: x = m * 2^e with m in [OFF, 2*OFF), OFF = 0.6875 - 2^-10.
The index j is the top N bits of the mantissa of bits(x) - bits(OFF), so 1.0
lies in the middle of one interval (j = J_ONE). Per interval:

  c_j    1/(interval centre) rounded to 36 bits, so that r = fma(m, c_j, -1) is
         exact (m has 24 bits, |r| <= 2^-5: r is a multiple of 2^-56);
         c = 1 in interval J_ONE, so log(x) = log1p(x - 1) without cancellation.
  l_j    -log(c_j) rounded to double, and l_lo_j the rest (accurate path).

log1p(r) ~ r * (1 + a2 r + a3 r^2 + ...): the fast path only needs a relative
error far below 2^-24, because it is followed by a rounding test (log.h) that
sends results near a float midpoint to the accurate path. So this is a plain
minimax fit, and its error bound is printed into the header for log.h's test.

Run: python tools/polygen/log.py   (rewrites coeffs/log_table.h, coeffs/log_poly.h)
"""
from __future__ import annotations

import os
import sys

import gmpy2
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import core  # noqa: E402

N = 4                       # index bits: 16 intervals (one AVX-512 two-register permute)
OFF = 0.6875 - 2.0 ** -(N + 2)  # start of the mantissa range [OFF, 2*OFF); puts 1.0 mid-interval
C_BITS = 32                 # significant bits of c_j
EXPONENTS = [1, 2, 3, 4, 5, 6]  # g(r) = (log1p(r) - r)/r ~ sum a_{e+1} r^e
COMMAND = "python tools/polygen.py log"
PREC = 256                  # bits of the gmpy2 context every computation here runs in


def interval(j: int):
    """[lo, hi) of m for index j (exact binary fractions)."""
    frac_off = OFF * 2 - 1                 # mantissa of OFF in its binade [0.5, 1)
    t_lo, t_hi = j / 2 ** N, (j + 1) / 2 ** N
    # The mantissa field t of bits(m) - bits(OFF) is m's own mantissa minus
    # frac_off; past 1 it wraps into the binade [1, 2).
    def m_of(t):
        f = frac_off + t
        return (1 + f) / 2 if f < 1 else f     # binade [0.5,1) then [1,2)
    return m_of(t_lo), m_of(t_hi)


def round_bits(v, bits: int) -> float:
    with gmpy2.context(precision=bits):
        return float(gmpy2.mpfr(v))


def tables():
    c, l_hi, l_lo, r_ext = [], [], [], []
    j_one = None
    for j in range(2 ** N):
        lo, hi = interval(j)
        if lo <= 1.0 < hi:
            j_one, cj = j, 1.0
        else:
            cj = round_bits(2 / (gmpy2.mpfr(lo) + gmpy2.mpfr(hi)), C_BITS)
        lj = -gmpy2.log(gmpy2.mpfr(cj))
        hi_d = float(lj)
        c.append(cj)
        l_hi.append(hi_d)
        l_lo.append(float(lj - gmpy2.mpfr(hi_d)))
        # m*c - 1 over the interval (hi is excluded; its predecessor is close enough)
        r_ext += [lo * cj - 1, hi * cj - 1]
    return c, l_hi, l_lo, j_one, min(r_ext), max(r_ext)


def g_exact(r: float):
    r = gmpy2.mpfr(r)
    return (gmpy2.log1p(r) - r) / r


def fit_poly(r_min: float, r_max: float):
    k = np.arange(4000)
    nodes = np.cos(np.pi * (k + 0.5) / len(k))            # Chebyshev nodes in (-1, 1)
    r = (r_min + r_max) / 2 + (r_max - r_min) / 2 * nodes
    r = r[r != 0]
    base = [(-1) ** e / (e + 1) for e in EXPONENTS]  # Taylor
    coeffs, _ = core.fit_minimax(r, [g_exact(v) for v in r], EXPONENTS, base=base, relative=False)
    # Error of r + r^2 q(r) relative to log1p(r), on a denser grid than the fit.
    grid = np.linspace(r_min, r_max, 20001)
    grid = grid[grid != 0]
    err = 0.0
    for v in grid:
        q = sum(gmpy2.mpfr(float(a)) * gmpy2.mpfr(float(v)) ** (e - 1)
                for a, e in zip(coeffs, EXPONENTS))
        p = gmpy2.mpfr(float(v)) + gmpy2.mpfr(float(v)) ** 2 * q
        ex = gmpy2.log1p(gmpy2.mpfr(float(v)))
        err = max(err, abs(float((p - ex) / ex)))
    return coeffs, err


def main():
    c, l_hi, l_lo, j_one, r_min, r_max = tables()
    coeffs, err = fit_poly(r_min, r_max)
    core.write_header(
        "log_table.h",
        f"logf reduction tables, {2 ** N} intervals of the mantissa range [{OFF.hex()}, "
        f"{(2 * OFF).hex()}).\n"
        f"cr_log_c: c_j ~ 1/centre rounded to {C_BITS} bits (1 in interval {j_one}, which holds 1.0);\n"
        "cr_log_l: -log(c_j) rounded to double; cr_log_l_lo: -log(c_j) - cr_log_l[j].",
        COMMAND,
        [core.Table("cr_log_c", c, [f"j={j}" for j in range(len(c))]),
         core.Table("cr_log_l", l_hi, [f"-log(c_{j})" for j in range(len(c))]),
         core.Table("cr_log_l_lo", l_lo, [f"-log(c_{j}) - hi" for j in range(len(c))])])
    core.write_header(
        "log_poly.h",
        f"log1p(r) ~ r (1 + a2 r + ... + a{EXPONENTS[-1] + 1} r^{EXPONENTS[-1]})"
        f" on r in [{r_min.hex()}, {r_max.hex()}].\n"
        f"Minimax fit of (log1p(r) - r)/r; relative error of the polynomial <= {err:.3g}"
        f" (2^{np.log2(err):.2f}).",
        COMMAND,
        [core.Table("cr_log_poly", [1.0] + list(coeffs),
                    ["a1 = 1"] + [f"a{e + 1}" for e in EXPONENTS])])
    print(f"j_one={j_one} r in [{r_min:.6g}, {r_max:.6g}] poly err 2^{np.log2(err):.2f}")


def run(argv):
    with gmpy2.context(precision=PREC):
        main()


TARGETS = {"log": run}

if __name__ == "__main__":
    run(sys.argv[1:])
