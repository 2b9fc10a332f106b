# Type stubs for the public API of reproblas (tests/test_stubs.py keeps them in step with the
# module; tests/typing/usage.py is type-checked by mypy in CI).
#
# Every routine takes NumPy arrays of float32 or float64, all of one dtype, and returns that
# dtype; CUDA arrays (CuPy, or anything CuPy wraps without a copy) give CuPy results, typed Any.
# `order` is "sequential" (the default) or "pairwise" (docs/contract.md §2); sum, asum, dot,
# nrm2, gemv and gemm also take "kahan" (§5.5), all but nrm2 of them "exact" (§5.4).
from collections.abc import Sequence
from typing import Any, Final, Literal, Protocol, TypeVar, overload

import numpy as np
from numpy.typing import NDArray

__version__: Final[str]
__all__ = ["sum", "asum", "dot", "nrm2", "iamax", "axpy", "scal", "rot", "rotm", "rotg", "rotmg",
           "swap", "copy", "sdsdot", "dsdot", "ORDERS", "best_isa", "isa_names", "gemm", "gemv",
           "ger", "matmul", "symv", "spmv", "sbmv", "gbmv", "trmv", "tpmv", "tbmv", "tbsv", "tpsv",
           "syr", "spr", "syr2", "spr2", "symm", "syrk", "syr2k", "trsv", "trsm", "trmm", "cumsum",
           "cumprod", "segment_sum", "reduce_by_key", "scan_by_key", "conv2d", "conv2d_grad_input",
           "conv2d_grad_weight", "conv2d_grad_bias", "get_include", "get_library_dir",
           "get_blas_library"]

_F = TypeVar("_F", np.float32, np.float64)

class _CudaArrayInterface(Protocol):
    @property
    def __cuda_array_interface__(self) -> dict[str, Any]: ...

# alpha, beta: a Python float/int (rounded to the arrays' dtype) or a NumPy scalar of that dtype.
_Scalar = float | np.float32 | np.float64
# Boolean options also take scipy's 0/1 (and 2 for trans: the transpose of real data).
_Flag = bool | int
_Pair = int | tuple[int, int]
# axis of a reduction: None (all of x, C order), an int or a tuple of ints (negative: from the end).
_Axis = int | tuple[int, ...] | None
# Lists and tuples of Python floats are taken as np.asarray makes them (float64).
_Seq = Sequence[float] | Sequence[Sequence[float]]

ORDERS: dict[str, int]

def best_isa() -> str: ...
def isa_names() -> list[str]: ...
def get_include() -> str: ...
def get_library_dir() -> str: ...

# ---- level 1 ----

# Without axis/keepdims/out: a scalar of x's dtype; with them an array (or out), typed Any.
@overload
def sum(x: NDArray[_F], order: str = "sequential", *, axis: None = None,
        keepdims: Literal[False] = False, out: None = None) -> _F: ...
@overload
def sum(x: NDArray[np.float32] | NDArray[np.float64] | _Seq, order: str = "sequential", *,
        axis: _Axis = None, keepdims: bool = False,
        out: NDArray[np.float32] | NDArray[np.float64] | None = None) -> Any: ...
@overload
def sum(x: _CudaArrayInterface, order: str = "sequential", *, axis: _Axis = None,
        keepdims: bool = False, out: _CudaArrayInterface | None = None) -> Any: ...
@overload
def asum(x: NDArray[_F], order: str = "sequential", *, axis: None = None,
        keepdims: Literal[False] = False, out: None = None) -> _F: ...
@overload
def asum(x: NDArray[np.float32] | NDArray[np.float64] | _Seq, order: str = "sequential", *,
        axis: _Axis = None, keepdims: bool = False,
        out: NDArray[np.float32] | NDArray[np.float64] | None = None) -> Any: ...
@overload
def asum(x: _CudaArrayInterface, order: str = "sequential", *, axis: _Axis = None,
        keepdims: bool = False, out: _CudaArrayInterface | None = None) -> Any: ...
@overload
def dot(x: NDArray[_F], y: NDArray[_F], order: str = "sequential", *, axis: None = None,
        keepdims: Literal[False] = False, out: None = None) -> _F: ...
