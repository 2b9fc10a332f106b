"""Speed of reproblas gemm / gemv / symm / syrk / syr2k against OpenBLAS, in one run.

For each size n (square n x n matrices), dtype, thread count and routine, the
reproblas call (each order) and NumPy's counterpart (a @ b, a @ x) are timed
alternately, R rounds each, and the best time of each is kept: on a shared
machine interleaving keeps both sides under the same load. Prints GFLOP/s
(2 n^3 or 2 n^2 flops) and the ratio reproblas GFLOP/s / OpenBLAS GFLOP/s
(1.0 = as fast; above 1 faster). gemv multiplies a C-ordered A; gemv_t uses
trans=True (A.T @ x) and gemv_f a Fortran-ordered A, both of which read op(A)
down its columns. symm, syrk, syr2k and trmm (upper triangle, no transpose,
left side; trmm_lower: the lower triangle) are compared with scipy.linalg.blas's ?symm, ?syrk, ?syr2k, ?trmm
on Fortran-ordered arrays (no copies on either side), with the flops of the
product (symm, syr2k: 2 n^3; syrk, trmm: n^3). Threads: REPROBLAS_NUM_THREADS for
reproblas, threadpoolctl for OpenBLAS.

    PYTHONPATH=. python tools/bench_reproblas_gemm.py [--sizes 256 512 1024 2048]
        [--threads 1 2] [--repeat 5] [--routines gemm gemv gemv_t gemv_f symm syrk syr2k trmm
        trmm_lower] [--clock wall|cpu]
        [--orders sequential pairwise]
        [--json FILE]
"""
import argparse
import os
import sys
import time

import numpy as np

import reproblas as rb
from bench_json import add_run_options, machine_info, write


CLOCK = time.perf_counter  # --clock cpu: time.process_time (this process's CPU time)


def timed(fn):
    t0 = CLOCK()
    fn()
    return CLOCK() - t0


def settle_time(threads):
    """Seconds to wait after a multi-threaded baseline call: OpenBLAS's and
    OpenMP's idle workers spin for about 0.1 s after a call returns, and on a
    2-core machine they would take a core from the next timed call."""
    return 0.3 if threads > 1 else 0.0


def interleaved_best(fns, repeat, budget, settle=0.0, burst=3, warmup=0.003):
    """Best time of each function, calling them in turn `repeat` times (fewer
    rounds once `budget` seconds have been spent). fns[0] is the baseline.
    Each function's turn starts with untimed calls for at least `warmup`
    seconds (at least one call): after a pause the threads that idled, and on
    a VM the vCPUs, take a few milliseconds to reach speed (measured here:
    the first 2-thread n = 256 gemm call after 0.3 s idle took 2-5x a warm
    one, OpenBLAS's and ours alike). Then timed calls back to back: enough for
    ~5 ms (at most 50) at the last warm-up call's speed, and with a `settle`
    (multi-threaded runs, see settle_time) at least `burst`; a pause follows
    each multi-threaded turn: `settle` after the baseline's, 10 ms after ours
    (our pool polls for 2 ms)."""
    best = [float("inf")] * len(fns)
    start = time.perf_counter()
    for r in range(repeat):
        for i, f in enumerate(fns):
            # Untimed warm-up calls; short calls then get longer bursts (a
            # turn lasting ~5 ms, at most 50 calls), so that the best of
            # sub-millisecond calls does not rest on a few samples a noisy
            # vCPU happened to slow; the same rule for every fn.
            warm_until = time.perf_counter() + warmup
            last = timed(f)
            while time.perf_counter() < warm_until:
                last = timed(f)
            calls = max(burst if settle else 1, min(50, int(0.005 / max(last, 1e-6))))
            for _ in range(calls):
                best[i] = min(best[i], timed(f))
            if settle:
                time.sleep(settle if i == 0 else 0.01)
        if r >= 1 and time.perf_counter() - start > budget:
            break
    return best


