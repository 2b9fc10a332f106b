"""rot, rotm, rotg, rotmg, swap, copy, sdsdot, dsdot (docs/contract.md §3.5): the Python functions
against the formulas, against the drop-in library's C code bit for bit, and against SciPy's
reference-BLAS results where the contract says they are the same computation."""
import ctypes

import numpy as np
import pytest
import scipy.linalg.blas as sb

import reproblas

F32, F64 = np.float32, np.float64
LIB = ctypes.CDLL(reproblas.get_blas_library())
_INT = ctypes.POINTER(ctypes.c_int)


def _p(a):
    return a.ctypes.data_as(ctypes.c_void_p)


def _i(v):
    return ctypes.byref(ctypes.c_int(v))


def c_rot(x, y, c, s):
    x, y = x.copy(), y.copy()
    t = "s" if x.dtype == F32 else "d"
    cc, ss = np.array([c], x.dtype), np.array([s], x.dtype)
    getattr(LIB, f"{t}rot_")(_i(len(x)), _p(x), _i(1), _p(y), _i(1), _p(cc), _p(ss))
    return x, y


def c_rotm(x, y, param):
    x, y = x.copy(), y.copy()
    t = "s" if x.dtype == F32 else "d"
    p = np.asarray(param, x.dtype)
    getattr(LIB, f"{t}rotm_")(_i(len(x)), _p(x), _i(1), _p(y), _i(1), _p(p))
    return x, y


def c_rotg(a, b, dt):
    v = np.array([a, b, 0, 0], dt)
    t = "s" if dt == F32 else "d"
    getattr(LIB, f"{t}rotg_")(_p(v[0:]), _p(v[1:]), _p(v[2:]), _p(v[3:]))
    return v[2], v[3]


def c_rotmg(d1, d2, x1, y1, dt):
    v = np.array([d1, d2, x1, y1], dt)
    p = np.zeros(5, dt)
    t = "s" if dt == F32 else "d"
    getattr(LIB, f"{t}rotmg_")(_p(v[0:]), _p(v[1:]), _p(v[2:]), _p(v[3:]), _p(p))
    return p


def c_dsdot(x, y, sb_=None):
    if sb_ is None:
        LIB.dsdot_.restype = ctypes.c_double
        return F64(LIB.dsdot_(_i(len(x)), _p(x), _i(1), _p(y), _i(1)))
    LIB.sdsdot_.restype = ctypes.c_float
    s = np.array([sb_], F32)
    return F32(LIB.sdsdot_(_i(len(x)), _p(s), _p(x), _i(1), _p(y), _i(1)))


def bits(a):
    a = np.asarray(a)
    return a.view(np.uint32 if a.dtype == F32 else np.uint64)


RNG = np.random.default_rng(31)


def vectors(n, dt):
    x = (RNG.standard_normal(n) * 10.0 ** RNG.integers(-5, 5, n)).astype(dt)
    y = (RNG.standard_normal(n) * 10.0 ** RNG.integers(-5, 5, n)).astype(dt)
    return x, y


@pytest.mark.parametrize("dt", [F32, F64])
def test_rot_is_the_formula_and_the_c_code(dt):
    x, y = vectors(1000, dt)
    c, s = dt(0.6), dt(0.8)
    rx, ry = reproblas.rot(x, y, c, s)
    np.testing.assert_array_equal(bits(rx), bits(c * x + s * y))
    np.testing.assert_array_equal(bits(ry), bits(c * y - s * x))
    cx, cy = c_rot(x, y, c, s)
    np.testing.assert_array_equal(bits(rx), bits(cx))
    np.testing.assert_array_equal(bits(ry), bits(cy))
    # scipy's reference BLAS may fuse; the values agree to rounding
    f = getattr(sb, ("s" if dt == F32 else "d") + "rot")
    ex, ey = f(x.copy(), y.copy(), c, s)
    np.testing.assert_allclose(rx, ex, rtol=1e-5 if dt == F32 else 1e-12, atol=1e-30)


def test_rot_overwrite_and_strides():
    x, y = vectors(20, F64)
    xs, ys = x.copy(), y.copy()
    rx, ry = reproblas.rot(xs[::2], ys[1::2], 0.5, -0.25, overwrite_x=True, overwrite_y=True)
    assert np.shares_memory(rx, xs) and np.shares_memory(ry, ys)
    np.testing.assert_array_equal(xs[::2], 0.5 * x[::2] + -0.25 * y[1::2])
    np.testing.assert_array_equal(ys[1::2], 0.5 * y[1::2] - -0.25 * x[::2])
    np.testing.assert_array_equal(xs[1::2], x[1::2])  # untouched
    rx, ry = reproblas.rot(x, y, 1.0, 0.0)
    assert not np.shares_memory(rx, x)


