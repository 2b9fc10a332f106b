"""Coefficients of the correctly rounded tanhf (src/c/crlibm/tanh/core.h).

One RLIBM fit (core.rlibm_fit) through tanh.h's reduction and compensation:
2a = k ln2/16 + r (a = |x|; exp's reduction and 16-entry table, so rerun this
when exp's table changes), s = 2^(k/16), p(r) = r Q(r) ~ e^r - 1 with the
exponents 1..TERMS, result E / (E + 2), E = fma(s, p, s - 1).

Domain: 2^-12 <= a < CR_TANH_ONE. Below 2^-12 every result is a itself (a^2/3
is under half an ulp, and E / (E + 2) is accurate to a few double ulps there);
those inputs, and CR_TANH_ONE and above (result 1, whose constraint on p has
no upper end), are checked by the exhaustive verification and the tests, not
by the fit (the LP's single scaling unit cannot serve results down to 2^-149).

TERMS is the smallest count for which the fit converges: 5 terms end with LP
margin -2.4e-6, 6 converge (see docs/polygen.md).

Usage: python tools/polygen.py tanh   (rewrites tanh/poly.h)
       python tools/polygen.py tanh-explore TERMS ...  (writes nothing)
"""
import math
import os
import sys

import gmpy2

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import core  # noqa: E402

TERMS = 6                           # p(r) = sum_{i=1..TERMS} c_i r^i
DOMAIN = (0x39800000, 0x41102CB3)    # 2^-12 .. below CR_TANH_ONE (0x41102cb4)
# tanh.h's compensation is increasing in p for p > -1; e^r - 1 lies in
# [-0.022, 0.022] for |r| <= ln2/32.
P_BRACKET = (-0.5, 1.0)


def write_headers(coeffs, note, directory=core.COEFF_DIR):
    summary = (f"tanh(a) = E/(E + 2), E = s p(r) + s - 1, s = 2^(k/16), 2a = k ln2/16 + r,\n"
               f"p(r) ~ e^r - 1 = sum c_i r^i (i = 1..{len(coeffs)}); RLIBM fit through tanh.h's reduction and\n"
               f"compensation ({note}).")
    return core.write_header("tanh/poly.h", summary, "python tools/polygen.py tanh", [
        core.Table("cr_tanh_poly", list(coeffs), [f"r^{i + 1}" for i in range(len(coeffs))]),
    ], directory=directory)


def spec(terms=TERMS):
    return core.FunctionSpec(
        name="tanh", header="crlibm/tanh/core.h", reduce="cr_tanh_reduce",
        compensate="cr_tanh_compensate", fast="cr_tanh_fast", libm_ref="tanh",
        mpfr_fn=gmpy2.tanh, libm_err="0x1p-48", domain=[DOMAIN], poly_symbol="cr_tanh_poly",
        exponents=list(range(1, terms + 1)),
        base=[1.0 / math.factorial(i) for i in range(1, terms + 1)],
        write_headers=lambda c, d: write_headers(c, "generator build", d), p_bracket=P_BRACKET)


def main(argv):
    res = core.rlibm_fit(spec())
    note = (f"{res.iterations} iterations, {res.sample_size} constraints,\n"
            f"{res.checked} inputs checked, {res.mpfr_settled} of them settled by MPFR")
    print(write_headers(res.coeffs, note))


def explore(argv):
    for cfg in argv or ["5", "6", "7"]:
        try:
            res = core.rlibm_fit(spec(int(cfg)), log=lambda *a: None)
            print(f"{cfg} terms: converged in {res.iterations} iterations")
        except core.Infeasible as e:
            print(f"{cfg} terms: no: {e}")
        sys.stdout.flush()


TARGETS = {"tanh": main, "tanh-explore": explore}

if __name__ == "__main__":
    main(sys.argv[1:])
