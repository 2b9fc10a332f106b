"""Finding and loading MPFR at run time (no build-time dependency).

The verifier's C core dlopens the libmpfr that gmpy2's wheel ships
(site-packages/gmpy2.libs/libmpfr-*.so*), so its results are those of the
MPFR that gmpy2 uses. CRLIBM_VERIFY_LIBMPFR=/path/to/libmpfr.so overrides.
"""
import ctypes.util
import glob
import os

from .. import _verify

MPFRUnavailable = _verify.MPFRUnavailable
ENV_VAR = "CRLIBM_VERIFY_LIBMPFR"
_HELP = ("the verifier needs MPFR: install gmpy2 (pip install 'gmpy2>=2.2'; its wheel ships "
         f"libmpfr, loaded at run time, no rebuild needed) or set {ENV_VAR}=/path/to/libmpfr.so")


def find_libmpfr():
    """Path of the libmpfr to load; raises MPFRUnavailable with what to do."""
    path = os.environ.get(ENV_VAR)
    if path:
        return path
    try:
        import gmpy2
    except ImportError:
        gmpy2 = None
    if gmpy2 is not None:
        site = os.path.dirname(os.path.dirname(os.path.abspath(gmpy2.__file__)))
        libs = sorted(glob.glob(os.path.join(site, "gmpy2.libs", "libmpfr*.so*")))
        if libs:
            return libs[0]
    system = ctypes.util.find_library("mpfr")  # gmpy2 built against the system MPFR
    if system:
        return system
    raise MPFRUnavailable(_HELP)


def load():
    """Load MPFR into the C core (once per process); returns its version."""
    if _verify.mpfr_version() is not None:
        return _verify.mpfr_version()
    path = find_libmpfr()
    try:
        return _verify.load_mpfr(path)
    except MPFRUnavailable as exc:
        raise MPFRUnavailable(f"{exc}; {_HELP}") from None


def versions():
    """Versions of MPFR (as loaded by the verifier), gmpy2, its GMP and MPFR."""
    out = {"mpfr_loaded": _verify.mpfr_version()}
    try:
        import gmpy2
        out.update(gmpy2=gmpy2.version(), gmpy2_gmp=gmpy2.mp_version(),
                   gmpy2_mpfr=gmpy2.mpfr_version())
    except ImportError:  # the same fields, empty (MPFR itself was found elsewhere)
        out.update(gmpy2=None, gmpy2_gmp=None, gmpy2_mpfr=None)
    return out
