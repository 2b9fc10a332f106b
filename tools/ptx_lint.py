"""Compile the CUDA kernels with nvcc and lint their PTX against contract §0.

Two builds per kernel file and architecture:
  - the shipped build (the NVRTC options of repro_runtime/nvrtc.py): PTX, then
    ptxas for the same architecture, so the whole device compile is checked;
    its PTX may hold no approximate, flush-to-zero, tensor-core or
    floating-point-atomic instruction;
  - the lint build (-DCR_LINT_FMA, src/cuda/lint/fma_probe.cuh): every fma
    the sources request becomes a call to an out-of-line probe function, so
    any fma instruction outside the probes was invented by the compiler.

    python tools/ptx_lint.py [--arch sm_80 sm_90]    # exit 1 on violations
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from repro_runtime.ptx import lint  # noqa: E402  (the rules, shared with the loader)

SRC = ROOT / "src"
KERNEL_FILES = ("crlibm.cu", "reproblas.cu")
ARCHS = ("sm_80", "sm_90")
# nvcc spellings of repro_runtime.nvrtc.NVRTC_OPTIONS (kept equal by a test).
NVCC_FLAGS = ("--fmad=false", "-ftz=false", "-prec-div=true", "-prec-sqrt=true", "-std=c++17",
              "-diag-suppress=161,1675")


def find_nvcc():
    nvcc = shutil.which("nvcc")
    if nvcc is None and os.path.exists("/usr/local/cuda/bin/nvcc"):
        nvcc = "/usr/local/cuda/bin/nvcc"
    return nvcc


def compile_ptx(nvcc, source, arch, out, flags=NVCC_FLAGS, defines=(), ptxas=True):
    """PTX of `source` (a path) for `arch`; also assembles it when ptxas is true.
    Raises RuntimeError with the compiler's messages on an error."""
    cmds = [[nvcc, "-ptx", f"-arch={arch}", *flags, *(f"-D{d}" for d in defines),
             f"-I{SRC / 'cuda'}", f"-I{SRC / 'c'}", str(source), "-o", str(out)]]
    if ptxas:  # next to nvcc (a wrapper script may stand in /usr/local/bin)
        cmds.append([str(Path(nvcc).parent / "ptxas"), f"-arch={arch}", str(out), "-o",
                     f"{out}.cubin"])
    for cmd in cmds:
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)}\n{r.stderr}")
    return Path(out).read_text()


def find_nvrtc():
    """Path of libnvrtc: $NVRTC_LIBRARY, the CUDA toolkit's, or the nvidia-cuda-nvrtc
    wheel's; None if absent (NVRTC compiles without a GPU)."""
    import glob
    import importlib.util
    candidates = [os.environ.get("NVRTC_LIBRARY", "")]
    candidates += sorted(glob.glob("/usr/local/cuda*/lib64/libnvrtc.so*"))
    spec = importlib.util.find_spec("nvidia")
    for base in (spec.submodule_search_locations if spec else []):
        candidates += sorted(glob.glob(f"{base}/cuda_nvrtc/lib/libnvrtc.so*"))
    return next((c for c in candidates if c and os.path.isfile(c)), None)


def nvrtc_ptx(library, code, options):
    """PTX of `code` compiled by NVRTC (what cupy.RawModule runs) with `options`.
    Raises RuntimeError with NVRTC's log on an error."""
    import ctypes
    lib = ctypes.CDLL(library)
    prog = ctypes.c_void_p()
    if lib.nvrtcCreateProgram(ctypes.byref(prog), code.encode(), b"kernels.cu", 0, None,
                              None) != 0:
        raise RuntimeError("nvrtcCreateProgram failed")
    try:
        opts = (ctypes.c_char_p * len(options))(*[o.encode() for o in options])
        rc = lib.nvrtcCompileProgram(prog, len(options), opts)
        size = ctypes.c_size_t()
        if rc != 0:
            lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
            log = ctypes.create_string_buffer(size.value)
            lib.nvrtcGetProgramLog(prog, log)
            raise RuntimeError(f"NVRTC error {rc}:\n{log.value.decode()}")
        lib.nvrtcGetPTXSize(prog, ctypes.byref(size))
        ptx = ctypes.create_string_buffer(size.value)
        lib.nvrtcGetPTX(prog, ptx)
        return ptx.value.decode()
    finally:
        lib.nvrtcDestroyProgram(ctypes.byref(prog))


def lint_sources(nvcc, archs=ARCHS, files=KERNEL_FILES, workdir=None, flags=NVCC_FLAGS):
    """{(file, arch, build): violations} over both builds of every file."""
    workdir = Path(workdir or tempfile.mkdtemp(prefix="ptx_lint_"))
    report = {}
    for f in files:
        for arch in archs:
            for build, defines in (("shipped", ()), ("fma-probe", ("CR_LINT_FMA",))):
                out = workdir / f"{Path(f).stem}_{arch}_{build}.ptx"
                ptx = compile_ptx(nvcc, SRC / "cuda" / f, arch, out, flags, defines,
                                  ptxas=build == "shipped")
                report[f, arch, build] = lint(ptx, fma_probe_build=bool(defines))
    return report


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--arch", nargs="+", default=list(ARCHS))
    args = ap.parse_args()
    nvcc = find_nvcc()
    if nvcc is None:
        sys.exit("nvcc not found")
    bad = 0
    for (f, arch, build), violations in lint_sources(nvcc, args.arch).items():
        print(f"{f} {arch} {build}: {'clean' if not violations else len(violations)}")
        for v in violations[:20]:
            print("   ", v)
        bad += len(violations)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
