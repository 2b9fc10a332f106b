"""Per-call cost of small reproblas calls against NumPy, measured in one run.

Tiny operands (vectors of n elements, n x n matrices, C-ordered, default
arguments: the wrappers' fast path) make the time of a call its fixed cost:
argument handling, the environment knobs, the C call and the result. Each
reproblas call and its NumPy counterpart are timed alternately (timeit, a
batch of calls per timing), the best of each is kept. Prints microseconds per
call and the difference reproblas - NumPy.

    PYTHONPATH=. python tools/bench_reproblas_overhead.py [--n 8] [--repeat 7]
        [--calls 20000] [--threads 1] [--json FILE]
"""
import argparse
import os
import sys
import timeit

import numpy as np

import reproblas as rb
from bench_json import machine_info, write


def cases(n, dtype):
    """(name, reproblas call, NumPy counterpart) on n-element / n x n operands."""
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal(n).astype(dtype), rng.standard_normal(n).astype(dtype)
    a, b = rng.standard_normal((n, n)).astype(dtype), rng.standard_normal((n, n)).astype(dtype)
    return [
        ("dot", lambda: rb.dot(x, y), lambda: np.dot(x, y)),
        ("sum", lambda: rb.sum(x), lambda: np.sum(x)),
        ("nrm2", lambda: rb.nrm2(x), lambda: np.linalg.norm(x)),
        ("gemv", lambda: rb.gemv(1.0, a, x), lambda: a @ x),
        ("gemv_t", lambda: rb.gemv(1.0, a, x, trans=True), lambda: a.T @ x),
        ("gemm", lambda: rb.gemm(1.0, a, b), lambda: a @ b),
        ("matmul", lambda: rb.matmul(a, b), lambda: np.matmul(a, b)),
    ]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=8)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--calls", type=int, default=20000, help="calls per timing")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--dtypes", nargs="+", default=["float32", "float64"])
    ap.add_argument("--json", metavar="FILE")
    args = ap.parse_args()
    os.environ["REPROBLAS_NUM_THREADS"] = str(args.threads)
    print(f"n = {args.n}; REPROBLAS_NUM_THREADS={args.threads}; "
          f"REPROBLAS_ISA={os.environ.get('REPROBLAS_ISA', '') or rb.best_isa()}")
    print(f"{'routine':8} {'dtype':8} {'reproblas us':>12} {'numpy us':>9} {'extra us':>9}")
    rows = []
    for dtype in args.dtypes:
        for name, ours, base in cases(args.n, dtype):
            best = [float("inf"), float("inf")]
            for _ in range(args.repeat):
                for i, f in enumerate((base, ours)):
                    best[i] = min(best[i], timeit.timeit(f, number=args.calls) / args.calls)
            t_np, t_rb = best[0] * 1e6, best[1] * 1e6
            print(f"{name:8} {dtype:8} {t_rb:12.2f} {t_np:9.2f} {t_rb - t_np:9.2f}", flush=True)
            rows.append({"routine": name, "dtype": dtype, "n": args.n, "threads": args.threads,
                         "us_per_call": t_rb, "numpy_us_per_call": t_np})
    if args.json:
        write(args.json, machine_info(sys.argv, repeat=args.repeat, calls=args.calls), rows)


if __name__ == "__main__":
    main()
