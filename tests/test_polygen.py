"""Fast checks of the coefficient generator's pieces (tools/polygen)."""
import os
import sys

import gmpy2
import numpy as np
import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(ROOT, "tools"))

from polygen import core, exp  # noqa: E402


def _random_floats(n, seed=1):
    rng = np.random.default_rng(seed)
    bits = rng.integers(0, 0x7F7FFFFF, n, dtype=np.uint32)  # finite, positive
    bits = np.concatenate([bits, [1, 2, 3, 0x007FFFFF, 0x00800000, 0x3F800000, 0x7F7FFFFF]])
    x = bits.astype(np.uint32).view(np.float32)
    return np.concatenate([x, -x])


def test_rounding_intervals_match_numpy_rounding():
    y = _random_floats(3000)
    lo, hi = core.f32_rounding_intervals(y)
    assert np.all(lo.astype(np.float32) == y) and np.all(hi.astype(np.float32) == y)
    with np.errstate(over="ignore"):
        below = np.nextafter(lo, -np.inf).astype(np.float32)
        above = np.nextafter(hi, np.inf).astype(np.float32)
    assert not np.any(below == y) and not np.any(above == y)
    assert core.f32_rounding_interval(float(y[0])) == (lo[0], hi[0])


def test_rounding_intervals_of_zero():
    lo, hi = core.f32_rounding_intervals(np.array([0.0, -0.0], np.float32))
    assert lo[0] == 0.0 and hi[0] == 2.0 ** -150 and np.float32(hi[0]) == 0.0
    assert np.float32(np.nextafter(hi[0], 1.0)) != 0.0 and lo[1] == -(2.0 ** -150)


def test_fit_intervals_meets_its_constraints():
    r = np.linspace(-0.01, 0.01, 101)
    with gmpy2.context(precision=200):
        f = np.array([float(gmpy2.exp(gmpy2.mpfr(float(v)))) for v in r])
    lo, hi = f - 1e-12 * f, f + 3e-13 * f  # asymmetric: the centre is not exp
    coeffs, margin = core.fit_intervals(r, lo, hi, range(5), base=[1, 1, 0.5, 1 / 6, 1 / 24])
    assert margin > 0
    with gmpy2.context(precision=200):
        for ri, l, h in zip(r, lo, hi):
            p = sum(gmpy2.mpfr(float(c)) * gmpy2.mpfr(float(ri)) ** e for e, c in enumerate(coeffs))
            assert l <= p <= h
    # no line passes through these three intervals: the best margin is negative
    _, margin = core.fit_intervals(np.array([-1.0, 0.0, 1.0]), np.array([1.0, -0.01, 1.0]),
                                   np.array([1.01, 0.0, 1.01]), range(2))
    assert margin < 0


def test_invert_increasing_is_exact():
    rng = np.random.default_rng(2)
    scale = np.ldexp(1 + rng.random(500), rng.integers(-150, 127, 500))
    y = (scale * (1 + rng.random(500) / 64)).astype(np.float32)
    lo, hi = core.f32_rounding_intervals(y)
    p_lo, p_hi = core.invert_increasing(lambda p: scale * p, lo, hi)
    assert np.all(scale * p_lo >= lo) and np.all(scale * np.nextafter(p_lo, -np.inf) < lo)
    assert np.all(scale * p_hi <= hi) and np.all(scale * np.nextafter(p_hi, np.inf) > hi)


def test_invert_increasing_in_a_bracket():
    """tanh's compensation E/(E + 2), E = s p + s - 1, turns around below p = -1: within
    the bracket the inverted intervals are exact; over all doubles the bisection is lost."""
    rng = np.random.default_rng(4)
    s = 2.0 ** rng.integers(0, 11, 400)
    p_true = rng.uniform(-0.29, 0.41, 400)

    def g(p):
        e = s * p + (s - 1)
        return e / (e + 2)

    lo, hi = core.f32_rounding_intervals(g(p_true).astype(np.float32))
    p_lo, p_hi = core.invert_increasing(g, lo, hi, bracket=(-0.5, 1.0))
    assert np.all((p_lo <= p_true) & (p_true <= p_hi))
    assert np.all(g(p_lo) >= lo) and np.all(g(np.nextafter(p_lo, -np.inf)) < lo)
    assert np.all(g(p_hi) <= hi) and np.all(g(np.nextafter(p_hi, np.inf)) > hi)
    with np.errstate(all="ignore"):  # over all doubles g overflows and divides by zero
        lost, _ = core.invert_increasing(g, lo, hi)
    assert np.any(lost != p_lo)


