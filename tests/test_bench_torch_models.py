"""Smoke test of tools/bench_torch_models.py: one short round, every requested row."""
import json
import os
import pathlib
import subprocess
import sys

import pytest

pytest.importorskip("torch")
REPO = pathlib.Path(__file__).resolve().parents[1]


def test_script_reports_each_task_and_thread_count(tmp_path):
    json_file = tmp_path / "models.json"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), str(REPO / "tools")]))
    proc = subprocess.run([sys.executable, str(REPO / "tools" / "bench_torch_models.py"),
                           "--repeat", "1", "--budget", "0", "--threads", "1", "2",
                           "--json", str(json_file)],
                          capture_output=True, text=True, env=env, timeout=600, check=False)
    assert proc.returncode == 0, proc.stderr
    rows = json.loads(json_file.read_text())["rows"]
    assert [(r["model"], r["task"], r["threads"]) for r in rows] == [
        (m, task, t) for m in ("cnn", "gpt") for t in (1, 2) for task in ("train", "infer")]
    for r in rows:
        assert r["ours_s"] > 0 and r["baseline_s"] > 0
        assert r["ratio"] == pytest.approx(r["ours_s"] / r["baseline_s"])
