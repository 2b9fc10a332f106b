"""Shared machinery of the polynomial generator: LP fits and header writing.

Two fits, both solved as linear programs with HiGHS (scipy.optimize.linprog):

* ``fit_intervals`` (RLIBM-style): find coefficients with
  ``lo_i <= sum_e c_e * r_i**e <= hi_i`` for every constraint, maximising the
  smallest margin measured in units of each interval's half-width. The intervals
  come from the rounding intervals of correctly rounded results, mapped
  through the range reduction and output compensation of a function.
* ``fit_minimax``: minimise the largest relative error against a function
  given in high precision (the classic LP form of the minimax problem).

Both work on a correction to a starting polynomial ``base`` so that the LP
sees quantities of order one: HiGHS's tolerances (~1e-9) are far coarser than
the widths that matter here (~1e-16 relative).

Everything is deterministic (single-threaded HiGHS, fixed inputs), so a rerun
regenerates the committed headers bit for bit.
"""
from __future__ import annotations

import os
from dataclasses import dataclass

import gmpy2
import numpy as np
from scipy.optimize import linprog

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
COEFF_DIR = os.path.join(REPO, "src", "c", "crlibm")


class Infeasible(RuntimeError):
    """No polynomial of the requested form satisfies the constraints."""


def _monomials(r: np.ndarray, exponents, scale: float) -> np.ndarray:
    x = r / scale
    return np.stack([x ** e for e in exponents], axis=1)


def _solve(a_ub, b_ub, n_vars):
    """Maximise the last variable subject to a_ub @ v <= b_ub.

    HiGHS through highspy, single-threaded with a fixed seed, so that a rerun
    gives the same vertex bit for bit."""
    import highspy

    h = highspy.Highs()
    for key, value in (("output_flag", False), ("threads", 1), ("random_seed", 0),
                       ("presolve", "on"), ("primal_feasibility_tolerance", 1e-10),
                       ("dual_feasibility_tolerance", 1e-10)):
        h.setOptionValue(key, value)
    a = np.asarray(a_ub, dtype=np.float64)
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = n_vars, a.shape[0]
    lp.col_cost_ = np.eye(n_vars)[-1] * -1.0
    lp.col_lower_ = np.full(n_vars, -highspy.kHighsInf)
    lp.col_upper_ = np.full(n_vars, highspy.kHighsInf)
    lp.row_lower_ = np.full(a.shape[0], -highspy.kHighsInf)
    lp.row_upper_ = np.asarray(b_ub, dtype=np.float64)
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = np.arange(n_vars + 1, dtype=np.int32) * a.shape[0]
    lp.a_matrix_.index_ = np.tile(np.arange(a.shape[0], dtype=np.int32), n_vars)
    lp.a_matrix_.value_ = a.T.ravel()
    h.passModel(lp)
    h.run()
    if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
        raise Infeasible(h.modelStatusToString(h.getModelStatus()))
    return np.array(h.getSolution().col_value)


def fit_intervals(r, lo, hi, exponents, base=None):
    """Coefficients c (float64, one per exponent) placing p(r_i) in [lo_i, hi_i].

    r, lo, hi: float64 arrays. base: starting coefficients (default: zeros).
    Returns (c, margin) where margin >= 0 means every constraint holds in
    exact arithmetic (rounding of the evaluation is checked by the caller).
    """
    r, lo, hi = (np.asarray(v, dtype=np.float64) for v in (r, lo, hi))
    exponents = list(exponents)
    base = np.zeros(len(exponents)) if base is None else np.asarray(base, dtype=np.float64)
    scale = float(np.max(np.abs(r))) or 1.0
    mono = _monomials(r, exponents, scale)
    p0 = mono @ (base * scale ** np.array(exponents, dtype=np.float64))
    d, t = _fit_correction(mono, p0, lo, hi)
    coeffs = base + d / scale ** np.array(exponents, dtype=np.float64)
    return coeffs, t


def _fit_correction(cols, p0, lo, hi):
    """(d, t): p0 + cols@d in [lo, hi] with the largest margin t (in half-widths)."""
    half = (hi - lo) / 2
    unit = float(np.median(half))
    # Correction d (in units of `unit`) and margin t (in half-widths):
    #   p0 + unit*(cols@d) - t*half >= lo   and   p0 + unit*(cols@d) + t*half <= hi
    a = np.vstack([np.hstack([-cols, (half / unit)[:, None]]),
                   np.hstack([cols, (half / unit)[:, None]])])
    b = np.concatenate([(p0 - lo) / unit, (hi - p0) / unit])
    v = _solve(a, b, cols.shape[1] + 1)
    return unit * v[:-1], v[-1]


