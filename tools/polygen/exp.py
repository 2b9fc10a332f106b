"""exp: the table 2^(j/N) and the RLIBM-fitted polynomial p(r) ~ exp(r).

    python tools/polygen.py exp-table   -> src/c/crlibm/exp/table.h
    python tools/polygen.py exp         -> src/c/crlibm/exp/poly.h
    python tools/polygen.py exp-explore [bits:degree ...]   (tries configurations, writes nothing)
    python tools/polygen.py exp-hard    -> tests/data/hard_inputs_exp.txt (inputs closest to a midpoint)
    python tools/polygen.py exp-sweep   (all 2^32 inputs on every CPU path of the in-place build)

The fast path (exp/core.h) computes scale * p(r) in double, rounded once,
then to float. exp's polynomial is fitted so that this double rounds to the
correctly rounded float for every input of the fast path's domain.
"""
import os
import sys

import gmpy2
import numpy as np

from . import core

# N = 16 entries: two AVX-512 registers, read by one permute instead of a
# gather (docs/polygen.md, exp); degree 5 is infeasible with this table.
TABLE_BITS = 4
DEGREE = 6       # p(r) = c0 + c1 r + ... + c6 r^6

# Fast-path domain (exp/core.h): CR_EXP_MIN = -104 <= x <= CR_EXP_MAX.
DOMAIN = [(0x00000000, 0x42B17217),  # +0 .. 0x1.62e42ep+6
          (0x80000000, 0xC2D00000)]  # -0 .. -104


def table_values(bits):
    n = 1 << bits
    with gmpy2.context(precision=53):
        return [float(gmpy2.exp2(gmpy2.mpfr(j) / n)) for j in range(n)]


def table_entries(bits):
    """The stored table: the bit pattern of 2^(j/N) minus j << (52 - bits), as a double.

    exp.h adds t << (52 - bits), whose field holds k = (k >> bits) N + j: the
    subtraction cancels j and leaves (k >> bits) added to the exponent, so the
    scale needs no separate (t - j) (one integer operation fewer per vector).
    As 2^u - 1 <= u on [0, 1], each entry is a normal double in [0.95, 1]."""
    shift = 52 - bits
    return [float(np.int64(np.float64(v).view(np.int64) - (j << shift)).view(np.float64))
            for j, v in enumerate(table_values(bits))]


def write_table(bits, directory=core.COEFF_DIR):
    """exp_table.h: CR_EXP_TABLE_BITS and, for bits > 0, the table (table_entries)."""
    n = 1 << bits
    if bits == 0:  # exp.h builds 2^k from its bits: no table
        return core.write_header("exp/table.h", "No table: exp.h builds the scale 2^k from its "
                                 "exponent bits.", "python tools/polygen.py exp-table", [],
                                 defines=[("CR_EXP_TABLE_BITS", 0, "N = 1, no table")],
                                 directory=directory)
    table = core.Table("cr_exp_table", table_entries(bits),
                       [f"2^({j}/{n}) - ({j} << {52 - bits})" for j in range(n)])
    return core.write_header("exp/table.h", f"2^(j/{n}) for j = 0..{n - 1}, each rounded to the "
                             f"nearest double,\nwith j << {52 - bits} subtracted from its bit "
                             "pattern (exp.h adds it back with the\nexponent).",
                             "python tools/polygen.py exp-table", [table],
                             defines=[("CR_EXP_TABLE_BITS", bits, f"N = {n} entries")],
                             directory=directory)


def write_poly(coeffs, bits, directory=core.COEFF_DIR, note=""):
    n = 1 << bits
    table = f"the {n}-entry table" if bits else "no table"
    summary = (f"exp(r) ~ p(r) = sum c_i r^i, |r| <= ~ln2/{2 * n}, for {table}.\n"
               "Fitted (RLIBM) so that the double scale * p(r) rounds to the correctly\n"
               "rounded float for every input of exp's fast path" + (f"; {note}" if note else "")
               + ".")
    table = core.Table("cr_exp_poly", coeffs, [f"c{i} ~ 1/{i}! = {1 / gmpy2.fac(i):.17g}"
                                               for i in range(len(coeffs))])
    return core.write_header("exp/poly.h", summary, "python tools/polygen.py exp", [table],
                             directory=directory)


def spec(bits=TABLE_BITS, degree=DEGREE):
    def write_headers(coeffs, directory):
        write_table(bits, directory)
        write_poly(coeffs, bits, directory)

    return core.FunctionSpec(
        name="exp", header="crlibm/exp/core.h", reduce="cr_exp_reduce",
        compensate="cr_exp_compensate", fast="cr_exp_fast", libm_ref="exp", mpfr_fn=gmpy2.exp,
        domain=DOMAIN, poly_symbol="cr_exp_poly", exponents=list(range(degree + 1)),
        base=[1 / float(gmpy2.fac(i)) for i in range(degree + 1)], write_headers=write_headers)


def gen_table(argv):
    print(write_table(TABLE_BITS))


def gen_poly(argv):
    res = core.rlibm_fit(spec())
    note = (f"degree {DEGREE}, {res.iterations} iterations, {res.sample_size} constraints,\n"
            f"{res.checked} inputs checked, {res.mpfr_settled} of them settled by MPFR")
    print(write_poly(res.coeffs, TABLE_BITS, note=note))


def explore(argv):
    """Try table-bits:degree configurations (default a few) and report which fit."""
    configs = argv or ["6:4", "7:4", "8:3", "9:3", "10:3"]
    for cfg in configs:
        bits, degree = (int(v) for v in cfg.split(":"))
        print(f"table 2^{bits}, degree {degree}:", flush=True)
        try:
            res = core.rlibm_fit(spec(bits, degree), max_iter=25)
            print(f"  OK in {res.iterations} iterations, {res.sample_size} constraints, "
                  f"margin {res.margin:.2g}: {[c.hex() for c in res.coeffs]}")
        except core.Infeasible as e:
            print(f"  no: {e}")
        sys.stdout.flush()


def hard(argv):
    rows = core.hardest_inputs(spec(), count=int(argv[0]) if argv else 20)
    path = os.path.join(core.REPO, "tests", "data", "hard_inputs_exp.txt")
    with open(path, "w") as fh:
        fh.write("# exp: the inputs whose exp(x) lies closest to a float32 midpoint "
                 "(python tools/polygen.py exp-hard)\n")
        for b, d in rows:
            x = float(np.uint32(b).view(np.float32))
            fh.write(f"0x{b:08x}  # x = {x.hex()} ({x:.9g}): exp(x) {d:.3g} ulp from a midpoint\n")
    print(path)


def sweep(argv):
    wrong = core.sweep(spec(), "exp")
    sys.exit(1 if any(wrong.values()) else 0)


TARGETS = {"exp": gen_poly, "exp-table": gen_table, "exp-explore": explore, "exp-hard": hard,
           "exp-sweep": sweep}
