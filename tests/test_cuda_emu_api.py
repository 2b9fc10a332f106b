"""The public API on GPU arrays, end to end through the emulated kernels: the
dispatch (crlibm_py._api, reproblas._backend), checks, output allocation and
in-place semantics of the CUDA path give the NumPy path's bits."""
import numpy as np
import pytest

import crlibm_py
import reproblas
from repro_runtime import cuda as rt_cuda, nvrtc
from cuda_support import EmuArray, EmuDevice, emu_array, same_bits


@pytest.fixture(scope="module")
def _emu():
    return EmuDevice()


@pytest.fixture
def gpu(_emu, monkeypatch):
    """Route 'GPU' arrays (EmuArray) to the emulated device."""
    monkeypatch.setattr(rt_cuda, "_device", [_emu])
    return _emu


def test_crlibm_routes_device_arrays(gpu):
    x = np.linspace(-20, 20, 999, dtype=np.float32).reshape(27, 37)
    for fname in crlibm_py.FUNCTIONS:
        got = getattr(crlibm_py, fname)(emu_array(x))
        same_bits(got, getattr(crlibm_py, fname)(x))
    same_bits(crlibm_py.sin(emu_array(x.astype(np.float16))), crlibm_py.sin(x.astype(np.float16)))
    with pytest.raises(TypeError, match="astype"):
        crlibm_py.exp(emu_array(x.astype(np.float64)))
    with pytest.raises(TypeError, match="where"):
        crlibm_py.exp(emu_array(x), where=True)


def test_without_cupy_or_gpu_a_device_array_is_a_clear_error(monkeypatch):
    try:
        import cupy
        cupy.cuda.runtime.getDeviceCount()
        pytest.skip("needs a machine without CuPy or without a GPU (this one has both: the "
                    "GPU tests run instead)")
    except ImportError:
        pass
    except Exception:  # CuPy without a usable GPU
        pass
    monkeypatch.setattr(rt_cuda, "_device", [])
    x = emu_array(np.ones(4, np.float32))
    for call in (crlibm_py.exp, reproblas.sum):
        with pytest.raises(RuntimeError, match="CuPy is not installed|no usable CUDA GPU"):
            call(x)


def test_reproblas_level1_routes(gpu):
    rng = np.random.default_rng(5)
    for dtype in (np.float32, np.float64):
        x, y = rng.standard_normal(1500).astype(dtype), rng.standard_normal(1500).astype(dtype)
        for order in ("sequential", "pairwise"):
            for r, args in (("sum", (x,)), ("asum", (x,)), ("nrm2", (x[::3],)),
                            ("dot", (x, y))):
                got = getattr(reproblas, r)(*map(emu_array, args), order=order)
                assert isinstance(got, np.ndarray) and got.shape == ()
                same_bits(got, np.asarray(getattr(reproblas, r)(*args, order=order)))
        assert reproblas.iamax(emu_array(x)) == reproblas.iamax(x)
        yy = emu_array(y.copy())
        assert reproblas.axpy(2.5, emu_array(x), yy) is yy
        same_bits(yy, reproblas.axpy(2.5, x, y.copy()))
        xs = emu_array(x.copy())[::2]  # strided, updated in place
        reproblas.scal(-3.0, xs)
        same_bits(xs, reproblas.scal(-3.0, x.copy()[::2]))
    with pytest.raises(TypeError, match="GPU and some in host"):
        reproblas.dot(emu_array(x), x)
    with pytest.raises(TypeError, match="mixed dtypes"):
        reproblas.dot(emu_array(x), emu_array(x.astype(np.float32)))
    with pytest.raises(ValueError, match="order"):
        reproblas.sum(emu_array(x), order="tree")
    with pytest.raises(ValueError, match="empty"):
        reproblas.iamax(emu_array(x[:0]))


