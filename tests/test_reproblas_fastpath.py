"""The wrappers' fast path for common small calls (reproblas/_level1.py _reduction;
_core.product_plain for gemv, gemm and matmul; _core.matmul_plain for batched matmul):
operands that _core.plain accepts (NumPy arrays of one native float32/float64 dtype, C- or
Fortran-contiguous, aligned) with default arguments skip the general checks. Each call here
runs twice, once as it is and once with the fast path hidden (_core.plain,
_core.product_plain and _core.matmul_plain patched to refuse everything),
and must give the same bits, or raise the same exception with the same message;
results are also checked against the contract-literal reference."""
import re

import numpy as np
import pytest

import reproblas as rb
from reproblas import _backend, _core
import test_reproblas_reference as ref

DTYPES = [np.float32, np.float64]
ORDERS = ["sequential", "pairwise"]


def general_path(monkeypatch):
    """A context in which every call takes the general path."""
    ctx = monkeypatch.context()
    patch = ctx.__enter__()
    patch.setattr(_core, "plain", lambda *args: False)
    patch.setattr(_core, "product_plain", lambda *args: None)
    patch.setattr(_core, "matmul_plain", lambda *args: None)
    return ctx


def both_paths(monkeypatch, call):
    """(outcome of call() as it is, outcome with the fast path hidden): a result,
    or (exception type, message)."""
    def outcome():
        try:
            return call()
        except Exception as e:  # compared below: same type and message
            return type(e), str(e)
    fast = outcome()
    ctx = general_path(monkeypatch)
    try:
        slow = outcome()
    finally:
        ctx.__exit__(None, None, None)
    return fast, slow


def same_outcome(fast, slow):
    """Same bits, or the same exception type and message."""
    if isinstance(fast, tuple) or isinstance(slow, tuple):
        return fast == slow
    return ref.same_bits(fast, slow)


def data(rng, shape, dtype):
    """Spread-out magnitudes, both signs, and special values."""
    x = (rng.standard_normal(shape) * 2.0 ** rng.integers(-12, 13, shape)).astype(dtype)
    flat = x.reshape(-1)
    if flat.size >= 8:
        specials = [0.0, -0.0, np.inf, -np.inf, np.nan, np.finfo(dtype).smallest_subnormal]
        idx = rng.choice(flat.size, len(specials), replace=False)
        flat[idx] = np.array(specials, dtype=dtype)
    return x


