"""torch.cumsum under reproblas.torch.reproducible() (docs/contract.md §5.7): the forward is
reproblas.cumsum along dim (§5.2), the gradient the reverse scan flip(cumsum(flip(g))) in the
same order, and the gradient of that the forward scan again."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

import reproblas as rb  # noqa: E402
import reproblas.torch as rt  # noqa: E402
from reproblas.torch import _cumsum  # noqa: E402

ORDERS = ("sequential", "pairwise")


def bits(t):
    a = t.detach().numpy() if isinstance(t, torch.Tensor) else np.asarray(t)
    return a.view({4: np.uint32, 8: np.uint64}[a.dtype.itemsize])


def same(got, want, what):
    g, w = bits(got), bits(want)
    assert g.shape == w.shape and np.array_equal(g, w), what


def wide(shape, dtype, seed):
    """Values whose sums round differently in the two orders (and from the reverse scan)."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape) * 2.0 ** rng.integers(-20, 20, shape)
    return torch.from_numpy(x.astype(dtype))


def rev_scan(g, dim, order):
    """flip(cumsum(flip(g))) along dim with reproblas, written out."""
    a = np.flip(g.detach().numpy(), axis=dim)
    return np.flip(rb.cumsum(a, axis=dim, order=order), axis=dim)


@pytest.mark.parametrize("dtype", (np.float32, np.float64))
@pytest.mark.parametrize("order", ORDERS)
def test_forward_is_reproblas_cumsum(order, dtype):
    x = wide((5, 37, 3), dtype, 1)
    with rt.reproducible(order=order):
        for dim in (0, 1, 2, -1, -2):
            want = rb.cumsum(x.numpy(), axis=dim, order=order)
            same(torch.cumsum(x, dim), want, f"torch.cumsum dim={dim}")
            same(torch.cumsum(x, dim=dim), want, f"torch.cumsum dim={dim} as keyword")
            same(x.cumsum(dim), want, f"Tensor.cumsum dim={dim}")
            same(x.cumsum(dim=dim), want, f"Tensor.cumsum dim={dim} as keyword")
        same(torch.cumsum(x[:, ::3, 1], 1), rb.cumsum(x.numpy()[:, ::3, 1], axis=1, order=order),
             "strided view")
    seq = rb.cumsum(x.numpy(), axis=1)
    assert np.array_equal(bits(seq), bits(np.cumsum(x.numpy(), axis=1)))  # NumPy's bits
    if order == "pairwise":  # the mode's order is the one used
        with rt.reproducible(order=order):
            assert not np.array_equal(bits(torch.cumsum(x, 1)), bits(seq))


@pytest.mark.parametrize("order", ORDERS)
def test_backward_is_the_reverse_scan(order):
    x = wide((4, 300), np.float32, 2).requires_grad_()
    g = wide((4, 300), np.float32, 3)
    with rt.reproducible(order=order):
        y = torch.cumsum(x, 1)
        y.backward(g)
    same(x.grad, rev_scan(g, 1, order), "gradient")
    # not the sum in the forward direction: the order of the written definition matters
    fwd = np.flip(rb.cumsum(g.numpy(), axis=1, order=order), axis=1)
    assert not np.array_equal(bits(x.grad), bits(np.ascontiguousarray(fwd)))


@pytest.mark.parametrize("order", ORDERS)
def test_double_backward(order):
    x = wide((3, 50), np.float64, 4).requires_grad_()
    g = wide((3, 50), np.float64, 5).requires_grad_()
    y = _cumsum.cumsum(x, 1, order=order)
    (gx,) = torch.autograd.grad(y, x, g, create_graph=True)
    same(gx, rev_scan(g, 1, order), "first derivative")
    h = wide((3, 50), np.float64, 6)
    (gg,) = torch.autograd.grad(gx, g, h)
    same(gg, rb.cumsum(h.numpy(), axis=1, order=order), "second derivative: the forward scan")
    assert torch.autograd.gradcheck(lambda t: _cumsum.cumsum(t, 0, order=order),
                                    (wide((6, 2), np.float64, 7).requires_grad_(),))


def test_edges_and_refusals():
    x = wide((3, 4), np.float32, 8)
    with rt.reproducible():
        same(torch.cumsum(x[:, :0], 1), np.zeros((3, 0), np.float32), "empty")
        s = torch.tensor(2.5)
        same(torch.cumsum(s, 0), np.float32(2.5), "0-d")
        ints = torch.arange(6).reshape(2, 3)
        assert torch.equal(torch.cumsum(ints, 1), torch.tensor([[0, 1, 3], [3, 7, 12]]))
        with pytest.raises(NotImplementedError, match="dtype="):
            torch.cumsum(x, 0, dtype=torch.float64)
        with pytest.raises(NotImplementedError, match="out="):
            torch.cumsum(x, 0, out=torch.empty(3, 4))
        with pytest.raises(IndexError, match="out of range"):
            torch.cumsum(x, 2)
        with pytest.raises(TypeError, match="float32 or float64"):
            torch.cumsum(x.half(), 0)
        with pytest.raises(NotImplementedError, match="cumprod"):
            torch.cumprod(x, 0)  # not routed: refused under strict
