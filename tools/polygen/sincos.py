"""Generate the coefficient headers of sinf/cosf (src/c/crlibm/sin_cos/*.h).

The fast path (sin_cos/core.h) reduces x = k*pi/8 + r, |r| <= pi/16, and
computes, with j = k mod 16 (cos: j + 4), A = sin(j*pi/8), B = cos(j*pi/8),
u = r^2, the double
  y = A + (B*r + u*(A*pc(u) + B*r*ps(u)))
rounded once to float. This script writes
  sin_cos/table.h sin(j*pi/8) and cos(j*pi/8), j = 0..15, interleaved,
  sin_cos/poly.h  pc and ps of each function, fitted jointly by the RLIBM loop
                  (fit_joint), and the split of pi/8 used by both reductions,
  sin_cos/big.h   8/pi cut into pieces per exponent of x, for the vectorised
                  reduction of 2^32 <= |x| < 2^128.

y is linear in the coefficients of pc and ps (A, B, r, u as the C code
computes them for each input), so one LP over both coefficient vectors takes
the constraints of a function's inputs: the polynomial part must lie in the
interval of doubles that the compensation A + (B*r + .) maps into the
rounding interval of the correctly rounded result. sin and cos each get their
own pair (one pair shared by both was infeasible, see docs/polygen.md).

Run: python tools/polygen.py sincos   (deterministic: reproduces the headers;
about 25 minutes per function on a busy 2-core machine, mostly the checks of
every input in C). python tools/polygen.py sincos-fit sin (or cos, or sin,cos
for a shared pair) fits and prints without writing.
"""
from __future__ import annotations

import math
import os
import sys

import gmpy2
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import core  # noqa: E402

COMMAND = "python tools/polygen.py sincos"
N_FAST = 8                  # table step pi/N_FAST of the fast path
PREC = 400                  # working precision (bits) of the reference values
R_MAX = math.pi / (2 * N_FAST) * (1 + 2.0 ** -12)  # |r| bound, with slack for rint(x*N/pi)
NC = 4                      # coefficients of pc (in u = r^2)
NS = 4                      # coefficients of ps
BIG_MIN_EXP = 32            # the fast path's vectorised big reduction: |x| >= 2^32
BIG_ROWS = 128              # one row per exponent 32..159 (the index is masked to 7 bits)
BIG_CHUNK = 28              # bits per exact piece: 24-bit x times 28 bits is exact in double


def mp(v):
    return gmpy2.mpfr(v)


def split(v, parts):
    """v as a sum of `parts` doubles, each the nearest double to what remains."""
    out = []
    for _ in range(parts):
        d = float(v)
        out.append(d)
        v = v - mp(d)
    return out


