# Type stubs for the public API of reproblas.torch (tests/test_stubs.py keeps them in step with
# the module). CPU or CUDA tensors of float32 or float64; `order` is "sequential" (the default) or
# "pairwise" (docs/contract.md §2).
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Literal, TypeVar

import torch

__all__ = ["linear", "matmul", "conv2d", "Linear", "Conv2d", "convert",
           "exp", "log", "sin", "cos", "tanh", "erf", "rsqrt",
           "relu", "sigmoid", "silu", "gelu", "softmax", "log_softmax", "logsumexp",
           "sum", "mean", "var", "layer_norm", "rms_norm",
           "mse_loss", "nll_loss", "cross_entropy",
           "ReLU", "Sigmoid", "Tanh", "SiLU", "GELU", "Softmax", "LogSoftmax", "LayerNorm",
           "RMSNorm", "MSELoss", "NLLLoss", "CrossEntropyLoss",
           "batch_norm", "avg_pool2d", "adaptive_avg_pool2d", "max_pool2d", "embedding",
           "dropout", "scaled_dot_product_attention",
           "BatchNorm1d", "BatchNorm2d", "AvgPool2d", "AdaptiveAvgPool2d", "MaxPool2d",
           "Embedding", "Dropout",
           "group_norm", "bmm", "baddbmm", "rotary_cos_sin", "apply_rotary", "GroupNorm",
           "MultiheadAttention", "SGD", "Adam", "AdamW", "clip_grad_norm_",
           "reproducible", "data_parallel_backward", "shard_slices", "cumsum"]

_Pair = int | tuple[int, int]
_Dims = int | Sequence[int] | None
_Reduction = Literal["none", "mean", "sum"]
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

# Replaces, in place, every module whose type is exactly one of the torch.nn types with a
# reproblas version (the classes above and below); containers and the caller's own modules are
# walked into; any other torch.nn module is a TypeError listing them, unless its type is in keep.
def convert(module: _M, *, order: str = "sequential",
            keep: type[torch.nn.Module] | tuple[type[torch.nn.Module], ...] = ()) -> _M: ...

# ---- functional operations (docs/contract.md §5.7) ----
# The crlibm_py functions and the ops built on them take float32 tensors; relu, sum, mean, var,
# mse_loss and nll_loss take float32 or float64.
def exp(input: torch.Tensor) -> torch.Tensor: ...
def log(input: torch.Tensor) -> torch.Tensor: ...
def sin(input: torch.Tensor) -> torch.Tensor: ...
def cos(input: torch.Tensor) -> torch.Tensor: ...
def tanh(input: torch.Tensor) -> torch.Tensor: ...
def erf(input: torch.Tensor) -> torch.Tensor: ...
def rsqrt(input: torch.Tensor) -> torch.Tensor: ...
def relu(input: torch.Tensor) -> torch.Tensor: ...
def sigmoid(input: torch.Tensor) -> torch.Tensor: ...
def silu(input: torch.Tensor) -> torch.Tensor: ...
def gelu(input: torch.Tensor, approximate: Literal["none", "tanh"] = "none") -> torch.Tensor: ...
def softmax(input: torch.Tensor, dim: int, *, order: str = "sequential") -> torch.Tensor: ...
def log_softmax(input: torch.Tensor, dim: int, *, order: str = "sequential") -> torch.Tensor: ...
def logsumexp(input: torch.Tensor, dim: _Dims, keepdim: bool = False, *,
              order: str = "sequential") -> torch.Tensor: ...
def sum(input: torch.Tensor, dim: _Dims = None, keepdim: bool = False, *,
        order: str = "sequential") -> torch.Tensor: ...
def mean(input: torch.Tensor, dim: _Dims = None, keepdim: bool = False, *,
         order: str = "sequential") -> torch.Tensor: ...
def var(input: torch.Tensor, dim: _Dims = None, *, correction: int = 1, keepdim: bool = False,
        order: str = "sequential") -> torch.Tensor: ...
def cumsum(input: torch.Tensor, dim: int, *, order: str = "sequential") -> torch.Tensor: ...
def layer_norm(input: torch.Tensor, normalized_shape: int | Sequence[int],
               weight: torch.Tensor | None = None, bias: torch.Tensor | None = None,
               eps: float = 1e-5, *, order: str = "sequential") -> torch.Tensor: ...
def rms_norm(input: torch.Tensor, normalized_shape: int | Sequence[int],
             weight: torch.Tensor | None = None, eps: float | None = None, *,
             order: str = "sequential") -> torch.Tensor: ...
def mse_loss(input: torch.Tensor, target: torch.Tensor, reduction: _Reduction = "mean", *,
             order: str = "sequential") -> torch.Tensor: ...
