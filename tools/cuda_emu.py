"""Build and drive the host emulation of the CUDA kernels (src/cuda/emu/).

``load()`` compiles src/cuda/emu/emu.cpp (which includes every kernel file)
with the system C++ compiler into a shared library, cached under
build/cuda_emu/ by a hash of the sources and flags, and returns an
``EmuModule``: the same ``get_function(name)(grid, block, args)`` interface
as ``cupy.RawModule``, taking NumPy arrays where CuPy takes device arrays.
So the host code of crlibm_py/_cuda.py and reproblas/_cuda.py (grid sizes,
pairwise items, joins) runs unchanged against the emulator in the tests.
"""
import ctypes
import hashlib
import os
import subprocess
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src"
# Same arithmetic rules as the CPU build (setup.py): no contraction, no fast math.
CXX_FLAGS = ["-std=c++20", "-O2", "-ffp-contract=off", "-fno-fast-math", "-fno-math-errno",
             "-fPIC", "-shared", "-pthread", f"-I{SRC / 'cuda'}", f"-I{SRC / 'c'}"]


def _sources():
    return sorted(p for d in ("cuda", "c/common", "c/lanes", "c/crlibm", "c/reproblas",
                              "c/order")
                  for p in (SRC / d).rglob("*") if p.suffix in (".cu", ".cuh", ".h", ".def", ".cpp"))


def build(cxx=None):
    """Path of the emulation library, compiled if its sources changed."""
    cxx = cxx or os.environ.get("CXX", "g++")
    h = hashlib.sha256(" ".join([cxx] + CXX_FLAGS).encode())
    for p in _sources():
        h.update(p.read_bytes())
    out = ROOT / "build" / "cuda_emu" / f"libcuda_emu_{h.hexdigest()[:16]}.so"
    if not out.exists():
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = out.with_suffix(f".{os.getpid()}.tmp")
        subprocess.run([cxx, *CXX_FLAGS, str(SRC / "cuda" / "emu" / "emu.cpp"), "-o", str(tmp)],
                       check=True, capture_output=True, text=True)
        os.replace(tmp, out)
    return out


class EmuFunction:
    def __init__(self, lib, name):
        self._lib, self._name = lib, name.encode()

    def __call__(self, grid, block, args):
        grid, block = (tuple(grid) + (1, 1))[:3], (tuple(block) + (1, 1))[:3]
        keep, ptrs = [], (ctypes.c_void_p * max(len(args), 1))()
        for i, a in enumerate(args):
            if isinstance(a, np.ndarray):
                v = ctypes.c_void_p(a.ctypes.data)  # a kernel pointer argument
            elif isinstance(a, np.generic):
                v = ctypes.create_string_buffer(a.tobytes(), a.itemsize)
            else:
                raise TypeError(f"{self._name.decode()}: argument {i} is a "
                                f"{type(a).__name__}; pass NumPy arrays or NumPy scalars "
                                f"(the C type of a kernel argument must be explicit)")
            keep.append(v)
            ptrs[i] = ctypes.cast(ctypes.pointer(v), ctypes.c_void_p) \
                if isinstance(v, ctypes.c_void_p) else ctypes.cast(v, ctypes.c_void_p)
        g = (ctypes.c_uint * 3)(*grid)
        b = (ctypes.c_uint * 3)(*block)
        if self._lib.emu_launch(self._name, g, b, ptrs) != 0:
            raise KeyError(f"no kernel {self._name.decode()!r} in the emulation library")


class EmuModule:
    """The emulated counterpart of a cupy.RawModule over src/cuda/*.cu."""

    def __init__(self, path=None):
        self._lib = ctypes.CDLL(str(path or build()))
        self._lib.emu_launch.restype = ctypes.c_int
        self._lib.emu_launch.argtypes = [ctypes.c_char_p, ctypes.c_void_p, ctypes.c_void_p,
                                         ctypes.c_void_p]

    def get_function(self, name):
        return EmuFunction(self._lib, name)


_module = []


def load():
    """The emulation module (built once per process)."""
    if not _module:
        _module.append(EmuModule())
    return _module[0]
