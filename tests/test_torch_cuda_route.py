"""reproblas.torch's CUDA route (reproblas/torch/_device.py) on the host emulation of the CUDA
kernels: the seam (on_device, to_array, to_tensor) sends CPU tensors down the route that a
CUDA tensor takes, with the emulated device's arrays, so every reproblas and crlibm_py call
of an op runs the CUDA kernels' code. Each op (forward, backward, double backward where the
op has one), the demo CNN's and the tiny GPT's training steps give the CPU's bits, and no
reproblas or crlibm_py call, fused kernel or small-call fast path runs on the CPU meanwhile.
The real DLPack conversions are checked as far as CPU tensors allow; tests/
test_torch_cuda_gpu.py runs real CUDA tensors where a GPU and CuPy are present."""
import sys
import types

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="needs PyTorch (pip install -e '.[torch]')")

import crlibm_py  # noqa: E402
import reproblas  # noqa: E402
import reproblas.torch as rt  # noqa: E402
from crlibm_py import _api as crlibm_api  # noqa: E402
from crlibm_py import _cuda as crlibm_cuda  # noqa: E402
from cuda_support import EmuArray, EmuDevice  # noqa: E402
from repro_runtime import cuda as rt_cuda  # noqa: E402
from reproblas import _backend, _core  # noqa: E402
from reproblas.torch import _device  # noqa: E402
from reproblas.torch import _kernels as K  # noqa: E402
from reproblas.torch import gpt_demo  # noqa: E402


class DeviceArray(EmuArray):
    """An emulated device array that stays one through NumPy's functions (ascontiguousarray,
    ones_like, ...), as a CuPy array does (NEP 18): a host array among the operands of a
    reproblas call is then caught as it would be on a GPU (a TypeError)."""

    def __array_function__(self, func, types, args, kwargs):
        out = super().__array_function__(func, types, args, kwargs)
        return out.view(DeviceArray) if type(out) is np.ndarray else out


def _boom(what):
    def fail(*args, **kwargs):
        raise AssertionError(f"{what} ran on the CPU on the CUDA route")
    return fail


def _declines(fn, name):
    def wrapper(*args, **kwargs):
        out = fn(*args, **kwargs)
        assert out is None, f"_core.{name} computed on the CPU on the CUDA route"
        return out
    return wrapper


@pytest.fixture(scope="module")
def emu():
    return EmuDevice()


@pytest.fixture
def device(monkeypatch, emu):
    """Routes every op through _device with the emulated device; returns the call counts."""
    counts = {"reproblas": 0, "crlibm": 0}
    monkeypatch.setattr(rt_cuda, "_device", [emu])
    select = _backend.select

    def selected(*arrays):
        backend = select(*arrays)  # the real rule: host arrays mixed in are a TypeError
        assert backend is not _backend.CPU, "a reproblas call took host arrays"
        counts["reproblas"] += 1
        return backend

    apply = crlibm_cuda.apply

    def crlibm_on_device(*args, **kwargs):
        counts["crlibm"] += 1
        return apply(*args, **kwargs)

    monkeypatch.setattr(_backend, "select", selected)
    monkeypatch.setattr(crlibm_cuda, "apply", crlibm_on_device)
    monkeypatch.setattr(crlibm_api, "check_isa_env", _boom("crlibm_py's CPU ufunc"))
    # a CUDA tensor is never usable() by the fused C kernels (they take CPU tensors)
    monkeypatch.setattr(K, "usable", lambda *tensors: False)
    monkeypatch.setattr(K, "steppable", lambda *tensors: False)
    for name in dir(_core):
        if name.startswith("nn_"):
            monkeypatch.setattr(_core, name, _boom(f"_core.{name}"))
        elif name.endswith("_plain"):  # the small-call fast paths must decline device arrays
            monkeypatch.setattr(_core, name, _declines(getattr(_core, name), name))
    monkeypatch.setattr(_device, "on_device", lambda t: True)
    monkeypatch.setattr(_device, "to_array",
                        lambda t, name="input", routine="op": t.detach().numpy().view(DeviceArray))
    monkeypatch.setattr(_device, "to_tensor",
                        lambda a, like=None: torch.from_numpy(np.ascontiguousarray(a)))
    return counts


def bits(t):
    t = t.detach().contiguous()
    return t.view(torch.int32 if t.dtype == torch.float32 else torch.int64).numpy().copy()


