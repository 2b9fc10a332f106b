"""Correctly rounded float32 elementary functions.

``crlibm_py.exp(x)`` and friends return, for every float32 input, the float32
nearest to the exact value (ties to even), on every CPU code path; see docs/contract.md §1
and ``docs/``. Each function is a thin wrapper over a NumPy ufunc
(``crlibm_py.ufuncs['exp']`` is the ufunc ``cr_exp``), so ``out=``, ``where=``,
broadcasting and strided inputs work as they do for NumPy's functions.
"""
from repro_runtime.util import package_path

from ._api import FUNCTIONS, ufuncs, wrappers
from ._ufuncs import best_isa, isa_names, isa_supported

# crlibm_py.exp, crlibm_py.log, ...: one per function of the registry
# (src/c/crlibm/functions.def), in its order.
globals().update(wrappers)
del wrappers

__all__ = [*FUNCTIONS, "ufuncs", "FUNCTIONS", "best_isa", "isa_names", "isa_supported"]
__all__ += ["get_include", "get_library_dir"]
__version__ = "0.1.0"


def get_include():
    """Folder of the C header ``crlibm.h`` (the C ABI; see docs/c_abi.md)."""
    return package_path(__file__, "include")


def get_library_dir():
    """Folder of the shared library ``libcrlibm.so`` (link with ``-L<dir> -Wl,-rpath,<dir>``)."""
    return package_path(__file__, "lib")
