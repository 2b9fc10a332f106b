"""The thread pool's scheduling hint leaves no trace: a worker that woke on its
caller's CPU moves itself once (src/c/reproblas/frame/thread.c, leave_caller_cpu) and
must restore its own affinity mask; results never depend on it."""
import os
import sys
import time

import numpy as np
import pytest

import reproblas
from reproblas import _core

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux") or len(os.sched_getaffinity(0)) < 2,
    reason="needs Linux and at least 2 CPUs (the hint only exists there)")


def _thread_masks():
    task = f"/proc/{os.getpid()}/task"
    return {int(t): os.sched_getaffinity(int(t)) for t in os.listdir(task)}


def test_worker_moves_keep_affinity_and_bits(monkeypatch):
    rng = np.random.default_rng(7)
    a = rng.standard_normal((96, 80)).astype(np.float32)
    b = rng.standard_normal((80, 64)).astype(np.float32)
    monkeypatch.setenv("REPROBLAS_NUM_THREADS", "1")
    want = reproblas.gemm(1.0, a, b)
    monkeypatch.setenv("REPROBLAS_NUM_THREADS", "2")
    # split even this small product over both threads
    with _core.tuning(l3={"min_work": 1}):
        mask = os.sched_getaffinity(0)
        before = _core.pool_moves()
        # Calls after pauses longer than the pool's 2 ms of polling find the
        # worker asleep; the scheduler often wakes it on the caller's CPU.
        for _ in range(300):
            time.sleep(0.003)
            got = reproblas.gemm(1.0, a, b)
            assert got.tobytes() == want.tobytes()
            if _core.pool_moves() > before + 3:
                break
        moved = _core.pool_moves() - before
        # A worker that no part needed may be between its two affinity calls right
        # now (many CPUs, two parts): what must not happen is a mask that stays.
        for _ in range(100):
            kept = {t: m for t, m in _thread_masks().items() if m != mask}
            if not kept:
                break
            time.sleep(0.001)
        for tid, m in kept.items():
            assert m == mask, f"thread {tid} kept affinity {sorted(m)}, process has {sorted(mask)}"
    if moved == 0:
        pytest.skip("the scheduler never woke the worker on its caller's CPU here")
