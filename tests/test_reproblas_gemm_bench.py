"""Smoke test of tools/bench_reproblas_gemm.py: runs on tiny sizes, reports every row."""
import os
import pathlib
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parents[1]
SCRIPT = REPO / "tools" / "bench_reproblas_gemm.py"


def test_bench_reports_every_row():
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(REPO)] + [p for p in [os.environ.get("PYTHONPATH")] if p]))
    proc = subprocess.run([sys.executable, str(SCRIPT), "--sizes", "33", "--threads", "1", "2",
                           "--repeat", "1"], capture_output=True, text=True, env=env,
                          timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr
    rows = [line.split() for line in proc.stdout.splitlines()[2:]]
    # routine x dtype x threads x order
    assert len(rows) == 2 * 2 * 2 * 2, proc.stdout
    for r in rows:
        assert r[0] in ("gemm", "gemv") and r[4] in ("sequential", "pairwise")
        assert float(r[5]) > 0 and float(r[7]) > 0
