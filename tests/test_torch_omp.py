"""reproblas's parallel calls on PyTorch's OpenMP team (reproblas/torch/_omp.py,
src/c/reproblas/frame/thread.c): importing reproblas.torch hands rb_parallel the runtime's
GOMP_parallel when PyTorch's parallel backend is OpenMP; every call then gives the own pool's
bits, whatever team runs its parts (a team of one, members that come one after another,
several Python threads at once), and REPROBLAS_TORCH_POOL chooses."""
import ctypes
import os
import subprocess
import sys
import threading

import numpy as np
import pytest

import reproblas as rb
from reproblas import _core
from test_reproblas_reference import same_bits

torch = pytest.importorskip("torch", reason="needs PyTorch (pip install -e '.[torch]')")
import reproblas.torch as rt  # noqa: E402
from reproblas.torch import _omp  # noqa: E402

OPENMP = "parallel backend: OpenMP" in torch.__config__.parallel_info()
MEMBER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
RUNNER = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint, ctypes.c_uint)


def calls():
    """Results of calls cut into many parts (min_work = 1): gemm in both orders, a pairwise
    sum, a cumsum, a convolution and a softmax."""
    rng = np.random.default_rng(7)
    a = rng.standard_normal((67, 45)).astype(np.float32)
    b = rng.standard_normal((45, 71)).astype(np.float32)
    x = (rng.standard_normal(50001) * 2.0 ** rng.integers(-20, 20, 50001)).astype(np.float32)
    img = rng.standard_normal((3, 4, 9, 9)).astype(np.float32)
    w = rng.standard_normal((5, 4, 3, 3)).astype(np.float32)
    t = torch.from_numpy(rng.standard_normal((40, 300)).astype(np.float32))
    with _core.tuning(l1={"min_per_thread": 1}, l3={"min_work": 1}, conv={"min_work": 1}):
        return [rb.gemm(1.0, a, b, order="sequential"), rb.gemm(1.0, a, b, order="pairwise"),
                np.asarray(rb.sum(x, order="pairwise")), rb.cumsum(x, order="pairwise"),
                rb.conv2d(img, w, padding=1), rt.softmax(t, -1).numpy()]


@pytest.fixture
def runtime():
    """Restores the runtime reproblas.torch chose after the test."""
    chosen = _core.omp_runtime()
    yield
    _core.use_omp_runtime(chosen)


def same_results(got, want):
    return len(got) == len(want) and all(same_bits(g, w) for g, w in zip(got, want))


@pytest.mark.skipif(not OPENMP, reason="PyTorch's parallel backend is not OpenMP")
def test_import_shares_pytorchs_team():
    assert _core.omp_runtime() == _omp._gomp_parallel() != 0


@pytest.mark.parametrize("threads", [2, 3, 4])
def test_same_bits_on_either_pool(threads, monkeypatch, runtime):
    monkeypatch.setenv("REPROBLAS_NUM_THREADS", "1")
    _core.use_omp_runtime(0)
    want = calls()
    monkeypatch.setenv("REPROBLAS_NUM_THREADS", str(threads))
    assert same_results(calls(), want)
    if OPENMP:
        _core.use_omp_runtime(_omp._gomp_parallel())
        assert same_results(calls(), want)


@pytest.mark.parametrize("members", [1, 2, 5])
def test_any_team_runs_every_part(members, monkeypatch, runtime):
    """A runtime whose team has fewer members than parts (one member, as inside another
    parallel region), or members that arrive after the others finished, still runs
    every part once: the members claim parts until none is left."""
    monkeypatch.setenv("REPROBLAS_NUM_THREADS", "1")
    _core.use_omp_runtime(0)
    want = calls()
    asked = []

    @RUNNER
    def run(fn, data, threads, flags):
        asked.append(threads)
        member = MEMBER(fn)
        for _ in range(members):
            member(data)

    _core.use_omp_runtime(ctypes.cast(run, ctypes.c_void_p).value)
    monkeypatch.setenv("REPROBLAS_NUM_THREADS", "3")
    assert same_results(calls(), want)
    assert asked and all(t >= 2 for t in asked)  # the parallel calls went to the runtime
    _core.use_omp_runtime(0)


@pytest.mark.skipif(not OPENMP, reason="PyTorch's parallel backend is not OpenMP")
def test_python_threads_at_once(monkeypatch):
    """Several Python threads calling at once: each is the master of its own team."""
    monkeypatch.setenv("REPROBLAS_NUM_THREADS", "1")
    want = calls()
    monkeypatch.setenv("REPROBLAS_NUM_THREADS", "2")
    got = [None] * 3

    def work(i):
        got[i] = [calls() for _ in range(3)]

    threads = [threading.Thread(target=work, args=(i,)) for i in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(same_results(r, want) for rs in got for r in rs)


@pytest.mark.parametrize("value, shared", [("own", False), ("torch", OPENMP), ("", OPENMP)])
def test_knob(value, shared):
    code = ("import reproblas.torch, reproblas._core as c; print(c.omp_runtime() != 0)")
    env = dict(os.environ, REPROBLAS_TORCH_POOL=value)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True).stdout
    assert out.strip() == str(shared)


def test_bad_knob_value(monkeypatch, runtime):
    monkeypatch.setenv("REPROBLAS_TORCH_POOL", "gomp")
    with pytest.raises(ValueError, match="REPROBLAS_TORCH_POOL"):
        _omp.share_torch_threads()


@pytest.mark.skipif(not OPENMP or not hasattr(os, "fork"), reason="needs fork and an OpenMP PyTorch")
def test_forked_child_uses_the_own_pool():
    """A child forked after calls on PyTorch's team cannot start that team (its threads stay in
    the parent): it computes on reproblas's own pool, with the same bits, instead of waiting."""
    calls()  # the team has run parts in this process
    code = """
import os, sys, pickle
sys.path.insert(0, {tests!r})
import test_torch_omp as t
from reproblas import _core
os.environ["REPROBLAS_NUM_THREADS"] = "2"
t.calls()
pid = os.fork()
if pid == 0:
    out = (_core.omp_runtime(), t.calls())
    with open({path!r}, "wb") as f:
        pickle.dump(out, f)
    os._exit(0)
_, status = os.waitpid(pid, 0)
sys.exit(os.waitstatus_to_exitcode(status))
"""
    import pickle
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "child.pickle")
        src = code.format(tests=os.path.dirname(__file__), path=path)
        subprocess.run([sys.executable, "-c", src], check=True, timeout=120)
        with open(path, "rb") as f:
            runtime, got = pickle.load(f)
    assert runtime == 0
    os.environ.setdefault("REPROBLAS_NUM_THREADS", "")
    assert same_results(got, calls())
