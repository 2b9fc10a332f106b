"""reproblas.torch: autograd functions and modules on reproblas (skipped without torch).

Forward and backward results are compared bit for bit with the reproblas routines
(and the gradient sums with reproblas.dot/sum over the documented term orders),
loosely with stock PyTorch, with torch.autograd.gradcheck in float64, and training
runs are hashed (SHA-256 of every parameter and loss) across thread counts, CPU paths
and block sizes.
"""
import hashlib
import math

import numpy as np
import pytest

import reproblas
from reproblas import _core
from test_reproblas_reference import same_bits

torch = pytest.importorskip("torch", reason="needs PyTorch (pip install -e '.[torch]')")
import reproblas.torch as rt  # noqa: E402

ORDERS = ["sequential", "pairwise"]
DTYPES = [torch.float32, torch.float64]
ISAS = [name for name in _core.isa_names() if _core.isa_code(name) >= 0]


def spread(gen, shape, dtype):
    """Magnitudes over a wide range: any change of order changes the bits."""
    x = torch.randn(shape, generator=gen, dtype=torch.float64)
    return (x * 2.0 ** torch.randint(-10, 11, shape, generator=gen)).to(dtype)


@pytest.fixture
def gen():
    return torch.Generator().manual_seed(20261123)


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_linear_forward_and_backward_bits(gen, dtype, order):
    x = spread(gen, (3, 5, 7), dtype).requires_grad_()
    w = spread(gen, (4, 7), dtype).requires_grad_()
    b = spread(gen, (4,), dtype).requires_grad_()
    y = rt.linear(x, w, b, order=order)
    g = spread(gen, y.shape, dtype)
    y.backward(g)
    xn, wn, bn, gn = (t.detach().numpy() for t in (x, w, b, g))
    x2, g2 = xn.reshape(15, 7), gn.reshape(15, 4)
    s = reproblas.gemm(1.0, x2, wn, trans_b=True, order=order)
    assert same_bits(y.detach().numpy(), (s + bn).reshape(3, 5, 4))
    assert same_bits(x.grad.numpy(), reproblas.gemm(1.0, g2, wn, order=order).reshape(xn.shape))
    assert same_bits(w.grad.numpy(), reproblas.gemm(1.0, g2, x2, trans_a=True, order=order))
    # grad_bias[o]: the ordered sum of grad[r, o] over the flattened rows r.
    expected = np.array([reproblas.sum(np.ascontiguousarray(g2[:, o]), order) for o in range(4)])
    assert same_bits(b.grad.numpy(), expected)
    # ... and close to stock PyTorch.
    torch_x = x.detach().clone().requires_grad_()
    torch_w, torch_b = w.detach().clone().requires_grad_(), b.detach().clone().requires_grad_()
    torch.nn.functional.linear(torch_x, torch_w, torch_b).backward(g)
    tol = dict(rtol=1e-4, atol=1e-3) if dtype == torch.float32 else dict(rtol=1e-10, atol=1e-9)
    for ours, theirs in ((y, torch.nn.functional.linear(torch_x, torch_w, torch_b)),
                         (x.grad, torch_x.grad), (w.grad, torch_w.grad), (b.grad, torch_b.grad)):
        torch.testing.assert_close(ours, theirs.detach(), **tol)


@pytest.mark.parametrize("order", ORDERS)
def test_linear_bias_fast_path_is_the_general_gemm(gen, monkeypatch, order):
    """_core.linear_plain (C-contiguous x and w) gives the general gemm's bits; other
    layouts take the general path."""
    x, w, b = spread(gen, (6, 9), torch.float32), spread(gen, (5, 9), torch.float32), \
        spread(gen, (5,), torch.float32)
    x[0, :3] = torch.tensor([math.inf, -0.0, math.nan])
    calls = []
    real = _core.linear_plain
    monkeypatch.setattr(_core, "linear_plain", lambda *a: calls.append(1) or real(*a))
    fast = [rt.linear(x, w, b, order=order), rt.linear(x.t().contiguous().t(), w, b, order=order)]
    assert len(calls) == 2
    monkeypatch.setattr(_core, "linear_plain", lambda *a: None)
    for got in fast:
        assert same_bits(got.numpy(), rt.linear(x, w, b, order=order).numpy())


