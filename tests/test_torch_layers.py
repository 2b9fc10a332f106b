"""reproblas.torch batch norm, pooling, embedding, dropout and attention
(docs/contract.md §5.7): literal references of the written graphs (bitwise), PyTorch (close),
gradcheck/gradgradcheck in float64, bits across threads and paths, batch and padding
invariance, bad input."""
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
from reproblas.torch._layers import dropout_mask  # noqa: E402

F = torch.nn.functional
ORDERS = ["sequential", "pairwise"]
ISAS = [name for name in _core.isa_names() if _core.isa_code(name) >= 0]
CR_ISAS = [name for name in crlibm_py.isa_names() if crlibm_py.isa_supported(name)]
f32 = np.float32


def data(*shape, seed=0, scale=2.0, dtype=torch.float32):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(shape, generator=g, dtype=torch.float64) * scale).to(dtype)


def bits_equal(t, a):
    return same_bits(t.detach().contiguous().numpy(), np.asarray(a))


@pytest.mark.parametrize("order", ORDERS)
def test_batch_norm_is_its_graph(order):
    x = data(4, 3, 5, 6, seed=1)
    w, b = data(3, seed=2), data(3, seed=3)
    rm, rv = data(3, seed=4), data(3, seed=5).abs() + 0.5
    rm0, rv0 = rm.clone(), rv.clone()
    y = rt.batch_norm(x, rm, rv, w, b, True, 0.1, 1e-5, order=order)
    xn = x.numpy()
    axes = (0, 2, 3)
    mu = reproblas.sum(xn, order, axis=axes, keepdims=True) / f32(120)
    d = xn - mu
    s = reproblas.sum(d * d, order, axis=axes, keepdims=True)
    r = crlibm_py.rsqrt(s / f32(120) + f32(1e-5))
    c = (1, 3, 1, 1)
    assert bits_equal(y, d * r * w.numpy().reshape(c) + b.numpy().reshape(c))
    assert bits_equal(rm, rm0.numpy() * f32(0.9) + mu.reshape(3) * f32(0.1))
    assert bits_equal(rv, rv0.numpy() * f32(0.9) + (s.reshape(3) / f32(119)) * f32(0.1))
    y = rt.batch_norm(x, rm, rv, w, b, False, order=order)
    expected = (xn - rm.numpy().reshape(c)) * crlibm_py.rsqrt(rv.numpy() + f32(1e-5)).reshape(c)
    assert bits_equal(y, expected * w.numpy().reshape(c) + b.numpy().reshape(c))


@pytest.mark.parametrize("order", ORDERS)
def test_pools_and_embedding_are_their_graph(order):
    x = data(2, 3, 7, 8, seed=6)
    xn = x.numpy()
    ones = np.ones((3, 1, 3, 3), f32)
    s = reproblas.conv2d(xn, ones, None, 2, 1, 1, 3, order=order)
    assert bits_equal(rt.avg_pool2d(x, 3, 2, 1, order=order), s / f32(9))
    g = data(*s.shape, seed=7)
    xg = x.clone().requires_grad_()
    rt.avg_pool2d(xg, 3, 2, 1, order=order).backward(g)
    assert bits_equal(xg.grad, reproblas.conv2d_grad_input(g.numpy() / f32(9), ones, xn.shape,
                                                           2, 1, 1, 3, order=order))
    # windows that tile the input (stride = kernel, no padding; the last row dropped)
    for kernel in ((2, 2), (3, 4)):
        s = reproblas.conv2d(xn, np.ones((3, 1) + kernel, f32), None, kernel, 0, 1, 3,
                             order=order)
        xg = x.clone().requires_grad_()
        y = rt.avg_pool2d(xg, kernel, order=order)
        assert bits_equal(y, s / f32(kernel[0] * kernel[1]))
        g = data(*s.shape, seed=9)
        y.backward(g)
        assert bits_equal(xg.grad, reproblas.conv2d_grad_input(
            g.numpy() / f32(kernel[0] * kernel[1]), np.ones((3, 1) + kernel, f32), xn.shape,
            kernel, 0, 1, 3, order=order))
    # global average: the ordered sum over (h, w) in C order
    glob = rt.adaptive_avg_pool2d(x[:, :, :6], 1, order=order)
    assert bits_equal(glob, reproblas.sum(np.ascontiguousarray(xn[:, :, :6]), order,
                                          axis=(2, 3), keepdims=True) / f32(48))
    # max pool backward: sequential scatter-add of g over the output positions in C order
    xm = x.clone().requires_grad_()
    y = rt.max_pool2d(xm, 3, 1, 1)
    gm = data(*y.shape, seed=8)
    y.backward(gm)
    _, idx = F.max_pool2d(x, 3, 1, 1, return_indices=True)
    expected = np.zeros((6, 56), f32)
    for plane in range(6):
        for pos, src in zip(idx.reshape(6, -1)[plane].tolist(), gm.reshape(6, -1)[plane].numpy()):
            expected[plane, pos] += src
    assert bits_equal(xm.grad, expected.reshape(x.shape))
    w = data(5, 4, seed=9).requires_grad_()
    ids = torch.tensor([[1, 3, 1, 0], [4, 1, 2, 1]])
    e = rt.embedding(ids, w, padding_idx=0)
    assert torch.equal(e, w.detach()[ids])
    ge = data(2, 4, 4, seed=10)
    e.backward(ge)
    expected = np.zeros((5, 4), f32)
    for i, v in enumerate(ids.flatten().tolist()):
        if v != 0:
            expected[v] += ge.reshape(8, 4)[i].numpy()
    assert bits_equal(w.grad, expected)


