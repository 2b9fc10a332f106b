"""tools/bench.py: asv from any directory of a fresh checkout (machine registered on first use,
the package of the running Python measured unless an environment is named)."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

import bench  # noqa: E402


@pytest.mark.parametrize("given, expected", [
    (["run", "--quick"], ["run", "--quick", "--python=same"]),
    (["check"], ["check", "--python=same"]),
    (["run", "--python=/usr/bin/python3"], ["run", "--python=/usr/bin/python3"]),
    (["run", "--python", "3.12"], ["run", "--python", "3.12"]),
    (["run", "-E", "existing:python3"], ["run", "-E", "existing:python3"]),
    (["run", "-Eexisting"], ["run", "-Eexisting"]),
    (["continuous", "--environment=virtualenv", "main"],
     ["continuous", "--environment=virtualenv", "main"]),
    (["machine", "--yes"], ["machine", "--yes"]),
    (["publish"], ["publish"]),
    ([], []),
])
def test_asv_args(given, expected):
    assert bench.asv_args(given) == expected


def test_usage_without_a_command(capsys):
    assert bench.main([]) == 2
    assert "tools/bench.py asv check" in capsys.readouterr().err
    assert bench.main(["--help"]) == 0


def test_asv_check_from_elsewhere_on_a_new_machine(tmp_path):
    """From another directory, with no asv machine file (a new HOME): the wrapper registers
    the machine, and asv finds and checks every benchmark of the suite."""
    pytest.importorskip("asv", reason="needs asv (pip install -e '.[bench]')")
    home = tmp_path / "home"
    home.mkdir()
    env = dict(os.environ, HOME=str(home))
    run = subprocess.run([sys.executable, str(ROOT / "tools" / "bench.py"), "asv", "check"],
                         cwd=tmp_path, env=env, capture_output=True, text=True,
                         stdin=subprocess.DEVNULL, timeout=600)
    out = run.stdout + run.stderr
    assert run.returncode == 0, out
    assert (home / ".asv-machine.json").is_file()
    assert "registering it" in out and "No problems found" in out
    # the second time the machine is known
    run = subprocess.run([sys.executable, str(ROOT / "tools" / "bench.py"), "asv", "check"],
                         cwd=tmp_path, env=env, capture_output=True, text=True,
                         stdin=subprocess.DEVNULL, timeout=600)
    assert run.returncode == 0 and "registering it" not in run.stdout + run.stderr
