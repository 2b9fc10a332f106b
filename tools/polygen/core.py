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
COEFF_DIR = os.path.join(REPO, "src", "c", "crlibm", "coeffs")


class Infeasible(RuntimeError):
    """No polynomial of the requested form satisfies the constraints."""


def _monomials(r: np.ndarray, exponents, scale: float) -> np.ndarray:
    x = r / scale
    return np.stack([x ** e for e in exponents], axis=1)


def _solve(a_ub, b_ub, n_vars):
    """Maximise the last variable subject to a_ub @ v <= b_ub."""
    c = np.zeros(n_vars)
    c[-1] = -1.0
    res = linprog(c, A_ub=a_ub, b_ub=b_ub, bounds=[(None, None)] * n_vars, method="highs",
                  options={"presolve": True, "primal_feasibility_tolerance": 1e-10,
                           "dual_feasibility_tolerance": 1e-10})
    if res.status != 0:
        raise Infeasible(res.message)
    return res.x


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
    half = (hi - lo) / 2
    unit = float(np.median(half))
    # Correction d (in units of `unit`) and margin t (in half-widths):
    #   p0 + unit*(mono@d) - t*half >= lo   and   p0 + unit*(mono@d) + t*half <= hi
    a = np.vstack([np.hstack([-mono, (half / unit)[:, None]]),
                   np.hstack([mono, (half / unit)[:, None]])])
    b = np.concatenate([(p0 - lo) / unit, (hi - p0) / unit])
    v = _solve(a, b, len(exponents) + 1)
    d, t = v[:-1], v[-1]
    coeffs = base + unit * d / scale ** np.array(exponents, dtype=np.float64)
    return coeffs, t


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


def f32_rounding_interval(y: float):
    """[lo, hi]: the doubles that round (to nearest even) to the float32 y.

    y must be finite and non-zero. Uses the midpoints to the neighbouring
    floats, which belong to y exactly when y's last mantissa bit is even.
    """
    y32 = np.float32(y)
    up = float(np.nextafter(y32, np.float32(np.inf)))
    down = float(np.nextafter(y32, np.float32(-np.inf)))
    y = float(y32)
    even = (int(y32.view(np.uint32)) & 1) == 0
    mid_hi = (y + up) / 2 if np.isfinite(up) else y + (y - down) / 2
    mid_lo = (y + down) / 2
    lo = mid_lo if even else float(np.nextafter(mid_lo, np.inf))
    hi = mid_hi if even else float(np.nextafter(mid_hi, -np.inf))
    return min(lo, hi), max(lo, hi)


@dataclass
class Table:
    """A C table for the generated headers."""

    name: str
    values: list
    comments: list


def write_header(filename: str, summary: str, command: str, tables: list[Table]) -> str:
    """Write src/c/crlibm/coeffs/<filename> with each value as a hex float and
    a comment giving what it encodes. Returns the path."""
    lines = [f"/* {line} */" if i == 0 else f" * {line}" for i, line in
             enumerate(summary.strip().splitlines())]
    if len(lines) > 1:
        lines[0] = lines[0][:-3]
        lines.append(f" * Generated by: {command}")
        lines.append(" * Do not edit: rerun the command. */")
    else:
        lines = [lines[0][:-3], f" * Generated by: {command}", " * Do not edit: rerun the command. */"]
    for t in tables:
        lines.append(f"CR_TABLE(double, {t.name}[{len(t.values)}]) = {{")
        for v, c in zip(t.values, t.comments):
            lines.append(f"    {float(v).hex()}, /* {c} */")
        lines.append("};")
    path = os.path.join(COEFF_DIR, filename)
    with open(path, "w") as fh:
        fh.write("\n".join(lines) + "\n")
    return path
