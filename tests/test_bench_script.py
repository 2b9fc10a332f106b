"""Smoke test of tools/bench_crlibm.py: it runs on tiny arrays and reports every row."""
import json
import os
import pathlib
import subprocess
import sys

import crlibm_py
from crlibm_py import _registry

REPO = pathlib.Path(__file__).resolve().parents[1]
SCRIPT = REPO / "tools" / "bench_crlibm.py"
# One row per (case, path): sin and cos have a second, huge-argument case; a function
# added to the registry (src/c/crlibm/functions.def) appends its cases.
CASES = ["exp", "log", "sin", "sin", "cos", "cos", "tanh", "erf", "rsqrt"]
CASES += [f for f in crlibm_py.FUNCTIONS[7:] for _ in _registry.function(f).bench]


def _run(*args):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(REPO)] + [p for p in [os.environ.get("PYTHONPATH")] if p]))
    env.pop("CRLIBM_ISA", None)
    proc = subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True,
                          env=env, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_script_reports_every_function_and_path(tmp_path):
    paths = [p for p in crlibm_py.isa_names() if crlibm_py.isa_supported(p)]
    json_file = tmp_path / "bench.json"
    # 1001 elements: not a multiple of any vector width, so the tail code runs too.
    out = _run("--size", "1001", "--repeat", "2", "--min-time", "0", "--json", str(json_file))
    lines = out.splitlines()
    header = lines[1].split()
    for column in ("function", "path", "ns/el", "ours/numpy", "vs", "scalar"):
        assert column in header
    rows = [line.split() for line in lines[2:]]
    assert [(r[0], r[-9]) for r in rows] == [(f, p) for f in CASES for p in paths]
    for r in rows:  # ns/el, numpy ns/el and ours/numpy are positive numbers
        assert float(r[-8]) > 0 and float(r[-6]) > 0 and float(r[-5]) > 0
        if r[0] == "erf" and r[-4] != "-":  # scipy present: its ratio too
            assert float(r[-3]) > 0
        if r[-2] != "-":  # the scalar-call baseline and the speedup against it
            assert float(r[-2]) > 0 and float(r[-1].rstrip("x")) > 0
    data = json.loads(json_file.read_text())
    assert data["machine"]["paths"] == paths and data["machine"]["size"] == 1001
    assert [(r["function"], r["path"]) for r in data["rows"]] == [(f, p) for f in CASES
                                                                  for p in paths]
    for r in data["rows"]:
        assert r["ratio_numpy"] == r["ns_per_element"] / r["numpy_ns_per_element"] > 0
        if crlibm_py._ufuncs.scalar_calls_available():
            assert r["speedup_vs_scalar"] == r["scalar_calls_ns_per_element"] / r["ns_per_element"]

    md = _run("--size", "64", "--repeat", "1", "--min-time", "0", "--functions", "rsqrt",
              "--markdown")
    table = [line for line in md.splitlines() if line.startswith("|")]
    assert table[0].startswith("| function | input | path | ns/el |")
    assert len(table) == 2 + len(paths) and all("rsqrt" in line for line in table[2:])
