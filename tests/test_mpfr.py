"""Sampled comparison with MPFR, per function and CPU path (contract §1).

Input sets: random bit patterns, each function's interesting range, subnormals,
the exact thresholds (found with MPFR below) and their neighbours, huge
arguments, and every input in tests/data/hard_inputs_<f>.txt.
"""
import functools
import pathlib
import re

import gmpy2
import numpy as np
import pytest

import crlibm_py
from crlibm_cases import RANGES, THRESHOLDS
from helpers import FUNCTIONS, apply, assert_same_bits
from mpfr_ref import find_transition, ref_bits

DATA = pathlib.Path(__file__).parent / "data"
HARD_LINE = re.compile(r"0x[0-9a-fA-F]{8}(\s+#.*)?")
N_RANDOM = 20000
N_RANGE = 5000


def _bits(v):
    return int(np.float32(v).view(np.uint32))


def _seed(fname, tag):
    return [FUNCTIONS.index(fname), sum(map(ord, tag))]


def _random_magnitudes(rng, n, lo, hi, signed=True):
    """n floats with bit patterns uniform in [bits(lo), bits(hi)], random sign if signed."""
    b = rng.integers(_bits(lo), _bits(hi), n, dtype=np.uint32, endpoint=True)
    if signed:
        b |= rng.integers(0, 2, n, dtype=np.uint32) << np.uint32(31)
    return b


# RANGES (where each function does its real work) and THRESHOLDS (where its result
# changes regime) are each function's declarations in tests/crlibm_cases.py.
def _pred_on_bits(fname, test):
    return lambda b: test(int(ref_bits(fname, np.uint32(b).view(np.float32))), b)


@functools.lru_cache(maxsize=None)
def threshold_floats(fname):
    """{what: bits of the first float (by magnitude) where the result changes regime}."""
    found = {}
    for what, test, lo, hi in THRESHOLDS[fname]:
        pred = _pred_on_bits(fname, test)
        b = find_transition(pred, _bits(lo), _bits(hi))
        assert pred(b) and not pred(b - 1), what
        found[what] = b
    return found


def threshold_points(fname):
    """Each threshold float with 8 neighbours on either side, and their negatives."""
    pts = np.concatenate([np.arange(b - 8, b + 9) for b in threshold_floats(fname).values()])
    pts = pts.astype(np.uint32)
    return np.concatenate([pts, pts ^ np.uint32(0x80000000)]).view(np.float32)


def _near(values, k=4):
    """Each value and its k float neighbours on either side, both signs."""
    b = np.concatenate([np.arange(_bits(v) - k, _bits(v) + k + 1) for v in values])
    b = b.astype(np.uint32)
    return np.concatenate([b, b ^ np.uint32(0x80000000)])


def _huge(fname):
    rng = np.random.default_rng(_seed(fname, "huge"))
    rand = _random_magnitudes(rng, 3000, 2.0 ** 20, 3.4028234663852886e38)
    pow2 = _near([2.0 ** k for k in range(20, 128)], k=2)
    top = np.arange(0x7F7FFFFF - 64, 0x7F7FFFFF + 1, dtype=np.uint32)
    return np.concatenate([rand, pow2, top, top | np.uint32(0x80000000)])


def _near_multiples_of_half_pi():
    """Floats nearest to k*pi/2, k = 1..2000, and their neighbours (sin/cos reduction)."""
    with gmpy2.context(precision=200):
        vals = [float(gmpy2.const_pi() * k / 2) for k in range(1, 2001)]
    return _near(vals, k=1)


@functools.lru_cache(maxsize=None)
def input_set(fname, kind):
    if kind == "random":
        rng = np.random.default_rng(_seed(fname, kind))
        b = rng.integers(0, 2 ** 32, N_RANDOM, dtype=np.uint64).astype(np.uint32)
    elif kind == "range":
        lo, hi, signed = RANGES[fname]
        b = _random_magnitudes(np.random.default_rng(_seed(fname, kind)), N_RANGE, lo, hi, signed)
    elif kind == "subnormal":
        rng = np.random.default_rng(_seed(fname, kind))
        edges = np.array([1, 2, 3, 4, 5, 0x10, 0x400000, 0x3FFFFF, 0x7FFFFE, 0x7FFFFF, 0x800000,
                          0x800001], dtype=np.uint32)
        b = np.concatenate([edges, rng.integers(1, 0x800000, 2000, dtype=np.uint32)])
        b = np.concatenate([b, b | np.uint32(0x80000000)])
    elif kind == "threshold":
        return threshold_points(fname)
    elif kind == "huge":
        b = _huge(fname)
        if fname in ("sin", "cos"):
            b = np.concatenate([b, _near_multiples_of_half_pi()])
    elif kind == "near_one":
        b = _near([1.0, 2.0, 0.5, 4.0, np.e, 3.0], k=64)
    else:
        raise ValueError(kind)
    return b.view(np.float32)