def fit_linear(cols, lo, hi, base):
    """fit_intervals for a value linear in the coefficients with any columns:
    c with lo_i <= sum_j cols[i, j] c_j <= hi_i (several polynomials fitted
    jointly, say). Returns (c, margin) as fit_intervals."""
    cols = np.asarray(cols, dtype=np.float64)
    base = np.asarray(base, dtype=np.float64)
    scale = np.max(np.abs(cols), axis=0)
    scale[scale == 0] = 1.0
    d, t = _fit_correction(cols / scale, cols @ base, np.asarray(lo, np.float64),
                           np.asarray(hi, np.float64))
    return base + d / scale, t


def fit_minimax(r, f_exact, exponents, base=None, relative=True):
    """Coefficients minimising max |p(r_i) - f_i| (/|f_i| if relative).

    f_exact: sequence of gmpy2.mpfr values of the function at r_i, computed
    with well over 53 bits. Returns (coeffs, max_error_estimate).
    """
    r = np.asarray(r, dtype=np.float64)
    exponents = list(exponents)
    base = np.zeros(len(exponents)) if base is None else np.asarray(base, dtype=np.float64)
    with gmpy2.context(precision=256):
        resid = np.array([float(f - sum(gmpy2.mpfr(float(c)) * gmpy2.mpfr(float(x)) ** e
                                        for c, e in zip(base, exponents)))
                          for f, x in zip(f_exact, r)])
        weight = np.array([abs(float(f)) if relative else 1.0 for f in f_exact])
    scale = float(np.max(np.abs(r))) or 1.0
    mono = _monomials(r, exponents, scale)
    unit = float(np.max(np.abs(resid))) or 2.0 ** -60
    w = (weight / np.max(weight))[:, None]
    # minimise t:  |mono@d - resid/unit| <= t*w
    a = np.vstack([np.hstack([mono, -w]), np.hstack([-mono, -w])])
    b = np.concatenate([resid / unit, -resid / unit])
    c = np.zeros(len(exponents) + 1)
    c[-1] = 1.0
    res = linprog(c, A_ub=a, b_ub=b, bounds=[(None, None)] * (len(exponents) + 1),
                  method="highs")
    if res.status != 0:
        raise Infeasible(res.message)
    d, t = res.x[:-1], res.x[-1]
    coeffs = base + unit * d / scale ** np.array(exponents, dtype=np.float64)
    return coeffs, t * unit / float(np.max(weight))



def chebyshev_nodes(a: float, b: float, n: int) -> np.ndarray:
    """n Chebyshev nodes of the first kind in (a, b), ascending."""
    k = np.arange(n)
    return np.sort((a + b) / 2 + (b - a) / 2 * np.cos(np.pi * (k + 0.5) / n))


def fit_minimax_refined(r, f_exact, exponents, base=None, relative=True):
    """fit_minimax twice: the second pass refines around the first, recovering
    what HiGHS's tolerances left on the table."""
    c, _ = fit_minimax(r, f_exact, exponents, base=base, relative=relative)
    return fit_minimax(r, f_exact, exponents, base=c, relative=relative)

def f32_rounding_interval(y: float):
    """[lo, hi]: the doubles that round (to nearest even) to the float32 y.

    y must be finite and non-zero. Uses the midpoints to the neighbouring
    floats, which belong to y exactly when y's last mantissa bit is even.
    """
    lo, hi = f32_rounding_intervals(np.array([y], dtype=np.float32))
    return float(lo[0]), float(hi[0])