def nll_loss(input: torch.Tensor, target: torch.Tensor, weight: torch.Tensor | None = None,
             ignore_index: int = -100, reduction: _Reduction = "mean", *,
             order: str = "sequential") -> torch.Tensor: ...
# target: class indices (an integer tensor) or class probabilities (input's shape and dtype).
def cross_entropy(input: torch.Tensor, target: torch.Tensor,
                  weight: torch.Tensor | None = None, ignore_index: int = -100,
                  reduction: _Reduction = "mean", label_smoothing: float = 0.0, *,
                  order: str = "sequential") -> torch.Tensor: ...

# ---- modules: subclasses of the torch.nn module of the same name, built with the same
# arguments plus order=; from_torch(module, order) shares the module's parameters ----
class ReLU(torch.nn.ReLU):
    order: str
    def __init__(self, inplace: bool = False, *, order: str = "sequential") -> None: ...
    @classmethod
    def from_torch(cls, module: torch.nn.ReLU, order: str = "sequential") -> ReLU: ...

class Sigmoid(torch.nn.Sigmoid):
    order: str
    def __init__(self, *, order: str = "sequential") -> None: ...
    @classmethod
    def from_torch(cls, module: torch.nn.Sigmoid, order: str = "sequential") -> Sigmoid: ...

class Tanh(torch.nn.Tanh):
    order: str
    def __init__(self, *, order: str = "sequential") -> None: ...
    @classmethod
    def from_torch(cls, module: torch.nn.Tanh, order: str = "sequential") -> Tanh: ...

class SiLU(torch.nn.SiLU):
    order: str
    def __init__(self, inplace: bool = False, *, order: str = "sequential") -> None: ...
    @classmethod
    def from_torch(cls, module: torch.nn.SiLU, order: str = "sequential") -> SiLU: ...

class GELU(torch.nn.GELU):
    order: str
    def __init__(self, approximate: str = "none", *, order: str = "sequential") -> None: ...
    @classmethod
    def from_torch(cls, module: torch.nn.GELU, order: str = "sequential") -> GELU: ...

class Softmax(torch.nn.Softmax):
    order: str
    def __init__(self, dim: int | None = None, *, order: str = "sequential") -> None: ...
    @classmethod
    def from_torch(cls, module: torch.nn.Softmax, order: str = "sequential") -> Softmax: ...

class LogSoftmax(torch.nn.LogSoftmax):
    order: str
    def __init__(self, dim: int | None = None, *, order: str = "sequential") -> None: ...
    @classmethod
    def from_torch(cls, module: torch.nn.LogSoftmax,
                   order: str = "sequential") -> LogSoftmax: ...

class LayerNorm(torch.nn.LayerNorm):
    order: str
    def __init__(self, normalized_shape: int | Sequence[int], eps: float = 1e-5,
                 elementwise_affine: bool = True, bias: bool = True, device: Any = None,
                 dtype: torch.dtype | None = None, *, order: str = "sequential") -> None: ...
    @classmethod
    def from_torch(cls, module: torch.nn.LayerNorm, order: str = "sequential") -> LayerNorm: ...

class RMSNorm(torch.nn.RMSNorm):
    order: str
    def __init__(self, normalized_shape: int | Sequence[int], eps: float | None = None,
                 elementwise_affine: bool = True, device: Any = None,
                 dtype: torch.dtype | None = None, *, order: str = "sequential") -> None: ...
    @classmethod
    def from_torch(cls, module: torch.nn.RMSNorm, order: str = "sequential") -> RMSNorm: ...

class MSELoss(torch.nn.MSELoss):
    order: str
    def __init__(self, size_average: Any = None, reduce: Any = None, reduction: str = "mean",
                 *, order: str = "sequential") -> None: ...
    @classmethod
    def from_torch(cls, module: torch.nn.MSELoss, order: str = "sequential") -> MSELoss: ...

class NLLLoss(torch.nn.NLLLoss):
    order: str
    def __init__(self, weight: torch.Tensor | None = None, size_average: Any = None,
                 ignore_index: int = -100, reduce: Any = None, reduction: str = "mean", *,
                 order: str = "sequential") -> None: ...
    @classmethod
    def from_torch(cls, module: torch.nn.NLLLoss, order: str = "sequential") -> NLLLoss: ...

class CrossEntropyLoss(torch.nn.CrossEntropyLoss):
    order: str
    def __init__(self, weight: torch.Tensor | None = None, size_average: Any = None,
                 ignore_index: int = -100, reduce: Any = None, reduction: str = "mean",
                 label_smoothing: float = 0.0, *, order: str = "sequential") -> None: ...
    @classmethod
    def from_torch(cls, module: torch.nn.CrossEntropyLoss,
                   order: str = "sequential") -> CrossEntropyLoss: ...