@pytest.mark.parametrize("dt", [F32, F64])
@pytest.mark.parametrize("flag", [-2.0, -1.0, 0.0, 1.0])
def test_rotm_flags_match_the_c_code(dt, flag):
    x, y = vectors(257, dt)
    param = [flag, 0.5, -1.25, 2.0, 0.75]
    rx, ry = reproblas.rotm(x, y, param)
    cx, cy = c_rotm(x, y, param)
    np.testing.assert_array_equal(bits(rx), bits(cx))
    np.testing.assert_array_equal(bits(ry), bits(cy))
    if flag == -2:
        np.testing.assert_array_equal(rx, x)
    if flag == -1:
        h11, h21, h12, h22 = (dt(v) for v in param[1:])
        np.testing.assert_array_equal(bits(rx), bits(x * h11 + y * h12))
        np.testing.assert_array_equal(bits(ry), bits(x * h21 + y * h22))
    f = getattr(sb, ("s" if dt == F32 else "d") + "rotm")
    ex, ey = f(x.copy(), y.copy(), np.asarray(param, dt))
    np.testing.assert_allclose(ry, ey, rtol=1e-5 if dt == F32 else 1e-12, atol=1e-30)


CASES = [(3.0, 4.0), (-3.0, 4.0), (4.0, -3.0), (0.0, 2.0), (2.0, 0.0), (0.0, 0.0), (1e-30, 1e-31),
         (1e30, -3e30), (5e-310, 1e-310), (1.0, 1.0), (-1.0, -1.0), (7.25, 1e-8)]


@pytest.mark.parametrize("dt", [F32, F64])
@pytest.mark.parametrize("a, b", CASES)
def test_rotg_matches_c_and_reference(dt, a, b):
    c, s = reproblas.rotg(dt(a), dt(b))
    assert type(c) is dt and type(s) is dt
    cc, cs = c_rotg(a, b, dt)
    assert bits(c) == bits(cc) and bits(s) == bits(cs)
    if 0 < max(abs(a), abs(b)) < np.finfo(dt).tiny:
        return  # the reference algorithm's r is then subnormal; SciPy's OpenBLAS scales up
    ec, es = getattr(sb, ("s" if dt == F32 else "d") + "rotg")(dt(a), dt(b))
    np.testing.assert_allclose([c, s], [ec, es], rtol=4 * np.finfo(dt).eps, atol=0)


def test_rotg_python_floats_are_float64():
    c, s = reproblas.rotg(3.0, 4.0)
    assert type(c) is F64 and (c, s) == (0.6, 0.8)
    with pytest.raises(TypeError):
        reproblas.rotg(F32(1), F64(1))
    with pytest.raises(TypeError):
        reproblas.rotg("1", 2.0)


ROTMG = [(1.0, 1.0, 1.0, 1.0), (2.0, 3.0, 0.5, -4.0), (-1.0, 1.0, 1.0, 1.0), (1.0, 0.0, 1.0, 1.0),
         (1e-10, 1.0, 3.0, 1e-3), (1e9, 2.0, 1e-4, 5.0), (4.0, -2.0, 1.0, 3.0), (0.25, 1e8, 2.0, 1e-6),
         (5.0, 1e-9, 1.0, 3.0), (1.0, 5e10, 2e-3, 0.5)]


@pytest.mark.parametrize("dt", [F32, F64])
@pytest.mark.parametrize("args", ROTMG)
def test_rotmg_matches_c_and_reference(dt, args):
    p = reproblas.rotmg(*(dt(v) for v in args))
    assert p.dtype == dt
    cp = c_rotmg(*args, dt)
    np.testing.assert_array_equal(bits(p), bits(cp))
    ep = getattr(sb, ("s" if dt == F32 else "d") + "rotmg")(*(dt(v) for v in args))
    flag = ep[0]
    assert p[0] == flag
    # the positions the flag makes explicit agree with the reference
    keep = {-1.0: [1, 2, 3, 4], 0.0: [2, 3], 1.0: [1, 4], -2.0: []}[float(flag)]
    np.testing.assert_allclose(p[keep], ep[keep], rtol=8 * np.finfo(dt).eps)


