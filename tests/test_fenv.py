"""The caller's floating-point environment never changes a result, and the library
leaves it as it found it (contract §0): rounding modes set with fesetround, and the
FTZ/DAZ bits of MXCSR set through a small C helper compiled at test time."""
import ctypes
import ctypes.util
import platform
import shutil
import subprocess
import sysconfig

import numpy as np
import pytest

import crlibm_py
from helpers import FUNCTIONS, apply

X86 = platform.machine().lower() in ("x86_64", "amd64", "i686", "i386")
# <fenv.h> rounding-mode constants of the platforms we run on.
ROUNDING = {"x86": {"FE_TONEAREST": 0, "FE_DOWNWARD": 0x400, "FE_UPWARD": 0x800,
                    "FE_TOWARDZERO": 0xC00},
            "aarch64": {"FE_TONEAREST": 0, "FE_UPWARD": 0x400000, "FE_DOWNWARD": 0x800000,
                        "FE_TOWARDZERO": 0xC00000}}
MODES = ROUNDING.get("x86" if X86 else platform.machine().lower())
MXCSR_FTZ, MXCSR_DAZ = 0x8000, 0x0040
MXCSR_FLAGS = 0x003F  # sticky exception flags: NumPy itself clears and tests them

MXCSR_SOURCE = r"""
#include <xmmintrin.h>
unsigned get_mxcsr(void) { return _mm_getcsr(); }
void set_mxcsr(unsigned v) { _mm_setcsr(v); }
"""


def inputs():
    rng = np.random.default_rng(99)
    b = rng.integers(0, 2 ** 32, 4096, dtype=np.uint64).astype(np.uint32)
    sub = rng.integers(1, 0x800000, 512, dtype=np.uint32)  # DAZ would read these as 0
    small = rng.uniform(-100, 100, 1024).astype(np.float32).view(np.uint32)
    return np.concatenate([b, sub, sub | np.uint32(0x80000000), small]).view(np.float32)


X = inputs()


@pytest.fixture(scope="module")
def libm():
    name = ctypes.util.find_library("m")
    if name is None:
        pytest.skip("needs the C math library (libm), to call fesetround through")
    lib = ctypes.CDLL(name)
    lib.fesetround.argtypes = [ctypes.c_int]
    return lib


@pytest.fixture(scope="module")
def mxcsr(tmp_path_factory):
    if not X86:
        pytest.skip("needs an x86 CPU (the MXCSR FTZ/DAZ bits exist on x86 only)")
    cc = shutil.which((sysconfig.get_config_var("CC") or "cc").split()[0]) or \
        shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if cc is None:
        pytest.skip("needs a C compiler (cc, gcc or clang on PATH) to build the MXCSR helper")
    d = tmp_path_factory.mktemp("mxcsr")
    (d / "mxcsr.c").write_text(MXCSR_SOURCE)
    so = d / "mxcsr.so"
    subprocess.run([cc, "-O1", "-shared", "-fPIC", "-o", str(so), str(d / "mxcsr.c")],
                   check=True, capture_output=True)
    lib = ctypes.CDLL(str(so))
    lib.get_mxcsr.restype = ctypes.c_uint
    lib.set_mxcsr.argtypes = [ctypes.c_uint]
    return lib


@pytest.fixture(scope="module")
def expected():
    """Every function on every path in the default environment."""
    return {(f, isa): apply(f, isa, X).view(np.uint32)
            for f in FUNCTIONS for isa in crlibm_py.isa_names() if crlibm_py.isa_supported(isa)}


def _call_both_entries(fname, isa):
    """The raw kernel entry and the public function on the forced path, with no other
    floating-point work in between."""
    return apply(fname, isa, X), getattr(crlibm_py, fname)(X)


def _check(got, expected, what):
    for y in got:
        bad = np.nonzero(y.view(np.uint32) != expected)[0]
        assert bad.size == 0, (f"{what}: {bad.size} results changed, first at "
                               f"x=0x{X.view(np.uint32)[bad[0]]:08x}")


@pytest.mark.parametrize("mode", ["FE_UPWARD", "FE_DOWNWARD", "FE_TOWARDZERO"])
def test_rounding_mode_immunity(fname, use_isa, mode, libm, expected):
    if MODES is None:
        pytest.skip(f"needs the rounding-mode constants of {platform.machine()} (ROUNDING above "
                    f"has x86 and aarch64)")
    assert libm.fegetround() == MODES["FE_TONEAREST"]
    assert libm.fesetround(MODES[mode]) == 0
    try:
        got = _call_both_entries(fname, use_isa)
        after = libm.fegetround()
    finally:
        libm.fesetround(MODES["FE_TONEAREST"])
    assert after == MODES[mode], "the call changed the caller's rounding mode"
    _check(got, expected[fname, use_isa], f"{fname} on {use_isa} under {mode}")


