"""Reference LAPACK over libreproblas_blas.so (docs/blas.md): LAPACK's linear-equation test
programs pass on every CPU path, 1-3 threads and both orders, LAPACK's BLAS calls bind to the
library, and LAPACK's dgesv, dpotrf, dgeqrf and dsyev give the same bits in every
configuration (tools/lapack_demo.py)."""
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

import reproblas
from helpers import SUPPORTED_ISAS

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import lapack_demo  # noqa: E402
import lapack_testers  # noqa: E402

LIBPATH = reproblas.get_blas_library()

pytestmark = [
    pytest.mark.skipif(
        not lapack_testers.installed(),
        reason=f"reference LAPACK and its test programs are not installed in "
               f"{lapack_testers.TESTER_DIR} (Debian: apt-get install "
               f"{lapack_testers.DEBIAN_PACKAGES})"),
    pytest.mark.skipif(
        lapack_testers.tools_missing() is not None,
        reason=f"{lapack_testers.tools_missing()} not found: needed to build the traps for "
               f"the complex BLAS that reference LAPACK imports"),
]


@pytest.fixture(scope="module")
def libdir():
    with tempfile.TemporaryDirectory(prefix="lapack-lib-") as folder:
        traps = lapack_testers.lapack_libdir(folder, LIBPATH)
        yield folder, traps


def test_traps_are_the_complex_blas_only(libdir):
    """Reference LAPACK needs no real routine the library lacks: the traps are complex."""
    _, traps = libdir
    assert traps and "zgemm_" in traps
    assert all(re.match(r"^(([cz][a-z0-9]+)|(i[cz]amax)|(cs|zd)[a-z]+)_$", s) for s in traps)


def test_lapack_blas_calls_bind_to_the_library(libdir):
    """With the folder on LD_LIBRARY_PATH, LAPACK's and libtmglib's real BLAS calls bind to
    libreproblas_blas.so and LAPACK is the reference one."""
    folder, _ = libdir
    env = dict(os.environ, LD_LIBRARY_PATH=folder, LD_DEBUG="bindings")
    env.pop("LD_PRELOAD", None)
    proc = subprocess.run([str(lapack_testers.TESTER_DIR / "xlintstd")],
                          stdin=subprocess.DEVNULL, env=env, capture_output=True, text=True,
                          timeout=120)
    bindings = re.findall(r"binding file (\S+) \[\d+\] to (\S+) \[\d+\]: normal symbol `(\w+)'",
                          proc.stderr)
    ours = Path(LIBPATH).resolve()
    blas = {(src, sym): Path(dst).resolve() for src, dst, sym in bindings
            if re.match(r"^(d|s)(gemm|trsm|syrk|gemv|ger|trmv|scal|swap|nrm2|dot)_$", sym)}
    for lib in ("liblapack.so.3", "libtmglib.so.3"):
        found = {sym: dst for (src, sym), dst in blas.items() if src.endswith(lib)}
        assert "dgemm_" in found, lib
        assert all(dst == ours for dst in found.values()), (lib, found)
    lapack = {Path(dst).resolve() for src, dst, sym in bindings if sym == "dgetrf_"}
    assert lapack == {lapack_testers.REFERENCE_LAPACK.resolve()}


@pytest.mark.parametrize("program", list(lapack_testers.PROGRAMS))
def test_lapack_tester_passes_on_every_path(libdir, program):
    folder, _ = libdir
    failed = []
    for isa in SUPPORTED_ISAS:
        for threads in (1, 2, 3):
            for order in ("sequential", "pairwise"):
                env = {"REPROBLAS_ISA": isa, "REPROBLAS_NUM_THREADS": str(threads),
                       "REPROBLAS_ORDER": order}
                ok, tests, bad, report, _ = lapack_testers.run(program, folder, env)
                assert tests > 0
                if not ok:
                    failed.append((isa, threads, order, bad, report[-3000:]))
    assert not failed, failed[0]


def test_verdict_sees_failures():
    ok_report = (" All tests for DGE routines passed the threshold (   3653 tests run)\n"
                 " End of tests\n")
    assert lapack_testers.verdict(0, ok_report) == (True, 3653, 0)
    assert not lapack_testers.verdict(1, ok_report)[0]
    assert not lapack_testers.verdict(0, ok_report.replace(" End of tests\n", ""))[0]
    bad = ok_report + " DGE drivers:    2 out of  5748 tests failed to pass the threshold\n"
    assert lapack_testers.verdict(0, bad) == (False, 3653 + 5748, 2)
    assert not lapack_testers.verdict(
        0, ok_report + " *** DGE routines failed the tests of the error exits ***\n")[0]
    assert not lapack_testers.verdict(
        0, ok_report + " *** Illegal value of parameter number  4\n")[0]


