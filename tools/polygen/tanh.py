"""Coefficients of the correctly rounded tanhf (src/c/crlibm/functions/tanh.h).

Two relative minimax fits (core.fit_minimax against 200-bit MPFR values):

* small |x| < SMALL: tanh(x) = x + x^3 * Q(x^2); Q's error enters the result
  scaled by x^2/3 (the weight of the correction);
* exp(r) on |r| <= R_MAX (the range cr_exp_reduce leaves; update it if exp.h
  changes its reduction), more accurate than expf needs: tanh = 1 -
  2/(exp(2|x|)+1) amplifies the error of exp(2|x|) by up to ~3 near SMALL.

The term counts are the lowest for which the exhaustive check against MPFR
finds no wrong result (SMALL_TERMS = 5: 26 wrong; EXP_TERMS = 5: 1 wrong).

Usage: python tools/polygen/tanh.py   (rewrites coeffs/tanh_poly.h)
"""
import math
import os
import sys

import gmpy2
import numpy as np
from gmpy2 import mpfr

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import core  # noqa: E402

SMALL = 0.25          # CR_TANH_SMALL in tanh.h
SMALL_TERMS = 6       # Q has this many coefficients (in s = x^2)
R_MAX = float.fromhex("0x1.63p-8")    # |r| bound after cr_exp_reduce (ln2/128 plus rounding slack)
EXP_TERMS = 6         # exp(r) ~ sum_{i<EXP_TERMS} e_i r^i
NODES = 1200



def fit_small():
    x = np.sqrt(core.chebyshev_nodes(0.0, SMALL * SMALL, NODES))
    x = x[x > 2.0 ** -20]
    s = x * x
    with gmpy2.context(precision=200):
        f = [(gmpy2.tanh(mpfr(float(v))) - mpfr(float(v))) / mpfr(float(v)) ** 3 for v in x]
    base = np.zeros(SMALL_TERMS)
    base[0] = -1.0 / 3
    c, err = core.fit_minimax_refined(s, f, range(SMALL_TERMS), base)
    return c, err * SMALL * SMALL / 3


def fit_exp():
    r = core.chebyshev_nodes(-R_MAX, R_MAX, NODES)
    with gmpy2.context(precision=200):
        f = [gmpy2.exp(mpfr(float(v))) for v in r]
    base = np.array([1.0 / math.factorial(i) for i in range(EXP_TERMS)])
    return core.fit_minimax_refined(r, f, range(EXP_TERMS), base)


def main():
    q, q_err = fit_small()
    e, e_err = fit_exp()
    summary = (f"tanh(x) = x + x^3 Q(x^2) on |x| < {SMALL}: Q relative minimax, contribution to the\n"
               f"relative error of tanh <= 2^{np.log2(q_err):.1f}.\n"
               f"exp(r) on |r| <= {R_MAX.hex()}: relative minimax error 2^{np.log2(e_err):.1f}.")
    core.write_header("tanh_poly.h", summary, "python tools/polygen.py tanh", [
        core.Table("cr_tanh_small_poly", list(q), [f"s^{i}" for i in range(len(q))]),
        core.Table("cr_tanh_exp_poly", list(e), [f"r^{i}" for i in range(len(e))]),
    ])
    print(f"Q error 2^{np.log2(q_err):.2f}, exp error 2^{np.log2(e_err):.2f}")


TARGETS = {"tanh": lambda argv: main()}

if __name__ == "__main__":
    main()
