"""NumPy ufunc behaviour of the public functions and input checking (contract §4)."""
import numpy as np
import pytest

import crlibm_py
from helpers import ISAS, SUPPORTED_ISAS
from mpfr_ref import ref_bits

VALUES = np.array([0.5, 1.0, 2.0, -0.75, 3.0, 0.125, 10.0, -2.5], dtype=np.float32)


def _bits(a):
    return np.asarray(a, dtype=np.float32).view(np.uint32)


def _expected(fname, x):
    return ref_bits(fname, np.asarray(x, dtype=np.float32))


def test_names(fname):
    assert crlibm_py.ufuncs[fname].__name__ == f"cr_{fname}"
    assert getattr(crlibm_py, fname).__name__ == fname
    assert isinstance(crlibm_py.ufuncs[fname], np.ufunc)
    assert fname in crlibm_py.FUNCTIONS


def test_ufunc_is_float32_only(fname):
    u = crlibm_py.ufuncs[fname]
    f4 = np.dtype(np.float32)
    assert u.nin == 1 and u.nout == 1
    assert u.resolve_dtypes((f4, None)) == (f4, f4)
    for safe in (np.bool_, np.int8, np.uint16, np.float16):  # cast safely to float32
        assert u.resolve_dtypes((np.dtype(safe), None)) == (f4, f4)
        assert u(np.ones(2, safe)).dtype == f4
    with pytest.raises(TypeError, match=r"not float64: cast the input to float32"):
        u(VALUES.astype(np.float64))
    with pytest.raises(TypeError, match=r"not int32: cast the input to float32"):
        u(np.ones(2, np.int32))
    with pytest.raises(TypeError, match=r"float32 loop only \(dtype or signature asks for float64"):
        u(VALUES, dtype=np.float64)
    with pytest.raises(TypeError, match=r"float32 loop only"):
        u(VALUES, signature="d->d")
    # an explicit float32 signature casts as `casting` allows, as for NumPy's ufuncs
    assert u(VALUES.astype(np.float64), dtype=np.float32).dtype == f4


def test_raw_ufunc_reads_isa_env_per_call(fname, monkeypatch):
    """The raw ufunc takes CRLIBM_ISA when NumPy sets up each call (with the GIL held),
    also for inputs promoted to float32; its loop never reads the environment."""
    u = crlibm_py.ufuncs[fname]
    for isa in SUPPORTED_ISAS:
        monkeypatch.setenv("CRLIBM_ISA", isa)
        for x in (VALUES, VALUES[::2], np.arange(3, dtype=np.int8)):
            u(x)
            assert crlibm_py._ufuncs.last_loop_isa() == isa
    monkeypatch.setenv("CRLIBM_ISA", "")
    u(VALUES)
    assert crlibm_py._ufuncs.last_loop_isa() == crlibm_py.best_isa()


def test_out(fname, use_isa):
    f = getattr(crlibm_py, fname)
    out = np.empty_like(VALUES)
    r = f(VALUES, out=out)
    assert r is out
    assert np.array_equal(_bits(out), _expected(fname, VALUES))
    out2 = np.empty_like(VALUES)
    r = f(VALUES, out=(out2,))
    assert np.array_equal(_bits(out2), _expected(fname, VALUES))


def test_where(fname, use_isa):
    f = getattr(crlibm_py, fname)
    mask = np.array([True, False] * 4)
    out = np.full_like(VALUES, 42.0)
    f(VALUES, out=out, where=mask)
    assert np.array_equal(_bits(out)[mask], _expected(fname, VALUES)[mask])
    assert np.all(out[~mask] == 42.0)


