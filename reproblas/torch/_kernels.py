"""The fused C kernels of reproblas.torch (src/c/reproblas/nn.h), float32 CPU tensors.

Each kernel computes the graph of docs/contract.md §5.7 bit for bit (tests compare it with
the composition of reproblas sums, crlibm_py functions and PyTorch's IEEE operations that the
contract writes), in the library's floating-point environment, on the path and thread count
REPROBLAS_ISA / REPROBLAS_NUM_THREADS ask for.
"""
import math

import numpy as np
import torch
from torch.autograd.graph import increment_version

from .. import _core, _cpu

_MAP = {name: i for i, name in enumerate(_core.NN_MAP_OPS)}
_ROW = {name: i for i, name in enumerate(_core.NN_ROW_OPS)}
_ORDERS = {"sequential": 0, "pairwise": 1, "kahan": 2, "exact": 3}


def usable(*tensors):
    """Whether the kernels take these tensors: float32 CPU strided tensors (None: absent)."""
    for t in tensors:
        if t is not None and (not isinstance(t, torch.Tensor) or t.dtype is not torch.float32
                              or not t.is_cpu or t.layout is not torch.strided):
            return False
    return True


def _array(t):
    """t's values as a C-ordered float32 NumPy array (t's memory when it is contiguous)."""
    if t.requires_grad:
        t = t.detach()
    try:
        return t.contiguous().numpy()
    except RuntimeError:  # a conjugate or negative view (numpy() refuses their bits)
        return t.resolve_conj().resolve_neg().contiguous().numpy()


def _out(shape):
    """A new float32 tensor of `shape` and its memory as a NumPy array (cheaper than
    torch.empty and .numpy())."""
    a = np.empty(shape, np.float32)
    return torch.from_numpy(a), a


def view(t):
    """t's memory as a NumPy array of its shape and strides (a copy only for a conjugate or
    negative view), for the core's plain calls, which take any non-negative strides."""
    t = t.detach()
    if t.is_conj() or t.is_neg():
        t = t.resolve_conj().resolve_neg()
    return t.numpy()


def map_forward(name, x):
    """op(x) elementwise: exp log sin cos tanh erf rsqrt sigmoid silu gelu gelu_tanh."""
    out, o = _out(x.shape)
    _core.nn_map(_MAP[name], _array(x), None, o, _cpu.isa(), _cpu.threads())
    return out


def map_backward(name, x, g):
    """The gradient of op at x (y for exp, tanh, rsqrt) for the incoming g."""
    out, o = _out(x.shape)
    _core.nn_map(len(_MAP) + _MAP[name], _array(x), _array(g.expand(x.shape)), o,
                 _cpu.isa(), _cpu.threads())
    return out


def _last(t, dim):
    """t with `dim` moved last, as a C-ordered (rows, n) array, and how to move back."""
    moved = t.movedim(dim, -1) if dim != t.ndim - 1 else t
    a = _array(moved)
    return a.reshape(-1, a.shape[-1] if a.ndim else 1), moved.shape


def rows(name, order, x, dim, g=None):
    """A row op over `dim` (softmax, log_softmax, and their backward with g)."""
    a, shape = _last(x, dim)
    ga = None if g is None else _last(g, dim)[0]
    out, o = _out(shape)
    _core.nn_rows(_ROW[name], _ORDERS[order], a, ga, None, o.reshape(a.shape),
                  a.shape[0], a.shape[1], _cpu.isa(), _cpu.threads())
    return out.movedim(-1, dim).contiguous() if dim != x.ndim - 1 else out


def mask_bytes(mask, shape):
    """A boolean mask broadcast to `shape` as C-ordered bytes (NumPy uint8, flat)."""
    return mask.expand(shape).contiguous().numpy().view(np.uint8).reshape(-1)


def attention_softmax(order, s, scale, mask, g=None):
    """softmax over the last axis of s ⊗ scale, −inf where the mask (mask_bytes, or None) is
    0; with g, its backward (s: the forward's output): where(mask, softmax_b, 0) ⊗ scale."""
    n = s.shape[-1]
    a = _array(s).reshape(-1, n)
    out, o = _out(s.shape)
    _core.nn_attention_softmax(g is not None, _ORDERS[order], a,
                               None if g is None else _array(g).reshape(-1, n), mask,
                               float(scale), o.reshape(a.shape), a.shape[0], n,
                               _cpu.isa(), _cpu.threads())
    return out


_REDUCTIONS = {"none": 0, "sum": 1, "mean": 2}