def test_reproblas_level23_routes(gpu):
    rng = np.random.default_rng(6)
    a = rng.standard_normal((40, 30)).astype(np.float32)
    b = rng.standard_normal((30, 50)).astype(np.float32)
    c = rng.standard_normal((40, 50)).astype(np.float32)
    for order in ("sequential", "pairwise"):
        same_bits(reproblas.gemm(0.5, emu_array(a), emu_array(b), 2.0, emu_array(c), order=order),
                  reproblas.gemm(0.5, a, b, 2.0, c, order=order))
        cc = emu_array(np.asfortranarray(c))
        assert reproblas.gemm(1.0, emu_array(a), emu_array(b), -1.0, cc, overwrite_c=True,
                              order=order) is cc
        same_bits(cc, reproblas.gemm(1.0, a, b, -1.0, c, order=order))
        x, y = b[:, 0].copy(), c[:, 0].copy()
        same_bits(reproblas.gemv(1.5, emu_array(a), emu_array(x), 0.25, emu_array(y), order=order),
                  reproblas.gemv(1.5, a, x, 0.25, y, order=order))
        same_bits(reproblas.gemv(1.5, emu_array(a), emu_array(y), trans=True, order=order),
                  reproblas.gemv(1.5, a, y, trans=True, order=order))
        batch = rng.standard_normal((3, 1, 40, 30)).astype(np.float32)
        same_bits(reproblas.matmul(emu_array(batch), emu_array(b), order=order),
                  reproblas.matmul(batch, b, order=order))
        same_bits(reproblas.matmul(emu_array(x), emu_array(b), order=order),
                  reproblas.matmul(x, b, order=order))
    same_bits(reproblas.ger(0.5, emu_array(c[:, 1].copy()), emu_array(b[0].copy()), emu_array(c)),
              reproblas.ger(0.5, c[:, 1].copy(), b[0].copy(), c))
    with pytest.raises(ValueError, match="inner dimensions"):
        reproblas.gemm(1.0, emu_array(a), emu_array(a))
    with pytest.raises(ValueError, match="beta != 0 needs c"):
        reproblas.gemm(1.0, emu_array(a), emu_array(b), 1.0)


def test_kernel_cache_key_follows_every_included_file(tmp_path):
    """CuPy caches modules by code string: ours embeds a digest of all sources."""
    import shutil
    root = tmp_path / "src"
    shutil.copytree(nvrtc.source_root() / "cuda", root / "cuda")
    shutil.copytree(nvrtc.source_root() / "c", root / "c")
    before = nvrtc.sources_digest(root)
    header = root / "c" / "crlibm" / "fputil.h"
    header.write_text(header.read_text() + "\n")
    assert nvrtc.sources_digest(root) != before


def test_missing_operands_on_the_device_path(gpu):
    a, v = emu_array(np.ones((3, 3), np.float32)), emu_array(np.ones(3, np.float32))
    x4 = emu_array(np.ones((1, 1, 3, 3), np.float32))
    for call in (lambda: reproblas.gemm(1.0, a, None), lambda: reproblas.gemm(1.0, None, a),
                 lambda: reproblas.gemv(1.0, a, None), lambda: reproblas.ger(1.0, v, None),
                 lambda: reproblas.axpy(1.0, v, None), lambda: reproblas.dot(v, None),
                 lambda: reproblas.matmul(a, None), lambda: reproblas.trsm(1.0, a, None),
                 lambda: reproblas.conv2d(x4, None), lambda: reproblas.conv2d(None, x4)):
        with pytest.raises(TypeError, match="NoneType"):
            call()


