"""Build of the C core and its Cython extensions.

The C core is compiled with -ffp-contract=off (no implicit fma) and without
-ffast-math: every fma the kernels execute is written in the source. Each CPU
path (scalar, AVX2, AVX-512) is selected per file with a target pragma, so one
set of flags builds them all and the dispatcher picks one at run time.
"""
from pathlib import Path

import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_py import build_py

C_FLAGS = ["-O2", "-std=gnu11", "-ffp-contract=off", "-fno-fast-math", "-fno-math-errno",
           "-fno-strict-aliasing"]

COMMON = ["src/c/common/isa.c"]
CRLIBM = ["src/c/crlibm/dispatch.c"] + [f"src/c/crlibm/kernels_{isa}.c"
                                        for isa in ("scalar", "avx2", "avx512")]


def headers(*dirs):
    """Headers and .inc files: an edit to one of them must rebuild the extension."""
    return sorted(str(p) for d in dirs for p in Path(d).rglob("*") if p.suffix in (".h", ".inc"))


extensions = [
    Extension(
        "crlibm_py._ufuncs",
        sources=["crlibm_py/_ufuncs.pyx"] + CRLIBM + COMMON,
        include_dirs=[numpy.get_include(), "src/c/crlibm", "src/c/common"],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_2_0_API_VERSION")],
        depends=headers("src/c/crlibm", "src/c/common"),
        extra_compile_args=C_FLAGS,
        libraries=["m"],
    ),
    Extension(
        "reproblas._core",
        sources=["reproblas/_core.pyx"] + [f"src/c/reproblas/{f}.c" for f in (
            "level1", "thread", "kernels_scalar", "kernels_avx2", "kernels_avx512", "level3",
            "gemm_scalar", "gemm_avx2", "gemm_avx512", "trsm", "conv", "conv_scalar", "conv_avx2",
            "conv_avx512")] + COMMON,
        include_dirs=[numpy.get_include(), "src/c/reproblas", "src/c/common"],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_2_0_API_VERSION")],
        depends=headers("src/c/reproblas", "src/c/common"),
        extra_compile_args=C_FLAGS + ["-pthread"],
        extra_link_args=["-pthread"],
        libraries=["m"],
    ),
    # The verifier: its own C core plus the same crlibm sources (one set of
    # source files, compiled into both extensions with the same flags). MPFR
    # is loaded at run time (dlopen), so the build needs no MPFR or gmpy2.
    Extension(
        "crlibm_py._verify",
        sources=["crlibm_py/_verify.pyx", "src/c/verify/verify.c", "src/c/verify/mpfr_dl.c"]
        + CRLIBM + COMMON,
        include_dirs=[numpy.get_include(), "src/c/crlibm", "src/c/common", "src/c/verify"],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_2_0_API_VERSION")],
        depends=headers("src/c/crlibm", "src/c/common", "src/c/verify"),
        extra_compile_args=C_FLAGS,
        libraries=["m", "dl"],
    ),
]



class build_py_with_cuda_sources(build_py):
    """Also ships the CUDA kernels and the C headers they include (crlibm_py/_cuda_src/):
    CuPy compiles them with NVRTC at run time (crlibm_py/_cuda.py)."""

    def run(self):
        super().run()
        dest = Path(self.build_lib) / "crlibm_py" / "_cuda_src"
        for d in ("cuda", "c/common", "c/crlibm", "c/reproblas"):
            for p in Path("src", d).rglob("*"):
                if p.suffix in (".cu", ".cuh", ".h") and "emu" not in p.parts:
                    target = dest / p.relative_to("src")
                    self.mkpath(str(target.parent))
                    self.copy_file(str(p), str(target), preserve_mode=0)


setup(ext_modules=cythonize(extensions, compiler_directives={"language_level": "3"}),
      cmdclass={"build_py": build_py_with_cuda_sources})
