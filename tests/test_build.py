"""The build (setup.py): each C file is compiled once and its object linked into every product
that lists it; a rebuild compiles only what changed; every product exports only its API (the C
ABI libraries their header's functions, the Python modules their PyInit_*)."""
import ctypes
import importlib.util
import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest

import crlibm_py
import crlibm_py._ufuncs
import crlibm_py._verify
import reproblas
import reproblas._core

ROOT = Path(__file__).resolve().parents[1]
NM = shutil.which("nm")
# Symbols the static linker defines in some toolchains' dynamic tables; not the library's.
LINKER_SYMBOLS = {"_init", "_fini", "_edata", "_end", "__bss_start"}


def exported(path):
    """The names a shared object exports (defined dynamic symbols)."""
    out = subprocess.run([NM, "-D", "--defined-only", str(path)], capture_output=True,
                         text=True, check=True).stdout
    return {line.split()[-1].split("@")[0] for line in out.splitlines() if line.strip()} \
        - LINKER_SYMBOLS


def header_api(header, macro):
    """The functions a public header declares with its export macro."""
    text = Path(header).read_text()
    return set(re.findall(rf"^{macro}\b[^;(]*?\b(\w+)\s*\(", text, re.M))


@pytest.fixture(scope="module")
def setup_py():
    """setup.py as a module (its setup() call runs only as __main__)."""
    spec = importlib.util.spec_from_file_location("project_setup", ROOT / "setup.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.skipif(NM is None, reason="no nm on PATH")
@pytest.mark.parametrize("pkg, header, lib, macro", [
    (crlibm_py, "crlibm.h", "libcrlibm.so", "CRLIBM_API"),
    (reproblas, "reproblas.h", "libreproblas.so", "REPROBLAS_API"),
])
def test_c_abi_library_exports_exactly_its_header_api(pkg, header, lib, macro):
    api = header_api(os.path.join(pkg.get_include(), header), macro)
    assert len(api) > 10
    assert exported(os.path.join(pkg.get_library_dir(), lib)) == api


@pytest.mark.skipif(NM is None, reason="no nm on PATH")
@pytest.mark.parametrize("module", [crlibm_py._ufuncs, crlibm_py._verify, reproblas._core])
def test_python_module_exports_only_its_init(module):
    """The C core inside a Python module is hidden: no internal symbol can be interposed by,
    or clash with, another library loaded in the process (e.g. the C ABI libraries)."""
    assert exported(module.__file__) == {"PyInit_" + module.__name__.rsplit(".", 1)[1]}


def test_shared_c_files_have_one_compile_command(setup_py):
    """A C file listed by several products (the crlibm core by both Python modules and the C
    ABI library) is one entry of the compile plan, so one object."""
    products = setup_py.extensions + setup_py.c_libraries
    plan = setup_py.compile_plan(products)
    listed = [setup_py.c_file(s) for ext in products for s in ext.sources]
    assert sorted(plan) == sorted(set(listed))
    # + reproblas._core (its fused torch kernels call the crlibm kernels) and the two C ABI
    # libraries made of its sources
    assert listed.count("src/c/crlibm/dispatch.c") == 6
    assert listed.count("src/c/common/isa.c") == 6  # + libreproblas_blas (the drop-in BLAS)


EXPORT = '__attribute__((visibility("default")))'
MINI = {
    "common.h": "int shared_value(void);\n",
    "common.c": '#include "common.h"\nint shared_value(void) { return 41; }\n',
    "a.c": f'#include "common.h"\n{EXPORT} int a_value(void) {{ return shared_value() + 1; }}\n',
    "b.c": f'#include "common.h"\n{EXPORT} int b_value(void) {{ return shared_value() + 2; }}\n',
}


@pytest.mark.skipif(shutil.which("cc") is None and shutil.which("gcc") is None,
                    reason="no C compiler")
def test_build_compiles_each_file_once_and_only_what_changed(setup_py, tmp_path, monkeypatch):
    """Two products sharing common.c, built with the project's build_ext and the real
    compiler: common.c compiles once; a rebuild compiles nothing; a header edit recompiles
    exactly its includers; the products link, run, and export only what they mark."""
    from setuptools import Distribution, Extension

    for name, text in MINI.items():
        (tmp_path / name).write_text(text)
    monkeypatch.chdir(tmp_path)
    compiled = []

    class Recording(setup_py.BuildExt):
        def compile_one(self, source, *args):
            compiled.append(source)
            super().compile_one(source, *args)

    def build():
        compiled.clear()
        dist = Distribution({"name": "mini", "ext_modules": [
            Extension("pkg.a", ["a.c", "common.c"]), Extension("pkg.b", ["b.c", "common.c"])]})
        cmd = Recording(dist)
        cmd.objects_dir, cmd.build_lib = str(tmp_path / "objects"), str(tmp_path / "lib")
        cmd.build_temp = str(tmp_path / "temp")
        cmd.ensure_finalized()
        cmd.run()
        return sorted(compiled), [cmd.get_ext_fullpath(n) for n in ("pkg.a", "pkg.b")]

    first, (a_so, b_so) = build()
    assert first == ["a.c", "b.c", "common.c"]
    assert ctypes.CDLL(a_so).a_value() == 42 and ctypes.CDLL(b_so).b_value() == 43
    if NM is not None:
        assert exported(a_so) == {"a_value"} and exported(b_so) == {"b_value"}

    assert build()[0] == []

    def edit(name):  # after the objects, past the file system's clock granularity
        time.sleep(0.05)
        with open(name, "a") as f:
            f.write("/* edited */\n")

    edit("common.h")
    assert build()[0] == ["a.c", "b.c", "common.c"]

    linked_before = os.path.getmtime(b_so)
    edit("b.c")
    assert build()[0] == ["b.c"]
    assert os.path.getmtime(b_so) > linked_before  # relinked from the new object
    again = shutil.copy(b_so, tmp_path / "b_again.so")  # a new path: dlopen loads it anew
    assert ctypes.CDLL(str(again)).b_value() == 43