def test_rotmg_infinite_d_stops():
    p = reproblas.rotmg(np.inf, 1.0, 1.0, 1.0)
    assert p.shape == (5,)
    cp = c_rotmg(np.inf, 1.0, 1.0, 1.0, F64)  # returns (the reference would loop forever)
    np.testing.assert_array_equal(bits(p), bits(cp))


def test_swap_and_copy_in_place():
    x, y = vectors(9, F32)
    x0, y0 = x.copy(), y.copy()
    rx, ry = reproblas.swap(x, y)
    assert rx is x and ry is y
    np.testing.assert_array_equal(x, y0)
    np.testing.assert_array_equal(y, x0)
    z = np.zeros(18, F32)
    assert reproblas.copy(x, z[::2]).base is z
    np.testing.assert_array_equal(z[::2], y0)
    with pytest.raises(ValueError):
        reproblas.copy(x, np.zeros(8, F32))
    ro = np.zeros(9, F32)
    ro.flags.writeable = False
    with pytest.raises(ValueError):
        reproblas.swap(x, ro)
    with pytest.raises(TypeError):
        reproblas.copy(x, np.zeros(9, F64))


@pytest.mark.parametrize("order", ["sequential", "pairwise"])
@pytest.mark.parametrize("n", [0, 1, 2, 7, 100, 4097])
def test_dsdot_is_float64_dot_of_widened(order, n, monkeypatch):
    x, y = vectors(n, F32)
    r = reproblas.dsdot(x, y, order)
    assert type(r) is F64
    assert bits(r) == bits(reproblas.dot(x.astype(F64), y.astype(F64), order))
    monkeypatch.setenv("REPROBLAS_ORDER", order)
    assert bits(r) == bits(c_dsdot(x, y))


@pytest.mark.parametrize("order", ["sequential", "pairwise"])
@pytest.mark.parametrize("n", [0, 1, 3, 100, 4097])
def test_sdsdot_terms_start_with_sb(order, n, monkeypatch):
    x, y = vectors(n, F32)
    sb_ = F32(0.3)
    r = reproblas.sdsdot(x, y, sb_, order)
    assert type(r) is F32
    want = reproblas.dot(np.r_[F64(sb_), x.astype(F64)], np.r_[1.0, y.astype(F64)], order)
    assert bits(r) == bits(F32(want))
    monkeypatch.setenv("REPROBLAS_ORDER", order)
    assert bits(r) == bits(c_dsdot(x, y, sb_))
    if order == "sequential":  # the reference BLAS's loop, written out
        acc = F64(sb_)
        for a, b in zip(x.astype(F64), y.astype(F64)):
            acc = acc + a * b
        assert bits(r) == bits(F32(acc))
    if n == 0:
        assert r == sb_


def test_sdsdot_orders_differ_and_validate():
    # terms 1, 2^53, 1, -2^53: sequential rounds both 1s away (ties to even), pairwise keeps one
    x = np.array([2.0**53, 1.0, -(2.0**53)], F32)
    y = np.ones(3, F32)
    assert reproblas.sdsdot(x, y, 1.0) == 0.0
    assert reproblas.sdsdot(x, y, 1.0, "pairwise") == 1.0
    with pytest.raises(TypeError):
        reproblas.dsdot(np.ones(3), np.ones(3))
    with pytest.raises(ValueError):
        reproblas.dsdot(np.ones(3, F32), np.ones(3, F32), "kahan")
    with pytest.raises(ValueError):
        reproblas.sdsdot(np.ones(3, F32), np.ones(2, F32))


# ---- dsdot/sdsdot against the executable definition, every path and thread count ----

@pytest.fixture(scope="module")
def ref(tmp_path_factory):
    import reference_lib
    d = tmp_path_factory.mktemp("reference")
    try:
        reference_lib.build(d)
    except (FileNotFoundError, RuntimeError) as e:
        pytest.skip(f"needs a C compiler to build the reference (src/c/order/reference.c): {e}")
    lib = ctypes.CDLL(str(d / "libreproblas_reference.so"))
    L, P, I = ctypes.c_int64, ctypes.c_void_p, ctypes.c_int
    lib.rb_ref_dsdot.restype = ctypes.c_double
    lib.rb_ref_dsdot.argtypes = [I, L, P, L, P, L]
    lib.rb_ref_sdsdot.restype = ctypes.c_float
    lib.rb_ref_sdsdot.argtypes = [I, L, ctypes.c_float, P, L, P, L]
    return lib


