"""Build of the C core and its Cython extensions.

The C core is compiled with -ffp-contract=off (no implicit fma) and without
-ffast-math: every fma the kernels execute is written in the source. Each CPU
path (scalar, AVX2, AVX-512) is selected per file with a target pragma, so one
set of flags builds them all and the dispatcher picks one at run time.

The same sources also build the C ABI: plain shared libraries installed inside
the packages (crlibm_py/lib/libcrlibm.so, reproblas/lib/libreproblas.so), whose
public headers live in crlibm_py/include and reproblas/include.

Each C file is compiled once, in parallel, into build/objects.<platform>-<python>/
in the source tree, and its object is linked into every product that lists it.
That folder outlives the build: `pip install` (editable or not) and
`setup.py build_ext --inplace` recompile only the files whose source, included
headers (gcc's dependency files) or compile command changed. Every object has
hidden visibility, so each product exports only what it declares: PyInit_<name>
for the Python modules (Python's PyMODINIT_FUNC), and the header's API for the
C ABI libraries. The C ABI libraries stay self-contained (no dependency on
another internal library), usable with -L<dir> -lreproblas (docs/c_abi.md).
"""
import functools
import json
import os
import sys
import sysconfig
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy
from setuptools import Extension, setup
from setuptools.command.build_py import build_py
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent

C_FLAGS = ["-O2", "-std=gnu11", "-ffp-contract=off", "-fno-fast-math", "-fno-math-errno",
           "-fno-strict-aliasing"]
# What every object is compiled with: one object serves the Python modules and the C ABI.
OBJECT_FLAGS = C_FLAGS + ["-fvisibility=hidden", "-pthread"]
# The include path of every C file (file names are unique across these folders).
INCLUDE_DIRS = ["src/c", "src/c/common", "src/c/capi", "src/c/crlibm", "src/c/reproblas",
                "src/c/verify", "crlibm_py/include", "reproblas/include"]

COMMON = ["src/c/common/isa.c"]
CAPI_ENV = "src/c/capi/env.c"  # the environment knobs' parser: the C ABI's, and reproblas._core's
CRLIBM = ["src/c/crlibm/dispatch.c"] + [f"src/c/crlibm/kernels_{isa}.c"
                                        for isa in ("scalar", "avx2", "avx512")]
CRLIBM_UFUNCS = CRLIBM + ["src/c/crlibm/scalar_calls.c"]  # + the benchmark's scalar baseline


def headers(*dirs):
    """Headers, .inc and .def files (for the sdist; rebuilds follow gcc's dependency files)."""
    return sorted(str(p) for d in dirs for p in Path(d).rglob("*")
                  if p.suffix in (".h", ".inc", ".def"))


# An extension's include_dirs and define_macros apply to its own sources (the Cython module);
# the shared C sources under src/c are compiled once, with INCLUDE_DIRS and OBJECT_FLAGS.
extensions = [
    Extension(
        "crlibm_py._ufuncs",
        sources=["crlibm_py/_ufuncs.pyx"] + CRLIBM_UFUNCS + COMMON,
        include_dirs=[numpy.get_include(), "crlibm_py"],
        # NumPy 2.0's ArrayMethod API (crlibm_py/_loop.h)
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_2_0_API_VERSION"),
                       ("NPY_TARGET_VERSION", "NPY_2_0_API_VERSION")],
        depends=headers("src/c/crlibm", "src/c/lanes", "src/c/common") + ["crlibm_py/_loop.h"],
        libraries=["m"],
    ),
    Extension(
        "reproblas._core",
        sources=["reproblas/_core.pyx"] + [f"src/c/reproblas/frame/{f}.c" for f in (
            "level1", "thread", "level3", "gemm_blocks", "trsm", "trmm", "level2", "conv_gather",
            "conv_seq", "conv_pw", "conv_driver", "context", "scan", "exact", "kahan", "nn",
            "optim", "exact_cumprod")] + [
            f"src/c/reproblas/kernels/{isa}/{f}.c" for isa in ("scalar", "avx2", "avx512")
            for f in ("level1", "gemm", "conv", "level2", "exact", "kahan", "seg", "nn")]
        + COMMON + [CAPI_ENV] + CRLIBM,  # nn.c: the fused torch ops call the crlibm kernels
        include_dirs=[numpy.get_include()],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_2_0_API_VERSION")],
        depends=headers("src/c/reproblas", "src/c/lanes", "src/c/order", "src/c/common",
                        "src/c/capi", "src/c/crlibm"),
        libraries=["m"],
    ),
    # The verifier: its own C core plus the same crlibm objects. MPFR is loaded
    # at run time (dlopen), so the build needs no MPFR or gmpy2.
    Extension(
        "crlibm_py._verify",
        sources=["crlibm_py/_verify.pyx", "src/c/verify/verify.c", "src/c/verify/mpfr_dl.c"]
        + CRLIBM + COMMON,
        include_dirs=[numpy.get_include()],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_2_0_API_VERSION")],
        depends=headers("src/c/crlibm", "src/c/lanes", "src/c/common", "src/c/verify"),
        libraries=["m", "dl"],
    ),
]