def f32_rounding_intervals(y):
    """Vectorised f32_rounding_interval: arrays (lo, hi) for float32 array y.

    Valid for finite y, zeros included (the doubles rounding to +0 are
    [+0, 2^-150], to -0 are [-2^-150, -0]); FLT_MAX's upper midpoint is
    2^128 - 2^103 (the largest double that does not round to inf)."""
    y32 = np.asarray(y, dtype=np.float32)
    with np.errstate(over="ignore"):
        up = np.nextafter(y32, np.float32(np.inf)).astype(np.float64)
        down = np.nextafter(y32, np.float32(-np.inf)).astype(np.float64)
    yd = y32.astype(np.float64)
    top = 2.0 ** 128 - 2.0 ** 103
    even = (y32.view(np.uint32) & 1) == 0
    mid_hi = np.where(np.isinf(up), top, (yd + up) / 2)
    mid_lo = np.where(np.isinf(down), -top, (yd + down) / 2)
    zero = yd == 0
    mid_hi = np.where(zero & np.signbit(yd), -0.0, mid_hi)
    mid_lo = np.where(zero & ~np.signbit(yd), 0.0, mid_lo)
    lo = np.where(even | zero, mid_lo, np.nextafter(mid_lo, np.inf))
    hi = np.where(even | zero, mid_hi, np.nextafter(mid_hi, -np.inf))
    return np.minimum(lo, hi), np.maximum(lo, hi)


@dataclass
class Table:
    """A C table for the generated headers."""

    name: str
    values: list
    comments: list


def header_text(summary: str, command: str, tables: list[Table], defines=()) -> str:
    """The text write_header writes; defines: (name, value, comment) triples."""
    lines = [f"/* {line} */" if i == 0 else f" * {line}" for i, line in
             enumerate(summary.strip().splitlines())]
    if len(lines) > 1:
        lines[0] = lines[0][:-3]
        lines.append(f" * Generated by: {command}")
        lines.append(" * Do not edit: rerun the command. */")
    else:
        lines = [lines[0][:-3], f" * Generated by: {command}", " * Do not edit: rerun the command. */"]
    for name, value, comment in defines:
        lines.append(f"#define {name} {value} /* {comment} */")
    for t in tables:
        lines.append(f"CR_TABLE(double, {t.name}[{len(t.values)}]) = {{")
        for v, c in zip(t.values, t.comments):
            lines.append(f"    {float(v).hex()}, /* {c} */")
        lines.append("};")
    return "\n".join(lines) + "\n"


def write_header(filename: str, summary: str, command: str, tables: list[Table],
                 defines=(), directory: str = COEFF_DIR) -> str:
    """Write <directory>/<filename> (default src/c/crlibm; filename starts with the
    function's folder) with each value as a hex float and a comment giving what it
    encodes. Returns the path."""
    path = os.path.join(directory, filename)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as fh:
        fh.write(header_text(summary, command, tables, defines))
    return path


# ---------------------------------------------------------------------------
# RLIBM flow: fit against the rounding intervals of every input, checked in C.
# ---------------------------------------------------------------------------

HARNESS_C = os.path.join(os.path.dirname(os.path.abspath(__file__)), "harness.c")


@dataclass
class FunctionSpec:
    """What the RLIBM driver needs to know about one polynomial of a function.

    The function header must expose, in the lane abstraction,
      v64 <reduce>(v64 x, v64 *comp)   the reduced argument r (and whatever the
                                    compensation needs, one double per lane),
      v64 <compensate>(v64 p, v64 comp) the double that is rounded to float, from
                                    p = the polynomial at r; increasing in p,
      v64 <fast>(v64 x, v64m *special)  the fast path (kernels.inc's contract).
    """

    name: str                 # e.g. "exp"
    header: str               # relative to src/c, e.g. "crlibm/exp/core.h"
    reduce: str               # C name of the reduction
    compensate: str           # C name of the output compensation
    fast: str                 # C name of the fast path
    libm_ref: str             # libm double function used as the checking reference
    mpfr_fn: object           # gmpy2 function, e.g. gmpy2.exp
    domain: list              # [(lo_bits, hi_bits)], inclusive, each within one sign
    poly_symbol: str          # C name of the coefficient table, e.g. "cr_exp_poly"
    exponents: list           # the polynomial's exponents, one coefficient each
    base: list                # starting coefficients (Taylor, say)
    write_headers: object     # callable(coeffs, directory): writes the coefficient headers
    libm_err: str = "0x1p-50" # relative error bound of libm_ref (conservative)
    poly_offset: int = 0      # index of the first coefficient in poly_symbol (piecewise tables)
    poly_step: int = 1        # distance between consecutive coefficients in poly_symbol
                              # (a table by value, one 16-entry run per coefficient: 16)
    harness_extra: str = ""   # a C header (absolute path) with the function's own harness exports
    p_bracket: tuple = None   # (lo, hi): polynomial values where compensate is increasing (default: all)