@pytest.mark.parametrize("order", ["sequential", "pairwise"])
def test_dsdot_sdsdot_are_the_reference_everywhere(ref, order, monkeypatch):
    from helpers import SUPPORTED_ISAS
    code = {"sequential": 0, "pairwise": 1}[order]
    for n in (0, 1, 5, 1000, 70001):
        x, y = vectors(n, F32)
        want_d = F64(ref.rb_ref_dsdot(code, n, x.ctypes.data, 1, y.ctypes.data, 1))
        want_s = F32(ref.rb_ref_sdsdot(code, n, F32(-2.5), x.ctypes.data, 1, y.ctypes.data, 1))
        for isa in SUPPORTED_ISAS:
            for threads in ("1", "2", "3"):
                monkeypatch.setenv("REPROBLAS_ISA", isa)
                monkeypatch.setenv("REPROBLAS_NUM_THREADS", threads)
                monkeypatch.setenv("REPROBLAS_ORDER", order)
                assert bits(reproblas.dsdot(x, y, order)) == bits(want_d)
                assert bits(reproblas.sdsdot(x, y, -2.5, order)) == bits(want_s)
                assert bits(c_dsdot(x, y)) == bits(want_d)
                assert bits(c_dsdot(x, y, F32(-2.5))) == bits(want_s)


def test_dsdot_sdsdot_on_emulated_gpu_arrays(monkeypatch):
    """GPU arrays run the (emulated) CUDA dot kernel on the widened vectors, same bits."""
    from cuda_support import EmuDevice, emu_array
    from repro_runtime import cuda as rt_cuda
    from reproblas import _cpu
    x, y = vectors(3001, F32)
    want = {o: (reproblas.dsdot(x, y, o), reproblas.sdsdot(x, y, 0.75, o))
            for o in ("sequential", "pairwise")}
    monkeypatch.setattr(rt_cuda, "_device", [EmuDevice()])
    monkeypatch.setattr(_cpu.BACKEND, "reduce", None)  # the CPU path must not run
    for order, (wd, ws) in want.items():
        got = reproblas.dsdot(emu_array(x), emu_array(y), order)
        assert got.shape == () and got.dtype == F64
        assert bits(got) == bits(wd)
        got = reproblas.sdsdot(emu_array(x), emu_array(y), 0.75, order)
        assert got.shape == () and got.dtype == F32
        assert bits(got) == bits(ws)


# ---- the C ABI entries (reproblas.h) ----

CAPI = ctypes.CDLL(str(__import__("pathlib").Path(reproblas.get_library_dir()) / "libreproblas.so"))
_L, _P = ctypes.c_int64, ctypes.c_void_p
for _t, _c in (("s", ctypes.c_float), ("d", ctypes.c_double)):
    getattr(CAPI, f"reproblas_{_t}rot").argtypes = [_L, _P, _L, _P, _L, _c, _c]
    getattr(CAPI, f"reproblas_{_t}rotm").argtypes = [_L, _P, _L, _P, _L, _P]
    getattr(CAPI, f"reproblas_{_t}swap").argtypes = [_L, _P, _L, _P, _L]
    getattr(CAPI, f"reproblas_{_t}copy").argtypes = [_L, _P, _L, _P, _L]
    getattr(CAPI, f"reproblas_{_t}rotg").argtypes = [_P, _P, _P, _P]
    getattr(CAPI, f"reproblas_{_t}rotmg").argtypes = [_P, _P, _P, _c, _P]
CAPI.reproblas_dsdot.argtypes = [_L, _P, _L, _P, _L, _P, ctypes.c_int]
CAPI.reproblas_sdsdot.argtypes = [_L, ctypes.c_float, _P, _L, _P, _L, _P, ctypes.c_int]


