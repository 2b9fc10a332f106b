"""Reference LAPACK over libreproblas_blas.so gives the same bits on every thread count and CPU
path; LAPACK over OpenBLAS (SciPy's wheel) is asked the same question.

    python tools/lapack_demo.py [--n 300]

Runs reference LAPACK's (Debian's ``liblapack3``) ``dgesv``, ``dpotrf``, ``dgeqrf`` and
``dsyev`` on fixed seeded float64 inputs of order n (a few hundred, so that LAPACK takes its
blocked paths, whose updates are level-3 BLAS) in a fresh process per configuration, whose
``libblas.so.3`` is the library (tools/lapack_testers.py: ``lapack_libdir``):
``REPROBLAS_ISA`` in every path this CPU has x ``REPROBLAS_NUM_THREADS`` 1, 2, 3, once per
order. Each routine's outputs (factors, pivots, solution, tau, eigenvalues and eigenvectors)
are known by the SHA-256 of their bits; the demo prints them and fails (exit 1) unless each
routine gives one result per order. Then the same routines through ``scipy.linalg.lapack``
(the OpenBLAS in SciPy's wheel) with ``OPENBLAS_NUM_THREADS`` 1, 2, 3 and
``OPENBLAS_CORETYPE`` Haswell and SkylakeX (where the CPU runs it), and says whether its
digests differ (without SciPy: NumPy's OpenBLAS through numpy.linalg). When reference LAPACK,
a C compiler or nm is missing it says what to install and exits 0.
"""
import argparse
import hashlib
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import lapack_testers  # noqa: E402
import netlib_testers  # noqa: E402

ROUTINES = ("dgesv", "dpotrf", "dgeqrf", "dsyev")
THREADS = (1, 2, 3)
CORETYPES = ("Haswell", "SkylakeX")
ORDERS = netlib_testers.ORDERS


def inputs(n):
    """Fixed inputs built without a BLAS, so that they are the same bits in every process:
    a general matrix and right-hand sides, a symmetric matrix, and a symmetric positive
    definite one (strictly diagonally dominant)."""
    rng = np.random.default_rng(2026)
    a = np.asfortranarray(rng.standard_normal((n, n)))
    b = np.asfortranarray(rng.standard_normal((n, 3)))
    r = rng.uniform(-1.0, 1.0, (n, n))
    s = np.asfortranarray(r + r.T)
    spd = np.asfortranarray(s + 2.0 * n * np.eye(n))
    q = np.asfortranarray(rng.standard_normal((n + 40, n)))
    return a, b, s, spd, q


def digest(*arrays):
    h = hashlib.sha256()
    for x in arrays:
        h.update(np.asfortranarray(x).tobytes(order="F"))
    return h.hexdigest()[:12]


def run_reference_lapack(n):
    """{routine: digest} from reference LAPACK loaded with ctypes (its BLAS is whatever
    libblas.so.3 the loader finds: the caller's LD_LIBRARY_PATH chooses)."""
    import ctypes
    lapack = ctypes.CDLL("liblapack.so.3")
    ptr = lambda x: x.ctypes.data_as(ctypes.c_void_p)  # noqa: E731
    i = lambda v: ctypes.byref(ctypes.c_int(v))  # noqa: E731
    ch = lambda c: ctypes.c_char_p(c.encode())  # noqa: E731
    info = ctypes.c_int()
    a, b, s, spd, q = inputs(n)
    out = {}

    lu, x, ipiv = a.copy(order="F"), b.copy(order="F"), np.zeros(n, np.int32)
    lapack.dgesv_(i(n), i(b.shape[1]), ptr(lu), i(n), ptr(ipiv), ptr(x), i(n),
                  ctypes.byref(info))
    assert info.value == 0, ("dgesv", info.value)
    out["dgesv"] = digest(lu, ipiv, x)

    c = spd.copy(order="F")
    lapack.dpotrf_(ch("U"), i(n), ptr(c), i(n), ctypes.byref(info), 1)
    assert info.value == 0, ("dpotrf", info.value)
    out["dpotrf"] = digest(np.triu(c))

    m = q.shape[0]
    qr, tau = q.copy(order="F"), np.zeros(n)
    lwork = 64 * n
    work = np.zeros(lwork)
    lapack.dgeqrf_(i(m), i(n), ptr(qr), i(m), ptr(tau), ptr(work), i(lwork),
                   ctypes.byref(info))
    assert info.value == 0, ("dgeqrf", info.value)
    out["dgeqrf"] = digest(qr, tau)

    v, w = s.copy(order="F"), np.zeros(n)
    work = np.zeros(lwork)
    lapack.dsyev_(ch("V"), ch("U"), i(n), ptr(v), i(n), ptr(w), ptr(work), i(lwork),
                  ctypes.byref(info), 1, 1)
    assert info.value == 0, ("dsyev", info.value)
    out["dsyev"] = digest(w, v)
    return out


