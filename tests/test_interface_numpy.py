"""NumPy's conventions on reproblas: lists and tuples as inputs, out= on every routine that
returns an array, axis=/keepdims= on the reductions, and conv2d's unbatched (C, H, W)
images as reproblas.torch takes them. The bits never depend on them: each test compares
with the plain call."""
import numpy as np
import pytest

import crlibm_py
import reproblas as rb
from cuda_support import EmuDevice, emu_array, same_bits
from repro_runtime import cuda as rt_cuda

RNG = np.random.default_rng(7)
ORDERS = ("sequential", "pairwise")


def _data(shape, dtype=np.float64):
    return RNG.standard_normal(shape).astype(dtype)


# ---- sequences: one rule for both packages ----

def test_lists_of_floats_are_float64_arrays():
    v = [1.0, 1e16, -1e16, 1.0, 1.0]
    for order in ORDERS:
        same_bits(rb.sum(v, order=order), rb.sum(np.array(v), order=order))
        same_bits(rb.sum(tuple(v), order=order), rb.sum(np.array(v), order=order))
    assert type(rb.dot(v, v)) is np.float64
    a = _data((3, 4))
    same_bits(rb.gemm(1.0, a.tolist(), a.T.tolist()), rb.gemm(1.0, a, a.T.copy()))
    same_bits(rb.gemv(1.0, a, a[0].tolist()), rb.gemv(1.0, a, a[0].copy()))
    same_bits(rb.matmul(a.tolist(), a[0].tolist()), rb.matmul(a, a[0].copy()))


def test_int_lists_and_mixed_precision_name_the_fix():
    with pytest.raises(TypeError, match=r"reproblas\.sum: x is a list .* int64.*"
                                        r"np\.asarray\(x, dtype=np\.float64\)"):
        rb.sum([1, 2, 3])
    with pytest.raises(TypeError, match="reproblas.gemm: a is a list"):
        rb.gemm(1.0, [[1, 2], [3, 4]], np.eye(2))
    # a list of Python floats is float64: with float32 arrays the fix is named
    with pytest.raises(TypeError, match=r"y is a list.*float64.*float32.*"
                                        r"np\.asarray\(y, dtype=np\.float32\)"):
        rb.dot(np.ones(2, np.float32), [1.0, 2.0])
    with pytest.raises(ValueError, match="reproblas.sum: x is a sequence"):
        rb.sum([[1.0], [1.0, 2.0]])  # ragged
    with pytest.raises(TypeError, match="out must be an array"):
        rb.sum(np.ones((2, 2)), axis=0, out=[0.0, 0.0])


def test_both_packages_take_exact_lists():
    """The shared rule: a list is what np.asarray makes of it; each package refuses a
    conversion that would round. crlibm_py's dtype is float32, so it judges the values;
    reproblas computes in the list's own float64 and refuses only non-float dtypes."""
    assert crlibm_py.exp([0.5, 1.0]).dtype == np.float32
    with pytest.raises(TypeError, match="float32"):
        crlibm_py.exp([0.1])  # 0.1 is not a float32
    assert rb.sum([0.1, 0.2]) == np.float64(0.1) + np.float64(0.2)


# ---- out= ----

def _outs(shape, dtype):
    """Destinations of one shape in several layouts: C, Fortran, strided, negative."""
    big = np.full(tuple(2 * s for s in shape), np.nan, dtype)
    sl = tuple(slice(None, None, 2) for _ in shape)
    neg = tuple(slice(None, None, -1) for _ in shape)
    return [np.empty(shape, dtype), np.empty(shape, dtype, order="F"), big[sl],
            np.empty(shape, dtype)[neg]]


