"""Interface details a user meets first: order names in any case, an invalid order's error
naming the routine, and the float32 loop listed in the raw ufuncs' `types`."""
import numpy as np
import pytest

import crlibm_py
import reproblas as rb
from crlibm_py import _ufuncs
from helpers import SUPPORTED_ISAS

RNG = np.random.default_rng(33)
V64 = np.array([1.0, 1e16, -1e16, 1.0, 1.0])  # sequential 2.0, pairwise 1.0
A32 = (RNG.standard_normal((40, 40)) + 40 * np.eye(40)).astype(np.float32)
B32 = RNG.standard_normal((40, 7)).astype(np.float32)
X32 = RNG.standard_normal(40).astype(np.float32)
IMG = RNG.standard_normal((2, 3, 9, 9))
W = RNG.standard_normal((4, 3, 3, 3))
GY = RNG.standard_normal((2, 4, 9, 9))

# routine name -> call(order) on inputs whose two orders generally give different bits
CALLS = {
    "sum": lambda o: rb.sum(V64, order=o),
    "asum": lambda o: rb.asum(V64, order=o),
    "dot": lambda o: rb.dot(V64, np.ones(5), order=o),
    "nrm2": lambda o: rb.nrm2(X32, order=o),
    "gemm": lambda o: rb.gemm(1.0, A32, B32, order=o),  # the small-call fast path
    "gemm_general": lambda o: rb.gemm(1.0, A32, B32, beta=1.0, c=np.ones((40, 7), np.float32),
                                      order=o),
    "gemv": lambda o: rb.gemv(1.0, A32, X32, order=o),
    "matmul": lambda o: rb.matmul(A32, B32, order=o),
    "trsv": lambda o: rb.trsv(np.tril(A32), X32, lower=True, order=o),
    "trsm": lambda o: rb.trsm(1.0, np.tril(A32), B32, lower=True, order=o),
    "conv2d": lambda o: rb.conv2d(IMG, W, padding=1, order=o),
    "conv2d_grad_input": lambda o: rb.conv2d_grad_input(GY, W, IMG.shape, padding=1, order=o),
    "conv2d_grad_weight": lambda o: rb.conv2d_grad_weight(IMG, GY, W.shape, padding=1,
                                                          order=o),
    "conv2d_grad_bias": lambda o: rb.conv2d_grad_bias(GY, order=o),
}


def _bits(value):
    a = np.asarray(value)
    return a.dtype, a.shape, a.tobytes()


@pytest.mark.parametrize("routine", sorted(CALLS))
def test_order_names_are_case_insensitive(routine):
    call = CALLS[routine]
    for spelled, name in (("Pairwise", "pairwise"), ("PAIRWISE", "pairwise"),
                          ("Sequential", "sequential"), ("SEQUENTIAL", "sequential")):
        assert _bits(call(spelled)) == _bits(call(name)), (routine, spelled)


def test_the_orders_still_differ():
    """The inputs above tell the orders apart, so a case-insensitive name is not ignored."""
    assert rb.sum(V64, order="Pairwise") == 1.0 and rb.sum(V64, order="SEQUENTIAL") == 2.0


@pytest.mark.parametrize("routine", sorted(CALLS))
@pytest.mark.parametrize("order", ["tree", "pair wise", "", None, 1, ["pairwise"]])
def test_an_invalid_order_names_the_routine(routine, order):
    name = routine.removesuffix("_general")
    with pytest.raises(ValueError, match=rf"reproblas\.{name}\b.*order="):
        CALLS[routine](order)


def test_torch_order_names():
    torch = pytest.importorskip("torch", reason="needs PyTorch (pip install -e '.[torch]')")
    import reproblas.torch as rt

    x = torch.tensor([[1.0, 1e16, -1e16, 1.0, 1.0]], dtype=torch.float64)
    w = torch.ones(1, 5, dtype=torch.float64)
    assert rt.linear(x, w, order="Pairwise").item() == 1.0
    assert rt.linear(x, w, order="SEQUENTIAL").item() == 2.0
    assert rt.Linear(5, 1, order="Pairwise").order.lower() == "pairwise"
    for call, name in ((lambda: rt.linear(x, w, order="tree"), "torch.linear"),
                       (lambda: rt.matmul(x, w.T, order="tree"), "torch.matmul"),
                       (lambda: rt.Linear(5, 1, order="tree"), "torch.Linear"),
                       (lambda: rt.convert(torch.nn.Linear(5, 1), order="tree"),
                        "torch.convert")):
        with pytest.raises(ValueError, match=rf"reproblas\.{name}\b.*order="):
            call()


def test_order_names_on_gpu_arrays(monkeypatch):
    """The CUDA path (emulated kernels) reads the order the same way: "Sequential" runs the
    sequential kernels, "PAIRWISE" the pairwise ones, with the CPU's bits."""
    from cuda_support import EmuDevice, emu_array, same_bits
    from repro_runtime import cuda as rt_cuda

    monkeypatch.setattr(rt_cuda, "_device", [EmuDevice()])
    a, b = A32[:24, :24], B32[:24]
    x = RNG.standard_normal(5000)
    for spelled, name in (("Sequential", "sequential"), ("PAIRWISE", "pairwise")):
        same_bits(rb.sum(emu_array(x), order=spelled), np.asarray(rb.sum(x, order=name)))
        same_bits(rb.gemm(1.0, emu_array(a), emu_array(b), order=spelled),
                  rb.gemm(1.0, a, b, order=name))
        same_bits(rb.matmul(emu_array(a), emu_array(b), order=spelled),
                  rb.matmul(a, b, order=name))
        same_bits(rb.trsm(1.0, emu_array(np.tril(a)), emu_array(b), lower=True, order=spelled),
                  rb.trsm(1.0, np.tril(a), b, lower=True, order=name))
        same_bits(rb.conv2d(emu_array(IMG), emu_array(W), padding=1, order=spelled),
                  rb.conv2d(IMG, W, padding=1, order=name))
    with pytest.raises(ValueError, match=r"reproblas\.sum\b.*order="):
        rb.sum(emu_array(x), order="tree")


@pytest.mark.parametrize("fname", crlibm_py.FUNCTIONS)
def test_ufunc_types_list_the_float32_loop(fname):
    ufunc = crlibm_py.ufuncs[fname]
    assert ufunc.types == ["f->f"] and ufunc.ntypes == 1


@pytest.mark.parametrize("isa", SUPPORTED_ISAS)
def test_ufunc_runs_the_path_loop(isa, monkeypatch):
    """Listing the loop in `types` changes nothing about which loop runs: the one that reads
    CRLIBM_ISA (int16 input promoted to float32, as before)."""
    monkeypatch.setenv("CRLIBM_ISA", isa)
    x = np.linspace(-3, 3, 101, dtype=np.float32)
    got = crlibm_py.ufuncs["exp"](x)
    assert _ufuncs.last_loop_isa() == isa
    assert got.dtype == np.float32 and np.array_equal(got, crlibm_py.exp(x))
    assert crlibm_py.ufuncs["exp"](np.arange(3, dtype=np.int16)).dtype == np.float32
