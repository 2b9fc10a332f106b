"""PTX of the CUDA kernels: NVRTC with the contract's options, a lint of the
result, and a disk cache.

Why not ``cupy.RawModule(code=...)``: CuPy appends ``-ftz=true`` to every
NVRTC compile, and NVRTC honours the last of repeated options, so the kernels
would flush subnormals (SPEC §0 forbids it). We compile with NVRTC ourselves
(CuPy's binding, or any callable with the same contract), check the PTX, and
give CuPy the PTX file (``RawModule(path=...)``), which it loads as it is.
"""
import os
import re
import tempfile
from pathlib import Path

# Forbidden anywhere in result-producing PTX (SPEC §0): approximate or FTZ
# instructions, special-function units, tensor cores, floating-point atomics.
_PRED = r"^\s*(?:@!?%\w+\s+)?"
FORBIDDEN = [
    (re.compile(r"\.approx\b"), "approximate instruction"),
    (re.compile(r"\.ftz\b"), "flush-to-zero"),
    (re.compile(_PRED + r"(rcp|rsqrt|ex2|lg2|sin|cos|tanh)\.", re.M),
     "special-function instruction"),
    (re.compile(_PRED + r"div\.full\.", re.M), "approximate division"),
    (re.compile(_PRED + r"(atom|red)\.[\w.]*\.(f16|bf16|f32|f64)\b", re.M),
     "floating-point atomic"),
    (re.compile(_PRED + r"w?mma\.", re.M), "tensor-core instruction"),
    (re.compile(r"\btf32\b"), "TF32"),
]
FMA = re.compile(_PRED + r"fma\.", re.M)
FUNC = re.compile(r"^\s*(?:\.visible\s+|\.weak\s+)?\.(?:entry|func)\s+(?:\([^)]*\)\s*)?(\w+)",
                  re.M)
PROBE = "cr_lint_fma"  # src/cuda/lint/fma_probe.cuh


def functions(ptx):
    """(name, body) of every .entry / .func in the PTX."""
    starts = [(m.start(), m.group(1)) for m in FUNC.finditer(ptx)]
    return [(name, ptx[pos:(starts[i + 1][0] if i + 1 < len(starts) else len(ptx))])
            for i, (pos, name) in enumerate(starts)]


def lint(ptx, fma_probe_build=False):
    """Violations as 'function: what: instruction' strings (empty: clean). In a
    probe build (-DCR_LINT_FMA), also every fma outside the probe functions: the
    source's own fmas all go through them, so any other was made by the compiler."""
    found = []
    for name, body in functions(ptx):
        for pattern, what in FORBIDDEN:
            for m in pattern.finditer(body):
                line = body[body.rfind("\n", 0, m.start()) + 1:body.find("\n", m.start())]
                found.append(f"{name}: {what}: {line.strip()}")
        if fma_probe_build and PROBE not in name:
            for m in FMA.finditer(body):
                line = body[m.start():body.find("\n", m.start())]
                found.append(f"{name}: fma not requested by the source: {line.strip()}")
    return found


def cupy_nvrtc(code, options):
    """PTX of `code` by NVRTC through CuPy's binding; RuntimeError with the log."""
    from cupy_backends.cuda.libs import nvrtc
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
    import hashlib
    key = hashlib.sha256(repr((digest, tuple(options), arch)).encode()).hexdigest()[:16]
    path = (directory or cache_dir()) / f"{file}_sm{arch}_{key}.ptx"
    if path.exists():
        return path
    ptx = compile(f'#include "{file}.cu"\n',
                  tuple(options) + (f"--gpu-architecture=compute_{arch}",))
    violations = lint(ptx)
    if violations:
        raise RuntimeError(f"the CUDA kernels of {file}.cu compiled by this NVRTC break the "
                           f"arithmetic contract ({len(violations)} instructions, e.g. "
                           f"{violations[0]}); please report it")
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(ptx)
    os.replace(tmp, path)
    return path
