"""Speed of reproblas trsm / trsv against scipy.linalg.solve_triangular, measured in one run.

For each size n, dtype, triangle, thread count and routine, the reproblas call
(each order) and scipy's solve_triangular (LAPACK trtrs: OpenBLAS trsm/trsv
inside) are timed alternately, best of R rounds, as tools/bench_reproblas_gemm.py
does. a is C-ordered with a dominant diagonal; trsm solves n right-hand sides,
trsv one. Prints milliseconds and the ratio scipy time / reproblas time (above 1:
reproblas is faster). Threads: REPROBLAS_NUM_THREADS for reproblas,
threadpoolctl for OpenBLAS.

    PYTHONPATH=.:tools python tools/bench_reproblas_solve.py [--sizes 256 1024]
        [--threads 1 2] [--repeat 3] [--routines trsm trsv] [--json FILE]
"""
import argparse
import os
import sys

import numpy as np

import reproblas as rb
from bench_json import add_run_options, machine_info, write
from bench_reproblas_gemm import interleaved_best, settle_time


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[256, 1024])
    add_run_options(ap, repeat=3, budget=10.0, dtypes=["float32", "float64"],
                    routines=["trsm", "trsv"])
    args = ap.parse_args()
    from scipy.linalg import solve_triangular
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # OpenBLAS then uses its own thread count
        threadpool_limits = None
    print(f"{'routine':7} {'dtype':8} {'n':>5} {'triangle':8} {'thr':>3} {'order':10} "
          f"{'ms':>8} {'scipy ms':>8} {'ratio':>6}", flush=True)
    rng = np.random.default_rng(0)
    rows = []
    for routine in args.routines:
        for dtype in args.dtypes:
            for n in args.sizes:
                low = np.tril(rng.standard_normal((n, n))) / n + 2.0 * np.eye(n)
                rhs = rng.standard_normal((n, n) if routine == "trsm" else n).astype(dtype)
                for lower in (True, False):
                    a = (low if lower else np.ascontiguousarray(low.T)).astype(dtype)
                    base = lambda: solve_triangular(a, rhs, lower=lower, check_finite=False)
                    if routine == "trsm":
                        ours = {o: (lambda o=o: rb.trsm(1.0, a, rhs, lower=lower, order=o))
                                for o in args.orders}
                    else:
                        ours = {o: (lambda o=o: rb.trsv(a, rhs, lower=lower, order=o))
                                for o in args.orders}
                    for threads in args.threads:
                        os.environ["REPROBLAS_NUM_THREADS"] = str(threads)
                        limit = threadpool_limits(threads) if threadpool_limits else None
                        try:
                            repeat = args.repeat * (1 if routine == "trsm" else 10)
                            best = interleaved_best([base] + list(ours.values()), repeat,
                                                    args.budget, settle_time(threads))
                        finally:
                            if limit is not None:
                                limit.unregister()
                        for order, t in zip(ours, best[1:]):
                            tri = "lower" if lower else "upper"
                            print(f"{routine:7} {dtype:8} {n:5d} {tri:8} {threads:3d} "
                                  f"{order:10} {t * 1e3:8.3f} {best[0] * 1e3:8.3f} "
                                  f"{best[0] / t:6.2f}", flush=True)
                            rows.append({"routine": routine, "dtype": dtype, "n": n,
                                         "triangle": tri, "threads": threads, "order": order,
                                         "ms": t * 1e3, "scipy_ms": best[0] * 1e3,
                                         "ratio": best[0] / t})
    if args.json:
        write(args.json, machine_info(sys.argv, repeat=args.repeat, budget_s=args.budget), rows)


if __name__ == "__main__":
    main()