@pytest.mark.parametrize("dt", [F32, F64])
def test_capi_level1_entries(dt):
    t = "s" if dt == F32 else "d"
    x, y = vectors(50, dt)
    xs, ys = x.copy(), y.copy()
    assert getattr(CAPI, f"reproblas_{t}rot")(25, _p(xs), 2, _p(ys), -2, 0.6, 0.8) == 0
    # incy = -2 walks y backwards from its far end: element k is y[48 - 2k]
    yb = y[:49:2][::-1]
    wx, wy = reproblas.rot(x[::2], yb, dt(0.6), dt(0.8))
    np.testing.assert_array_equal(bits(xs[::2]), bits(wx))
    np.testing.assert_array_equal(bits(ys[:49:2][::-1]), bits(wy))
    param = np.array([-1.0, 0.5, 0.25, -2.0, 1.5], dt)
    xs, ys = x.copy(), y.copy()
    assert getattr(CAPI, f"reproblas_{t}rotm")(50, _p(xs), 1, _p(ys), 1, _p(param)) == 0
    wx, wy = reproblas.rotm(x, y, param)
    np.testing.assert_array_equal(bits(xs), bits(wx))
    np.testing.assert_array_equal(bits(ys), bits(wy))
    xs, ys = x.copy(), y.copy()
    assert getattr(CAPI, f"reproblas_{t}swap")(50, _p(xs), 1, _p(ys), 1) == 0
    assert (xs == y).all() and (ys == x).all()
    z = np.zeros(50, dt)
    assert getattr(CAPI, f"reproblas_{t}copy")(50, _p(x), 1, _p(z), 1) == 0
    assert (z == x).all()
    v = np.array([3.0, -4.0, 0, 0], dt)
    assert getattr(CAPI, f"reproblas_{t}rotg")(_p(v[0:]), _p(v[1:]), _p(v[2:]), _p(v[3:])) == 0
    assert (v[2], v[3]) == reproblas.rotg(dt(3.0), dt(-4.0))
    d = np.array([2.0, 3.0, 0.5], dt)
    p = np.zeros(5, dt)
    assert getattr(CAPI, f"reproblas_{t}rotmg")(_p(d[0:]), _p(d[1:]), _p(d[2:]), -4.0, _p(p)) == 0
    np.testing.assert_array_equal(bits(p), bits(reproblas.rotmg(dt(2.0), dt(3.0), dt(0.5),
                                                                dt(-4.0))))
    # LAPACK-style argument positions; nothing written
    xs = x.copy()
    assert getattr(CAPI, f"reproblas_{t}rot")(-1, _p(xs), 1, _p(ys), 1, 1.0, 0.0) == -1
    assert getattr(CAPI, f"reproblas_{t}swap")(5, _p(xs), 0, _p(ys), 1) == -3
    assert getattr(CAPI, f"reproblas_{t}copy")(5, _p(xs), 1, None, 1) == -4
    assert getattr(CAPI, f"reproblas_{t}rotm")(5, _p(xs), 1, _p(ys), 1, None) == -6
    assert getattr(CAPI, f"reproblas_{t}rotg")(_p(v), None, _p(v), _p(v)) == -2
    assert (xs == x).all()


@pytest.mark.parametrize("order", [0, 1])
def test_capi_dsdot_sdsdot(order, monkeypatch):
    x, y = vectors(333, F32)
    name = ["sequential", "pairwise"][order]
    r = np.zeros(1, F64)
    assert CAPI.reproblas_dsdot(333, _p(x), 1, _p(y), 1, _p(r), order) == 0
    assert bits(r[0]) == bits(reproblas.dsdot(x, y, name))
    r32 = np.zeros(1, F32)
    assert CAPI.reproblas_sdsdot(333, 1.5, _p(x), 1, _p(y), 1, _p(r32), order) == 0
    assert bits(r32[0]) == bits(reproblas.sdsdot(x, y, 1.5, name))
    assert CAPI.reproblas_sdsdot(333, 1.5, _p(x), 1, _p(y), 1, _p(r32), 7) == -8
    assert CAPI.reproblas_sdsdot(333, 1.5, _p(x), 0, _p(y), 1, _p(r32), 0) == -4
    assert CAPI.reproblas_sdsdot(-2, 1.5, _p(x), 1, _p(y), 1, _p(r32), 0) == -1
    assert CAPI.reproblas_dsdot(333, _p(x), 1, _p(y), 1, None, order) == -6
    assert CAPI.reproblas_sdsdot(0, 1.5, _p(x), 1, _p(y), 1, _p(r32), 0) == 0 and r32[0] == 1.5
    monkeypatch.setenv("REPROBLAS_ISA", "bogus")
    assert CAPI.reproblas_dsdot(333, _p(x), 1, _p(y), 1, _p(r), order) == 1  # ISA_UNKNOWN
    assert CAPI.reproblas_drot(0, None, 1, None, 1, 1.0, 0.0) == 1
