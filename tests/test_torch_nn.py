"""reproblas.torch functional ops (docs/contract.md §5.7): each against a literal NumPy
reference of its written graph (bitwise), against PyTorch (close), gradcheck and gradgradcheck
in float64, bits across thread counts and CPU paths, batch invariance, bad input."""
import hashlib
import math

import numpy as np
import pytest

import crlibm_py
import reproblas
from reproblas import _core
from test_reproblas_reference import same_bits

torch = pytest.importorskip("torch", reason="needs PyTorch (pip install -e '.[torch]')")
import reproblas.torch as rt  # noqa: E402
from reproblas.torch._elementwise import float64_reference  # noqa: E402

F = torch.nn.functional
ORDERS = ["sequential", "pairwise"]
ISAS = [name for name in _core.isa_names() if _core.isa_code(name) >= 0]
CR_ISAS = [name for name in crlibm_py.isa_names() if crlibm_py.isa_supported(name)]
f32 = np.float32


def data(*shape, seed=0, scale=3.0, dtype=torch.float32):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(shape, generator=g, dtype=torch.float64) * scale).to(dtype)


def cr(name, a):
    return crlibm_py.ufuncs[name](np.ascontiguousarray(a, dtype=f32))


def rs(a, axis, order, keepdims=True):
    return reproblas.sum(np.ascontiguousarray(a), order, axis=axis, keepdims=keepdims)


def bits_equal(t, a):
    return same_bits(t.detach().contiguous().numpy(), np.asarray(a))


# ---- literal references of the written graphs ----

@pytest.mark.parametrize("order", ORDERS)
def test_softmax_family_is_its_graph(order):
    x = data(6, 37, seed=1)
    x[2, 5] = -0.0
    xn = x.numpy()
    m = xn.max(axis=1, keepdims=True) + f32(0)
    e = cr("exp", xn - m)
    s = rs(e, 1, order)
    assert bits_equal(rt.softmax(x, 1, order=order), e / s)
    z = xn - m
    y = z - cr("log", s)
    assert bits_equal(rt.log_softmax(x, -1, order=order), y)
    assert bits_equal(rt.logsumexp(x, 1, order=order), (cr("log", s) + m)[:, 0])
    # the written derivatives
    g = data(6, 37, seed=2)
    gn = g.numpy()
    xs = x.clone().requires_grad_()
    ys = rt.softmax(xs, 1, order=order)
    ys.backward(g)
    yn = ys.detach().numpy()
    assert bits_equal(xs.grad, yn * (gn - rs(gn * yn, 1, order)))
    xl = x.clone().requires_grad_()
    yl = rt.log_softmax(xl, 1, order=order)
    yl.backward(g)
    assert bits_equal(xl.grad, gn - cr("exp", yl.detach().numpy()) * rs(gn, 1, order))


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_kernel_path_is_the_graph(order, reduction):
    """Class-index cross entropy of (N, C) logits without weight or smoothing skips the
    composed graph's nodes: its loss and first-order gradient have that graph's bits
    (ignored targets, infinite logits, a zero incoming gradient), and a graph-building
    backward agrees."""
    from reproblas.torch import _nn
    g0 = torch.Generator().manual_seed(31)
    x = torch.randn(9, 7, generator=g0) * 4
    x[1, 2], x[2, :] = math.inf, -math.inf
    t = torch.randint(0, 7, (9,), generator=g0)
    t[3] = t[6] = -100
    for gout in (torch.tensor(0.75), torch.tensor(0.0)):
        g = gout if reduction != "none" else torch.full((9,), float(gout))
        res = []
        for fn in (lambda a: rt.cross_entropy(a, t, reduction=reduction, order=order),
                   lambda a: _nn._nll(_nn.log_softmax(a, 1, order=order), t, None, -100,
                                      reduction, order, "cross_entropy")[0]):
            xr = x.clone().requires_grad_()
            out = fn(xr)
            res.append([out, *torch.autograd.grad(out, xr, g)])
        assert type(res[0][0].grad_fn).__name__ == "_CrossEntropyBackward"
        for a, b in zip(*res):
            assert bits_equal(a, b.detach())
        xr = x.clone().requires_grad_()
        (graph,) = torch.autograd.grad(rt.cross_entropy(xr, t, reduction=reduction,
                                                        order=order), xr, g, create_graph=True)
        assert graph.grad_fn is not None and bits_equal(graph, res[0][1])
    with pytest.raises(IndexError, match="outside"):
        rt.cross_entropy(x, torch.full((9,), 7), reduction=reduction)