def test_fast_path_is_taken_for_plain_operands(monkeypatch):
    """With plain operands the general checks (starting at _backend) never run;
    with any other operand they do."""
    calls = []
    real_backend = _backend.select
    monkeypatch.setattr(_backend, "select", lambda *a: calls.append(1) or real_backend(*a))
    x, a, b = np.ones(5, np.float32), np.ones((3, 5), np.float32), np.ones((5, 2), np.float32)
    rb.dot(x, x), rb.sum(x, order="pairwise"), rb.nrm2(x), rb.asum(x)
    rb.gemv(2.0, a, x), rb.gemv(1.0, a.T.copy(), x, trans=True)
    rb.gemm(1.0, a, b), rb.gemm(1.0, a.T.copy(), b.T.copy(), trans_a=True, trans_b=True)
    rb.matmul(a, b), rb.matmul(a, x)
    fa, fb = np.asfortranarray(a), np.asfortranarray(b)
    rb.gemv(1.0, fa, x), rb.gemm(1.0, fa, fb)
    rb.gemm(1.0, np.asfortranarray(a.T), np.asfortranarray(b.T), trans_a=True, trans_b=True)
    rb.matmul(fa, fb)
    a3, b3 = np.ones((2, 3, 5), np.float32), np.ones((2, 5, 4), np.float32)
    rb.matmul(a3, b3), rb.matmul(b3.transpose(0, 2, 1), a3.transpose(0, 2, 1))
    rb.matmul(a3[:, :, ::2], b3[:, :3]), rb.matmul(a3[:, None], b3[:, None])
    rb.gemv(2, a, x), rb.gemv(1.0, a, x, beta=-0.0), rb.gemm(-3, a, b, beta=0.0)  # int alpha
    assert calls == []
    rb.dot(x[::2], x[::2]), rb.gemv(1.0, a[:, ::2], x[:3]), rb.gemm(1.0, a, b, beta=0)
    rb.gemv(1.0, a, x, 0.0, np.ones(3, np.float32)), rb.matmul(a[None], b)
    rb.gemm(np.float32(1), a, b[:, ::-1])
    with pytest.raises(TypeError, match="dtype"):
        rb.sum(x.astype(x.dtype.newbyteorder()))  # same values, byte-swapped
    rb.gemv(1.0, a, x, trans=0), rb.gemm(2 ** 60, a, b), rb.gemv(1.0, a, x, order=np.str_("pairwise"))
    rb.matmul(a3, b3[:1]), rb.matmul(a3[:, ::-1], b3), rb.matmul(a3[None], b3[None, :, :, ::-1])
    assert len(calls) == 13


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order", ORDERS)
def test_same_bits_as_general_path_and_reference(dtype, order, monkeypatch):
    rng = np.random.default_rng([dtype(0).nbytes, ORDERS.index(order)])
    for n in (0, 1, 2, 7, 33, 100):
        x, y = data(rng, n, dtype), data(rng, n, dtype)
        for routine in ("sum", "asum", "nrm2", "dot"):
            call = (lambda: getattr(rb, routine)(x, y, order=order)) if routine == "dot" else \
                (lambda: getattr(rb, routine)(x, order=order))
            fast, slow = both_paths(monkeypatch, call)
            assert type(fast) is dtype and ref.same_bits(fast, slow), (routine, n)
            assert ref.same_bits(fast, ref.reduce(routine, x, y if routine == "dot" else None,
                                                  order)), (routine, n)
    for m, n, k in ((0, 3, 2), (3, 0, 2), (4, 3, 0), (1, 1, 1), (1, 9, 5), (7, 1, 9),
                    (13, 11, 17), (33, 5, 40)):
        for trans_a in (False, True):
            for trans_b in (False, True):
                opa, opb = data(rng, (m, k), dtype), data(rng, (k, n), dtype)
                alpha = float(rng.choice([1.0, -0.75, 0.1, -0.0]))
                for layout_a, layout_b in ((np.ascontiguousarray, np.ascontiguousarray),
                                           (np.asfortranarray, np.ascontiguousarray),
                                           (np.ascontiguousarray, np.asfortranarray)):
                    a = layout_a(opa.T if trans_a else opa)
                    b = layout_b(opb.T if trans_b else opb)
                    fast, slow = both_paths(monkeypatch, lambda: rb.gemm(
                        alpha, a, b, trans_a=trans_a, trans_b=trans_b, order=order))
                    assert ref.same_bits(fast, slow), (m, n, k, trans_a, trans_b, layout_a)
                    assert fast.flags.c_contiguous
                    assert ref.same_bits(fast, ref.gemm(alpha, a, b, trans_a=trans_a,
                                                        trans_b=trans_b, order=order))
            x = data(rng, k, dtype)
            for layout in (np.ascontiguousarray, np.asfortranarray):
                a = layout(opa.T if trans_a else opa)
                fast, slow = both_paths(monkeypatch,
                                        lambda: rb.gemv(alpha, a, x, trans=trans_a, order=order))
                assert ref.same_bits(fast, slow) and fast.shape == (m,)
                assert ref.same_bits(fast, ref.gemv(alpha, a, x, trans=trans_a, order=order))
        for b in (opb, x):
            fast, slow = both_paths(monkeypatch, lambda: rb.matmul(opa, b, order=order))
            assert ref.same_bits(fast, slow)
            want = ref.gemm(1.0, opa, b if b.ndim == 2 else b[:, None], order=order)
            assert ref.same_bits(fast, want.reshape(fast.shape))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order", ORDERS)