def test_dropout_mask_is_counter_based():
    m = dropout_mask((4, 1000), 0.25, seed=7)
    assert abs(1 - m.float().mean().item() - 0.25) < 0.03
    # the mask of element i depends only on (seed, offset + i): shape and slicing do not matter
    flat = dropout_mask((4000,), 0.25, seed=7)
    assert torch.equal(m.flatten(), flat)
    assert torch.equal(dropout_mask((1000,), 0.25, seed=7, offset=2000), flat[2000:3000])
    assert not torch.equal(dropout_mask((4000,), 0.25, seed=8), flat)
    # splitmix64 written out for element 0 of seed 7
    def splitmix(z):
        z = (z + 0x9E3779B97F4A7C15) % 2**64
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) % 2**64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) % 2**64
        return z ^ (z >> 31)
    for i in (0, 1, 3999):
        u = (splitmix(7 ^ splitmix(i)) >> 40) / 2**24
        assert bool(flat[i]) == (u >= 0.25)
    x = data(4, 1000, seed=11).requires_grad_()
    y = rt.dropout(x, 0.25, seed=7)
    scale = f32(1 / 0.75)
    assert bits_equal(y, np.where(m.numpy(), x.detach().numpy() * scale, f32(0)))
    y.sum().backward()
    assert bits_equal(x.grad, np.where(m.numpy(), scale, f32(0)))
    assert rt.dropout(x, 0.25, False, seed=7) is x
    assert torch.equal(rt.dropout(x, 1.0, seed=1), torch.zeros_like(x))
    d = rt.Dropout(0.5, seed=3)
    first, second = d(x), d(x)
    assert not torch.equal(first, second) and d.calls == 2
    assert torch.equal(first, rt.dropout(x, 0.5, seed=3))
    assert torch.equal(d.eval()(x), x)


@pytest.mark.parametrize("order", ORDERS)
def test_attention_is_its_graph(order):
    q, k, v = data(2, 3, 5, 8, seed=12), data(2, 3, 7, 8, seed=13), data(2, 3, 7, 8, seed=14)
    s = rt.matmul(q, k.transpose(-2, -1), order=order) * float(f32(1 / math.sqrt(8)))
    mask = torch.ones(5, 7, dtype=torch.bool).tril()
    s = torch.where(mask, s, -math.inf)
    expected = rt.matmul(rt.softmax(s, -1, order=order), v, order=order)
    got = rt.scaled_dot_product_attention(q, k, v, is_causal=True, order=order)
    assert torch.equal(got, expected)