def domain_size(domain) -> int:
    return sum(hi - lo + 1 for lo, hi in domain)


def domain_points(domain, n: int) -> np.ndarray:
    """n float32 bit patterns spread evenly (by bit pattern) over the domain."""
    sizes = np.array([hi - lo + 1 for lo, hi in domain], dtype=np.int64)
    idx = np.unique(np.linspace(0, int(sizes.sum()) - 1, n).astype(np.int64))
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    seg = np.searchsorted(starts, idx, side="right") - 1
    lows = np.array([lo for lo, _ in domain], dtype=np.int64)
    return (lows[seg] + idx - starts[seg]).astype(np.uint32)


def mpfr_f32(fn, xbits: np.ndarray) -> np.ndarray:
    """The correctly rounded float32 results of fn (a gmpy2 function)."""
    xs = np.asarray(xbits, dtype=np.uint32).view(np.float32)
    with gmpy2.context(gmpy2.ieee(32)):
        return np.array([float(fn(gmpy2.mpfr(float(x)))) for x in xs], dtype=np.float32)


class Harness:
    """The C harness (harness.c) built for one FunctionSpec and loaded with ctypes.

    The build uses a private copy of src/c whose coefficient headers the spec
    rewrites (write_headers(coeffs or spec.base, dir)), so table sizes and
    polynomial lengths can differ from the committed ones; the polynomial's
    values are then loaded at run time into the writable table. With
    committed=True the committed headers are kept (the shipped fast path)."""

    def __init__(self, spec: FunctionSpec, coeffs=None, committed: bool = False,
                 cc: str = "gcc"):
        import ctypes
        import shutil
        import subprocess
        import tempfile

        self.spec = spec
        self.dir = tempfile.mkdtemp(prefix=f"polygen_{spec.name}_")
        src = os.path.join(self.dir, "src")
        shutil.copytree(os.path.join(REPO, "src", "c"), src)
        if not committed:
            spec.write_headers(spec.base if coeffs is None else coeffs,
                               os.path.join(src, "crlibm"))
        so = os.path.join(self.dir, "harness.so")
        defs = {"CR_H_HEADER": f'"{spec.header}"', "CR_H_REDUCE": spec.reduce,
                "CR_H_COMP": spec.compensate, "CR_H_FAST": spec.fast,
                "CR_H_REF": spec.libm_ref, "CR_H_REF_ERR": spec.libm_err}
        if spec.harness_extra:
            defs["CR_H_EXTRA"] = f'"{spec.harness_extra}"'
        # -march=native only makes fma() and rint() single instructions: with
        # -ffp-contract=off every operation stays the one the source writes.
        cmd = [cc, "-O2", "-std=gnu11", "-ffp-contract=off", "-fno-fast-math", "-march=native",
               "-shared", "-fPIC", "-I", src, HARNESS_C, "-o", so, "-lm"]
        cmd += [f"-D{k}={v}" for k, v in defs.items()]
        subprocess.run(cmd, check=True)
        self.lib = ctypes.CDLL(so)
        self._table_at = ctypes.addressof(ctypes.c_double.in_dll(self.lib, spec.poly_symbol))
        self._c = ctypes
        i64, ptr = ctypes.c_long, ctypes.c_void_p
        for name, args in (("h_reduce", [ptr, ptr, ptr, i64]), ("h_compensate", [ptr, ptr, ptr, i64]),
                           ("h_eval", [ptr, ptr, ptr, i64]), ("h_reference", [ptr, ptr, ptr, i64])):
            getattr(self.lib, name).argtypes = args
        self.lib.h_check.argtypes = [ctypes.c_uint32, ctypes.c_uint32, ctypes.c_uint32, ptr, i64,
                                     ptr, ptr, i64,
                                     ctypes.POINTER(i64)]
        self.lib.h_check.restype = i64
        self.lib.h_near_midpoint.argtypes = [ctypes.c_uint32, ctypes.c_uint32, ctypes.c_double,
                                             ptr, i64]
        self.lib.h_near_midpoint.restype = i64
        shutil.rmtree(src)

    def close(self):
        import shutil
        shutil.rmtree(self.dir, ignore_errors=True)

    def set_coeffs(self, coeffs):
        """Load coeffs at the current spec's poly_offset, poly_step apart (self.spec may be
        switched to another piece of the same table, see rlibm_fit)."""
        step = self.spec.poly_step
        table = (self._c.c_double * ((len(coeffs) - 1) * step + 1)).from_address(
            self._table_at + 8 * self.spec.poly_offset)
        for i, c in enumerate(coeffs):
            table[i * step] = float(c)

    @staticmethod
    def _p(a):
        return a.ctypes.data

    def reduce(self, xbits):
        x = np.ascontiguousarray(np.asarray(xbits, dtype=np.uint32).view(np.float32))
        r, comp = np.empty(x.size), np.empty(x.size)
        self.lib.h_reduce(self._p(x), self._p(r), self._p(comp), x.size)
        return r, comp

    def compensate(self, p, comp):
        p, comp = np.ascontiguousarray(p, dtype=np.float64), np.ascontiguousarray(comp)
        out = np.empty(p.size)
        self.lib.h_compensate(self._p(p), self._p(comp), self._p(out), p.size)
        return out

    def eval(self, xbits):
        x = np.ascontiguousarray(np.asarray(xbits, dtype=np.uint32).view(np.float32))
        y, special = np.empty(x.size, np.float32), np.empty(x.size, np.intc)
        self.lib.h_eval(self._p(x), self._p(y), self._p(special), x.size)
        return y, special.astype(bool)

    def reference(self, x):
        """(y, decided): the libm-based correctly rounded results of float32 x."""
        x = np.ascontiguousarray(x, dtype=np.float32)
        y, dec = np.empty(x.size, np.float32), np.empty(x.size, np.uint8)
        self.lib.h_reference(self._p(x), self._p(y), self._p(dec), x.size)
        return y, dec.astype(bool)

    def check(self, stride: int = 1, max_bad: int = 1 << 16, max_und: int = 1 << 20):
        """Every input (every stride-th) of the domain through the fast path.
        Returns the bit patterns of the wrong ones (undecided ones settled
        with MPFR) and the number of inputs MPFR had to settle."""
        bad_all, n_und_all = [], 0
        for lo, hi in self.spec.domain:
            bad = np.empty(max_bad, np.uint32)
            und, und_y = np.empty(max_und, np.uint32), np.empty(max_und, np.float32)
            n_und = self._c.c_long(0)
            n_bad = self.lib.h_check(lo, hi, stride, self._p(bad), max_bad, self._p(und), self._p(und_y),
                                     max_und, self._c.byref(n_und))
            if n_und.value > max_und:
                raise RuntimeError(f"{n_und.value} undecided inputs: libm_err too loose?")
            bad_all.append(bad[:min(n_bad, max_bad)])
            und, und_y = und[:n_und.value], und_y[:n_und.value]
            want = mpfr_f32(self.spec.mpfr_fn, und)
            bad_all.append(und[want.view(np.uint32) != und_y.view(np.uint32)])
            n_und_all += n_und.value
        return np.concatenate(bad_all), n_und_all


    def near_midpoint(self, thresh: float, max_out: int = 1 << 16):
        """Domain inputs whose libm value is within thresh (relative) of a float midpoint."""
        found = []
        for lo, hi in self.spec.domain:
            out = np.empty(max_out, np.uint32)
            n = self.lib.h_near_midpoint(lo, hi, thresh, self._p(out), max_out)
            found.append(out[:min(n, max_out)])
        return np.concatenate(found)


