"""asv benchmarks: reproblas level-1 reductions in both orders against NumPy / OpenBLAS.

The same calls and counterparts as tools/bench_reproblas.py: np.dot (OpenBLAS), np.sum,
np.abs(x).sum(), np.linalg.norm. Threads: REPROBLAS_NUM_THREADS and threadpoolctl.
"""
import numpy as np

from ._common import ThreadedBenchmark, import_package, require

rb = import_package("reproblas")

ROUTINES = ["dot", "sum", "asum", "nrm2"]
ORDERS = ["sequential", "pairwise"]
DTYPES = ["float32", "float64"]
SIZES = [1 << 12, 1 << 16, 1 << 22]
THREADS = [1, 2]


def _vectors(dtype, n):
    rng = np.random.default_rng(0)
    return rng.standard_normal(n).astype(dtype), rng.standard_normal(n).astype(dtype)


class TimeReproblasLevel1(ThreadedBenchmark):
    """reproblas.<routine>(x[, y], order=...)."""
    params = [ROUTINES, ORDERS, DTYPES, SIZES, THREADS]
    param_names = ["routine", "order", "dtype", "n", "threads"]

    def setup(self, routine, order, dtype, n, threads):
        func = require(rb, routine)
        x, y = _vectors(dtype, n)
        args = (x, y) if routine == "dot" else (x,)
        self.call = lambda: func(*args, order=order)
        self._set_threads(threads)

    def time_call(self, routine, order, dtype, n, threads):
        self.call()


class TimeNumpyLevel1(ThreadedBenchmark):
    """NumPy's counterpart of each routine (np.dot is OpenBLAS)."""
    params = [ROUTINES, DTYPES, SIZES, THREADS]
    param_names = ["routine", "dtype", "n", "threads"]

    def setup(self, routine, dtype, n, threads):
        x, y = _vectors(dtype, n)
        self.call = {"dot": lambda: np.dot(x, y), "sum": lambda: np.sum(x),
                     "asum": lambda: np.abs(x).sum(), "nrm2": lambda: np.linalg.norm(x)}[routine]
        self._set_threads(threads)

    def time_call(self, routine, dtype, n, threads):
        self.call()
