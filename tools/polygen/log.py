"""log: the reduction tables and the RLIBM-fitted polynomial p(r) ~ log1p(r).

    python tools/polygen.py log-table   -> src/c/crlibm/log/table.h
    python tools/polygen.py log         -> src/c/crlibm/log/poly.h
    python tools/polygen.py log-explore [n_coeffs ...]  (tries lengths, writes nothing)

The exhaustive check of the build is python -m crlibm_py.verify log.

Reduction (log/core.h): x = m * 2^e with m in [OFF, 2*OFF), OFF = 0.6875 - 2^-6.
The index j is the top N bits of the mantissa of bits(x) - bits(OFF), so 1.0
lies inside one interval (j_one). Per interval:

  c_j    1/(interval centre) rounded to C_BITS bits, so that r = fma(m, c_j, -1)
         is exact (|r| <= 2^-5); c = 1 in interval j_one, so log(x) = log1p(x - 1)
         there without cancellation;
  l_j    -log(c_j) rounded to double.

The fast path computes s + p(r) in double, s = fma(e, ln2, l_j), and rounds it
to float; p(r) = r (c1 + c2 r + ...) is fitted so that this rounds correctly
for every positive finite float but 1.0 (whose result is exactly 0 whatever
the coefficients) and those that log.h's rounding test sends to the accurate
path (why that test stays: log/core.h).
"""
import sys

import gmpy2

from . import core

N = 4                            # index bits: 16 intervals (one AVX-512 two-register permute)
OFF = 0.6875 - 2.0 ** -(N + 2)   # start of the mantissa range [OFF, 2*OFF); puts 1.0 mid-interval
C_BITS = 32                      # significant bits of c_j
N_COEFFS = 6                     # p(r) = c1 r + ... + c6 r^6
PREC = 256                       # bits of the gmpy2 context of the tables

# Fast-path domain: every positive finite float but 1.0 (see log/core.h).
DOMAIN = [(0x00000001, 0x3F7FFFFF), (0x3F800001, 0x7F7FFFFF)]


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


def tables():
    """(c, l, l_lo, j_one, r_min, r_max)."""
    c, l, l_lo, r_ext = [], [], [], []
    j_one = None
    with gmpy2.context(precision=PREC):
        for j in range(2 ** N):
            lo, hi = interval(j)
            if lo <= 1.0 < hi:
                j_one, cj = j, 1.0
            else:
                with gmpy2.context(precision=C_BITS):
                    cj = float(2 / (gmpy2.mpfr(lo) + gmpy2.mpfr(hi)))
            c.append(cj)
            lj = -gmpy2.log(gmpy2.mpfr(cj))
            l.append(float(lj))
            l_lo.append(float(lj - gmpy2.mpfr(l[-1])))
            # m*c - 1 over the interval (hi is excluded; its predecessor is close enough)
            r_ext += [lo * cj - 1, hi * cj - 1]
    return c, l, l_lo, j_one, min(r_ext), max(r_ext)


def write_table(directory=core.COEFF_DIR):
    c, l, l_lo, j_one, _, _ = tables()
    return core.write_header(
        "log/table.h",
        f"logf reduction tables, {2 ** N} intervals of the mantissa range [{OFF.hex()}, "
        f"{(2 * OFF).hex()}).\n"
        f"cr_log_c: c_j ~ 1/centre rounded to {C_BITS} bits (1 in interval {j_one}, which holds 1.0);\n"
        "cr_log_l: -log(c_j) rounded to double; cr_log_l_lo: -log(c_j) - cr_log_l[j] (accurate path);\n"
        "cr_log_cl: c_j and -log(c_j) interleaved (the fast path reads them as a pair).",
        "python tools/polygen.py log-table",
        [core.Table("cr_log_c", c, [f"j={j}" for j in range(len(c))]),
         core.Table("cr_log_l", l, [f"-log(c_{j})" for j in range(len(c))]),
         core.Table("cr_log_l_lo", l_lo, [f"-log(c_{j}) - hi" for j in range(len(c))]),
         core.Table("cr_log_cl", [v for pair in zip(c, l) for v in pair],
                    [w for j in range(len(c)) for w in (f"c_{j}", f"-log(c_{j})")])],
        directory=directory)


def write_poly(coeffs, directory=core.COEFF_DIR, note=""):
    _, _, _, _, r_min, r_max = tables()
    summary = (f"log1p(r) ~ p(r) = r (c1 + c2 r + ... + c{len(coeffs)} r^{len(coeffs) - 1}), "
               f"r in [{r_min.hex()}, {r_max.hex()}].\n"
               "Fitted (RLIBM) so that the double s + p(r) rounds to the correctly rounded\n"
               "float for every positive finite float that log.h's rounding test does not\n"
               "send to the accurate path" + (f"; {note}" if note else "") + ".")
    table = core.Table("cr_log_poly", coeffs,
                       [f"c{i + 1} ~ {(-1) ** i}/{i + 1}" for i in range(len(coeffs))])
    return core.write_header("log/poly.h", summary, "python tools/polygen.py log", [table],
                             directory=directory)


def spec(n_coeffs=N_COEFFS):
    def write_headers(coeffs, directory):
        write_table(directory)
        write_poly(coeffs, directory)

    return core.FunctionSpec(
        name="log", header="crlibm/log/core.h", reduce="cr_log_reduce",
        compensate="cr_log_compensate", fast="cr_log_fast", libm_ref="log", mpfr_fn=gmpy2.log,
        domain=DOMAIN, poly_symbol="cr_log_poly", exponents=list(range(1, n_coeffs + 1)),
        base=[(-1) ** i / (i + 1) for i in range(n_coeffs)], write_headers=write_headers)


def gen_table(argv):
    print(write_table())


def gen_poly(argv):
    res = core.rlibm_fit(spec())
    note = (f"{res.iterations} iterations, {res.sample_size} constraints,\n"
            f"{res.checked} inputs checked, {res.mpfr_settled} of them settled by MPFR")
    print(write_poly(res.coeffs, note=note))


def explore(argv):
    """Try polynomial lengths (default 5) and report which fit."""
    for n in [int(v) for v in argv] or [5]:
        print(f"{n} coefficients:", flush=True)
        try:
            res = core.rlibm_fit(spec(n), max_iter=25)
            print(f"  OK in {res.iterations} iterations: {[c.hex() for c in res.coeffs]}")
        except core.Infeasible as e:
            print(f"  no: {e}")
        sys.stdout.flush()


TARGETS = {"log": gen_poly, "log-table": gen_table, "log-explore": explore}