@overload
def dot(x: NDArray[np.float32] | NDArray[np.float64] | _Seq,
        y: NDArray[np.float32] | NDArray[np.float64] | _Seq, order: str = "sequential", *,
        axis: _Axis = None, keepdims: bool = False,
        out: NDArray[np.float32] | NDArray[np.float64] | None = None) -> Any: ...
@overload
def dot(x: _CudaArrayInterface, y: _CudaArrayInterface, order: str = "sequential", *,
        axis: _Axis = None, keepdims: bool = False,
        out: _CudaArrayInterface | None = None) -> Any: ...
@overload
def nrm2(x: NDArray[_F], order: str = "sequential", *, axis: None = None,
        keepdims: Literal[False] = False, out: None = None) -> _F: ...
@overload
def nrm2(x: NDArray[np.float32] | NDArray[np.float64] | _Seq, order: str = "sequential", *,
        axis: _Axis = None, keepdims: bool = False,
        out: NDArray[np.float32] | NDArray[np.float64] | None = None) -> Any: ...
@overload
def nrm2(x: _CudaArrayInterface, order: str = "sequential", *, axis: _Axis = None,
        keepdims: bool = False, out: _CudaArrayInterface | None = None) -> Any: ...
@overload
def iamax(x: NDArray[np.float32] | NDArray[np.float64] | _Seq | _CudaArrayInterface, *,
          axis: None = None, keepdims: Literal[False] = False) -> int: ...
# With axis (one int, as numpy.argmax): an int64 array (host memory), or np.int64 for 1-D x.
@overload
def iamax(x: NDArray[np.float32] | NDArray[np.float64] | _Seq | _CudaArrayInterface, *,
          axis: int | None = None, keepdims: bool = False) -> Any: ...
@overload
def axpy(alpha: _Scalar, x: NDArray[_F], y: NDArray[_F]) -> NDArray[_F]: ...
@overload
def axpy(alpha: _Scalar, x: _CudaArrayInterface, y: _CudaArrayInterface) -> Any: ...
@overload
def scal(alpha: _Scalar, x: NDArray[_F]) -> NDArray[_F]: ...
@overload
def scal(alpha: _Scalar, x: _CudaArrayInterface) -> Any: ...

# ---- the rest of the reference BLAS's level 1, and the drop-in BLAS library ----
def get_blas_library() -> str: ...
def rot(x: NDArray[_F], y: NDArray[_F], c: _Scalar, s: _Scalar, *, overwrite_x: bool = False,
        overwrite_y: bool = False) -> tuple[NDArray[_F], NDArray[_F]]: ...
def rotm(x: NDArray[_F], y: NDArray[_F], param: Any, *, overwrite_x: bool = False,
         overwrite_y: bool = False) -> tuple[NDArray[_F], NDArray[_F]]: ...
def rotg(a: _Scalar, b: _Scalar) -> tuple[Any, Any]: ...
def rotmg(d1: _Scalar, d2: _Scalar, x1: _Scalar, y1: _Scalar) -> NDArray[Any]: ...
def swap(x: NDArray[_F], y: NDArray[_F]) -> tuple[NDArray[_F], NDArray[_F]]: ...
def copy(x: NDArray[_F], y: NDArray[_F]) -> NDArray[_F]: ...
def sdsdot(x: NDArray[np.float32], y: NDArray[np.float32], sb: _Scalar = 0.0,
           order: str = "sequential") -> np.float32: ...
def dsdot(x: NDArray[np.float32], y: NDArray[np.float32],
          order: str = "sequential") -> np.float64: ...

# ---- level 2 and 3 ----

@overload
def gemm(alpha: _Scalar, a: NDArray[_F], b: NDArray[_F], beta: _Scalar = 0.0,
         c: NDArray[_F] | None = None, trans_a: _Flag = False, trans_b: _Flag = False,
         overwrite_c: _Flag = False, order: str = "sequential", *,
         out: NDArray[_F] | None = None) -> NDArray[_F]: ...
