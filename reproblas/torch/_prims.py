"""The differentiable primitives every reproblas.torch op is built from.

A primitive is a ``torch.autograd.Function`` whose forward runs on reproblas or crlibm_py and
whose backward is written with primitives again (and exact tensor views), never with
computation outside autograd: derivatives of any order exist and are themselves defined bit
for bit. Two of them carry the reductions: ``rsum`` (an ordered reproblas sum over axes) and
``expand`` (a broadcast whose gradient is ``rsum``, not PyTorch's own ``sum_to_size``, whose
bits may depend on the thread count).
"""
import numpy as np
import torch
from repro_runtime import cuda as rt_cuda

import reproblas

from . import _device

_DTYPES = (torch.float32, torch.float64)


class _NoGraph:
    """The ctx of a Function's forward run outside autograd: it records nothing."""

    def save_for_backward(self, *tensors):
        pass

    def mark_non_differentiable(self, *tensors):
        pass


def records(*args):
    """Whether autograd records a graph of an op on these arguments: grad mode is on and a
    tensor among them requires a gradient."""
    return torch.is_grad_enabled() and any(isinstance(a, torch.Tensor) and a.requires_grad
                                           for a in args)


def run(fn, *args):
    """``fn.apply(*args)``, or, where autograd would record nothing, fn's forward alone: the
    same values without autograd's bookkeeping, a few microseconds a call."""
    if records(*args):
        return fn.apply(*args)
    return fn.forward(_NoGraph(), *args)


def array(t, name, routine, dtypes=_DTYPES):
    """A float tensor as an array sharing its memory: NumPy for a CPU tensor, CuPy for a CUDA
    tensor (_device)."""
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"reproblas.torch.{routine}: {name} must be a torch.Tensor, got "
                        f"{type(t).__name__}")
    if t.layout != torch.strided:
        raise TypeError(f"reproblas.torch.{routine}: {name} has layout {t.layout}; pass a "
                        f"dense tensor (.to_dense())")
    if t.dtype not in dtypes:
        allowed = " or ".join(str(d).replace("torch.", "") for d in dtypes)
        raise TypeError(f"reproblas.torch.{routine}: {name} has dtype {t.dtype}; this op "
                        f"computes in {allowed} only: convert it explicitly "
                        f"(.float() or .double())")
    if t.is_conj() or t.is_neg():
        t = t.resolve_conj().resolve_neg()
    if _device.on_device(t):
        return _device.to_array(t, name, routine)
    if not t.is_cpu:
        raise ValueError(f"reproblas.torch.{routine}: {name} is on {t.device}; reproblas.torch "
                         f"computes on CPU and CUDA tensors: move it with .cpu() or .cuda()")
    return t.detach().numpy()


def broadcast_shapes(*shapes):
    """``torch.broadcast_shapes`` of shapes of ints, without its symbolic-shape machinery
    (tens of microseconds a call): a RuntimeError where they do not broadcast."""
    first = shapes[0]
    if all(s == first for s in shapes[1:]):
        return torch.Size(first)
    nd = max(len(s) for s in shapes)
    out = [1] * nd
    for s in shapes:
        for i, n in enumerate(s, nd - len(s)):
            if n != 1:
                if out[i] != 1 and out[i] != n:
                    raise RuntimeError(f"shapes {[tuple(s) for s in shapes]} do not broadcast")
                out[i] = n
    return torch.Size(out)


def tensor(a):
    """A C-ordered tensor of a's values; 0-d stays 0-d (np.ascontiguousarray makes it 1-D).
    A device array (a result of the CUDA kernels) becomes a tensor on its device."""
    if type(a) is not np.ndarray and rt_cuda.is_device_array(a):
        return _device.to_tensor(a)
    a = np.asarray(a)
    return torch.from_numpy(a if a.flags.c_contiguous else np.ascontiguousarray(a))


def dims_of(dim, ndim, routine):
    """`dim` (None: all axes; an int; a sequence of ints) as a sorted tuple of axes."""
    if dim is None:
        return tuple(range(ndim))
    items = (dim,) if isinstance(dim, int) else tuple(dim)
    if not items:  # PyTorch: an empty dim list reduces every axis
        return tuple(range(ndim))
    out = []
    for d in items:
        if isinstance(d, bool) or not isinstance(d, int):
            raise TypeError(f"reproblas.torch.{routine}: dim must be an int or a sequence of "
                            f"ints, got {d!r}")
        n = max(ndim, 1)
        if not -n <= d < n:
            raise IndexError(f"reproblas.torch.{routine}: dim {d} is out of range for a "
                             f"{ndim}-D tensor")
        out.append(d % n)
    if len(set(out)) != len(out):
        raise ValueError(f"reproblas.torch.{routine}: dim {items} repeats an axis")
    return tuple(sorted(out))


