"""The per-call context (src/c/reproblas/context.h): block sizes and thresholds
reach the core with each call, from _core.tuning's settings of the calling
thread; there is no process-wide tuning state."""
import threading

import numpy as np
import pytest

import reproblas as rb
from reproblas import _core

ISA = _core.isa_code("")


def test_defaults_outside_any_tuning():
    """The defaults; the thread thresholds are a quarter as large while calls run on an
    OpenMP team (reproblas.torch imported in this process: docs/design/torch-openmp-team.md)."""
    chosen = _core.omp_runtime()
    try:
        for team, shift in ((0, 0), (chosen, 2 if chosen else 0)):
            _core.use_omp_runtime(team)
            c = _core.context(ISA, 3)
            assert (c["isa"], c["threads"]) == (ISA, 3)
            assert (c["piece"], c["min_per_thread"]) == (1 << 15, 1 << 17 >> shift)
            assert (c["mc"], c["nc"], c["kc"], c["min_work"], c["ws"]) == (
                256, 2048, 0, 1 << 20 >> shift, 1 << 21)
            assert (c["trsm_mb"], c["trsm_nb"]) == (128, 256)
            assert c["conv_min_work"] == 1 << 20 >> shift
            assert (c["conv_chunk"], c["conv_kc"], c["conv_mc"], c["conv_batch"]) == (0, 0, 0, 0)
            assert _core.context(ISA, 0)["threads"] == 1
    finally:
        _core.use_omp_runtime(chosen)


def test_tuning_is_scoped_and_fixed_up():
    want = _core.context(ISA, 2)
    with _core.tuning(l1=(64, 50), trsm=(6, 0), conv={"min_work": 1, "mc": -3}):
        c = _core.context(ISA, 2)
        assert (c["piece"], c["min_per_thread"]) == (64, 50)
        assert (c["trsm_mb"], c["trsm_nb"]) == (4, 256)  # mb rounded down to a power of two
        assert (c["conv_min_work"], c["conv_mc"]) == (1, 0)
        with _core.tuning(l1=(48,), l3={"min_work": 1}):  # 48: not a power of two
            inner = _core.context(ISA, 2)
            assert (inner["piece"], inner["min_per_thread"]) == (1 << 15, want["min_per_thread"])
            assert (inner["min_work"], inner["trsm_mb"]) == (1, 4)  # other groups kept
        assert _core.context(ISA, 2) == c
    assert _core.context(ISA, 2) == want


def test_tuning_is_per_thread():
    """Another thread's calls never see this thread's settings (no shared state)."""
    seen = []
    go, done = threading.Event(), threading.Event()

    def other():
        go.wait()
        seen.append(_core.context(ISA, 2)["min_work"])
        done.set()
    t = threading.Thread(target=other)
    t.start()
    with _core.tuning(l3={"min_work": 7}):
        go.set()
        done.wait()
        assert _core.context(ISA, 2)["min_work"] == 7
    t.join()
    assert seen == [_core.context(ISA, 2)["min_work"]] and seen != [7]


def test_tuning_rejects_unknown_settings():
    with pytest.raises(TypeError, match="group"):
        with _core.tuning(l2=(1,)):
            pass
    with pytest.raises(TypeError, match="at most 2"):
        with _core.tuning(l1=(1, 2, 3)):
            pass
    with pytest.raises(TypeError, match="unknown l3"):
        with _core.tuning(l3={"mr": 4}):
            pass
    for name in ("set_tuning", "set_l3_tuning", "set_trsm_tuning", "set_conv_tuning"):
        assert not hasattr(_core, name)


def test_tuned_calls_give_the_default_bits(monkeypatch):
    monkeypatch.setenv("REPROBLAS_NUM_THREADS", "3")
    rng = np.random.default_rng(11)
    a, b, x = rng.standard_normal((70, 50)), rng.standard_normal((50, 40)), rng.standard_normal(999)
    want = (rb.gemm(1.0, a, b), rb.sum(x, order="pairwise"))
    with _core.tuning(l1=(8, 16), l3=(8, 8, 4, 1, 0)):
        got = (rb.gemm(1.0, a, b), rb.sum(x, order="pairwise"))
    assert got[0].tobytes() == want[0].tobytes() and got[1] == want[1]
