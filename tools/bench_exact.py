"""Ratios of reproblas's level-1 orders to OpenBLAS's sdot, in one run (issue targets:
pairwise and kahan sum/dot at most 1.25x and 1.5x sdot's time, exact sum/dot at most 2x).

    python tools/bench_exact.py [--log2n 24] [--repeat 15] [--json FILE]

float32 vectors of 2^log2n elements from memory, one thread for both libraries (the
environment is set before NumPy loads OpenBLAS). Each ratio is the best time of the routine
over the best time of scipy.linalg.blas.sdot on the same vectors, the calls interleaved
round by round so that a shared machine's noise hits both alike.
"""
import argparse
import json
import os
import sys
import time

for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS",
            "REPROBLAS_NUM_THREADS"):
    os.environ[var] = "1"

import numpy as np  # noqa: E402

TARGETS = {"sequential": None, "pairwise": 1.25, "kahan": 1.5, "exact": 2.0}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--log2n", type=int, default=24)
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--json", help="also write the rows to this file")
    args = ap.parse_args(argv)
    from scipy.linalg import blas
    import reproblas as rb

    n = 1 << args.log2n
    rng = np.random.default_rng(0)
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    calls = {("sdot", "openblas"): lambda: blas.sdot(x, y)}
    for order in TARGETS:
        calls["sum", order] = lambda o=order: rb.sum(x, order=o)
        calls["dot", order] = lambda o=order: rb.dot(x, y, order=o)
    best = dict.fromkeys(calls, float("inf"))
    for f in calls.values():  # warm up: pages, thread pool, code
        f()
    for _ in range(args.repeat):
        for key, f in calls.items():
            t0 = time.perf_counter()
            f()
            best[key] = min(best[key], time.perf_counter() - t0)
    base = best["sdot", "openblas"]
    rows = []
    print(f"n = 2^{args.log2n} float32, 1 thread; sdot {base * 1e3:.2f} ms (best of "
          f"{args.repeat}); ratio = time / sdot's time")
    for (routine, order), t in best.items():
        if routine == "sdot":
            continue
        target = TARGETS[order]
        ratio = t / base
        rows.append({"routine": routine, "order": order, "n": n, "dtype": "float32",
                     "threads": 1, "ratio": ratio, "target": target})
        verdict = "" if target is None else ("  ok" if ratio <= target else
                                             f"  above the target {target}")
        print(f"{routine:4s} {order:10s} {ratio:6.2f}{verdict}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"sdot_seconds": base, "rows": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