def test_linear_bias_ignores_the_callers_fp_environment():
    """The bias is added in the core (gemm with beta = 1), not by NumPy in the
    caller's floating-point environment: round-up or FTZ/DAZ changed the bits."""
    cases = [(torch.ones(1, 1), torch.ones(1, 1), torch.tensor([1e-8])),
             (torch.ones(1, 1), torch.tensor([[1e-39]]), torch.tensor([1e-39])),
             (torch.ones(1, 1, dtype=torch.float64), torch.tensor([[1e-310]], dtype=torch.float64),
              torch.tensor([1e-310], dtype=torch.float64))]

    def run():
        return [rt.linear(x, w, b).numpy().copy() for x, w, b in cases]

    want = run()
    assert want[0].view(np.uint32)[0, 0] == 0x3F800000  # 1 + 1e-8 rounds to 1
    assert want[1][0, 0] == np.float32(2e-39) and want[2][0, 0] == 2e-310
    for mxcsr in (0x1F80 | 0x4000, 0x1F80 | 0x8000 | 0x0040):  # round up; FTZ|DAZ
        got = _core.call_with_mxcsr(mxcsr, run)
        if got is None:
            pytest.skip("needs an x86 CPU (the MXCSR FTZ/DAZ bits exist on x86 only)")
        for g, w in zip(got[0], want):
            assert same_bits(g, w), hex(mxcsr)


def test_layouts_and_empty_shapes(gen):
    """Strided, transposed and expanded (stride-0) tensors give the bits of contiguous
    ones; empty batches and feature axes give empty results and +0 gradients."""
    x = spread(gen, (6, 10), torch.float32)[::2, 1::2].requires_grad_()  # strided view
    w = spread(gen, (5, 4), torch.float32).t().contiguous().t().requires_grad_()  # Fortran
    b = spread(gen, (4,), torch.float32).requires_grad_()
    y = rt.linear(x, w.t(), b)
    y.sum().backward()  # the gradient arrives as an expanded, stride-0 tensor
    xc, wc, bc = (t.detach().contiguous().requires_grad_() for t in (x, w.t(), b))
    yc = rt.linear(xc, wc, bc)
    yc.backward(torch.ones_like(yc))
    for ours, ref in ((y, yc), (x.grad, xc.grad), (w.grad.t(), wc.grad), (b.grad, bc.grad)):
        assert same_bits(ours.detach().contiguous().numpy(), ref.detach().numpy())
    empty = torch.ones(0, 5, requires_grad=True)
    bc.grad = None
    y = rt.linear(empty, wc, bc)
    assert y.shape == (0, 4)
    y.sum().backward()
    assert same_bits(bc.grad.numpy(), np.zeros(4, np.float32))
    y = rt.matmul(torch.ones(2, 0, requires_grad=True), torch.ones(0, 3))
    assert torch.equal(y, torch.zeros(2, 3))


@pytest.mark.parametrize("order", ORDERS)
def test_gradcheck_float64(gen, order):
    x = torch.randn(2, 3, 4, generator=gen, dtype=torch.float64, requires_grad=True)
    w = torch.randn(5, 4, generator=gen, dtype=torch.float64, requires_grad=True)
    b = torch.randn(5, generator=gen, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda *t: rt.linear(*t, order=order), (x, w, b))
    assert torch.autograd.gradcheck(lambda *t: rt.linear(*t, order=order), (x[0, 0], w))
    shapes = [((3, 4), (4, 2)), ((2, 1, 3, 4), (5, 4, 2)), ((4,), (2, 4, 3)), ((2, 3, 4), (4,)),
              ((4,), (4,)), ((1, 3, 4), (2, 1, 4, 2))]
    for sa, sb in shapes:
        a = torch.randn(sa, generator=gen, dtype=torch.float64, requires_grad=True)
        bb = torch.randn(sb, generator=gen, dtype=torch.float64, requires_grad=True)
        assert torch.autograd.gradcheck(lambda p, q: rt.matmul(p, q, order=order), (a, bb)), \
            (sa, sb)


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_matmul_broadcast_gradient_order(gen, dtype, order):
    """A gradient summed over broadcast batch entries is one ordered sum over
    (batch index, contracted index): reproblas.dot of the flattened terms."""
    a = spread(gen, (3, 4), dtype).requires_grad_()        # broadcast over the batch of b
    b = spread(gen, (2, 4, 5), dtype).requires_grad_()
    y = rt.matmul(a, b, order=order)
    assert same_bits(y.detach().numpy(), reproblas.matmul(a.detach().numpy(),
                                                          b.detach().numpy(), order=order))
    g = spread(gen, y.shape, dtype)
    y.backward(g)
    gn, an, bn = g.numpy(), a.detach().numpy(), b.detach().numpy()
    expected_a = np.array([[reproblas.dot(gn[:, i, :].ravel(), bn[:, k, :].ravel(), order)
                            for k in range(4)] for i in range(3)])
    assert same_bits(a.grad.numpy(), expected_a)
    expected_b = np.stack([reproblas.matmul(an.T.copy(), gn[t], order=order) for t in range(2)])
    assert same_bits(b.grad.numpy(), expected_b)


