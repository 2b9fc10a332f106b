"""reproblas.torch modules and convert(): same arguments and state dicts as torch.nn, outputs
close to torch.nn's, every unsupported module listed in one error (unless kept), and a
converted classifier's training bitwise the same on every thread count and CPU path."""
import hashlib
import math

import pytest

import crlibm_py
from reproblas import _core

torch = pytest.importorskip("torch", reason="needs PyTorch (pip install -e '.[torch]')")
import reproblas.torch as rt  # noqa: E402

nn = torch.nn
ISAS = [name for name in _core.isa_names() if _core.isa_code(name) >= 0]
CR_ISAS = [name for name in crlibm_py.isa_names() if crlibm_py.isa_supported(name)]

MODULES = [  # (torch module, ours, a call)
    (lambda: nn.ReLU(), rt.ReLU, lambda m, x, t: m(x)),
    (lambda: nn.Sigmoid(), rt.Sigmoid, lambda m, x, t: m(x)),
    (lambda: nn.Tanh(), rt.Tanh, lambda m, x, t: m(x)),
    (lambda: nn.SiLU(), rt.SiLU, lambda m, x, t: m(x)),
    (lambda: nn.GELU(), rt.GELU, lambda m, x, t: m(x)),
    (lambda: nn.GELU("tanh"), rt.GELU, lambda m, x, t: m(x)),
    (lambda: nn.Softmax(dim=1), rt.Softmax, lambda m, x, t: m(x)),
    (lambda: nn.LogSoftmax(dim=-1), rt.LogSoftmax, lambda m, x, t: m(x)),
    (lambda: nn.LayerNorm(6), rt.LayerNorm, lambda m, x, t: m(x)),
    (lambda: nn.LayerNorm(6, elementwise_affine=False), rt.LayerNorm, lambda m, x, t: m(x)),
    (lambda: nn.RMSNorm(6, eps=1e-6), rt.RMSNorm, lambda m, x, t: m(x)),
    (lambda: nn.MSELoss(reduction="sum"), rt.MSELoss, lambda m, x, t: m(x, x.flip(0))),
    (lambda: nn.NLLLoss(), rt.NLLLoss, lambda m, x, t: m(x, t)),
    (lambda: nn.BatchNorm1d(6), rt.BatchNorm1d, lambda m, x, t: m(x)),
    (lambda: nn.BatchNorm1d(6, momentum=None).eval(), rt.BatchNorm1d, lambda m, x, t: m(x)),
    (lambda: nn.Dropout(0.0), rt.Dropout, lambda m, x, t: m(x)),
    (lambda: nn.GroupNorm(3, 6), rt.GroupNorm, lambda m, x, t: m(x)),
    (lambda: nn.Embedding(6, 3, padding_idx=1), rt.Embedding, lambda m, x, t: m(t)),
    (lambda: nn.CrossEntropyLoss(torch.linspace(0.5, 1.5, 6), ignore_index=1,
                                 label_smoothing=0.1), rt.CrossEntropyLoss,
     lambda m, x, t: m(x, t)),
]


@pytest.mark.parametrize("make, ours, call", MODULES)
def test_module_matches_torch_module(make, ours, call):
    torch.manual_seed(0)
    theirs = make()
    with torch.no_grad():
        for p in theirs.parameters():
            p.uniform_(0.5, 1.5)
    mine = ours.from_torch(theirs, order="pairwise")
    assert type(mine) is ours and isinstance(mine, type(theirs)) and mine.order == "pairwise"
    assert "order='pairwise'" in repr(mine)
    assert all(p is q for p, q in zip(theirs.parameters(), mine.parameters()))
    x = torch.randn(5, 6) * 2
    t = torch.tensor([0, 1, 5, 2, 1])
    torch.testing.assert_close(call(mine, x, t), call(theirs, x, t), rtol=1e-5, atol=1e-5)
    # built directly with the same arguments: the same state dict, loadable both ways
    fresh = make()
    kwargs = {k: getattr(fresh, k) for k in ("dim", "approximate", "normalized_shape", "eps",
                                            "elementwise_affine", "reduction", "ignore_index",
                                            "label_smoothing", "num_features", "momentum",
                                            "p", "num_embeddings", "embedding_dim", "num_groups",
                                            "num_channels", "affine",
                                            "padding_idx") if hasattr(fresh, k)}
    if isinstance(fresh, nn.CrossEntropyLoss):
        kwargs["weight"] = fresh.weight
    built = ours(**kwargs, order="sequential").train(fresh.training)
    assert built.state_dict().keys() == theirs.state_dict().keys()
    built.load_state_dict(theirs.state_dict())
    theirs.load_state_dict(built.state_dict())
    torch.testing.assert_close(call(built, x, t), call(theirs, x, t), rtol=1e-5, atol=1e-5)