def run_op(fn, inputs, double=False):
    """fn's output, the gradients of its inputs for a fixed upstream gradient, and (double)
    the gradients of a function of those gradients, as bit patterns."""
    leaves = [x.detach().clone().requires_grad_(x.is_floating_point()) for x in inputs]
    out = fn(*leaves)
    outs = out if isinstance(out, tuple) else (out,)
    got = [bits(o) for o in outs]
    wrt = [x for x in leaves if x.requires_grad]
    if outs[0].requires_grad:
        gen = torch.Generator().manual_seed(1)
        ups = [torch.randn(o.shape, generator=gen, dtype=o.dtype) for o in outs]
        grads = torch.autograd.grad(outs, wrt, ups, create_graph=double, allow_unused=True)
        got += [bits(g) for g in grads if g is not None]
        if double:
            used = [(g, x) for g, x in zip(grads, wrt) if g is not None and g.requires_grad]
            if used:
                total = sum((g * g).sum() for g, _ in used)
                got += [bits(h) for h in torch.autograd.grad(total, [x for _, x in used],
                                                             allow_unused=True)
                        if h is not None]
    return got


def randn(*shape, seed=0, dtype=torch.float32):
    return torch.randn(shape, generator=torch.Generator().manual_seed(seed), dtype=dtype)


LONG = torch.tensor([[3, 0, 3], [1, 3, 4]])
torch.manual_seed(0)
MHA = rt.MultiheadAttention(8, 2)
OPS = {
    "linear": (lambda x, w, b: rt.linear(x, w, b), [randn(2, 3, 5), randn(4, 5, seed=1),
                                                      randn(4, seed=2)], True),
    "linear_f64": (lambda x, w: rt.linear(x, w), [randn(3, 5, dtype=torch.float64),
                                                  randn(2, 5, seed=1, dtype=torch.float64)],
                   True),
    "matmul_broadcast": (lambda a, b: rt.matmul(a, b, order="pairwise"),
                         [randn(2, 1, 3, 4), randn(3, 4, 2, seed=1)], True),
    "conv2d": (lambda x, w, b: rt.conv2d(x, w, b, stride=2, padding=1, groups=2),
               [randn(2, 4, 7, 6), randn(6, 2, 3, 3, seed=1), randn(6, seed=2)], True),
    "sum_mean_var": (lambda x: (rt.sum(x, (0, 2)), rt.mean(x, 1), rt.var(x, (1, 2))),
                     [randn(3, 4, 5)], True),
    "softmax": (lambda x: rt.softmax(x, 1), [randn(3, 7)], True),
    "log_softmax": (lambda x: rt.log_softmax(x, 0), [randn(5, 3)], True),
    "logsumexp": (lambda x: rt.logsumexp(x, (0, 2)), [randn(3, 2, 4)], True),
    "layer_norm": (lambda x, w, b: rt.layer_norm(x, (6,), w, b), [randn(4, 6), randn(6, seed=1),
                                                                  randn(6, seed=2)], True),
    "rms_norm": (lambda x, w: rt.rms_norm(x, (3, 4), w), [randn(2, 3, 4), randn(3, 4, seed=1)],
                 True),
    "group_norm": (lambda x, w, b: rt.group_norm(x, 2, w, b),
                   [randn(2, 4, 3, 3), randn(4, seed=1), randn(4, seed=2)], True),
    "batch_norm_train": (lambda x, w, b: rt.batch_norm(x, torch.zeros(3), torch.ones(3), w, b,
                                                       training=True),
                         [randn(4, 3, 2, 2), randn(3, seed=1), randn(3, seed=2)], True),
    "batch_norm_eval": (lambda x, m, v, w, b: rt.batch_norm(x, m.detach(), v.detach(), w, b),
                        [randn(4, 3, 2), randn(3, seed=3), randn(3, seed=4).abs(),
                         randn(3, seed=1), randn(3, seed=2)], False),
    "activations": (lambda x: (rt.relu(x), rt.sigmoid(x), rt.silu(x), rt.gelu(x),
                               rt.gelu(x, "tanh"), rt.tanh(x)), [randn(4, 5) * 3], True),
    "crlibm": (lambda x: (rt.exp(x), rt.log(x.abs() + 0.5), rt.sin(x), rt.cos(x), rt.erf(x),
                          rt.rsqrt(x.abs() + 0.25)), [randn(9, 4) * 2], True),
    "mse_loss": (lambda x, t: rt.mse_loss(x, t), [randn(3, 4), randn(4, seed=1)], True),
    "nll_loss": (lambda x, w: rt.nll_loss(x, torch.tensor([1, 0, 3, -100]), w),
                 [randn(4, 5), torch.rand(5) + 0.5], True),
    "cross_entropy": (lambda x: rt.cross_entropy(x, torch.tensor([[2, 0], [1, 2]])),
                      [randn(2, 3, 2)], True),
    "cross_entropy_smooth": (lambda x, w: rt.cross_entropy(x, torch.tensor([2, 0, 1]), w,
                                                           label_smoothing=0.1),
                             [randn(3, 4), torch.rand(4) + 0.5], True),
    "avg_pool2d": (lambda x: (rt.avg_pool2d(x, 3, 2, 1, count_include_pad=False),
                              rt.adaptive_avg_pool2d(x, 2), rt.avg_pool2d(x, 2)),
                   [randn(2, 3, 6, 6)], True),
    # overlapping windows: an input chosen by several windows gets several terms
    "max_pool2d": (lambda x: rt.max_pool2d(x, 3, 1, 1), [randn(2, 2, 5, 5)], True),
    "embedding": (lambda w: rt.embedding(LONG, w, padding_idx=4), [randn(6, 3)], True),
    "dropout": (lambda x: rt.dropout(x, 0.3, seed=5), [randn(4, 6)], True),
    "attention_causal": (lambda q, k, v: rt.scaled_dot_product_attention(q, k, v,
                                                                          is_causal=True),
                         [randn(2, 3, 4), randn(2, 3, 4, seed=1), randn(2, 3, 4, seed=2)], True),
    "attention_mask": (lambda q, k, v, m: rt.scaled_dot_product_attention(q, k, v, m),
                       [randn(2, 3, 4), randn(2, 5, 4, seed=1), randn(2, 5, 4, seed=2),
                        randn(3, 5, seed=3)], True),
    "rotary": (lambda x: rt.apply_rotary(x, *rt.rotary_cos_sin(torch.arange(5), 6)),
               [randn(2, 5, 6)], True),
    "rotary_tables": (lambda: rt.rotary_cos_sin(torch.tensor([0, 3, 1000, 77]), 12, 500.0), [],
                      False),
    "bmm_baddbmm": (lambda a, b, c: (rt.bmm(a, b), rt.baddbmm(c, a, b, beta=0.5, alpha=3.0)),
                    [randn(2, 3, 4), randn(2, 4, 5, seed=1), randn(2, 3, 5, seed=2)], True),
    "cumsum": (lambda x: rt.cumsum(x, 1, order="pairwise"), [randn(3, 9)], True),
    "multihead_attention": (lambda x: MHA(x, x, x, is_causal=True), [randn(4, 2, 8)], False),
}


