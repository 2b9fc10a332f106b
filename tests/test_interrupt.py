"""Ctrl-C during a long call: SIGINT stops a reproblas gemm / conv2d or a crlibm_py
ufunc call over a huge array within a fraction of a second (between the core's work
items, or the ufunc loop's chunks), raising KeyboardInterrupt, instead of when the
call ends. Afterwards the same process computes as before: the same bits as a call
made before the interrupt (no stop flag left set on the pool).

Each case runs in a subprocess: it makes a small reference call, prints "ready",
starts a call that takes several seconds uninterrupted (on 2 AMD EPYC cores: gemm
n = 8000 6.5 s on 2 threads, 11 s on 1; conv2d 8x256x128x128 with 7x7 kernels 4.3 s
sequential / 12.7 s pairwise on 2 threads; sin of 2^27 float32 on the scalar path
4 s) and reports how long the call ran before KeyboardInterrupt reached it. The
signal comes 0.5 s after "ready"; the bounds leave room for a loaded machine (a gemm
work item is up to about 0.4 s of one core).
"""
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DELAY = 0.5  # seconds from "ready" to SIGINT

CHILD = """
import sys, time
import numpy as np
{setup}
print("ready", flush=True)
t = time.monotonic()
try:
    {call}
    print("finished", time.monotonic() - t)
except KeyboardInterrupt:
    print("interrupted", time.monotonic() - t)
again = {small}
print("same", np.array_equal(np.asarray(before).view(np.uint8), np.asarray(again).view(np.uint8)))
"""


def interrupt_child(code, env):
    """Runs code in a child (env: its knobs, replacing the caller's), sends SIGINT DELAY s
    after the child prints 'ready', and returns the child's standard output."""
    full_env = {k: v for k, v in os.environ.items()
                if k not in ("REPROBLAS_ISA", "REPROBLAS_NUM_THREADS", "CRLIBM_ISA")}
    full_env.update(env)
    child = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, env=full_env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        ready = child.stdout.readline()
        assert ready.strip() == "ready", child.stderr.read()
        time.sleep(DELAY)
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=120)
    finally:
        if child.poll() is None:
            child.kill()
            child.communicate()
    assert child.returncode == 0, err
    return out


def run_interrupted(setup, call, small, env, bound):
    """bound: how long the interrupted call may run, from its start (far below its length)."""
    code = CHILD.format(setup=textwrap.dedent(setup).strip(),
                        call=call, small=small)
    out = interrupt_child(code, env)
    lines = out.split("\n")
    status, seconds = lines[0].split()
    assert status == "interrupted", out
    assert float(seconds) < bound, f"the call ran {seconds} s; SIGINT came after {DELAY} s"
    assert lines[1] == "same True", out


@pytest.mark.parametrize("threads, order, on_torch",
                         [("1", "sequential", False), ("2", "pairwise", False),
                          ("2", "sequential", True)])
def test_gemm(threads, order, on_torch):
    """on_torch: reproblas.torch imported, so the parts run on PyTorch's OpenMP team where
    PyTorch has one (reproblas/torch/_omp.py): the caller's polls stop the other members."""
    if on_torch:
        pytest.importorskip("torch", reason="needs PyTorch (pip install -e '.[torch]')")
    setup = f"""
        import reproblas{", reproblas.torch" if on_torch else ""}
        rng = np.random.default_rng(1)
        sa = rng.standard_normal((1100, 300)).astype(np.float32)
        sb = rng.standard_normal((300, 2100)).astype(np.float32)
        before = reproblas.gemm(1.0, sa, sb, order="{order}")  # several work items
        big = np.ones((8000, 8000), np.float32)
        """
    run_interrupted(setup, f'reproblas.gemm(1.0, big, big, order="{order}")',
                    f'reproblas.gemm(1.0, sa, sb, order="{order}")',
                    {"REPROBLAS_NUM_THREADS": threads}, bound=3.0)


@pytest.mark.parametrize("threads, order", [("1", "pairwise"), ("2", "sequential")])
def test_conv2d(threads, order):
    setup = f"""
        import reproblas
        rng = np.random.default_rng(2)
        sx = rng.standard_normal((2, 8, 40, 40)).astype(np.float32)
        sw = rng.standard_normal((8, 8, 3, 3)).astype(np.float32)
        before = reproblas.conv2d(sx, sw, padding=1, order="{order}")
        x = np.ones((8, 256, 128, 128), np.float32)
        w = np.ones((256, 256, 7, 7), np.float32)
        """
    run_interrupted(setup, f'reproblas.conv2d(x, w, padding="same", order="{order}")',
                    f'reproblas.conv2d(sx, sw, padding=1, order="{order}")',
                    {"REPROBLAS_NUM_THREADS": threads}, bound=2.0)


