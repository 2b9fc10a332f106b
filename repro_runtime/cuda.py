"""GPU arrays and the CuPy device, shared by crlibm_py and reproblas.

CuPy is optional (the ``cuda`` extra); without it, or without a GPU, passing a
device array raises a clear error and nothing else changes. Kernels come from
the CUDA sources compiled at first use (repro_runtime.nvrtc); they include the
same arithmetic headers (src/c/) as the CPU build, so every result has the
CPU's bits.

The packages' host code is written against a small *device* object (``xp``:
the array module, ``function(name)``: a kernel, ``as_array(x)``), so the tests
run it unchanged on the host emulation of the kernels (tools/cuda_emu.py) with
NumPy arrays. Each package registers which kernel file holds the kernels of
its name prefix (``register_kernels``); this module knows no kernel names.
"""
import contextlib
import math

import numpy as np

from . import nvrtc

THREADS = 256
MAX_BLOCKS = 4096  # elementwise grids: grid-stride loops beyond this

_KERNEL_FILES = {}  # kernel name prefix -> src/cuda/<file>.cu


def register_kernels(prefix, file):
    """Kernels whose names start with prefix are in src/cuda/<file>.cu."""
    _KERNEL_FILES[prefix] = file


def kernel_file(name):
    for prefix, file in _KERNEL_FILES.items():
        if name.startswith(prefix):
            return file
    raise KeyError(f"no kernel file is registered for the kernel {name!r}")


_HOST_TYPES = (np.generic, int, float, list, tuple)


def is_device_array(x):
    """Whether x lives on a CUDA device (CuPy array, __cuda_array_interface__ or a
    DLPack tensor on a CUDA device, e.g. a torch CUDA tensor)."""
    if type(x) is np.ndarray or isinstance(x, _HOST_TYPES):
        return False  # the common cases first: this runs on every CPU call
    if type(x).__module__.split(".")[0] == "cupy":
        return True
    if hasattr(x, "__cuda_array_interface__"):
        return True
    dev = getattr(x, "__dlpack_device__", None)
    if dev is not None and not isinstance(x, np.ndarray):
        try:
            return dev()[0] in (2, 3, 13)  # kDLCUDA, kDLCUDAHost, kDLCUDAManaged
        except Exception:
            return False
    return False


class CupyDevice:
    """Kernels from RawModule over our checked PTX (once per process and device)."""

    def __init__(self):
        try:
            import cupy  # optional: only a GPU array gets here
        except ImportError:
            raise RuntimeError("crlibm_py/reproblas: a CUDA array was passed but CuPy is not "
                               "installed; pip install 'crlibm-py[cuda]' (or pass NumPy "
                               "arrays)") from None
        try:
            cupy.cuda.runtime.getDeviceCount()
        except Exception as e:
            raise RuntimeError(f"crlibm_py/reproblas: CuPy finds no usable CUDA GPU ({e})") \
                from None
        self.xp = cupy
        self._modules = {}
        self._digest = nvrtc.sources_digest()

    def as_array(self, x):
        """x as a CuPy array (zero copy for __cuda_array_interface__ / DLPack)."""
        if isinstance(x, self.xp.ndarray):
            return x
        if hasattr(x, "__cuda_array_interface__"):
            return self.xp.asarray(x)
        if hasattr(x, "__dlpack__"):
            return self.xp.from_dlpack(x)
        raise TypeError(f"{type(x).__name__} is not a CuPy array and exposes neither "
                        f"__cuda_array_interface__ nor DLPack")

    def function(self, name):
        file = kernel_file(name)
        device = self.xp.cuda.Device()
        key = (file, device.id)
        mod = self._modules.get(key)
        if mod is None:
            # Our own NVRTC compile, linted (RawModule(code=) would add -ftz=true).
            path = nvrtc.ptx_path(file, device.compute_capability, nvrtc.nvrtc_options(),
                                  self._digest)
            mod = self.xp.RawModule(path=str(path))
            self._modules[key] = mod
        return mod.get_function(name)


_device = []


def device():
    """The CuPy device (created at first use; one per process for both packages)."""
    if not _device:
        _device.append(CupyDevice())
    return _device[0]


def on_device(x):
    """A context making x's GPU current (a no-op for host arrays: emulation)."""
    d = getattr(x, "device", None)
    return d if hasattr(d, "__enter__") else contextlib.nullcontext()


def grid_1d(dev, n):
    """Blocks for an elementwise or grid-stride kernel over n elements; any
    count gives the same bits (the emulator uses few: its blocks run in turn)."""
    return (max(1, min(math.ceil(n / THREADS), getattr(dev, "max_blocks", MAX_BLOCKS))),)
