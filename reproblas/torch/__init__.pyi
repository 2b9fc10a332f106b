# Type stubs for the public API of reproblas.torch (tests/test_stubs.py keeps them in step with
# the module). CPU tensors of float32 or float64; `order` is "sequential" (the default) or
# "pairwise" (docs/contract.md §2).
from typing import Any, Literal, TypeVar

import torch

__all__ = ["linear", "matmul", "conv2d", "Linear", "Conv2d", "convert"]

_Pair = int | tuple[int, int]
_M = TypeVar("_M", bound=torch.nn.Module)

def linear(input: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None = None, *,
           order: str = "sequential") -> torch.Tensor: ...
def matmul(input: torch.Tensor, other: torch.Tensor, *,
           order: str = "sequential") -> torch.Tensor: ...
# padding: an int, a pair of ints, "same" or "valid".
def conv2d(input: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None = None,
           stride: _Pair = 1, padding: _Pair | str = 0, dilation: _Pair = 1, groups: int = 1, *,
           order: str = "sequential") -> torch.Tensor: ...

class Linear(torch.nn.Linear):
    order: str
    def __init__(self, in_features: int, out_features: int, bias: bool = True,
                 device: Any = None, dtype: torch.dtype | None = None, *,
                 order: str = "sequential") -> None: ...
    @classmethod
    def from_torch(cls, module: torch.nn.Linear, order: str = "sequential") -> Linear: ...

class Conv2d(torch.nn.Conv2d):
    order: str
    def __init__(self, in_channels: int, out_channels: int, kernel_size: _Pair,
                 stride: _Pair = 1, padding: _Pair | str = 0, dilation: _Pair = 1,
                 groups: int = 1, bias: bool = True, padding_mode: Literal["zeros"] = "zeros",
                 device: Any = None, dtype: torch.dtype | None = None, *,
                 order: str = "sequential") -> None: ...
    @classmethod
    def from_torch(cls, module: torch.nn.Conv2d, order: str = "sequential") -> Conv2d: ...

# Replaces, in place, every module whose type is exactly torch.nn.Linear or torch.nn.Conv2d;
# returns module, or its replacement (a subclass of module's type) if module is one of them.
def convert(module: _M, *, order: str = "sequential") -> _M: ...