def test_device_path_raises_the_host_paths_errors(gpu):
    """Arguments are checked once, before the backend is called: a bad call on GPU
    arrays raises the exception, with the message, of the same call on NumPy arrays."""
    f32 = np.float32
    a, b, c = np.ones((4, 3), f32), np.ones((3, 5), f32), np.ones((4, 5), f32)
    v3, v4, v5 = np.ones(3, f32), np.ones(4, f32), np.ones(5, f32)
    t = np.tril(np.ones((4, 4), f32)) + 3 * np.eye(4, dtype=f32)
    x4, w4 = np.ones((1, 2, 5, 5), f32), np.ones((3, 2, 3, 3), f32)
    calls = [
        ("sum", (a,), {}), ("dot", (v3, v4), {}), ("nrm2", (v3,), {"order": "tree"}),
        ("axpy", ("2", v3, v3.copy()), {}), ("scal", (np.float64(2), v3.copy()), {}),
        ("iamax", (a,), {}), ("gemm", (1.0, a, a), {}), ("gemm", (1.0, a, b, 1.0), {}),
        ("gemm", (1.0, a, b, 1.0, a), {}), ("gemm", (1.0, a, b), {"order": "tree"}),
        ("gemv", (1.0, a, v4), {}), ("gemv", (1.0, a, v3, 1.0), {}),
        ("gemv", (1.0, a, v3, 1.0, v3), {}), ("ger", (1.0, v4, v5, a), {}),
        ("matmul", (a, v4), {}), ("matmul", (a[None], b[None, None, :2]), {}),
        ("trsv", (t, v3), {}), ("trsv", (t, v4), {"order": "tree"}),
        ("trsm", (1.0, t, c), {"side": "up"}), ("trsm", (1.0, t, c), {"side": "right"}),
        ("conv2d", (x4, w4[:, :1]), {}), ("conv2d", (x4, w4, v4), {}),
        ("conv2d", (x4, w4), {"padding": "full"}),
        ("conv2d_grad_input", (np.ones((1, 3, 3, 3), f32), w4, (1, 2, 6, 6)), {}),
        ("conv2d_grad_weight", (x4, np.ones((1, 3, 3, 3), f32), (3, 2, 4, 3)), {}),
        ("conv2d_grad_bias", (x4[0, 0],), {}),  # (3-D: one unbatched image)
    ]
    for name, args, kwargs in calls:
        outcomes = []
        for wrap in (lambda v: v, emu_array):
            wrapped = [wrap(v) if isinstance(v, np.ndarray) else v for v in args]
            with pytest.raises((TypeError, ValueError)) as e:
                getattr(reproblas, name)(*wrapped, **kwargs)
            outcomes.append((e.type, str(e.value)))
        assert outcomes[0] == outcomes[1], (name, outcomes)


def test_cupy_device_loads_each_packages_kernels_from_its_file(monkeypatch):
    """The shared device finds a kernel's file by the prefix its package registered
    (crlibm_py: cr_ -> crlibm.cu, reproblas: rb_ -> reproblas.cu) and builds each file
    once per device; CuPy's RawModule and the NVRTC build are stand-ins here."""
    from types import SimpleNamespace
    built = []
    monkeypatch.setattr(nvrtc, "ptx_path", lambda file, arch, options, digest:
                        built.append((file, arch, digest)) or f"/cache/{file}.ptx")

    class RawModule:
        def __init__(self, path):
            self.path = path

        def get_function(self, name):
            return self.path, name

    gpu = SimpleNamespace(id=0, compute_capability="90")
    dev = object.__new__(rt_cuda.CupyDevice)  # without CuPy: only its kernel loading
    dev.xp = SimpleNamespace(RawModule=RawModule, cuda=SimpleNamespace(Device=lambda: gpu))
    dev._modules, dev._digest = {}, "d0"
    assert dev.function("cr_exp_f32") == ("/cache/crlibm.ptx", "cr_exp_f32")
    assert dev.function("rb_gemm_seq_f64") == ("/cache/reproblas.ptx", "rb_gemm_seq_f64")
    assert dev.function("cr_log_f32") == ("/cache/crlibm.ptx", "cr_log_f32")
    assert built == [("crlibm", "90", "d0"), ("reproblas", "90", "d0")]
    with pytest.raises(KeyError, match="no kernel file"):
        dev.function("xx_unknown")
