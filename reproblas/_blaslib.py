"""Where the drop-in BLAS library is (docs/blas.md)."""
import os

from repro_runtime.util import package_path


def get_blas_library():
    """Path of ``libreproblas_blas.so``: the reference BLAS's Fortran symbols (``sgemm_``, ...)
    and CBLAS (``cblas_sgemm``, ...) over reproblas, usable in place of ``libblas.so.3``.
    ``REPROBLAS_ORDER`` (sequential or pairwise) chooses its summation order (docs/blas.md)."""
    return os.path.join(package_path(__file__, "lib"), "libreproblas_blas.so")
