"""The README's main job ends with the two demos: they must run and report sameness."""
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
    assert re.search(r"reproblas\s+0 of \d+", out)


def test_crlibm_demo_finds_no_wrong_result(capsys):
    pytest.importorskip("gmpy2", reason="needs gmpy2 (pip install -e '.[test]')")
    crlibm_demo.main(["--n", "300"])
    out = capsys.readouterr().out
    assert crlibm_py.FUNCTIONS[:7] == ("exp", "log", "sin", "cos", "tanh", "erf", "rsqrt")
    for fname in crlibm_py.FUNCTIONS:
        row = re.search(rf"^{fname}\s+\S+(?: %)?\s+(\d+)\s", out, re.M)
        assert row is not None and row.group(1) == "0", out


@pytest.mark.parametrize("demo,smallest", [(reproblas_demo, 6), (crlibm_demo, 1)])
def test_demo_sizes_below_the_smallest_are_usage_errors(demo, smallest, capsys):
    with pytest.raises(SystemExit) as exc:
        demo.main(["--n", str(smallest - 1)])
    assert exc.value.code == 2 and f"--n must be at least {smallest}" in capsys.readouterr().err