def test_broadcasting(fname, use_isa):
    f = getattr(crlibm_py, fname)
    col = VALUES[:4].reshape(4, 1)
    out = np.empty((4, 5), dtype=np.float32)
    f(col, out=out)
    assert np.array_equal(_bits(out), np.broadcast_to(_expected(fname, col), (4, 5)))
    mask = np.array([True, False, True, True, False])
    out = np.zeros((4, 5), dtype=np.float32)
    f(col, out=out, where=mask)
    assert np.array_equal(_bits(out[:, mask]), np.broadcast_to(_expected(fname, col), (4, 3)))
    assert np.all(out[:, ~mask] == 0)


def test_shapes_preserved(fname):
    f = getattr(crlibm_py, fname)
    x = np.linspace(0.1, 2, 24, dtype=np.float32).reshape(2, 3, 4)
    y = f(x)
    assert y.shape == x.shape and y.dtype == np.float32
    assert np.array_equal(_bits(y), _expected(fname, x))


def test_zero_dim_and_scalars(fname):
    f = getattr(crlibm_py, fname)
    x = np.float32(0.5)
    expected = _expected(fname, x)
    y = f(x)
    assert type(y) is np.float32 and _bits(y) == expected
    y = f(np.array(0.5, dtype=np.float32))
    assert np.ndim(y) == 0 and y.dtype == np.float32 and _bits(y) == expected
    out = np.zeros((), dtype=np.float32)
    f(np.array(0.5, dtype=np.float32), out=out)
    assert _bits(out) == expected


@pytest.mark.parametrize("shape", [(0,), (0, 3), (3, 0)])
def test_empty(fname, shape):
    y = getattr(crlibm_py, fname)(np.empty(shape, dtype=np.float32))
    assert y.shape == shape and y.dtype == np.float32


@pytest.mark.parametrize("value", [0.5, -0.0, 1.0, 2.0 ** -149, 3.4028234663852886e38, 3,
                                   -16777216, 2 ** 100, float("inf"), float("nan")])
def test_exact_python_scalars_accepted(fname, value):
    y = getattr(crlibm_py, fname)(value)
    assert type(y) is np.float32
    assert _bits(y) == _expected(fname, np.float32(value))


@pytest.mark.parametrize("value", [0.1, 1.0 + 2.0 ** -30, 1e-50, 1e300, 3.4028236e38,
                                   2 ** 24 + 1, -(2 ** 24 + 1), 2 ** 128, 10 ** 400,
                                   np.float64(0.1)])
def test_inexact_python_scalars_rejected(fname, value):
    with pytest.raises(TypeError, match="float32"):
        getattr(crlibm_py, fname)(value)


def test_huge_int_message_is_short(fname):
    with pytest.raises(TypeError, match="an int of 16610 bits") as info:
        getattr(crlibm_py, fname)(10 ** 5000)
    assert len(str(info.value)) < 200


@pytest.mark.parametrize("value", [np.float64(0.5), np.array(0.5), np.int64(2)])
def test_numpy_scalars_judged_by_dtype(fname, value):
    """NumPy scalars follow their dtype like arrays, whatever their value."""
    with pytest.raises(TypeError, match="cast it explicitly"):
        getattr(crlibm_py, fname)(value)


def test_non_native_byte_order_accepted(fname):
    x = np.array([0.5, -3.0, 100.0], dtype=">f4")
    y = getattr(crlibm_py, fname)(x)
    assert np.array_equal(_bits(y), _expected(fname, x.astype(np.float32)))


@pytest.mark.parametrize("dtype", [np.float64, np.float16])
def test_out_of_another_dtype_rejected(fname, dtype):
    out = np.empty(3, dtype=dtype)
    with pytest.raises(TypeError, match="out must be a float32 array"):
        getattr(crlibm_py, fname)(np.ones(3, np.float32), out=out)
    with pytest.raises(TypeError, match="out must be a float32 array"):
        getattr(crlibm_py, fname)(np.ones(3, np.float32), out=(out,))


