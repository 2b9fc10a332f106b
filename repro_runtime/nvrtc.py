"""PTX of the CUDA kernels: the sources, NVRTC with the contract's options, a lint
of the result (repro_runtime.ptx), and a disk cache.

The sources are src/cuda/ and the C headers they include (src/c/), shipped as
package data in repro_runtime/_cuda_src/ by setup.py; a checkout uses src/.

Why not ``cupy.RawModule(code=...)``: CuPy appends ``-ftz=true`` to every
NVRTC compile, and NVRTC honours the last of repeated options, so the kernels
would flush subnormals (docs/contract.md §0 forbids it). We compile with NVRTC
ourselves (CuPy's binding, or any callable with the same contract), check the
PTX, and give CuPy the PTX file (``RawModule(path=...)``), which it loads as it is.
"""
import hashlib
import os
import tempfile
from pathlib import Path

from . import ptx as _lint

# Contract §0 as NVRTC options; the nvcc lint build (tools/ptx_lint.py) uses the same.
# 161 / 1675: the CPU's `#pragma GCC unroll` is unknown to NVRTC / nvcc.
NVRTC_OPTIONS = ("--fmad=false", "--ftz=false", "--prec-div=true", "--prec-sqrt=true",
                 "--std=c++17", "--diag-suppress=161,1675")

_PKG = Path(__file__).resolve().parent


def source_root():
    """The directory holding cuda/ and c/: the packaged copy, else the checkout's src/."""
    for root in (_PKG / "_cuda_src", _PKG.parent / "src"):
        if (root / "cuda" / "crlibm.cu").is_file():
            return root
    raise RuntimeError("crlibm_py/reproblas: the CUDA kernel sources are missing from this "
                       "installation (expected repro_runtime/_cuda_src/); reinstall the package")


def sources_digest(root=None):
    """A hash of every kernel source and header."""
    root = root or source_root()
    h = hashlib.sha256()
    for p in sorted((root / "cuda").rglob("*")) + sorted((root / "c").rglob("*")):
        if p.suffix in (".cu", ".cuh", ".h", ".def"):
            h.update(str(p.relative_to(root)).encode())
            h.update(p.read_bytes())
    return h.hexdigest()[:16]


def nvrtc_options(root=None):
    root = root or source_root()
    # nvrtc/ holds the few libc headers the shared C headers include.
    return NVRTC_OPTIONS + tuple(f"-I{root / d}" for d in ("cuda", "c", "cuda/nvrtc"))


def cupy_nvrtc(code, options):
    """PTX of `code` by NVRTC through CuPy's binding; RuntimeError with the log."""
    from cupy_backends.cuda.libs import nvrtc  # CuPy is optional: imported on a GPU call
    prog = nvrtc.createProgram(code, "kernels.cu", (), ())
    try:
        try:
            nvrtc.compileProgram(prog, list(options))
        except nvrtc.NVRTCError as e:
            raise RuntimeError(f"NVRTC: {e}\n{nvrtc.getProgramLog(prog)}") from None
        return nvrtc.getPTX(prog).rstrip(b"\0").decode()
    finally:
        nvrtc.destroyProgram(prog)


def cache_dir():
    d = os.environ.get("CRLIBM_CUDA_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "crlibm_py", "cuda")
    try:
        os.makedirs(d, exist_ok=True)
        return Path(d)
    except OSError:
        return Path(tempfile.gettempdir())


def ptx_path(file, arch, options, digest, compile=cupy_nvrtc, directory=None):
    """Path of the checked PTX of src/cuda/<file>.cu for compute capability `arch`
    (e.g. "90"), compiled once per source digest and NVRTC options."""
    key = hashlib.sha256(repr((digest, tuple(options), arch)).encode()).hexdigest()[:16]
    path = (directory or cache_dir()) / f"{file}_sm{arch}_{key}.ptx"
    if path.exists():
        return path
    ptx = compile(f'#include "{file}.cu"\n',
                  tuple(options) + (f"--gpu-architecture=compute_{arch}",))
    violations = _lint.lint(ptx)
    if violations:
        raise RuntimeError(f"the CUDA kernels of {file}.cu compiled by this NVRTC break the "
                           f"arithmetic contract ({len(violations)} instructions, e.g. "
                           f"{violations[0]}); please report it")
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(ptx)
    os.replace(tmp, path)
    return path