@overload
def gemm(alpha: _Scalar, a: _CudaArrayInterface, b: _CudaArrayInterface, beta: _Scalar = 0.0,
         c: _CudaArrayInterface | None = None, trans_a: _Flag = False, trans_b: _Flag = False,
         overwrite_c: _Flag = False, order: str = "sequential", *,
         out: _CudaArrayInterface | None = None) -> Any: ...
@overload
def syrk(alpha: _Scalar, a: NDArray[_F], beta: _Scalar = 0.0, c: NDArray[_F] | None = None,
         trans: _Flag = False, lower: _Flag = False, overwrite_c: _Flag = False,
         order: str = "sequential", *, out: NDArray[_F] | None = None) -> NDArray[_F]: ...
@overload
def syrk(alpha: _Scalar, a: _CudaArrayInterface, beta: _Scalar = 0.0,
         c: _CudaArrayInterface | None = None, trans: _Flag = False, lower: _Flag = False,
         overwrite_c: _Flag = False, order: str = "sequential", *,
         out: _CudaArrayInterface | None = None) -> Any: ...
@overload
def syr2k(alpha: _Scalar, a: NDArray[_F], b: NDArray[_F], beta: _Scalar = 0.0,
          c: NDArray[_F] | None = None, trans: _Flag = False, lower: _Flag = False,
          overwrite_c: _Flag = False, order: str = "sequential", *,
          out: NDArray[_F] | None = None) -> NDArray[_F]: ...
@overload
def syr2k(alpha: _Scalar, a: _CudaArrayInterface, b: _CudaArrayInterface, beta: _Scalar = 0.0,
          c: _CudaArrayInterface | None = None, trans: _Flag = False, lower: _Flag = False,
          overwrite_c: _Flag = False, order: str = "sequential", *,
          out: _CudaArrayInterface | None = None) -> Any: ...
@overload
def symm(alpha: _Scalar, a: NDArray[_F], b: NDArray[_F], beta: _Scalar = 0.0,
         c: NDArray[_F] | None = None, side: _Flag = 0, lower: _Flag = False,
         overwrite_c: _Flag = False, order: str = "sequential", *,
         out: NDArray[_F] | None = None) -> NDArray[_F]: ...
@overload
def symm(alpha: _Scalar, a: _CudaArrayInterface, b: _CudaArrayInterface, beta: _Scalar = 0.0,
         c: _CudaArrayInterface | None = None, side: _Flag = 0, lower: _Flag = False,
         overwrite_c: _Flag = False, order: str = "sequential", *,
         out: _CudaArrayInterface | None = None) -> Any: ...
@overload
def gemv(alpha: _Scalar, a: NDArray[_F], x: NDArray[_F], beta: _Scalar = 0.0,
         y: NDArray[_F] | None = None, trans: _Flag = False, overwrite_y: _Flag = False,
         order: str = "sequential", *, out: NDArray[_F] | None = None) -> NDArray[_F]: ...
@overload
def gemv(alpha: _Scalar, a: _CudaArrayInterface, x: _CudaArrayInterface, beta: _Scalar = 0.0,
         y: _CudaArrayInterface | None = None, trans: _Flag = False, overwrite_y: _Flag = False,
         order: str = "sequential", *, out: _CudaArrayInterface | None = None) -> Any: ...
@overload
def ger(alpha: _Scalar, x: NDArray[_F], y: NDArray[_F], a: NDArray[_F] | None = None,
        overwrite_a: _Flag = False, *, out: NDArray[_F] | None = None) -> NDArray[_F]: ...
@overload
def ger(alpha: _Scalar, x: _CudaArrayInterface, y: _CudaArrayInterface,
        a: _CudaArrayInterface | None = None, overwrite_a: _Flag = False, *,
        out: _CudaArrayInterface | None = None) -> Any: ...
# An array, or a NumPy scalar when both operands are 1-D (as numpy.matmul).
def matmul(a: NDArray[np.float32] | NDArray[np.float64] | _CudaArrayInterface,
           b: NDArray[np.float32] | NDArray[np.float64] | _CudaArrayInterface,
           order: str = "sequential", *,
           out: NDArray[np.float32] | NDArray[np.float64] | _CudaArrayInterface | None = None
           ) -> Any: ...

