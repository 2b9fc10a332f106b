"""asv benchmarks: reproblas conv2d and its gradients (NCHW, 3x3, padding 1), against
torch.nn.functional.conv2d and its gradients when PyTorch is installed (skipped without it),
1 and 2 threads. tools/bench_reproblas_conv.py measures the ResNet-50 layers and the ratios.
"""
import numpy as np

from ._common import ThreadedBenchmark, import_package, require

rb = import_package("reproblas")

ORDERS = ["sequential", "pairwise"]
THREADS = [1, 2]
# (batch, channels in, height = width, channels out): a small and a mid-sized layer
LAYERS = {"8x16x32x32-k32": (8, 16, 32, 32), "8x64x16x16-k64": (8, 64, 16, 64)}
ROUTINES = ["conv2d", "conv2d_grad_input", "conv2d_grad_weight", "conv2d_grad_bias"]


def _layer(name):
    n, c, hw, k = LAYERS[name]
    rng = np.random.default_rng(0)
    x = rng.standard_normal((n, c, hw, hw)).astype(np.float32)
    w = rng.standard_normal((k, c, 3, 3)).astype(np.float32)
    gy = rng.standard_normal((n, k, hw, hw)).astype(np.float32)  # padding 1: same size
    return x, w, gy


def _calls(x, w, gy, order):
    """routine -> (function name, arguments) for a 3x3 convolution with padding 1."""
    return {
        "conv2d": ((x, w), dict(padding=1, order=order)),
        "conv2d_grad_input": ((gy, w, x.shape), dict(padding=1, order=order)),
        "conv2d_grad_weight": ((x, gy, w.shape), dict(padding=1, order=order)),
        "conv2d_grad_bias": ((gy,), dict(order=order)),
    }


class TimeReproblasConv(ThreadedBenchmark):
    """reproblas.<routine>(...) in float32."""
    params = [ROUTINES, ORDERS, list(LAYERS), THREADS]
    param_names = ["routine", "order", "layer", "threads"]

    def setup(self, routine, order, layer, threads):
        func = require(rb, routine)
        args, kwargs = _calls(*_layer(layer), order)[routine]
        self.call = lambda: func(*args, **kwargs)
        self._set_threads(threads)

    def time_call(self, routine, order, layer, threads):
        self.call()


class TimeTorchConv(ThreadedBenchmark):
    """PyTorch's conv2d and its input/weight gradients (CPU, float32)."""
    params = [["conv2d", "conv2d_grad_input", "conv2d_grad_weight"], list(LAYERS), THREADS]
    param_names = ["routine", "layer", "threads"]

    def setup(self, routine, layer, threads):
        try:
            import torch
            import torch.nn.grad as grad
        except ImportError:
            raise NotImplementedError("PyTorch is not installed") from None
        x, w, gy = (torch.from_numpy(a) for a in _layer(layer))
        self.call = {
            "conv2d": lambda: torch.nn.functional.conv2d(x, w, padding=1),
            "conv2d_grad_input": lambda: grad.conv2d_input(x.shape, w, gy, padding=1),
            "conv2d_grad_weight": lambda: grad.conv2d_weight(x, w.shape, gy, padding=1),
        }[routine]
        self._saved_torch_threads = torch.get_num_threads()
        torch.set_num_threads(threads)
        self._set_threads(threads)

    def teardown(self, routine, layer, threads):
        if hasattr(self, "_saved_torch_threads"):
            import torch
            torch.set_num_threads(self._saved_torch_threads)
        super().teardown(routine, layer, threads)

    def time_call(self, routine, layer, threads):
        self.call()
