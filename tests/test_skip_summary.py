"""The end-of-run summary of skips (tests/conftest.py): one line per reason, with its count."""
import os
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def _pytest(tmp_path, source):
    """Run pytest on one test file outside the tests folder, with this repository's conftest
    loaded as a plugin (its helpers import the packages from the checkout)."""
    (tmp_path / "test_file.py").write_text(source)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(TESTS), str(TESTS.parent)] + [p for p in [os.environ.get("PYTHONPATH")] if p]))
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "conftest",
                          "-p", "no:cacheprovider", "--rootdir", str(tmp_path),
                          str(tmp_path / "test_file.py")],
                         capture_output=True, text=True, env=env, cwd=tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    return run.stdout


def test_skips_are_counted_by_reason(tmp_path):
    out = _pytest(tmp_path, "import pytest\n"
                            "@pytest.mark.parametrize('i', range(3))\n"
                            "def test_gpu(i):\n"
                            "    pytest.skip('needs a GPU (run elsewhere)')\n"
                            "@pytest.mark.skip(reason='needs a compiler')\n"
                            "def test_cc():\n"
                            "    pass\n"
                            "def test_runs():\n"
                            "    pass\n")
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if "skips, by what they need" in line)
    assert lines[start + 1:start + 4] == ["3 skipped: needs a GPU (run elsewhere)",
                                          "1 skipped: needs a compiler",
                                          "(pytest -rs lists each skipped test)"]
    assert "1 passed, 4 skipped" in out


def test_no_summary_without_skips(tmp_path):
    out = _pytest(tmp_path, "def test_runs():\n    pass\n")
    assert "1 passed" in out and "skips, by what they need" not in out
