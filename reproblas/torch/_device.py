"""CUDA tensors: reproblas's and crlibm_py's CUDA kernels reached through DLPack.

A CUDA tensor's memory goes to CuPy without a copy (``cupy.from_dlpack``); reproblas and
crlibm_py run their CUDA kernels on it (they choose the GPU by where the arrays live), and
the result comes back as a tensor on the same device (``torch.from_dlpack``). The steps
between those calls are PyTorch's own elementwise operations on the device, each one IEEE
operation (divisions by a number through ``div``: PyTorch's CUDA kernels multiply by a
rounded reciprocal when the divisor is a host scalar).

The seam is ``on_device`` / ``to_array`` / ``to_tensor``: tests replace them to send CPU
tensors down this route with the host emulation of the CUDA kernels.
"""
import numpy as np
import torch

INSTALL = "pip install cupy-cuda12x (or cupy-cuda11x for a CUDA 11 driver)"


def on_device(t):
    """Whether t takes the device route: a CUDA tensor."""
    return t.is_cuda


def _cupy(t, name, routine):
    try:
        import cupy
    except ImportError:
        raise RuntimeError(f"reproblas.torch.{routine}: {name} is on {t.device}; CUDA tensors "
                           f"run on reproblas's CUDA kernels through CuPy, which is not "
                           f"installed: {INSTALL}") from None
    return cupy


def to_array(t, name="input", routine="op"):
    """t (a CUDA tensor, its conjugate and negative bits resolved) as a CuPy array sharing
    its memory."""
    cupy = _cupy(t, name, routine)
    current = cupy.cuda.runtime.getDevice()
    if t.device.index is not None and t.device.index != current:
        raise ValueError(f"reproblas.torch.{routine}: {name} is on {t.device} but CuPy's "
                         f"current device is cuda:{current}; make it current first "
                         f"(cupy.cuda.Device({t.device.index}).use())")
    return cupy.from_dlpack(t.detach())


def to_tensor(a, like=None):
    """A CuPy array (a reproblas or crlibm_py result) as a tensor on its device, sharing its
    memory; a layout a tensor cannot take (a negative stride) is copied first."""
    if any(s < 0 for s in a.strides):
        a = a.copy()
    return torch.from_dlpack(a)


def same_device(routine, **tensors):
    """Every given tensor (None or a non-tensor: skipped) is on one device, or a ValueError
    naming them."""
    first = None
    for t in tensors.values():
        if not isinstance(t, torch.Tensor):
            continue
        if first is None:
            first = t
        elif t.is_cpu != first.is_cpu or (not t.is_cpu and t.device != first.device):
            desc = ", ".join(f"{k} is on {v.device}" for k, v in tensors.items()
                             if isinstance(v, torch.Tensor))
            raise ValueError(f"reproblas.torch.{routine}: mixed devices ({desc}); nothing is "
                             f"moved silently: move them to one device with .to()")


def div(t, c):
    """t ⊘ c for a Python number (or a tensor) c, one IEEE division per element on every
    device (PyTorch's CUDA division by a host scalar multiplies by its rounded reciprocal)."""
    if not on_device(t) or isinstance(c, torch.Tensor):
        return t / c
    return t / torch.full((), c, dtype=t.dtype, device=t.device)


def sqrt(t):
    """The correctly rounded square root of a device tensor (CuPy's IEEE sqrt)."""
    return to_tensor(np.sqrt(to_array(t, "tensor", "sqrt")), t)  # cupy.sqrt via __array_ufunc__


def fused(*tensors):
    """Whether these device-route tensors are ones the fused CPU kernels would take on the CPU
    (float32, strided; None: absent): the op then runs as one autograd node (node), as
    there."""
    return on_device(tensors[0]) and all(
        t is None or (t.dtype == torch.float32 and t.layout == torch.strided) for t in tensors)


