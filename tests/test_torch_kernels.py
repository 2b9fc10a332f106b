"""The fused C kernels of reproblas.torch (src/c/reproblas/nn.h) against the compositions that
define their ops (docs/contract.md §5.7): forward and first-order backward bit for bit (every
NaN equal to every NaN, §0.5) on random and adversarial inputs (±inf, NaN, ±0, subnormals,
huge), on every CPU path, on 1 and 3 threads with splits inside small operands; double
backward through the kernels equal to the composition's; and the kernels' bits independent of
the caller's floating-point state (§0.3)."""
import math

import numpy as np
import pytest

from reproblas import _core
from test_reproblas_reference import same_bits

torch = pytest.importorskip("torch", reason="needs PyTorch (pip install -e '.[torch]')")
import reproblas.torch as rt  # noqa: E402
from reproblas.torch import _elementwise as E  # noqa: E402
from reproblas.torch import _kernels as K  # noqa: E402
from reproblas.torch import _nn  # noqa: E402

ORDERS = ["sequential", "pairwise"]
ISAS = [name for name in _core.isa_names() if _core.isa_code(name) >= 0]
ACTIVATIONS = ["sigmoid", "silu", "gelu", "gelu_tanh"]
UNARY = ["exp", "log", "sin", "cos", "tanh", "erf", "rsqrt"]
SPECIAL = [0.0, -0.0, math.inf, -math.inf, math.nan, 1e-40, -1e-40, 1.4e-45, -1.4e-45,
           1.1754942e-38, 3.4e38, -3.4e38, 1e30, -1e30, 88.8, -88.8, 103.9, -103.9, 20.0,
           -20.0, 9.0, -9.0, 13.0, -13.0, 1e-20, -1e-20, 0.5, -0.5]


def same(t, u):
    return same_bits(t.detach().contiguous().numpy(), u.detach().contiguous().numpy())


