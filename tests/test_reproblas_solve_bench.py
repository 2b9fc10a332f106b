"""Smoke test of tools/bench_reproblas_solve.py: runs on tiny sizes, reports every row."""
import os
import pathlib
import subprocess
import sys

import pytest

REPO = pathlib.Path(__file__).resolve().parents[1]
SCRIPT = REPO / "tools" / "bench_reproblas_solve.py"


def test_bench_reports_every_row(tmp_path):
    pytest.importorskip("scipy", reason="needs scipy (pip install -e '.[test]')")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(REPO), str(REPO / "tools")] + [p for p in [os.environ.get("PYTHONPATH")] if p]))
    out = tmp_path / "solve.json"
    proc = subprocess.run([sys.executable, str(SCRIPT), "--sizes", "33", "--threads", "1", "2",
                           "--repeat", "1", "--json", str(out)], capture_output=True, text=True,
                          env=env, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr
    rows = [line.split() for line in proc.stdout.splitlines()[1:]]
    # routine x dtype x triangle x threads x order
    assert len(rows) == 2 * 2 * 2 * 2 * 2, proc.stdout
    for r in rows:
        assert r[0] in ("trsm", "trsv") and r[3] in ("lower", "upper")
        assert r[5] in ("sequential", "pairwise")
        assert float(r[6]) > 0 and float(r[7]) > 0 and float(r[8]) > 0
    assert out.stat().st_size > 0