@pytest.mark.parametrize("order", ORDERS)
def test_attention_kernel_path_is_the_graph(order):
    """Attention on operands of one batch shape skips the composition's autograd nodes: its
    output and first-order gradients (q, k, v) have the bits of the composed graph, for
    every kind of mask, without a graph (no_grad) too, and a graph-building backward agrees;
    a broadcast key batch goes through the graph."""
    from reproblas.torch import _layers
    q, k, v = data(2, 3, 5, 8, seed=19), data(2, 3, 7, 8, seed=20), data(2, 3, 7, 8, seed=21)
    q[0, 0, 0, :3] = torch.tensor([math.inf, math.nan, -0.0])
    g = data(2, 3, 7, 8, seed=25)
    bool_mask = data(5, 7, seed=22) > 0
    bool_mask[:, 0] = True
    cases = [dict(), dict(is_causal=True), dict(attn_mask=bool_mask),
             dict(attn_mask=data(2, 1, 5, 7, seed=23)), dict(attn_mask=bool_mask, scale=0.3)]
    qkv = data(2, 7, 3, 3, 8, seed=24).permute(2, 0, 3, 1, 4)  # heads cut from one projection
    for operands in ((q, k, v), (qkv[0], qkv[1], qkv[2])):
        gg = g[:, :, :operands[0].shape[2]]
        for kw in cases:
            if operands[0].shape[2] != 5 and "attn_mask" in kw:
                continue
            full = dict(attn_mask=None, is_causal=False, scale=1 / math.sqrt(8))
            full.update(kw)
            results = []
            for fn in (lambda *t: rt.scaled_dot_product_attention(*t, order=order, **kw),
                       lambda *t: _layers._attention_graph(*t, order=order, **full)):
                ins = [t.clone().requires_grad_() for t in operands]
                out = fn(*ins)
                results.append([out, *torch.autograd.grad(out, ins, gg)])
            assert type(results[0][0].grad_fn).__name__ == "_AttentionBackward", kw
            for a, b in zip(*results):
                assert bits_equal(a, b.detach()), kw
            with torch.no_grad():
                assert bits_equal(rt.scaled_dot_product_attention(*operands, order=order, **kw),
                                  results[1][0].detach())
            ins = [t.clone().requires_grad_() for t in operands]
            out = rt.scaled_dot_product_attention(*ins, order=order, **kw)
            graph = torch.autograd.grad(out, ins, gg, create_graph=True)
            assert all(t.grad_fn is not None for t in graph)
            for a, b in zip(graph, results[0][1:]):
                assert bits_equal(a.detach(), b)
    # a key/value batch broadcast over the query's heads: through the graph, same values
    with torch.no_grad():
        got = rt.scaled_dot_product_attention(q, k[:, :1], v[:, :1], order=order)
    assert bits_equal(got, rt.scaled_dot_product_attention(q, k[:, :1].expand(2, 3, 7, 8),
                                                           v[:, :1].expand(2, 3, 7, 8),
                                                           order=order))


def test_attention_rows_ignore_padding_and_batch():
    """Sequential order: a query's output is the same alone, in a batch, and with masked
    padding keys appended (the KV-cache and padded-batch cases)."""
    q, k, v = data(4, 2, 6, 8, seed=15), data(4, 2, 6, 8, seed=16), data(4, 2, 6, 8, seed=17)
    whole = rt.scaled_dot_product_attention(q, k, v, is_causal=True)
    one = rt.scaled_dot_product_attention(q[2:3], k[2:3], v[2:3], is_causal=True)
    assert torch.equal(one[0], whole[2])
    # the last query row alone (a KV cache: one query against all keys)
    last = rt.scaled_dot_product_attention(q[:, :, 5:], k, v)
    assert torch.equal(last, whole[:, :, 5:])
    pad = data(4, 2, 3, 8, seed=18) * 100
    kp, vp = torch.cat([k, pad], 2), torch.cat([v, pad], 2)
    mask = torch.zeros(6, 9, dtype=torch.bool)
    mask[:, :6] = torch.ones(6, 6, dtype=torch.bool).tril()
    assert torch.equal(rt.scaled_dot_product_attention(q, kp, vp, attn_mask=mask), whole)