def hardest_inputs(spec: FunctionSpec, count: int = 20, thresh: float = 2.0 ** -44):
    """The count domain inputs whose exact f(x) lies closest to a float32
    midpoint, as (bits, distance in float ulps of the result), closest first."""
    h = Harness(spec, committed=True)
    try:
        cand = h.near_midpoint(thresh)
    finally:
        h.close()
    rows = []
    with gmpy2.context(precision=200):
        for b in cand.tolist():
            x = float(np.uint32(b).view(np.float32))
            v = spec.mpfr_fn(gmpy2.mpfr(x))
            y = np.float32(float(v))
            nb = np.nextafter(y, np.float32(np.inf) if v > gmpy2.mpfr(float(y)) else np.float32(-np.inf))
            ulp = abs(gmpy2.mpfr(float(nb)) - gmpy2.mpfr(float(y)))
            mid = (gmpy2.mpfr(float(y)) + gmpy2.mpfr(float(nb))) / 2
            rows.append((float(abs(v - mid) / ulp), b))
    rows.sort()
    return [(b, d) for d, b in rows[:count]]


def sweep(spec: FunctionSpec, fn_name: str, chunk_bits: int = 24, log=print):
    """Exhaustive check of crlibm_py (built in place) on all 2^32 inputs and
    every CPU path the machine has, against libm-decided / MPFR results.
    Returns {path: number of wrong results}."""
    sys_path = os.path.join(REPO)
    import sys
    if sys_path not in sys.path:
        sys.path.insert(0, sys_path)
    from crlibm_py import _ufuncs

    fn = list(_ufuncs.function_names()).index(fn_name)
    paths = [p for p in _ufuncs.isa_names() if _ufuncs.isa_supported(p)]
    wrong = {p: 0 for p in paths}
    examples = {p: [] for p in paths}
    h = Harness(spec, committed=True)
    settled = 0
    try:
        step = 1 << chunk_bits
        for start in range(0, 1 << 32, step):
            bits = np.arange(start, start + step, dtype=np.uint64).astype(np.uint32)
            x = bits.view(np.float32)
            want, decided = h.reference(x)
            und = np.flatnonzero(~decided)
            if und.size:
                want[und] = mpfr_f32(spec.mpfr_fn, bits[und])
                settled += und.size
            want_bits = want.view(np.uint32)
            y = np.empty_like(x)
            for p in paths:
                _ufuncs.apply_isa(fn, p, x, y)
                bad = np.flatnonzero(y.view(np.uint32) != want_bits)
                wrong[p] += bad.size
                examples[p].extend(bits[bad[:5]].tolist())
            if (start >> chunk_bits) % 32 == 31:
                log(f"  {start + step:#x}: wrong so far {wrong}")
    finally:
        h.close()
    log(f"{fn_name}: 2^32 inputs, paths {paths}, wrong {wrong}, {settled} settled by MPFR")
    for p in paths:
        if examples[p]:
            log(f"  {p} examples: {[hex(b) for b in examples[p][:10]]}")
    return wrong


