"""asv benchmarks: crlibm_py per function, array size and CPU path, and its baselines.

Inputs, baselines and the forced-path mechanism (CRLIBM_ISA, read at call time) are those of
tools/bench_crlibm.py, imported from the repository so both measure the same thing. The module
imports without crlibm_py built (asv imports it to discover benchmarks); the crlibm_py
benchmarks are then skipped, as are paths this CPU lacks.
"""
import importlib.util
import os

import numpy as np

from ._common import REPO, import_package

crlibm_py = import_package("crlibm_py")


def _load_bench_script():
    path = REPO / "tools" / "bench_crlibm.py"
    spec = importlib.util.spec_from_file_location("bench_crlibm", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


bench = _load_bench_script()

CASES = [case[0] for case in bench.CASES]  # the registry's cases: exp, ..., sin_huge, ...
FUNCTION_OF = {case[0]: case[1] for case in bench.CASES}
SIZES = [1 << 10, 1 << 16, 1 << 20]
PATHS = ["scalar", "avx2", "avx512"]


class _Arrays:
    def _arrays(self, case, size):
        self.x = bench.case_input(case, size)
        self.y = np.empty_like(self.x)


class TimeCrlibm(_Arrays):
    """crlibm_py.<f>(x, out=y) on a forced CPU path."""
    params = [CASES, SIZES, PATHS]
    param_names = ["case", "size", "path"]

    def setup(self, case, size, path):
        if crlibm_py is None:
            raise NotImplementedError("crlibm_py is not built")
        if not crlibm_py.isa_supported(path):
            raise NotImplementedError(f"this CPU has no {path} path")
        self._saved = os.environ.get(bench.ENV)
        os.environ[bench.ENV] = path
        self.func = getattr(crlibm_py, FUNCTION_OF[case])
        self._arrays(case, size)

    def teardown(self, case, size, path):
        if not hasattr(self, "_saved"):  # setup skipped this case
            return
        if self._saved is None:
            os.environ.pop(bench.ENV, None)
        else:
            os.environ[bench.ENV] = self._saved

    def time_call(self, case, size, path):
        self.func(self.x, out=self.y)


class TimeNumpy(_Arrays):
    """NumPy's float32 baseline of each case (np.tanh for erf, 1/np.sqrt for rsqrt)."""
    params = [CASES, SIZES]
    param_names = ["case", "size"]

    def setup(self, case, size):
        self.call = bench.numpy_baseline(FUNCTION_OF[case])[1]
        self._arrays(case, size)

    def time_call(self, case, size):
        self.call(self.x, self.y)


class TimeScipyErf(_Arrays):
    """scipy.special.erf on float32, the second baseline of erf."""
    params = [SIZES]
    param_names = ["size"]

    def setup(self, size):
        baseline = bench.scipy_baseline("erf")
        if baseline is None:
            raise NotImplementedError("scipy is not installed")
        self.call = baseline[1]
        self._arrays("erf", size)

    def time_call(self, size):
        self.call(self.x, self.y)
