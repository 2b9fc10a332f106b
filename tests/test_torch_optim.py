"""reproblas.torch optimizers and clip_grad_norm_ (docs/contract.md §5.7): bitwise against
the written per-element formulas, close to torch.optim, a full training step (converted model,
optimizer, clipping) the same bits on every thread count of both libraries and CPU path."""
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

nn = torch.nn
f32 = np.float32
ISAS = [name for name in _core.isa_names() if _core.isa_code(name) >= 0]
CR_ISAS = [name for name in crlibm_py.isa_names() if crlibm_py.isa_supported(name)]


def params_and_grads(seed=0):
    g = torch.Generator().manual_seed(seed)
    p = torch.randn(50, generator=g)
    grads = [torch.randn(50, generator=g) for _ in range(3)]
    return p, grads


def run(opt_cls, grads, p0, **kw):
    p = p0.clone().requires_grad_()
    opt = opt_cls([p], **kw)
    for g in grads:
        p.grad = g.clone()
        opt.step()
    return p.detach()


@pytest.mark.parametrize("kw", [dict(lr=0.1), dict(lr=0.1, momentum=0.9, weight_decay=0.01),
                                dict(lr=0.1, momentum=0.9, nesterov=True),
                                dict(lr=0.1, momentum=0.5, dampening=0.3, maximize=True)])
def test_sgd_is_its_formula_and_close_to_torch(kw):
    p0, grads = params_and_grads(1)
    got = run(rt.SGD, grads, p0, **kw)
    p, buf = p0.numpy().copy(), None
    lr, mu = f32(kw["lr"]), f32(kw.get("momentum", 0.0))
    for g in grads:
        g = -g.numpy() if kw.get("maximize") else g.numpy()
        if kw.get("weight_decay"):
            g = g + p * f32(kw["weight_decay"])
        if mu:
            damp = kw.get("dampening", 0.0)
            buf = g.copy() if buf is None else buf * mu + (g if damp == 0 else
                                                             g * f32(1.0 - damp))
            g = g + buf * mu if kw.get("nesterov") else buf
        p = p - g * lr
    assert same_bits(got.numpy(), p)
    torch.testing.assert_close(got, run(torch.optim.SGD, grads, p0, **kw), rtol=1e-5,
                               atol=1e-6)


@pytest.mark.parametrize("opt", ["sgd", "sgd_momentum", "sgd_nesterov", "sgd_damp", "adam",
                                 "adam_wd", "adamw"])
def test_step_kernels_are_the_composition(monkeypatch, opt):
    """The C step kernels (float32, contiguous) give the bits of the torch-op composition,
    with special values in parameters and gradients, on every path and thread count."""
    from reproblas.torch import _kernels as K
    cls, kw = {"sgd": (rt.SGD, dict(lr=0.1)),
               "sgd_momentum": (rt.SGD, dict(lr=0.1, momentum=0.9, weight_decay=1e-30)),
               "sgd_nesterov": (rt.SGD, dict(lr=0.3, momentum=0.7, nesterov=True,
                                             weight_decay=0.01, maximize=True)),
               "sgd_damp": (rt.SGD, dict(lr=0.1, momentum=0.5, dampening=0.25)),
               "adam": (rt.Adam, dict(lr=0.01, maximize=True)),
               "adam_wd": (rt.Adam, dict(lr=0.01, weight_decay=0.1)),
               "adamw": (rt.AdamW, dict(lr=0.02, betas=(0.8, 0.99)))}[opt]
    g = torch.Generator().manual_seed(3)
    p0 = torch.randn(70001, generator=g) * torch.exp2(torch.randint(-30, 30, (70001,),
                                                                    generator=g).float())
    p0[:6] = torch.tensor([0.0, -0.0, math.inf, -math.inf, math.nan, 1e-45])
    grads = [torch.randn(70001, generator=g) for _ in range(3)]
    grads[1][6:12] = torch.tensor([0.0, -0.0, math.inf, -math.inf, math.nan, -1e-45])
    grads[2] = grads[2][::2].repeat_interleave(2)[:70001]  # not the first step's shape source
    want, calls = None, []
    for name in ("nn_sgd_many", "nn_adam_many"):
        real = getattr(_core, name)
        monkeypatch.setattr(_core, name, lambda *a, real=real: calls.append(1) or real(*a))
    for isa in ISAS:
        for threads in ("1", "3"):
            monkeypatch.setenv("REPROBLAS_ISA", isa)
            monkeypatch.setenv("REPROBLAS_NUM_THREADS", threads)
            with _core.tuning(l1={"min_per_thread": 1024}):
                got = run(cls, grads, p0, **kw)
            if want is None:
                with monkeypatch.context() as m:
                    m.setattr(K, "steppable", lambda *t: False)
                    want = run(cls, grads, p0, **kw)
            assert same_bits(got.numpy(), want.numpy()), (isa, threads)
    assert len(calls) == 3 * 2 * len(ISAS)  # the kernel ran every step


