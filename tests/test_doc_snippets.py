"""Every Python code block of the README and docs/ runs as pasted, each on its own (a reader
copies one block into a fresh interpreter)."""
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)
# Blocks that need more than a fresh interpreter, with the reason: matched by a substring.
NOT_RUN = {"rb_ext.cpp": "builds the C++ file of the block above with torch's compiler"}


def blocks():
    for path in [ROOT / "README.md"] + sorted((ROOT / "docs").rglob("*.md")):
        if "_build" in path.parts:
            continue
        text = path.read_text()
        for m in BLOCK.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            yield pytest.param(m.group(1), id=f"{path.relative_to(ROOT)}:{line}")


def test_there_are_blocks():
    assert len(list(blocks())) >= 5


@pytest.mark.parametrize("code", list(blocks()))
def test_block_runs_as_pasted(code, monkeypatch, capsys):
    for marker, why in NOT_RUN.items():
        if marker in code:
            pytest.skip(f"not run here: {why}")
    if "torch" in code:
        pytest.importorskip("torch", reason="needs torch (pip install -e '.[torch]')")
    if "cupy" in code:
        pytest.importorskip("cupy", reason="needs a CUDA GPU and CuPy (pip install -e '.[cuda]')")
    monkeypatch.setenv("REPROBLAS_NUM_THREADS", "2")
    exec(compile(code, "<doc block>", "exec"), {"__name__": "__doc_block__"})