def _ones(x, n):
    """n ones of x's dtype where x lives (np.ones_like dispatches to CuPy for its arrays)."""
    return np.ones(n, x.dtype) if type(x) is np.ndarray else np.ones_like(x, shape=(n,))


def _ones_sum(x, dims, keepdim, order):
    """reproblas.sum over `dims` as one product with a vector of ones: each result the ordered
    sum of its slice's terms t·1 = t (exact products), in C index order over `dims`, so the
    bits of reproblas.sum on that slice (docs/contract.md §2), in one core call instead of
    one per slice. Over the leading axes: xᵀ @ ones (a view); else the kept axes moved first
    (a copy with the same values, the reduced axes keeping their order), then x @ ones. None where
    reproblas.sum is as direct (all axes, no axis, empty operands)."""
    nd, k = x.ndim, len(dims)
    if k == 0 or k == nd or x.size == 0 or order not in ("sequential", "pairwise"):
        return None
    kept_axes = [i for i in range(nd) if i not in dims]
    kept = tuple(x.shape[i] for i in kept_axes)
    m = int(np.prod(kept))
    if dims == tuple(range(k)):  # xᵀ @ ones: the same terms in the same order as ones @ x
        s = reproblas.matmul(x.reshape(-1, m).T, _ones(x, x.size // m), order=order)
    else:
        moved = x.transpose(kept_axes + list(dims))  # a device array: copy() (C order)
        a = (np.ascontiguousarray(moved) if type(x) is np.ndarray else moved.copy()).reshape(m, -1)
        s = reproblas.matmul(a, _ones(x, a.shape[1]), order=order)
    shape = tuple(1 if i in dims else n for i, n in enumerate(x.shape)) if keepdim else kept
    return s.reshape(shape)


class _Sum(torch.autograd.Function):
    """x summed over `dims` (sorted), each result one reproblas.sum of its slice in C index
    order over the reduced axes (docs/contract.md §4.1 `axis=`)."""

    @staticmethod
    def forward(ctx, x_t, dims, keepdim, order):
        x = array(x_t, "input", "sum")
        ctx.shape, ctx.dims, ctx.keepdim, ctx.order = x_t.shape, dims, keepdim, order
        if x.ndim == 0:
            return x_t.detach().clone()
        s = _ones_sum(x, dims, keepdim, order)
        if s is None:
            s = reproblas.sum(x, order, axis=dims, keepdims=keepdim)
        return tensor(s)

    @staticmethod
    def backward(ctx, g):
        if len(ctx.shape) == 0:
            return g, None, None, None
        if not ctx.keepdim:
            kept = list(ctx.shape)
            for d in ctx.dims:
                kept[d] = 1
            g = g.reshape(kept)
        return expand(g, ctx.shape, ctx.order), None, None, None


class _Expand(torch.autograd.Function):
    """x broadcast to `shape` (a view); the gradient sums over the broadcast axes with rsum."""

    @staticmethod
    def forward(ctx, x_t, shape, order):
        ctx.shape, ctx.order = x_t.shape, order
        return x_t.detach().expand(shape)

    @staticmethod
    def backward(ctx, g):
        lead = g.ndim - len(ctx.shape)
        dims = tuple(range(lead)) + tuple(lead + i for i, n in enumerate(ctx.shape)
                                          if n == 1 and g.shape[lead + i] != 1)
        if dims:
            g = rsum(g, dims, keepdim=True, order=ctx.order)
        return g.reshape(ctx.shape), None, None


def rsum(x, dim=None, keepdim=False, order="sequential"):
    """Differentiable ordered sum over `dim` (all axes if None)."""
    return run(_Sum, x, dims_of(dim, x.ndim, "sum"), bool(keepdim), order)


def expand(x, shape, order="sequential"):
    """Differentiable broadcast of x to `shape`; a no-op when the shapes already agree."""
    shape = torch.Size(shape)
    if x.shape == shape:
        return x
    return run(_Expand, x, shape, order)
