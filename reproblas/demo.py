"""Reproducibility demo: ``python -m reproblas.demo [--n N]``.

Runs a few routines on every CPU path this machine has (``REPROBLAS_ISA``), on 1, 2 and 3
threads (``REPROBLAS_NUM_THREADS``) and in both orders, and prints how many distinct results
(SHA-256 of the output bits) each routine gave: 1 means the same bits in every configuration.
Then it asks the same questions of NumPy's BLAS (OpenBLAS in NumPy's wheels): does a row of
``a @ b`` change when it is computed alone, or with another thread count?
"""
import argparse
import hashlib
import os
from unittest import mock

import numpy as np

import reproblas

THREADS = (1, 2, 3)


def digest(y):
    return hashlib.sha256(np.ascontiguousarray(y).tobytes()).hexdigest()[:16]


def environ(**values):
    """Set environment variables for the duration of a `with` block."""
    return mock.patch.dict(os.environ, {k: str(v) for k, v in values.items()})


def cpu_paths():
    """The REPROBLAS_ISA values this CPU can run."""
    paths = []
    x = np.ones(4, np.float32)
    for isa in reproblas.isa_names():
        with environ(REPROBLAS_ISA=isa):
            try:
                reproblas.sum(x)
            except RuntimeError:
                continue
        paths.append(isa)
    return paths


def problems(n, rng):
    """name -> (callable(order), description)."""
    a = rng.standard_normal((n, n + 3)).astype(np.float32)
    b = rng.standard_normal((n + 3, n - 5)).astype(np.float32)
    v = rng.standard_normal(50 * n * n).astype(np.float32)
    x = rng.standard_normal((2, 16, 30, 30)).astype(np.float32)
    w = rng.standard_normal((24, 16, 3, 3)).astype(np.float32)
    return {
        "gemm": (lambda o: reproblas.gemm(1.0, a, b, order=o), f"float32 {a.shape} @ {b.shape}"),
        "dot": (lambda o: reproblas.dot(v, v, order=o), f"float32, n = {v.size}"),
        "conv2d": (lambda o: reproblas.conv2d(x, w, padding=1, order=o),
                   f"x {x.shape}, w {w.shape}, padding 1"),
    }


def reproblas_table(n, rng):
    paths = cpu_paths()
    configs = [(isa, t) for isa in paths for t in THREADS]
    print(f"reproblas: {len(configs)} configurations per order "
          f"(REPROBLAS_ISA in {paths} x REPROBLAS_NUM_THREADS in {list(THREADS)})")
    print(f"{'routine':8} {'order':10} {'distinct results':>16}  digest   problem")
    for name, (call, what) in problems(n, rng).items():
        for order in reproblas.ORDERS:
            seen = set()
            for isa, threads in configs:
                with environ(REPROBLAS_ISA=isa, REPROBLAS_NUM_THREADS=threads):
                    seen.add(digest(call(order)))
            print(f"{name:8} {order:10} {len(seen):16d}  {min(seen)}  {what}")
            assert len(seen) == 1, f"reproblas.{name} ({order}) changed with the configuration"


def numpy_comparison(n, rng):
    a = rng.standard_normal((n, n + 3)).astype(np.float32)
    b = rng.standard_normal((n + 3, n - 5)).astype(np.float32)
    full = a @ b
    alone = a[:1] @ b
    ours_full = reproblas.gemm(1.0, a, b)
    ours_alone = reproblas.gemm(1.0, a[:1], b)
    print("\nA row of a @ b computed alone vs inside the full product "
          "(elements of the row that differ):")
    print(f"  numpy (BLAS)  {np.count_nonzero(full[:1] != alone):5d} of {alone.size}")
    print(f"  reproblas     {np.count_nonzero(ours_full[:1] != ours_alone):5d} of {alone.size}")
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        print("threadpoolctl is not installed: skipping NumPy's thread-count comparison")
        return
    by_threads = {}
    for threads in (1, 2):
        with threadpool_limits(threads):
            by_threads[threads] = a @ b
    print("a @ b on 1 vs 2 BLAS threads (elements that differ):")
    print(f"  numpy (BLAS)  {np.count_nonzero(by_threads[1] != by_threads[2]):5d} "
          f"of {full.size}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=300, help="matrix size of the gemm problems")
    args = parser.parse_args(argv)
    if args.n < 6:  # the gemm problem is n x (n + 3) @ (n + 3) x (n - 5)
        parser.error(f"--n must be at least 6, got {args.n}")
    rng = np.random.default_rng(2026)
    reproblas_table(args.n, rng)
    numpy_comparison(args.n, rng)
    print(f"\nNumPy {np.__version__}; reproblas {reproblas.__version__}; "
          f"{os.cpu_count()} CPUs. One distinct result = the same bits on every path, "
          "thread count and order-preserving blocking.")


if __name__ == "__main__":
    main()