CASES = [
    ("batch_norm_train", lambda x: rt.batch_norm(x, None, None, torch.linspace(0.5, 2, 3),
                                                 torch.linspace(-1, 1, 3), True),
     lambda x: F.batch_norm(x, None, None, torch.linspace(0.5, 2, 3), torch.linspace(-1, 1, 3),
                            True)),
    ("avg_pool", lambda x: rt.avg_pool2d(x, 3, 2, 1, count_include_pad=False),
     lambda x: F.avg_pool2d(x, 3, 2, 1, count_include_pad=False)),
    ("adaptive", lambda x: rt.adaptive_avg_pool2d(x, (2, 3)),
     lambda x: F.adaptive_avg_pool2d(x, (2, 3))),
    ("max_pool", lambda x: rt.max_pool2d(x, (2, 3), 1, (1, 0), 1),
     lambda x: F.max_pool2d(x, (2, 3), 1, (1, 0), 1)),
    ("attention", lambda x: rt.scaled_dot_product_attention(x, x.flip(1), x,
                                                            attn_mask=x[0, 0, :, :4] > 0),
     lambda x: F.scaled_dot_product_attention(x, x.flip(1), x, attn_mask=x[0, 0, :, :4] > 0)),
]


@pytest.mark.parametrize("name, ours, theirs", CASES, ids=[c[0] for c in CASES])
def test_close_to_pytorch(name, ours, theirs):
    x = data(2, 3, 4, 6, seed=19)
    a, b = x.clone().requires_grad_(), x.clone().requires_grad_()
    ya, yb = ours(a), theirs(b)
    assert ya.shape == yb.shape
    g = data(*ya.shape, seed=20)
    ya.backward(g)
    yb.backward(g)
    torch.testing.assert_close(ya, yb, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(a.grad, b.grad, rtol=1e-4, atol=1e-5)


def test_gradcheck_and_gradgradcheck_float64():
    x = data(2, 3, 4, 6, seed=21, scale=1.0, dtype=torch.float64).requires_grad_()
    w = torch.linspace(0.5, 2, 3, dtype=torch.float64, requires_grad=True)
    emb = data(5, 3, seed=22, dtype=torch.float64).requires_grad_()
    ids = torch.tensor([[1, 3, 1], [4, 1, 2]])
    with float64_reference():
        for op in (lambda t: rt.batch_norm(t, None, None, w, w, True),
                   lambda t: rt.scaled_dot_product_attention(t, t.flip(1), t, is_causal=True)):
            assert torch.autograd.gradcheck(op, (x,))
            assert torch.autograd.gradgradcheck(op, (x,))
    for op in (lambda t: rt.avg_pool2d(t, 3, 2, 1, count_include_pad=False),
               lambda t: rt.adaptive_avg_pool2d(t, (2, 3)), lambda t: rt.max_pool2d(t, 2, 1),
               lambda t: rt.dropout(t, 0.3, seed=5)):
        assert torch.autograd.gradcheck(op, (x,))
        assert torch.autograd.gradgradcheck(op, (x,))
    op = lambda e: rt.embedding(ids, e)  # noqa: E731  (padding_idx: no gradient by design)
    assert torch.autograd.gradcheck(op, (emb,)) and torch.autograd.gradgradcheck(op, (emb,))


def _workload(order):
    digest = hashlib.sha256()
    x = data(8, 4, 12, 12, seed=23).requires_grad_()
    w = data(4, seed=24)
    emb = data(50, 16, seed=25).requires_grad_()
    ids = torch.arange(96).reshape(8, 12) % 50
    q = rt.embedding(ids, emb).reshape(8, 12, 16)
    outs = [rt.batch_norm(x, None, None, w, w, True, order=order),
            rt.avg_pool2d(x, 3, 2, 1, order=order), rt.adaptive_avg_pool2d(x, 1, order=order),
            rt.max_pool2d(x, 3, 1, 1), rt.dropout(x, 0.2, seed=9),
            rt.scaled_dot_product_attention(q, q, q, is_causal=True, order=order)]
    total = None
    for o in outs:
        digest.update(o.detach().numpy().tobytes())
        s = rt.sum(o * o, order=order)
        total = s if total is None else total + s
    gx, ge = torch.autograd.grad(total, (x, emb), create_graph=True)
    for g in (gx, ge):
        digest.update(g.detach().numpy().tobytes())
    (ggx,) = torch.autograd.grad(rt.sum(gx * gx, order=order), x)
    digest.update(ggx.numpy().tobytes())
    return digest.hexdigest()


@pytest.mark.parametrize("order", ORDERS)
def test_bits_across_threads_and_paths(monkeypatch, order):
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
                        found[(str(tuning), isa, cr_isa, threads)] = _workload(order)
    finally:
        torch.set_num_threads(torch_threads)
    assert len(set(found.values())) == 1, found


def test_bad_input_is_a_clear_error():
    x = data(2, 3, 4, 4)
    with pytest.raises(ValueError, match="\\(N, C, H, W\\)"):
        rt.avg_pool2d(x[0, 0], 2)
    with pytest.raises(NotImplementedError, match="ceil_mode"):
        rt.avg_pool2d(x, 3, ceil_mode=True)
    with pytest.raises(NotImplementedError, match="divide"):
        rt.adaptive_avg_pool2d(x, 3)
    with pytest.raises(ValueError, match="half the kernel"):
        rt.avg_pool2d(x, 2, padding=2)
    with pytest.raises(NotImplementedError, match="return_indices"):
        rt.max_pool2d(x, 2, return_indices=True)
    with pytest.raises(ValueError, match="running_mean has shape"):
        rt.batch_norm(x, torch.zeros(2), torch.ones(3))
    with pytest.raises(ValueError, match="needs running_mean"):
        rt.batch_norm(x, None, None)
    with pytest.raises(ValueError, match="more than one value"):
        rt.batch_norm(x[:1, :, :1, :1], None, None, training=True)
    with pytest.raises(TypeError, match="float32 only"):
        rt.batch_norm(x.double(), None, None, training=True)
    with pytest.raises(IndexError, match="\\[0, 5\\)"):
        rt.embedding(torch.tensor([5]), torch.ones(5, 2))
    with pytest.raises(TypeError, match="integer tensor"):
        rt.embedding(torch.tensor([1.0]), torch.ones(5, 2))
    with pytest.raises(TypeError, match="seed must be"):
        rt.dropout(x, 0.5, seed=-1)
    with pytest.raises(ValueError, match="p must be"):
        rt.dropout(x, 1.5, seed=1)
    with pytest.raises(ValueError, match="not both"):
        rt.scaled_dot_product_attention(x, x, x, attn_mask=torch.ones(4, 4, dtype=torch.bool),
                                        is_causal=True)
    with pytest.raises(ValueError, match="does not broadcast"):
        rt.scaled_dot_product_attention(x, x, x, attn_mask=torch.ones(3, 4, dtype=torch.bool))
    with pytest.raises(NotImplementedError, match="dropout_p"):
        rt.scaled_dot_product_attention(x, x, x, dropout_p=0.1)
    with pytest.raises(ValueError, match="meta.*cpu"):
        rt.max_pool2d(torch.ones(1, 1, 2, 2, device="meta"), 2)


@pytest.mark.parametrize("order", ORDERS)
def test_group_norm_products_and_rotary_are_their_graph(order):
    x = data(3, 6, 4, 5, seed=30)
    w, b = data(6, seed=31), data(6, seed=32)
    xn = x.numpy().reshape(3, 2, 60)
    mu = reproblas.sum(xn, order, axis=2, keepdims=True) / f32(60)
    d = xn - mu
    r = crlibm_py.rsqrt(reproblas.sum(d * d, order, axis=2, keepdims=True) / f32(60) + f32(1e-5))
    c = (1, 6, 1, 1)
    expected = (d * r).reshape(x.shape) * w.numpy().reshape(c) + b.numpy().reshape(c)
    assert bits_equal(rt.group_norm(x, 2, w, b, order=order), expected)
    a, m, inp = data(4, 3, 5, seed=33), data(4, 5, 2, seed=34), data(4, 3, 2, seed=35)
    p = reproblas.matmul(a.numpy(), m.numpy(), order=order)
    assert bits_equal(rt.bmm(a, m, order=order), p)
    assert bits_equal(rt.baddbmm(inp, a, m, beta=0.5, alpha=2.0, order=order),
                      inp.numpy() * f32(0.5) + p * f32(2.0))
    nan = torch.full((4, 3, 2), math.nan)
    assert bits_equal(rt.baddbmm(nan, a, m, beta=0.0, order=order), p)
    cos, sin = rt.rotary_cos_sin(torch.arange(7), 8, 500.0)
    freq = crlibm_py.exp(crlibm_py.log(f32(500)) * (-(np.arange(4, dtype=f32) * f32(2)) / f32(8)))
    angle = np.arange(7, dtype=f32)[:, None] * freq[None, :]
    angle = np.concatenate([angle, angle], 1)
    assert bits_equal(cos, crlibm_py.cos(angle)) and bits_equal(sin, crlibm_py.sin(angle))
    q = data(2, 7, 8, seed=36)
    qn = q.numpy()
    rot = np.concatenate([-qn[..., 4:], qn[..., :4]], -1)
    assert bits_equal(rt.apply_rotary(q, cos, sin), qn * cos.numpy() + rot * sin.numpy())


def test_group_norm_products_and_rotary_close_to_pytorch():
    x = data(3, 6, 4, 5, seed=37).requires_grad_()
    w, b = data(6, seed=38), data(6, seed=39)
    torch.testing.assert_close(rt.group_norm(x, 3, w, b), F.group_norm(x, 3, w, b),
                               rtol=1e-5, atol=1e-5)
    a, m, inp = data(4, 3, 5, seed=40), data(4, 5, 2, seed=41), data(4, 1, 2, seed=42)
    torch.testing.assert_close(rt.baddbmm(inp, a, m, beta=0.5, alpha=2.0),
                               torch.baddbmm(inp, a, m, beta=0.5, alpha=2.0))
    pos = torch.arange(64)
    cos, sin = rt.rotary_cos_sin(pos, 16)
    inv = 1.0 / (10000.0 ** (torch.arange(0, 16, 2, dtype=torch.float64) / 16))
    ang = pos[:, None].double() * inv[None]
    ang = torch.cat([ang, ang], 1)
    torch.testing.assert_close(cos.double(), ang.cos(), rtol=0, atol=2e-5)
    torch.testing.assert_close(sin.double(), ang.sin(), rtol=0, atol=2e-5)


def test_group_norm_products_and_rotary_gradients_float64():
    x = data(2, 6, 3, seed=43, scale=1.0, dtype=torch.float64).requires_grad_()
    w = torch.linspace(0.5, 2, 6, dtype=torch.float64, requires_grad=True)
    a = data(3, 2, 4, seed=44, dtype=torch.float64).requires_grad_()
    m = data(3, 4, 5, seed=45, dtype=torch.float64).requires_grad_()
    inp = data(3, 2, 5, seed=46, dtype=torch.float64).requires_grad_()
    xr = data(2, 3, 6, seed=48, scale=1.0, dtype=torch.float64).requires_grad_()
    cs = data(3, 6, seed=47, dtype=torch.float64)
    with float64_reference():
        for f, args in ((lambda t, ww: rt.group_norm(t, 3, ww, ww), (x, w)),
                        (lambda t: rt.apply_rotary(t, cs.cos(), cs.sin()), (xr,)),
                        (lambda i, p, q: rt.baddbmm(i, p, q, beta=0.5, alpha=2.0), (inp, a, m))):
            assert torch.autograd.gradcheck(f, args)
            assert torch.autograd.gradgradcheck(f, args)


def test_group_norm_products_and_rotary_bad_input():
    x = data(2, 6, 3)
    with pytest.raises(ValueError, match="dividing the 6 channels"):
        rt.group_norm(x, 4)
    with pytest.raises(ValueError, match="3-D"):
        rt.bmm(x[0], x[0].T)
    with pytest.raises(ValueError, match="batch sizes"):
        rt.bmm(x, data(3, 3, 2))
    with pytest.raises(ValueError, match="does not broadcast"):
        rt.baddbmm(data(2, 6, 6), x, data(2, 3, 5))
    with pytest.raises(ValueError, match="positive even"):
        rt.rotary_cos_sin(torch.arange(3), 5)
    with pytest.raises(TypeError, match="integer tensor"):
        rt.rotary_cos_sin(torch.arange(3.0), 4)
    with pytest.raises(ValueError, match="even"):
        rt.apply_rotary(x, x, x)