A, B = _data((5, 4)), _data((4, 3))
T = np.tril(_data((5, 5))) + 5 * np.eye(5)
X, GY = _data((2, 3, 7, 7)), _data((2, 4, 7, 7))
W = _data((4, 3, 3, 3))
# routine -> call(out=...) whose result without out is the reference
CALLS = {
    "gemm": lambda **k: rb.gemm(2.0, A, B, order="pairwise", **k),
    "gemm_c": lambda **k: rb.gemm(1.0, A, B, 0.5, np.ones((5, 3)), **k),
    "gemv": lambda **k: rb.gemv(1.0, A, B[:, 0].copy(), **k),
    "gemv_y": lambda **k: rb.gemv(1.0, A, B[:, 0].copy(), 2.0, np.ones(5), **k),
    "ger": lambda **k: rb.ger(1.5, A[:, 0].copy(), B[0].copy(), **k),
    "matmul": lambda **k: rb.matmul(A[None].repeat(2, 0), B, **k),
    "trsv": lambda **k: rb.trsv(T, A[:, 0].copy(), lower=True, **k),
    "trsm": lambda **k: rb.trsm(2.0, T, A, lower=True, **k),
    "conv2d": lambda **k: rb.conv2d(X, W, np.ones(4), padding=1, **k),
    "conv2d_grad_input": lambda **k: rb.conv2d_grad_input(GY, W, X.shape, padding=1, **k),
    "conv2d_grad_weight": lambda **k: rb.conv2d_grad_weight(X, GY, W.shape, padding=1, **k),
    "conv2d_grad_bias": lambda **k: rb.conv2d_grad_bias(GY, **k),
    "sum_axis": lambda **k: rb.sum(A, axis=0, **k),
    "nrm2_axis": lambda **k: rb.nrm2(X, axis=(1, 3), order="pairwise", **k),
    "dot_axis": lambda **k: rb.dot(A, A, axis=-1, **k),
}


@pytest.mark.parametrize("routine", sorted(CALLS))
def test_out_takes_the_result_in_any_layout(routine):
    call = CALLS[routine]
    expected = call()
    for out in _outs(expected.shape, expected.dtype):
        got = call(out=out)
        assert got is out
        same_bits(out, expected)


@pytest.mark.parametrize("routine", sorted(CALLS))
def test_bad_out_is_refused_before_any_write(routine):
    call = CALLS[routine]
    name = routine.removesuffix("_c").removesuffix("_y").removesuffix("_axis")
    expected = call()
    bad_shape = np.zeros(expected.shape + (1,))
    with pytest.raises(ValueError, match=rf"reproblas\.{name}: out has shape"):
        call(out=bad_shape)
    assert not bad_shape.any()
    bad_dtype = np.zeros(expected.shape, np.float32)
    with pytest.raises(TypeError, match=rf"reproblas\.{name}: out has dtype float32"):
        call(out=bad_dtype)
    assert not bad_dtype.any()
    read_only = np.zeros(expected.shape)
    read_only.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        call(out=read_only)


def test_out_may_be_an_input():
    """The result is that of the old values, as NumPy's out= (and overwrite_*)."""
    a = _data((4, 4))
    for call in (lambda o, **k: rb.gemm(1.0, o, a, **k), lambda o, **k: rb.gemm(1.0, a, o, **k),
                 lambda o, **k: rb.matmul(o, o, **k), lambda o, **k: rb.trsm(1.0, T[:4, :4], o,
                                                                           **k),
                 lambda o, **k: rb.gemm(1.0, a, a, 1.0, o, **k)):
        for view in (slice(None), (slice(None), slice(None, None, -1))):
            expected = call(a.copy()[view])
            b = a.copy()
            got = call(b[view], out=b[view])
            same_bits(got, expected)
    x = a[0].copy()
    same_bits(rb.gemv(1.0, a, x, out=x), rb.gemv(1.0, a, a[0].copy()))
    x = X.copy()
    w1 = np.ones((3, 3, 1, 1))
    same_bits(rb.conv2d(x, w1, out=x), rb.conv2d(X, w1))
    s = a.copy()
    same_bits(rb.sum(s, axis=1, keepdims=True, out=s[:, :1]),
              rb.sum(a, axis=1, keepdims=True))


def test_out_and_overwrite_are_one_destination():
    c = np.ones((5, 3))
    with pytest.raises(ValueError, match="overwrite_c=True and out="):
        rb.gemm(1.0, A, B, 1.0, c, overwrite_c=True, out=np.empty((5, 3)))
    with pytest.raises(ValueError, match="overwrite_b=True and out="):
        rb.trsv(T, np.ones(5), overwrite_b=True, out=np.empty(5))
    expected = rb.gemm(1.0, A, B, 1.0, c)
    same_bits(rb.gemm(1.0, A, B, 1.0, c, out=c), expected)  # out=c: c updated, as overwrite_c