KINDS = ("random", "range", "subnormal", "threshold", "huge", "near_one")


@pytest.mark.parametrize("kind", KINDS)
def test_matches_mpfr(fname, isa, kind):
    x = input_set(fname, kind)
    assert x.size > 0
    assert_same_bits(apply(fname, isa, x), ref_bits(fname, x), x, f"{fname} on {isa} ({kind})")


def test_public_api_matches_mpfr(fname, use_isa):
    x = input_set(fname, "random")
    y = getattr(crlibm_py, fname)(x)
    assert y.dtype == np.float32
    assert_same_bits(y, ref_bits(fname, x), x, f"crlibm_py.{fname} on {use_isa}")


def test_thresholds_found(fname):
    """The bisections find a real boundary for every function (never an empty set)."""
    assert len(THRESHOLDS[fname]) >= 1
    assert threshold_points(fname).size >= 34


def test_exp_thresholds_are_the_known_floats():
    """Cross-check of the bisection against values derived by hand."""
    t = threshold_floats("exp")
    assert t["overflow"] == 0x42B17218  # 88.72284 > 128 ln 2 > its predecessor
    # exp(2^-24) = 1 + 2^-24 + 2^-49 + ... lies above the midpoint 1 + 2^-24, while
    # the float below 2^-24 gives 1 + 2^-24 - 2^-49 + ..., below it.
    assert t["exp(x) > 1, x > 0"] == 0x33800000


# ---- hard inputs files --------------------------------------------------------------

def hard_input_files():
    return sorted(DATA.glob("hard_inputs_*.txt"))


def parse_hard_inputs(path):
    """Bit patterns of a hard-inputs file; raises ValueError naming each bad line.
    Lines are `0x<8 hex digits>` with an optional `# comment`; blank lines and
    whole-line comments are allowed."""
    bits, errors = [], []
    for no, line in enumerate(path.read_text().splitlines(), 1):
        s = line.strip()
        if not s or s.startswith("#"):
            continue
        if not HARD_LINE.fullmatch(s):
            errors.append(f"{path.name}:{no}: {line!r}")
            continue
        bits.append(int(s[2:10], 16))
    if errors:
        raise ValueError("malformed hard-input lines (want '0x<8 hex digits>  # comment'):\n"
                         + "\n".join(errors))
    if not bits:
        raise ValueError(f"{path.name}: no inputs")
    return np.array(bits, dtype=np.uint32)


def test_hard_input_files_are_well_formed():
    for path in hard_input_files():
        fname = path.stem[len("hard_inputs_"):]
        assert fname in FUNCTIONS, f"{path.name}: no function named {fname!r}"
        parse_hard_inputs(path)


def test_hard_input_parser_rejects_malformed(tmp_path):
    good = tmp_path / "good.txt"
    good.write_text("# header\n0x3f800000  # one\n\n0x00000001\n")
    assert list(parse_hard_inputs(good)) == [0x3F800000, 1]
    for bad in ("0x3f80000  # 7 digits\n", "3f800000\n", "0x3f800000 junk\n",
                "0x3f8000001\n", "1.0\n", "# only comments\n"):
        p = tmp_path / "bad.txt"
        p.write_text(bad)
        with pytest.raises(ValueError):
            parse_hard_inputs(p)


def test_hard_inputs(fname, isa):
    path = DATA / f"hard_inputs_{fname}.txt"
    if not path.exists():
        pytest.skip(f"needs tests/data/{path.name}, the hardest inputs (written by "
                    f"core.hardest_inputs of tools/polygen: docs/polygen.md)")
    x = parse_hard_inputs(path).view(np.float32)
    assert_same_bits(apply(fname, isa, x), ref_bits(fname, x), x, f"{fname} on {isa} ({path.name})")