def cross_entropy(order, x, t, ignore, reduction):
    """Cross entropy of float32 (N, C) logits x against int64 indices t (N,): (lp, the loss:
    per row, or the 0-d sum / mean, the rows not ignored), or the first index outside [0, C)
    that is not `ignore` (an int; nothing computed)."""
    lp, lpa = _out(x.shape)
    loss, la = _out(x.shape[:1])
    total, ta = _out(()) if reduction != "none" else (None, None)
    bad, valid = _core.nn_cross_entropy(_ORDERS[order], _array(x), t.numpy(), ignore,
                                        _REDUCTIONS[reduction], lpa, la, ta, _cpu.isa(),
                                        _cpu.threads())
    if bad is not None:
        return bad
    return lp, loss if total is None else total, valid


def cross_entropy_backward(order, lp, t, ignore, g, div):
    """dx of cross_entropy() from its lp for the loss gradient g (0-d, or one per row);
    div: the mean's count, or 0."""
    dx, dxa = _out(lp.shape)
    _core.nn_cross_entropy_backward(_ORDERS[order], _array(lp), t.numpy(), ignore,
                                    _array(g).reshape(-1), float(div), dxa, _cpu.isa(),
                                    _cpu.threads())
    return dx


def _reduced_last(t, dims):
    """t with the axes `dims` moved last (their order kept) as a C-ordered (rows, n) array."""
    kept = [i for i in range(t.ndim) if i not in dims]
    a = _array(t.permute(kept + list(dims)))
    n = 1
    for d in dims:
        n *= t.shape[d]
    return a.reshape(-1, n)


def logsumexp(order, x, dims):
    """log(Σ exp(x ⊖ m)) ⊕ m over `dims`, keepdim shape."""
    a = _reduced_last(x, dims)
    out, o = _out([1 if i in dims else s for i, s in enumerate(x.shape)])
    _core.nn_rows(_ROW["logsumexp"], _ORDERS[order], a, None, None, o.reshape(-1),
                  a.shape[0], a.shape[1], _cpu.isa(), _cpu.threads())
    return out


def logsumexp_backward(order, x, dims, r, g):
    """g ⊗ exp(x ⊖ r), r and g of the keepdim shape."""
    kept = [i for i in range(x.ndim) if i not in dims]
    a = _reduced_last(x, dims)
    out, o = _out([x.shape[i] for i in kept + list(dims)])
    _core.nn_rows(_ROW["logsumexp_b"], _ORDERS[order], a, _array(g).reshape(-1),
                  _array(r).reshape(-1), o.reshape(a.shape), a.shape[0], a.shape[1],
                  _cpu.isa(), _cpu.threads())
    inverse = [0] * x.ndim
    for pos, axis in enumerate(kept + list(dims)):
        inverse[axis] = pos
    return out.permute(inverse).contiguous()


def _rows_over_last(x, k):
    """x's array as rows of its last k axes, and their length."""
    n = math.prod(x.shape[x.ndim - k:])
    return _array(x).reshape(-1, n), n


def norm(rms, order, x, k, weight, bias, eps):
    """layer_norm / rms_norm over the last k axes: (y, stats (rows, 3): mu, r and the sum of
    squares per row)."""
    a2, n = _rows_over_last(x, k)
    y, ya = _out(x.shape)
    stats, sa = _out((a2.shape[0], 3))
    w = None if weight is None else _array(weight).reshape(-1)
    b = None if bias is None else _array(bias).reshape(-1)
    _core.nn_norm(rms, _ORDERS[order], a2, w, b, float(eps), ya.reshape(a2.shape), sa,
                  a2.shape[0], n, _cpu.isa(), _cpu.threads())
    return y, stats


def norm_backward(rms, order, x, k, weight, g, stats, want_weight):
    """The first-order backward of norm(): (dx, rows of g ⊗ y0 shaped like x, or None)."""
    a2, n = _rows_over_last(x, k)
    dx, dxa = _out(x.shape)
    gw, gwa = _out(x.shape) if want_weight else (None, None)
    w = None if weight is None else _array(weight).reshape(-1)
    _core.nn_norm_backward(rms, _ORDERS[order], a2, w, _array(g.expand(x.shape)).reshape(-1, n),
                           _array(stats), dxa.reshape(a2.shape),
                           None if gwa is None else gwa.reshape(a2.shape), a2.shape[0], n,
                           _cpu.isa(), _cpu.threads())
    return dx, gw


def _channels(x):
    """x (N, C, ...) as the C-ordered array and its (planes, channels, plane) = (N, C, ∏ rest)."""
    a = _array(x)
    return a, x.shape[0], x.shape[1], math.prod(x.shape[2:])


