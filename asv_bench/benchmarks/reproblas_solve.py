"""asv benchmarks: reproblas trsv / trsm against scipy.linalg.solve_triangular (LAPACK trtrs,
OpenBLAS inside), for both triangles: a lower op(a) is solved blocked through the gemm engine,
an upper one row by row (the contract's term order puts the solved block's terms last; docs/reproblas.md).
"""
import numpy as np

from ._common import ThreadedBenchmark, import_package, require

rb = import_package("reproblas")

ORDERS = ["sequential", "pairwise"]
DTYPES = ["float32", "float64"]
THREADS = [1, 2]


def _triangle(dtype, n, lower=True):
    """A well-conditioned triangle (dominant diagonal), C-ordered, and right-hand sides."""
    rng = np.random.default_rng(0)
    a = np.tril(rng.standard_normal((n, n))) / n + 2.0 * np.eye(n)
    a = a if lower else np.ascontiguousarray(a.T)
    return a.astype(dtype), rng.standard_normal((n, n)).astype(dtype)


def _scipy_solve():
    try:
        from scipy.linalg import solve_triangular
    except ImportError:
        raise NotImplementedError("scipy is not installed") from None
    return solve_triangular


LOWER = [True, False]


class TimeReproblasTrsv(ThreadedBenchmark):
    """reproblas.trsv(a, b, lower=..., order=...)."""
    params = [ORDERS, DTYPES, [256, 2048], LOWER, THREADS]
    param_names = ["order", "dtype", "n", "lower", "threads"]

    def setup(self, order, dtype, n, lower, threads):
        trsv = require(rb, "trsv")
        a, b = _triangle(dtype, n, lower)
        rhs = b[:, 0].copy()
        self.call = lambda: trsv(a, rhs, lower=lower, order=order)
        self._set_threads(threads)

    def time_call(self, order, dtype, n, lower, threads):
        self.call()


class TimeReproblasTrsm(ThreadedBenchmark):
    """reproblas.trsm(1.0, a, b, side='left', lower=..., order=...), n right-hand sides."""
    params = [ORDERS, DTYPES, [256, 1024], LOWER, THREADS]
    param_names = ["order", "dtype", "n", "lower", "threads"]

    def setup(self, order, dtype, n, lower, threads):
        trsm = require(rb, "trsm")
        a, b = _triangle(dtype, n, lower)
        self.call = lambda: trsm(1.0, a, b, side="left", lower=lower, order=order)
        self._set_threads(threads)

    def time_call(self, order, dtype, n, lower, threads):
        self.call()


class TimeScipySolveTriangular(ThreadedBenchmark):
    """scipy.linalg.solve_triangular with 1 (trsv's case) or n (trsm's case) right-hand sides."""
    params = [DTYPES, [256, 1024], ["vector", "matrix"], LOWER, THREADS]
    param_names = ["dtype", "n", "rhs", "lower", "threads"]

    def setup(self, dtype, n, rhs, lower, threads):
        solve = _scipy_solve()
        a, b = _triangle(dtype, n, lower)
        b = b[:, 0].copy() if rhs == "vector" else b
        self.call = lambda: solve(a, b, lower=lower, check_finite=False)
        self._set_threads(threads)

    def time_call(self, dtype, n, rhs, lower, threads):
        self.call()
