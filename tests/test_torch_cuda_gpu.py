"""reproblas.torch on real CUDA tensors (marker `cuda`; skipped without a CUDA build of
PyTorch, a device or CuPy): ops, their gradients and short trainings of the demo CNN and the
tiny GPT give the CPU's bits, results stay on the tensors' device, and mixed devices are
refused. The same route on the host emulation is tests/test_torch_cuda_route.py."""
import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="needs PyTorch (pip install -e '.[torch]')")

import reproblas.torch as rt  # noqa: E402
from reproblas.torch import gpt_demo  # noqa: E402
from test_torch_cuda_route import OPS, bits, run_op  # noqa: E402

pytestmark = pytest.mark.cuda


@pytest.fixture(scope="module")
def cuda():
    if not torch.cuda.is_available():
        pytest.skip("needs a CUDA device and a CUDA build of PyTorch")
    try:
        import cupy
    except ImportError:
        pytest.skip("needs CuPy (pip install cupy-cuda12x)")
    try:
        if cupy.cuda.runtime.getDeviceCount() < 1:
            raise RuntimeError("no device")
    except Exception as e:
        pytest.skip(f"needs a CUDA GPU (CuPy found none: {e})")
    return torch.device("cuda", torch.cuda.current_device())


# the ops whose lambdas build index or buffer tensors on the CPU take them as arguments here
GPU_OPS = {name: spec for name, spec in OPS.items()
           if name not in ("batch_norm_train", "nll_loss", "cross_entropy",
                           "cross_entropy_smooth", "embedding", "rotary", "rotary_tables",
                           "multihead_attention")}


@pytest.mark.parametrize("name", list(GPU_OPS))
def test_ops_give_the_cpu_bits_on_cuda_tensors(cuda, name):
    fn, inputs, double = GPU_OPS[name]
    want = run_op(fn, inputs, double)
    got = run_op_on(cuda, fn, inputs, double)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


def run_op_on(device, fn, inputs, double):
    """run_op with the inputs (and the upstream gradients) on `device`."""
    leaves = [x.detach().to(device).requires_grad_(x.is_floating_point()) for x in inputs]
    out = fn(*leaves)
    outs = out if isinstance(out, tuple) else (out,)
    assert all(o.device == device for o in outs)
    got = [bits(o.cpu()) for o in outs]
    wrt = [x for x in leaves if x.requires_grad]
    if outs[0].requires_grad:
        gen = torch.Generator().manual_seed(1)
        ups = [torch.randn(o.shape, generator=gen, dtype=o.dtype).to(device) for o in outs]
        grads = torch.autograd.grad(outs, wrt, ups, create_graph=double, allow_unused=True)
        got += [bits(g.cpu()) for g in grads if g is not None]
        if double:
            used = [(g, x) for g, x in zip(grads, wrt) if g is not None and g.requires_grad]
            if used:
                total = sum((g * g).sum() for g, _ in used)
                got += [bits(h.cpu()) for h in torch.autograd.grad(
                    total, [x for _, x in used], allow_unused=True) if h is not None]
    return got


def test_index_and_buffer_ops_on_cuda_tensors(cuda):
    """The ops that take index tensors or buffers, all on the device."""
    def ops(x, w, e, q, k, v, m, rv, target, idx, pos):
        ce = rt.cross_entropy(x, target) + rt.cross_entropy(x, target, w, label_smoothing=0.1)
        bn = rt.batch_norm(q.reshape(2, 3, 4), m, rv, training=True)
        emb = rt.embedding(idx, e, padding_idx=4)
        att = rt.scaled_dot_product_attention(q, k, v, is_causal=True)
        rot = rt.apply_rotary(q.reshape(2, 3, 4), *rt.rotary_cos_sin(pos, 4))
        return ce, bn, emb, att, rot, m.clone(), rv.clone()
    args = [torch.randn(4, 5), torch.rand(5) + 0.5, torch.randn(6, 3), torch.randn(2, 3, 4),
            torch.randn(2, 3, 4), torch.randn(2, 3, 4), torch.zeros(3), torch.ones(3),
            torch.tensor([1, 0, 3, 2]), torch.tensor([[3, 0, 3], [1, 3, 4]]),
            torch.tensor([0, 5, 9])]
    want = [bits(t) for t in ops(*[a.clone() for a in args])]
    got = [bits(t.cpu()) for t in ops(*[a.to(cuda) for a in args])]
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


def test_multihead_attention_on_cuda_tensors(cuda):
    torch.manual_seed(0)
    mha = rt.MultiheadAttention(8, 2)
    x = torch.randn(4, 2, 8)
    want = bits(mha(x, x, x, is_causal=True)[0])
    mha.to(cuda)
    xc = x.to(cuda)
    np.testing.assert_array_equal(bits(mha(xc, xc, xc, is_causal=True)[0].cpu()), want)


def test_mixed_devices_are_refused(cuda):
    x = torch.ones(2, 3)
    with pytest.raises(ValueError, match="mixed devices"):
        rt.linear(x, torch.ones(4, 3, device=cuda))
    with pytest.raises(ValueError, match="mixed devices"):
        rt.cross_entropy(x.to(cuda), torch.zeros(2, dtype=torch.long))
    with pytest.raises(ValueError, match="mixed devices"):
        rt.embedding(torch.zeros(2, dtype=torch.long), x.to(cuda))


def test_demo_cnn_training_on_cuda_gives_the_cpu_weights(cuda):
    from reproblas.torch import demo
    data = demo.load()
    assert demo.digest(demo.train(data, 3, 16, 2, device=cuda)) == \
        demo.digest(demo.train(data, 3, 16, 2))


def test_gpt_training_on_cuda_gives_the_cpu_weights(cuda):
    def train(device):
        model = gpt_demo.TinyGPT(gpt_demo.ReproOps, len(gpt_demo.VOCAB)).to(device)
        opt = rt.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)
        data = torch.tensor(gpt_demo.encode(gpt_demo.TEXT))
        ctx, batch = 16, 4
        positions = torch.arange(ctx).expand(batch, ctx).to(device)
        mask = gpt_demo.causal(torch.ones(batch, ctx, dtype=torch.bool), ctx).to(device)
        for s in range(3):
            x = torch.stack([data[29 * (s + i):29 * (s + i) + ctx] for i in range(batch)])
            y = torch.stack([data[29 * (s + i) + 1:29 * (s + i) + ctx + 1]
                             for i in range(batch)])
            logits = model(x.to(device), positions, mask)
            loss = rt.cross_entropy(logits.reshape(-1, len(gpt_demo.VOCAB)),
                                    y.reshape(-1).to(device))
            opt.zero_grad()
            loss.backward()
            opt.step()
        return gpt_demo.digest(*(p.detach().cpu() for p in model.parameters()))
    assert train(cuda) == train(torch.device("cpu"))