def batch_norm(order, x, weight, bias, eps):
    """Training batch norm of x (N, C, ...) with its affine step: (y, stats (C, 3): mu, r and
    the sum of squares per channel)."""
    a, planes, channels, plane = _channels(x)
    y, ya = _out(x.shape)
    stats, sa = _out((channels, 3))
    w = None if weight is None else _array(weight)
    b = None if bias is None else _array(bias)
    _core.nn_batch_norm(_ORDERS[order], a, w, b, float(eps), ya, sa, planes, channels, plane,
                        _cpu.isa(), _cpu.threads())
    return y, stats


def batch_norm_running(mu, s, running_mean, running_var, momentum, n):
    """The running statistics' update in place from the kernel's mu and s (None: absent);
    False (nothing done) where a buffer is not a float32 contiguous CPU tensor."""
    buffers = [t for t in (running_mean, running_var) if t is not None]
    if not usable(*buffers) or not all(t.is_contiguous() for t in buffers):
        return False
    _core.nn_batch_norm_running(_array(mu), _array(s), 1.0 - momentum, momentum, n - 1.0,
                                None if running_mean is None else _inplace(running_mean),
                                None if running_var is None else _inplace(running_var))
    for t in buffers:
        increment_version(t)  # as copy_ would
    return True


def batch_norm_eval(x, running_mean, running_var, weight, bias, eps):
    """Batch norm in evaluation of x (N, C, ...) with the running statistics (no graph)."""
    a, planes, channels, plane = _channels(x)
    y, ya = _out(x.shape)
    _core.nn_batch_norm_eval(a, _array(running_mean), _array(running_var),
                             None if weight is None else _array(weight),
                             None if bias is None else _array(bias), float(eps), ya,
                             planes, channels, plane, _cpu.isa(), _cpu.threads())
    return y


def batch_norm_backward(order, x, weight, g, stats, want_weight, want_bias):
    """The first-order backward of batch_norm(): (dx, dweight or None, dbias or None)."""
    a, planes, channels, plane = _channels(x)
    dx, dxa = _out(x.shape)
    dw, dwa = _out(channels) if want_weight else (None, None)
    db, dba = _out(channels) if want_bias else (None, None)
    _core.nn_batch_norm_backward(_ORDERS[order], a, None if weight is None else _array(weight),
                                 _array(g.expand(x.shape)), _array(stats), dxa, dwa, dba,
                                 planes, channels, plane, _cpu.isa(), _cpu.threads())
    return dx, dw, db


def _inplace(t):
    """t's memory as a NumPy array to update in place (t C-contiguous)."""
    return t.detach().numpy()


def _flat(t):
    """Whether t is float32 CPU C-contiguous memory without a conjugate or negative bit."""
    return (t.dtype is torch.float32 and t.is_cpu and t.layout is torch.strided and
            t.is_contiguous() and not t.is_neg() and not t.is_conj())


def steppable(p, *state):
    """Whether the optimizer kernels update p (and its state tensors) in place: float32 CPU
    C-contiguous tensors, p's gradient a float32 CPU strided tensor."""
    g = p.grad
    return (_flat(p) and g.dtype is torch.float32 and g.is_cpu and g.layout is torch.strided
            and all(t is None or _flat(t) for t in state))


def _grad(p, keep):
    """p's gradient as flat memory (a copy, kept alive in `keep`, where it is not)."""
    g = p.grad
    if not _flat(g):
        g = g.detach().resolve_conj().resolve_neg().contiguous()
    keep.append(g)
    return g.data_ptr()


def sgd_many(steps, lr, wd, mu, damp1, maximize, nesterov):
    """SGD steps in place, one per (p, momentum buffer or None, first step) of `steps` (each
    tensor steppable)."""
    keep = []
    rows = [(p.data_ptr(), _grad(p, keep), 0 if buf is None else buf.data_ptr(), p.numel(),
             first) for p, buf, first in steps]
    _core.nn_sgd_many(lr, wd, mu, damp1, maximize, nesterov, rows, _cpu.isa(), _cpu.threads())
    increment_version([p for p, _, _ in steps])  # as p.copy_ would: a graph that saved p sees it


def adam_many(steps, decay, wd, b1, one_b1, b2, one_b2, eps, maximize, decoupled):
    """Adam / AdamW steps in place, one per (p, m, v, step size s, bias correction c2) of
    `steps` (each tensor steppable)."""
    keep = []
    rows = [(p.data_ptr(), _grad(p, keep), m.data_ptr(), v.data_ptr(), p.numel(), s, c2)
            for p, m, v, s, c2 in steps]
    _core.nn_adam_many(decay, wd, b1, one_b1, b2, one_b2, eps, maximize, decoupled, rows,
                       _cpu.isa(), _cpu.threads())
    increment_version([p for p, *_ in steps])