@pytest.mark.parametrize("name", list(OPS))
def test_every_op_gives_the_cpu_bits_on_the_device_route(name, request):
    fn, inputs, double = OPS[name]
    want = run_op(fn, inputs, double)
    counts = request.getfixturevalue("device")
    got = run_op(fn, inputs, double)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
    if name not in ("dropout", "max_pool2d", "embedding"):  # exact tensor work only
        assert counts["reproblas"] + counts["crlibm"] > 0


def _optimizer_run(opt_cls, steps=3, **kw):
    torch.manual_seed(0)
    w = torch.nn.Parameter(torch.randn(4, 5))
    b = torch.nn.Parameter(torch.randn(4))
    opt = opt_cls([w, b], **kw)
    x = randn(6, 5, seed=3)
    for _ in range(steps):
        opt.zero_grad()
        rt.mean(rt.linear(x, w, b) ** 2).backward()
        rt.clip_grad_norm_([w, b], 0.5)
        opt.step()
    return bits(w), bits(b)


@pytest.mark.parametrize("opt_cls, kw", [
    (rt.SGD, dict(lr=0.1, momentum=0.9, weight_decay=1e-2, nesterov=True)),
    (rt.Adam, dict(lr=0.01, weight_decay=1e-2)),
    (rt.AdamW, dict(lr=0.01, betas=(0.8, 0.9), amsgrad=True))])
def test_optimizers_and_clipping_on_the_device_route(opt_cls, kw, request):
    want = _optimizer_run(opt_cls, **kw)
    counts = request.getfixturevalue("device")
    got = _optimizer_run(opt_cls, **kw)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
    assert counts["reproblas"] > 0


def _train_cnn(steps=2):
    from reproblas.torch import demo
    torch.manual_seed(0)
    model = rt.convert(demo.ResNet(channels=2))
    loss_fn = rt.CrossEntropyLoss()
    opt = rt.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-4)
    g = torch.Generator().manual_seed(0)
    x, y = torch.rand(8, 1, 8, 8, generator=g), torch.randint(0, 10, (8,), generator=g)
    for i in range(steps):
        opt.zero_grad()
        rows = slice(4 * i, 4 * i + 4)
        rt.data_parallel_backward(model, lambda a, b: loss_fn(model(a), b),
                                  (x[rows], y[rows]), shards=2)
        opt.step()
    return demo.digest(model)


