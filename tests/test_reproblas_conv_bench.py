"""Smoke test of tools/bench_reproblas_conv.py: tiny layers, every routine and order, --json."""
import json
import os
import pathlib
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parents[1]
SCRIPT = REPO / "tools" / "bench_reproblas_conv.py"
ROUTINES = ["conv2d", "conv2d_grad_input", "conv2d_grad_weight", "conv2d_grad_bias"]


def test_bench_reports_every_row(tmp_path):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(REPO)] + [p for p in [os.environ.get("PYTHONPATH")] if p]))
    out = tmp_path / "conv.json"
    proc = subprocess.run([sys.executable, str(SCRIPT), "--layers", "4x6", "--batch", "2",
                           "--threads", "1", "--repeat", "1", "--dtypes", "float64",
                           "--routines", *ROUTINES, "--json", str(out)],
                          capture_output=True, text=True, env=env, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(out.read_text())
    assert data["machine"]["argv"][0].endswith("bench_reproblas_conv.py")
    rows = data["rows"]
    assert {(r["routine"], r["threads"], r["order"]) for r in rows} == {
        (k, t, o) for k in ROUTINES for t in (1,) for o in ("sequential", "pairwise")}
    for r in rows:
        assert (r["dtype"], r["batch"], r["channels"], r["hw"]) == ("float64", 2, 4, 6)
        assert r["gflops"] > 0
        if r["torch_gflops"] is not None:  # PyTorch installed
            assert abs(r["ratio"] - r["gflops"] / r["torch_gflops"]) < 1e-9 * r["ratio"]
    assert len(proc.stdout.splitlines()) == 2 + len(rows)


def test_bench_shapes_option(tmp_path):
    """--shapes N,C,K,H,W,R,S,PAD: layers with C != K (the demo's stem), any kernel
    and padding; the flops use the output size."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(REPO)] + [p for p in [os.environ.get("PYTHONPATH")] if p]))
    out = tmp_path / "conv.json"
    proc = subprocess.run([sys.executable, str(SCRIPT), "--shapes", "3,1,4,6,5,3,3,1",
                           "2,3,2,5,5,2,3,0", "--threads", "1", "--repeat", "1",
                           "--orders", "sequential", "--routines", "conv2d",
                           "conv2d_grad_weight", "--json", str(out)],
                          capture_output=True, text=True, env=env, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr
    rows = json.loads(out.read_text())["rows"]
    assert len(rows) == 4
    got = {(r["batch"], r["channels"], r["out_channels"], r["hw"], r["width"],
            tuple(r["kernel"]), r["padding"]) for r in rows}
    assert got == {(3, 1, 4, 6, 5, (3, 3), 1), (2, 3, 2, 5, 5, (2, 3), 0)}
    bad = subprocess.run([sys.executable, str(SCRIPT), "--shapes", "1,2,3"],
                         capture_output=True, text=True, env=env, timeout=300, check=False)
    assert bad.returncode != 0 and "8 ints" in bad.stderr