# ---- batch norm, pooling, embedding, dropout, attention (docs/contract.md §5.7) ----
def batch_norm(input: torch.Tensor, running_mean: torch.Tensor | None,
               running_var: torch.Tensor | None, weight: torch.Tensor | None = None,
               bias: torch.Tensor | None = None, training: bool = False, momentum: float = 0.1,
               eps: float = 1e-5, *, order: str = "sequential") -> torch.Tensor: ...
def avg_pool2d(input: torch.Tensor, kernel_size: _Pair, stride: _Pair | None = None,
               padding: _Pair = 0, ceil_mode: bool = False, count_include_pad: bool = True,
               divisor_override: int | None = None, *,
               order: str = "sequential") -> torch.Tensor: ...
def adaptive_avg_pool2d(input: torch.Tensor,
                        output_size: int | None | tuple[int | None, int | None], *,
                        order: str = "sequential") -> torch.Tensor: ...
def max_pool2d(input: torch.Tensor, kernel_size: _Pair, stride: _Pair | None = None,
               padding: _Pair = 0, dilation: _Pair = 1, ceil_mode: bool = False,
               return_indices: bool = False) -> torch.Tensor: ...
def embedding(input: torch.Tensor, weight: torch.Tensor,
              padding_idx: int | None = None) -> torch.Tensor: ...
def dropout(input: torch.Tensor, p: float = 0.5, training: bool = True, *, seed: int,
            offset: int = 0) -> torch.Tensor: ...
def scaled_dot_product_attention(query: torch.Tensor, key: torch.Tensor, value: torch.Tensor,
                                 attn_mask: torch.Tensor | None = None, dropout_p: float = 0.0,
                                 is_causal: bool = False, scale: float | None = None, *,
                                 order: str = "sequential") -> torch.Tensor: ...

class BatchNorm1d(torch.nn.BatchNorm1d):
    order: str
    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1,
                 affine: bool = True, track_running_stats: bool = True, device: Any = None,
                 dtype: torch.dtype | None = None, *, bias: bool = True,
                 order: str = "sequential") -> None: ...
    @classmethod
    def from_torch(cls, module: torch.nn.BatchNorm1d,
                   order: str = "sequential") -> BatchNorm1d: ...

class BatchNorm2d(torch.nn.BatchNorm2d):
    order: str
    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1,
                 affine: bool = True, track_running_stats: bool = True, device: Any = None,
                 dtype: torch.dtype | None = None, *, bias: bool = True,
                 order: str = "sequential") -> None: ...
    @classmethod
    def from_torch(cls, module: torch.nn.BatchNorm2d,
                   order: str = "sequential") -> BatchNorm2d: ...

class AvgPool2d(torch.nn.AvgPool2d):
    order: str
    def __init__(self, kernel_size: _Pair, stride: _Pair | None = None, padding: _Pair = 0,
                 ceil_mode: bool = False, count_include_pad: bool = True,
                 divisor_override: int | None = None, *, order: str = "sequential") -> None: ...
    @classmethod
    def from_torch(cls, module: torch.nn.AvgPool2d, order: str = "sequential") -> AvgPool2d: ...

class AdaptiveAvgPool2d(torch.nn.AdaptiveAvgPool2d):
    order: str
    def __init__(self, output_size: int | None | tuple[int | None, int | None], *,
                 order: str = "sequential") -> None: ...
    @classmethod
    def from_torch(cls, module: torch.nn.AdaptiveAvgPool2d,
                   order: str = "sequential") -> AdaptiveAvgPool2d: ...

class MaxPool2d(torch.nn.MaxPool2d):
    order: str
    def __init__(self, kernel_size: _Pair, stride: _Pair | None = None, padding: _Pair = 0,
                 dilation: _Pair = 1, return_indices: bool = False, ceil_mode: bool = False, *,
                 order: str = "sequential") -> None: ...
    @classmethod
    def from_torch(cls, module: torch.nn.MaxPool2d, order: str = "sequential") -> MaxPool2d: ...

class Embedding(torch.nn.Embedding):
    order: str
    def __init__(self, num_embeddings: int, embedding_dim: int, padding_idx: int | None = None,
                 max_norm: float | None = None, norm_type: float = 2.0,
                 scale_grad_by_freq: bool = False, sparse: bool = False,
                 _weight: torch.Tensor | None = None, _freeze: bool = False, device: Any = None,
                 dtype: torch.dtype | None = None, *, order: str = "sequential") -> None: ...
    @classmethod
    def from_torch(cls, module: torch.nn.Embedding, order: str = "sequential") -> Embedding: ...

