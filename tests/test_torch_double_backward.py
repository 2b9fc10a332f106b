"""Derivatives of every order through reproblas.torch: linear, matmul and conv2d.

Each backward is written with reproblas autograd Functions again, so a gradient penalty
(create_graph=True, then backward) keeps every term: it matches stock PyTorch's value,
passes gradgradcheck in float64, and gives the same bits on every thread count and CPU path.
"""
import hashlib

import pytest

torch = pytest.importorskip("torch", reason="needs PyTorch (pip install -e '.[torch]')")
import reproblas.torch as rt  # noqa: E402
from test_torch import ORDERS, hashes_over_configs  # noqa: E402

F = torch.nn.functional


def penalty_grads(layer, x):
    """The issue's gradient penalty: out.sum() + |d out.sum() / dx|^2, then backward."""
    layer.zero_grad()
    x = x.detach().clone().requires_grad_()
    out = layer(x)
    out = out * out  # makes the penalty depend on the weights through the first derivative
    (gx,) = torch.autograd.grad(out.sum(), x, create_graph=True)
    loss = out.sum() + gx.pow(2).sum()
    loss.backward()
    return [loss.detach()] + [p.grad.clone() for p in layer.parameters()] + [x.grad.clone()]


def layers(dtype, order):
    torch.manual_seed(3)
    lin = torch.nn.Linear(6, 4, dtype=dtype)
    conv = torch.nn.Conv2d(4, 6, 3, stride=(2, 1), padding=1, dilation=(1, 2), groups=2,
                           dtype=dtype)
    mine = [rt.Linear(6, 4, dtype=dtype, order=order),
            rt.Conv2d(4, 6, 3, stride=(2, 1), padding=1, dilation=(1, 2), groups=2, dtype=dtype,
                      order=order)]
    for ours, theirs in zip(mine, (lin, conv)):
        ours.load_state_dict(theirs.state_dict())
    g = torch.Generator().manual_seed(4)
    inputs = (torch.randn(5, 3, 6, generator=g, dtype=dtype),
              torch.randn(2, 4, 7, 8, generator=g, dtype=dtype))
    return list(zip(mine, (lin, conv), inputs))


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_gradient_penalty_matches_stock_pytorch(dtype, order):
    """The penalty's terms reach weight.grad (they were dropped silently before)."""
    tol = dict(rtol=2e-4, atol=2e-3) if dtype == torch.float32 else dict(rtol=1e-10, atol=1e-9)
    for ours, theirs, x in layers(dtype, order):
        got, want = penalty_grads(ours, x), penalty_grads(theirs, x)
        for a, b in zip(got, want):
            torch.testing.assert_close(a, b, **tol)
        # without the penalty's terms the weight gradient is far from stock PyTorch's
        ours.zero_grad()
        xx = x.detach().clone().requires_grad_()
        out = ours(xx)
        (out * out).sum().backward()
        assert not torch.allclose(ours.weight.grad, want[1], **tol)


def test_matmul_penalty_matches_stock_pytorch():
    g = torch.Generator().manual_seed(5)
    a0 = torch.randn(2, 1, 3, 4, generator=g, dtype=torch.float64)
    b0 = torch.randn(5, 4, 2, generator=g, dtype=torch.float64)
    grads = []
    for mm in (rt.matmul, torch.matmul):
        a, b = a0.clone().requires_grad_(), b0.clone().requires_grad_()
        out = mm(a, b).pow(2)
        (ga,) = torch.autograd.grad(out.sum(), a, create_graph=True)
        (out.sum() + ga.pow(2).sum()).backward()
        grads.append((a.grad, b.grad))
    for x, y in zip(*grads):
        torch.testing.assert_close(x, y, rtol=1e-10, atol=1e-9)


@pytest.mark.parametrize("order", ORDERS)
def test_gradgradcheck_float64(order):
    g = torch.Generator().manual_seed(6)

    def r(*shape):
        return torch.randn(shape, generator=g, dtype=torch.float64, requires_grad=True)

    x, w, b = r(2, 3, 4), r(5, 4), r(5)
    assert torch.autograd.gradgradcheck(lambda *t: rt.linear(*t, order=order), (x, w, b))
    assert torch.autograd.gradgradcheck(lambda *t: rt.linear(*t, order=order), (x[0, 0], w))
    for sa, sb in [((3, 4), (4, 2)), ((2, 1, 3, 4), (5, 4, 2)), ((4,), (2, 4, 3)),
                   ((2, 3, 4), (4,)), ((4,), (4,)), ((1, 3, 4), (2, 1, 4, 2))]:
        assert torch.autograd.gradgradcheck(lambda p, q: rt.matmul(p, q, order=order),
                                            (r(*sa), r(*sb))), (sa, sb)
    img, k, kb = r(2, 4, 6, 7), r(6, 2, 3, 2), r(6)
    for f in (lambda i, k, b: rt.conv2d(i, k, b, stride=(2, 1), padding=1, dilation=(1, 2),
                                        groups=2, order=order),
              lambda i, k, b: rt.conv2d(i[0], k, b, padding="same", groups=2, order=order)):
        assert torch.autograd.gradcheck(f, (img, k, kb))
        assert torch.autograd.gradgradcheck(f, (img, k, kb))


def test_third_derivative_of_conv2d():
    """The backward of the backward is again made of reproblas Functions."""
    x = torch.randn(1, 2, 5, 5, dtype=torch.float64, requires_grad=True)
    w = torch.randn(3, 2, 3, 3, dtype=torch.float64, requires_grad=True)
    ours = rt.conv2d(x, w, padding=1).pow(3).sum()
    stock = F.conv2d(x, w, padding=1).pow(3).sum()
    for y in (ours, stock):
        (gx,) = torch.autograd.grad(y, x, create_graph=True)
        (gw,) = torch.autograd.grad(gx.pow(2).sum(), w, create_graph=True)
        (gx2,) = torch.autograd.grad(gw.sum(), x)
        y.gx2 = gx2
    torch.testing.assert_close(ours.gx2, stock.gx2, rtol=1e-10, atol=1e-9)


def test_gradient_penalty_is_bitwise_reproducible(monkeypatch):
    """One SHA-256 of the penalty's loss and gradients on every path, thread count and block
    size, per order."""
    def run(order):
        digest = hashlib.sha256()
        for ours, _, x in layers(torch.float32, order):
            for t in penalty_grads(ours, x):
                digest.update(t.numpy().tobytes())
        return digest.hexdigest()

    per_order = []
    for order in ORDERS:
        found = hashes_over_configs(monkeypatch, lambda: run(order))
        assert len(set(found.values())) == 1, (order, found)
        per_order.append(found.popitem()[1])
    assert per_order[0] != per_order[1]
