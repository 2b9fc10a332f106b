"""Shared pieces of the CUDA tests: the emulated device (host build of the
.cu kernels driven by the real host code), nvcc discovery, CuPy/GPU probes.

With CUDA_EMU_ON_GPU=1 (tools/device_session.sh, stage gpu-emu) the emulated device
runs the real kernels on a GPU instead, over the same host arrays (GpuMirrorModule):
every emulation test then checks the GPU's bits."""
import ctypes
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
        if os.environ.get("CUDA_EMU_ON_GPU") == "1":
            from repro_runtime import cuda
            self._module, self.max_blocks = GpuMirrorModule(gpu_or_skip()), cuda.MAX_BLOCKS
            return
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


def _merged_spans(arrays):
    """The byte intervals the arrays' elements occupy, overlapping ones merged (an
    in-place call's operands must share one device copy)."""
    bounds = sorted(np.lib.array_utils.byte_bounds(a) for a in arrays if a.size)
    spans = []
    for lo, hi in bounds:
        if spans and lo < spans[-1][1]:
            spans[-1][1] = max(spans[-1][1], hi)
        else:
            spans.append([lo, hi])
    return spans


class GpuMirrorModule:
    """Real kernels over host arrays: each launch copies the memory its array arguments
    span to the GPU, runs the kernel there and copies it back, so a host array behaves
    as in the emulation (the kernel reads and writes it)."""

    def __init__(self, device):
        self._device = device

    def get_function(self, name):
        kernel = self._device.function(name)
        cp = self._device.xp

        def launch(grid, block, args):
            arrays = [a for a in args if isinstance(a, np.ndarray)]
            copies = []
            for lo, hi in _merged_spans(arrays):
                host = np.ctypeslib.as_array((ctypes.c_uint8 * (hi - lo)).from_address(lo))
                copies.append((lo, hi, host, cp.asarray(host)))

            def on_device(a):
                if not isinstance(a, np.ndarray):
                    return a  # a NumPy scalar: by value, as in the emulation
                if not a.size:
                    return cp.empty(1, np.uint8)
                p = a.ctypes.data
                lo, _, _, dev = next(c for c in copies if c[0] <= p < c[1])
                return dev[p - lo:]
            kernel(tuple(grid), tuple(block), tuple(on_device(a) for a in args))
            for _, _, host, dev in copies:
                host[...] = dev.get()
        return launch
