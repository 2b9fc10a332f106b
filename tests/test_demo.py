"""The README's main job runs the crlibm_py and reproblas demos: they must run and report
sameness (the LAPACK and torch demos have their own test files)."""
import re

import pytest

import crlibm_py
from crlibm_py import demo as crlibm_demo
from reproblas import demo as reproblas_demo


def test_reproblas_demo_reports_one_result_per_routine(capsys):
    reproblas_demo.main(["--n", "40"])
    out = capsys.readouterr().out
    rows = re.findall(r"^(gemm|dot|conv2d)\s+(sequential|pairwise)\s+(\d+)\s", out, re.M)
    assert len(rows) == 6
    assert {r[2] for r in rows} == {"1"}
    # the comparison table: its last column (reproblas) finds no difference in either question
    header = re.search(r"^question\s+(NumPy.*?)\s{2,}reproblas$", out, re.M)
    assert header is not None, out
    answers = re.findall(r"^(row 0 of a @ b.*|a @ b: 1 vs 2 threads.*)\s(\d+) of (\d+) differ$",
                         out, re.M)
    assert len(answers) == 2 and all(r[1] == "0" and int(r[2]) > 0 for r in answers), out
    # NumPy's thread-count answer is explained, whatever it is
    numpy_threads = re.search(r"^a @ b: 1 vs 2 threads\s+(.+?)\s{2,}", out, re.M).group(1)
    explained = {"not measured": "needs 2 BLAS threads", "0 of": "gave the same bits at this size"}
    for start, note in explained.items():
        if numpy_threads.startswith(start):
            assert note in out, out
            break
    else:
        assert "blocks the product by thread count" in out, out


def test_crlibm_demo_finds_no_wrong_result(capsys):
    pytest.importorskip("gmpy2", reason="needs gmpy2 (pip install -e '.[test]')")
    crlibm_demo.main(["--n", "300"])
    out = capsys.readouterr().out
    assert crlibm_py.FUNCTIONS[:7] == ("exp", "log", "sin", "cos", "tanh", "erf", "rsqrt")
    for fname in crlibm_py.FUNCTIONS:
        baseline = crlibm_demo._entry(fname).accuracy
        row = re.search(rf"^{fname}\s+{re.escape(baseline)}\s+\S+(?: %)?\s+(\d+)\s", out, re.M)
        assert row is not None and row.group(1) == "0", out
    assert "baseline (float32)" in out and "scipy.special.erf" in out, out


@pytest.mark.parametrize("demo,name", [(reproblas_demo, "reproblas"), (crlibm_demo, "crlibm_py")])
def test_demo_help_is_plain_text(demo, name, capsys):
    with pytest.raises(SystemExit) as exc:
        demo.main(["--help"])
    out = capsys.readouterr().out
    assert exc.value.code == 0 and f"usage: python -m {name}.demo" in out
    assert "``" not in out and ":func:" not in out


@pytest.mark.parametrize("demo,smallest", [(reproblas_demo, 6), (crlibm_demo, 1)])
def test_demo_sizes_below_the_smallest_are_usage_errors(demo, smallest, capsys):
    with pytest.raises(SystemExit) as exc:
        demo.main(["--n", str(smallest - 1)])
    assert exc.value.code == 2 and f"--n must be at least {smallest}" in capsys.readouterr().err