def test_crlibm_ufunc():
    """One contiguous array: NumPy runs the loop once for all of it (the scalar path,
    slow enough per element that 512 MiB of input takes seconds)."""
    setup = """
        import crlibm_py
        small = np.linspace(-90, 90, 3 << 20, dtype=np.float32)  # three chunks
        before = crlibm_py.sin(small)
        x = np.linspace(-90, 90, 1 << 27, dtype=np.float32)
        """
    run_interrupted(setup, "crlibm_py.sin(x, out=x)", "crlibm_py.sin(small)",
                    {"CRLIBM_ISA": "scalar"}, bound=1.5)


def test_c_abi_call_runs_to_the_end():
    """libreproblas installs no stop hook: a C ABI call (here through ctypes, from the
    main thread) is never cut short by SIGINT; Python raises KeyboardInterrupt only
    after it returns, with every row of C computed."""
    code = textwrap.dedent("""
        import ctypes, os, time
        import numpy as np
        import reproblas
        lib = ctypes.CDLL(os.path.join(reproblas.get_library_dir(), "libreproblas.so"))
        gemm = lib.reproblas_sgemm
        i64, ptr = ctypes.c_int64, ctypes.c_void_p
        gemm.argtypes = [ctypes.c_int] * 3 + [i64] * 3 + [ctypes.c_float, ptr, i64, ptr, i64,
                                                          ctypes.c_float, ptr, i64, ctypes.c_int]
        n = 4000
        rng = np.random.default_rng(3)
        a = rng.standard_normal((n, n), dtype=np.float32)
        b = rng.standard_normal((n, n), dtype=np.float32)
        c = np.full((n, n), np.nan, np.float32)
        print("ready", flush=True)
        t = time.monotonic()
        try:
            gemm(101, 111, 111, n, n, n, 1.0, a.ctypes.data, n, b.ctypes.data, n, 0.0,
                 c.ctypes.data, n, 0)
            time.sleep(5)  # the interrupt is raised here if the call ended before it came
        except KeyboardInterrupt:
            pass
        print(time.monotonic() - t)
        rows = [0, n // 2, n - 1]
        ref = reproblas.gemm(1.0, a[rows], b, order="sequential")
        print(np.array_equal(c[rows].view(np.uint32), ref.view(np.uint32)))
        """)
    out = interrupt_child(code, {"REPROBLAS_NUM_THREADS": "2"})
    seconds, complete = out.split()
    assert float(seconds) >= DELAY and complete == "True", out


SCAN_CHILD = """
import signal, time
import numpy as np
import reproblas
rng = np.random.default_rng(4)
small = rng.standard_normal(3 << 16).astype(np.float32)  # pieces between polls
before = reproblas.cumsum(small, order="{order}")
x = np.ones(1 << {log2n}, np.float32)
out = np.full(x.shape, np.nan, np.float32)
t = time.monotonic()
reproblas.cumsum(x, order="{order}", out=out)
full = time.monotonic() - t
assert not np.isnan(out[-1])  # written to the end
out[:] = np.nan

def alarm(signum, frame):
    raise KeyboardInterrupt
signal.signal(signal.SIGALRM, alarm)
signal.setitimer(signal.ITIMER_REAL, {delay})
t = time.monotonic()
try:
    reproblas.cumsum(x, order="{order}", out=out)
    print("finished", time.monotonic() - t, full)
except KeyboardInterrupt:
    print("interrupted", time.monotonic() - t, full, bool(np.isnan(out[-1])))
again = reproblas.cumsum(small, order="{order}")
print("same", np.array_equal(before.view(np.uint32), again.view(np.uint32)))
"""


@pytest.mark.parametrize("threads, order", [("1", "sequential"), ("1", "pairwise"),
                                            ("2", "pairwise")])
def test_long_1d_scan(threads, order):
    """A 1-D scan is one segment: the chain (sequential) and the chunked pairwise scan poll
    between pieces of 2^16 terms, so a SIGALRM whose handler raises KeyboardInterrupt stops
    a 2^28-term cumsum before its end (its last prefix left unwritten). The hook is first
    asked 50 ms into a call (thread.h): where the whole scan takes less than 0.1 s (a quiet
    fast machine: the pairwise scan runs at about 4 terms per ns), the case is skipped.
    Without the polls, a scan on one thread is one work item and runs to its end."""
    delay = 0.02
    env = {k: v for k, v in os.environ.items()
           if k not in ("REPROBLAS_ISA", "REPROBLAS_NUM_THREADS")}
    env["REPROBLAS_NUM_THREADS"] = threads
    out = subprocess.run([sys.executable, "-c", SCAN_CHILD.format(order=order, delay=delay,
                                                                  log2n=28)],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.split("\n")
    status, seconds, full, *rest = lines[0].split()
    assert lines[1] == "same True", out.stdout
    if float(full) < 0.1:  # twice the hook's first delay
        pytest.skip("needs a slower machine: a 2^28-term scan takes under 0.1 s here, too "
                    "short to be stopped early")
    assert status == "interrupted", out.stdout
    assert rest == ["True"], f"the last prefix was written: the scan ran to its end ({out.stdout})"
    assert float(seconds) < 0.5 * float(full) + 0.1, out.stdout