def test_arguments_are_checked():
    f32, f64 = torch.ones(2, 3), torch.ones(4, 3, dtype=torch.float64)
    with pytest.raises(TypeError, match="mixed dtypes"):
        rt.linear(f32, f64)
    with pytest.raises(TypeError, match="float32 or float64"):
        rt.linear(f32.half(), f32.half())
    with pytest.raises(TypeError, match="float32 or float64"):
        rt.matmul(torch.ones(2, 2, dtype=torch.int64), torch.ones(2, 2, dtype=torch.int64))
    with pytest.raises(TypeError, match="torch.Tensor"):
        rt.linear(np.ones((2, 3)), f32)
    with pytest.raises(ValueError, match="do not match"):
        rt.linear(f32, torch.ones(4, 2))
    with pytest.raises(ValueError, match="bias"):
        rt.linear(f32, torch.ones(4, 3), torch.ones(3))
    with pytest.raises(ValueError, match="order"):
        rt.linear(f32, torch.ones(4, 3), order="fast")
    with pytest.raises(ValueError, match="contracted"):
        rt.matmul(f32, f32)
    with pytest.raises(TypeError, match="dense"):
        rt.matmul(torch.eye(2).to_sparse(), torch.eye(2))
    with pytest.raises(ValueError, match="order"):
        rt.Linear(2, 3, order="tree")
    with pytest.raises(ValueError, match="padding_mode"):
        rt.Conv2d(1, 1, 3, padding_mode="reflect")
    with pytest.raises(ValueError, match="padding_mode"):
        rt.convert(torch.nn.Conv2d(1, 1, 3, padding_mode="circular"))
    with pytest.raises(TypeError, match="torch.nn.Module"):
        rt.convert([torch.nn.Linear(2, 2)])
    x4 = torch.ones(1, 1, 3, 3)
    for call in (lambda: rt.linear(None, f32), lambda: rt.linear(f32, None),
                 lambda: rt.matmul(f32, None), lambda: rt.conv2d(None, x4),
                 lambda: rt.conv2d(x4, None)):
        with pytest.raises(TypeError, match="torch.Tensor"):  # only a bias may be None
            call()


@pytest.mark.parametrize("order", ORDERS)
def test_matmul_of_two_vectors_is_0d(gen, order):
    a = spread(gen, (5,), torch.float64).requires_grad_()
    b = spread(gen, (5,), torch.float64).requires_grad_()
    y = rt.matmul(a, b, order=order)
    assert y.shape == torch.matmul(a, b).shape == ()
    assert same_bits(y.detach().numpy(), np.asarray(reproblas.dot(a.detach().numpy(),
                                                                  b.detach().numpy(), order)))
    y.backward()
    assert same_bits(a.grad.numpy(), b.detach().numpy())  # products by 1: exact


@pytest.mark.parametrize("make", [
    lambda nn: nn.Linear(6, 3), lambda nn: nn.Linear(6, 3, bias=False),
    lambda nn: nn.Conv2d(4, 6, 3, stride=2, padding=1, groups=2),
    lambda nn: nn.Conv2d(2, 3, (3, 1), padding="same", bias=False)])
def test_state_dicts_load_both_ways(make):
    """make(torch.nn) and make(reproblas.torch) build the same layer."""
    torch.manual_seed(3)
    theirs, ours, back = make(torch.nn), make(rt), make(torch.nn)
    assert not torch.equal(theirs.weight, ours.weight)
    ours.load_state_dict(theirs.state_dict())
    back.load_state_dict(ours.state_dict())
    assert ours.state_dict().keys() == theirs.state_dict().keys()
    for p, q, r in zip(theirs.parameters(), ours.parameters(), back.parameters()):
        assert torch.equal(p, q) and torch.equal(p, r)
    if isinstance(theirs, torch.nn.Linear):
        x = torch.randn(5, 6)
        torch.testing.assert_close(ours(x), theirs(x))