# The k-th call in training mode uses the mask of seed + k (calls counts them).
class Dropout(torch.nn.Dropout):
    order: str
    seed: int
    calls: int
    def __init__(self, p: float = 0.5, inplace: bool = False, *, seed: int = 0,
                 order: str = "sequential") -> None: ...
    @classmethod
    def from_torch(cls, module: torch.nn.Dropout, order: str = "sequential",
                   seed: int = 0) -> Dropout: ...

def group_norm(input: torch.Tensor, num_groups: int, weight: torch.Tensor | None = None,
               bias: torch.Tensor | None = None, eps: float = 1e-5, *,
               order: str = "sequential") -> torch.Tensor: ...
def bmm(input: torch.Tensor, mat2: torch.Tensor, *, order: str = "sequential") -> torch.Tensor: ...
def baddbmm(input: torch.Tensor, batch1: torch.Tensor, batch2: torch.Tensor, *,
            beta: float = 1.0, alpha: float = 1.0,
            order: str = "sequential") -> torch.Tensor: ...
# (cos, sin), each (len(positions), dim), float32.
def rotary_cos_sin(positions: torch.Tensor, dim: int,
                   base: float = 10000.0) -> tuple[torch.Tensor, torch.Tensor]: ...
def apply_rotary(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor: ...

class GroupNorm(torch.nn.GroupNorm):
    order: str
    def __init__(self, num_groups: int, num_channels: int, eps: float = 1e-5,
                 affine: bool = True, device: Any = None, dtype: torch.dtype | None = None, *,
                 bias: bool = True, order: str = "sequential") -> None: ...
    @classmethod
    def from_torch(cls, module: torch.nn.GroupNorm, order: str = "sequential") -> GroupNorm: ...

# dropout must be 0; no add_bias_kv / add_zero_attn. Boolean masks: True = masked (as PyTorch's).
class MultiheadAttention(torch.nn.MultiheadAttention):
    order: str
    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0, bias: bool = True,
                 add_bias_kv: bool = False, add_zero_attn: bool = False,
                 kdim: int | None = None, vdim: int | None = None, batch_first: bool = False,
                 device: Any = None, dtype: torch.dtype | None = None, *,
                 order: str = "sequential") -> None: ...
    def forward(self, query: torch.Tensor, key: torch.Tensor, value: torch.Tensor,
                key_padding_mask: torch.Tensor | None = None, need_weights: bool = True,
                attn_mask: torch.Tensor | None = None, average_attn_weights: bool = True,
                is_causal: bool = False) -> tuple[torch.Tensor, torch.Tensor | None]: ...
    @classmethod
    def from_torch(cls, module: torch.nn.MultiheadAttention,
                   order: str = "sequential") -> MultiheadAttention: ...

# ---- optimizers and clipping with written per-element formulas (docs/contract.md §5.7) ----
_Params = Any  # what torch.optim.Optimizer takes: tensors or parameter-group dicts
class SGD(torch.optim.Optimizer):
    def __init__(self, params: _Params, lr: float = 1e-3, momentum: float = 0.0,
                 dampening: float = 0.0, weight_decay: float = 0.0, nesterov: bool = False, *,
                 maximize: bool = False) -> None: ...

class Adam(torch.optim.Optimizer):
    def __init__(self, params: _Params, lr: float = 1e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0.0, amsgrad: bool = False, *,
                 maximize: bool = False) -> None: ...

class AdamW(torch.optim.Optimizer):
    def __init__(self, params: _Params, lr: float = 1e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 1e-2, amsgrad: bool = False, *,
                 maximize: bool = False) -> None: ...

def clip_grad_norm_(parameters: torch.Tensor | Sequence[torch.Tensor], max_norm: float,
                    norm_type: float = 2.0, *, order: str = "sequential") -> torch.Tensor: ...

# A context manager (a torch.overrides.TorchFunctionMode): routes PyTorch's functions that
# have a reproblas version, lets exact operations pass, raises for the others when strict.
def reproducible(*, order: str = "sequential", strict: bool = True,
                 allow: Iterable[Callable[..., Any]] = ()) -> torch.overrides.TorchFunctionMode: ...

# ---- data-parallel gradients independent of the process count (docs/contract.md §5.8) ----
def data_parallel_backward(model: torch.nn.Module, loss_fn: Callable[..., torch.Tensor],
                           batch: torch.Tensor | Sequence[torch.Tensor], *, shards: int,
                           order: str = "sequential", reduction: Literal["mean", "sum"] = "mean",
                           group: Any = None) -> torch.Tensor: ...
def shard_slices(n: int, shards: int, rank: int = 0,
                 world_size: int = 1) -> list[tuple[int, slice]]: ...
