"""The glibc double references of the fast tier and their declared error bounds.

A reference value r of f(x) is trusted only through its bound B: the fast tier
takes the float32 result as decided when every real within B*|f(x)| of r
rounds to one float32; otherwise the input goes to MPFR. B is glibc's
documented maximum error for the double function on x86_64 (libm-test-ulps,
in ulps; an ulp of a normal double y is at most 2^-52 * |y|), times a safety
factor of 64. rsqrt's reference 1/sqrt(x) has two correctly rounded steps,
so under 1 ulp (plus 2^-104), counted as 1 ulp before the same factor.
Every run measures each reference against MPFR on a sample and fails if the
bound is exceeded (``check_bound``).

The references, their ulps and the special and saturated inputs are each function's
entry in the registry (src/c/crlibm/functions.def).
"""
import struct

import numpy as np

from .._registry import functions as _functions

SAFETY = 64
# glibc x86_64 libm-test-ulps, "double" entries of the round-to-nearest functions.
GLIBC_ULPS = {f.name: f.glibc_ulps for f in _functions()}
BOUNDS = {fn: ulps * SAFETY * 2.0**-52 for fn, ulps in GLIBC_ULPS.items()}
REFERENCES = {f.name: f.reference_text for f in _functions()}

_GOLDEN = 0x9E3779B9  # odd multiplier: spreads the offsets inside each stratum


def _strata(lo, hi, n):
    """n bit patterns spread over [lo, hi): one per equal stratum, at a
    deterministic pseudo-random offset inside it (so every binade is hit)."""
    if n <= 0 or hi <= lo:
        return np.empty(0, np.uint32)
    i = np.arange(n, dtype=np.uint64)
    width = (hi - lo) / n
    offset = (i * _GOLDEN % 2**32) / 2.0**32 * width
    return (lo + np.floor(i * width + offset)).astype(np.uint64).clip(lo, hi - 1).astype(np.uint32)


def _neighbours(values, spread):
    """The float32 bit patterns within `spread` ulps of each float32 value."""
    bits = np.asarray(values, np.float32).view(np.uint32).astype(np.int64)
    steps = np.arange(-spread, spread + 1)
    return (bits[:, None] + steps[None, :]).ravel().clip(0, 2**32 - 1).astype(np.uint32)


# Bit-pattern intervals of the inputs whose expected value uses the reference
# (outside them the contract's table or the registry's saturation decides).
_FINITE = [(0x00000001, 0x7F800000), (0x80000001, 0xFF800000)]


def _bits(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def _domain(f):
    """The finite non-zero inputs neither special (x < 0 for log) nor saturated (exp)."""
    (pos_lo, pos_hi), (neg_lo, neg_hi) = _FINITE
    if f.saturation is not None:  # exp: (-104, 89)
        lo, _, hi, _ = f.saturation
        pos_hi, neg_hi = _bits(hi), _bits(lo)
    domain = [(pos_lo, pos_hi)]
    if f.specials["negative"] is None:
        domain.append((neg_lo, neg_hi))
    return domain


DOMAINS = {f.name: _domain(f) for f in _functions()}


def sample_inputs(fn, n=100_000):
    """Inputs for the bound check of fn: n spread over its domain (every
    binade of both signs), plus inputs where a relative bound is hardest to
    meet: near the zeros of sin and cos (multiples of pi/2), near log's zero (1)."""
    domain = DOMAINS.get(fn, _FINITE)
    parts = [_strata(lo, hi, n // len(domain)) for lo, hi in domain]
    if fn in ("sin", "cos"):
        k = np.arange(1, min(5000, n // 20) + 1, dtype=np.float64)
        parts.append(_neighbours(np.concatenate([k, -k]) * (np.pi / 2), 2))
    if fn == "log":
        parts.append(_neighbours([1.0], min(2000, n // 50)))
    return np.unique(np.concatenate(parts))


def check_bound(core, fn_index, fn, n=100_000, ref_shift=0.0):
    """Measure the reference's relative error against MPFR on the sample."""
    xs = sample_inputs(fn, n)
    max_rel, worst, used = core.bound_sample(fn_index, xs, ref_shift)
    bound = BOUNDS[fn]
    return {
        "reference": REFERENCES[fn],
        "declared_bound": bound,
        "declared_bound_log2": float(np.log2(bound)),
        "sample_size": int(used),
        "max_rel_error": max_rel,
        "max_rel_error_in_2^-52": max_rel / 2.0**-52,
        "worst_input": f"0x{worst:08x}",
        "ok": bool(max_rel <= bound),
    }
