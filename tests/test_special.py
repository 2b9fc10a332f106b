"""Contract §1 special-value table, canonical NaN, signed zeros: bit for bit, every path."""
import numpy as np
import pytest

import crlibm_py
from crlibm_cases import (DOMAIN_ERROR_BELOW_ZERO, NAN, NEG_INF, NEG_ZERO, POS_INF, POS_ZERO,
                          SPECIALS)
from helpers import FUNCTIONS, apply, assert_same_bits
from mpfr_ref import mpfr_bits, ref_bits

# Contract §1, columns NaN, +inf, -inf, +0, -0 (result bit patterns): tests/crlibm_cases.py.
TABLE = SPECIALS
SPECIAL_INPUTS = (0x7FC00000, POS_INF, NEG_INF, POS_ZERO, NEG_ZERO)

# Quiet and signalling NaNs of both signs, with and without payloads.
NAN_INPUTS = (0x7FC00000, 0xFFC00000, 0x7FC00001, 0x7FC12345, 0x7FFFFFFF, 0xFFFFFFFF,
              0x7F800001, 0x7FA00000, 0x7FBFFFFF, 0xFF800001, 0xFFBFFFFF, 0xFFD55555)

# x < 0 (domain error of log and rsqrt): subnormal, normal, largest.
NEGATIVE_INPUTS = (0x80000001, 0x807FFFFF, 0x80800000, 0xBF800000, 0xBF800001, 0xC2C80000,
                   0xFF7FFFFF)


def test_table_covers_every_function():
    assert set(TABLE) == set(FUNCTIONS)


def _in_every_lane(bits, length=19):
    """Arrays holding `bits` at each position 0..length-1 among ordinary inputs,
    so the special lane meets every SIMD lane position and the array tail."""
    filler = np.float32(0.75).view(np.uint32)
    for pos in range(length):
        a = np.full(length, filler, dtype=np.uint32)
        a[pos] = bits
        yield pos, a.view(np.float32)


@pytest.mark.parametrize("col", range(5), ids=["nan", "+inf", "-inf", "+0", "-0"])
def test_special_table(fname, isa, col):
    x_bits, expected = SPECIAL_INPUTS[col], TABLE[fname][col]
    filler_result = apply(fname, isa, np.float32([0.75]))[0]
    for pos, x in _in_every_lane(x_bits):
        y = apply(fname, isa, x).view(np.uint32)
        assert y[pos] == expected, (
            f"{fname}(0x{x_bits:08x}) at lane {pos} on {isa}: 0x{y[pos]:08x} != 0x{expected:08x}")
        others = np.delete(y, pos)
        assert np.all(others == filler_result.view(np.uint32)), "a special lane disturbed others"


def test_table_agrees_with_mpfr_except_rsqrt_minus_zero(fname):
    """The table is IEEE-754 §9.2 / MPFR, with the one exception in the contract, which the
    reference (ref_bits) applies."""
    mpfr = [mpfr_bits(fname, b) for b in SPECIAL_INPUTS]
    table = list(TABLE[fname])
    if fname == "rsqrt":
        assert mpfr[4] == POS_INF and table[4] == NEG_INF
        mpfr[4] = NEG_INF
    assert mpfr == table
    assert list(ref_bits(fname, np.uint32(SPECIAL_INPUTS).view(np.float32))) == table


def test_nan_inputs_give_canonical_nan(fname, isa):
    x = np.array(NAN_INPUTS, dtype=np.uint32).view(np.float32)
    assert_same_bits(apply(fname, isa, x), np.full(x.size, NAN), x, f"{fname} on {isa}")


def test_nan_inputs_public_api(fname, use_isa):
    x = np.array(NAN_INPUTS, dtype=np.uint32).view(np.float32)
    f = getattr(crlibm_py, fname)
    assert_same_bits(f(x), np.full(x.size, NAN), x, f"crlibm_py.{fname}")
    for b in NAN_INPUTS:
        y = f(np.uint32(b).view(np.float32))
        assert isinstance(y, np.float32) and y.view(np.uint32) == NAN


@pytest.mark.parametrize("fname_dom", DOMAIN_ERROR_BELOW_ZERO)
def test_domain_error_is_canonical_nan(fname_dom, isa):
    x = np.array(NEGATIVE_INPUTS, dtype=np.uint32).view(np.float32)
    assert_same_bits(apply(fname_dom, isa, x), np.full(x.size, NAN), x, f"{fname_dom} on {isa}")


def test_signed_zeros_and_ones_by_bits(fname, isa):
    """Every NaN output is canonical and every zero has the right sign, compared with
    MPFR, on small and subnormal inputs of both signs where the sign matters."""
    bits = np.array([0x00000001, 0x80000001, 0x00000002, 0x80000002, 0x00800000, 0x80800000,
                     0x33800000, 0xB3800000, 0x3F800000, 0xBF800000], dtype=np.uint32)
    x = bits.view(np.float32)
    assert_same_bits(apply(fname, isa, x), ref_bits(fname, x), x, f"{fname} on {isa}")