def test_exp_table_header_regenerates_bit_for_bit(tmp_path):
    path = exp.write_table(exp.TABLE_BITS, str(tmp_path))
    with open(path) as fh, open(os.path.join(core.COEFF_DIR, "exp", "table.h")) as ref:
        assert fh.read() == ref.read()


def test_cli_discovers_exp_targets():
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    import importlib.util
    spec = importlib.util.spec_from_file_location("polygen_cli", os.path.join(ROOT, "tools",
                                                                              "polygen.py"))
    cli = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cli)
    targets = cli.discover()
    assert {"exp", "exp-table"} <= set(targets)


def _hard_inputs():
    path = os.path.join(ROOT, "tests", "data", "hard_inputs_exp.txt")
    with open(path) as fh:
        return np.array([int(line.split()[0], 16) for line in fh if line.strip()
                         and not line.startswith("#")], dtype=np.uint32)


def test_harness_reproduces_the_committed_fast_path_on_hard_inputs():
    """The harness (committed coefficients) gives MPFR's result on the hardest inputs."""
    bits = _hard_inputs()
    h = core.Harness(exp.spec(), committed=True)
    try:
        got, special = h.eval(bits)
        want = core.mpfr_f32(gmpy2.exp, bits)
        assert not special.any()
        assert np.array_equal(got.view(np.uint32), want.view(np.uint32))
    finally:
        h.close()


def test_hard_inputs_on_every_path():
    ufuncs = pytest.importorskip("crlibm_py._ufuncs", reason="needs the built extension (python "
                                 "setup.py build_ext --inplace)")
    bits = _hard_inputs()
    x = bits.view(np.float32)
    want = core.mpfr_f32(gmpy2.exp, bits).view(np.uint32)
    fn = list(ufuncs.function_names()).index("exp")
    for isa in ufuncs.isa_names():
        if not ufuncs.isa_supported(isa):
            continue
        y = np.empty_like(x)
        ufuncs.apply_isa(fn, isa, x, y)
        assert np.array_equal(y.view(np.uint32), want), isa


def _load(name):
    import importlib
    return importlib.import_module(f"polygen.{name}")


def test_log_table_header_regenerates_bit_for_bit(tmp_path):
    path = _load("log").write_table(str(tmp_path))
    with open(path) as fh, open(os.path.join(core.COEFF_DIR, "log", "table.h")) as ref:
        assert fh.read() == ref.read()


def test_sincos_big_header_regenerates_bit_for_bit(tmp_path):
    path = _load("sincos").write_big(str(tmp_path))
    with open(path) as fh, open(os.path.join(core.COEFF_DIR, "sin_cos", "big.h")) as ref:
        assert fh.read() == ref.read()


def test_sincos_big_pieces_reduce_exactly():
    """x*(c0 + c1 + c2) is exact for floats x of the row's binade, and x*(c0+..+c3)
    equals x*8/pi modulo 16 to far below the 2^-29.86 that the closest float
    comes to a multiple of pi/8."""
    sincos = _load("sincos")
    rng = np.random.default_rng(3)
    with gmpy2.context(precision=600):
        eight_pi = 8 / gmpy2.const_pi()
        for e in list(range(32, 128, 7)) + [127]:
            c = sincos.big_pieces(e)
            for k in range(3):  # 28-bit pieces
                assert abs(c[k].as_integer_ratio()[0]) < 2 ** 28
            for mant in rng.integers(2 ** 23, 2 ** 24, 20).tolist() + [2 ** 23, 2 ** 24 - 1]:
                x = gmpy2.mpfr(mant) * gmpy2.mpfr(2) ** (e - 23)
                for k in range(3):
                    assert float(x * c[k]) == x * gmpy2.mpfr(c[k])  # exact in double
                approx = sum(x * gmpy2.mpfr(ck) for ck in c)
                diff = approx - x * eight_pi
                diff -= 16 * gmpy2.rint(diff / 16)  # only multiples of 16 may be dropped
                assert abs(diff) < 2.0 ** -100


