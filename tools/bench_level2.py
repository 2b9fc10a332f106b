"""Level-2 ratios against OpenBLAS (scipy.linalg.blas), one run, one thread.

    REPROBLAS_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python tools/bench_level2.py [--sizes 1024 2048]
        [--clock wall|cpu] [--interleave] [--repeats N] [--routines symv symv_lower ...]
        [--orders sequential]

Prints, per routine, dtype, order and n, the best-of-repeats time of scipy's routine
divided by reproblas's (>= 1: reproblas is faster). scipy gets Fortran-ordered matrices
(no copy inside f2py), reproblas C-ordered ones. Targets: symv and trmv at least 0.7
(sequential, n = 1024 and 2048).
"""
import argparse
import os
import time

import numpy as np
import scipy.linalg.blas as B

import reproblas


CLOCK = time.perf_counter  # --clock cpu: time.process_time


def best(f, repeats):
    f()
    t = float("inf")
    for _ in range(repeats):
        t0 = CLOCK()
        f()
        t = min(t, CLOCK() - t0)
    return t


def best_pair(ref, ours, repeats):
    """Best-of-repeats times of ref and ours, the calls alternating: on a shared
    machine both see the same spells of contention (one after the other, a
    spell could fall on one side only)."""
    ref(), ours()
    tr = to = float("inf")
    for _ in range(repeats):
        t0 = CLOCK()
        ref()
        t1 = CLOCK()
        ours()
        t2 = CLOCK()
        tr, to = min(tr, t1 - t0), min(to, t2 - t1)
    return tr, to


def cases(n, dtype, order):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((n, n)).astype(dtype)
    fa = np.asfortranarray(a)
    x = rng.standard_normal(n).astype(dtype)
    p = "s" if dtype == np.float32 else "d"
    sb = getattr(B, p + "symv"), getattr(B, p + "trmv")
    ap = np.concatenate([a[: j + 1, j] for j in range(n)])  # upper, packed by columns
    band = np.ascontiguousarray(a[:9])
    return {
        "symv": (lambda: sb[0](1.0, fa, x),
                 lambda: reproblas.symv(1.0, a, x, order=order)),
        "trmv": (lambda: sb[1](fa, x),
                 lambda: reproblas.trmv(a, x, order=order)),
        "symv lower": (lambda: sb[0](1.0, fa, x, lower=1),
                       lambda: reproblas.symv(1.0, a, x, lower=True, order=order)),
        "trmv lower": (lambda: sb[1](fa, x, lower=1),
                       lambda: reproblas.trmv(a, x, lower=True, order=order)),
        "spmv": (lambda: getattr(B, p + "spmv")(n, 1.0, ap, x),
                 lambda: reproblas.spmv(n, 1.0, ap, x, order=order)),
        "tpmv": (lambda: getattr(B, p + "tpmv")(n, ap, x),
                 lambda: reproblas.tpmv(n, ap, x, order=order)),
        "sbmv k=8": (lambda: getattr(B, p + "sbmv")(8, 1.0, band, x),
                     lambda: reproblas.sbmv(8, 1.0, band, x, order=order)),
        "syr": (lambda: getattr(B, p + "syr")(1.0, x, a=fa),
                lambda: reproblas.syr(1.0, x, a=a)),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1024, 2048])
    ap.add_argument("--repeats", type=int, default=20)
    ap.add_argument("--routines", nargs="+", default=None,
                    help="names as printed, a space as '_' (symv_lower); a first word alone "
                         "(symv) takes every case it starts")
    ap.add_argument("--orders", nargs="+", choices=["sequential", "pairwise"],
                    default=["sequential", "pairwise"])
    ap.add_argument("--interleave", action="store_true",
                    help="alternate scipy's and reproblas's calls (steadier ratios on a "
                         "shared machine) instead of all of one, then all of the other")
    ap.add_argument("--clock", choices=["wall", "cpu"], default="wall",
                    help="cpu: the process's CPU time (steadier on a loaded machine)")
    args = ap.parse_args()
    global CLOCK
    CLOCK = time.process_time if args.clock == "cpu" else time.perf_counter
    if os.environ.get("REPROBLAS_NUM_THREADS") != "1":
        print("note: set REPROBLAS_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 for the 1-thread targets")
    print(f"{'routine':10} {'dtype':8} {'order':10} {'n':>5} {'ratio':>6}")
    for n in args.sizes:
        for dtype in (np.float32, np.float64):
            for order in args.orders:
                for name, (ref, ours) in cases(n, dtype, order).items():
                    if args.routines and not {name.split()[0], name.replace(" ", "_")} & set(
                            args.routines):
                        continue
                    if name == "syr" and order == "pairwise":
                        continue
                    if args.interleave:
                        tr, to = best_pair(ref, ours, args.repeats)
                    else:
                        tr, to = best(ref, args.repeats), best(ours, args.repeats)
                    r = tr / to
                    print(f"{name:10} {np.dtype(dtype).name:8} {order:10} {n:5} {r:6.2f}",
                          flush=True)


if __name__ == "__main__":
    main()