@pytest.mark.parametrize("cls, kw", [(rt.SGD, dict(lr=0.1, momentum=0.9, weight_decay=0.01)),
                                     (rt.AdamW, dict(lr=0.02)),
                                     (rt.Adam, dict(lr=0.01, weight_decay=0.1))])
def test_one_group_of_kernel_and_composed_parameters(monkeypatch, cls, kw):
    """One group mixing parameters the step kernels take (float32 contiguous, a gradient
    that is a strided view) with ones they do not (a transposed parameter, float64) and one
    without a gradient in some steps: every parameter gets its own formula's bits, as when
    each is stepped alone through the composition; one kernel call per step for the group."""
    g = torch.Generator().manual_seed(5)
    shapes = [(7, 5), (6, 4), (9,), (3, 8), (4,)]
    init = [torch.randn(s, generator=g) for s in shapes]
    init[1] = init[1].t().contiguous().t()  # transposed: not C-contiguous
    init[2] = init[2].double()
    steps = [[torch.randn(s, generator=g, dtype=t.dtype) for s, t in zip(shapes, init)]
             for _ in range(3)]
    steps[1][4] = None  # parameter 4 without a gradient in the second step

    def train():
        ps = [t.clone().requires_grad_() for t in init]  # clone keeps the strides
        opt = cls(ps, **kw)
        for grads in steps:
            for p, gr in zip(ps, grads):
                p.grad = None if gr is None else (gr.t().contiguous().t() if gr.ndim == 2
                                                  else gr.clone())
            opt.step()
        return [p.detach() for p in ps]

    calls = []
    name = "nn_sgd_many" if cls is rt.SGD else "nn_adam_many"
    real = getattr(_core, name)
    monkeypatch.setattr(_core, name, lambda *a: calls.append(len(a[-3])) or real(*a))
    got = train()
    assert not init[1].is_contiguous() and calls == [3, 2, 3]  # 0, 3 and 4 (not in step 2)
    monkeypatch.setattr(rt._kernels, "steppable", lambda *t: False)
    want = train()
    for a, b in zip(got, want):
        assert same_bits(a.numpy(), b.numpy())


@pytest.mark.parametrize("cls, torch_cls, kw", [
    (rt.Adam, torch.optim.Adam, dict(lr=0.01)),
    (rt.Adam, torch.optim.Adam, dict(lr=0.01, weight_decay=0.1)),
    (rt.Adam, torch.optim.Adam, dict(lr=0.01, weight_decay=0.1, amsgrad=True)),
    (rt.AdamW, torch.optim.AdamW, dict(lr=0.01, betas=(0.8, 0.99))),
    (rt.AdamW, torch.optim.AdamW, dict(lr=0.01, maximize=True, amsgrad=True))])
