"""asv benchmarks of the CUDA backend (skipped without CuPy or a GPU): reproblas
gemm against cupy.matmul (cuBLAS, TF32 off) and crlibm_py.exp against cupy.exp."""
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