# ---- triangular solves ----

@overload
def trsv(a: NDArray[_F], b: NDArray[_F], lower: _Flag = False, trans: _Flag = False,
         unit_diagonal: _Flag = False, *, order: str = "sequential",
         overwrite_b: _Flag = False,
         out: NDArray[_F] | None = None) -> NDArray[_F]: ...
@overload
def trsv(a: _CudaArrayInterface, b: _CudaArrayInterface, lower: _Flag = False,
         trans: _Flag = False, unit_diagonal: _Flag = False, *, order: str = "sequential",
         overwrite_b: _Flag = False, out: _CudaArrayInterface | None = None) -> Any: ...
# side: "left" / "l" / 0, or "right" / "r" / 1.
@overload
def trsm(alpha: _Scalar, a: NDArray[_F], b: NDArray[_F], side: str | int = "left",
         lower: _Flag = False, trans_a: _Flag = False, unit_diagonal: _Flag = False, *,
         order: str = "sequential", overwrite_b: _Flag = False,
         out: NDArray[_F] | None = None) -> NDArray[_F]: ...
@overload
def trsm(alpha: _Scalar, a: _CudaArrayInterface, b: _CudaArrayInterface,
         side: str | int = "left", lower: _Flag = False, trans_a: _Flag = False,
         unit_diagonal: _Flag = False, *, order: str = "sequential",
         overwrite_b: _Flag = False, out: _CudaArrayInterface | None = None) -> Any: ...
@overload
def trmm(alpha: _Scalar, a: NDArray[_F], b: NDArray[_F], side: str | int = "left",
         lower: _Flag = False, trans_a: _Flag = False, unit_diagonal: _Flag = False, *,
         order: str = "sequential", overwrite_b: _Flag = False,
         out: NDArray[_F] | None = None) -> NDArray[_F]: ...
@overload
def trmm(alpha: _Scalar, a: _CudaArrayInterface, b: _CudaArrayInterface,
         side: str | int = "left", lower: _Flag = False, trans_a: _Flag = False,
         unit_diagonal: _Flag = False, *, order: str = "sequential",
         overwrite_b: _Flag = False, out: _CudaArrayInterface | None = None) -> Any: ...

# ---- convolution (NCHW, PyTorch's conventions; CHW for one unbatched image) ----

# padding: an int, a pair of ints, "same" or "valid".
@overload
def conv2d(input: NDArray[_F], weight: NDArray[_F], bias: NDArray[_F] | None = None,
           stride: _Pair = 1, padding: _Pair | str = 0, dilation: _Pair = 1, groups: int = 1,
           *, order: str = "sequential",
           out: NDArray[_F] | None = None) -> NDArray[_F]: ...
@overload
def conv2d(input: _CudaArrayInterface, weight: _CudaArrayInterface,
           bias: _CudaArrayInterface | None = None, stride: _Pair = 1,
           padding: _Pair | str = 0, dilation: _Pair = 1, groups: int = 1, *,
           order: str = "sequential",
           out: _CudaArrayInterface | None = None) -> Any: ...
@overload
def conv2d_grad_input(grad_output: NDArray[_F], weight: NDArray[_F], input_shape: Sequence[int],
                      stride: _Pair = 1, padding: _Pair | str = 0, dilation: _Pair = 1,
                      groups: int = 1, *, order: str = "sequential",
                      out: NDArray[_F] | None = None) -> NDArray[_F]: ...
@overload
def conv2d_grad_input(grad_output: _CudaArrayInterface, weight: _CudaArrayInterface,
                      input_shape: Sequence[int], stride: _Pair = 1, padding: _Pair | str = 0,
                      dilation: _Pair = 1, groups: int = 1, *,
                      order: str = "sequential",
                      out: _CudaArrayInterface | None = None) -> Any: ...
@overload
def conv2d_grad_weight(input: NDArray[_F], grad_output: NDArray[_F], weight_shape: Sequence[int],
                       stride: _Pair = 1, padding: _Pair | str = 0, dilation: _Pair = 1,
                       groups: int = 1, *, order: str = "sequential",
                       out: NDArray[_F] | None = None) -> NDArray[_F]: ...