def test_adam_is_its_formula_and_close_to_torch(cls, torch_cls, kw):
    p0, grads = params_and_grads(2)
    got = run(cls, grads, p0, **kw)
    lr, eps = kw["lr"], 1e-8
    b1, b2 = kw.get("betas", (0.9, 0.999))
    wd = kw.get("weight_decay", 1e-2 if cls is rt.AdamW else 0.0)
    p = p0.numpy().copy()
    m, v, vmax = np.zeros_like(p), np.zeros_like(p), np.zeros_like(p)
    b1p = b2p = 1.0
    for g in grads:
        g = -g.numpy() if kw.get("maximize") else g.numpy()
        b1p, b2p = b1p * b1, b2p * b2
        if cls is rt.AdamW:
            p = p * f32(1.0 - lr * wd)
        elif wd:
            g = g + p * f32(wd)
        m = m * f32(b1) + g * f32(1.0 - b1)
        v = v * f32(b2) + (g * g) * f32(1.0 - b2)
        use = v
        if kw.get("amsgrad"):
            vmax = np.maximum(vmax, v)
            use = vmax
        denom = np.sqrt(use) / f32(math.sqrt(1.0 - b2p)) + f32(eps)
        p = p - (m / denom) * f32(lr / (1.0 - b1p))
    assert same_bits(got.numpy(), p)
    torch.testing.assert_close(got, run(torch_cls, grads, p0, **kw), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("order", ["sequential", "pairwise"])
def test_clip_grad_norm_is_nrm2_in_parameter_order(order):
    g = torch.Generator().manual_seed(3)
    ps = [torch.zeros(s, requires_grad=True) for s in ((3, 4), (5,), (2, 2, 2))]
    for p in ps:
        p.grad = torch.randn(p.shape, generator=g) * 10
    before = [p.grad.clone() for p in ps]
    flat = np.concatenate([b.numpy().ravel() for b in before])
    total = rt.clip_grad_norm_(ps, 1.5, order=order)
    assert same_bits(total.numpy(), np.asarray(reproblas.nrm2(flat, order)))
    coef = min(f32(1.5) / (total.numpy() + f32(1e-6)), f32(1.0))
    for p, b in zip(ps, before):
        assert same_bits(p.grad.numpy(), b.numpy() * coef)
    theirs = [torch.zeros(p.shape, requires_grad=True) for p in ps]
    for t, b in zip(theirs, before):
        t.grad = b.clone()
    torch.testing.assert_close(total, nn.utils.clip_grad_norm_(theirs, 1.5))
    for p, t in zip(ps, theirs):
        torch.testing.assert_close(p.grad, t.grad)
    ps[0].grad = -before[0] * 100
    assert rt.clip_grad_norm_(ps, 1.0, math.inf) == (before[0] * 100).abs().max()
    small = torch.zeros(3, requires_grad=True)
    small.grad = torch.tensor([1e-3, 0.0, 0.0])
    rt.clip_grad_norm_(small, 1.0)
    assert torch.equal(small.grad, torch.tensor([1e-3, 0.0, 0.0]))  # coefficient 1: unchanged


def test_bad_arguments():
    p = torch.zeros(3, requires_grad=True)
    with pytest.raises(ValueError, match="Nesterov"):
        rt.SGD([p], lr=0.1, nesterov=True)
    with pytest.raises(ValueError, match="betas"):
        rt.Adam([p], betas=(0.9, 1.0))
    with pytest.raises(ValueError, match="norm_type"):
        p.grad = torch.ones(3)
        rt.clip_grad_norm_([p], 1.0, 1.0)
    q = torch.zeros(2, dtype=torch.float64, requires_grad=True)
    q.grad = torch.ones(2, dtype=torch.float64)
    with pytest.raises(TypeError, match="mixed dtypes"):
        rt.clip_grad_norm_([p, q], 1.0)
    h = torch.zeros(2, dtype=torch.float16, requires_grad=True)
    h.grad = torch.ones(2, dtype=torch.float16)
    with pytest.raises(TypeError, match="float16"):
        rt.SGD([h], lr=0.1).step()


def _step_hash(opt_name):
    torch.manual_seed(0)
    model = rt.convert(nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4),
                                     nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                                     nn.Linear(4 * 4 * 4, 16), nn.GELU(), nn.Dropout(0.1),
                                     nn.Linear(16, 3)))
    loss_fn = rt.CrossEntropyLoss(label_smoothing=0.1)
    g = torch.Generator().manual_seed(1)
    x, t = torch.randn(12, 1, 8, 8, generator=g), torch.randint(0, 3, (12,), generator=g)
    opt = (rt.SGD(model.parameters(), lr=0.05, momentum=0.9, nesterov=True, weight_decay=1e-4)
           if opt_name == "sgd" else rt.AdamW(model.parameters(), lr=0.01))
    digest = hashlib.sha256()
    for _ in range(3):
        opt.zero_grad()
        loss = loss_fn(model(x), t)
        loss.backward()
        rt.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        digest.update(loss.detach().numpy().tobytes())
    for tensor in model.state_dict().values():
        digest.update(tensor.numpy().tobytes())
    return digest.hexdigest()


@pytest.mark.parametrize("opt_name", ["sgd", "adamw"])
def test_training_step_bits_across_threads_and_paths(monkeypatch, opt_name):
    """Everything of the step is reproblas: PyTorch's own thread count varies too."""
    torch_threads = torch.get_num_threads()
    found = {}
    try:
        for tuning in ({}, dict(l1=(64, 50), l3=(2, 3, 5, 1), conv=(3, 5, 1, -1))):
            with _core.tuning(**tuning):
                for isa, cr_isa in zip(ISAS, CR_ISAS + CR_ISAS[-1:] * len(ISAS)):
                    monkeypatch.setenv("REPROBLAS_ISA", isa)
                    monkeypatch.setenv("CRLIBM_ISA", cr_isa)
                    for threads in (1, 2, 3):
                        torch.set_num_threads(threads)
                        monkeypatch.setenv("REPROBLAS_NUM_THREADS", str(threads))
                        found[(str(tuning), isa, threads)] = _step_hash(opt_name)
    finally:
        torch.set_num_threads(torch_threads)
    assert len(set(found.values())) == 1, found
