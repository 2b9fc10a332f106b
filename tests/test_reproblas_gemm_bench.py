"""Smoke tests of tools/bench_reproblas_gemm.py and tools/bench_reproblas_overhead.py: tiny
sizes, every row reported."""
import json
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


def test_overhead_bench_reports_every_row(tmp_path):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(REPO), str(REPO / "tools")] + [p for p in [os.environ.get("PYTHONPATH")] if p]))
    json_file = tmp_path / "overhead.json"
    proc = subprocess.run([sys.executable, str(REPO / "tools" / "bench_reproblas_overhead.py"),
                           "--repeat", "1", "--calls", "5", "--json", str(json_file)],
                          capture_output=True, text=True, env=env, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr
    rows = [line.split() for line in proc.stdout.splitlines()[2:]]
    names = ["dot", "sum", "nrm2", "gemv", "gemv_t", "gemm", "matmul"]
    assert [(r[0], r[1]) for r in rows] == [(n, d) for d in ("float32", "float64") for n in names]
    for r in rows:  # microseconds per call, positive; the difference is theirs
        assert float(r[2]) > 0 and float(r[3]) > 0
        assert abs(float(r[4]) - (float(r[2]) - float(r[3]))) < 0.02
    assert len(json.loads(json_file.read_text())["rows"]) == len(rows)
