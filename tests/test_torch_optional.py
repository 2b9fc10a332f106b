"""torch is optional: without it, reproblas imports and reproblas.torch explains itself."""
import subprocess
import sys

HIDE_TORCH = "import sys; sys.modules['torch'] = None  # as if torch were not installed\n"


def run(code):
    return subprocess.run([sys.executable, "-c", HIDE_TORCH + code], capture_output=True,
                          text=True, timeout=120)


def test_reproblas_imports_without_torch():
    done = run("import numpy as np, reproblas\nprint(reproblas.sum(np.ones(3)))\n"
               "assert 'torch' not in [m for m in sys.modules if sys.modules[m] is not None]")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "3.0"


def test_reproblas_torch_without_torch_is_a_clear_import_error():
    done = run("try:\n    import reproblas.torch\nexcept ImportError as e:\n    print(e)\n")
    assert done.returncode == 0, done.stderr
    assert "needs PyTorch" in done.stdout and "crlibm-py[torch]" in done.stdout
