"""CUDA backend of crlibm_py, and the kernel loader shared with reproblas.

Kernels come from the CUDA sources under src/cuda/ (shipped as package data
in crlibm_py/_cuda_src/ by setup.py), compiled at first use by NVRTC with the
options of the contract: no contraction (--fmad=false), IEEE division and
square root, subnormals kept; the PTX is linted and loaded by CuPy's
RawModule (see _cuda_ptx.py for why CuPy does not compile them itself). They include
the same arithmetic headers (src/c/) as the CPU build, so every result has
the CPU's bits. CuPy is optional (the ``cuda`` extra); without it, or without
a GPU, passing a device array raises a clear error and nothing else changes.

The host code below is written against a small *device* object (``xp``: the
array module, ``function(name)``: a kernel), so the tests run it unchanged on
the host emulation of the kernels (tools/cuda_emu.py) with NumPy arrays.
"""
import contextlib
import hashlib
import math
from pathlib import Path

import numpy as np

from . import _cuda_ptx

# Contract §0 as NVRTC options; the nvcc lint build (tools/ptx_lint.py) uses the same.
# 161 / 1675: the CPU's `#pragma GCC unroll` is unknown to NVRTC / nvcc.
NVRTC_OPTIONS = ("--fmad=false", "--ftz=false", "--prec-div=true", "--prec-sqrt=true",
                 "--std=c++17", "--diag-suppress=161,1675")
THREADS = 256
MAX_BLOCKS = 4096  # elementwise grids: grid-stride loops beyond this

_PKG = Path(__file__).resolve().parent


def source_root():
    """The directory holding cuda/ and c/: the packaged copy, else the checkout's src/."""
    for root in (_PKG / "_cuda_src", _PKG.parent / "src"):
        if (root / "cuda" / "crlibm.cu").is_file():
            return root
    raise RuntimeError("crlibm_py: the CUDA kernel sources are missing from this installation "
                       "(expected crlibm_py/_cuda_src/); reinstall the package")


def sources_digest(root=None):
    """A hash of every kernel source and header."""
    root = root or source_root()
    h = hashlib.sha256()
    for p in sorted((root / "cuda").rglob("*")) + sorted((root / "c").rglob("*")):
        if p.suffix in (".cu", ".cuh", ".h"):
            h.update(str(p.relative_to(root)).encode())
            h.update(p.read_bytes())
    return h.hexdigest()[:16]


def nvrtc_options(root=None):
    root = root or source_root()
    # nvrtc/ holds the few libc headers the shared C headers include.
    return NVRTC_OPTIONS + tuple(f"-I{root / d}" for d in ("cuda", "c", "cuda/nvrtc"))


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
            import cupy
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
        self._digest = sources_digest()

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
        file = "crlibm" if name.startswith("cr_") else "reproblas"
        device = self.xp.cuda.Device()
        key = (file, device.id)
        mod = self._modules.get(key)
        if mod is None:
            # Our own NVRTC compile, linted (RawModule(code=) would add -ftz=true).
            path = _cuda_ptx.ptx_path(file, device.compute_capability, nvrtc_options(),
                                      self._digest)
            mod = self.xp.RawModule(path=str(path))
            self._modules[key] = mod
        return mod.get_function(name)


_device = []


def device():
    """The CuPy device backend (created at first use)."""
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


def apply(dev, fname, x, out=None):
    """fname(x) on the device: x a device array of a dtype that converts to float32
    exactly (checked by the caller); the result (or out) on x's device."""
    xp = dev.xp
    xc = xp.ascontiguousarray(x, dtype=np.float32)
    if out is not None:
        if not isinstance(out, xp.ndarray) or out.dtype != np.float32 or out.shape != x.shape:
            raise TypeError(f"crlibm_py.{fname}: out must be a float32 {xp.__name__} array of "
                            f"shape {x.shape}")
        target = out if out.flags.c_contiguous else xp.empty(x.shape, np.float32)
    else:
        target = xp.empty(x.shape, np.float32)
    n = xc.size
    if n:
        dev.function(f"cr_{fname}_f32")(grid_1d(dev, n), (THREADS,), (xc, target, np.int64(n)))
    if out is not None and target is not out:
        out[...] = target
        return out
    return target