@overload
def conv2d_grad_weight(input: _CudaArrayInterface, grad_output: _CudaArrayInterface,
                       weight_shape: Sequence[int], stride: _Pair = 1, padding: _Pair | str = 0,
                       dilation: _Pair = 1, groups: int = 1, *,
                       order: str = "sequential",
                       out: _CudaArrayInterface | None = None) -> Any: ...
@overload
def conv2d_grad_bias(grad_output: NDArray[_F], *, order: str = "sequential",
                     out: NDArray[_F] | None = None) -> NDArray[_F]: ...
@overload
def conv2d_grad_bias(grad_output: _CudaArrayInterface, *, order: str = "sequential",
                     out: _CudaArrayInterface | None = None) -> Any: ...

# ---- scans and segmented reductions (docs/contract.md §5.2, §5.3) ----

# The scanned array: N-D float32/float64 (axis=None flattens it), or a list of floats.
_ScanIn = NDArray[np.float32] | NDArray[np.float64] | _Seq
_Offsets = NDArray[np.integer[Any]] | Sequence[int]
_Transform = Literal["abs", "square"] | None

@overload
def cumsum(x: NDArray[_F], axis: int | None = -1, order: str = "sequential",
           exclusive: bool = False, out: NDArray[_F] | None = None) -> NDArray[_F]: ...
@overload
def cumsum(x: _ScanIn | _CudaArrayInterface, axis: int | None = -1, order: str = "sequential",
           exclusive: bool = False, out: Any = None) -> Any: ...
@overload
def cumprod(x: NDArray[_F], axis: int | None = -1, order: str = "sequential",
            exclusive: bool = False, out: NDArray[_F] | None = None) -> NDArray[_F]: ...
@overload
def cumprod(x: _ScanIn | _CudaArrayInterface, axis: int | None = -1, order: str = "sequential",
            exclusive: bool = False, out: Any = None) -> Any: ...
@overload
def segment_sum(values: NDArray[_F], offsets: _Offsets, order: str = "sequential", *,
                transform: _Transform = None, weights: NDArray[_F] | None = None,
                out: NDArray[_F] | None = None) -> NDArray[_F]: ...
@overload
def segment_sum(values: _ScanIn | _CudaArrayInterface, offsets: _Offsets | _CudaArrayInterface,
                order: str = "sequential", *, transform: _Transform = None,
                weights: Any = None, out: Any = None) -> Any: ...
@overload
def reduce_by_key(keys: NDArray[Any] | Sequence[Any], values: NDArray[_F],
                  order: str = "sequential", *, transform: _Transform = None,
                  weights: NDArray[_F] | None = None) -> tuple[NDArray[Any], NDArray[_F]]: ...
@overload
def reduce_by_key(keys: NDArray[Any] | Sequence[Any] | _CudaArrayInterface,
                  values: _ScanIn | _CudaArrayInterface, order: str = "sequential", *,
                  transform: _Transform = None, weights: Any = None) -> tuple[Any, Any]: ...
@overload
def scan_by_key(keys: NDArray[Any] | Sequence[Any], values: NDArray[_F],
                order: str = "sequential", *, exclusive: bool = False,
                transform: _Transform = None, weights: NDArray[_F] | None = None,
                out: NDArray[_F] | None = None) -> NDArray[_F]: ...
@overload
def scan_by_key(keys: NDArray[Any] | Sequence[Any] | _CudaArrayInterface,
                values: _ScanIn | _CudaArrayInterface, order: str = "sequential", *,
                exclusive: bool = False, transform: _Transform = None, weights: Any = None,
                out: Any = None) -> Any: ...

# Level 2 on symmetric, triangular, band and packed matrices (docs/contract.md §3.6): scipy's
# names and band / packed storage (scipy.linalg.blas), plus order=.
@overload
def symv(alpha: _Scalar, a: NDArray[_F], x: NDArray[_F], beta: _Scalar = 0.0,
         y: NDArray[_F] | None = None, lower: _Flag = False, overwrite_y: _Flag = False,
         order: str = "sequential", *, out: NDArray[_F] | None = None) -> NDArray[_F]: ...
