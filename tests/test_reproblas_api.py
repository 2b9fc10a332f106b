"""reproblas argument handling (contract §4): dtypes, shapes, environment knobs."""
import os

import numpy as np
import pytest

import reproblas as rb
from reproblas import _core

x32, y32 = np.ones(5, np.float32), np.ones(5, np.float32)
x64, y64 = np.ones(5), np.ones(5)


def test_result_types():
    for x, y in ((x32, y32), (x64, y64)):
        for order in ("sequential", "pairwise"):
            for r in (rb.sum(x, order=order), rb.asum(x, order=order),
                      rb.dot(x, y, order=order), rb.nrm2(x, order=order)):
                assert type(r) is x.dtype.type
    assert rb.sum(x32) == 5 and rb.dot(x64, y64) == 5 and rb.nrm2(np.array([3.0, 4.0])) == 5


@pytest.mark.parametrize("call", [
    lambda: rb.dot(x32, y64), lambda: rb.axpy(1.0, x64, y32.copy()),
    lambda: rb.sum(np.ones(3, np.int64)), lambda: rb.sum(np.ones(3, np.float16)),
    lambda: rb.sum(np.ones(3, np.complex128)),
    # a list of ints is int64 to np.asarray (lists of floats are accepted: test_interface_numpy)
    lambda: rb.sum([1, 2]), lambda: rb.gemv(1.0, [[1, 2]], [1.0, 2.0]),
    lambda: rb.sum(np.ones(3, ">f8" if np.little_endian else "<f8")),
    lambda: rb.axpy(np.float64(2), x32, y32.copy()), lambda: rb.scal("2", x64.copy()),
    lambda: rb.scal(True, x64.copy()),
    # None is how the one-vector reductions say "no y"; dot must not take it so
    lambda: rb.dot(x32, None), lambda: rb.dot(x64, None, order="pairwise"),
    lambda: rb.dot(None, y64),
])
def test_type_errors(call):
    with pytest.raises(TypeError, match="reproblas"):
        call()


def test_type_error_names_the_fix():
    with pytest.raises(TypeError, match=r"astype"):
        rb.dot(x32, y64)
    with pytest.raises(TypeError, match=r"astype\(np.float64\)"):
        rb.sum(np.arange(3))
    swapped = ">" if np.little_endian else "<"
    with pytest.raises(TypeError, match=r"byte order.*newbyteorder"):
        rb.sum(np.ones(3, swapped + "f8"))
    with pytest.raises(TypeError, match=r"byte order.*newbyteorder"):
        rb.gemm(1.0, np.ones((2, 2), swapped + "f4"), np.ones((2, 2), np.float32))


def test_core_reduce_checks_the_operand_count():
    # the C core is never handed a NULL y for dot, nor a y it would ignore
    with pytest.raises(TypeError, match="two vectors"):
        _core.reduce("dot", 0, x64, None, 0, 1)
    with pytest.raises(TypeError, match="one vector"):
        _core.reduce("sum", 0, x64, y64, 0, 1)


@pytest.mark.parametrize("call", [
    lambda: rb.dot(x32, np.ones(4, np.float32)), lambda: rb.axpy(1.0, x64, np.ones(6)),
    lambda: rb.sum(np.ones((2, 2))), lambda: rb.sum(x64, order="tree"),
    lambda: rb.sum(x64, order=None), lambda: rb.iamax(np.array([])),
    lambda: rb.scal(np.ones(2), x64.copy()),
])
def test_value_errors(call):
    with pytest.raises(ValueError, match="reproblas|order"):
        call()


def test_read_only_output():
    y = np.ones(5)
    y.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        rb.axpy(1.0, x64, y)
    with pytest.raises(ValueError, match="read-only"):
        rb.scal(1.0, y)


def test_alpha_overflow():
    with pytest.raises(OverflowError):
        rb.scal(1e300, x32.copy())


def test_isa_env(monkeypatch):
    monkeypatch.setenv("REPROBLAS_ISA", "sse9")
    with pytest.raises(ValueError, match="REPROBLAS_ISA"):
        rb.sum(x64)
    missing = [n for n in _core.isa_names() if _core.isa_code(n) == -2]
    if missing:
        monkeypatch.setenv("REPROBLAS_ISA", missing[0])
        with pytest.raises(RuntimeError, match="cannot run"):
            rb.sum(x64)
    for name in _core.isa_names():
        if _core.isa_code(name) >= 0:
            monkeypatch.setenv("REPROBLAS_ISA", name)
            assert rb.sum(x64) == 5
    monkeypatch.setenv("REPROBLAS_ISA", "")
    assert rb.sum(x64) == 5


