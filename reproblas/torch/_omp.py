"""reproblas's parallel calls on PyTorch's OpenMP threads.

PyTorch's OpenMP threads poll for work for a while after each parallel op, and so do
reproblas's pool workers after each call: a model that alternates PyTorch ops and reproblas
calls keeps both sets polling on the same cores, and each call waits for a core. When
PyTorch's parallel backend is OpenMP, importing reproblas.torch makes every reproblas call
run its parts on PyTorch's team instead (and split from less work: the team is usually
awake). No result changes: who runs a call's parts, and where they end, never changes a bit
(docs/contract.md §0). REPROBLAS_TORCH_POOL=own (read at import) keeps reproblas's own pool.
See docs/design/torch-openmp-team.md.
"""
import ctypes
import os

import torch

from .. import _core

_NAMES = ("libgomp", "libiomp", "libomp")


def _loaded_runtimes():
    """Paths of the OpenMP runtimes loaded in this process, PyTorch's own first."""
    try:
        with open("/proc/self/maps") as maps:
            paths = {line.split(None, 5)[-1].strip() for line in maps if ".so" in line}
    except OSError:  # not Linux: no runtime is looked for
        return []
    found = [p for p in paths if os.path.basename(p).startswith(_NAMES)]
    torch_dir = os.path.dirname(torch.__file__)
    return sorted(found, key=lambda p: not p.startswith(torch_dir))


def _gomp_parallel():
    """The address of GOMP_parallel in PyTorch's OpenMP runtime, or 0."""
    if "parallel backend: OpenMP" not in torch.__config__.parallel_info():
        return 0
    for path in _loaded_runtimes():
        try:  # RTLD_NOLOAD: the handle of the copy already loaded, never a second copy
            lib = ctypes.CDLL(path, mode=os.RTLD_NOLOAD | os.RTLD_LAZY)
            return ctypes.cast(lib.GOMP_parallel, ctypes.c_void_p).value or 0
        except (OSError, AttributeError):
            continue
    return 0


def share_torch_threads():
    """Run reproblas's parallel calls on PyTorch's OpenMP team, unless
    REPROBLAS_TORCH_POOL=own or PyTorch does not use OpenMP. Returns whether it does."""
    choice = os.environ.get("REPROBLAS_TORCH_POOL", "torch").strip().lower() or "torch"
    if choice not in ("torch", "own"):
        raise ValueError(f"REPROBLAS_TORCH_POOL must be 'torch' or 'own', not {choice!r}")
    address = _gomp_parallel() if choice == "torch" else 0
    _core.use_omp_runtime(address)
    return address != 0