@pytest.mark.parametrize("bits", [MXCSR_FTZ, MXCSR_DAZ, MXCSR_FTZ | MXCSR_DAZ],
                         ids=["FTZ", "DAZ", "FTZ+DAZ"])
def test_ftz_daz_immunity(fname, use_isa, bits, mxcsr, expected):
    saved = mxcsr.get_mxcsr()
    wanted = saved | bits
    mxcsr.set_mxcsr(wanted)
    try:
        got = _call_both_entries(fname, use_isa)
        after = mxcsr.get_mxcsr()
    finally:
        mxcsr.set_mxcsr(saved)
    assert after & ~MXCSR_FLAGS == wanted & ~MXCSR_FLAGS, (
        f"MXCSR control bits changed by the call: 0x{wanted:04x} -> 0x{after:04x}")
    _check(got, expected[fname, use_isa], f"{fname} on {use_isa} with MXCSR 0x{wanted:04x}")


def test_ftz_daz_helper_really_sets_the_bits(mxcsr):
    """Guards the test above: with DAZ+FTZ, a subnormal computation flushes to 0."""
    saved = mxcsr.get_mxcsr()
    tiny = np.full(4, 2.0 ** -140, dtype=np.float32)
    mxcsr.set_mxcsr(saved | MXCSR_FTZ | MXCSR_DAZ)
    try:
        flushed = tiny * np.float32(1.0)
    finally:
        mxcsr.set_mxcsr(saved)
    assert np.all(flushed == 0) and np.all(tiny * np.float32(1.0) == tiny)


def test_rounding_helper_really_sets_the_mode(libm):
    if MODES is None:
        pytest.skip(f"needs the rounding-mode constants of {platform.machine()} (ROUNDING above "
                    f"has x86 and aarch64)")
    a = np.full(4, 1.0, dtype=np.float32)
    b = np.full(4, 2.0 ** -30, dtype=np.float32)
    libm.fesetround(MODES["FE_UPWARD"])
    try:
        up = a + b
    finally:
        libm.fesetround(MODES["FE_TONEAREST"])
    assert np.all(up > 1) and np.all(a + b == 1)


def test_no_floating_point_warnings(fname, use_isa):
    """Overflow, underflow, invalid and division by zero inside the kernels stay inside:
    the caller sees neither warnings nor errors, whatever np.errstate says."""
    with np.errstate(all="raise"):
        getattr(crlibm_py, fname)(X)


def test_sticky_flags_not_raised(fname, isa, mxcsr):
    saved = mxcsr.get_mxcsr()
    mxcsr.set_mxcsr(saved & ~MXCSR_FLAGS)
    try:
        y = np.empty_like(X)
        crlibm_py._ufuncs.apply_isa(FUNCTIONS.index(fname), isa, X, y)
        after = mxcsr.get_mxcsr()
    finally:
        mxcsr.set_mxcsr(saved)
    assert after & MXCSR_FLAGS == 0, f"the call left exception flags 0x{after & MXCSR_FLAGS:02x}"


@pytest.mark.parametrize("bits", [MXCSR_FTZ, MXCSR_DAZ], ids=["FTZ", "DAZ"])
def test_python_numbers_immune_to_ftz_daz(bits, mxcsr):
    """The wrappers' exactness checks of Python numbers and lists convert in the
    library's environment: a float32 subnormal given as a Python float stays itself."""
    sub = np.float32(1e-40)  # subnormal: FTZ/DAZ would turn the float -> float32 round trip into 0
    expected, value = crlibm_py.sin(sub), float(sub)  # float(sub) itself would flush under DAZ
    saved = mxcsr.get_mxcsr()
    mxcsr.set_mxcsr(saved | bits)
    try:
        scalar, listed = crlibm_py.sin(value), crlibm_py.sin([value, -value])
    finally:
        mxcsr.set_mxcsr(saved)
    assert expected.view(np.uint32) == 0x000116C2
    assert scalar.view(np.uint32) == expected.view(np.uint32)
    assert listed.view(np.uint32).tolist() == [0x000116C2, 0x800116C2]
