"""Speed of reproblas level-1 reductions against NumPy, measured in one run.

NumPy's counterparts: np.dot (OpenBLAS ddot/sdot), np.sum (NumPy's own
pairwise sum), np.abs(x).sum(), np.linalg.norm (OpenBLAS nrm2 via dot or
NumPy's sqrt(dot)). Thread counts are set with REPROBLAS_NUM_THREADS for
reproblas and threadpoolctl for OpenBLAS. Prints ns/element, GB/s of input
read and the ratio reproblas time / NumPy time (> 1: reproblas is slower).

    PYTHONPATH=. python tools/bench_reproblas.py [--log2n 24] [--threads 1 2] [--json FILE]
"""
import argparse
import os
import sys
import time

import numpy as np

import reproblas as rb
from bench_reproblas_gemm import settle_time
from bench_json import machine_info, write


def best_time(fn, repeat):
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def numpy_counterparts(x, y):
    return {
        "dot": lambda: np.dot(x, y),
        "sum": lambda: np.sum(x),
        "asum": lambda: np.abs(x).sum(),
        "nrm2": lambda: np.linalg.norm(x),
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
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--dtypes", nargs="+", default=["float32", "float64"])
    ap.add_argument("--json", metavar="FILE", help="also write machine info and rows as JSON")
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
                base = {k: best_time(f, args.repeat) for k, f in numpy_counterparts(x, y).items()}
                time.sleep(settle_time(threads))  # best_time's first round warms up again
                for order in ("sequential", "pairwise"):
                    for name, f in reproblas_calls(x, y, order).items():
                        t = best_time(f, args.repeat)
                        nbytes = x.nbytes * (2 if name == "dot" else 1)
                        print(f"{dtype:8} {threads:3d} {name:6} {order:10} {t / n * 1e9:8.3f} "
                              f"{nbytes / t / 1e9:6.2f} {base[name] / n * 1e9:13.3f} "
                              f"{t / base[name]:6.2f}")
                        rows.append({"dtype": dtype, "threads": threads, "routine": name,
                                     "order": order, "n": n, "ns_per_element": t / n * 1e9,
                                     "gb_per_s": nbytes / t / 1e9,
                                     "numpy_ns_per_element": base[name] / n * 1e9,
                                     "ratio": t / base[name]})
            finally:
                if limit is not None:
                    limit.unregister() if hasattr(limit, "unregister") else limit.__exit__(None, None, None)
    if args.json:
        write(args.json, machine_info(sys.argv, repeat=args.repeat), rows)


if __name__ == "__main__":
    main()
