"""Shared pieces of the CUDA tests: the emulated device (host build of the
.cu kernels driven by the real host code), nvcc discovery, CuPy/GPU probes."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

import cuda_emu  # noqa: E402


class EmuDevice:
    """The device object of repro_runtime/cuda.py over the host emulation."""
    xp = np
    max_blocks = 8  # blocks run in turn on 2 cores: grid-stride loops do the rest

    def __init__(self):
        try:
            self._module = cuda_emu.load()
        except subprocess.CalledProcessError as e:
            pytest.fail(f"the host emulation of src/cuda failed to build:\n{e.stderr}")

    def function(self, name):
        return self._module.get_function(name)

    def as_array(self, x):
        return x.view(np.ndarray) if isinstance(x, np.ndarray) else np.asarray(x)


def nvcc_or_skip():
    """Path of nvcc; skips where it is absent, but fails in CI (CI=true)."""
    nvcc = shutil.which("nvcc") or ("/usr/local/cuda/bin/nvcc"
                                    if os.path.exists("/usr/local/cuda/bin/nvcc") else None)
    if nvcc is None:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail("nvcc not found: CI must compile and lint the CUDA kernels "
                        "(install the CUDA toolkit or put nvcc on PATH)")
        pytest.skip("needs nvcc, the CUDA toolkit's compiler, on PATH (install the CUDA "
                    "toolkit); no GPU is needed")
    return nvcc


def gpu_or_skip():
    """The CuPy device backend, or a skip naming what is missing."""
    try:
        import cupy
    except ImportError:
        pytest.skip("needs a CUDA GPU and CuPy (pip install -e '.[cuda]'; on a GPU machine "
                    "pytest -m cuda runs these)")
    try:
        if cupy.cuda.runtime.getDeviceCount() < 1:
            raise RuntimeError("no device")
    except Exception as e:
        pytest.skip(f"needs a CUDA GPU (CuPy found none: {e}); on a GPU machine pytest -m cuda "
                    f"runs these")
    from repro_runtime import cuda
    return cuda.device()


def same_bits(got, expected):
    """Bitwise equality (reproblas: every NaN counts as equal, contract §0)."""
    got, expected = np.asarray(got), np.asarray(expected)
    assert got.dtype == expected.dtype and got.shape == expected.shape, \
        (got.dtype, got.shape, expected.dtype, expected.shape)
    u = {4: np.uint32, 8: np.uint64}[got.dtype.itemsize]
    g, e = got.reshape(-1).view(u), expected.reshape(-1).view(u)
    nan = np.isnan(got.reshape(-1)) & np.isnan(expected.reshape(-1))
    bad = np.nonzero((g != e) & ~nan)[0]
    first = bad[:5]
    assert bad.size == 0, (f"{bad.size} of {g.size} differ; first at {first}: got "
                           f"{got.reshape(-1)[first]}, expected {expected.reshape(-1)[first]}")


class EmuArray(np.ndarray):
    """A host array that the dispatchers take for a GPU array (it has
    __cuda_array_interface__), so the public API runs the emulated kernels."""

    @property
    def __cuda_array_interface__(self):
        return {"shape": self.shape, "typestr": self.dtype.str, "version": 3,
                "data": (self.ctypes.data, False), "strides": self.strides}


def emu_array(x):
    return np.asarray(x).view(EmuArray)
