"""Runs netlib's reference BLAS test programs against libreproblas_blas.so (docs/blas.md).

The programs come from Debian's ``libblas-test`` (``apt-get install libblas-test``): xblat1s/d,
xblat2s/d, xblat3s/d (the Fortran interface) and xscblat1-3/xdcblat1-3 (CBLAS), with their
standard input files. Each runs with ``LD_LIBRARY_PATH`` naming a folder in which
``libblas.so.3`` is libreproblas_blas.so, so every BLAS call goes to it (a routine the library
lacks is never taken from the system BLAS). The level-2 and level-3 input files have one
``T``/``F`` line per routine: the routines the library does not export are set to ``F`` and
listed as left out; since the programs are linked with BIND_NOW, those routines are then given
as traps that abort (a C compiler, ``cc`` or ``$CC``, builds them).

    python tools/netlib_testers.py                  # every program, every CPU path, 1-3 threads
    python tools/netlib_testers.py --isa scalar --threads 2 --order pairwise xblat2d

A program passes when it exits 0 and its summary reports no failure. Exit status: 0 when every
run passed, 1 otherwise, 2 when the programs are not installed.
"""
import argparse
import ctypes
import itertools
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

TESTER_DIR = Path("/usr/lib/x86_64-linux-gnu/blas")
FORTRAN = [f"xblat{lvl}{p}" for p in "sd" for lvl in (1, 2, 3)]
CBLAS = [f"x{p}cblat{lvl}" for p in "sd" for lvl in (1, 2, 3)]
PROGRAMS = FORTRAN + CBLAS
ORDERS = ("sequential", "pairwise")
# Words of the programs' reports that mean a failed test.
FAILURE = re.compile(r"FAIL|\*\*\*\*\*|SUSPECT|illegal value|not in libreproblas",
                     re.IGNORECASE)


def default_library():
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    import reproblas
    return reproblas.get_blas_library()


