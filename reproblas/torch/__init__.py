"""PyTorch layer: autograd functions and modules whose forward and backward run on reproblas.

Every float result of a forward or backward pass is defined bit for bit (contract §2-§3), so
training with these layers gives the same bits on every thread count and CPU path (the
knobs REPROBLAS_NUM_THREADS and REPROBLAS_ISA, read at every call). CPU or CUDA tensors
(reproblas's CUDA kernels through DLPack and CuPy) of float32 or float64. See docs/torch.md.

    model = reproblas.torch.convert(model)        # swap the supported modules in place

Needs PyTorch (``pip install 'crlibm-py[torch]'``, which pins torch 2.13.0).
"""
try:
    import torch as _torch  # noqa: F401
except ImportError as exc:  # only this subpackage needs torch; reproblas itself does not
    raise ImportError(
        "reproblas.torch needs PyTorch, which is not installed: pip install "
        "'crlibm-py[torch]' (or torch==2.13.0); the rest of reproblas works without it"
    ) from exc

from ._elementwise import cos, erf, exp, log, rsqrt, sin
from ._functions import conv2d, linear, matmul
from ._layers import (adaptive_avg_pool2d, apply_rotary, avg_pool2d, baddbmm, batch_norm, bmm,
                      dropout, embedding, group_norm, max_pool2d, rotary_cos_sin,
                      scaled_dot_product_attention)
from ._modules import (GELU, AdaptiveAvgPool2d, AvgPool2d, BatchNorm1d, BatchNorm2d, Conv2d,
                       CrossEntropyLoss, Dropout, Embedding, GroupNorm, LayerNorm, Linear,
                       LogSoftmax, MaxPool2d, MSELoss, MultiheadAttention, NLLLoss, ReLU,
                       RMSNorm, Sigmoid, SiLU, Softmax, Tanh, convert)
from ._mode import reproducible
from ._optim import SGD, Adam, AdamW, clip_grad_norm_
from ._omp import share_torch_threads as _share_torch_threads
from ._nn import (cross_entropy, gelu, layer_norm, log_softmax, logsumexp, mean, mse_loss,
                  nll_loss, relu, rms_norm, sigmoid, silu, softmax, sum, tanh, var)

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
           "reproducible"]

from ._cumsum import cumsum  # noqa: E402
from ._distributed import data_parallel_backward, shard_slices  # noqa: E402

__all__ += ["data_parallel_backward", "shard_slices", "cumsum"]

_share_torch_threads()  # reproblas's parallel calls on PyTorch's OpenMP team (_omp.py)