def test_convert_swaps_modules_and_shares_parameters():
    class Custom(torch.nn.Linear):  # a subclass may compute otherwise: kept only on request
        pass

    model = torch.nn.Sequential(torch.nn.Conv2d(1, 2, 3), torch.nn.ReLU(), torch.nn.Flatten(),
                                torch.nn.Sequential(torch.nn.Linear(8, 4), Custom(4, 4)),
                                torch.nn.Linear(4, 2, dtype=torch.float64))
    model.eval()
    params = list(model.parameters())
    with pytest.raises(TypeError, match=r"3\.1 \(.*Custom: a subclass of torch.nn.*Linear"):
        rt.convert(model)
    assert type(model[0]) is torch.nn.Conv2d  # nothing changed before the error
    same = rt.convert(model, order="pairwise", keep=Custom)
    assert same is model
    assert type(model[0]) is rt.Conv2d and type(model[3][0]) is rt.Linear
    assert type(model[3][1]) is Custom and type(model[1]) is rt.ReLU
    assert type(model[4]) is rt.Linear and model[4].weight.dtype == torch.float64
    assert all(p is q for p, q in zip(params, model.parameters()))
    assert not model[0].training and model[3][0].order == "pairwise"
    single = torch.nn.Linear(3, 3)
    swapped = rt.convert(single)
    assert type(swapped) is rt.Linear and swapped.weight is single.weight
    assert rt.convert(swapped) is swapped


def train_hash(make_model, make_data, steps=4, order="sequential"):
    """SHA-256 over every loss and the final parameters of a short SGD run."""
    torch.manual_seed(0)
    model = rt.convert(make_model(), order=order)
    inputs, targets = make_data()
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    digest = hashlib.sha256()
    for _ in range(steps):
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(model(inputs), targets)
        loss.backward()
        opt.step()
        digest.update(loss.detach().numpy().tobytes())
    for p in model.parameters():
        digest.update(p.detach().numpy().tobytes())
    return digest.hexdigest()


def hashes_over_configs(monkeypatch, run):
    """run() on every CPU path, 1..4 threads and block sizes (gemm and conv: chunks,
    kc, per-thread work) that split small products."""
    torch_threads = torch.get_num_threads()
    torch.set_num_threads(1)  # stock PyTorch's own ops (loss, ReLU, SGD) stay fixed
    found = {}
    try:
        for tuning, conv_tuning in [((0, 0, 0, 0), (0, 0, 0, 0)), ((2, 3, 5, 1), (3, 5, 1, -1))]:
            with _core.tuning(l3=tuning, conv=conv_tuning):
                for isa in ISAS:
                    monkeypatch.setenv("REPROBLAS_ISA", isa)
                    for threads in (1, 2, 3, 4):
                        monkeypatch.setenv("REPROBLAS_NUM_THREADS", str(threads))
                        found[(tuning, isa, threads)] = run()
    finally:
        torch.set_num_threads(torch_threads)
    return found


def assert_one_hash_per_order(monkeypatch, make_model, make_data):
    """Both orders: each gives one training hash on every configuration, and the two
    differ (the order reaches the layers' kernels)."""
    per_order = []
    for order in ORDERS:
        found = hashes_over_configs(monkeypatch,
                                    lambda: train_hash(make_model, make_data, order=order))
        assert len(set(found.values())) == 1, (order, found)
        per_order.append(found.popitem()[1])
    assert per_order[0] != per_order[1]


def test_mlp_training_is_bitwise_reproducible(monkeypatch):
    def make_model():
        return torch.nn.Sequential(torch.nn.Linear(12, 32), torch.nn.Tanh(),
                                   torch.nn.Linear(32, 32), torch.nn.ReLU(),
                                   torch.nn.Linear(32, 3))

    def make_data():
        g = torch.Generator().manual_seed(1)
        return torch.randn(40, 12, generator=g), torch.randn(40, 3, generator=g)

    assert_one_hash_per_order(monkeypatch, make_model, make_data)