def cpu_paths():
    """The REPROBLAS_ISA values this CPU can run."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    import crlibm_py
    return [i for i in ("scalar", "avx2", "avx512") if crlibm_py.isa_supported(i)]


def installed(tester_dir=TESTER_DIR):
    return all((tester_dir / p).exists() for p in PROGRAMS)


def input_file(program):
    """The standard input file of a level-2/3 program (None for level 1, which reads none)."""
    if program.startswith("xblat"):
        prec, level = program[-1], program[-2]
        return None if level == "1" else f"{prec}blat{level}.in"
    prec, level = program[1], program[-1]
    return None if level == "1" else f"{prec}in{level}"


def restrict(text, exported):
    """The input file with every routine line whose routine the library lacks set to F;
    returns (text, the routines set to F)."""
    lines, missing = [], []
    for line in text.splitlines():
        m = re.match(r"^(\S+)(\s+)([TF])(\s.*)?$", line)
        if m and re.match(r"^(cblas_)?[sd][a-z0-9]+$", m.group(1), re.IGNORECASE):
            name = m.group(1)
            symbol = name if name.startswith("cblas_") else name.lower() + "_"
            if symbol not in exported:
                missing.append(name)
                line = f"{name}{m.group(2)}F{m.group(4) or ''}"
        lines.append(line)
    return "\n".join(lines) + "\n", missing


def exported_symbols(library):
    lib = ctypes.CDLL(str(library))
    names = set()
    for p in "sd":
        for r in ("gemv", "gbmv", "symv", "sbmv", "spmv", "trmv", "tbmv", "tpmv", "trsv", "tbsv",
                  "tpsv", "ger", "syr", "spr", "syr2", "spr2", "gemm", "symm", "trmm", "trsm",
                  "syrk", "syr2k"):
            for sym in (f"{p}{r}_", f"cblas_{p}{r}"):
                if hasattr(lib, sym):
                    names.add(sym)
    return names


def stub_library(path, library, missing):
    """libblas.so.3 for a program whose routines the library lacks: the programs are linked
    with BIND_NOW, so every symbol they name must resolve at start. This library depends on
    libreproblas_blas.so and defines the missing routines only, as traps that abort: a
    left-out routine is never computed by another BLAS."""
    symbols = [n if n.startswith("cblas_") else n.lower() + "_" for n in missing]
    src = path.with_suffix(".c")
    src.write_text("#include <stdio.h>\n#include <stdlib.h>\n" + "".join(
        f'void {s}(void) {{ fputs("{s}: not in libreproblas_blas\\n", stderr); abort(); }}\n'
        for s in symbols))
    libdir = Path(library).resolve().parent
    subprocess.run([os.environ.get("CC", "cc"), "-shared", "-fPIC", "-o", str(path), str(src),
                    "-Wl,-soname,libblas.so.3", "-Wl,--no-as-needed", f"-L{libdir}",
                    f"-l:{Path(library).name}", f"-Wl,-rpath,{libdir}"], check=True)


def run(program, library, env_extra, tester_dir=TESTER_DIR, timeout=600):
    """(passed, report text, routines left out) of one program run."""
    exported = exported_symbols(library)
    with tempfile.TemporaryDirectory(prefix="netlib-") as tmp:
        tmp = Path(tmp)
        (tmp / "lib").mkdir()
        stdin_text, missing = None, []
        name = input_file(program)
        if name is not None:
            stdin_text, missing = restrict((tester_dir / name).read_text(), exported)
        if missing:
            stub_library(tmp / "lib" / "libblas.so.3", library, missing)
        else:
            (tmp / "lib" / "libblas.so.3").symlink_to(Path(library).resolve())
        env = dict(os.environ, LD_LIBRARY_PATH=str(tmp / "lib"), **env_extra)
        env.pop("LD_PRELOAD", None)
        proc = subprocess.run([str(tester_dir / program)], input=stdin_text, cwd=tmp, env=env,
                              capture_output=True, text=True, timeout=timeout)
        report = proc.stdout + proc.stderr
        for out in sorted(tmp.glob("*.out")):  # the level-2/3 programs' summary files
            report += out.read_text()
    passed = proc.returncode == 0 and not FAILURE.search(report) and (
        "PASS" in report or "PASSED" in report)
    if name is not None:  # every routine tested reports its error exits and results passed
        passed = passed and "END OF TESTS" in report
        for routine in tested(stdin_text):
            # Fortran: error exits, computations; CBLAS: error exits, column-, row-major.
            want = 3 if routine.startswith("cblas_") else 2
            found = re.findall(rf"^\s*{routine}\s+PASSED THE ", report, re.MULTILINE)
            passed = passed and len(found) >= want
    return passed, report, missing


def tested(input_text):
    """The routines an input file marks T."""
    return [m.group(1) for m in re.finditer(r"^((?:cblas_)?[SDsd][A-Za-z0-9]+)\s+T\b",
                                            input_text, re.MULTILINE)]


def configuration_arguments(ap, library_help="default: reproblas.get_blas_library()"):
    """The options that choose the library and the configurations, shared with
    tools/lapack_testers.py."""
    ap.add_argument("--library", default=None, help=library_help)
    ap.add_argument("--isa", action="append", help="REPROBLAS_ISA values (default: every "
                    "path this CPU has)")
    ap.add_argument("--threads", action="append", type=int, help="default: 1, 2, 3")
    ap.add_argument("--order", action="append", choices=ORDERS, help="default: both")
    ap.add_argument("-v", "--verbose", action="store_true", help="print failed reports")


def configurations(args):
    """The environments of every configuration the options name: each CPU path, thread count
    and order."""
    return [{"REPROBLAS_ISA": isa, "REPROBLAS_NUM_THREADS": str(threads),
             "REPROBLAS_ORDER": order}
            for isa, threads, order in itertools.product(
                args.isa or cpu_paths(), args.threads or [1, 2, 3], args.order or ORDERS)]


def describe(env):
    return (f"isa={env['REPROBLAS_ISA']:7s} threads={env['REPROBLAS_NUM_THREADS']} "
            f"order={env['REPROBLAS_ORDER']}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("programs", nargs="*", default=PROGRAMS, help="default: all twelve")
    configuration_arguments(ap)
    ap.add_argument("--tester-dir", default=str(TESTER_DIR))
    args = ap.parse_args(argv)
    tester_dir = Path(args.tester_dir)
    if not installed(tester_dir):
        print(f"netlib testers not found in {tester_dir}: apt-get install libblas-test")
        return 2
    library = args.library or default_library()
    envs = configurations(args)
    failed = 0
    left_out = {}
    for program, env in itertools.product(args.programs, envs):
        ok, report, missing = run(program, library, env, tester_dir)
        left_out[program] = missing
        failed += not ok
        print(f"{'PASS' if ok else 'FAIL'} {program:9s} {describe(env)}")
        if not ok and args.verbose:
            print(report)
    for program, missing in left_out.items():
        if missing:
            print(f"{program}: not in the library, left out: {' '.join(missing)}")
    runs = len(args.programs) * len(envs)
    print(f"{runs - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