def test_batched_matmul_same_bits_as_general_path(dtype, order, monkeypatch):
    """Stacks of matrices, C-contiguous, transposed views (attention's
    q @ k.transpose(-2, -1)) or strided views (heads cut from one projection), give the
    general path's bits and each entry's gemm."""
    rng = np.random.default_rng([dtype(0).nbytes, 7, ORDERS.index(order)])
    for batch, (m, k, n) in (((1,), (1, 1, 1)), ((3,), (1, 7, 9)), ((2, 3), (32, 16, 32)),
                             ((4, 1, 2), (9, 33, 1)), ((2,), (17, 0, 5)), ((0, 2), (3, 4, 5))):
        opa, opb = data(rng, batch + (m, k), dtype), data(rng, batch + (k, n), dtype)
        for ta in (False, True):
            for tb in (False, True):
                a = np.ascontiguousarray(np.swapaxes(opa, -1, -2)).swapaxes(-1, -2) if ta else opa
                b = np.ascontiguousarray(np.swapaxes(opb, -1, -2)).swapaxes(-1, -2) if tb else opb
                strided_a = np.repeat(np.moveaxis(opa, 0, -2), 2, axis=-1)[..., ::2]
                strided_a = np.moveaxis(strided_a, -2, 0)  # whole-element strides, no layout
                for aa in (a, strided_a):
                    fast, slow = both_paths(monkeypatch, lambda: rb.matmul(aa, b, order=order))
                    assert ref.same_bits(fast, slow), (batch, m, k, n, ta, tb)
                    assert fast.shape == batch + (m, n) and fast.flags.c_contiguous
                    for i in np.ndindex(*batch):
                        want = ref.gemm(1.0, opa[i], opb[i], order=order)
                        assert ref.same_bits(fast[i], want), (batch, i)


@pytest.mark.parametrize("dtype", DTYPES)
def test_scalar_arguments_same_bits_as_general_path(dtype, monkeypatch):
    """The arguments product_plain checks in C (alpha a Python float or an exact int,
    beta +-0 by its bits, the flags True/False) give the general path's bits, and
    what it declines goes to the general path."""
    rng = np.random.default_rng(dtype(0).nbytes)
    a, x, b = data(rng, (9, 21), dtype), data(rng, 21, dtype), data(rng, (21, 4), dtype)
    sub = float(np.finfo(dtype).smallest_subnormal)
    alphas = [2, -3, 2 ** 53, 2 ** 53 + 1, -(2 ** 60), 1.0000001, 3.4028235e38, 1e-45, sub,
              float("inf"), float("nan"), -0.0]
    for alpha in alphas:
        for call in (lambda: rb.gemv(alpha, a, x), lambda: rb.gemm(alpha, a, b),
                     lambda: rb.gemv(alpha, a.T.copy(), x, trans=True, beta=-0.0)):
            fast, slow = both_paths(monkeypatch, call)
            assert same_outcome(fast, slow), (alpha, fast, slow)
    for beta in (sub, 5e-324, -0.0, 0):
        fast, slow = both_paths(monkeypatch, lambda: rb.gemv(1.0, a, x, beta=beta))
        assert same_outcome(fast, slow), beta
        # under the caller's DAZ a comparison reads a subnormal beta as 0: bits decide
        out = _core.call_with_mxcsr(0x1F80 | 0x8000 | 0x0040,
                                    lambda: both_paths(monkeypatch, lambda: rb.gemv(1.0, a, x, beta=beta)))
        if out is not None:
            (fast_daz, slow_daz), _ = out
            assert same_outcome(fast_daz, fast) and same_outcome(slow_daz, slow), beta
    for flag in (1, 0, np.True_, 2):
        fast, slow = both_paths(monkeypatch, lambda: rb.gemv(1.0, a.T.copy(), x, trans=flag))
        assert same_outcome(fast, slow), flag
    fast, slow = both_paths(monkeypatch, lambda: rb.gemm(1.0, a, b, overwrite_c=True))
    assert ref.same_bits(fast, slow)


def test_scalars_round_in_the_library_environment(monkeypatch):
    """A float32 call's Python-float alpha is rounded to float32 to nearest whatever the
    caller's rounding mode (0.1 rounds up to nearest and down toward zero), on the fast
    path, the general path and through scalar_array."""
    a, b, x = np.ones((2, 3), np.float32), np.ones((3, 2), np.float32), np.ones(3, np.float32)
    calls = [lambda: rb.gemm(0.1, a, b), lambda: rb.gemv(0.1, a, x),
             lambda: rb.matmul(a, b) * np.float32(1), lambda: _core.scalar_array(0.1, np.dtype(np.float32))]
    want = [c() for c in calls]
    assert want[0][0, 0] == np.float32(0.1) * 3  # 0.1 rounded to nearest (up)
    for i, call in enumerate(calls):
        out = _core.call_with_mxcsr(0x1F80 | 0x6000, lambda: both_paths(monkeypatch, call))
        if out is None:
            pytest.skip("not x86: no MXCSR to set")
        (fast, slow), _ = out
        assert same_outcome(fast, want[i]) and same_outcome(slow, want[i]), i


