"""Runs reference LAPACK's linear-equation test programs over libreproblas_blas.so (docs/blas.md).

The programs and their standard inputs come from Debian's ``liblapack-test``, the reference
LAPACK they test from ``liblapack3`` (``apt-get install liblapack3 liblapack-test``):

    xlintsts < stest.in      single precision: LU, Cholesky, LDL^T, QR/RQ/LQ/QL, least squares, ...
    xlintstd < dtest.in      the same in double precision
    xlintstds < dstest.in    mixed precision iterative refinement (dsgesv, dsposv)
    xlintstrfd < dtest_rfp.in  double precision routines on the rectangular full packed format

Each runs with ``LD_LIBRARY_PATH`` naming a folder (``lapack_libdir``) in which
``liblapack.so.3`` is the reference LAPACK and ``libblas.so.3`` is libreproblas_blas.so, so
every real BLAS call LAPACK, its test matrix generator (libtmglib) and the programs make goes
to the library. Reference LAPACK also imports the complex BLAS (``zgemm_``, ...), which the
library lacks; the programs are linked with BIND_NOW, so ``libblas.so.3`` there is a small
library that depends on libreproblas_blas.so and defines those routines as traps that abort
(``netlib_testers.stub_library``): the real programs never call them, and no call is computed
by another BLAS.

    python tools/lapack_testers.py                  # every program, every CPU path, 1-3 threads
    python tools/lapack_testers.py --isa avx2 --threads 3 --order pairwise xlintstd
    python tools/lapack_testers.py --make-libdir ~/reproblas-lapack   # for your own programs

A program passes when it exits 0, reaches "End of tests", and its report has no test that
failed to pass LAPACK's threshold (30, from the input file), no failed error exit, no illegal
value and no INFO error. ``xlintstrfs`` (single precision RFP) can be named but is not a
default: its STFSM check compares STFSM with STRSM, two ways of computing the same solve,
and for one ill-conditioned case (M = N = 50, condition number 1.4e6) any BLAS whose two
paths differ exceeds the threshold (see docs/blas.md).

Exit status: 0 when every run passed, 1 otherwise, 2 when the programs are not installed.
"""
import argparse
import itertools
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import netlib_testers  # noqa: E402

TESTER_DIR = Path("/usr/lib/x86_64-linux-gnu/lapack")
# Debian's reference LAPACK itself, not whatever the liblapack.so.3 alternative points to
# (OpenBLAS's package also provides one).
REFERENCE_LAPACK = TESTER_DIR / "liblapack.so.3"
TMGLIB = Path("/usr/lib/x86_64-linux-gnu/libtmglib.so.3")
PROGRAMS = {"xlintsts": "stest.in", "xlintstd": "dtest.in", "xlintstds": "dstest.in",
            "xlintstrfd": "dtest_rfp.in"}
OTHER_PROGRAMS = {"xlintstrfs": "stest_rfp.in"}
ALL_PROGRAMS = {**PROGRAMS, **OTHER_PROGRAMS}
DEBIAN_PACKAGES = "liblapack3 liblapack-test"
FAILED_TESTS = re.compile(r"(\d+)\s+out of\s+(\d+)\s+tests failed")
TESTS_RUN = re.compile(r"\(\s*(\d+) tests run\)")
# Lines that mean a failure besides the threshold summaries (LAPACK's lapack_testing.py
# counts the same: "illegal" and " INFO" lines).
FAILURE = re.compile(r"failed the tests of the error exits|illegal|\bINFO\b|\*\*\*",
                     re.IGNORECASE)


def installed(tester_dir=TESTER_DIR, programs=PROGRAMS):
    return (all((tester_dir / p).exists() and (tester_dir / i).exists()
                for p, i in programs.items())
            and (tester_dir / "liblapack.so.3").exists() and TMGLIB.exists())


def tools_missing():
    """What lapack_libdir needs and this machine lacks (a C compiler and nm), or None."""
    lacking = [t for t in (os.environ.get("CC", "cc"), "nm") if shutil.which(t) is None]
    return " and ".join(lacking) or None


def dynamic_symbols(path, defined):
    out = subprocess.run(["nm", "-D", "--defined-only" if defined else "--undefined-only",
                          str(Path(path).resolve())], capture_output=True, text=True,
                         check=True).stdout
    return {line.split()[-1] for line in out.splitlines() if line.strip()}


def missing_blas(library, lapack=REFERENCE_LAPACK, tmglib=TMGLIB):
    """The Fortran symbols LAPACK and libtmglib import that neither they nor the library
    define: the BLAS routines the library lacks (the complex ones)."""
    wanted = set()
    for lib in (lapack, tmglib):
        wanted |= {s for s in dynamic_symbols(lib, defined=False)
                   if s.endswith("_") and not s.startswith("_")}
    provided = set()
    for lib in (lapack, tmglib, library):
        provided |= dynamic_symbols(lib, defined=True)
    return sorted(wanted - provided)