def _symmetric_case(routine, dtype, a, b, orders):
    """(flops, OpenBLAS call, {order: reproblas call}) of a symmetric routine: both
    sides write into a preallocated Fortran-ordered c (overwrite_c)."""
    from scipy.linalg import blas
    fa, fb = np.asfortranarray(a), np.asfortranarray(b)
    c = np.zeros(a.shape, dtype, order="F")
    f = getattr(blas, ("s" if dtype == "float32" else "d") + routine.split("_")[0])
    n = a.shape[0]
    if routine == "symm":
        return (2.0 * n ** 3, lambda: f(1.0, fa, fb, 0.0, c, overwrite_c=1),
                {o: (lambda o=o: rb.symm(1.0, fa, fb, 0.0, c, overwrite_c=True, order=o))
                 for o in orders})
    if routine in ("trmm", "trmm_lower"):  # B <- op(A) B in place: every call rewrites c,
        lo = routine == "trmm_lower"         # as scipy's
        return (1.0 * n ** 3, lambda: f(1.0, fa, c, lower=lo, overwrite_b=1),
                {o: (lambda o=o: rb.trmm(1.0, fa, c, lower=lo, overwrite_b=True, order=o))
                 for o in orders})
    if routine == "syrk":
        return (1.0 * n ** 3, lambda: f(1.0, fa, 0.0, c, overwrite_c=1),
                {o: (lambda o=o: rb.syrk(1.0, fa, 0.0, c, overwrite_c=True, order=o))
                 for o in orders})
    return (2.0 * n ** 3, lambda: f(1.0, fa, fb, 0.0, c, overwrite_c=1),
            {o: (lambda o=o: rb.syr2k(1.0, fa, fb, 0.0, c, overwrite_c=True, order=o))
             for o in orders})


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[256, 512, 1024, 2048])
    add_run_options(ap, repeat=5, budget=20.0, dtypes=["float32", "float64"],
                    routines=["gemm", "gemv"], routine_choices=["gemm", "gemv", "gemv_t", "gemv_f", "symm",
                                                     "syrk", "syr2k", "trmm", "trmm_lower"])
    ap.add_argument("--clock", choices=["wall", "cpu"], default="wall",
                    help="cpu: the process's CPU time (steadier on a loaded machine, 1 thread)")
    args = ap.parse_args()
    global CLOCK
    CLOCK = time.process_time if args.clock == "cpu" else time.perf_counter
    try:
        from threadpoolctl import threadpool_info, threadpool_limits
    except ImportError:
        threadpool_limits, threadpool_info = None, lambda: []
        # without it every row's baseline is OpenBLAS on all cores (a 1-thread
        # row then compares one of our threads against all of OpenBLAS's)
        print("warning: threadpoolctl is not installed: OpenBLAS runs on all cores in every "
              "row; pip install threadpoolctl", file=sys.stderr)
    blas = [(i.get("internal_api"), i.get("architecture")) for i in threadpool_info()]
    print(f"REPROBLAS_ISA={os.environ.get('REPROBLAS_ISA', '') or rb.best_isa()}; "
          f"OPENBLAS_CORETYPE={os.environ.get('OPENBLAS_CORETYPE', '(unset)')}; BLAS: {blas}")
    print(f"{'routine':7} {'dtype':8} {'n':>5} {'thr':>3} {'order':10} {'GFLOP/s':>8} "
          f"{'OpenBLAS':>8} {'ratio':>6}", flush=True)
    rng = np.random.default_rng(0)
    rows = []
    for routine in args.routines:
        for dtype in args.dtypes:
            for n in args.sizes:
                a = rng.standard_normal((n, n)).astype(dtype)
                b = rng.standard_normal((n, n)).astype(dtype)
                x = b[:, 0].copy()
                if routine == "gemm":
                    flops = 2.0 * n ** 3
                    base = lambda: a @ b
                    ours = {o: (lambda o=o: rb.gemm(1.0, a, b, order=o)) for o in args.orders}
                elif routine in ("symm", "syrk", "syr2k", "trmm", "trmm_lower"):
                    flops, base, ours = _symmetric_case(routine, dtype, a, b, args.orders)
                else:
                    flops = 2.0 * n * n
                    trans = routine == "gemv_t"
                    if routine == "gemv_f":
                        a = np.asfortranarray(a)
                    base = (lambda: a.T @ x) if trans else (lambda: a @ x)
                    ours = {o: (lambda o=o: rb.gemv(1.0, a, x, trans=trans, order=o))
                            for o in args.orders}
                for threads in args.threads:
                    os.environ["REPROBLAS_NUM_THREADS"] = str(threads)
                    limit = threadpool_limits(threads) if threadpool_limits else None
                    try:
                        fns = [base] + list(ours.values())
                        repeat = args.repeat * (20 if routine.startswith("gemv") else 1)
                        best = interleaved_best(fns, repeat, args.budget, settle_time(threads))
                    finally:
                        if limit is not None:
                            limit.unregister()
                    for order, t in zip(ours, best[1:]):
                        print(f"{routine:7} {dtype:8} {n:5d} {threads:3d} {order:10} "
                              f"{flops / t / 1e9:8.2f} {flops / best[0] / 1e9:8.2f} "
                              f"{best[0] / t:6.2f}", flush=True)
                        rows.append({"routine": routine, "dtype": dtype, "n": n,
                                     "threads": threads, "order": order,
                                     "gflops": flops / t / 1e9,
                                     "openblas_gflops": flops / best[0] / 1e9,
                                     "ratio": best[0] / t})
    if args.json:
        write(args.json, machine_info(sys.argv, repeat=args.repeat, budget_s=args.budget), rows)


if __name__ == "__main__":
    main()