def test_runner_sees_a_wrong_blas(tmp_path):
    """A library whose dtrsm_ does nothing (the rest is libreproblas_blas.so) fails
    xlintstd."""
    src = tmp_path / "bad.c"
    src.write_text("void dtrsm_(void) {}\n")
    bad = tmp_path / "libbad.so"
    libdir = os.path.dirname(LIBPATH)
    subprocess.run([os.environ.get("CC", "cc"), "-shared", "-fPIC", str(src), "-o", str(bad),
                    "-Wl,--no-as-needed", f"-L{libdir}", "-l:libreproblas_blas.so",
                    f"-Wl,-rpath,{libdir}"], check=True)
    folder = tmp_path / "lib"
    lapack_testers.lapack_libdir(folder, bad, traps=lapack_testers.missing_blas(LIBPATH))
    ok, tests, failed, report, _ = lapack_testers.run("xlintstd", folder, {})
    assert not ok and failed > 0 and "failed to pass the threshold" in report


@pytest.mark.skipif(not (lapack_testers.TESTER_DIR / "xlintstrfs").exists(),
                    reason="xlintstrfs not installed")
def test_xlintstrfs_fails_only_the_stfsm_against_strsm_case(libdir):
    """xlintstrfs checks STFSM against STRSM, both over the BLAS under test, with a threshold
    not scaled by the solution's size. One of its matrices (M = N = 50) has condition number
    1.4e6 and a solution of size 3.9e6: any two different correct solves differ there by more
    than the threshold, and reference LAPACK's own two solves agree only because reference
    BLAS computes them the same way (docs/blas.md). Everything else passes."""
    folder, _ = libdir
    ok, tests, failed, report, _ = lapack_testers.run("xlintstrfs", folder, {})
    assert tests == 13128 and failed == 1
    failures = re.findall(r"Failure in (\w+), (.*), test=", report)
    assert failures == [("STFSM", "CFORM='T', SIDE='L', UPLO='U', TRANS='T', DIAG='N', "
                                  "M= 50, N = 50")]


def test_demo_digests_are_identical(capsys):
    """The demo at a size that takes LAPACK's blocked paths (n > 128, dgeqrf's crossover)."""
    status = lapack_demo.main(["--n", "140", "--isa", SUPPORTED_ISAS[0], "--isa",
                               SUPPORTED_ISAS[-1], "--no-openblas"])
    out = capsys.readouterr().out
    assert status == 0, out
    for order in ("sequential", "pairwise"):
        assert f"libreproblas_blas ({order}): the same bits in all 6 configurations" in out
    assert "sequential and pairwise differ for dgesv, dpotrf, dgeqrf, dsyev" in out
    rows = re.findall(r"^  \w+ \d thread\(s\)\s+((?:[0-9a-f]{12}\s+){3}[0-9a-f]{12})\s*$", out,
                      re.MULTILINE)
    assert len(rows) == 12 and len(set(rows[:6])) == 1 and len(set(rows[6:])) == 1


def test_demo_fails_when_a_configuration_differs(monkeypatch, capsys):
    """The demo's verdict can fail: a child whose digest depends on the thread count."""
    real = lapack_demo.child

    def child(kind, n, env):
        out = real(kind, n, env)
        if env.get("REPROBLAS_NUM_THREADS") == "2":
            out["dsyev"] = "0" * 12
        return out

    monkeypatch.setattr(lapack_demo, "child", child)
    assert lapack_demo.main(["--n", "20", "--isa", SUPPORTED_ISAS[0], "--no-openblas"]) == 1
    assert "DIFFERENT results" in capsys.readouterr().out


def test_make_libdir_fills_a_folder_for_ld_library_path(tmp_path, capsys):
    folder = tmp_path / "lapack"
    assert lapack_testers.main(["--make-libdir", str(folder)]) == 0
    assert re.search(r"\(\d+ complex BLAS routines as traps\)", capsys.readouterr().out)
    assert (folder / "liblapack.so.3").resolve() == lapack_testers.REFERENCE_LAPACK.resolve()
    assert "libreproblas_blas.so" in subprocess.run(
        ["ldd", str(folder / "libblas.so.3")], capture_output=True, text=True).stdout


def test_demo_without_scipy_asks_numpy(monkeypatch, capsys):
    """Without SciPy (the README's first command installs none) the OpenBLAS side is
    numpy.linalg, run per OPENBLAS_NUM_THREADS and core type like SciPy's."""
    real = lapack_demo.importlib.util.find_spec
    monkeypatch.setattr(lapack_demo.importlib.util, "find_spec",
                        lambda name, *a: None if name == "scipy" else real(name, *a))
    rows, cores, source = lapack_demo.openblas_part(20)
    out = capsys.readouterr().out
    assert "through numpy.linalg" in out and source == "NumPy's wheel, numpy.linalg"
    assert "OPENBLAS_NUM_THREADS=1: openblas" in out  # threadpoolctl found NumPy's OpenBLAS
    assert len(rows) == 3 * len(cores)
    assert all(set(d) == set(lapack_demo.ROUTINES) for d in rows.values())


def test_demo_without_reference_lapack_says_what_to_install(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(lapack_testers, "REFERENCE_LAPACK", tmp_path / "liblapack.so.3")
    assert lapack_demo.main(["--n", "20"]) == 0
    assert "apt-get install liblapack3" in capsys.readouterr().out