def lapack_libdir(folder, library, lapack=REFERENCE_LAPACK, traps=None):
    """Fill ``folder`` so that a program run with LD_LIBRARY_PATH=folder gets the reference
    LAPACK over the library; returns the BLAS routines given as traps (``traps``, by default
    those the library lacks)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    missing = missing_blas(library, lapack) if traps is None else traps
    if missing:
        netlib_testers.stub_library(folder / "libblas.so.3", library,
                                    [s[:-1] for s in missing])
    else:
        (folder / "libblas.so.3").symlink_to(Path(library).resolve())
    (folder / "liblapack.so.3").symlink_to(Path(lapack).resolve())
    return missing


def summary(report):
    """(tests run, tests failed) from a program's report."""
    failed = sum(int(m.group(1)) for m in FAILED_TESTS.finditer(report))
    run = sum(int(m.group(2)) for m in FAILED_TESTS.finditer(report))
    run += sum(int(m.group(1)) for m in TESTS_RUN.finditer(report))
    return run, failed


def verdict(returncode, report):
    """(passed, tests run, tests failed) of one program run."""
    run, failed = summary(report)
    passed = (returncode == 0 and "End of tests" in report and run > 0 and failed == 0
              and not FAILURE.search(report))
    return passed, run, failed


def run(program, libdir, env_extra, tester_dir=TESTER_DIR, timeout=900):
    """(passed, tests run, tests failed, report, seconds) of one program run with its
    standard input, LAPACK and the BLAS taken from ``libdir`` (lapack_libdir)."""
    name = ALL_PROGRAMS[program]
    env = dict(os.environ, LD_LIBRARY_PATH=str(libdir), **env_extra)
    env.pop("LD_PRELOAD", None)
    with tempfile.TemporaryDirectory(prefix="lapack-") as tmp, open(tester_dir / name) as stdin:
        start = time.monotonic()
        proc = subprocess.run([str(tester_dir / program)], stdin=stdin, cwd=tmp, env=env,
                              capture_output=True, text=True, timeout=timeout)
        seconds = time.monotonic() - start
    report = proc.stdout + proc.stderr
    passed, tests, failed = verdict(proc.returncode, report)
    return passed, tests, failed, report, seconds


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("programs", nargs="*", default=list(PROGRAMS),
                    help=f"default: {' '.join(PROGRAMS)}; also {' '.join(OTHER_PROGRAMS)}")
    netlib_testers.configuration_arguments(ap)
    ap.add_argument("--tester-dir", default=str(TESTER_DIR))
    ap.add_argument("--make-libdir", metavar="FOLDER", help="only fill FOLDER with "
                    "liblapack.so.3 and libblas.so.3 for LD_LIBRARY_PATH, and exit")
    args = ap.parse_args(argv)
    unknown = [p for p in args.programs if p not in ALL_PROGRAMS]
    if unknown:
        ap.error(f"unknown program(s): {' '.join(unknown)}")
    if args.make_libdir:
        lacking = tools_missing()
        if lacking or not REFERENCE_LAPACK.exists():
            print(f"needs {lacking or 'reference LAPACK: apt-get install liblapack3'}")
            return 2
        traps = lapack_libdir(args.make_libdir, args.library or
                              netlib_testers.default_library())
        print(f"LD_LIBRARY_PATH={Path(args.make_libdir).resolve()}: reference LAPACK over "
              f"libreproblas_blas ({len(traps)} complex BLAS routines as traps)")
        return 0
    tester_dir = Path(args.tester_dir)
    if not installed(tester_dir, {p: ALL_PROGRAMS[p] for p in args.programs}):
        print(f"LAPACK's test programs not found in {tester_dir}: "
              f"apt-get install {DEBIAN_PACKAGES}")
        return 2
    lacking = tools_missing()
    if lacking:
        print(f"{lacking} not found: needed to build the traps for the complex BLAS")
        return 2
    library = args.library or netlib_testers.default_library()
    envs = netlib_testers.configurations(args)
    failed = 0
    with tempfile.TemporaryDirectory(prefix="lapack-lib-") as libdir:
        traps = lapack_libdir(libdir, library, tester_dir / "liblapack.so.3")
        for program, env in itertools.product(args.programs, envs):
            ok, tests, bad, report, seconds = run(program, libdir, env, tester_dir)
            failed += not ok
            print(f"{'PASS' if ok else 'FAIL'} {program:10s} {netlib_testers.describe(env)} "
                  f"{tests - bad}/{tests} tests {seconds:5.1f} s", flush=True)
            if not ok and args.verbose:
                print(report)
    print(f"complex BLAS given as traps (not in the library): {len(traps)}")
    runs = len(args.programs) * len(envs)
    print(f"{runs - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