def run_scipy(n):
    """{routine: digest} from scipy.linalg.lapack (SciPy's own OpenBLAS), with what
    threadpoolctl says of that OpenBLAS."""
    from scipy.linalg import lapack
    a, b, s, spd, q = inputs(n)
    out = {}
    lu, piv, x, info = lapack.dgesv(a, b)
    assert info == 0
    out["dgesv"] = digest(lu, piv.astype(np.int32), x)
    c, info = lapack.dpotrf(spd, lower=0, clean=1)
    assert info == 0
    out["dpotrf"] = digest(c)
    qr, tau, _, info = lapack.dgeqrf(q, lwork=64 * n)
    assert info == 0
    out["dgeqrf"] = digest(qr, tau)
    w, v, info = lapack.dsyev(s, compute_v=1, lower=0, lwork=64 * n)
    assert info == 0
    out["dsyev"] = digest(w, v)
    out["_blas"] = openblas_description("scipy.libs")
    return out


def run_numpy(n):
    """{routine: digest} from numpy.linalg (NumPy's own OpenBLAS), for when SciPy is absent.
    NumPy has no dsyev: that column is numpy.linalg.eigh, LAPACK's dsyevd."""
    a, b, s, spd, q = inputs(n)
    h, tau = np.linalg.qr(q, mode="raw")
    w, v = np.linalg.eigh(s, UPLO="U")
    return {"dgesv": digest(np.linalg.solve(a, b)), "dpotrf": digest(np.linalg.cholesky(spd)),
            "dgeqrf": digest(h, tau), "dsyev": digest(w, v),
            "_blas": openblas_description("numpy.libs")}


def openblas_description(folder):
    """What threadpoolctl says of the OpenBLAS loaded from a wheel's ``folder``."""
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return "unknown (no threadpoolctl)"
    for p in threadpool_info():
        if p.get("user_api") == "blas" and folder in p.get("filepath", ""):
            return (f"{p.get('internal_api')} {p.get('version')} {p.get('architecture')}, "
                    f"{p.get('num_threads')} thread(s)")
    return "unknown"