@pytest.mark.parametrize("value", ["0", "-2", "two", "1.5", "2147483648", "1" + "0" * 30,
                                   "1_0", "\u0663", "\uff12", "\u20032", "+-2", "+"])
def test_threads_env_errors(monkeypatch, value):
    monkeypatch.setenv("REPROBLAS_NUM_THREADS", value)
    with pytest.raises(ValueError, match="REPROBLAS_NUM_THREADS"):
        rb.sum(x64)


def test_huge_int_alpha_is_a_named_overflow():
    with pytest.raises(OverflowError, match="axpy: alpha=an int of 1329 bits overflows"):
        rb.axpy(10 ** 400, x64, x64.copy())


def test_threads_env_large(monkeypatch):
    monkeypatch.setenv("REPROBLAS_NUM_THREADS", "1000")
    x = np.random.default_rng(0).standard_normal(300_000)
    got = rb.sum(x, order="pairwise")
    monkeypatch.setenv("REPROBLAS_NUM_THREADS", "1")
    assert got == rb.sum(x, order="pairwise")


def test_cupy_dispatch_point():
    class FakeCupyArray:  # looks like a CuPy array to the dispatcher
        pass
    FakeCupyArray.__module__ = "cupy._core.core"
    # routed to the CUDA backend: no CuPy here (RuntimeError), or not a real array (TypeError)
    with pytest.raises((TypeError, RuntimeError), match="CuPy"):
        rb.sum(FakeCupyArray())


def test_self_overlapping_outputs(monkeypatch):
    """An in-place output whose elements share memory (a zero stride) is computed
    into a copy and assigned back, as axpy/scal do: the same bits on every thread
    count, instead of threads racing to write one element."""
    from numpy.lib.stride_tricks import as_strided
    rng = np.random.default_rng(5)
    a, x = rng.standard_normal((3000, 40)), rng.standard_normal(40)
    u, v = np.arange(300.0), np.ones(300)
    t = np.tril(rng.standard_normal((300, 300))) + 300 * np.eye(300)

    def run():
        buf = np.array([1.0, 0.0])
        y = as_strided(buf, (3000,), (0,))
        rb.gemv(1.0, a, x, 0.5, y, overwrite_y=True)
        out = [buf[0]]
        buf = np.array([1.0, 0.0])
        rb.ger(1.0, u, v, as_strided(buf, (300, 300), (0, 0)), overwrite_a=True)
        out.append(buf[0])
        buf = np.array([1.0, 0.0])
        rb.gemm(1.0, a[:300], a[:40].T, 2.0, as_strided(buf, (300, 40), (0, 0)), overwrite_c=True)
        out.append(buf[0])
        buf = np.array([2.0, 0.0])
        rb.trsv(t, as_strided(buf, (300,), (0,)), lower=True, overwrite_b=True)
        out.append(buf[0])
        return out

    with _core.tuning(l3={"min_work": 1}):  # parts of down to one row
        results = []
        for threads in (1, 2, 4):
            monkeypatch.setenv("REPROBLAS_NUM_THREADS", str(threads))
            results += [run(), run()]
    assert all(r == results[0] for r in results), results
    # what a fresh output assigned to the aliased one gives: its last element
    y = np.full(3000, 1.0)
    assert results[0][0] == rb.gemv(1.0, a, x, 0.5, y)[-1]
    assert results[0][1] == 1.0 + u[-1]


def test_bit_reads_ignore_the_callers_daz():
    """reproblas._fp reads zero-ness and exponents from bits (beta in gemm/gemv,
    nrm2's scale on the CUDA path): under a caller's DAZ a comparison or np.frexp
    reads a subnormal as 0."""
    from reproblas import _fp
    values = [np.float64(v) for v in (1e-310, 5e-324, 2.5e-308, 1.0, 0.75, 1.7e308)]
    values += [np.float32(v) for v in (1e-40, 1e-45, 1.2e-38, 3.0, 3e38)]
    want = [(False, int(np.frexp(v)[1]) - 1) for v in values] + [True, True, False, False]

    def run():
        premise = 1e-310 == 0  # what the bit reads avoid
        got = [(_fp.zero_bits(v), _fp.floor_log2(v)) for v in values]
        got += [_fp.zero_bits(0.0), _fp.zero_bits(np.float32(-0.0)), _fp.zero_bits(1e-310),
                _fp.zero_bits(-5e-324)]
        return premise, got

    out = _core.call_with_mxcsr(0x1F80 | 0x8000 | 0x0040, run)
    if out is None:
        pytest.skip("needs an x86 CPU (the MXCSR FTZ/DAZ bits exist on x86 only)")
    (premise, got), _ = out
    assert premise  # DAZ in effect: a plain comparison is fooled
    assert got == want