class _Node(torch.autograd.Function):
    """A composed op as one autograd node: the forward runs graph(*args) without recording,
    the backward differentiates graph recomposed on the saved inputs (create_graph when a
    graph is being built). On the CPU such an op is one fused kernel node whose gradient has
    the composition's bits; one node here too keeps the order in which autograd adds the
    gradients of a tensor used by several ops, so a model gets the CPU's bits, not only
    each op."""

    @staticmethod
    def forward(ctx, graph, *args):
        ctx.graph = graph
        ctx.slots = [i for i, a in enumerate(args) if isinstance(a, torch.Tensor)]
        ctx.rest = [None if isinstance(a, torch.Tensor) else a for a in args]
        ctx.save_for_backward(*(args[i] for i in ctx.slots))
        with torch.no_grad():
            return graph(*args)

    @staticmethod
    def backward(ctx, g):
        args = list(ctx.rest)
        for i, t in zip(ctx.slots, ctx.saved_tensors):
            args[i] = t
        need = ctx.needs_input_grad[1:]
        wanted = [i for i in ctx.slots if need[i]]
        with torch.enable_grad():
            found = iter(torch.autograd.grad(ctx.graph(*args), [args[i] for i in wanted], g,
                                             create_graph=torch.is_grad_enabled(),
                                             allow_unused=True))
        return (None, *(next(found) if i in wanted else None for i in range(len(args))))


def node(graph, *args):
    """graph(*args) as one autograd node (_Node)."""
    return _Node.apply(graph, *args)


class _IndexAdd(torch.autograd.Function):
    """out (rows, ...) with out[r] = the sum, sequential from +0, of src[p] over the positions
    p (ascending) with index[p] = r: the CPU's index_add / scatter_add onto zeros, without
    atomics (PyTorch's CUDA scatter adds are atomic: their order varies and float32 atomics
    flush subnormals). Round k adds each row's k-th term; within a round the rows are
    distinct, so each add is one IEEE operation on one element."""

    @staticmethod
    def forward(ctx, src, index, rows):
        ctx.save_for_backward(index)
        src = src.detach()
        out = torch.zeros((rows,) + tuple(src.shape[1:]), dtype=src.dtype, device=src.device)
        if index.numel() == 0:
            return out
        sorted_index, order = torch.sort(index, stable=True)
        _, counts = torch.unique_consecutive(sorted_index, return_counts=True)
        starts = torch.cumsum(counts, 0) - counts
        rank = torch.arange(index.numel(), device=index.device) - \
            torch.repeat_interleave(starts, counts)
        for k in range(int(counts.max())):
            pos = order[rank == k]
            rows_k = index[pos]
            out[rows_k] = out[rows_k] + src[pos]
        return out

    @staticmethod
    def backward(ctx, g):
        (index,) = ctx.saved_tensors
        return take(g, index), None, None


class _Take(torch.autograd.Function):
    """x[index] along axis 0 (exact); the gradient is _IndexAdd."""

    @staticmethod
    def forward(ctx, x, index):
        ctx.save_for_backward(index)
        ctx.rows = x.shape[0]
        return x.detach().index_select(0, index)

    @staticmethod
    def backward(ctx, g):
        (index,) = ctx.saved_tensors
        return index_add(g, index, ctx.rows), None


def index_add(src, index, rows):
    """The sequential index_add of src's rows into `rows` zero rows (differentiable)."""
    return _IndexAdd.apply(src, index, rows)


def take(x, index):
    """x[index] along axis 0 (differentiable; its gradient is index_add)."""
    return _Take.apply(x, index)


def gather(x, dim, index):
    """``torch.gather(x, dim, index)`` for an index of x's shape with `dim` of size 1 (one pick
    per slice), through take: its gradient adds each picked element once onto +0 without
    atomics."""
    dim %= x.ndim
    shape = list(x.shape)
    n = shape[dim]
    inner = 1
    for s in shape[dim + 1:]:
        inner *= s
    outer_shape = list(index.shape)
    flat = torch.arange(index.numel(), device=index.device).reshape(outer_shape)
    # position of (i_before, 0, i_after) in the index -> its element in x
    before = flat // inner  # (i_before) since index's dim has size 1
    after = flat % inner
    pos = (before * n + index.long()) * inner + after
    return take(x.reshape(-1), pos.reshape(-1)).reshape(outer_shape)