def test_stock_pytorch_differs_where_reproblas_does_not(monkeypatch):
    """Stock PyTorch on this CPU: one row computed alone vs inside a batch, and a sum
    on 1 vs 2 threads. reproblas gives the same bits in each case; the test reports
    (skips) if stock PyTorch happens to agree with itself everywhere here."""
    torch.manual_seed(0)
    layer = torch.nn.Linear(512, 256)
    ours = rt.Linear.from_torch(layer)
    x = torch.randn(64, 512)
    v = torch.randn(1 << 20)
    torch_threads = torch.get_num_threads()
    stock_differs = []
    with torch.no_grad():
        assert torch.equal(ours(x)[:1], ours(x[:1]))
        stock_differs.append(not torch.equal(layer(x)[:1], layer(x[:1])))
        sums = []
        for threads in (1, 2):
            torch.set_num_threads(threads)
            monkeypatch.setenv("REPROBLAS_NUM_THREADS", str(threads))
            sums.append((v.sum(), reproblas.sum(v.numpy(), "pairwise")))
        torch.set_num_threads(torch_threads)
    assert same_bits(sums[0][1], sums[1][1])
    stock_differs.append(not torch.equal(sums[0][0], sums[1][0]))
    if not any(stock_differs):
        pytest.skip("stock PyTorch happened to give the same bits in every case on this CPU")


# ---- conv2d ----

@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_conv2d_forward_and_backward_bits(gen, dtype, order):
    args = dict(stride=(2, 1), padding=1, dilation=(1, 2), groups=2)
    x = spread(gen, (2, 4, 7, 9), dtype).requires_grad_()
    w = spread(gen, (6, 2, 3, 2), dtype).requires_grad_()
    b = spread(gen, (6,), dtype).requires_grad_()
    y = rt.conv2d(x, w, b, **args, order=order)
    g = spread(gen, y.shape, dtype)
    y.backward(g)
    xn, wn, bn, gn = (t.detach().numpy() for t in (x, w, b, g))
    pos = (args["stride"], args["padding"], args["dilation"], args["groups"])
    assert same_bits(y.detach().numpy(), reproblas.conv2d(xn, wn, bn, *pos, order=order))
    assert same_bits(x.grad.numpy(), reproblas.conv2d_grad_input(gn, wn, xn.shape, *pos,
                                                                 order=order))
    assert same_bits(w.grad.numpy(), reproblas.conv2d_grad_weight(xn, gn, wn.shape, *pos,
                                                                  order=order))
    assert same_bits(b.grad.numpy(), reproblas.conv2d_grad_bias(gn, order=order))
    tx, tw, tb = (t.detach().clone().requires_grad_() for t in (x, w, b))
    ty = torch.nn.functional.conv2d(tx, tw, tb, **args)
    ty.backward(g)
    tol = dict(rtol=1e-4, atol=1e-3) if dtype == torch.float32 else dict(rtol=1e-10, atol=1e-9)
    for ours, theirs in ((y, ty), (x.grad, tx.grad), (w.grad, tw.grad), (b.grad, tb.grad)):
        torch.testing.assert_close(ours.detach(), theirs.detach(), **tol)


def test_conv2d_gradcheck_and_module(gen):
    x = torch.randn(1, 2, 5, 5, generator=gen, dtype=torch.float64, requires_grad=True)
    w = torch.randn(3, 2, 3, 3, generator=gen, dtype=torch.float64, requires_grad=True)
    b = torch.randn(3, generator=gen, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda *t: rt.conv2d(*t, padding="same"), (x, w, b))
    layer = torch.nn.Conv2d(2, 3, 3, padding=1, dtype=torch.float64)
    torch.testing.assert_close(rt.Conv2d.from_torch(layer)(x[0]), layer(x[0]))


def test_cnn_training_is_bitwise_reproducible(monkeypatch):
    def make_model():
        return torch.nn.Sequential(torch.nn.Conv2d(1, 4, 3, padding=1), torch.nn.ReLU(),
                                   torch.nn.Conv2d(4, 4, 3, stride=2), torch.nn.Tanh(),
                                   torch.nn.Flatten(), torch.nn.Linear(4 * 4 * 4, 5))

    def make_data():
        g = torch.Generator().manual_seed(2)
        return torch.randn(6, 1, 10, 10, generator=g), torch.randn(6, 5, generator=g)

    assert_one_hash_per_order(monkeypatch, make_model, make_data)


def test_crlibm_takes_cpu_float32_tensors():
    """A CPU tensor goes through np.asarray: float32 is computed, float64 is the usual
    TypeError (not NumPy's failure to read a torch dtype)."""
    import crlibm_py
    x = torch.tensor([0.5, -2.0, 3.0])
    assert same_bits(crlibm_py.exp(x), crlibm_py.exp(x.numpy()))
    with pytest.raises(TypeError, match="cast it explicitly"):
        crlibm_py.exp(x.double())