def test_logsumexp_infinities_match_pytorch():
    x = torch.tensor([[-math.inf, -math.inf], [math.inf, 1.0], [0.0, -math.inf]])
    torch.testing.assert_close(rt.logsumexp(x, 1), torch.logsumexp(x, 1))
    assert rt.logsumexp(torch.zeros(3, 0), 1).tolist() == [-math.inf] * 3


@pytest.mark.parametrize("order", ORDERS)
def test_norms_are_their_graph(order):
    x = data(5, 3, 24, seed=3)
    w, b = data(3, 24, seed=4), data(3, 24, seed=5)
    xn, wn, bn = x.numpy(), w.numpy(), b.numpy()
    n = f32(72)
    mu = rs(xn, (1, 2), order) / n
    d = xn - mu
    r = cr("rsqrt", rs(d * d, (1, 2), order) / n + f32(1e-5))
    assert bits_equal(rt.layer_norm(x, (3, 24), w, b, order=order), d * r * wn + bn)
    r = cr("rsqrt", rs(xn * xn, 2, order) / f32(24) + np.finfo(f32).eps)
    assert bits_equal(rt.rms_norm(x, 24, w[0], order=order), xn * r * wn[0])
    r = cr("rsqrt", rs(xn * xn, 2, order) / f32(24) + f32(1e-6))
    assert bits_equal(rt.rms_norm(x, [24], eps=1e-6, order=order), xn * r)


@pytest.mark.parametrize("order", ORDERS)
def test_reductions_are_their_graph(order):
    x = data(4, 5, 6, seed=6, dtype=torch.float64)
    xn = x.numpy()
    assert bits_equal(rt.sum(x, (0, 2), order=order), rs(xn, (0, 2), order, False))
    assert bits_equal(rt.sum(x, order=order), rs(xn, (0, 1, 2), order, False))
    assert bits_equal(rt.mean(x, 1, keepdim=True, order=order), rs(xn, 1, order) / 5.0)
    mu = rs(xn, (1, 2), order) / 30.0
    d = xn - mu
    assert bits_equal(rt.var(x, (1, 2), order=order), rs(d * d, (1, 2), order, False) / 29.0)
    assert bits_equal(rt.var(x, -1, correction=0, order=order),
                      rs((xn - rs(xn, 2, order) / 6.0) ** 2, 2, order, False) / 6.0)


def test_activations_are_their_graph():
    x = data(1000, seed=7, scale=6.0)
    x[:4] = torch.tensor([0.0, -0.0, 100.0, -100.0])
    xn = x.numpy()
    sig = f32(1) / (f32(1) + cr("exp", -xn))
    assert bits_equal(rt.sigmoid(x), sig)
    assert bits_equal(rt.silu(x), xn * sig)
    c = f32(1 / math.sqrt(2))
    assert bits_equal(rt.gelu(x), (xn * f32(0.5)) * (f32(1) + cr("erf", xn * c)))
    inner = (xn + ((xn * xn) * xn) * f32(0.044715)) * f32(math.sqrt(2 / math.pi))
    assert bits_equal(rt.gelu(x, approximate="tanh"),
                      (xn * f32(0.5)) * (f32(1) + cr("tanh", inner)))
    for name in ("exp", "sin", "cos", "tanh", "erf"):
        assert bits_equal(getattr(rt, name)(x), cr(name, xn)), name
    for name in ("log", "rsqrt"):
        assert bits_equal(getattr(rt, name)(x.abs()), cr(name, np.abs(xn))), name
    assert bits_equal(rt.relu(x), np.where(xn < 0, f32(0), xn))


