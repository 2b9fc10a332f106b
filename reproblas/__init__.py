"""Reproducible BLAS: every result is defined bit for bit (docs/contract.md §2-§3).

Reductions add their terms in a documented, fixed order, selected with
``order="sequential"`` (left to right, the default) or ``order="pairwise"``
(a fixed binary tree), so results are identical on every thread count, CPU
code path and CPU. See docs/reproblas.md.

Environment (read at every call): ``REPROBLAS_NUM_THREADS`` (default: all
CPUs of this process), ``REPROBLAS_ISA`` (``scalar``, ``avx2``, ``avx512``).
"""
from repro_runtime.util import package_path

from ._core import best_isa, isa_names
from ._conv import conv2d, conv2d_grad_bias, conv2d_grad_input, conv2d_grad_weight
from ._level1 import asum, axpy, dot, iamax, nrm2, scal, sum
from ._level23 import gemm, gemv, ger, matmul
from ._solve import trsm, trsv
from ._validate import ORDERS

__all__ = ["sum", "asum", "dot", "nrm2", "iamax", "axpy", "scal", "ORDERS", "best_isa",
           "isa_names", "gemm", "gemv", "ger", "matmul", "trsv", "trsm", "conv2d",
           "conv2d_grad_input", "conv2d_grad_weight", "conv2d_grad_bias"]
__all__ += ["get_include", "get_library_dir"]
__version__ = "0.1.0"


def get_include():
    """Folder of the C header ``reproblas.h`` (the C ABI; see docs/c_abi.md)."""
    return package_path(__file__, "include")


def get_library_dir():
    """Folder of the shared library ``libreproblas.so`` (link with ``-L<dir> -Wl,-rpath,<dir>``)."""
    return package_path(__file__, "lib")