def test_threads_and_paths_agree(monkeypatch):
    """The fast path reads the environment knobs at every call, like the general one."""
    rng = np.random.default_rng(5)
    a, x = data(rng, (150, 333), np.float32), data(rng, 333, np.float32)
    b = data(rng, (333, 40), np.float32)
    a3, b3 = a[:144].reshape(4, 36, 333), np.stack([b] * 4)
    want = [rb.gemv(1.5, a, x), rb.gemm(1.5, a, b), rb.dot(x, x), rb.matmul(a3, b3)]
    for isa in [i for i in _core.isa_names() if _core.isa_code(i) >= 0]:
        for t in (1, 2, 3, 4):
            monkeypatch.setenv("REPROBLAS_ISA", isa)
            monkeypatch.setenv("REPROBLAS_NUM_THREADS", str(t))
            with _core.tuning(l3={"min_work": 1}):
                got = [rb.gemv(1.5, a, x), rb.gemm(1.5, a, b), rb.dot(x, x), rb.matmul(a3, b3)]
            assert all(ref.same_bits(g, w) for g, w in zip(got, want)), (isa, t)
    monkeypatch.setenv("REPROBLAS_NUM_THREADS", "0")
    with pytest.raises(ValueError, match="REPROBLAS_NUM_THREADS"):
        rb.gemv(1.0, a, x)
    monkeypatch.setenv("REPROBLAS_NUM_THREADS", "1")
    monkeypatch.setenv("REPROBLAS_ISA", "mmx")
    with pytest.raises(ValueError, match="REPROBLAS_ISA"):
        rb.dot(x, x)


f32, f64 = np.ones(4, np.float32), np.ones(4)
A32, B32 = np.ones((3, 4), np.float32), np.ones((4, 2), np.float32)


@pytest.mark.parametrize("call", [
    lambda: rb.dot(f32, np.ones(5, np.float32)), lambda: rb.dot(f32, f64),
    lambda: rb.sum(f32, order="tree"), lambda: rb.sum(f32, order=["pairwise"]),
    lambda: rb.nrm2(np.ones((2, 2))), lambda: rb.dot(f32, f32, order=None),
    lambda: rb.gemv(1.0, A32, np.ones(3, np.float32)), lambda: rb.gemv(1.0, A32, f32, order=1),
    lambda: rb.gemv(np.float64(1), A32, f32), lambda: rb.gemv(1e39, A32, f32),
    lambda: rb.gemv(True, A32, f32), lambda: rb.gemv(1.0, A32, f32, trans=True),
    lambda: rb.gemv(1.0, A32, f64), lambda: rb.gemv("1", A32, f32),
    lambda: rb.gemm(1.0, A32, A32), lambda: rb.gemm(1.0, A32, B32, trans_b=True),
    lambda: rb.gemm(np.ones(1, np.float32), A32, B32), lambda: rb.gemm(1.0, A32, B32, 1.0),
    lambda: rb.gemm(1.0, A32, B32, order="pair-wise"), lambda: rb.gemm(-1e300, A32, B32),
    lambda: rb.gemm(1.0, A32, B32.astype(np.float64)), lambda: rb.matmul(A32, A32),
    lambda: rb.matmul(A32, np.ones(3, np.float32)), lambda: rb.matmul(A32, B32, order="x"),
    lambda: rb.matmul(np.stack([A32] * 2), np.stack([A32] * 2)),
    lambda: rb.matmul(np.stack([A32] * 2), np.stack([B32] * 3)),
    lambda: rb.matmul(np.stack([A32] * 2), np.stack([B32.astype(np.float64)] * 2)),
])
def test_same_errors_as_general_path(call, monkeypatch):
    """Bad input that looks like a fast-path call raises what the general path raises."""
    fast, slow = both_paths(monkeypatch, call)
    assert isinstance(fast, tuple), fast
    assert issubclass(fast[0], (TypeError, ValueError, OverflowError)), fast
    assert fast == slow
    assert re.search("reproblas|order", fast[1])
