"""Ctrl-C during a long call: SIGINT stops a reproblas gemm / conv2d or a crlibm_py
ufunc call over a huge array within a fraction of a second (between the core's work
items, or the ufunc loop's chunks), raising KeyboardInterrupt, instead of when the
call ends. Afterwards the same process computes as before: the same bits as a call
made before the interrupt (no stop flag left set on the pool).

Each case runs in a subprocess: it makes a small reference call, prints "ready",
starts a call that takes several seconds uninterrupted (gemm n = 8000: about 6 s on
2 threads and 11 s on 1 of an AMD EPYC core; conv2d 8x256x128x128 with 7x7 kernels:
4 s on 2 threads; exp of 2^26 float32 on the scalar path: 4.6 s) and reports how
long the call ran before KeyboardInterrupt reached it. The signal comes 0.5 s after
"ready".
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
BOUND = 3.0  # the interrupted call must end this long after it started (far below its length)

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


def run_interrupted(setup, call, small, env):
    code = CHILD.format(setup=textwrap.dedent(setup).strip(),
                        call=call, small=small)
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
    lines = out.split("\n")
    status, seconds = lines[0].split()
    assert status == "interrupted", out
    assert float(seconds) < BOUND, f"the call ran {seconds} s; SIGINT came after {DELAY} s"
    assert lines[1] == "same True", out


@pytest.mark.parametrize("threads, order", [("1", "sequential"), ("2", "pairwise")])
def test_gemm(threads, order):
    setup = f"""
        import reproblas
        rng = np.random.default_rng(1)
        sa = rng.standard_normal((1100, 300)).astype(np.float32)
        sb = rng.standard_normal((300, 2100)).astype(np.float32)
        before = reproblas.gemm(1.0, sa, sb, order="{order}")  # several work items
        big = np.ones((8000, 8000), np.float32)
        """
    run_interrupted(setup, f'reproblas.gemm(1.0, big, big, order="{order}")',
                    f'reproblas.gemm(1.0, sa, sb, order="{order}")',
                    {"REPROBLAS_NUM_THREADS": threads})


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
                    {"REPROBLAS_NUM_THREADS": threads})


def test_crlibm_ufunc():
    """One contiguous array: NumPy runs the loop once for all of it (scalar path: slow
    enough per element that 256 MiB of input takes seconds)."""
    setup = """
        import crlibm_py
        small = np.linspace(-90, 90, 3 << 20, dtype=np.float32)  # three chunks
        before = crlibm_py.exp(small)
        x = np.linspace(-90, 90, 1 << 26, dtype=np.float32)
        """
    run_interrupted(setup, "crlibm_py.exp(x, out=x)", "crlibm_py.exp(small)",
                    {"CRLIBM_ISA": "scalar"})