class Block(nn.Module):
    """The caller's own module: walked into, its children converted."""

    def __init__(self):
        super().__init__()
        self.norm = nn.LayerNorm(8)
        self.mlp = nn.Sequential(nn.Linear(8, 16), nn.GELU(), nn.Linear(16, 8))
        self.post = nn.ModuleList([nn.RMSNorm(8), nn.SiLU()])

    def forward(self, x):
        x = x + self.mlp(self.norm(x))
        for m in self.post:
            x = m(x)
        return x


def test_convert_replaces_every_supported_module():
    model = nn.Sequential(nn.Linear(4, 8), Block(), nn.Identity(), nn.Dropout(0.2),
                          nn.Flatten(), nn.Linear(8, 3), nn.LogSoftmax(1))
    params = list(model.parameters())
    x = torch.randn(5, 4)
    model.eval()
    before = model(x)
    assert rt.convert(model, order="pairwise") is model
    kinds = {type(m) for m in model.modules()}
    assert kinds == {nn.Sequential, Block, nn.ModuleList, nn.Identity, nn.Flatten, rt.Linear,
                     rt.LayerNorm, rt.GELU, rt.RMSNorm, rt.SiLU, rt.LogSoftmax, rt.Dropout}
    assert all(p is q for p, q in zip(params, model.parameters()))
    assert all(m.order == "pairwise" for m in model.modules() if hasattr(m, "order"))
    torch.testing.assert_close(model(x), before, rtol=1e-5, atol=1e-5)
    assert rt.convert(model) is model  # converted modules are left as they are


def test_convert_lists_every_module_it_cannot_convert():
    model = nn.Sequential(nn.Conv2d(1, 4, 3), nn.InstanceNorm2d(4), nn.ReLU(),
                          nn.Sequential(nn.Upsample(scale_factor=2),
                                        nn.MaxPool2d(2, ceil_mode=True)),
                          nn.Flatten(), nn.Linear(4, 2))
    with pytest.raises(TypeError) as err:
        rt.convert(model)
    msg = str(err.value)
    for name, kind in (("1", "InstanceNorm2d"), ("3.0", "Upsample"),
                       ("3.1", "MaxPool2d: ceil_mode")):
        assert f"{name} (torch.nn.modules." in msg and kind in msg
    assert "keep=(" in msg and "Conv2d" not in msg.split("keep=")[1]
    assert type(model[0]) is nn.Conv2d and type(model[2]) is nn.ReLU  # nothing changed
    rt.convert(model, keep=(nn.InstanceNorm2d, nn.Upsample, nn.MaxPool2d))
    assert type(model[0]) is rt.Conv2d and type(model[2]) is rt.ReLU
    assert type(model[1]) is nn.InstanceNorm2d and type(model[3][1]) is nn.MaxPool2d
    layer = nn.TransformerEncoderLayer(8, 2, 16)
    with pytest.raises(TypeError, match="TransformerEncoderLayer"):
        rt.convert(nn.Sequential(layer))
    # a kept module is left whole: its own children are not converted either
    rt.convert(nn.Sequential(layer), keep=nn.TransformerEncoderLayer)
    assert type(layer.self_attn) is nn.MultiheadAttention and type(layer.linear1) is nn.Linear
    with pytest.raises(ValueError, match="dropout=0.1"):
        rt.convert(nn.MultiheadAttention(4, 2, dropout=0.1))
    with pytest.raises(ValueError, match="sparse"):
        rt.convert(nn.Embedding(3, 2, sparse=True))


def test_convert_bad_arguments():
    with pytest.raises(ValueError, match="dim=None"):
        rt.convert(nn.Sequential(nn.Softmax()))
    with pytest.raises(TypeError, match="keep must hold"):
        rt.convert(nn.ReLU(), keep=("Dropout",))
    with pytest.raises(TypeError, match="torch.nn.Module"):
        rt.convert(nn.ReLU)
    with pytest.raises(ValueError, match="dim=None"):
        rt.Softmax()(torch.ones(2, 2))
    with pytest.raises(ValueError, match="order"):
        rt.LayerNorm(3, order="fast")


