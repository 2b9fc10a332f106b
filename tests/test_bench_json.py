"""The reproblas benchmark scripts' --json output: the rows and fields that docs/performance.md
renders (docs/_ext/benchdocs.py), on tiny sizes."""
import json
import os
import pathlib
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parents[1]


def _run(script, args, out):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(REPO)] + [p for p in [os.environ.get("PYTHONPATH")] if p]))
    proc = subprocess.run([sys.executable, str(REPO / "tools" / script), *args, "--json",
                           str(out)], capture_output=True, text=True, env=env, timeout=300,
                          check=False)
    assert proc.returncode == 0, proc.stderr
    with open(out) as f:
        return json.load(f)


def _check_machine(machine, script):
    for key in ("cpu", "logical_cpus", "numpy", "reproblas_isa", "date_utc", "argv"):
        assert key in machine, key
    assert machine["argv"][0].endswith(script)


def test_level1_json(tmp_path):
    data = _run("bench_reproblas.py", ["--log2n", "9", "--threads", "1", "2", "--repeat", "1"],
                tmp_path / "l1.json")
    _check_machine(data["machine"], "bench_reproblas.py")
    rows = data["rows"]
    assert len(rows) == 2 * 2 * 2 * 4  # dtypes x threads x orders x routines
    assert {(r["dtype"], r["threads"], r["order"], r["routine"]) for r in rows} == {
        (d, t, o, k) for d in ("float32", "float64") for t in (1, 2)
        for o in ("sequential", "pairwise") for k in ("dot", "sum", "asum", "nrm2")}
    for r in rows:
        assert r["n"] == 512
        assert r["ns_per_element"] > 0 and r["numpy_ns_per_element"] > 0
        assert abs(r["ratio"] - r["ns_per_element"] / r["numpy_ns_per_element"]) < 1e-9 * r["ratio"]


def test_gemm_json(tmp_path):
    data = _run("bench_reproblas_gemm.py", ["--sizes", "17", "--threads", "1", "--repeat", "1",
                                            "--dtypes", "float64"], tmp_path / "g.json")
    _check_machine(data["machine"], "bench_reproblas_gemm.py")
    rows = data["rows"]
    assert {(r["routine"], r["order"]) for r in rows} == {
        (k, o) for k in ("gemm", "gemv") for o in ("sequential", "pairwise")}
    for r in rows:
        assert (r["dtype"], r["n"], r["threads"]) == ("float64", 17, 1)
        assert r["gflops"] > 0 and r["openblas_gflops"] > 0
        assert abs(r["ratio"] - r["gflops"] / r["openblas_gflops"]) < 1e-9 * r["ratio"]
