"""asv benchmarks of the CUDA backend (skipped without CuPy or a GPU): reproblas
gemm against cupy.matmul (cuBLAS, TF32 off), crlibm_py.exp against cupy.exp, trsm
against cuBLAS trsm, the convolutions alone."""
import os

import numpy as np

from ._common import import_package

os.environ.setdefault("CUPY_TF32", "0")
rb = import_package("reproblas")
cr = import_package("crlibm_py")


def _cupy():
    try:
        import cupy
        cupy.cuda.runtime.getDeviceCount()
        return cupy
    except Exception:
        raise NotImplementedError("needs CuPy and a CUDA GPU") from None


class TimeCudaGemm:
    params = [["reproblas", "cublas"], ["float32", "float64"], [1024, 4096]]
    param_names = ["impl", "dtype", "n"]

    def setup(self, impl, dtype, n):
        cp = _cupy()
        if rb is None:
            raise NotImplementedError("reproblas is not built")
        rng = np.random.default_rng(0)
        a = cp.asarray(rng.standard_normal((n, n)).astype(dtype))
        b = cp.asarray(rng.standard_normal((n, n)).astype(dtype))
        f = (lambda: rb.gemm(1.0, a, b)) if impl == "reproblas" else (lambda: cp.matmul(a, b))
        self.call = lambda: (f(), cp.cuda.Device().synchronize())
        self.call()

    def time_gemm(self, impl, dtype, n):
        self.call()


class TimeCudaExp:
    params = [["crlibm_py", "cupy"]]
    param_names = ["impl"]

    def setup(self, impl):
        cp = _cupy()
        if cr is None:
            raise NotImplementedError("crlibm_py is not built")
        x = cp.asarray(np.random.default_rng(0).standard_normal(1 << 24).astype(np.float32))
        f = cr.exp if impl == "crlibm_py" else cp.exp
        self.call = lambda: (f(x), cp.cuda.Device().synchronize())
        self.call()

    def time_exp(self, impl):
        self.call()


class TimeCudaTrsm:
    """Lower (gemm-updated) and upper (row kernel) solves vs cuBLAS trsm."""
    params = [["reproblas", "cublas"], [True, False]]
    param_names = ["impl", "lower"]

    def setup(self, impl, lower):
        cp = _cupy()
        if rb is None:
            raise NotImplementedError("reproblas is not built")
        from cupyx.scipy.linalg import solve_triangular
        rng, n = np.random.default_rng(0), 2048
        a = np.tril(rng.standard_normal((n, n)) / n) + np.diag(1 + rng.random(n))
        m = cp.asarray((a if lower else a.T).astype(np.float32))
        b = cp.asarray(rng.standard_normal((n, n)).astype(np.float32))
        f = ((lambda: rb.trsm(1.0, m, b, lower=lower)) if impl == "reproblas"
             else (lambda: solve_triangular(m, b, lower=lower)))
        self.call = lambda: (f(), cp.cuda.Device().synchronize())
        self.call()

    def time_trsm(self, impl, lower):
        self.call()


class TimeCudaConv2d:
    """A ResNet-like 3x3 layer (float32), forward and both gradients."""
    params = [["conv2d", "conv2d_grad_input", "conv2d_grad_weight"]]
    param_names = ["routine"]

    def setup(self, routine):
        cp = _cupy()
        if rb is None:
            raise NotImplementedError("reproblas is not built")
        rng = np.random.default_rng(0)
        x = cp.asarray(rng.standard_normal((16, 64, 56, 56)).astype(np.float32))
        w = cp.asarray(rng.standard_normal((64, 64, 3, 3)).astype(np.float32))
        calls = {"conv2d": lambda: rb.conv2d(x, w, padding=1),
                 "conv2d_grad_input": lambda: rb.conv2d_grad_input(x, w, x.shape, padding=1),
                 "conv2d_grad_weight": lambda: rb.conv2d_grad_weight(x, x, w.shape, padding=1)}
        f = calls[routine]
        self.call = lambda: (f(), cp.cuda.Device().synchronize())
        self.call()

    def time_conv(self, routine):
        self.call()
