"""The fast paths of iamax, axpy and scal (reproblas/_level1.py), and the order
lookup of the reductions' fast path: with the fast path hidden (_core.plain
patched to refuse everything) every call gives the same result, or raises the
same exception with the same message."""
import numpy as np
import pytest

import reproblas as rb
from reproblas import _backend
from test_reproblas_fastpath import both_paths, data, same_outcome

DTYPES = [np.float32, np.float64]


def test_fast_path_is_taken_for_plain_operands(monkeypatch):
    calls = []
    real_backend = _backend.select
    monkeypatch.setattr(_backend, "select", lambda *a: calls.append(1) or real_backend(*a))
    x, y = np.ones(5, np.float32), np.ones(5, np.float32)
    rb.iamax(x), rb.axpy(2.0, x, y), rb.scal(0.5, y), rb.sum(x, order="Pairwise")
    assert calls == []
    rb.iamax(x[::2]), rb.axpy(2.0, x[::2], y[::2]), rb.scal(0.5, y[::2])
    assert len(calls) == 3


@pytest.mark.parametrize("dtype", DTYPES)
def test_same_results_as_general_path(dtype, monkeypatch):
    rng = np.random.default_rng(dtype(0).nbytes)
    for n in (1, 2, 7, 33, 100):
        x, y = data(rng, n, dtype), data(rng, n, dtype)
        fast, slow = both_paths(monkeypatch, lambda: rb.iamax(x))
        assert type(fast) is int and fast == slow, n
        for alpha in (1.5, -3, dtype(0.25), 1e-300):
            fast, slow = both_paths(monkeypatch, lambda: rb.axpy(alpha, x, y.copy()))
            assert same_outcome(fast, slow), (n, alpha)
            fast, slow = both_paths(monkeypatch, lambda: rb.scal(alpha, x.copy()))
            assert same_outcome(fast, slow), (n, alpha)
        # x and y one array: axpy reads the old values
        fast, slow = both_paths(monkeypatch, lambda: (lambda v: rb.axpy(2.0, v, v))(y.copy()))
        assert same_outcome(fast, slow)
        for order in ("Pairwise", "SEQUENTIAL"):
            fast, slow = both_paths(monkeypatch, lambda: rb.sum(x, order=order))
            assert same_outcome(fast, slow) and same_outcome(fast, rb.sum(x, order=order.lower()))


f32, f64 = np.ones(4, np.float32), np.ones(4)
ro = np.ones(4, np.float32)
ro.flags.writeable = False


@pytest.mark.parametrize("call", [
    lambda: rb.iamax(np.ones(0, np.float32)), lambda: rb.iamax(np.ones((2, 2))),
    lambda: rb.axpy(1.0, f32, np.ones(5, np.float32)), lambda: rb.axpy(1.0, f32, f64),
    lambda: rb.axpy(1.0, f32, ro), lambda: rb.axpy(np.float64(1), f32, f32.copy()),
    lambda: rb.axpy(1e39, f32, f32.copy()), lambda: rb.axpy("1", f32, f32.copy()),
    lambda: rb.axpy(True, f32, f32.copy()), lambda: rb.axpy(np.ones(2), f64, f64.copy()),
    lambda: rb.scal(1.0, ro), lambda: rb.scal(2 ** 2000, f64.copy()),
    lambda: rb.scal(None, f32.copy()), lambda: rb.sum(f32, order={"pairwise": 1}),
    lambda: rb.dot(f32, f32, order=b"pairwise"), lambda: rb.nrm2(f32, order=0),
])
def test_same_errors_as_general_path(call, monkeypatch):
    fast, slow = both_paths(monkeypatch, call)
    assert isinstance(fast, tuple), fast
    assert issubclass(fast[0], (TypeError, ValueError, OverflowError)), fast
    assert fast == slow


@pytest.mark.parametrize("name, value", [("REPROBLAS_ISA", "mmx"), ("REPROBLAS_ISA", "AVX2"),
                                         ("REPROBLAS_NUM_THREADS", "0"),
                                         ("REPROBLAS_NUM_THREADS", "two")])
def test_bad_environment_same_errors_as_general_path(name, value, monkeypatch):
    """The reductions' and iamax's fast path reads the knobs in C: a bad value falls
    back to the general path, which names it."""
    monkeypatch.setenv(name, value)
    for call in (lambda: rb.sum(f32), lambda: rb.dot(f64, f64, order="pairwise"),
                 lambda: rb.nrm2(f32), lambda: rb.iamax(f64)):
        fast, slow = both_paths(monkeypatch, call)
        assert isinstance(fast, tuple) and fast[0] is ValueError and name in fast[1], fast
        assert fast == slow
