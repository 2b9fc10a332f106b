"""asv benchmarks: reproblas gemm and gemv against NumPy's a @ b / a @ x (OpenBLAS).

The same calls as tools/bench_reproblas_gemm.py on square n x n C-ordered matrices.
Threads: REPROBLAS_NUM_THREADS and threadpoolctl.
"""
import numpy as np

from ._common import ThreadedBenchmark, import_package, require

rb = import_package("reproblas")

ORDERS = ["sequential", "pairwise"]
DTYPES = ["float32", "float64"]
THREADS = [1, 2]


def _operands(dtype, n):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((n, n)).astype(dtype)
    b = rng.standard_normal((n, n)).astype(dtype)
    return a, b, b[:, 0].copy()


class TimeReproblasGemm(ThreadedBenchmark):
    """reproblas.gemm(1.0, a, b, order=...)."""
    params = [ORDERS, DTYPES, [64, 256, 1024], THREADS]
    param_names = ["order", "dtype", "n", "threads"]

    def setup(self, order, dtype, n, threads):
        gemm = require(rb, "gemm")
        a, b, _ = _operands(dtype, n)
        self.call = lambda: gemm(1.0, a, b, order=order)
        self._set_threads(threads)

    def time_call(self, order, dtype, n, threads):
        self.call()


class TimeOpenblasGemm(ThreadedBenchmark):
    """NumPy's a @ b (OpenBLAS sgemm/dgemm)."""
    params = [DTYPES, [64, 256, 1024], THREADS]
    param_names = ["dtype", "n", "threads"]

    def setup(self, dtype, n, threads):
        a, b, _ = _operands(dtype, n)
        self.call = lambda: a @ b
        self._set_threads(threads)

    def time_call(self, dtype, n, threads):
        self.call()


class TimeReproblasGemv(ThreadedBenchmark):
    """reproblas.gemv(1.0, a, x, order=...) with a row-major a."""
    params = [ORDERS, DTYPES, [256, 1024, 4096], THREADS]
    param_names = ["order", "dtype", "n", "threads"]

    def setup(self, order, dtype, n, threads):
        gemv = require(rb, "gemv")
        a, _, x = _operands(dtype, n)
        self.call = lambda: gemv(1.0, a, x, order=order)
        self._set_threads(threads)

    def time_call(self, order, dtype, n, threads):
        self.call()


class TimeOpenblasGemv(ThreadedBenchmark):
    """NumPy's a @ x (OpenBLAS sgemv/dgemv)."""
    params = [DTYPES, [256, 1024, 4096], THREADS]
    param_names = ["dtype", "n", "threads"]

    def setup(self, dtype, n, threads):
        a, _, x = _operands(dtype, n)
        self.call = lambda: a @ x
        self._set_threads(threads)

    def time_call(self, dtype, n, threads):
        self.call()
