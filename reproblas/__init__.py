"""Reproducible BLAS: every result is defined bit for bit (docs/contract.md §2-§3).

Reductions add their terms in a documented, fixed order, selected with
``order="sequential"`` (left to right, the default) or ``order="pairwise"``
(a fixed binary tree), so results are identical on every thread count, CPU
code path and CPU. See docs/reproblas.md.

Environment (read at every call): ``REPROBLAS_NUM_THREADS`` (default: all
CPUs of this process), ``REPROBLAS_ISA`` (``scalar``, ``avx2``, ``avx512``).

NumPy's conventions
-------------------
Sequences: a Python list or tuple is taken as ``np.asarray(x)`` makes it, and
then judged as an array of that dtype: lists of Python floats are float64 and
accepted; lists of ints are int64 and refused (TypeError naming
``np.asarray(x, dtype=np.float64)``); a list meeting float32 arrays is a
dtype mix, refused with ``np.asarray(x, dtype=np.float32)`` named.
crlibm_py follows the same rule (``np.asarray``, never a silent rounding) for
its fixed float32: there a list is accepted when its values are float32
values, ints included.

``out=``: every routine that returns a new array takes ``out``, an array of
exactly the result's shape and dtype (any strides; read-only or another
dtype is an error), into which the result is written and which is returned.
It may share memory with the inputs: the result is that of their old values.
Not together with ``overwrite_*`` (the same destination, said twice); axpy
and scal update their vector in place and take none.

``axis=``, ``keepdims=`` (sum, asum, dot, nrm2; iamax: one int axis, as
numpy.argmax): each result element is the
reduction of the elements along the axes, in C index order, with the bits of
the 1-D call on them. Without ``axis`` x must be 1-D, as before;
``axis=tuple(range(x.ndim))`` reduces all of x in C order. One core call per
result element: many short rows cost a call each.

conv2d and its gradients take one unbatched ``(C, H, W)`` image as PyTorch
does, giving an unbatched result; reproblas.torch.conv2d uses the same rule.
"""
from repro_runtime.util import package_path

from ._blaslib import get_blas_library
from ._core import best_isa, isa_names
from ._conv import conv2d, conv2d_grad_bias, conv2d_grad_input, conv2d_grad_weight
from ._level1 import asum, axpy, dot, iamax, nrm2, scal, sum
from ._level1_blas import copy, dsdot, rot, rotg, rotm, rotmg, sdsdot, swap
from ._level2 import gbmv, sbmv, spmv, spr, spr2, symv, syr, syr2, tbmv, tbsv, tpmv, tpsv, trmv
from ._level23 import gemm, gemv, ger, matmul, symm, syr2k, syrk
from ._scan import cumprod, cumsum, reduce_by_key, scan_by_key, segment_sum
from ._solve import trmm, trsm, trsv
from ._validate import ORDERS

__all__ = ["sum", "asum", "dot", "nrm2", "iamax", "axpy", "scal", "rot", "rotm", "rotg", "rotmg",
           "swap", "copy", "sdsdot", "dsdot", "ORDERS", "best_isa", "isa_names", "gemm", "gemv",
           "ger", "matmul", "symv", "spmv", "sbmv", "gbmv", "trmv", "tpmv", "tbmv", "tbsv", "tpsv",
           "syr", "spr", "syr2", "spr2", "symm", "syrk", "syr2k", "trsv", "trsm", "trmm", "cumsum",
           "cumprod", "segment_sum", "reduce_by_key", "scan_by_key", "conv2d", "conv2d_grad_input",
           "conv2d_grad_weight", "conv2d_grad_bias", "get_include", "get_library_dir",
           "get_blas_library"]
__version__ = "0.1.0"


def get_include():
    """Folder of the C header ``reproblas.h`` (the C ABI; see docs/c_abi.md)."""
    return package_path(__file__, "include")


def get_library_dir():
    """Folder of the shared library ``libreproblas.so`` (link with ``-L<dir> -Wl,-rpath,<dir>``)."""
    return package_path(__file__, "lib")
