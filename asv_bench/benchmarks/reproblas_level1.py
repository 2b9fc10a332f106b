"""asv benchmarks: reproblas level-1 reductions in both orders against NumPy / OpenBLAS.

The same calls and counterparts as tools/bench_reproblas.py: np.dot (OpenBLAS), np.sum,
OpenBLAS's ?asum and ?nrm2 through scipy.linalg.blas (np.abs(x).sum() and np.linalg.norm
without SciPy). Threads: REPROBLAS_NUM_THREADS and threadpoolctl.
"""
import importlib
import sys

import numpy as np

from ._common import REPO, ThreadedBenchmark, import_package, require

rb = import_package("reproblas")


def _counterparts():
    """tools/bench_reproblas.py's numpy_counterparts (None where it cannot be imported:
    reproblas not built)."""
    sys.path.insert(0, str(REPO / "tools"))
    try:
        return importlib.import_module("bench_reproblas").numpy_counterparts
    except ImportError:
        return None
    finally:
        sys.path.remove(str(REPO / "tools"))


COUNTERPARTS = _counterparts()

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
    """The NumPy/OpenBLAS counterpart of each routine."""
    params = [ROUTINES, DTYPES, SIZES, THREADS]
    param_names = ["routine", "dtype", "n", "threads"]

    def setup(self, routine, dtype, n, threads):
        if COUNTERPARTS is None:
            raise NotImplementedError("tools/bench_reproblas.py does not import")
        self.call = COUNTERPARTS(*_vectors(dtype, n))[routine]
        self._set_threads(threads)

    def time_call(self, routine, dtype, n, threads):
        self.call()