def invert_increasing(g, lo, hi, bracket=None):
    """Per element, the doubles p with g(p) in [lo, hi], as (p_lo, p_hi).

    g maps a float64 array elementwise and is increasing (not necessarily
    strictly); found by bisection over the ordered bit patterns of finite
    doubles, so it is exact whatever the rounding inside g. Empty
    intervals come back with p_lo > p_hi. bracket: (p_min, p_max), the search
    range when g is increasing only there (default: every finite double)."""
    mask = np.uint64(0x7FFFFFFFFFFFFFFF)
    sign = np.uint64(1 << 63)

    def to_key(d):  # order-preserving map of doubles to uint64
        b = np.asarray(d, dtype=np.float64).view(np.uint64)
        return np.where(b & sign, ~b, b | sign)

    def from_key(k):
        return np.where(k & sign, k & mask, ~k).view(np.float64)

    big = np.finfo(np.float64).max
    kmin, kmax = to_key(-big if bracket is None else bracket[0]), to_key(big if bracket is None
                                                                        else bracket[1])

    def first(pred):  # smallest key with pred(g(p)) true, pred monotone false->true
        a = np.full(len(lo), kmin, dtype=np.uint64)
        b = np.full(len(lo), kmax, dtype=np.uint64)
        while np.any(a < b):
            m = a + (b - a) // np.uint64(2)
            ok = pred(g(from_key(m)))
            b = np.where(ok, m, b)
            a = np.where(ok, a, m + np.uint64(1))
        return a

    k_lo = first(lambda v: v >= lo)
    k_hi = first(lambda v: v > hi)  # one past the last p with g(p) <= hi
    return from_key(k_lo), from_key(k_hi - np.uint64(1))


@dataclass
class FitResult:
    coeffs: np.ndarray
    iterations: int
    sample_size: int
    margin: float
    checked: int
    mpfr_settled: int


def _ulp_steps(p, n, up):
    """p moved by n[i] ulps (towards +inf if up), elementwise."""
    for _ in range(int(np.max(n, initial=0))):
        step = n > 0
        p = np.where(step, np.nextafter(p, np.inf if up else -np.inf), p)
        n = n - 1
    return p