def _train_hash():
    torch.manual_seed(0)
    model = rt.convert(nn.Sequential(nn.Linear(10, 32), nn.LayerNorm(32), nn.GELU(),
                                     nn.Linear(32, 32), nn.SiLU(), nn.RMSNorm(32),
                                     nn.Linear(32, 4)))
    loss_fn = rt.convert(nn.CrossEntropyLoss(label_smoothing=0.05))
    g = torch.Generator().manual_seed(1)
    x, t = torch.randn(24, 10, generator=g), torch.randint(0, 4, (24,), generator=g)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    digest = hashlib.sha256()
    for _ in range(4):
        opt.zero_grad()
        loss = loss_fn(model(x), t)
        loss.backward()
        opt.step()
        digest.update(loss.detach().numpy().tobytes())
    for p in model.parameters():
        digest.update(p.detach().numpy().tobytes())
    return digest.hexdigest()


def test_converted_classifier_trains_to_the_same_bits(monkeypatch):
    torch_threads = torch.get_num_threads()
    torch.set_num_threads(1)  # the stock SGD step is PyTorch's own
    found = {}
    try:
        for tuning in ({}, dict(l1=(64, 50), l3=(2, 3, 5, 1))):
            with _core.tuning(**tuning):
                for isa in ISAS:
                    for cr_isa in CR_ISAS:
                        monkeypatch.setenv("REPROBLAS_ISA", isa)
                        monkeypatch.setenv("CRLIBM_ISA", cr_isa)
                        for threads in (1, 2, 3):
                            monkeypatch.setenv("REPROBLAS_NUM_THREADS", str(threads))
                            found[(str(tuning), isa, cr_isa, threads)] = _train_hash()
    finally:
        torch.set_num_threads(torch_threads)
    assert len(set(found.values())) == 1, found


@pytest.mark.parametrize("case", ["plain", "batch_first", "masks", "float_mask", "unbatched",
                                  "kdim", "causal"])
def test_multihead_attention_matches_torch(case):
    torch.manual_seed(1)
    kw = dict(batch_first=case == "batch_first")
    if case == "kdim":
        kw.update(kdim=6, vdim=5)
    theirs = nn.MultiheadAttention(8, 2, **kw)
    mine = rt.convert(theirs, order="pairwise")  # a new module sharing theirs's parameters
    assert type(mine) is rt.MultiheadAttention
    g = torch.Generator().manual_seed(2)
    lq, ls, n = 5, 7, 3
    q = torch.randn(lq, n, 8, generator=g)
    k = torch.randn(ls, n, kw.get("kdim", 8), generator=g)
    v = torch.randn(ls, n, kw.get("vdim", 8), generator=g)
    args = {}
    if case == "batch_first":
        q, k, v = (t.transpose(0, 1) for t in (q, k, v))
    if case == "unbatched":
        q, k, v = q[:, 0], k[:, 0], v[:, 0]
    if case == "masks":
        args = dict(attn_mask=torch.rand(lq, ls, generator=g) > 0.7,
                    key_padding_mask=torch.arange(ls).expand(n, ls) >= torch.tensor([[7], [5],
                                                                                      [3]]))
    if case == "float_mask":
        args = dict(attn_mask=torch.randn(n * 2, lq, ls, generator=g),
                    key_padding_mask=torch.tensor([[0.0] * 6 + [-math.inf]] * n))
    if case == "causal":
        q = k = v = torch.randn(ls, n, 8, generator=g)
        args = dict(attn_mask=nn.Transformer.generate_square_subsequent_mask(ls),
                    is_causal=True)
    for average in (True, False):
        (out_a, w_a), (out_b, w_b) = (m(q, k, v, average_attn_weights=average, **args)
                                      for m in (mine, theirs))
        torch.testing.assert_close(out_a, out_b, rtol=1e-5, atol=1e-5)
        torch.testing.assert_close(w_a, w_b, rtol=1e-5, atol=1e-5)
    out, w = mine(q, k, v, need_weights=False, **args)
    assert w is None and torch.equal(out, mine(q, k, v, **args)[0])
    out.sum().backward()
    assert mine.in_proj_weight is None or mine.in_proj_weight.grad is not None