@overload
def symv(alpha: _Scalar, a: _CudaArrayInterface, x: _CudaArrayInterface, beta: _Scalar = 0.0,
         y: _CudaArrayInterface | None = None, lower: _Flag = False, overwrite_y: _Flag = False,
         order: str = "sequential", *, out: _CudaArrayInterface | None = None) -> Any: ...
@overload
def spmv(n: int, alpha: _Scalar, ap: NDArray[_F], x: NDArray[_F], beta: _Scalar = 0.0,
         y: NDArray[_F] | None = None, lower: _Flag = False, overwrite_y: _Flag = False,
         order: str = "sequential", *, out: NDArray[_F] | None = None) -> NDArray[_F]: ...
@overload
def spmv(n: int, alpha: _Scalar, ap: _CudaArrayInterface, x: _CudaArrayInterface,
         beta: _Scalar = 0.0, y: _CudaArrayInterface | None = None, lower: _Flag = False,
         overwrite_y: _Flag = False, order: str = "sequential", *,
         out: _CudaArrayInterface | None = None) -> Any: ...
@overload
def sbmv(k: int, alpha: _Scalar, a: NDArray[_F], x: NDArray[_F], beta: _Scalar = 0.0,
         y: NDArray[_F] | None = None, lower: _Flag = False, overwrite_y: _Flag = False,
         order: str = "sequential", *, out: NDArray[_F] | None = None) -> NDArray[_F]: ...
@overload
def sbmv(k: int, alpha: _Scalar, a: _CudaArrayInterface, x: _CudaArrayInterface,
         beta: _Scalar = 0.0, y: _CudaArrayInterface | None = None, lower: _Flag = False,
         overwrite_y: _Flag = False, order: str = "sequential", *,
         out: _CudaArrayInterface | None = None) -> Any: ...
@overload
def gbmv(m: int, n: int, kl: int, ku: int, alpha: _Scalar, a: NDArray[_F], x: NDArray[_F],
         beta: _Scalar = 0.0, y: NDArray[_F] | None = None, trans: _Flag = False,
         overwrite_y: _Flag = False, order: str = "sequential", *,
         out: NDArray[_F] | None = None) -> NDArray[_F]: ...
@overload
def gbmv(m: int, n: int, kl: int, ku: int, alpha: _Scalar, a: _CudaArrayInterface,
         x: _CudaArrayInterface, beta: _Scalar = 0.0, y: _CudaArrayInterface | None = None,
         trans: _Flag = False, overwrite_y: _Flag = False, order: str = "sequential", *,
         out: _CudaArrayInterface | None = None) -> Any: ...
@overload
def trmv(a: NDArray[_F], x: NDArray[_F], lower: _Flag = False, trans: _Flag = False,
         unit_diagonal: _Flag = False, overwrite_x: _Flag = False, order: str = "sequential", *,
         out: NDArray[_F] | None = None) -> NDArray[_F]: ...
@overload
def trmv(a: _CudaArrayInterface, x: _CudaArrayInterface, lower: _Flag = False,
         trans: _Flag = False, unit_diagonal: _Flag = False, overwrite_x: _Flag = False,
         order: str = "sequential", *, out: _CudaArrayInterface | None = None) -> Any: ...
@overload
def tpmv(n: int, ap: NDArray[_F], x: NDArray[_F], lower: _Flag = False, trans: _Flag = False,
         unit_diagonal: _Flag = False, overwrite_x: _Flag = False, order: str = "sequential", *,
         out: NDArray[_F] | None = None) -> NDArray[_F]: ...
@overload
def tpmv(n: int, ap: _CudaArrayInterface, x: _CudaArrayInterface, lower: _Flag = False,
         trans: _Flag = False, unit_diagonal: _Flag = False, overwrite_x: _Flag = False,
         order: str = "sequential", *, out: _CudaArrayInterface | None = None) -> Any: ...