@pytest.mark.parametrize("order", ORDERS)
def test_losses_are_their_graph(order):
    x = data(6, 9, seed=8)
    t = torch.tensor([3, 0, -100, 8, 3, 1])
    w = data(9, seed=9).abs()
    xn, tn, wn = x.numpy(), t.numpy(), w.numpy()
    lp = rt.log_softmax(x, 1, order=order).numpy()
    valid = tn != -100
    safe = np.where(valid, tn, 0)
    picked = lp[np.arange(6), safe]
    wt = np.where(valid, wn[safe], f32(0))
    l_ = np.where(valid, -(wt * picked), f32(0))
    assert bits_equal(rt.cross_entropy(x, t, w, reduction="none", order=order), l_)
    nll = reproblas.sum(l_, order) / reproblas.sum(wt, order)
    assert bits_equal(rt.cross_entropy(x, t, w, order=order), nll)
    smooth = np.where(valid, -rs(lp * wn, 1, order, False), f32(0))
    expected = nll * f32(0.75) + (reproblas.sum(smooth, order) / reproblas.sum(wt, order)) * \
        f32(0.25 / 9)
    assert bits_equal(rt.cross_entropy(x, t, w, label_smoothing=0.25, order=order), expected)
    l0 = np.where(valid, -picked, f32(0))
    assert bits_equal(rt.nll_loss(torch.from_numpy(lp), t, order=order),
                      reproblas.sum(l0, order) / f32(5))
    y = data(6, 9, seed=10)
    d = xn - y.numpy()
    assert bits_equal(rt.mse_loss(x, y, order=order), reproblas.sum((d * d).ravel(), order) /
                      f32(54))
    assert bits_equal(rt.mse_loss(x, y, "sum", order=order),
                      reproblas.sum((d * d).ravel(), order))


# ---- against PyTorch ----

CASES = [
    ("softmax", lambda t: rt.softmax(t, 1), lambda t: F.softmax(t, 1)),
    ("log_softmax", lambda t: rt.log_softmax(t, -1), lambda t: F.log_softmax(t, -1)),
    ("logsumexp", lambda t: rt.logsumexp(t, (0, 2), keepdim=True),
     lambda t: torch.logsumexp(t, (0, 2), keepdim=True)),
    ("sigmoid", rt.sigmoid, torch.sigmoid),
    ("silu", rt.silu, F.silu),
    ("gelu", rt.gelu, F.gelu),
    ("gelu_tanh", lambda t: rt.gelu(t, "tanh"), lambda t: F.gelu(t, approximate="tanh")),
    ("relu", rt.relu, torch.relu),
    ("tanh", rt.tanh, torch.tanh), ("exp", rt.exp, torch.exp), ("sin", rt.sin, torch.sin),
    ("cos", rt.cos, torch.cos), ("erf", rt.erf, torch.erf),
    ("log", lambda t: rt.log(t.abs() + 0.5), lambda t: torch.log(t.abs() + 0.5)),
    ("rsqrt", lambda t: rt.rsqrt(t.abs() + 0.5), lambda t: torch.rsqrt(t.abs() + 0.5)),
    ("sum", lambda t: rt.sum(t, 1), lambda t: t.sum(1)),
    ("mean", lambda t: rt.mean(t, (0, 2)), lambda t: t.mean((0, 2))),
    ("var", lambda t: rt.var(t, 2), lambda t: t.var(2)),
    ("layer_norm", lambda t: rt.layer_norm(t, (4, 5), torch.linspace(0.5, 2, 20).reshape(4, 5),
                                           torch.linspace(-1, 1, 20).reshape(4, 5)),
     lambda t: F.layer_norm(t, (4, 5), torch.linspace(0.5, 2, 20).reshape(4, 5),
                            torch.linspace(-1, 1, 20).reshape(4, 5))),
    ("rms_norm", lambda t: rt.rms_norm(t, (5,), torch.linspace(0.5, 2, 5)),
     lambda t: F.rms_norm(t, (5,), torch.linspace(0.5, 2, 5))),
    ("mse_loss", lambda t: rt.mse_loss(t, t.detach().flip(0)),
     lambda t: F.mse_loss(t, t.detach().flip(0))),
]


