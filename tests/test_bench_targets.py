"""tools/bench_targets.py: which rows each target covers, the lowest / highest speed ratio, the
count below the target, and the level-1 time ratio read as its inverse."""
import json
import pathlib
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parents[1]


def _row(routine, n, order, ratio, **more):
    return {"routine": routine, "dtype": "float32", "n": n, "threads": 1, "order": order,
            "ratio": ratio, **more}


def _write(path, rows):
    path.write_text(json.dumps({"machine": {"cpu": "test"}, "rows": rows}))
    return str(path)


def test_targets_from_json(tmp_path):
    gemm = _write(tmp_path / "g.json", [
        _row("gemm", 256, "sequential", 0.95), _row("gemm", 2048, "sequential", 0.85),
        _row("gemm", 256, "pairwise", 0.7),
        _row("gemv", 1024, "sequential", 0.7), _row("gemv", 2048, "pairwise", 0.9),
        _row("gemv", 3000, "sequential", 1.0), _row("gemv", 4096, "sequential", 1.1),
        _row("gemv_t", 1024, "pairwise", 0.79), _row("gemv_f", 6000, "sequential", 0.8)])
    conv = _write(tmp_path / "c.json", [_row("conv2d", 1, "sequential", 1.2, channels=64),
                                        _row("conv2d", 1, "pairwise", 0.3, channels=64)])
    # level 1: time ratios; 1.25 is a speed ratio of 0.8 (on the target), 2.0 one of 0.5
    l1 = _write(tmp_path / "l.json", [_row("dot", 1 << 24, "pairwise", 1.25),
                                      _row("asum", 1 << 24, "pairwise", 0.5),
                                      _row("dot", 1 << 24, "sequential", 2.0)])
    out = tmp_path / "t.json"
    proc = subprocess.run([sys.executable, str(REPO / "tools" / "bench_targets.py"), "--gemm",
                           gemm, "--conv", conv, "--l1", l1, "--json", str(out)],
                          capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
    got = {r["target"]: r for r in json.loads(out.read_text())["rows"]}
    summary = {name: (r["rows"], round(r["lowest"], 6), round(r["highest"], 6), r["below"])
               for name, r in got.items()}
    assert summary == {
        "gemm, sequential": (2, 0.85, 0.95, 1),
        "gemm, pairwise": (1, 0.7, 0.7, 0),
        "gemv, C-ordered A in the L3 (n <= 2048)": (2, 0.7, 0.9, 1),
        "gemv, C-ordered A from DRAM (n > 2048)": (2, 1.0, 1.1, 0),
        "gemv, transposed or Fortran A in the L3 (n <= 2048)": (1, 0.79, 0.79, 1),
        "gemv, transposed or Fortran A from DRAM (n > 2048)": (1, 0.8, 0.8, 0),
        "conv2d, sequential, against PyTorch": (1, 1.2, 1.2, 0),
        "dot / sum / asum / nrm2, pairwise": (2, 0.8, 2.0, 0),
    }
    short_l3 = got["gemv, C-ordered A in the L3 (n <= 2048)"]["short"]
    assert short_l3 == "gemv float32 n=1024 1t seq 0.70"
    assert got["dot / sum / asum / nrm2, pairwise"]["short"] == ""
    assert got["gemm, sequential"]["lowest_row"] == "gemm float32 n=2048 1t seq 0.85"
    assert "lowest: gemv float32 n=1024 1t seq 0.70" in proc.stdout