@overload
def tbmv(k: int, a: NDArray[_F], x: NDArray[_F], lower: _Flag = False, trans: _Flag = False,
         unit_diagonal: _Flag = False, overwrite_x: _Flag = False, order: str = "sequential", *,
         out: NDArray[_F] | None = None) -> NDArray[_F]: ...
@overload
def tbmv(k: int, a: _CudaArrayInterface, x: _CudaArrayInterface, lower: _Flag = False,
         trans: _Flag = False, unit_diagonal: _Flag = False, overwrite_x: _Flag = False,
         order: str = "sequential", *, out: _CudaArrayInterface | None = None) -> Any: ...
@overload
def tbsv(k: int, a: NDArray[_F], x: NDArray[_F], lower: _Flag = False, trans: _Flag = False,
         unit_diagonal: _Flag = False, overwrite_x: _Flag = False, order: str = "sequential", *,
         out: NDArray[_F] | None = None) -> NDArray[_F]: ...
@overload
def tbsv(k: int, a: _CudaArrayInterface, x: _CudaArrayInterface, lower: _Flag = False,
         trans: _Flag = False, unit_diagonal: _Flag = False, overwrite_x: _Flag = False,
         order: str = "sequential", *, out: _CudaArrayInterface | None = None) -> Any: ...
@overload
def tpsv(n: int, ap: NDArray[_F], x: NDArray[_F], lower: _Flag = False, trans: _Flag = False,
         unit_diagonal: _Flag = False, overwrite_x: _Flag = False, order: str = "sequential", *,
         out: NDArray[_F] | None = None) -> NDArray[_F]: ...
@overload
def tpsv(n: int, ap: _CudaArrayInterface, x: _CudaArrayInterface, lower: _Flag = False,
         trans: _Flag = False, unit_diagonal: _Flag = False, overwrite_x: _Flag = False,
         order: str = "sequential", *, out: _CudaArrayInterface | None = None) -> Any: ...
@overload
def syr(alpha: _Scalar, x: NDArray[_F], lower: _Flag = False, a: NDArray[_F] | None = None,
        overwrite_a: _Flag = False, *, out: NDArray[_F] | None = None) -> NDArray[_F]: ...
@overload
def syr(alpha: _Scalar, x: _CudaArrayInterface, lower: _Flag = False,
        a: _CudaArrayInterface | None = None, overwrite_a: _Flag = False, *,
        out: _CudaArrayInterface | None = None) -> Any: ...
@overload
def spr(n: int, alpha: _Scalar, x: NDArray[_F], ap: NDArray[_F], lower: _Flag = False,
        overwrite_ap: _Flag = False, *, out: NDArray[_F] | None = None) -> NDArray[_F]: ...
@overload
def spr(n: int, alpha: _Scalar, x: _CudaArrayInterface, ap: _CudaArrayInterface,
        lower: _Flag = False, overwrite_ap: _Flag = False, *,
        out: _CudaArrayInterface | None = None) -> Any: ...
@overload
def syr2(alpha: _Scalar, x: NDArray[_F], y: NDArray[_F], lower: _Flag = False,
         a: NDArray[_F] | None = None, overwrite_a: _Flag = False, *,
         out: NDArray[_F] | None = None) -> NDArray[_F]: ...
@overload
def syr2(alpha: _Scalar, x: _CudaArrayInterface, y: _CudaArrayInterface, lower: _Flag = False,
         a: _CudaArrayInterface | None = None, overwrite_a: _Flag = False, *,
         out: _CudaArrayInterface | None = None) -> Any: ...
@overload
def spr2(n: int, alpha: _Scalar, x: NDArray[_F], y: NDArray[_F], ap: NDArray[_F],
         lower: _Flag = False, overwrite_ap: _Flag = False, *,
         out: NDArray[_F] | None = None) -> NDArray[_F]: ...
@overload
def spr2(n: int, alpha: _Scalar, x: _CudaArrayInterface, y: _CudaArrayInterface,
         ap: _CudaArrayInterface, lower: _Flag = False, overwrite_ap: _Flag = False, *,
         out: _CudaArrayInterface | None = None) -> Any: ...
