"""Shared by the asv benchmark modules: import the package under test, thread settings.

asv imports every benchmark module to discover the benchmarks, also where the package is not
built; the modules must then import cleanly and their benchmarks skip (NotImplementedError in
setup is asv's "skip").
"""
import importlib
import os
import pathlib
import sys

REPO = pathlib.Path(__file__).resolve().parents[2]


def import_package(name):
    """The installed package `name`, else the one built in place in this checkout, else None."""
    try:
        return importlib.import_module(name)
    except ImportError:
        if str(REPO) not in sys.path:
            sys.path.append(str(REPO))
        try:
            return importlib.import_module(name)
        except ImportError:
            return None


def require(module, routine=None):
    """Skip the benchmark (asv: NotImplementedError in setup) if the package or the routine
    is absent; otherwise return the routine (or the package)."""
    if module is None:
        raise NotImplementedError("the package is not built")
    if routine is None:
        return module
    func = getattr(module, routine, None)
    if func is None:
        raise NotImplementedError(f"{module.__name__}.{routine} does not exist in this version")
    return func


class Threads:
    """Sets REPROBLAS_NUM_THREADS and OpenBLAS's thread count (threadpoolctl) for one
    benchmark, and puts both back afterwards."""

    def __init__(self, n):
        self._saved = os.environ.get("REPROBLAS_NUM_THREADS")
        os.environ["REPROBLAS_NUM_THREADS"] = str(n)
        try:
            from threadpoolctl import threadpool_limits
        except ImportError:  # OpenBLAS then uses its own default
            self._limits = None
        else:
            self._limits = threadpool_limits(limits=n, user_api="blas")

    def restore(self):
        if self._limits is not None:
            self._limits.restore_original_limits()
        if self._saved is None:
            os.environ.pop("REPROBLAS_NUM_THREADS", None)
        else:
            os.environ["REPROBLAS_NUM_THREADS"] = self._saved


class ThreadedBenchmark:
    """Base class: the last parameter of every benchmark is the thread count."""

    def _set_threads(self, threads):
        self._threads = Threads(threads)

    def teardown(self, *params):
        threads = getattr(self, "_threads", None)
        if threads is not None:  # setup did not skip
            threads.restore()
            self._threads = None
