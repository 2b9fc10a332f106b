"""asv benchmarks: reproblas trsv / trsm against scipy.linalg.solve_triangular (LAPACK trtrs,
OpenBLAS inside). Skipped until reproblas has trsv / trsm.
"""
import numpy as np

from ._common import ThreadedBenchmark, import_package, require

rb = import_package("reproblas")

ORDERS = ["sequential", "pairwise"]
DTYPES = ["float32", "float64"]
THREADS = [1, 2]


def _triangle(dtype, n):
    """A well-conditioned lower triangle (dominant diagonal) and right-hand sides."""
    rng = np.random.default_rng(0)
    a = np.tril(rng.standard_normal((n, n))) / n + 2.0 * np.eye(n)
    return a.astype(dtype), rng.standard_normal((n, n)).astype(dtype)


def _scipy_solve():
    try:
        from scipy.linalg import solve_triangular
    except ImportError:
        raise NotImplementedError("scipy is not installed") from None
    return solve_triangular


class TimeReproblasTrsv(ThreadedBenchmark):
    """reproblas.trsv(a, b, lower=True, order=...)."""
    params = [ORDERS, DTYPES, [256, 2048], THREADS]
    param_names = ["order", "dtype", "n", "threads"]

    def setup(self, order, dtype, n, threads):
        trsv = require(rb, "trsv")
        a, b = _triangle(dtype, n)
        rhs = b[:, 0].copy()
        self.call = lambda: trsv(a, rhs, lower=True, order=order)
        self._set_threads(threads)

    def time_call(self, order, dtype, n, threads):
        self.call()


class TimeReproblasTrsm(ThreadedBenchmark):
    """reproblas.trsm(1.0, a, b, side='left', lower=True, order=...), n right-hand sides."""
    params = [ORDERS, DTYPES, [256, 1024], THREADS]
    param_names = ["order", "dtype", "n", "threads"]

    def setup(self, order, dtype, n, threads):
        trsm = require(rb, "trsm")
        a, b = _triangle(dtype, n)
        self.call = lambda: trsm(1.0, a, b, side="left", lower=True, order=order)
        self._set_threads(threads)

    def time_call(self, order, dtype, n, threads):
        self.call()


class TimeScipySolveTriangular(ThreadedBenchmark):
    """scipy.linalg.solve_triangular with 1 (trsv's case) or n (trsm's case) right-hand sides."""
    params = [DTYPES, [256, 1024], ["vector", "matrix"], THREADS]
    param_names = ["dtype", "n", "rhs", "threads"]

    def setup(self, dtype, n, rhs, threads):
        solve = _scipy_solve()
        a, b = _triangle(dtype, n)
        b = b[:, 0].copy() if rhs == "vector" else b
        self.call = lambda: solve(a, b, lower=True, check_finite=False)
        self._set_threads(threads)

    def time_call(self, dtype, n, rhs, threads):
        self.call()