class build_py_with_cuda_sources(build_py):
    """Also ships the CUDA kernels and the C headers they include (repro_runtime/_cuda_src/):
    they are compiled with NVRTC at run time (repro_runtime/nvrtc.py)."""

    def run(self):
        super().run()
        dest = Path(self.build_lib) / "repro_runtime" / "_cuda_src"
        for d in ("cuda", "c/common", "c/lanes", "c/crlibm", "c/reproblas", "c/order"):
            for p in Path("src", d).rglob("*"):
                if p.suffix in (".cu", ".cuh", ".h", ".def") and "emu" not in p.parts:
                    target = dest / p.relative_to("src")
                    self.mkpath(str(target.parent))
                    self.copy_file(str(p), str(target), preserve_mode=0)



def c_library(name, sources, libraries):
    """A C ABI library "<pkg>.lib.lib<x>": the package's objects plus its wrappers,
    exporting only the symbols its public header marks."""
    soname = name.rsplit(".", 1)[1] + ".so"
    return Extension(
        name,
        sources=sources + ([] if CAPI_ENV in sources else [CAPI_ENV]),
        depends=headers("src/c/capi", "src/c/common", "crlibm_py/include", "reproblas/include"),
        extra_link_args=[f"-Wl,-soname,{soname}"],
        libraries=libraries,
    )


def c_sources(ext_name):
    """The C sources of a Python extension (its Cython module left out)."""
    ext = next(e for e in extensions if e.name == ext_name)
    return [s for s in ext.sources if s.endswith(".c")]


c_libraries = [
    c_library("crlibm_py.lib.libcrlibm", ["src/c/capi/crlibm_capi.c"] + c_sources(
        "crlibm_py._ufuncs"), ["m"]),
    c_library("reproblas.lib.libreproblas", ["src/c/capi/reproblas_capi.c"] + c_sources(
        "reproblas._core") + ["src/c/capi/reproblas_level1_blas.c", "src/c/capi/blas_impl.c"],
        ["m"]),
]
# The drop-in BLAS (docs/blas.md): the reference Fortran and CBLAS symbols over the C ABI;
# its version script exports those interfaces only.
BLAS_DROPIN = c_library("reproblas.lib.libreproblas_blas", [
    f"src/c/capi/{f}.c" for f in ("blas_fortran", "cblas", "xerbla", "blas_impl",
                                  "reproblas_capi")]
    + c_sources("reproblas._core"), ["m"])
BLAS_DROPIN.extra_link_args.append("-Wl,--version-script=src/c/capi/blas.map")
BLAS_DROPIN.depends.append("src/c/capi/blas.map")
c_libraries.append(BLAS_DROPIN)
C_LIBRARY_NAMES = {ext.name.rsplit(".", 1)[1] for ext in c_libraries}  # lib<x>


def c_file(source):
    """The C file a source compiles from (a Cython module's is the generated .c beside it)."""
    return source[: -len(".pyx")] + ".c" if source.endswith(".pyx") else source


def compile_options(ext, source):
    """(include dirs, macros) of one source in one extension: the shared C core's are the
    same in every product (one object serves all), a Cython module adds its extension's."""
    if Path(source).resolve().is_relative_to(ROOT / "src" / "c"):
        return list(INCLUDE_DIRS), []
    return list(INCLUDE_DIRS) + list(ext.include_dirs), list(ext.define_macros)


def compile_plan(exts):
    """{C file: (include dirs, macros)} over all products, each C file once. A file that two
    products would compile differently is an error, not a second object."""
    plan = {}
    for ext in exts:
        for source in map(c_file, ext.sources):
            options = compile_options(ext, source)
            if plan.setdefault(source, options) != options:
                raise ValueError(f"{source} is compiled with different options in {ext.name}")
    return plan


@functools.lru_cache(maxsize=None)
def _holds_files(folder):
    """Whether an include folder can matter (a venv's include/ is empty: which venv runs the
    build then does not make the objects differ)."""
    return any(files for _, _, files in os.walk(folder))