def _fit_sample(spec, h, bits, cache, shrink, base):
    """LP on the constraints of the sampled inputs (bits, sorted); fills cache."""
    new = np.array([b for b in bits.tolist() if b not in cache], dtype=np.uint32)
    if new.size:
        y = mpfr_f32(spec.mpfr_fn, new)
        lo, hi = f32_rounding_intervals(y)
        r, comp = h.reduce(new)
        p_lo, p_hi = invert_increasing(lambda p, c=comp: h.compensate(p, c), lo, hi,
                                       spec.p_bracket)
        for i, b in enumerate(new.tolist()):
            cache[b] = (r[i], p_lo[i], p_hi[i], y[i])
    rows = np.array([cache[b][:3] for b in bits.tolist()])
    r, p_lo, p_hi = rows[:, 0], rows[:, 1], rows[:, 2]
    s = np.array([shrink.get(b, (0, 0)) for b in bits.tolist()]).reshape(-1, 2)
    p_lo, p_hi = _ulp_steps(p_lo, s[:, 0], True), _ulp_steps(p_hi, s[:, 1], False)
    if np.any(p_lo > p_hi):
        raise Infeasible(f"{spec.name}: an input has no admissible polynomial value")
    coeffs, margin = fit_intervals(r, p_lo, p_hi, spec.exponents, base)
    if margin < 0:
        raise Infeasible(f"{spec.name}: LP margin {margin:.3g} < 0")
    return coeffs, margin


def rlibm_fit(spec: FunctionSpec, n_init: int = 4000, max_iter: int = 40, neighbours: int = 1,
              max_add: int = 4000, strides=(61, 7, 1), log=print, harness=None) -> FitResult:
    """RLIBM loop: LP on a sample of constraints, check the whole domain in C,
    add what failed (at most max_add inputs spread over the failures, and
    their neighbours), repeat until nothing fails.

    To converge faster, the checks first cover every strides[0]-th input of
    the domain; a check without failures moves to the next stride, and only
    a clean check at stride 1 (every input) ends the loop.

    A failing input already in the sample failed through the double rounding
    of the evaluation: its interval is shrunk on the violated side.
    Raises Infeasible when the LP has no solution (try a higher degree).

    harness: an open Harness to reuse (one build for all the pieces of a
    piecewise table, whose specs differ in domain, poly_offset and base); it is
    switched to spec and left open. By default one is built and closed."""
    h = harness or Harness(spec)
    h.spec = spec
    try:
        sample = {int(b) for b in domain_points(spec.domain, n_init)}
        shrink = {}  # bits -> (ulps off the low end, ulps off the high end)
        base = np.asarray(spec.base, dtype=np.float64)
        cache = {}
        level, changed = 0, True
        for it in range(1, max_iter + 1):
            bits = np.array(sorted(sample), dtype=np.uint32)
            if changed:  # else nothing new: check the same polynomial at a finer stride
                coeffs, margin = _fit_sample(spec, h, bits, cache, shrink, base)
                changed = False
            h.set_coeffs(coeffs)
            bad, settled = h.check(strides[level])
            log(f"  iteration {it}: {bits.size} constraints, margin {margin:.3g}, stride "
                f"{strides[level]}: {bad.size} wrong, {settled} settled by MPFR")
            if bad.size == 0:
                if strides[level] == 1:
                    return FitResult(coeffs, it, bits.size, margin, domain_size(spec.domain),
                                     settled)
                level += 1
                continue
            changed = True
            if bad.size > max_add:
                bad = bad[np.linspace(0, bad.size - 1, max_add).astype(np.int64)]
            got, _ = h.eval(bad)
            for b, g in zip(bad.tolist(), got):
                if b in cache:  # rounding of the evaluation: shrink the violated side
                    s_lo, s_hi = shrink.get(b, (0, 0))
                    if g > cache[b][3]:
                        s_hi = 2 * s_hi + 4
                    else:
                        s_lo = 2 * s_lo + 4
                    shrink[b] = (s_lo, s_hi)
                for d in range(-neighbours, neighbours + 1):
                    nb = b + d
                    if any(lo <= nb <= hi for lo, hi in spec.domain):
                        sample.add(nb)
        raise Infeasible(f"{spec.name}: not converged in {max_iter} iterations")
    finally:
        if harness is None:
            h.close()
