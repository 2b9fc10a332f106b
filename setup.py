"""Build of the C core and its Cython extensions.

The C core is compiled with -ffp-contract=off (no implicit fma) and without
-ffast-math: every fma the kernels execute is written in the source. Each CPU
path (scalar, AVX2, AVX-512) is selected per file with a target pragma, so one
set of flags builds them all and the dispatcher picks one at run time.

The same sources also build the C ABI: plain shared libraries installed inside
the packages (crlibm_py/lib/libcrlibm.so, reproblas/lib/libreproblas.so), whose
public headers live in crlibm_py/include and reproblas/include.
"""
import copy
import os
import sysconfig
from pathlib import Path

import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_py import build_py
from setuptools.command.build_ext import build_ext

C_FLAGS = ["-O2", "-std=gnu11", "-ffp-contract=off", "-fno-fast-math", "-fno-math-errno",
           "-fno-strict-aliasing"]

COMMON = ["src/c/common/isa.c"]
CAPI_ENV = "src/c/capi/env.c"  # the environment knobs' parser: the C ABI's, and reproblas._core's
CRLIBM = ["src/c/crlibm/dispatch.c"] + [f"src/c/crlibm/kernels_{isa}.c"
                                        for isa in ("scalar", "avx2", "avx512")]
CRLIBM_UFUNCS = CRLIBM + ["src/c/crlibm/scalar_calls.c"]  # + the benchmark's scalar baseline


def headers(*dirs):
    """Headers and .inc files: an edit to one of them must rebuild the extension."""
    return sorted(str(p) for d in dirs for p in Path(d).rglob("*") if p.suffix in (".h", ".inc"))


extensions = [
    Extension(
        "crlibm_py._ufuncs",
        sources=["crlibm_py/_ufuncs.pyx"] + CRLIBM_UFUNCS + COMMON,
        include_dirs=[numpy.get_include(), "crlibm_py", "src/c/crlibm", "src/c/common"],
        # NumPy 2.0's ArrayMethod API (crlibm_py/_loop.h)
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_2_0_API_VERSION"),
                       ("NPY_TARGET_VERSION", "NPY_2_0_API_VERSION")],
        depends=headers("src/c/crlibm", "src/c/common") + ["crlibm_py/_loop.h"],
        extra_compile_args=C_FLAGS,
        libraries=["m"],
    ),
    Extension(
        "reproblas._core",
        sources=["reproblas/_core.pyx"] + [f"src/c/reproblas/{f}.c" for f in (
            "level1", "thread", "kernels_scalar", "kernels_avx2", "kernels_avx512", "level3",
            "gemm_scalar", "gemm_avx2", "gemm_avx512", "trsm", "conv", "conv_driver", "conv_scalar",
            "conv_avx2", "conv_avx512")] + COMMON + [CAPI_ENV],
        include_dirs=[numpy.get_include(), "src/c", "src/c/reproblas", "src/c/common", "src/c/capi"],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_2_0_API_VERSION")],
        depends=headers("src/c/reproblas", "src/c/order", "src/c/common", "src/c/capi"),
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
        for d in ("cuda", "c/common", "c/crlibm", "c/reproblas", "c/order"):
            for p in Path("src", d).rglob("*"):
                if p.suffix in (".cu", ".cuh", ".h") and "emu" not in p.parts:
                    target = dest / p.relative_to("src")
                    self.mkpath(str(target.parent))
                    self.copy_file(str(p), str(target), preserve_mode=0)



def c_library(name, sources, include_dirs, libraries):
    """A C ABI library "<pkg>.lib.lib<x>": the package's sources plus its wrappers,
    exporting only the symbols its public header marks (-fvisibility=hidden)."""
    soname = name.rsplit(".", 1)[1] + ".so"
    return Extension(
        name,
        sources=sources + ([] if CAPI_ENV in sources else [CAPI_ENV]),
        include_dirs=include_dirs + ["src/c/capi", "src/c/common"],
        depends=headers("src/c/capi", *include_dirs, "src/c/common"),
        extra_compile_args=C_FLAGS + ["-fvisibility=hidden", "-pthread"],
        extra_link_args=[f"-Wl,-soname,{soname}", "-pthread"],
        libraries=libraries,
    )


def c_sources(ext_name):
    """The C sources of a Python extension (read before cythonize adds generated ones)."""
    ext = next(e for e in extensions if e.name == ext_name)
    return [s for s in ext.sources if s.endswith(".c")]


c_libraries = [
    c_library("crlibm_py.lib.libcrlibm", ["src/c/capi/crlibm_capi.c"] + c_sources(
        "crlibm_py._ufuncs"), ["crlibm_py/include", "src/c/crlibm"], ["m"]),
    c_library("reproblas.lib.libreproblas", ["src/c/capi/reproblas_capi.c"] + c_sources(
        "reproblas._core"), ["reproblas/include", "src/c", "src/c/reproblas"], ["m"]),
]
C_LIBRARY_NAMES = {ext.name.rsplit(".", 1)[1] for ext in c_libraries}  # lib<x>


class BuildExt(build_ext):
    """Names the C ABI libraries lib<x>.so instead of giving them a Python module suffix."""

    def get_ext_filename(self, fullname):
        filename = super().get_ext_filename(fullname)
        if fullname.rsplit(".", 1)[-1] in C_LIBRARY_NAMES:
            return filename[: -len(sysconfig.get_config_var("EXT_SUFFIX"))] + ".so"
        return filename

    def build_extension(self, ext):
        """Each extension compiles into its own temporary folder: several compile the same
        sources (with different flags for the C ABI libraries), and `build_ext -j` builds
        extensions in parallel threads, which would otherwise write the same object files."""
        own = copy.copy(self)  # a per-call copy: self is shared by the -j threads
        own.build_temp = os.path.join(self.build_temp, ext.name)
        build_ext.build_extension(own, ext)

    def copy_extensions_to_source(self):  # in-place and editable builds
        build_py = self.get_finalized_command("build_py")
        for ext in self.extensions:
            package, name = ext.name.rsplit(".", 1)
            if name in C_LIBRARY_NAMES:  # the lib/ folders are not in the source tree
                os.makedirs(build_py.get_package_dir(package), exist_ok=True)
        super().copy_extensions_to_source()



setup(ext_modules=cythonize(extensions, compiler_directives={"language_level": "3"})
      + c_libraries, cmdclass={"build_ext": BuildExt, "build_py": build_py_with_cuda_sources})