def test_fit_linear_meets_its_constraints():
    """Two 'polynomials' with columns of very different scales, fitted jointly."""
    rng = np.random.default_rng(4)
    r = rng.uniform(-0.2, 0.2, 300)
    a, b = rng.uniform(-1, 1, 300), rng.uniform(-1, 1, 300)
    u = r * r
    cols = np.stack([a * u, a * u * u, b * r * u, b * r * u * u], axis=1)
    want = np.array([-0.5, 1 / 24, -1 / 6, 1 / 120])
    v = cols @ want
    width = 1e-12 * (np.abs(v) + 1e-6)
    lo, hi = v - width, v + 0.3 * width  # asymmetric: want is not the centre
    # the LP works on a correction to base, which must be close (as a minimax fit is)
    coeffs, margin = core.fit_linear(cols, lo, hi, base=want * (1 + np.array([3, -2, 1, 5]) * 1e-11))
    assert margin > 0
    with gmpy2.context(precision=300):
        for row, l, h in zip(cols, lo, hi):
            p = sum(gmpy2.mpfr(float(x)) * gmpy2.mpfr(float(c)) for x, c in zip(row, coeffs))
            assert l <= p <= h
    # contradictory constraints on one column: the best margin is negative
    _, margin = core.fit_linear(np.array([[1.0], [1.0]]), np.array([0.0, 2.0]),
                                np.array([1.0, 3.0]), base=[0.0])
    assert margin < 0


def test_sincos_tables_regenerate_bit_for_bit(tmp_path):
    path = _load("sincos").write_tables(str(tmp_path))
    with open(path) as fh, open(os.path.join(core.COEFF_DIR, "sin_cos", "table.h")) as ref:
        assert fh.read() == ref.read()


def test_sincos_committed_fit_on_a_stride_of_inputs():
    """The harness (committed coefficients, sincos_harness.h) against libm/MPFR on
    every 9973rd input of the fit's domain, for sin and cos; its A, B, r rebuild
    the fast path's double through the compensation."""
    sincos = _load("sincos")
    for fn, off in sincos.FUNCS.items():
        h = core.Harness(sincos.spec(fn, np.zeros(sincos.NC + sincos.NS)), committed=True)
        try:
            bad, _ = h.check(9973)
            assert bad.size == 0, (fn, [hex(b) for b in bad[:5]])
            bits = core.domain_points(sincos.DOMAIN, 2000)
            a, b, r = sincos.Terms(h, off).terms(bits)
            assert np.all(np.abs(r) <= sincos.R_MAX)
            got, special = h.eval(bits)
            assert not special.any()
            want = core.mpfr_f32(getattr(gmpy2, fn), bits)
            assert np.array_equal(got.view(np.uint32), want.view(np.uint32))
            with gmpy2.context(precision=200):
                f = getattr(gmpy2, fn)
                for i in range(0, bits.size, 97):  # A cos r + B sin r ~ f(x)
                    x = gmpy2.mpfr(float(bits[i:i + 1].view(np.float32)[0]))
                    approx = a[i] * gmpy2.cos(gmpy2.mpfr(r[i])) + b[i] * gmpy2.sin(gmpy2.mpfr(r[i]))
                    assert abs(approx - f(x)) < 2.0 ** -48
        finally:
            h.close()


def test_tanh_committed_polynomial_checks_clean_on_a_stride():
    """The generator's harness (committed tanh_poly.h, tanh.h's single fast path) against
    the libm/MPFR reference on every 61st input of the fitted range."""
    tanh = _load("tanh")
    h = core.Harness(tanh.spec(), committed=True)
    try:
        bad, _ = h.check(stride=61)
        assert bad.size == 0, [hex(b) for b in bad[:10]]
    finally:
        h.close()
