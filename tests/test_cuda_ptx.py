"""nvcc compile (sm_80, sm_90, through ptxas) and PTX lint of the CUDA kernels,
plus proof that the lint catches each kind of violation it is meant to."""
import pytest

from cuda_support import nvcc_or_skip
import ptx_lint
from repro_runtime import nvrtc as rt_nvrtc, ptx as rt_ptx


@pytest.fixture(scope="module")
def nvcc():
    return nvcc_or_skip()


@pytest.fixture(scope="module")
def report(nvcc, tmp_path_factory):
    """Both builds of every kernel file for every architecture, once per session."""
    try:
        return ptx_lint.lint_sources(nvcc, workdir=tmp_path_factory.mktemp("ptx"))
    except RuntimeError as e:
        pytest.fail(f"CUDA kernels do not compile:\n{e}")


@pytest.mark.parametrize("build", ["shipped", "fma-probe"])
@pytest.mark.parametrize("arch", ptx_lint.ARCHS)
@pytest.mark.parametrize("file", ptx_lint.KERNEL_FILES)
def test_kernels_compile_and_lint_clean(report, file, arch, build):
    assert report[file, arch, build] == [], "\n".join(report[file, arch, build][:20])


def test_nvcc_flags_are_the_nvrtc_options():
    spell = {"-ftz=false": "--ftz=false", "-prec-div=true": "--prec-div=true",
             "-prec-sqrt=true": "--prec-sqrt=true", "-std=c++17": "--std=c++17",
             "-diag-suppress=161,1675": "--diag-suppress=161,1675"}
    assert tuple(spell.get(f, f) for f in ptx_lint.NVCC_FLAGS) == rt_nvrtc.NVRTC_OPTIONS
    assert not any("fast" in f for f in rt_nvrtc.NVRTC_OPTIONS)


def _nvrtc_or_skip():
    library = ptx_lint.find_nvrtc()
    if library is None:
        pytest.skip("needs NVRTC, no GPU (pip install nvidia-cuda-nvrtc-cu12, which the test "
                    "extra installs on Linux x86-64, or set NVRTC_LIBRARY)")
    return lambda code, options: ptx_lint.nvrtc_ptx(library, code, options)


def test_repeated_ftz_option_last_wins():
    """Why the loader compiles itself: CuPy's RawModule(code=) appends -ftz=true,
    and NVRTC honours the last of repeated options."""
    nvrtc = _nvrtc_or_skip()
    code = 'extern "C" __global__ void k(float *y) { y[0] = y[1] * y[2]; }\n'
    assert rt_ptx.lint(nvrtc(code, rt_nvrtc.NVRTC_OPTIONS)) == []
    assert any("flush-to-zero" in v for v in
               rt_ptx.lint(nvrtc(code, rt_nvrtc.NVRTC_OPTIONS + ("-ftz=true",))))


def test_loader_ptx_is_compiled_once_and_checked(tmp_path):
    nvrtc = _nvrtc_or_skip()
    options = rt_nvrtc.nvrtc_options()
    path = rt_nvrtc.ptx_path("crlibm", "80", options, "d1", nvrtc, tmp_path)
    assert ".entry cr_exp_f32" in path.read_text()

    def no_compile(code, options):
        raise AssertionError("compiled again")
    assert rt_nvrtc.ptx_path("crlibm", "80", options, "d1", no_compile, tmp_path) == path


def test_loader_refuses_ptx_that_breaks_the_contract(tmp_path):
    bad = ".visible .entry k(\n)\n{\n\tmul.rn.ftz.f32 \t%f1, %f2, %f3;\n}\n"
    with pytest.raises(RuntimeError, match="flush-to-zero"):
        rt_nvrtc.ptx_path("crlibm", "80", (), "d2", lambda code, options: bad, tmp_path)
    assert list(tmp_path.iterdir()) == []  # nothing cached


@pytest.mark.parametrize("probe", [False, True])
@pytest.mark.parametrize("file", ptx_lint.KERNEL_FILES)
def test_nvrtc_compiles_the_shipped_sources_lint_clean(file, probe):
    """What cupy.RawModule does on a GPU machine: NVRTC, our options, the stub libc
    headers of src/cuda/nvrtc/. Needs only libnvrtc, no GPU."""
    nvrtc = _nvrtc_or_skip()
    options = list(rt_nvrtc.nvrtc_options()) + ["--gpu-architecture=compute_80"]
    if probe:
        options.append("-DCR_LINT_FMA")
    ptx = nvrtc(f'#include "{file}"\n', options)
    assert ".entry" in ptx
    assert ptx_lint.lint(ptx, fma_probe_build=probe) == []


def _lint_snippet(nvcc, tmp_path, body, flags=ptx_lint.NVCC_FLAGS, probe=True):
    src = tmp_path / "snippet.cu"
    src.write_text('#include "cuda_prelude.cuh"\n'
                   'extern "C" __global__ void k(const float *x, float *y) {\n'
                   f'  {body}\n}}\n')
    ptx = ptx_lint.compile_ptx(nvcc, src, "sm_80", tmp_path / "snippet.ptx", flags,
                               ("CR_LINT_FMA",) if probe else (), ptxas=False)
    return ptx_lint.lint(ptx, fma_probe_build=probe)


@pytest.mark.parametrize("body,flags,what", [
    ("y[0] = __expf(x[0]);", ptx_lint.NVCC_FLAGS, "approximate"),
    ("atomicAdd(y, x[0]);", ptx_lint.NVCC_FLAGS, "floating-point atomic"),
    ("y[0] = 1.0f / sqrtf(x[0]);", ("-use_fast_math",), "flush-to-zero"),
    ("y[0] = __fdividef(x[0], x[1]);", ptx_lint.NVCC_FLAGS, "approximate"),
    ("y[0] = x[0] * x[1] + x[2];", ("--fmad=true",), "fma not requested"),
])
def test_lint_catches_injected_violation(nvcc, tmp_path, body, flags, what):
    found = _lint_snippet(nvcc, tmp_path, body, flags)
    assert any(what in v for v in found), found


def test_lint_accepts_requested_fma(nvcc, tmp_path):
    requested = "y[0] = fmaf(x[0], x[1], x[2]) + __fmul_rn(x[0], 2.0f);"
    assert _lint_snippet(nvcc, tmp_path, requested) == []
    assert _lint_snippet(nvcc, tmp_path, "y[0] = x[0] * x[1] + x[2];") == []  # --fmad=false


def test_lint_catches_contraction_in_the_real_kernels(nvcc, tmp_path):
    """Built without --fmad=false, the crlibm bodies' products and sums get fused."""
    flags = tuple(f for f in ptx_lint.NVCC_FLAGS if f != "--fmad=false") + ("--fmad=true",)
    ptx = ptx_lint.compile_ptx(nvcc, ptx_lint.SRC / "cuda" / "crlibm.cu", "sm_80",
                               tmp_path / "fused.ptx", flags, ("CR_LINT_FMA",), ptxas=False)
    assert any("fma not requested" in v for v in ptx_lint.lint(ptx, fma_probe_build=True))