@pytest.mark.parametrize("name, ours, theirs", CASES, ids=[c[0] for c in CASES])
def test_close_to_pytorch(name, ours, theirs):
    x = data(3, 4, 5, seed=11)
    a, b = x.clone().requires_grad_(), x.clone().requires_grad_()
    ya, yb = ours(a), theirs(b)
    assert ya.shape == yb.shape and ya.dtype == yb.dtype
    g = data(*ya.shape, seed=12)
    ya.backward(g)
    yb.backward(g)
    torch.testing.assert_close(ya, yb, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(a.grad, b.grad, rtol=1e-4, atol=1e-5)


LOSS_CASES = [dict(), dict(reduction="sum"), dict(reduction="none"), dict(label_smoothing=0.1),
              dict(label_smoothing=0.2, weight=torch.linspace(0.2, 2, 7)),
              dict(label_smoothing=0.2, reduction="sum"),
              dict(label_smoothing=0.3, reduction="none", weight=torch.linspace(0.2, 2, 7)),
              dict(ignore_index=2), dict(weight=torch.linspace(0.2, 2, 7))]


@pytest.mark.parametrize("kw", LOSS_CASES)
def test_cross_entropy_and_nll_close_to_pytorch(kw):
    for shape, t in (((5, 7), torch.tensor([1, 0, -100, 6, 2])),
                     ((2, 7, 3), torch.tensor([[1, -100, 2], [6, 6, 0]])),
                     ((7,), torch.tensor(4))):
        x = data(*shape, seed=13)
        t = torch.where(t == -100, kw.get("ignore_index", -100), t)
        a, b = x.clone().requires_grad_(), x.clone().requires_grad_()
        ya, yb = rt.cross_entropy(a, t, **kw), F.cross_entropy(b, t, **kw)
        ya.sum().backward()
        yb.sum().backward()
        torch.testing.assert_close(ya, yb, rtol=1e-5, atol=1e-6)
        torch.testing.assert_close(a.grad, b.grad, rtol=1e-4, atol=1e-6)
        if "label_smoothing" not in kw:
            lp = F.log_softmax(x, 0 if x.ndim == 1 else 1)
            torch.testing.assert_close(rt.nll_loss(lp, t, **kw), F.nll_loss(lp, t, **kw),
                                       rtol=1e-5, atol=1e-6)
    p = F.softmax(data(5, 7, seed=14), 1)
    x = data(5, 7, seed=15)
    for smoothing in (0.0, 0.2):
        torch.testing.assert_close(rt.cross_entropy(x, p, label_smoothing=smoothing),
                                   F.cross_entropy(x, p, label_smoothing=smoothing))


# ---- gradients in float64 ----

def _all_ops():
    w = torch.linspace(0.5, 2, 5, dtype=torch.float64, requires_grad=True)
    b = torch.linspace(-1, 1, 5, dtype=torch.float64, requires_grad=True)
    t = torch.tensor([[1, -100, 4], [0, 3, 3]])
    return [
        lambda x: rt.softmax(x, 1), lambda x: rt.log_softmax(x, 2),
        lambda x: rt.logsumexp(x, (1, 2)), lambda x: rt.sigmoid(x), lambda x: rt.silu(x),
        lambda x: rt.gelu(x), lambda x: rt.gelu(x, "tanh"), lambda x: rt.tanh(x),
        lambda x: rt.exp(x), lambda x: rt.sin(x), lambda x: rt.cos(x), lambda x: rt.erf(x),
        lambda x: rt.log(x * x + 0.5), lambda x: rt.rsqrt(x * x + 0.5),
        lambda x: rt.layer_norm(x, 5, w, b), lambda x: rt.rms_norm(x, (3, 5)),
        lambda x: rt.rms_norm(x, 5, w), lambda x: rt.cross_entropy(x, t, label_smoothing=0.1),
        lambda x: rt.cross_entropy(x, t, weight=w, reduction="sum"),
    ]


@pytest.mark.parametrize("order", ORDERS)
def test_gradcheck_and_gradgradcheck_float64(order):
    """Every derivative formula, checked in float64 (the crlibm functions replaced by NumPy's
    float64 ones for this check: the graphs and derivatives are the code under test)."""
    x = data(2, 5, 3, seed=16, scale=1.0, dtype=torch.float64).requires_grad_()
    xt = x.detach().transpose(1, 2).requires_grad_()  # (2, 3, 5), strided, for the norms
    with float64_reference():
        for i, op in enumerate(_all_ops()):
            xx = x if i < 14 or i > 16 else xt
            assert torch.autograd.gradcheck(op, (xx,)), i
            assert torch.autograd.gradgradcheck(op, (xx,)), i
    # the ops without transcendental functions take float64 directly
    y = data(2, 5, 3, seed=17, dtype=torch.float64).requires_grad_()
    t = torch.tensor([[1, -100, 4], [0, 3, 3]])
    target = data(5, 3, seed=23, dtype=torch.float64)  # broadcast over the first axis
    for op in (lambda a: rt.sum(a, (0, 2), order=order), lambda a: rt.mean(a, 1, order=order),
               lambda a: rt.var(a, (1, 2), order=order), rt.relu,
               lambda a: rt.mse_loss(a, target, order=order),
               lambda a: rt.nll_loss(a, t, order=order)):
        assert torch.autograd.gradcheck(op, (y,))
        assert torch.autograd.gradgradcheck(op, (y,))


def test_gradient_penalty_through_a_block_matches_pytorch():
    """A transformer-like block (linear, layer_norm, gelu, softmax, cross_entropy) with a
    gradient penalty: stock PyTorch's value, to float32 rounding."""
    torch.manual_seed(0)
    lin = torch.nn.Linear(6, 8)
    x0 = data(4, 6, seed=18)
    t = torch.tensor([1, 7, 0, 3])
    grads = []
    for f in ((rt.linear, rt.layer_norm, rt.gelu, rt.softmax, rt.cross_entropy),
              (F.linear, F.layer_norm, F.gelu, F.softmax, F.cross_entropy)):
        linear, ln, gelu, softmax, ce = f
        lin.zero_grad()
        x = x0.clone().requires_grad_()
        h = gelu(ln(linear(x, lin.weight, lin.bias), (8,)))
        loss = ce(h * softmax(h, 1), t)
        (gx,) = torch.autograd.grad(loss, x, create_graph=True)
        (loss + gx.pow(2).sum()).backward()
        grads.append([lin.weight.grad.clone(), lin.bias.grad.clone(), x.grad.clone()])
    for a, b in zip(*grads):
        torch.testing.assert_close(a, b, rtol=1e-4, atol=1e-6)


# ---- same bits everywhere ----

def _workload(order):
    """Forward and backward of every op on rows long enough to split across threads."""
    digest = hashlib.sha256()
    x = data(6, 700, seed=19).requires_grad_()
    t = torch.tensor([1, 699, -100, 5, 0, 42])
    w = data(700, seed=20)
    outs = [rt.softmax(x, 1, order=order), rt.log_softmax(x, 1, order=order),
            rt.logsumexp(x, 1, order=order), rt.layer_norm(x, 700, w, w, order=order),
            rt.rms_norm(x, 700, w, order=order), rt.gelu(x), rt.gelu(x, "tanh"), rt.silu(x),
            rt.var(x, 1, order=order), rt.mean(x, 0, order=order), rt.sum(x, order=order),
            rt.cross_entropy(x, t, label_smoothing=0.1, order=order),
            rt.mse_loss(x, x.detach().flip(0), order=order)]
    total = None
    for o in outs:
        digest.update(o.detach().numpy().tobytes())
        s = rt.sum(o * o, order=order)
        total = s if total is None else total + s
    (gx,) = torch.autograd.grad(total, x, create_graph=True)
    digest.update(gx.detach().numpy().tobytes())
    (ggx,) = torch.autograd.grad(rt.sum(gx * gx, order=order), x)
    digest.update(ggx.numpy().tobytes())
    return digest.hexdigest()


@pytest.mark.parametrize("order", ORDERS)
def test_bits_across_threads_and_paths(monkeypatch, order):
    torch_threads = torch.get_num_threads()
    found = {}
    try:
        for tuning in ({}, dict(l1=(64, 50), l3=(2, 3, 5, 1))):
            with _core.tuning(**tuning):
                for isa, cr_isa in zip(ISAS, CR_ISAS + CR_ISAS[-1:] * len(ISAS)):
                    monkeypatch.setenv("REPROBLAS_ISA", isa)
                    monkeypatch.setenv("CRLIBM_ISA", cr_isa)
                    for threads in (1, 2, 3):
                        torch.set_num_threads(threads)
                        monkeypatch.setenv("REPROBLAS_NUM_THREADS", str(threads))
                        found[(str(tuning), isa, cr_isa, threads)] = _workload(order)
    finally:
        torch.set_num_threads(torch_threads)
    assert len(set(found.values())) == 1, found


def test_a_row_does_not_depend_on_the_batch():
    x = data(9, 300, seed=21)
    t = torch.tensor([3, 1, 4, 1, 5, 9, 2, 6, 5])
    w = data(300, seed=22)
    for op in (lambda a, _: rt.softmax(a, 1), lambda a, _: rt.log_softmax(a, 1),
               lambda a, _: rt.logsumexp(a, 1), lambda a, _: rt.layer_norm(a, 300, w, w),
               lambda a, _: rt.rms_norm(a, 300, w), lambda a, _: rt.var(a, 1),
               lambda a, tt: rt.cross_entropy(a, tt, reduction="none", label_smoothing=0.1)):
        whole = op(x, t)
        for i in (0, 4, 8):
            assert torch.equal(op(x[i:i + 1], t[i:i + 1])[0], whole[i])
            assert torch.equal(op(x[i:], t[i:])[0], whole[i])


# ---- bad input ----

def test_bad_input_is_a_clear_error():
    x = data(3, 4)
    with pytest.raises(TypeError, match="float32 only"):
        rt.softmax(x.double(), 1)
    with pytest.raises(TypeError, match="float32 only"):
        rt.exp(x.double())
    with pytest.raises(TypeError, match="dtype torch.int64"):
        rt.sum(torch.ones(3, dtype=torch.int64))
    with pytest.raises(TypeError, match="torch.Tensor"):
        rt.gelu(np.ones(3, f32))
    with pytest.raises(ValueError, match="meta.*cpu"):
        rt.softmax(torch.ones(3, device="meta"), 0)
    with pytest.raises(ValueError, match="meta.*cpu"):
        rt.layer_norm(torch.ones(2, 3, device="meta"), 3)
    with pytest.raises(IndexError, match="out of range"):
        rt.softmax(x, 2)
    with pytest.raises(ValueError, match="normalized_shape"):
        rt.layer_norm(x, (3,))
    with pytest.raises(ValueError, match="weight has shape"):
        rt.rms_norm(x, 4, torch.ones(3))
    with pytest.raises(TypeError, match="mixed dtypes"):
        rt.mse_loss(x, x.double())
    with pytest.raises(ValueError, match="do not broadcast"):
        rt.mse_loss(x, data(2, 4))
    with pytest.raises(ValueError, match="reduction"):
        rt.cross_entropy(x, torch.tensor([0, 1, 2]), reduction="avg")
    with pytest.raises(IndexError, match="outside \\[0, 4\\)"):
        rt.cross_entropy(x, torch.tensor([0, 4, 2]))
    with pytest.raises(IndexError, match="outside"):
        rt.nll_loss(x, torch.tensor([0, -1, 2]))
    with pytest.raises(ValueError, match="target has shape"):
        rt.cross_entropy(x, torch.tensor([0, 1]))
    with pytest.raises(TypeError, match="class indices"):
        rt.nll_loss(x, torch.tensor([True, False, True]))
    with pytest.raises(ValueError, match="label_smoothing"):
        rt.cross_entropy(x, torch.tensor([0, 1, 2]), label_smoothing=1.5)
    with pytest.raises(ValueError, match="approximate"):
        rt.gelu(x, "erf")
    with pytest.raises(ValueError, match="torch.softmax"):
        rt.softmax(x, 1, order="tree")
    with pytest.raises(TypeError, match="dim must be an int"):
        rt.softmax(x, (0, 1))


@pytest.mark.skipif(not torch.cuda.is_available(),
                    reason="needs a CUDA device and a CUDA build of PyTorch")
def test_cuda_tensors_run_on_the_cuda_kernels_or_say_what_to_install():
    """CUDA tensors run on reproblas's CUDA kernels through CuPy (tests/test_torch_cuda_gpu.py
    compares their bits with the CPU's); without CuPy each op says what to install instead of
    computing elsewhere or silently on PyTorch's kernels."""
    try:
        import cupy  # noqa: F401
        have_cupy = True
    except ImportError:
        have_cupy = False
    x = torch.ones(2, 3, device="cuda")
    for call in (lambda: rt.softmax(x, 1), lambda: rt.exp(x), lambda: rt.sum(x),
                 lambda: rt.layer_norm(x, 3), lambda: rt.linear(x, x),
                 lambda: rt.cross_entropy(x, torch.zeros(2, dtype=torch.long, device="cuda"))):
        if have_cupy:
            assert call().device == x.device
        else:
            with pytest.raises(RuntimeError, match="cuda.*pip install cupy-cuda12x"):
                call()