# ---- axis= and keepdims= ----

def _slices(x, axes):
    """Each output element's elements, as a contiguous 1-D array (C order)."""
    keep = [d for d in range(x.ndim) if d not in axes]
    moved = np.transpose(x, keep + sorted(axes))
    return moved.reshape(moved.shape[:len(keep)] + (-1,))


@pytest.mark.parametrize("routine", ["sum", "asum", "nrm2", "dot"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("axis", [0, 1, -1, (0, 2), (2, 0), (0, 1, 2)])
def test_each_element_is_the_1d_call_on_its_slice(routine, dtype, axis):
    x = (_data((5, 6, 700)) * 10.0 ** RNG.integers(-8, 8, (5, 6, 700))).astype(dtype)
    x[1, 2, 3] = np.inf
    x[2, 3, 4] = np.nan
    y = _data(x.shape, dtype)
    axes = [a % 3 for a in (axis if isinstance(axis, tuple) else (axis,))]
    f = getattr(rb, routine)
    for order in ORDERS:
        args = (x, y) if routine == "dot" else (x,)
        got = f(*args, order=order, axis=axis)
        xs, ys = _slices(x, axes), _slices(y, axes)
        expected = np.empty(xs.shape[:-1], dtype)
        for idx in np.ndindex(*expected.shape):
            one = (np.ascontiguousarray(xs[idx]), np.ascontiguousarray(ys[idx]))
            expected[idx] = f(*(one if routine == "dot" else one[:1]), order=order)
        same_bits(got, expected)
        kept = f(*args, order=order, axis=axis, keepdims=True)
        assert kept.shape == tuple(1 if d in axes else n for d, n in enumerate(x.shape))
        same_bits(kept.reshape(expected.shape), expected)


def test_axis_edge_cases():
    x = _data((3, 4))
    same_bits(rb.sum(x[0], axis=0), rb.sum(x[0]))
    assert type(rb.sum(x[0], axis=0)) is np.float64  # a scalar, as np.sum's
    assert rb.sum(x[0], axis=None, keepdims=True).shape == (1,)
    same_bits(rb.sum(x, axis=(0, 1)), rb.sum(x.ravel()))  # all of x: C order
    same_bits(rb.sum(np.zeros((3, 0)), axis=1), np.zeros(3))  # empty sums are +0
    assert rb.sum(np.zeros((0, 3)), axis=1).shape == (0,)
    same_bits(rb.sum(x.T, axis=1), rb.sum(np.ascontiguousarray(x.T), axis=1))
    with pytest.raises(ValueError, match=r"reproblas\.sum: x must be 1-D.*axis="):
        rb.sum(x)  # N-D needs an explicit axis, as the 1-D call always did
    with pytest.raises(np.exceptions.AxisError, match="reproblas.nrm2: axis 2"):
        rb.nrm2(x, axis=2)
    with pytest.raises(ValueError, match="repeats"):
        rb.sum(x, axis=(1, -1))
    with pytest.raises(TypeError, match="axis must be"):
        rb.sum(x, axis=1.0)
    with pytest.raises(ValueError, match=r"reproblas\.dot: x has shape \(3, 4\) but y"):
        rb.dot(x, x.T, axis=0)


def test_iamax_along_an_axis_is_the_1d_call_on_each_slice():
    x = _data((4, 5, 6))
    x[1, 2, 3] = np.nan
    x[2, :, 1:3] = 30.0  # ties: the first index
    for axis in (0, 1, 2, -1):
        got = rb.iamax(x, axis=axis)
        moved = np.moveaxis(x, axis, -1)
        expected = np.array([rb.iamax(np.ascontiguousarray(moved[idx]))
                             for idx in np.ndindex(*moved.shape[:-1])]).reshape(moved.shape[:-1])
        assert got.dtype == np.int64 and np.array_equal(got, expected)
        assert np.array_equal(rb.iamax(x, axis=axis, keepdims=True),
                              np.expand_dims(expected, axis))
    assert np.array_equal(rb.iamax(x[2], axis=1), np.ones(5, np.int64))
    assert np.array_equal(rb.iamax(x[1], axis=0)[3], 2)  # the NaN
    assert rb.iamax(x[0, 0], axis=0) == rb.iamax(x[0, 0]) and rb.iamax([1.0, -3.0]) == 1
    with pytest.raises(ValueError, match="axis 1 of x .* is empty"):
        rb.iamax(np.zeros((2, 0)), axis=1)
    with pytest.raises(TypeError, match="axis must be an int"):
        rb.iamax(x, axis=(0, 1))


# ---- the emulated CUDA backend: the same keywords, the same bits ----

@pytest.fixture
def gpu(monkeypatch):
    monkeypatch.setattr(rt_cuda, "_device", [EmuDevice()])


def test_device_arrays_take_axis_and_out(gpu):
    x = _data((3, 40), np.float32)
    assert np.array_equal(rb.iamax(emu_array(x), axis=1), rb.iamax(x, axis=1))
    for order in ORDERS:
        same_bits(rb.sum(emu_array(x), axis=1, order=order), rb.sum(x, axis=1, order=order))
        same_bits(rb.nrm2(emu_array(x), axis=0, order=order, keepdims=True),
                  rb.nrm2(x, axis=0, order=order, keepdims=True))
    a, b = _data((5, 4), np.float32), _data((4, 3), np.float32)
    out = emu_array(np.empty((3, 5), np.float32)).T
    got = rb.gemm(1.0, emu_array(a), emu_array(b), out=out)
    assert got is out
    same_bits(out, rb.gemm(1.0, a, b))
    out = emu_array(np.empty((2, 4, 7, 7), np.float32))
    rb.conv2d(emu_array(X.astype(np.float32)), emu_array(W.astype(np.float32)), padding=1,
              out=out)
    same_bits(out, rb.conv2d(X.astype(np.float32), W.astype(np.float32), padding=1))
    with pytest.raises(TypeError, match="some operands are on a GPU"):
        rb.gemm(1.0, emu_array(a), emu_array(b), out=np.empty((5, 3), np.float32))


# ---- conv2d: unbatched (C, H, W) images, as PyTorch ----

def test_unbatched_conv2d_and_gradients():
    x, gy = X[0], GY[0]
    same_bits(rb.conv2d(x, W, np.ones(4), padding=1), rb.conv2d(X[:1], W, np.ones(4),
                                                                 padding=1)[0])
    same_bits(rb.conv2d_grad_input(gy, W, x.shape, padding=1),
              rb.conv2d_grad_input(GY[:1], W, X[:1].shape, padding=1)[0])
    same_bits(rb.conv2d_grad_weight(x, gy, W.shape, padding=1),
              rb.conv2d_grad_weight(X[:1], GY[:1], W.shape, padding=1))
    same_bits(rb.conv2d_grad_bias(gy), rb.conv2d_grad_bias(GY[:1]))
    out = np.empty((4, 7, 7))
    assert rb.conv2d(x, W, padding=1, out=out) is out
    with pytest.raises(ValueError, match="input is 3-D but grad_output is 4-D"):
        rb.conv2d_grad_weight(x, GY, W.shape, padding=1)
    with pytest.raises(ValueError, match=r"input_shape must be 3 ints \(C, H, W\)"):
        rb.conv2d_grad_input(gy, W, X.shape, padding=1)


def test_torch_and_numpy_conv2d_take_and_refuse_the_same_shapes():
    torch = pytest.importorskip("torch", reason="needs PyTorch (pip install -e '.[torch]')")
    import reproblas.torch as rt

    w = torch.tensor(W)
    for x in (X, X[0]):
        same_bits(rt.conv2d(torch.tensor(x), w, padding=1).numpy(),
                  rb.conv2d(x, W, padding=1))
    xt = torch.tensor(X[0], requires_grad=True)
    rt.conv2d(xt, w, padding=1).backward(torch.tensor(GY[0]))
    same_bits(xt.grad.numpy(), rb.conv2d_grad_input(GY[0], W, X[0].shape, padding=1))
    for bad in (X[0, 0], X[None]):
        outcomes = []
        for call in (lambda: rb.conv2d(bad, W), lambda: rt.conv2d(torch.tensor(bad), w)):
            with pytest.raises(ValueError) as e:
                call()
            outcomes.append(str(e.value))
        assert outcomes[0] == outcomes[1]
        assert "4-D (N, C, H, W) or 3-D (C, H, W)" in outcomes[0]
