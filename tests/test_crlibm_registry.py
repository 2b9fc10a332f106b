"""The function registry (src/c/crlibm/functions.def) is the one list of functions, and
every table derived from it agrees with the contract and with the other tables.
"""
import ctypes
import importlib.util
import pathlib
import re

import numpy as np
import pytest

import crlibm_py
from crlibm_cases import DOMAIN_ERROR_BELOW_ZERO, RANGES, SPECIALS, THRESHOLDS
from crlibm_py import _registry, _ufuncs
from helpers import FUNCTIONS

ROOT = pathlib.Path(__file__).resolve().parents[1]
DEF = ROOT / "src" / "c" / "crlibm" / "functions.def"
DATA = pathlib.Path(__file__).parent / "data"


def _load_tool(name):
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


tool = _load_tool("crlibm_registry")


def test_compiled_registry_is_the_def_file():
    """What the build compiled (every C table) is what the .def file says now."""
    assert _ufuncs.registry_rows() == _registry.parse_def(DEF.read_text())


def test_names_and_order_agree_everywhere():
    names = [f.name for f in _registry.functions()]
    assert list(FUNCTIONS) == names == _ufuncs.function_names()
    assert [f.index for f in _registry.functions()] == list(range(len(names)))
    assert crlibm_py.__all__[:len(names)] == names
    assert sorted(crlibm_py.ufuncs) == sorted(names)
    for name in names:
        assert getattr(crlibm_py, name).__name__ == name
        assert crlibm_py.ufuncs[name].__name__ == f"cr_{name}"


def test_generated_files_are_current():
    """cores.h and crlibm.h's prototypes are what tools/crlibm_registry.py --write gives."""
    assert tool.stale(tool.load()) == []
    assert tool.main(["--check"]) == 0


def test_public_header_declares_exactly_the_registry():
    text = (pathlib.Path(crlibm_py.get_include()) / "crlibm.h").read_text()
    one = re.findall(r"CRLIBM_API float crlibm_(\w+)f\(float x\);", text)
    many = re.findall(r"CRLIBM_API int crlibm_(\w+)f_n\(const float \*x, float \*y, "
                      r"size_t n\);", text)
    assert one == many == list(FUNCTIONS)


def test_c_library_exports_every_function():
    lib = ctypes.CDLL(str(pathlib.Path(crlibm_py.get_library_dir()) / "libcrlibm.so"))
    x = np.float32([0.75, -3.5, 1e-40, 100.0])
    for name in FUNCTIONS:
        one = getattr(lib, f"crlibm_{name}f")
        one.restype, one.argtypes = ctypes.c_float, [ctypes.c_float]
        want = getattr(crlibm_py, name)(x).view(np.uint32)
        got = np.float32([one(float(v)) for v in x]).view(np.uint32)
        assert np.array_equal(got, want), name


def test_declarations_cover_the_registry():
    """Each function has its test declarations (tests/crlibm_cases.py) and hardest inputs."""
    for table in (SPECIALS, RANGES, THRESHOLDS):
        assert set(table) == set(FUNCTIONS)
    assert set(DOMAIN_ERROR_BELOW_ZERO) <= set(FUNCTIONS)
    for name in FUNCTIONS:
        assert (DATA / f"hard_inputs_{name}.txt").is_file(), name


def test_registry_specials_are_the_contracts(fname):
    """The registry's row (the verifier's table) is the contract's, written independently."""
    f = _registry.function(fname)
    nan, pinf, ninf, pzero, nzero = SPECIALS[fname]
    assert [f.specials[c] for c in ("pinf", "ninf", "pzero", "nzero")] == [pinf, ninf, pzero,
                                                                             nzero]
    assert f.specials["negative"] == (nan if fname in DOMAIN_ERROR_BELOW_ZERO else None)


def test_verifier_tables_follow_the_registry(fname):
    """verify.c's special table, MPFR override and saturation (X-macros over the .def)
    give the contract's values in both tiers; MPFR is called by its registry name."""
    pytest.importorskip("gmpy2")
    from crlibm_py import _verify
    from crlibm_py.verify import BOUNDS, mpfr
    mpfr.load()
    i = FUNCTIONS.index(fname)
    inputs = (0x7FC00000, 0x7F800000, 0xFF800000, 0x00000000, 0x80000000)
    for u, want in zip(inputs, SPECIALS[fname]):
        assert _verify.expected(i, u, "fast", BOUNDS[fname]) == (want, "table"), hex(u)
        assert _verify.expected(i, u, "strict", 0.0)[0] == want, hex(u)
    neg = 0xBF800000  # -1: a domain error, or an ordinary input
    got, how = _verify.expected(i, neg, "fast", BOUNDS[fname])
    assert (how == "table") == (fname in DOMAIN_ERROR_BELOW_ZERO)
    assert got == int(getattr(crlibm_py, fname)(np.float32(-1.0)).view(np.uint32))
    sat = _registry.function(fname).saturation
    if sat is not None:
        lo, lo_bits, hi, hi_bits = sat
        for x, want in ((lo, lo_bits), (hi, hi_bits)):
            u = int(np.float32(x).view(np.uint32))
            assert _verify.expected(i, u, "fast", BOUNDS[fname]) == (want, "table")
            assert _verify.expected(i, u, "strict", 0.0)[0] == want