def _newest_mtime(paths):
    return max(os.stat(p).st_mtime_ns for p in paths)


class BuildExt(build_ext):
    """Compiles every C file once, in parallel, into a persistent object folder with
    dependency tracking, then links each product from those objects; names the C ABI
    libraries lib<x>.so instead of giving them a Python module suffix."""

    user_options = build_ext.user_options + [
        ("objects-dir=", None, "persistent object folder [build/objects.<platform>-<python>]")]

    def initialize_options(self):
        super().initialize_options()
        self.objects_dir = None

    def finalize_options(self):
        super().finalize_options()
        if self.objects_dir is None:
            # Not build_temp: PEP 660 editable builds get a fresh temporary build_temp each time.
            tag = f"{sysconfig.get_platform()}-{sys.implementation.cache_tag}"
            self.objects_dir = str(ROOT / "build" / f"objects.{tag}")

    def get_ext_filename(self, fullname):
        filename = super().get_ext_filename(fullname)
        if fullname.rsplit(".", 1)[-1] in C_LIBRARY_NAMES:
            return filename[: -len(sysconfig.get_config_var("EXT_SUFFIX"))] + ".so"
        return filename

    def workers(self):
        """All cores, or -j N."""
        if isinstance(self.parallel, int) and not isinstance(self.parallel, bool):
            return max(1, self.parallel)
        return os.cpu_count() or 1

    def object_path(self, source):
        return self.compiler.object_filenames([source], output_dir=self.objects_dir)[0]

    def signature(self, source, include_dirs, macros):
        """What decides an object besides its source and headers: the compile command
        (NumPy's headers, in a temporary folder under pip, stand as NumPy's version)."""
        np_inc = numpy.get_include()
        incs = [f"numpy-{numpy.__version__}" if d == np_inc else d
                for d in self.compiler.include_dirs + include_dirs if _holds_files(d)]
        return json.dumps([self.compiler.compiler_so, self.compiler.macros, incs, macros,
                           OBJECT_FLAGS, source])

    def is_fresh(self, obj, signature):
        """The object exists, was compiled by this command, and is newer than every file
        the compiler read for it (its dependency file, kept in the stamp)."""
        try:
            with open(obj + ".json") as f:
                stamp = json.load(f)
            return (stamp["signature"] == signature
                    and os.stat(obj).st_mtime_ns >= _newest_mtime(stamp["deps"]))
        except (OSError, ValueError, KeyError):
            return False

    def compile_one(self, source, include_dirs, macros, signature):
        obj, start = self.object_path(source), time.monotonic()
        stamp, depfile = obj + ".json", obj + ".d"
        if os.path.exists(stamp):
            os.remove(stamp)  # an interrupted compile must not look fresh
        self.compiler.compile([source], output_dir=self.objects_dir, macros=macros,
                              include_dirs=include_dirs,
                              extra_postargs=OBJECT_FLAGS + ["-MMD", "-MF", depfile])
        with open(depfile) as f:
            text = f.read().replace("\\\n", " ")
        np_inc = os.path.realpath(numpy.get_include())
        deps = [os.path.abspath(d) for d in text.split(":", 1)[1].split()]
        deps = [d for d in deps if not os.path.realpath(d).startswith(np_inc + os.sep)]
        with open(stamp, "w") as f:
            json.dump({"signature": signature, "deps": sorted(set(deps)),
                       "seconds": round(time.monotonic() - start, 2)}, f)

    def build_extensions(self):
        self.check_extensions_list(self.extensions)
        plan = compile_plan(self.extensions)
        jobs = []
        for source, (include_dirs, macros) in plan.items():
            obj = self.object_path(source)
            signature = self.signature(source, include_dirs, macros)
            if self.force or not self.is_fresh(obj, signature):
                jobs.append((source, include_dirs, macros, signature))
            os.makedirs(os.path.dirname(obj), exist_ok=True)  # here, not in the threads
        # Longest first: the Cython modules, then the rest by their last compile time.
        def cost(job):
            try:
                with open(self.object_path(job[0]) + ".json") as f:
                    return json.load(f)["seconds"]
            except (OSError, ValueError, KeyError):
                return os.path.getsize(job[0]) / 1e4
        jobs.sort(key=cost, reverse=True)
        print(f"compiling {len(jobs)} of {len(plan)} C files ({self.workers()} in parallel)"
              f" into {self.objects_dir}")
        with ThreadPoolExecutor(self.workers()) as pool:
            list(pool.map(lambda job: self.compile_one(*job), jobs))
        for ext in self.extensions:
            linked = os.path.join(self.objects_dir, "linked", self.get_ext_filename(ext.name))
            os.makedirs(os.path.dirname(linked), exist_ok=True)
        with ThreadPoolExecutor(self.workers()) as pool:
            list(pool.map(self.link_extension, self.extensions))

    def link_extension(self, ext):
        """Links into the object folder (reused when no object changed), then copies."""
        objects = [self.object_path(c_file(s)) for s in ext.sources] + list(ext.extra_objects)
        filename = self.get_ext_filename(ext.name)
        linked = os.path.join(self.objects_dir, "linked", filename)
        command = json.dumps([self.compiler.linker_so, objects, self.get_libraries(ext),
                              ext.library_dirs, ext.runtime_library_dirs, ext.extra_link_args])
        stamp = linked + ".json"
        try:
            with open(stamp) as f:
                fresh = (f.read() == command
                         and os.stat(linked).st_mtime_ns >= _newest_mtime(objects))
        except OSError:
            fresh = False
        if self.force or not fresh:
            if os.path.exists(stamp):
                os.remove(stamp)
            self.compiler.link_shared_object(
                objects, linked, libraries=self.get_libraries(ext),
                library_dirs=ext.library_dirs, runtime_library_dirs=ext.runtime_library_dirs,
                extra_postargs=ext.extra_link_args + ["-pthread"],
                export_symbols=self.get_export_symbols(ext), debug=self.debug,
                build_temp=self.build_temp, target_lang=self.compiler.detect_language(
                    [c_file(s) for s in ext.sources]))
            with open(stamp, "w") as f:
                f.write(command)
        ext_path = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(ext_path), exist_ok=True)
        self.copy_file(linked, ext_path)

    def copy_file(self, infile, outfile, *args, **kwargs):
        """Through a new file renamed over the old one: a process that has the old library
        loaded keeps its mapping instead of seeing the file rewritten under it."""
        if self.dry_run or os.path.isdir(outfile):
            return super().copy_file(infile, outfile, *args, **kwargs)
        part = outfile + ".part"
        super().copy_file(infile, part, *args, **kwargs)
        os.replace(part, outfile)
        return outfile, 1

    def copy_extensions_to_source(self):  # in-place and editable builds
        build_py = self.get_finalized_command("build_py")
        for ext in self.extensions:
            package, name = ext.name.rsplit(".", 1)
            if name in C_LIBRARY_NAMES:  # the lib/ folders are not in the source tree
                os.makedirs(build_py.get_package_dir(package), exist_ok=True)
        super().copy_extensions_to_source()