def test_demo_cnn_training_on_the_device_route(request):
    want = _train_cnn()
    counts = request.getfixturevalue("device")
    got = _train_cnn()
    assert got == want
    # convolutions and their gradients, batch norm's and the loss's sums, the shard sum,
    # and crlibm's rsqrt/exp/log of batch norm and cross-entropy all went to the device
    assert counts["reproblas"] > 60 and counts["crlibm"] > 10, counts


def _train_gpt(steps=2):
    model = gpt_demo.TinyGPT(gpt_demo.ReproOps, len(gpt_demo.VOCAB), d=12, heads=2, layers=1)
    opt = rt.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)
    data = torch.tensor(gpt_demo.encode(gpt_demo.TEXT))
    ctx, batch = 6, 2
    positions = torch.arange(ctx).expand(batch, ctx)
    mask = gpt_demo.causal(torch.ones(batch, ctx, dtype=torch.bool), ctx)
    for s in range(steps):
        x = torch.stack([data[37 * (s + i):37 * (s + i) + ctx] for i in range(batch)])
        y = torch.stack([data[37 * (s + i) + 1:37 * (s + i) + ctx + 1] for i in range(batch)])
        loss = rt.cross_entropy(model(x, positions, mask).reshape(-1, len(gpt_demo.VOCAB)),
                                y.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
    with torch.no_grad():
        tokens, logits = gpt_demo.generate(model, gpt_demo.PROMPTS[:2], 3, use_cache=True)
    return gpt_demo.digest(*model.parameters()), bits(loss), tokens.tolist(), bits(logits)


def test_gpt_training_and_serving_on_the_device_route(request):
    want = _train_gpt()
    counts = request.getfixturevalue("device")
    got = _train_gpt()
    assert got[0] == want[0] and got[2] == want[2]
    np.testing.assert_array_equal(got[1], want[1])
    np.testing.assert_array_equal(got[3], want[3])
    assert counts["reproblas"] > 40 and counts["crlibm"] > 10, counts


# ---- the pieces of the route ----

def test_index_add_is_the_sequential_sum_and_take_its_gradient():
    """_device.index_add: each row the sum, sequential from +0 in position order, of its
    terms (the CPU's index_add onto zeros); take (its adjoint) is differentiable again."""
    src = torch.tensor([[1.0, -0.0], [1e8, 2.0], [-0.0, 3.0], [-1e8, -0.0], [1.0, 5.0]])
    index = torch.tensor([2, 2, 0, 2, 2])
    got = _device.index_add(src, index, 4)
    want = torch.zeros(4, 2).index_add(0, index, src)
    np.testing.assert_array_equal(bits(got), bits(want))
    assert float(got[2, 0]) == 1.0  # ((1 + 1e8) - 1e8) + 1 in float32, in order
    assert str(got[0, 0].item()) == "0.0" and str(got[1, 1].item()) == "0.0"  # +0 + -0
    s = src.clone().requires_grad_()
    out = _device.index_add(s, index, 4)
    (g,) = torch.autograd.grad(out, s, torch.arange(8.0).reshape(4, 2), create_graph=True)
    np.testing.assert_array_equal(g.detach().numpy(), torch.arange(8.0).reshape(4, 2)[index])
    assert torch.autograd.gradgradcheck(lambda a: _device.index_add(a, index, 4),
                                        (torch.randn(5, 2, dtype=torch.float64,
                                                     requires_grad=True),))
    x = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
    idx = torch.tensor([[0], [3], [1]])
    np.testing.assert_array_equal(_device.gather(x, 1, idx).detach(),
                                  torch.gather(x, 1, idx).detach())
    assert torch.autograd.gradgradcheck(lambda a: _device.gather(a, 1, idx), (x,))
    assert _device.index_add(src[:0], index[:0], 3).shape == (3, 2)


def test_div_divides_on_the_device_route(monkeypatch):
    """div is one IEEE division per element (a 0-d tensor divisor on a device: PyTorch's CUDA
    division by a host number multiplies by a rounded reciprocal)."""
    x = randn(1000) * 100
    want = bits(x / 3.0)
    monkeypatch.setattr(_device, "on_device", lambda t: True)
    got = _device.div(x, 3.0)
    np.testing.assert_array_equal(bits(got), want)
    assert bits(x * (1.0 / 3.0)).tolist() != want.tolist()  # what the reciprocal would give
    d = torch.tensor(2.0)
    assert _device.div(x, d).equal(x / d)


def test_to_tensor_takes_dlpack_arrays():
    """to_tensor is torch.from_dlpack (NumPy arrays speak DLPack on the CPU): memory shared,
    a negative-stride view copied first (a tensor cannot hold it)."""
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    t = _device.to_tensor(a)
    assert t.shape == (3, 4) and t.dtype == torch.float32
    a[0, 0] = 7.0
    assert float(t[0, 0]) == 7.0  # no copy
    r = _device.to_tensor(a[::-1, 1::2])
    np.testing.assert_array_equal(r.numpy(), a[::-1, 1::2])
    z = _device.to_tensor(np.full((), 2.5))
    assert z.shape == () and z.dtype == torch.float64 and float(z) == 2.5


def test_to_array_goes_through_dlpack(monkeypatch):
    """to_array is cupy.from_dlpack of the detached tensor (a stand-in module with NumPy's
    from_dlpack checks the call on CPU tensors: the memory is shared)."""
    cupy = types.SimpleNamespace(from_dlpack=np.from_dlpack, cuda=types.SimpleNamespace(
        runtime=types.SimpleNamespace(getDevice=lambda: 0)))
    monkeypatch.setitem(sys.modules, "cupy", cupy)
    t = torch.arange(6.0).reshape(2, 3).requires_grad_()
    a = _device.to_array(t[:, ::2])
    assert a.shape == (2, 2) and a.strides == (12, 8)
    with torch.no_grad():
        t[1, 2] = 42.0
    assert a[1, 1] == 42.0


def test_cuda_tensors_without_cupy_say_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", None)  # import cupy raises ImportError
    with pytest.raises(RuntimeError, match="pip install cupy-cuda12x"):
        _device.to_array(torch.ones(3), "input", "exp")
    monkeypatch.setattr(_device, "on_device", lambda t: True)  # as a CUDA tensor would be
    for call in (lambda: rt.exp(torch.ones(3)), lambda: rt.linear(torch.ones(2, 3),
                                                                  torch.ones(4, 3)),
                 lambda: rt.softmax(torch.ones(2, 3), 1), lambda: rt.sum(torch.ones(3))):
        with pytest.raises(RuntimeError, match=r"reproblas\.torch\.\w+: .*CuPy.*cupy-cuda12x"):
            call()


def test_mixed_devices_are_refused():
    cpu, meta = torch.ones(2, 3), torch.ones(4, 3, device="meta")
    with pytest.raises(ValueError, match="linear: mixed devices .input is on cpu, weight is on "
                                         "meta"):
        rt.linear(cpu, meta)
    with pytest.raises(ValueError, match="embedding: mixed devices"):
        rt.embedding(torch.zeros(2, dtype=torch.long, device="meta"), cpu)
    with pytest.raises(ValueError, match="mixed devices"):
        _device.same_device("op", a=cpu, b=None, c=meta)
    _device.same_device("op", a=cpu, b=None, c=torch.zeros(1))


def test_host_arrays_among_device_arrays_are_a_type_error(device):
    """On the route, a host array reaching reproblas beside a device array is refused by the
    backend choice (the check that keeps a CUDA op from computing partly on the CPU)."""
    x = np.ones((2, 3), np.float32)
    with pytest.raises(TypeError, match="some operands are on a GPU"):
        reproblas.matmul(x.view(DeviceArray), x.T.copy())


def test_the_cpu_route_is_unchanged():
    """Without the seam, CPU tensors take the NumPy arrays and the fused kernels as before."""
    t = torch.ones(3)
    from reproblas.torch._prims import array
    assert type(array(t, "input", "op")) is np.ndarray
    assert not _device.on_device(t) and K.usable(t)
    assert crlibm_py.exp(np.float32(0)) == 1


def _mode_block_run():
    """A transformer-like block of plain PyTorch under reproducible(): output and gradients."""
    from test_torch_mode import Block
    torch.manual_seed(0)
    block = Block()
    x = randn(2, 5, 8).requires_grad_()
    with rt.reproducible():
        y = block(x)
        y.backward(torch.ones_like(y))
    return [bits(y), bits(x.grad)] + [bits(p.grad) for p in block.parameters()]


def test_reproducible_mode_on_the_device_route(request):
    want = _mode_block_run()
    counts = request.getfixturevalue("device")
    got = _mode_block_run()
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
    assert counts["reproblas"] > 10 and counts["crlibm"] > 3, counts
