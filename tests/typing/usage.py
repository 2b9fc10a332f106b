"""Type-checked by mypy in CI (.ci/run) against the stubs: a use of every public name.

Also run by tests/test_stubs.py, so every line here is a real call."""
import numpy as np
from numpy.typing import NDArray

import crlibm_py
import reproblas


def crlibm_usage() -> None:
    x: NDArray[np.float32] = np.linspace(-4, 4, 33, dtype=np.float32)
    y: NDArray[np.float32] = crlibm_py.exp(x)
    crlibm_py.sin(x, out=y, where=x > 0)
    s: np.float32 = crlibm_py.log(np.float32(2.0))
    t: np.float32 = crlibm_py.rsqrt(4.0)
    for f in (crlibm_py.exp, crlibm_py.log, crlibm_py.sin, crlibm_py.cos, crlibm_py.tanh,
              crlibm_py.erf, crlibm_py.rsqrt):
        f([0.5, 1.0])
    u: np.ufunc = crlibm_py.ufuncs["exp"]
    names: tuple[str, ...] = crlibm_py.FUNCTIONS
    paths: list[str] = crlibm_py.isa_names()
    best: str = crlibm_py.best_isa()
    ok: bool = crlibm_py.isa_supported(best)
    folders: list[str] = [crlibm_py.get_include(), crlibm_py.get_library_dir()]
    version: str = crlibm_py.__version__
    assert s == np.float32(np.log(np.float32(2.0))) and t == 0.5 and ok
    assert u.nin == 1 and len(names) == 7 and best in paths and folders and version


def reproblas_usage() -> None:
    rng = np.random.default_rng(0)
    x64: NDArray[np.float64] = rng.standard_normal(16)
    a32: NDArray[np.float32] = rng.standard_normal((8, 8)).astype(np.float32)
    a32 += 30 * np.eye(8, dtype=np.float32)
    v32: NDArray[np.float32] = a32[0].copy()
    s64: np.float64 = reproblas.sum(x64, order="pairwise")
    s32: np.float32 = reproblas.asum(v32)
    d64: np.float64 = reproblas.dot(x64, x64)
    n64: np.float64 = reproblas.nrm2(x64, order="sequential")
    i: int = reproblas.iamax(x64)
    y64: NDArray[np.float64] = reproblas.axpy(2.0, x64, x64.copy())
    z64: NDArray[np.float64] = reproblas.scal(np.float64(0.5), x64.copy())
    c32: NDArray[np.float32] = reproblas.gemm(1.0, a32, a32, trans_b=True)
    c32 = reproblas.gemm(2.0, a32, a32, beta=1.0, c=c32, overwrite_c=True, order="pairwise")
    g32: NDArray[np.float32] = reproblas.gemv(1.0, a32, v32, trans=True)
    r32: NDArray[np.float32] = reproblas.ger(1.0, v32, v32, a32)
    m = reproblas.matmul(a32, a32)
    b32: NDArray[np.float32] = reproblas.trsv(np.tril(a32), v32, lower=True)
    b32 = reproblas.trsm(1.0, np.tril(a32), a32, side="left", lower=True, order="pairwise")
    img: NDArray[np.float32] = rng.standard_normal((2, 3, 6, 6)).astype(np.float32)
    w: NDArray[np.float32] = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
    out: NDArray[np.float32] = reproblas.conv2d(img, w, padding=1, stride=(1, 1))
    gx: NDArray[np.float32] = reproblas.conv2d_grad_input(out, w, img.shape, padding="same")
    gw: NDArray[np.float32] = reproblas.conv2d_grad_weight(img, out, w.shape, padding=1)
    gb: NDArray[np.float32] = reproblas.conv2d_grad_bias(out, order="pairwise")
    # NumPy's conventions: lists of floats, axis/keepdims, out=, an unbatched (C, H, W) image
    rows = reproblas.sum(a32, axis=1, keepdims=True, order="pairwise")
    norms = reproblas.nrm2(a32, axis=(0, 1))
    dots = reproblas.dot(a32, a32, axis=-1, out=np.empty(8, np.float32))
    listed = reproblas.asum([1.0, -2.0])
    where = reproblas.iamax(a32, axis=0)
    into: NDArray[np.float32] = reproblas.gemm(1.0, a32, a32, out=np.empty((8, 8), np.float32))
    into = reproblas.gemv(1.0, a32, v32, out=np.empty(8, np.float32))
    into = reproblas.trsv(np.tril(a32), v32, lower=True, out=np.empty(8, np.float32))
    into = reproblas.matmul(a32, a32, out=np.empty((8, 8), np.float32))
    one: NDArray[np.float32] = reproblas.conv2d(img[0], w, padding=1,
                                                 out=np.empty((4, 6, 6), np.float32))
    assert rows.shape == (8, 1) and norms.ndim == 0 and dots.shape == (8,) and listed == 3.0
    assert where.shape == (8,)
    assert into.shape == (8, 8) and one.shape == (4, 6, 6)
    orders: dict[str, int] = reproblas.ORDERS
    paths: list[str] = reproblas.isa_names()
    best: str = reproblas.best_isa()
    folders: list[str] = [reproblas.get_include(), reproblas.get_library_dir()]
    version: str = reproblas.__version__
    assert s64.dtype == np.float64 and s32.dtype == np.float32 and d64 >= 0 and n64 >= 0
    assert 0 <= i < 16 and y64.shape == z64.shape == (16,) and c32.shape == r32.shape
    assert g32.shape == (8,) and m.shape == (8, 8) and b32.shape == (8, 8)
    assert out.shape == (2, 4, 6, 6) and gx.shape == img.shape and gw.shape == w.shape
    assert gb.shape == (4,) and set(orders) == {"sequential", "pairwise"} and best in paths
    assert folders and version


def torch_usage() -> None:
    import torch

    import reproblas.torch as rt

    x = torch.randn(4, 3, dtype=torch.float64)
    weight = torch.randn(5, 3, dtype=torch.float64)
    y: torch.Tensor = rt.linear(x, weight, None, order="pairwise")
    p: torch.Tensor = rt.matmul(x, weight.T)
    img = torch.randn(1, 2, 5, 5)
    c: torch.Tensor = rt.conv2d(img, torch.randn(3, 2, 3, 3), padding="same")
    lin: rt.Linear = rt.Linear(3, 5, dtype=torch.float64, order="pairwise")
    conv: rt.Conv2d = rt.Conv2d(2, 3, 3, padding=1)
    lin2: rt.Linear = rt.Linear.from_torch(torch.nn.Linear(3, 5))
    conv2: rt.Conv2d = rt.Conv2d.from_torch(torch.nn.Conv2d(2, 3, 3), order="pairwise")
    model: torch.nn.Sequential = rt.convert(torch.nn.Sequential(torch.nn.Linear(3, 2)))
    assert y.shape == (4, 5) and p.shape == (4, 5) and c.shape == (1, 3, 5, 5)
    assert lin.order == "pairwise" and conv(img).shape == (1, 3, 5, 5)
    assert lin2.order == "sequential" and conv2.order == "pairwise"
    assert isinstance(model[0], rt.Linear)