def adversarial(n, seed, scale=4.0):
    """n values: the special ones, then random normals of three magnitudes."""
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, generator=g, dtype=torch.float64)
    x[n // 3: 2 * n // 3] *= 40.0
    x[2 * n // 3:] *= 1e-3
    x = (x * scale).float()
    x[:len(SPECIAL)] = torch.tensor(SPECIAL)
    return x[torch.randperm(n, generator=g)]


@pytest.fixture(params=[(isa, threads) for isa in ISAS for threads in (1, 3)],
                ids=lambda p: f"{p[0]}-{p[1]}t")
def path(request, monkeypatch):
    """Every CPU path, on 1 thread and on 3 threads with parts of a few elements."""
    isa, threads = request.param
    monkeypatch.setenv("REPROBLAS_ISA", isa)
    monkeypatch.setenv("REPROBLAS_NUM_THREADS", str(threads))
    with _core.tuning(l1=(64, 50) if threads > 1 else ()):
        yield isa, threads


def graph_and_grad(fn, x, g):
    xr = x.clone().requires_grad_()
    y = fn(xr)
    (gx,) = torch.autograd.grad(y, xr, g)
    return y, gx


@pytest.mark.parametrize("name", ACTIVATIONS)
def test_activations_are_their_composition(path, name):
    x = adversarial(3 * 512 + 45, seed=1)
    g = adversarial(x.numel(), seed=2, scale=1.0)
    g[::7] = 1.0
    y_ref, gx_ref = graph_and_grad(_nn._GRAPHS[name], x, g)
    y, gx = graph_and_grad(lambda t: _nn._activation(name, t), x, g)
    assert type(y.grad_fn).__name__ == "_ActivationBackward"
    assert same(y, y_ref), name
    assert same(gx, gx_ref), name
    # a tensor view with strides and a 2-D shape: the same values per element
    x2 = x[:1500].reshape(30, 50).t()
    y2, _ = graph_and_grad(lambda t: _nn._activation(name, t), x2, torch.ones(50, 30))
    assert same(y2, _nn._GRAPHS[name](x2))


@pytest.mark.parametrize("name", UNARY)
def test_unary_backward_kernels_are_the_written_derivative(path, name):
    x = adversarial(2 * 512 + 3, seed=3)
    if name in ("log", "rsqrt"):
        x = x.abs()
    g = adversarial(x.numel(), seed=4, scale=1.0)
    fn = getattr(rt, name)
    xr = x.clone().requires_grad_()
    y = fn(xr)
    (first,) = torch.autograd.grad(y, xr, g, retain_graph=True)  # the kernel
    (graph,) = torch.autograd.grad(y, xr, g, create_graph=True)  # the formula, differentiable
    assert graph.requires_grad and not first.requires_grad
    assert same(first, graph), name
    # the formula, written out with PyTorch's arithmetic
    yv = y.detach()
    c = E._const(2.0 / math.sqrt(math.pi), x)
    formula = {"exp": lambda: g * yv, "log": lambda: g / x, "sin": lambda: g * rt.cos(x),
               "cos": lambda: -(g * rt.sin(x)), "tanh": lambda: g * (1.0 - yv * yv),
               "erf": lambda: g * (rt.exp(-(x * x)) * c),
               "rsqrt": lambda: g * (((yv * yv) * yv) * -0.5)}[name]()
    assert same(first, formula), name


def softmax_cases(seed):
    g = torch.Generator().manual_seed(seed)
    x = (torch.randn(7, 5, 67, generator=g) * 6).float()
    x[0, 0, :6] = torch.tensor([math.inf, 0.0, -0.0, 1e-40, 3e38, -3e38])
    x[0, 1, :] = -math.inf
    x[0, 2, 4] = math.nan
    x[0, 3, :] = -0.0
    x[0, 4, :] = torch.tensor([-1e30] * 66 + [1e30])
    x[1, 0, :] = torch.linspace(-110, 0, 67)  # subnormal and zero results
    x[1, 1, :] = 1e-42
    return x


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
def test_softmax_family_is_its_composition(path, order, op):
    x = softmax_cases(5)
    g = torch.randn(x.shape, generator=torch.Generator().manual_seed(6))
    g[0, 0, 0] = math.inf
    fn = getattr(rt, op)
    graph = getattr(_nn, f"_{op}_graph")
    for dim in (-1, 1, 0):
        xr = x.clone().requires_grad_()
        y = fn(xr, dim, order=order)
        assert same(y, graph(x, dim, order)), (op, dim)
        (first,) = torch.autograd.grad(y, xr, g, retain_graph=True)
        (formula,) = torch.autograd.grad(y, xr, g, create_graph=True)
        assert same(first, formula), (op, dim)
    # the kernel is used: one row of the 2-D case is the 1-D call
    row = fn(x[1, 0], 0, order=order)
    assert same(row, fn(x[1], -1, order=order)[0])


@pytest.mark.parametrize("order", ORDERS)
def test_attention_softmax_is_its_composition(path, order):
    """Attention's fused softmax (nn.h rb_nn_attention_softmax) against where(mask, s ⊗ c,
    −inf), softmax, and its backward against where(mask, softmax_b, 0) ⊗ c, on rows of 67
    (whole vectors and a tail on every path), with special scores, a fully masked row (NaN)
    and no mask; and the same bits through attention's autograd node."""
    s = softmax_cases(30)
    g = torch.randn(s.shape, generator=torch.Generator().manual_seed(31))
    mask = torch.rand(s.shape, generator=torch.Generator().manual_seed(32)) > 0.3
    mask[..., 0] = True
    mask[2, 3] = False  # a row of −inf only
    c = E._const(0.3, s)
    for m in (mask, None):
        t = s * c if m is None else torch.where(m, s * c, -math.inf)
        want = _nn._softmax_graph(t, -1, order)
        got = K.attention_softmax(order, s, c, None if m is None else K.mask_bytes(m, s.shape))
        assert same(got, want)
        assert (m is None) or got[2, 3].isnan().all()
        back = K.rows("softmax_b", order, want, 2, g)
        back = back * c if m is None else torch.where(m, back, 0.0) * c
        got_b = K.attention_softmax(order, want, c,
                                    None if m is None else K.mask_bytes(m, s.shape), g)
        assert same(got_b, back)


@pytest.mark.parametrize("order", ORDERS)
def test_cross_entropy_kernel_is_its_composition(path, order):
    """Class-index cross entropy as one C kernel (nn.h rb_nn_cross_entropy): the loss and
    the first-order gradient of the composed graph (log_softmax, gather, where, the ordered
    sum, ⊘ the count), for each reduction, with ignored rows, special logits, a per-row
    gradient for 'none', every row ignored (the mean's 0/0), and an index out of range."""
    x = softmax_cases(40).reshape(-1, 67)[:23]
    t = torch.randint(0, 67, (23,), generator=torch.Generator().manual_seed(41))
    t[[3, 8]] = -100
    for target in (t, torch.full((23,), -100)):
        for reduction, g in [("none", torch.randn(23)), ("none", torch.randn(23))] + [
                (r, v) for r in ("sum", "mean") for v in torch.randn(
                    12, generator=torch.Generator().manual_seed(42))]:
            results = []
            for fn in (lambda a: rt.cross_entropy(a, target, reduction=reduction, order=order),
                       lambda a: _nn._nll(rt.log_softmax(a, 1, order=order), target, None, -100,
                                          reduction, order, "cross_entropy")[0]):
                xr = x.clone().requires_grad_()
                out = fn(xr)
                results.append((out, torch.autograd.grad(out, xr, g)[0]))
            (out, dx), (want, want_dx) = results
            assert type(out.grad_fn).__name__ == "_CrossEntropyBackward"
            assert same(out, want) and same(dx, want_dx), (reduction, target[0])
    assert rt.cross_entropy(x, torch.full((23,), -100)).isnan()
    bad = t.clone()
    bad[5] = 67
    with pytest.raises(IndexError, match="target holds 67, outside"):
        rt.cross_entropy(x, bad, order=order)


@pytest.mark.parametrize("order", ORDERS)
def test_norms_are_their_composition(path, order):
    x = softmax_cases(7)[:, :3, :]
    x[2, 1, :] = 1e-41
    x[3, 2, :] = 2.5e38
    w = torch.randn(3, 67, generator=torch.Generator().manual_seed(8))
    b = torch.randn(3, 67, generator=torch.Generator().manual_seed(9))
    g = torch.randn(x.shape, generator=torch.Generator().manual_seed(10))
    cases = [((3, 67), w, b, 1e-5), ((67,), w[0], None, 1e-3), ((67,), None, b[1], 0.1),
             ((3, 67), None, None, 1e-5)]
    for shape, weight, bias, eps in cases:
        dims = tuple(range(3 - len(shape), 3))
        n = float(math.prod(shape))
        ins = [t.clone().requires_grad_() if t is not None else None for t in (x, weight, bias)]
        ref = _nn._layer_norm_graph(*ins[:1], dims, n, *ins[1:], eps, order)
        got = rt.layer_norm(x, shape, weight, bias, eps, order=order)
        assert same(got, ref), shape
        insk = [t.clone().requires_grad_() if t is not None else None for t in (x, weight, bias)]
        yk = rt.layer_norm(insk[0], shape, insk[1], insk[2], eps, order=order)
        assert type(yk.grad_fn).__name__ == "_NormBackward"
        want = [t for t in ins if t is not None]
        have = [t for t in insk if t is not None]
        for a, c in zip(torch.autograd.grad(ref, want, g), torch.autograd.grad(yk, have, g)):
            assert same(a, c), shape
    for weight, eps in ((w[0], None), (None, 1e-6), (w, 1e-5)):
        shape = tuple(weight.shape) if weight is not None else (67,)
        dims = tuple(range(3 - len(shape), 3))
        e = torch.finfo(x.dtype).eps if eps is None else eps
        ins = [t.clone().requires_grad_() if t is not None else None for t in (x, weight)]
        ref = _nn._rms_norm_graph(ins[0], dims, float(math.prod(shape)), ins[1], None, e, order)
        insk = [t.clone().requires_grad_() if t is not None else None for t in (x, weight)]
        got = rt.rms_norm(insk[0], shape, insk[1], eps, order=order)
        assert same(got, ref)
        want = [t for t in ins if t is not None]
        have = [t for t in insk if t is not None]
        for a, c in zip(torch.autograd.grad(ref, want, g), torch.autograd.grad(got, have, g)):
            assert same(a, c), shape


@pytest.mark.parametrize("name", ACTIVATIONS)
def test_double_backward_through_kernels_is_the_compositions(name):
    x = adversarial(600, seed=11, scale=2.0)
    x = x[torch.isfinite(x)]
    g = torch.randn(x.shape, generator=torch.Generator().manual_seed(12))

    def second(fn):
        xr = x.clone().requires_grad_()
        (gx,) = torch.autograd.grad(fn(xr), xr, g, create_graph=True)
        (ggx,) = torch.autograd.grad((gx * gx).sum(), xr)
        return gx, ggx

    for a, b in zip(second(lambda t: _nn._activation(name, t)), second(_nn._GRAPHS[name])):
        assert same(a, b), name


def test_softmax_and_norm_double_backward_match_the_composition():
    x = softmax_cases(13)[2:, :, :20].contiguous()
    for fn in (lambda t: rt.softmax(t, -1), lambda t: rt.log_softmax(t, 1),
               lambda t: rt.layer_norm(t, (20,)), lambda t: rt.rms_norm(t, 20)):
        xr = x.clone().requires_grad_()
        (gx,) = torch.autograd.grad(fn(xr).sin().sum(), xr, create_graph=True)
        (ggx,) = torch.autograd.grad(gx.square().sum(), xr)
        assert torch.isfinite(ggx).all()
        with E.float64_reference():
            xd = x.double().requires_grad_()
            (gd,) = torch.autograd.grad(fn(xd).sin().sum(), xd, create_graph=True)
            (ggd,) = torch.autograd.grad(gd.square().sum(), xd)
        torch.testing.assert_close(ggx.double(), ggd, rtol=2e-3, atol=1e-3)


# ---- the caller's floating-point state (docs/contract.md §0.3) ----

FTZ_DAZ_RZ = 0x1F80 | 0x8000 | 0x0040 | 0x6000  # flush to zero, denormals are zero, toward 0


def _inputs():
    """Made in the default state: the inputs themselves are PyTorch operations."""
    x = adversarial(2 * 512 + 9, seed=14, scale=30.0)
    g = adversarial(x.numel(), seed=15, scale=1e-36)  # subnormal products
    s = softmax_cases(16)
    gs = torch.randn(s.shape, generator=torch.Generator().manual_seed(17)) * 1e-36
    return (x, x.abs(), g, s, gs, s * 1e-36, torch.full((67,), 1e-3), torch.full((67,), 1e-39),
            s[0, 0, :64] * 1e-30, torch.tensor([1e-38, 3e-39, 2e-38, 1e-18]))


def _kernel_results(x, xa, g, s, gs, tiny, w, b, p0, stats0):
    out = []
    for name in ACTIVATIONS:
        out += list(graph_and_grad(lambda t: _nn._activation(name, t), x, g))
    for name in UNARY:
        out += list(graph_and_grad(getattr(rt, name), xa if name in ("log", "rsqrt") else x, g))
    for op in (rt.softmax, rt.log_softmax):
        out += list(graph_and_grad(lambda t: op(t, -1), s, gs))
    out += list(graph_and_grad(lambda t: rt.logsumexp(t, (0, 2)), s, gs[0, :, 0]))
    wr, br = w.clone().requires_grad_(), b.clone().requires_grad_()
    for fn in (lambda t: rt.layer_norm(t, 67, wr, br), lambda t: rt.rms_norm(t, 67, wr, 1e-30)):
        for inp in (tiny, s):
            xr = inp.clone().requires_grad_()
            y = fn(xr)
            out += [y] + list(torch.autograd.grad(y, [xr, wr], gs))
    # batch norm (training with running statistics, evaluation) and the optimizer steps
    xb, gb = tiny.reshape(7, 5, -1)[:, :4].contiguous(), gs.reshape(7, 5, -1)[:, :4]
    wb, bb = w[:4].clone().requires_grad_(), b[:4].clone().requires_grad_()
    rm, rv = stats0.clone(), stats0.flip(0)  # subnormal buffers and products
    xr = xb.clone().requires_grad_()
    y = rt.batch_norm(xr, rm, rv, wb, bb, training=True, momentum=0.3)
    out += [y, rm, rv] + list(torch.autograd.grad(y, [xr, wb, bb], gb))
    with torch.no_grad():
        out.append(rt.batch_norm(xb, stats0, stats0.flip(0), wb, bb, training=False))
    for opt_cls in (rt.SGD, rt.AdamW):
        p = torch.nn.Parameter(p0.clone())
        kw = dict(momentum=0.9, weight_decay=1e-3) if opt_cls is rt.SGD else {}
        opt = opt_cls([p], lr=1e-3, **kw)
        for gstep in (gs[0, 0, :64], gs[0, 1, :64]):
            p.grad = gstep.clone()
            opt.step()
        out.append(p.detach().clone())
    return out


def _composition_results(x, xa, g, *rest):
    out = []
    for name in ACTIVATIONS:
        out += list(graph_and_grad(_nn._GRAPHS[name], x, g))
    return out


def test_kernels_ignore_the_callers_fp_state():
    inputs = _inputs()
    default = _kernel_results(*inputs)
    mxcsr = _core.call_with_mxcsr(FTZ_DAZ_RZ, lambda: _kernel_results(*inputs))
    if mxcsr is None:
        pytest.skip("not x86: no MXCSR to set")
    changed, after = mxcsr
    assert after & ~0x3F == FTZ_DAZ_RZ  # the caller's modes are put back (flags: torch's ops)
    assert len(changed) == len(default)
    for i, (a, b) in enumerate(zip(default, changed)):
        assert same(a, b), i
    flush = torch.set_flush_denormal(True)
    try:
        flushed = _kernel_results(*inputs)
    finally:
        torch.set_flush_denormal(False)
    if flush:
        for i, (a, b) in enumerate(zip(default, flushed)):
            assert same(a, b), i
    # the same graphs composed of PyTorch operations do depend on it: the inputs reach it
    comp = _composition_results(*inputs)
    comp_changed = _core.call_with_mxcsr(FTZ_DAZ_RZ, lambda: _composition_results(*inputs))[0]
    assert any(not same(a, b) for a, b in zip(comp, comp_changed))


def test_kernels_refuse_nothing_silently():
    assert not K.usable(torch.zeros(3, dtype=torch.float64))
    assert K.usable(torch.zeros(3), None)
    x = torch.zeros(0)
    assert rt.gelu(x).shape == (0,) and rt.sigmoid(torch.zeros(2, 0)).shape == (2, 0)
    assert same(rt.silu(torch.tensor(2.0)), _nn._silu_graph(torch.tensor(2.0)))
    with pytest.raises(TypeError, match="float32"):
        rt.gelu(torch.zeros(3, dtype=torch.float64))


@pytest.mark.parametrize("order", ORDERS)
def test_sums_over_axes_are_reproblas_sum(path, order):
    """rsum over any axes (one gemv against ones) has reproblas.sum's bits."""
    import reproblas
    from reproblas.torch._prims import rsum
    x = adversarial(4 * 6 * 35, seed=18).reshape(4, 6, 35)
    x[1, :, 3] = torch.tensor([0.0, -0.0, -0.0, 0.0, -0.0, -0.0])  # signed zeros' sums
    x[2, 4, :] = -0.0
    x[:, 2, 7] = -0.0
    for dtype in (torch.float32, torch.float64):
        t = x.to(dtype)
        for dims in ((0,), (0, 1), (2,), (1, 2), (1,), (0, 2), (0, 1, 2)):
            for keepdim in (False, True):
                want = reproblas.sum(t.numpy(), order, axis=dims, keepdims=keepdim)
                got = rsum(t, dims, keepdim, order)
                assert same_bits(got.numpy(), np.asarray(want)), (dims, keepdim, dtype)


def test_results_are_contiguous_tensors_of_the_input_shape():
    x = softmax_cases(19)
    for dim in (0, 1, 2):
        for op in (rt.softmax, rt.log_softmax):
            y = op(x, dim)
            assert y.shape == x.shape and y.is_contiguous()
            xr = x.clone().requires_grad_()
            (gx,) = torch.autograd.grad(op(xr, dim).sum(), xr)  # an expanded incoming gradient
            assert gx.shape == x.shape and gx.is_contiguous()
    xt = x.transpose(0, 2)
    assert same(rt.gelu(xt), _nn._gelu_graph(xt)) and rt.gelu(xt).shape == xt.shape
    assert same(rt.layer_norm(xt, 7), _nn._layer_norm_graph(xt, (2,), 7.0, None, None, 1e-5,
                                                            "sequential"))


@pytest.mark.parametrize("order", ORDERS)
def test_logsumexp_is_its_composition(path, order):
    x = softmax_cases(20)
    x[0, 4, :] = math.inf
    g = torch.randn(7, 5, 67, generator=torch.Generator().manual_seed(21))
    for dims in ((2,), (1,), (0, 2), (1, 2)):
        xr = x.clone().requires_grad_()
        y = rt.logsumexp(xr, dims, keepdim=True, order=order)
        assert type(y.grad_fn).__name__ == "_LogSumExpBackward"
        assert same(y, _nn._logsumexp_graph(x, dims, order)), dims
        gy = g.amax(dim=dims, keepdim=True)
        (first,) = torch.autograd.grad(y, xr, gy, retain_graph=True)
        (formula,) = torch.autograd.grad(y, xr, gy, create_graph=True)
        assert same(first, formula), dims
    y = rt.logsumexp(x, 2, order=order)
    assert y.shape == (7, 5) and same(y, _nn._logsumexp_graph(x, (2,), order)[..., 0])


@pytest.mark.parametrize("order", ORDERS)
def test_batch_norm_training_is_its_composition(path, order):
    from reproblas.torch import _layers
    x = torch.randn(7, 4, 5, 6, generator=torch.Generator().manual_seed(22)) * 3
    x[:, 2] *= 1e-40  # subnormal values and squares
    x[5, 3, 1, 2] = 2e19  # squares overflow: r = 0
    x[0, 1, 0, 0] = -0.0
    g = torch.randn(x.shape, generator=torch.Generator().manual_seed(23))
    w = torch.randn(4, generator=torch.Generator().manual_seed(24))
    b = torch.randn(4, generator=torch.Generator().manual_seed(25))
    for shape in ((7, 4, 5, 6), (7, 4)):
        xs = x.reshape(7, 4, -1)[:, :, 0].contiguous() if len(shape) == 2 else x
        results = []
        for use_kernel in (True, False):
            rm, rv = torch.zeros(4), torch.ones(4)
            ins = [t.clone().requires_grad_() for t in (xs, w, b)]
            usable = K.usable
            if not use_kernel:
                K.usable = lambda *t: False
            try:
                y = rt.batch_norm(ins[0], rm, rv, ins[1], ins[2], training=True, order=order)
                grads = torch.autograd.grad(y, ins, g.reshape(7, 4, -1)[:, :, 0]
                                            if len(shape) == 2 else g)
            finally:
                K.usable = usable
            results.append([y, rm, rv, *grads])
            if use_kernel:  # y = (y0 ⊗ w) ⊕ b in the kernel
                assert type(y.grad_fn).__name__ == "_BatchNormTrainBackward"
        assert torch.isfinite(results[0][0]).all() and (results[0][0] != 0).any()
        for a, c in zip(*results):
            assert same(a, c), shape


def test_batch_norm_eval_kernel_is_its_composition(path):
    """Evaluation without a graph runs the kernel; with a gradient wanted, the composition:
    the same bits, special values included."""
    g0 = torch.Generator().manual_seed(27)
    x = torch.randn(6, 5, 3, 7, generator=g0) * 4
    x[0, 0, 0, :4] = torch.tensor([math.inf, -math.inf, math.nan, -0.0])
    rm, rv = torch.randn(5, generator=g0), torch.rand(5, generator=g0) * 3
    rv[1], rv[2], rm[3] = 0.0, 1e-42, math.inf
    w, b = torch.randn(5, generator=g0), torch.randn(5, generator=g0)
    for shape in ((6, 5, 3, 7), (6, 5)):
        xs = x[:, :, 0, 0].contiguous() if len(shape) == 2 else x
        for wb in ((None, None), (w, None), (None, b), (w, b)):
            with torch.no_grad():
                fast = rt.batch_norm(xs, rm, rv, *wb, training=False)
            xr = xs.clone().requires_grad_()
            slow = rt.batch_norm(xr, rm, rv, *wb, training=False)
            assert slow.grad_fn is not None and fast.grad_fn is None
            assert same(fast, slow.detach()), (shape, wb)


@pytest.mark.parametrize("affine", ["none", "weight", "bias", "both"])
def test_batch_norm_training_kernel_parts(path, affine):
    """Without weight or bias, and with only some inputs needing a gradient, the kernel gives
    the composition's bits; a graph-building backward (double backward) goes through the
    composition and agrees with the first-order kernel."""
    g0 = torch.Generator().manual_seed(26)
    x = torch.randn(5, 3, 4, 7, generator=g0) * 2 + 1
    w = torch.randn(3, generator=g0) if affine in ("weight", "both") else None
    b = torch.randn(3, generator=g0) if affine in ("bias", "both") else None
    g = torch.randn(x.shape, generator=g0)
    for wanted in ((0,), (1,), (2,), (0, 1, 2)):
        outs = []
        for use_kernel in (True, False):
            ins = [None if t is None else t.clone().requires_grad_(i in wanted)
                   for i, t in enumerate((x, w, b))]
            if not any(t is not None and t.requires_grad for t in ins):
                break
            usable = K.usable
            if not use_kernel:
                K.usable = lambda *t: False
            try:
                y = rt.batch_norm(ins[0], None, None, ins[1], ins[2], training=True)
                wrt = [t for t in ins if t is not None and t.requires_grad]
                first = torch.autograd.grad(y, wrt, g, retain_graph=True)
                graph = torch.autograd.grad(y, wrt, g, create_graph=True)
            finally:
                K.usable = usable
            for a, c in zip(first, graph):
                assert same(a, c)
            outs.append([y, *first])
        if len(outs) == 2:
            for a, c in zip(*outs):
                assert same(a, c), wanted