def child(kind, n, env):
    proc = subprocess.run([sys.executable, __file__, "--child", kind, "--n", str(n)],
                          env=env, capture_output=True, text=True, timeout=900)
    if proc.returncode != 0:
        raise RuntimeError(f"{kind} child failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def table(rows):
    """Prints rows of (configuration, {routine: digest}); returns {routine: distinct count}."""
    width = max(len(label) for label, _ in rows)
    print(f"  {'':{width}}  " + "  ".join(f"{r:12}" for r in ROUTINES))
    for label, digests in rows:
        print(f"  {label:{width}}  " + "  ".join(f"{digests[r]:12}" for r in ROUTINES))
    distinct = {r: len({d[r] for _, d in rows}) for r in ROUTINES}
    print(f"  {'distinct results':{width}}  " + "  ".join(f"{distinct[r]:<12}"
                                                         for r in ROUTINES))
    return distinct


def reproblas_part(n, library, isas):
    """Runs every configuration; returns {order: {routine: set of digests}}."""
    result = {}
    with tempfile.TemporaryDirectory(prefix="lapack-demo-") as libdir:
        lapack_testers.lapack_libdir(libdir, library)
        base = dict(os.environ, LD_LIBRARY_PATH=libdir)
        base.pop("LD_PRELOAD", None)
        for order in ORDERS:
            print(f"\nreference LAPACK over libreproblas_blas, REPROBLAS_ORDER={order}:")
            rows = []
            for isa in isas:
                for threads in THREADS:
                    env = dict(base, REPROBLAS_ISA=isa, REPROBLAS_NUM_THREADS=str(threads),
                               REPROBLAS_ORDER=order)
                    rows.append((f"{isa} {threads} thread(s)", child("lapack", n, env)))
            table(rows)
            result[order] = {r: {d[r] for _, d in rows} for r in ROUTINES}
    return result


def skylakex_runs():
    """Whether this CPU has what OpenBLAS's SkylakeX kernels need (AVX-512)."""
    return "avx512" in netlib_testers.cpu_paths()


def openblas_part(n):
    """Runs scipy.linalg.lapack (numpy.linalg without SciPy) per OpenBLAS configuration;
    returns ({configuration: {routine: digest}}, core types, where the routines came from)."""
    kind = "scipy" if importlib.util.find_spec("scipy") is not None else "numpy"
    cores = [c for c in CORETYPES if c != "SkylakeX" or skylakex_runs()]
    rows, described = [], set()
    for core in cores:
        for threads in THREADS:
            env = dict(os.environ, OPENBLAS_NUM_THREADS=str(threads), OPENBLAS_CORETYPE=core)
            env.pop("LD_PRELOAD", None)
            env.pop("LD_LIBRARY_PATH", None)
            digests = child(kind, n, env)
            described.add(f"OPENBLAS_CORETYPE={core} OPENBLAS_NUM_THREADS={threads}: "
                          f"{digests.pop('_blas', 'unknown')}")
            rows.append((f"{core} {threads} thread(s)", digests))
    if kind == "scipy":
        print("\nthe same routines through scipy.linalg.lapack (SciPy's OpenBLAS, its own "
              "LAPACK):")
    else:
        print("\nSciPy is not installed: the same routines through numpy.linalg (NumPy's "
              "OpenBLAS, its own LAPACK): solve, cholesky (lower), qr (raw), and for dsyev "
              "eigh, which is LAPACK's dsyevd:")
    table(rows)
    for line in sorted(described):
        print(f"    {line}")
    source = "SciPy's wheel" if kind == "scipy" else "NumPy's wheel, numpy.linalg"
    return {label: digests for label, digests in rows}, cores, source


def openblas_summary(rows, cores):
    """Lines saying, per routine, whether OpenBLAS's bits changed with the thread count (per
    core type) and with the core type (at 1 thread)."""
    lines = []
    for r in ROUTINES:
        by_threads = [f"{core} {len({rows[f'{core} {t} thread(s)'][r] for t in THREADS})}"
                      for core in cores]
        by_core = len({rows[f"{core} 1 thread(s)"][r] for core in cores})
        lines.append(f"  {r}: distinct results over 1-3 threads: {', '.join(by_threads)}"
                     + (f"; over the core types at 1 thread: {by_core}"
                        if len(cores) > 1 else ""))
    return lines


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=300, help="matrix order (default 300)")
    ap.add_argument("--library", default=None, help="default: reproblas.get_blas_library()")
    ap.add_argument("--isa", action="append", help="REPROBLAS_ISA values (default: every "
                    "path this CPU has)")
    ap.add_argument("--no-openblas", action="store_true", help="skip the OpenBLAS part")
    ap.add_argument("--child", choices=("lapack", "scipy", "numpy"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.n < 2:
        ap.error(f"--n must be at least 2, got {args.n}")
    if args.child:
        run = {"lapack": run_reference_lapack, "scipy": run_scipy,
               "numpy": run_numpy}[args.child]
        print(json.dumps(run(args.n)))
        return 0
    # Without its prerequisites the demo says what to install and ends with status 0: it
    # runs after the other demos in the README's first command.
    if not lapack_testers.REFERENCE_LAPACK.exists():
        print(f"LAPACK demo skipped: Debian's reference LAPACK is not installed "
              f"({lapack_testers.REFERENCE_LAPACK}; apt-get install liblapack3)")
        return 0
    lacking = lapack_testers.tools_missing()
    if lacking:
        print(f"LAPACK demo skipped: {lacking} not found (needed to build the traps for the "
              f"complex BLAS)")
        return 0
    library = args.library or netlib_testers.default_library()
    isas = args.isa or netlib_testers.cpu_paths()
    print(f"n = {args.n}: dgesv (3 right-hand sides), dpotrf (upper), dgeqrf "
          f"({args.n + 40} x {args.n}), dsyev (eigenvalues and vectors); each column is the "
          f"SHA-256 (start) of the routine's outputs")
    ours = reproblas_part(args.n, library, isas)
    theirs = None if args.no_openblas else openblas_part(args.n)
    print()
    for order, seen in ours.items():
        same = all(len(d) == 1 for d in seen.values())
        print(f"libreproblas_blas ({order}): "
              f"{'the same bits in all' if same else 'DIFFERENT results across the'} "
              f"{len(isas) * len(THREADS)} configurations for every routine")
    # The orders give other bits: LAPACK's BLAS calls were the library's.
    apart = [r for r in ROUTINES if not ours[ORDERS[0]][r] & ours[ORDERS[1]][r]]
    print(f"  sequential and pairwise differ for {', '.join(apart) or 'no routine'}: "
          f"the library, which REPROBLAS_ORDER steers, did LAPACK's BLAS calls")
    if theirs is not None:
        rows, cores, source = theirs
        print(f"OpenBLAS ({source}):")
        for line in openblas_summary(rows, cores):
            print(line)
    failed = [(o, r) for o, d in ours.items() for r in ROUTINES if len(d[r]) != 1]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