@pytest.mark.parametrize("value", [[0.5, 2.0, -0.0], (1.0, 0.25), [3, -4, 2 ** 24],
                                   [np.float32(0.1), np.float32(7)], [[0.5], [1.5]],
                                   [2.0 ** -149, 2.0 ** 127], [2 ** 70, -(2 ** 64), 0.5],
                                   [[2 ** 100], [3]]])
def test_exact_lists_accepted(fname, value):
    y = getattr(crlibm_py, fname)(value)
    x = np.array(value, dtype=np.float64).astype(np.float32)
    assert isinstance(y, np.ndarray) and y.dtype == np.float32 and y.shape == x.shape
    assert np.array_equal(_bits(y), _expected(fname, x))


@pytest.mark.parametrize("value", [[0.1], (0.5, 1e-50), [2 ** 24 + 1], [1e300], [1 + 2j],
                                   ["1.0"], [2 ** 70 + 1], [2 ** 70, 0.1], [2 ** 128],
                                   [2 ** 70, None]])
def test_inexact_lists_rejected(fname, value):
    with pytest.raises(TypeError):
        getattr(crlibm_py, fname)(value)


def test_float64_array_rejected_naming_the_fix(fname):
    f = getattr(crlibm_py, fname)
    for x in (np.array([0.5, 1.0]), np.array(0.5), np.zeros((2, 2))):
        with pytest.raises(TypeError, match=r"astype\(np\.float32\)"):
            f(x)


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint32, np.uint64, np.complex64,
                                   np.complex128, np.float64, np.longdouble])
def test_rounding_dtypes_rejected(fname, dtype):
    with pytest.raises(TypeError):
        getattr(crlibm_py, fname)(np.ones(3, dtype=dtype))


@pytest.mark.parametrize("dtype", [np.float16, np.int16, np.uint16, np.int8, np.uint8, np.bool_])
def test_exact_dtypes_accepted(fname, dtype):
    x = np.array([0, 1, 3, 2, 1], dtype=dtype)
    y = getattr(crlibm_py, fname)(x)
    assert y.dtype == np.float32
    assert np.array_equal(_bits(y), _expected(fname, x.astype(np.float32)))


def test_float16_values(fname):
    x = np.array([0.1, -2.5, 65504.0, 6e-8, np.inf, -0.0], dtype=np.float16)
    y = getattr(crlibm_py, fname)(x)
    assert np.array_equal(_bits(y), _expected(fname, x.astype(np.float32)))


def test_bad_isa_env_names_valid_paths(fname, monkeypatch):
    monkeypatch.setenv("CRLIBM_ISA", "sse9")
    with pytest.raises(ValueError) as info:
        getattr(crlibm_py, fname)(VALUES)
    for name in ISAS:
        assert name in str(info.value)


def test_unsupported_isa_env_is_clear_error(fname, monkeypatch):
    missing = [i for i in ISAS if i not in SUPPORTED_ISAS]
    if not missing:
        pytest.skip("needs a CPU that lacks a path (avx2 or avx512): this one has them all, so "
                    "no missing path can be asked for")
    monkeypatch.setenv("CRLIBM_ISA", missing[0])
    with pytest.raises(RuntimeError, match=missing[0]):
        getattr(crlibm_py, fname)(VALUES)


def test_isa_env_read_at_call_time(fname, monkeypatch):
    f = getattr(crlibm_py, fname)
    for isa in SUPPORTED_ISAS:
        monkeypatch.setenv("CRLIBM_ISA", isa)
        assert np.array_equal(_bits(f(VALUES)), _expected(fname, VALUES))
    monkeypatch.setenv("CRLIBM_ISA", "")
    assert np.array_equal(_bits(f(VALUES)), _expected(fname, VALUES))


def test_isa_queries():
    assert list(crlibm_py.isa_names()) == ["scalar", "avx2", "avx512"]
    assert crlibm_py.isa_supported("scalar")
    assert not crlibm_py.isa_supported("sse9")
    assert crlibm_py.best_isa() in crlibm_py.isa_names()