def test_benchmark_and_demo_tables_cover_the_registry():
    bench = _load_tool("bench_crlibm")
    assert bench.FUNCTIONS == tuple(FUNCTIONS)
    assert [c[1] for c in bench.CASES if c[0] == c[1]] == list(FUNCTIONS)
    x = np.float32([0.5, 2.0])
    for name in FUNCTIONS:
        label, call = bench.numpy_baseline(name)
        y = np.empty_like(x)
        call(x, y)
        assert label.startswith(("np.", "1/np.")) and np.all(np.isfinite(y))
    from crlibm_py import demo
    rng = np.random.default_rng(0)
    for name in FUNCTIONS:
        kind, lo, hi = _registry.function(name).demo
        xs = demo.sample(name, 100, rng)
        assert xs.dtype == np.float32 and np.all((xs >= np.float32(lo)) & (xs <= np.float32(hi)))


def test_dry_run_add_prints_the_new_rows_and_writes_nothing(capsys):
    before = {p: p.read_bytes() for p in (DEF, tool.CORES, tool.PUBLIC_HEADER)}
    assert tool.main(["--dry-run", "--add", "cbrt"]) == 0
    out = capsys.readouterr().out
    n = len(FUNCTIONS)
    for row in (f"CR_FN_ID_cbrt = {n}", "cr_kernel_cbrt_avx2", "crlibm_cbrtf_n", "cr_cbrt_f32",
                "mpfr_cbrt", "glibc cbrt (double)", '#include "cbrt/core.h"',
                "CRLIBM_API float crlibm_cbrtf(float x);", "tests/data/hard_inputs_cbrt.txt"):
        assert row in out, row
    assert re.search(r"^\+\s+CR_FN_ID_cbrt", out, re.M)
    assert {p: p.read_bytes() for p in before} == before


@pytest.mark.parametrize("text,message", [
    ("CR_FUNCTION(a, b)", "has 2 fields"),
    ('CR_FUNCTION(cbrt, cbrt, F64, interleave, cbrt, cbrt(d), 1, CR_SPECIALS(pinf, ninf, '
     'zero, nzero, none), none, CR_NO_SATURATION, "uniform -5 5", "np.cbrt", '
     '"uniform -5 5", "np.cbrt")', "unknown result 'zero'"),
    ('CR_FUNCTION(cbrt, cbrt, F64, interleave, cbrt, cbrt(d), 1, CR_SPECIALS(pinf, ninf, '
     'pzero, nzero, none), none, CR_SATURATES(0.1, pzero, 9.0f, pinf), "uniform -5 5", '
     '"np.cbrt", "uniform -5 5", "np.cbrt")', "not a float32 value"),
    ('CR_FUNCTION(cbrt, cbrt, F64, interleave, cbrt, cbrt(d), 1, CR_SPECIALS(pinf, ninf, '
     'pzero, nzero, none), none, CR_NO_SATURATION, "gauss 0 1", "np.cbrt", '
     '"uniform -5 5", "np.cbrt")', "bad benchmark case"),
    ('CR_FUNCTION(exp, cbrt, F64, interleave, cbrt, cbrt(d), 1, CR_SPECIALS(pinf, ninf, '
     'pzero, nzero, none), none, CR_NO_SATURATION, "uniform -5 5", "np.cbrt", '
     '"uniform -5 5", "np.cbrt")', "duplicate function names"),
])
def test_malformed_entries_are_rejected(text, message):
    with pytest.raises(_registry.RegistryError, match=re.escape(message)):
        _registry.parse(_registry.parse_def(DEF.read_text() + text))


def test_no_other_source_lists_the_functions():
    """The names in registry order appear together only in functions.def."""
    names = list(FUNCTIONS)
    pattern = re.compile(r"\W{1,8}".join(rf"\b{n}\b" for n in names[:3]))
    roots = [ROOT / "src", ROOT / "crlibm_py", ROOT / "tests" / "capi"]
    # The type stub must spell each function out; test_stubs_declare_every_function holds it
    # to the registry instead.
    files = [p for r in roots for p in r.rglob("*")
             if p.suffix in (".c", ".h", ".inc", ".cu", ".cuh", ".py", ".pyx")]
    files += [ROOT / "tools" / "bench_crlibm.py",
              ROOT / "asv_bench" / "benchmarks" / "crlibm_funcs.py"]
    listing = [str(p.relative_to(ROOT)) for p in files
               if p != DEF and pattern.search(p.read_text())]
    assert listing == []


def test_stubs_declare_every_function():
    stub = ROOT / "crlibm_py" / "__init__.pyi"
    if not stub.is_file():
        pytest.skip("no crlibm_py/__init__.pyi in this tree")
    text = stub.read_text()
    for name in FUNCTIONS:
        assert re.search(rf"^(def {name}\(|{name}\s*[:=])", text, re.M), name