def sin_table(n):
    """sin(j*pi/n), j = 0..2n-1, nearest doubles (exact 0 and +-1)."""
    pi = gmpy2.const_pi()
    return [[0.0, 1.0, 0.0, -1.0][j // (n // 2)] if j % (n // 2) == 0
            else float(gmpy2.sin(pi * j / n)) for j in range(2 * n)]


def fit(func, name, n_coeffs):
    """Minimax (absolute error) fit of func(r) ~ sum_i c_i r^(2i+2), i < n_coeffs:
    the starting point of the RLIBM fit."""
    # Chebyshev nodes on [0, R_MAX] (both targets are even in r).
    n = 1500
    r = np.array([R_MAX * (1 + math.cos(math.pi * (i + 0.5) / n)) / 2 for i in range(n)])
    f = [func(mp(float(x))) for x in r]
    exps = [2 * i + 2 for i in range(n_coeffs)]
    taylor = [(-1) ** (i + 1) / math.factorial(2 * i + (2 if name == "cos" else 3))
              for i in range(n_coeffs)]
    coeffs, _ = core.fit_minimax(r, f, exps, base=taylor, relative=False)
    return list(coeffs)


def start_coeffs():
    with gmpy2.context(precision=PREC):
        return (fit(lambda r: gmpy2.cos(r) - 1, "cos", NC)
                + fit(lambda r: gmpy2.sin(r) / r - 1, "sin", NS))


def big_pieces(e):
    """8/pi as c0 + c1 + c2 + c3 (+ multiples of 16/x) for x in [2^e, 2^(e+1)).

    x = M 2^(e-23) with an integer M < 2^24, so the bits of 1/pi above bit
    a = e - 24 contribute multiples of 16 to x*8/pi: the reduction mod 16
    drops them. c0, c1, c2 are the next three 28-bit pieces (x*c_k exact:
    x*c0 a multiple of 2^-24, x*c1 of 2^-52, x*c2 of 2^-80); c3 is the rest,
    rounded to double (x*c3 < 2^-56)."""
    a = e - 24
    pi = gmpy2.const_pi()
    pieces = []
    for k in range(3):
        n = a + BIG_CHUNK * (k + 1)
        w = int(gmpy2.floor(mp(2) ** n / pi)) % (1 << BIG_CHUNK)
        pieces.append(float(8 * w * mp(2) ** -n))  # exact: 28 bits
    n = a + 3 * BIG_CHUNK
    rest = mp(2) ** n / pi
    rest = rest - gmpy2.floor(rest)
    pieces.append(float(8 * rest * mp(2) ** -n))
    return pieces


def write_big(directory=core.COEFF_DIR):
    with gmpy2.context(precision=PREC):
        rows = [big_pieces(BIG_MIN_EXP + i) for i in range(BIG_ROWS)]
    # one row of four per exponent: the fast path reads a row as two pairs (v64_gather_pair)
    comments = [f"c{k}, x in [2^{BIG_MIN_EXP + i}, 2^{BIG_MIN_EXP + i + 1})"
                for i in range(BIG_ROWS) for k in range(4)]
    tables = [core.Table("cr_sincos_big", [v for r in rows for v in r], comments)]
    return core.write_header(
        "sin_cos/big.h",
        f"8/pi = c0 + c1 + c2 + c3 modulo multiples of 16/x, per exponent of x (row i:\n"
        f"x in [2^(i+{BIG_MIN_EXP}), 2^(i+{BIG_MIN_EXP + 1})), entries 4i..4i+3). c0..c2 are consecutive\n"
        f"{BIG_CHUNK}-bit pieces of the bits of 8/pi that matter for that exponent (x*c_k exact for a\n"
        "float x), c3 the rest rounded to double. Used by cr_sincos_reduce_big (sin_cos/core.h).",
        COMMAND, tables, directory=directory)


def write_tables(directory=core.COEFF_DIR):
    with gmpy2.context(precision=PREC):
        fast = sin_table(N_FAST)
    n = N_FAST
    cos = fast[n // 2:] + fast[:n // 2]
    # interleaved: the fast path reads both values of a row with one load (v64_lookup16_pair)
    return core.write_header(
        "sin_cos/table.h",
        f"sin(j*pi/{n}) and cos(j*pi/{n}) interleaved for j = 0..{2 * n - 1}, nearest doubles\n"
        "(0 and +-1 exact).",
        COMMAND,
        [core.Table("cr_sincos_fast_sc", [v for j in range(2 * n) for v in (fast[j], cos[j])],
                    [f"{f}({j}*pi/{n})" for j in range(2 * n) for f in ("sin", "cos")])],
        directory=directory)


def write_poly(coeffs, directory=core.COEFF_DIR, note="generator build"):
    """sincos_poly.h: the fitted pc, ps (one table, pc first) and the split of pi/8."""
    with gmpy2.context(precision=PREC):
        pi8 = split(gmpy2.const_pi() / N_FAST, 3)
    names = [f"{fn} {name}" for fn in FUNCS for name in
             [f"pc: u^{i} (~ {(-1) ** (i + 1)}/{math.factorial(2 * i + 2)})" for i in range(NC)]
             + [f"ps: u^{i} (~ {(-1) ** (i + 1)}/{math.factorial(2 * i + 3)})" for i in range(NS)]]
    return core.write_header(
        "sin_cos/poly.h",
        f"|r| <= {R_MAX:.6g} (pi/{2 * N_FAST} plus slack), u = r^2, A = sin(j*pi/8), B = cos(j*pi/8):\n"
        "the double A + (B*r + u*(A*pc(u) + B*r*ps(u))) rounds to the correctly\n"
        "rounded float for every input (RLIBM: per function one LP over the\n"
        f"coefficients of pc and ps; {note}).\n"
        f"Also: pi/{N_FAST} split into three doubles (Cody-Waite reduction).",
        COMMAND,
        [core.Table("cr_sincos_poly", coeffs, names),
         core.Table("cr_sincos_pi8", pi8,
                    [f"pi/{N_FAST} (nearest double)", f"pi/{N_FAST} - [0]",
                     f"pi/{N_FAST} - [0] - [1]"])],
        defines=[("CR_SINCOS_NC", NC, "coefficients of pc"),
                 ("CR_SINCOS_NS", NS, "coefficients of ps; sin's pc, ps, then cos's")],
        directory=directory)


# ---- RLIBM: one LP over the coefficients of pc and ps ---------------------

FUNCS = {"sin": 0.0, "cos": 4.0}      # table offset of each function (sin_cos.h)
BLOCK = {"sin": 0, "cos": 1}          # each function's block of cr_sincos_poly
# Inputs checked and constrained: 2^-12 <= x <= FLT_MAX. Negative x give
# exactly the negated (sin) or same (cos) double, the reduction and tables
# being symmetric; below 2^-12 the rounding interval dwarfs the polynomial's
# contribution (sin x rounds to x, cos x to 1). The exhaustive verification
# covers both.
DOMAIN = [(0x39800000, 0x7F7FFFFF)]
HARNESS_EXTRA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "sincos_harness.h")


def spec(fn, table):
    """fn's FunctionSpec; table: the coefficients of both blocks (the build's header)."""
    n = NC + NS
    return core.FunctionSpec(
        name=fn, header="crlibm/sin_cos/core.h", reduce="cr_sincos_h_reduce",
        compensate="cr_sincos_h_comp", fast=f"cr_{fn}_fast", libm_ref=fn,
        mpfr_fn=getattr(gmpy2, fn), domain=DOMAIN, poly_symbol="cr_sincos_poly",
        exponents=list(range(n)), base=list(table[BLOCK[fn] * n:(BLOCK[fn] + 1) * n]),
        write_headers=lambda c, directory: write_poly(table, directory),
        poly_offset=BLOCK[fn] * n, harness_extra=HARNESS_EXTRA)


class Terms:
    """A, B, r of inputs and the compensation, through a harness's C code."""

    def __init__(self, h, off):
        import ctypes
        self.h, self.off = h, off
        ptr = ctypes.c_void_p
        h.lib.h_sincos_terms.argtypes = [ptr, ctypes.c_double, ptr, ptr, ptr, ctypes.c_long]
        h.lib.h_sincos_compensate.argtypes = [ptr] * 5 + [ctypes.c_long]

    def terms(self, bits):
        x = np.ascontiguousarray(np.asarray(bits, dtype=np.uint32).view(np.float32))
        a, b, r = (np.empty(x.size) for _ in range(3))
        self.h.lib.h_sincos_terms(x.ctypes.data, self.off, a.ctypes.data, b.ctypes.data,
                                  r.ctypes.data, x.size)
        return a, b, r

    def compensate(self, p, a, b, r):
        p = np.ascontiguousarray(p, dtype=np.float64)
        out = np.empty(p.size)
        self.h.lib.h_sincos_compensate(p.ctypes.data, a.ctypes.data, b.ctypes.data,
                                       r.ctypes.data, out.ctypes.data, p.size)
        return out


def constraints(fn, t, bits):
    """Per input: the LP row (A u^(i+1), B r u^(i+1)), the interval of the
    polynomial part, and the correctly rounded result."""
    y = core.mpfr_f32(getattr(gmpy2, fn), bits)
    lo, hi = core.f32_rounding_intervals(y)
    a, b, r = t.terms(bits)
    p_lo, p_hi = core.invert_increasing(lambda p: t.compensate(p, a, b, r), lo, hi)
    u = r * r
    cols = np.stack([a * u ** (i + 1) for i in range(NC)]
                    + [b * r * u ** (i + 1) for i in range(NS)], axis=1)
    return cols, p_lo, p_hi, y


def fit_joint(funcs, table, n_init=4000, max_iter=40, neighbours=1, max_add=2000,
              strides=(61, 7, 1), log=print):
    """The RLIBM loop of core.rlibm_fit for one pc, ps pair serving the
    functions in funcs (their constraints in one LP; table: the starting
    coefficients of every block): fit on the sample, check every input of
    each function in C, add the failures (and neighbours), shrink the
    interval of a sampled input that failed (rounding of the evaluation),
    repeat until nothing fails. Returns (coeffs, iterations, constraints, margin)."""
    hs = {fn: core.Harness(spec(fn, table)) for fn in funcs}
    base = np.array(hs[funcs[0]].spec.base)
    try:
        terms = {fn: Terms(hs[fn], FUNCS[fn]) for fn in funcs}
        sample = {fn: {int(b) for b in core.domain_points(DOMAIN, n_init)} for fn in funcs}
        cache = {fn: {} for fn in funcs}     # bits -> (row, p_lo, p_hi, y)
        shrink = {fn: {} for fn in funcs}    # bits -> (ulps off the low end, the high end)
        level, changed = 0, True
        for it in range(1, max_iter + 1):
            if changed:
                rows, lo, hi = [], [], []
                for fn in funcs:
                    new = np.array(sorted(set(sample[fn]) - set(cache[fn])), dtype=np.uint32)
                    if new.size:
                        cols, p_lo, p_hi, y = constraints(fn, terms[fn], new)
                        for i, b in enumerate(new.tolist()):
                            cache[fn][b] = (cols[i], p_lo[i], p_hi[i], y[i])
                    for b in sorted(sample[fn]):
                        row, l, h, _ = cache[fn][b]
                        s_lo, s_hi = shrink[fn].get(b, (0, 0))
                        rows.append(row)
                        lo.append(core._ulp_steps(np.array([l]), np.array([s_lo]), True)[0])
                        hi.append(core._ulp_steps(np.array([h]), np.array([s_hi]), False)[0])
                lo, hi = np.array(lo), np.array(hi)
                if np.any(lo > hi):
                    raise core.Infeasible("sincos: an input has no admissible polynomial value")
                coeffs, margin = core.fit_linear(np.array(rows), lo, hi, base)
                if margin < 0:
                    raise core.Infeasible(f"sincos: LP margin {margin:.3g} < 0")
                changed = False
            bad = {}
            for fn, h in hs.items():
                h.set_coeffs(coeffs)
                bad[fn], _ = h.check(strides[level])
            log(f"  iteration {it}: {lo.size} constraints, margin {margin:.3g}, stride "
                f"{strides[level]}: wrong " + ", ".join(f"{fn} {v.size}" for fn, v in bad.items()),
                flush=True)
            if all(v.size == 0 for v in bad.values()):
                if strides[level] == 1:
                    return coeffs, it, lo.size, margin
                level += 1
                continue
            changed = True
            for fn, v in bad.items():
                if v.size > max_add:
                    v = v[np.linspace(0, v.size - 1, max_add).astype(np.int64)]
                got, _ = hs[fn].eval(v)
                for b, g in zip(v.tolist(), got):
                    if b in cache[fn]:  # rounding of the evaluation: shrink the violated side
                        s_lo, s_hi = shrink[fn].get(b, (0, 0))
                        if g > cache[fn][b][3]:
                            s_hi = 2 * s_hi + 4
                        else:
                            s_lo = 2 * s_lo + 4
                        shrink[fn][b] = (s_lo, s_hi)
                    for d in range(-neighbours, neighbours + 1):
                        if DOMAIN[0][0] <= b + d <= DOMAIN[0][1]:
                            sample[fn].add(b + d)
        raise core.Infeasible(f"sincos: not converged in {max_iter} iterations")
    finally:
        for h in hs.values():
            h.close()


def main(argv):
    """sincos: every header. sincos-fit [sin|cos|sin,cos]: fit and print only
    (sin,cos: one polynomial shared by both)."""
    gmpy2.get_context().precision = PREC
    table = start_coeffs() * len(FUNCS)
    if argv:
        funcs = argv[0].split(",")
        coeffs, iters, n_constraints, margin = fit_joint(funcs, table)
        print(f"{funcs}: {iters} iterations, {n_constraints} constraints, margin {margin:.3g}: "
              f"{[c.hex() for c in coeffs]}")
        return
    write_tables()
    notes = []
    for fn in FUNCS:
        coeffs, iters, n_constraints, margin = fit_joint([fn], table)
        n = NC + NS
        table[BLOCK[fn] * n:(BLOCK[fn] + 1) * n] = list(coeffs)
        notes.append(f"{fn}: {iters} iterations, {n_constraints} constraints")
    write_poly(table, note="; ".join(notes))
    write_big()
    print("; ".join(notes))


TARGETS = {"sincos": lambda argv: main([]), "sincos-fit": main}

if __name__ == "__main__":
    main(sys.argv[1:])
