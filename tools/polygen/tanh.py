"""Coefficients of the correctly rounded tanhf (src/c/crlibm/functions/tanh.h).

Two RLIBM fits (core.rlibm_fit), one per range of tanh.h's fast path, each
through the reduction and compensation the C code computes:

* small, 2^-12 <= |x| < SMALL: tanh(x) = x + x^3 * Q(x^2); reduction
  s = x^2, compensation fma(x^3, q, x). Below 2^-12 every result is x itself
  (x^2/3 is under half an ulp), whatever Q: those inputs are checked by the
  exhaustive verification, not by the fit (their constraints on Q are
  unbounded).
* large, SMALL <= |x| < CR_TANH_ONE: exp(r) ~ p(r) after cr_exp_reduce of
  2|x| (exp's table), compensation 1 - 2/(scale * p + 1).

SMALL_TERMS and EXP_TERMS are the smallest for which the fits converge with
every input of the range checked (with relative minimax fits, 5 terms gave
26 and 1 wrong results).

Usage: python tools/polygen.py tanh   (rewrites coeffs/tanh_poly.h)
       python tools/polygen.py tanh-explore SMALL_TERMS:EXP_TERMS ...  (writes nothing)
"""
import math
import os
import sys
from dataclasses import replace
from fractions import Fraction

import gmpy2

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import core  # noqa: E402

SMALL = 0.25          # CR_TANH_SMALL in tanh.h
SMALL_TERMS = 6       # Q has this many coefficients (in s = x^2)
EXP_TERMS = 6         # exp(r) ~ sum_{i<EXP_TERMS} e_i r^i
SMALL_DOMAIN = (0x39800000, 0x3E7FFFFF)   # 2^-12 .. below 0.25
# 0.25 .. below CR_TANH_ONE (0x41102cb4): from there on the result is 1, whose
# constraint on p has no upper end (the LP needs finite widths); the
# exhaustive verification and tests/test_special.py check it.
LARGE_DOMAIN = (0x3E800000, 0x41102CB3)


def taylor_q(n):
    """(tanh(x) - x) / x^3 = sum_k q_k s^k, s = x^2: Taylor coefficients
    2^(2k+4) (2^(2k+4) - 1) B_(2k+4) / (2k+4)! from the Bernoulli numbers."""
    return [float(2 ** m * (2 ** m - 1) * _bernoulli(m) / math.factorial(m))
            for m in range(4, 2 * n + 4, 2)]


def _bernoulli(m):
    """B_m as a Fraction (Akiyama-Tanigawa)."""
    a = [Fraction(0)] * (m + 1)
    for n in range(m + 1):
        a[n] = Fraction(1, n + 1)
        for j in range(n, 0, -1):
            a[j - 1] = j * (a[j - 1] - a[j])
    return a[0]


def write_headers(q, e, note, directory=core.COEFF_DIR):
    summary = (f"tanh(x) = x + x^3 Q(x^2) on |x| < {SMALL}, and exp(r) ~ p(r) for\n"
               f"1 - 2/(scale p(r) + 1) above; RLIBM fits through tanh.h's compensations\n"
               f"({note}).")
    return core.write_header("tanh_poly.h", summary, "python tools/polygen.py tanh", [
        core.Table("cr_tanh_small_poly", list(q), [f"s^{i}" for i in range(len(q))]),
        core.Table("cr_tanh_exp_poly", list(e), [f"r^{i}" for i in range(len(e))]),
    ], directory=directory)


def fit(small_terms, exp_terms, log=print):
    q0 = taylor_q(small_terms)
    e0 = [1.0 / math.factorial(i) for i in range(exp_terms)]
    common = dict(name="tanh", header="crlibm/functions/tanh.h", fast="cr_tanh_fast",
                  libm_ref="tanh", mpfr_fn=gmpy2.tanh, libm_err="0x1p-48")
    small = core.FunctionSpec(
        reduce="cr_tanh_small_reduce", compensate="cr_tanh_small_compensate",
        domain=[SMALL_DOMAIN], poly_symbol="cr_tanh_small_poly",
        exponents=list(range(small_terms)), base=q0,
        write_headers=lambda c, d: write_headers(c, e0, "generator build", d), **common)
    rs = core.rlibm_fit(small, log=log)
    large = replace(small, reduce="cr_tanh_large_reduce", compensate="cr_tanh_large_compensate",
                    domain=[LARGE_DOMAIN], poly_symbol="cr_tanh_exp_poly",
                    exponents=list(range(exp_terms)), base=e0,
                    write_headers=lambda c, d: write_headers(rs.coeffs, c, "generator build", d))
    rl = core.rlibm_fit(large, log=log)
    return rs, rl


def main(argv):
    rs, rl = fit(SMALL_TERMS, EXP_TERMS)
    note = (f"Q: {rs.iterations} iterations, {rs.sample_size} constraints; p: {rl.iterations} "
            f"iterations,\n{rl.sample_size} constraints; every input of both ranges checked")
    print(write_headers(rs.coeffs, rl.coeffs, note))


def explore(argv):
    for cfg in argv or ["5:6", "6:5", "5:5"]:
        ns, ne = (int(v) for v in cfg.split(":"))
        try:
            fit(ns, ne, log=lambda *a: None)
            print(f"{cfg}: converged")
        except core.Infeasible as e:
            print(f"{cfg}: no: {e}")
        sys.stdout.flush()


TARGETS = {"tanh": main, "tanh-explore": explore}

if __name__ == "__main__":
    main(sys.argv[1:])