def test_misaligned_and_views_are_equal():
    rng = np.random.default_rng(3)
    x = rng.standard_normal(1001)
    raw = np.zeros(1001 * 8 + 1, np.uint8)
    mis = raw[1:].view(np.float64)
    mis[...] = x
    assert not mis.flags.aligned
    for order in ("sequential", "pairwise"):
        assert rb.sum(mis, order=order) == rb.sum(x, order=order)
        assert rb.dot(mis, x, order=order) == rb.dot(x, x, order=order)
    fortran_col = np.asfortranarray(np.stack([x, x], axis=1))[:, 1]
    assert rb.nrm2(fortran_col) == rb.nrm2(x)


@pytest.fixture
def small_splits():
    with _core.tuning(l1=(64, 50)):
        yield


def test_concurrent_python_threads(small_splits, monkeypatch):
    """Calls from several Python threads at once (the GIL is released; one
    uses the worker pool, the others their own threads) agree bitwise."""
    import contextvars
    import threading
    monkeypatch.setenv("REPROBLAS_NUM_THREADS", "4")
    x = np.random.default_rng(4).standard_normal(100_003)
    want = (rb.sum(x, order="pairwise"), rb.nrm2(x, order="pairwise"))
    results = []

    def work():
        for _ in range(50):
            results.append((rb.sum(x, order="pairwise"), rb.nrm2(x, order="pairwise")))
    # each thread runs in a copy of this one's context: the same tuning
    threads = [threading.Thread(target=contextvars.copy_context().run, args=(work,))
               for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 200 and all(r == want for r in results)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_after_fork(small_splits, monkeypatch):
    """A forked child (which has none of the parent's pool threads) still works."""
    monkeypatch.setenv("REPROBLAS_NUM_THREADS", "3")
    x = np.random.default_rng(5).standard_normal(10_001)
    want = rb.sum(x, order="pairwise")  # the parent's pool exists now
    pid = os.fork()
    if pid == 0:
        os._exit(0 if rb.sum(x, order="pairwise") == want else 1)
    assert os.waitpid(pid, 0)[1] == 0


def test_bool_options_refuse_blas_letters():
    # 'N' is truthy: taken as a bool it would transpose; BLAS users write it, so it must fail
    a, v = np.eye(3) + np.triu(np.ones((3, 3))), np.ones(3)
    calls = {
        "trans_a": lambda f: rb.gemm(1.0, a, a, trans_a=f),
        "trans_b": lambda f: rb.gemm(1.0, a, a, trans_b=f),
        "overwrite_c": lambda f: rb.gemm(1.0, a, a, 1.0, a.copy(), overwrite_c=f),
        "trans": lambda f: rb.gemv(1.0, a, v, trans=f),
        "overwrite_y": lambda f: rb.gemv(1.0, a, v, 1.0, v.copy(), overwrite_y=f),
        "overwrite_a": lambda f: rb.ger(1.0, v, v, a.copy(), overwrite_a=f),
        "overwrite_b": lambda f: rb.trsv(a, v.copy(), overwrite_b=f),
    }
    for name, call in calls.items():
        for bad in ("N", "T", "yes", None, 3, 1.0):
            with pytest.raises(TypeError, match=f"{name} must be True or False"):
                call(bad)
    # scipy.linalg.blas spells them 0/1 (trans 2: conjugate transpose, the transpose here)
    assert np.array_equal(rb.gemm(1.0, a, a, trans_a=1), rb.gemm(1.0, a, a, trans_a=True))
    assert np.array_equal(rb.gemm(1.0, a, a, trans_a=2), rb.gemm(1.0, a, a, trans_a=True))
    assert np.array_equal(rb.gemv(1.0, a, v, trans=np.int64(0)), rb.gemv(1.0, a, v))
    assert np.array_equal(rb.gemm(1.0, a, a, trans_b=np.True_), rb.gemm(1.0, a, a.T.copy()))
