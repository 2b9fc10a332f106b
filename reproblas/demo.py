"""Reproducibility demo: python -m reproblas.demo [--n N].

Runs a few routines on every CPU path this machine has (``REPROBLAS_ISA``), on 1, 2 and 3
threads (``REPROBLAS_NUM_THREADS``) and in both orders, and prints how many distinct results
(SHA-256 of the output bits) each routine gave: 1 means the same bits in every configuration.
Then it asks the same questions of NumPy's BLAS (OpenBLAS in NumPy's wheels): does a row of
``a @ b`` change when it is computed alone, or with another thread count?
"""
import argparse
import hashlib
import os
import textwrap
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
    print("reproblas: each routine in every configuration")
    print(f"  {len(configs)} configurations per order: REPROBLAS_ISA in {paths} x "
          f"REPROBLAS_NUM_THREADS in {list(THREADS)}")
    print("  a result is known by the SHA-256 of its bits: 1 distinct result = the same bits "
          "in every configuration\n")
    print(f"{'routine':8} {'order':10} {'distinct results':>16}  {'SHA-256 (start)':16}  problem")
    for name, (call, what) in problems(n, rng).items():
        for order in reproblas.ORDERS:
            seen = set()
            for isa, threads in configs:
                with environ(REPROBLAS_ISA=isa, REPROBLAS_NUM_THREADS=threads):
                    seen.add(digest(call(order)))
            print(f"{name:8} {order:10} {len(seen):16d}  {min(seen):16}  {what}")
            assert len(seen) == 1, f"reproblas.{name} ({order}) changed with the configuration"


def openblas():
    """(name of NumPy's BLAS with its version, its thread count, threadpool_limits or None)."""
    try:
        from threadpoolctl import threadpool_info, threadpool_limits
    except ImportError:
        return "NumPy's BLAS", None, None
    blas = [i for i in threadpool_info() if i.get("user_api") == "blas"]
    if not blas:
        return "NumPy's BLAS", None, threadpool_limits
    info = blas[0]
    return (f"NumPy ({info.get('internal_api', 'BLAS')} {info.get('version') or ''})".strip(),
            info.get("num_threads"), threadpool_limits)


def note(text):
    print(textwrap.fill(text, 88, subsequent_indent="  "))


def _differ(x, y):
    return f"{np.count_nonzero(x != y)} of {x.size} differ"


def numpy_comparison(n, rng):
    a = rng.standard_normal((n, n + 3)).astype(np.float32)
    b = rng.standard_normal((n + 3, n - 5)).astype(np.float32)
    name, blas_threads, limits = openblas()
    rows = [("row 0 of a @ b: alone vs in the product", _differ((a @ b)[:1], a[:1] @ b),
             _differ(reproblas.gemm(1.0, a, b)[:1], reproblas.gemm(1.0, a[:1], b)))]
    ours = {}
    for threads in (1, 2):
        with environ(REPROBLAS_NUM_THREADS=threads):
            ours[threads] = reproblas.gemm(1.0, a, b)
    theirs = None
    if limits is not None and (blas_threads or 0) >= 2:
        theirs = {}
        for threads in (1, 2):
            with limits(threads):
                theirs[threads] = a @ b
        numpy_threads = _differ(theirs[1], theirs[2])
    else:
        numpy_threads = "not measured (see below)"
    rows.append(("a @ b: 1 vs 2 threads", numpy_threads, _differ(ours[1], ours[2])))
    print(f"\nThe same questions for NumPy's BLAS; float32 a {a.shape}, b {b.shape}:\n")
    width = max(len(r[0]) for r in rows)
    col = max(len(name), max(len(r[1]) for r in rows))
    print(f"{'question':{width}}  {name:{col}}  reproblas")
    for question, numpy_result, ours_result in rows:
        print(f"{question:{width}}  {numpy_result:{col}}  {ours_result}")
    print()
    note("- alone vs in the product: a BLAS computes one row with another kernel (gemv) than "
         "the whole product (gemm), and the kernels add each element's terms in different "
         "orders; reproblas fixes the order (docs/contract.md \u00a72).")
    if theirs is None:
        why = ("threadpoolctl is not installed (pip install threadpoolctl)" if limits is None
               else f"{name} runs {blas_threads or 'an unknown number of'} thread(s) in this "
               f"process ({os.cpu_count()} CPUs)")
        note(f"- 1 vs 2 threads: NumPy's side needs 2 BLAS threads, but {why}.")
    elif np.array_equal(theirs[1], theirs[2]):
        note(f"- 1 vs 2 threads: {name} gave the same bits at this size: how it split this "
             f"product among threads left every element's sum in the same order. Its blocking "
             f"depends on the sizes and the thread count, and larger products (try --n 300) "
             f"come out differently.")
    else:
        note(f"- 1 vs 2 threads: {name} blocks the product by thread count, and the blocking "
             f"decides the order of each element's sum; reproblas's order does not depend on "
             f"it.")


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m reproblas.demo",
        description="Reproducibility demo: runs gemm, dot and conv2d on every CPU path and "
                    "thread count and in both summation orders, shows that each gives one "
                    "result, and asks the same questions of NumPy's BLAS.")
    parser.add_argument("--n", type=int, default=300,
                        help="matrix size of the gemm problems (at least 6; default 300)")
    args = parser.parse_args(argv)
    if args.n < 6:  # the gemm problem is n x (n + 3) @ (n + 3) x (n - 5)
        parser.error(f"--n must be at least 6, got {args.n}")
    rng = np.random.default_rng(2026)
    reproblas_table(args.n, rng)
    numpy_comparison(args.n, rng)
    print(f"\nNumPy {np.__version__}; reproblas {reproblas.__version__}; "
          f"{os.cpu_count()} CPUs.")


if __name__ == "__main__":
    main()
