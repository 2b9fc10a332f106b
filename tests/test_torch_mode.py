"""``with reproblas.torch.reproducible():``: unmodified PyTorch code gives the bits of the same
code written with reproblas.torch functions, on every thread count and path; functions
without a reproducible version raise (strict) unless allowed."""
import hashlib

import pytest

import crlibm_py
from reproblas import _core

torch = pytest.importorskip("torch", reason="needs PyTorch (pip install -e '.[torch]')")
import reproblas.torch as rt  # noqa: E402

F = torch.nn.functional
nn = torch.nn
ISAS = [name for name in _core.isa_names() if _core.isa_code(name) >= 0]
CR_ISAS = [name for name in crlibm_py.isa_names() if crlibm_py.isa_supported(name)]


class Block(nn.Module):
    """A transformer-like block written with plain PyTorch."""

    def __init__(self):
        super().__init__()
        self.ln = nn.LayerNorm(8)
        self.qkv = nn.Linear(8, 24)
        self.out = nn.Linear(8, 8)
        self.ff, self.ff2 = nn.Linear(8, 16), nn.Linear(16, 8)

    def forward(self, x):
        q, k, v = self.qkv(self.ln(x)).chunk(3, -1)
        a = F.scaled_dot_product_attention(q.unsqueeze(1), k.unsqueeze(1), v.unsqueeze(1),
                                           is_causal=True).squeeze(1)
        x = x + self.out(a)
        x = x + self.ff2(F.gelu(self.ff(F.rms_norm(x, (8,)))))
        s = (x @ x.transpose(-1, -2)).softmax(-1).mean(-1)
        return s + torch.tanh(x).var(-1) + x.sum(-1).sigmoid()

    def explicit(self, x, order):
        """The same computation with reproblas.torch functions."""
        h = rt.layer_norm(x, (8,), self.ln.weight, self.ln.bias, order=order)
        q, k, v = rt.linear(h, self.qkv.weight, self.qkv.bias, order=order).chunk(3, -1)
        a = rt.scaled_dot_product_attention(q.unsqueeze(1), k.unsqueeze(1), v.unsqueeze(1),
                                            is_causal=True, order=order).squeeze(1)
        x = x + rt.linear(a, self.out.weight, self.out.bias, order=order)
        h = rt.linear(rt.rms_norm(x, (8,), order=order), self.ff.weight, self.ff.bias,
                      order=order)
        x = x + rt.linear(rt.gelu(h), self.ff2.weight, self.ff2.bias, order=order)
        s = rt.mean(rt.softmax(rt.matmul(x, x.transpose(-1, -2), order=order), -1, order=order),
                    -1, order=order)
        return s + rt.var(rt.tanh(x), -1, order=order) + rt.sigmoid(rt.sum(x, -1, order=order))


@pytest.mark.parametrize("order", ["sequential", "pairwise"])
def test_unmodified_code_is_the_explicit_code(order):
    torch.manual_seed(0)
    block = Block()
    x = torch.randn(2, 5, 8)
    results = []
    for run in (lambda: block(x), lambda: block.explicit(x, order)):
        block.zero_grad()
        with rt.reproducible(order=order):
            y = run()
            y.sum().backward()
        results.append([y.detach()] + [p.grad.clone() for p in block.parameters()])
    for a, b in zip(*results):
        assert torch.equal(a, b)
    block.zero_grad()
    stock = block(x)
    torch.testing.assert_close(results[0][0], stock.detach(), rtol=1e-5, atol=1e-5)


def _train_hash():
    torch.manual_seed(0)
    block = Block()
    opt = rt.SGD(block.parameters(), lr=0.1, momentum=0.9)
    g = torch.Generator().manual_seed(1)
    x, target = torch.randn(4, 5, 8, generator=g), torch.randn(4, 5, generator=g)
    digest = hashlib.sha256()
    with rt.reproducible():
        for _ in range(3):
            opt.zero_grad()
            loss = F.mse_loss(block(x), target)
            loss.backward()
            opt.step()
            digest.update(loss.detach().numpy().tobytes())
    for p in block.parameters():
        digest.update(p.detach().numpy().tobytes())
    return digest.hexdigest()


def test_unmodified_training_bits_across_threads_and_paths(monkeypatch):
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
                        found[(str(tuning), isa, threads)] = _train_hash()
    finally:
        torch.set_num_threads(torch_threads)
    assert len(set(found.values())) == 1, found


def test_strict_by_default():
    x = torch.randn(4, 3)
    with pytest.raises(NotImplementedError, match="cumprod .*not be reproducible"):
        with rt.reproducible():
            torch.cumprod(x, 0)
    with pytest.raises(NotImplementedError, match="alpha"):
        with rt.reproducible():
            x.add(x, alpha=2.0)
    with pytest.raises(NotImplementedError, match="dropout"):
        with rt.reproducible():
            F.dropout(x, 0.5, training=True)
    with pytest.raises(NotImplementedError, match="dtype="):
        with rt.reproducible():
            x.sum(dtype=torch.float64)
    with rt.reproducible(allow=[torch.cumprod]):
        torch.cumprod(x, 0)
    with rt.reproducible(strict=False):
        torch.cumprod(x, 0)
    with rt.reproducible():
        assert F.dropout(x, 0.5, training=False) is x
        assert torch.tensor([1, 2, 3]).sum().item() == 6  # an integer sum is exact
        assert torch.equal(x.sum(0), rt.sum(x, 0))
    with pytest.raises(ValueError, match="torch.reproducible"):
        rt.reproducible(order="tree")
    torch.cumprod(x, 0)  # outside the context PyTorch is untouched
