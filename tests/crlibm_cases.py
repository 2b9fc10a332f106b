"""What the tests declare about each function: one entry per function of the registry
(src/c/crlibm/functions.def), written from the contract (docs/contract.md §1) and not
from the registry, so that the tests check the registry and the code against it.

A new function adds its entry to each table here (tests/test_crlibm_registry.py checks
that they cover the registry exactly) and its hardest inputs, tests/data/hard_inputs_<f>.txt.
Every test parametrised by the `fname` fixture (tests/conftest.py) then runs on it:
special values (test_special.py), sampled MPFR, thresholds and hardest inputs
(test_mpfr.py), path equality (test_paths.py), the ufunc and the C ABI.
"""
from mpfr_ref import CANONICAL_NAN

NAN = CANONICAL_NAN
POS_INF, NEG_INF = 0x7F800000, 0xFF800000
POS_ZERO, NEG_ZERO = 0x00000000, 0x80000000
ONE, MINUS_ONE = 0x3F800000, 0xBF800000

# Contract §1, columns NaN, +inf, -inf, +0, -0 (result bit patterns).
SPECIALS = {
    "exp":   (NAN, POS_INF, POS_ZERO, ONE, ONE),
    "log":   (NAN, POS_INF, NAN, NEG_INF, NEG_INF),
    "sin":   (NAN, NAN, NAN, POS_ZERO, NEG_ZERO),
    "cos":   (NAN, NAN, NAN, ONE, ONE),
    "tanh":  (NAN, ONE, MINUS_ONE, POS_ZERO, NEG_ZERO),
    "erf":   (NAN, ONE, MINUS_ONE, POS_ZERO, NEG_ZERO),
    "rsqrt": (NAN, POS_ZERO, NAN, POS_INF, NEG_INF),
}

# Functions whose every x < 0 is a domain error (canonical NaN).
DOMAIN_ERROR_BELOW_ZERO = ("log", "rsqrt")

# Where each function does its real work (magnitudes; sign random unless noted).
RANGES = {
    "exp": (2.0 ** -30, 104.0, True),
    "log": (0.25, 4.0, False),
    "sin": (2.0 ** -20, 2.0 ** 20, True),
    "cos": (2.0 ** -20, 2.0 ** 20, True),
    "tanh": (2.0 ** -20, 16.0, True),
    "erf": (2.0 ** -20, 8.0, True),
    "rsqrt": (2.0 ** -149, 3.4028234663852886e38, False),
}

_ONE, _INF = ONE, POS_INF

# Where the result of each function changes regime: (what, test(result_bits,
# x_bits), lo, hi) with the test false at lo and true at hi; bisection with
# MPFR finds the exact float where it turns true.
THRESHOLDS = {
    "exp": [("overflow", lambda r, x: r == _INF, 88.0, 89.0),
            ("underflow to +0", lambda r, x: r == 0, -100.0, -110.0),
            ("subnormal result", lambda r, x: r < 0x00800000, -80.0, -90.0),
            ("exp(x) > 1, x > 0", lambda r, x: r != _ONE, 2.0 ** -40, 2.0 ** -10),
            ("exp(x) < 1, x < 0", lambda r, x: r != _ONE, -2.0 ** -40, -2.0 ** -10)],
    "log": [("log(x) >= 1", lambda r, x: r >= _ONE, 2.0, 3.0),
            ("log(x) >= 64", lambda r, x: r >= 0x42800000, 2.0 ** 92, 2.0 ** 93),
            ("log(x) > -2^-10", lambda r, x: r <= 0xBA800000, 0.99, 0.9999)],
    "sin": [("sin(x) stops rounding to x", lambda r, x: r != x, 2.0 ** -20, 2.0 ** -5)],
    "cos": [("cos(x) stops rounding to 1", lambda r, x: r != _ONE, 2.0 ** -30, 2.0 ** -5)],
    "tanh": [("tanh(x) stops rounding to x", lambda r, x: r != x, 2.0 ** -20, 2.0 ** -5),
             ("saturation to 1", lambda r, x: r == _ONE, 1.0, 20.0)],
    "erf": [("saturation to 1", lambda r, x: r == _ONE, 1.0, 10.0),
            ("normal result", lambda r, x: r >= 0x00800000, 2.0 ** -149, 2.0 ** -125)],
    "rsqrt": [("rsqrt(x) < 1", lambda r, x: r < _ONE, 0.5, 2.0),
              ("rsqrt(x) < 2^-63", lambda r, x: r < 0x20000000, 2.0 ** 125, 2.0 ** 127)],
}