def cythonize_stale(exts):
    """Cythonizes the modules whose generated .c is missing, older than its .pyx or a
    .pxd/.pxi of its package, or made by another Cython or NumPy (build/cython.json); the others
    compile from their .c. Cython's own check would also compare with NumPy's and Cython's
    .pxd files, which a fresh pip build environment has just unpacked: a rebuild each time."""
    import Cython
    from Cython.Build import cythonize

    stamp_path = ROOT / "build" / "cython.json"
    try:
        stamps = json.loads(stamp_path.read_text())
    except (OSError, ValueError):
        stamps = {}
    made_by = f"Cython {Cython.__version__}, NumPy {numpy.__version__}"
    stale = []
    for ext in exts:
        for pyx in (s for s in ext.sources if s.endswith(".pyx")):
            inputs = [pyx] + [p for p in Path(pyx).parent.iterdir() if p.suffix in (".pxd", ".pxi")]
            c = Path(c_file(pyx))
            if not (c.exists() and stamps.get(str(c)) == made_by
                    and c.stat().st_mtime_ns >= _newest_mtime(inputs)):
                stale.append(ext)
                break
    if stale:
        # Only to write the .c files: the extensions keep their own include path and macros.
        cythonize(stale, compiler_directives={"language_level": "3"}, force=True,
                  nthreads=os.cpu_count() or 1)
        stamps.update({c_file(s): made_by for e in stale for s in e.sources if s.endswith(".pyx")})
        stamp_path.parent.mkdir(exist_ok=True)
        stamp_path.write_text(json.dumps(stamps, indent=1, sort_keys=True))
    for ext in exts:
        ext.sources = [c_file(s) for s in ext.sources]
    return exts


if __name__ == "__main__":  # build backends run setup.py as __main__; tests import it
    setup(ext_modules=cythonize_stale(extensions) + c_libraries,
          cmdclass={"build_ext": BuildExt, "build_py": build_py_with_cuda_sources})
