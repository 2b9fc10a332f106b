"""Speed of reproblas level-1 reductions against NumPy, measured in one run.

Counterparts: np.dot (OpenBLAS ddot/sdot), np.sum (NumPy's own pairwise
sum; BLAS has no plain sum), and OpenBLAS's sasum/dasum and snrm2/dnrm2
through scipy.linalg.blas (np.abs(x).sum() and np.linalg.norm, which is
sqrt(dot), when SciPy is missing). Each reproblas
call and its counterpart are timed alternately and the best of each is kept
(see bench_reproblas_gemm.interleaved_best). Thread counts are set with
REPROBLAS_NUM_THREADS for reproblas and threadpoolctl for OpenBLAS. Prints
ns/element, GB/s of input read and the ratio reproblas time / counterpart
time (> 1: reproblas is slower).

    PYTHONPATH=. python tools/bench_reproblas.py [--log2n 24] [--threads 1 2] [--repeat 5]
        [--routines dot sum asum nrm2] [--orders sequential pairwise] [--json FILE]
"""
import argparse
import os
import sys

import numpy as np

import reproblas as rb
from bench_reproblas_gemm import interleaved_best, settle_time
from bench_json import add_run_options, machine_info, write


try:  # loaded before threadpoolctl looks: SciPy's OpenBLAS is a library of its own
    from scipy.linalg import blas as scipy_blas
except ImportError:
    scipy_blas = None


def blas_call(name, x, fallback):
    """OpenBLAS's s<name>/d<name> of x (SciPy's BLAS), else fallback."""
    if scipy_blas is None:
        return fallback
    routine = getattr(scipy_blas, ("s" if x.dtype == np.float32 else "d") + name)
    return lambda: routine(x)


def numpy_counterparts(x, y):
    return {
        "dot": lambda: np.dot(x, y),
        "sum": lambda: np.sum(x),
        "asum": blas_call("asum", x, lambda: np.abs(x).sum()),
        "nrm2": blas_call("nrm2", x, lambda: np.linalg.norm(x)),
    }


def reproblas_calls(x, y, order):
    return {
        "dot": lambda: rb.dot(x, y, order=order),
        "sum": lambda: rb.sum(x, order=order),
        "asum": lambda: rb.asum(x, order=order),
        "nrm2": lambda: rb.nrm2(x, order=order),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--log2n", type=int, default=24)
    add_run_options(ap, repeat=5, budget=10.0, dtypes=["float32", "float64"],
                    routines=["dot", "sum", "asum", "nrm2"],
                    routine_choices=["dot", "sum", "asum", "nrm2"])
    args = ap.parse_args()
    try:
        from threadpoolctl import threadpool_limits, threadpool_info
    except ImportError:  # still measure, but say the OpenBLAS thread count is unset
        threadpool_limits, threadpool_info = None, lambda: []
    n = 1 << args.log2n
    blas = [(i.get("internal_api"), i.get("architecture")) for i in threadpool_info()]
    print(f"n = 2^{args.log2n}; REPROBLAS_ISA={os.environ.get('REPROBLAS_ISA', '') or rb.best_isa()}; "
          f"OPENBLAS_CORETYPE={os.environ.get('OPENBLAS_CORETYPE', '(unset)')}; BLAS: {blas}")
    print(f"{'dtype':8} {'thr':>3} {'routine':6} {'order':10} {'ns/elem':>8} {'GB/s':>6} "
          f"{'numpy ns/elem':>13} {'ratio':>6}")
    rng = np.random.default_rng(0)
    rows = []
    for dtype in args.dtypes:
        x = rng.standard_normal(n).astype(dtype)
        y = rng.standard_normal(n).astype(dtype)
        for threads in args.threads:
            os.environ["REPROBLAS_NUM_THREADS"] = str(threads)
            limit = threadpool_limits(threads) if threadpool_limits else None
            try:
                bases = numpy_counterparts(x, y)
                for order in args.orders:
                    for name, f in reproblas_calls(x, y, order).items():
                        if name not in args.routines:
                            continue
                        tb, t = interleaved_best([bases[name], f], args.repeat, args.budget,
                                                 settle_time(threads))
                        nbytes = x.nbytes * (2 if name == "dot" else 1)
                        print(f"{dtype:8} {threads:3d} {name:6} {order:10} {t / n * 1e9:8.3f} "
                              f"{nbytes / t / 1e9:6.2f} {tb / n * 1e9:13.3f} "
                              f"{t / tb:6.2f}")
                        rows.append({"dtype": dtype, "threads": threads, "routine": name,
                                     "order": order, "n": n, "ns_per_element": t / n * 1e9,
                                     "gb_per_s": nbytes / t / 1e9,
                                     "numpy_ns_per_element": tb / n * 1e9,
                                     "ratio": t / tb})
            finally:
                if limit is not None:
                    limit.unregister() if hasattr(limit, "unregister") else limit.__exit__(None, None, None)
    if args.json:
        write(args.json, machine_info(sys.argv, repeat=args.repeat, budget_s=args.budget), rows)


if __name__ == "__main__":
    main()
