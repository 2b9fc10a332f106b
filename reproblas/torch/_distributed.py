"""Data-parallel gradients whose bits do not depend on the number of processes
(docs/contract.md §5.8).

The global batch is cut into a fixed number S of virtual shards; each shard's loss and gradient
are computed as if the shard were the whole batch, the S results are exchanged bit for bit
(``all_gather`` copies, it does not add) and every process reduces them over the shard index
with one ordered reproblas sum. Which process computed which shard cannot change a bit, so 1, 2
or 4 processes (or one process looping over the S shards) give the same gradients, buffers and
loss, hence the same weights after the optimizer step.
"""
import torch

import reproblas
from reproblas import _validate

from . import _device
from ._modules import Dropout
from ._prims import array, tensor

# rt.Dropout in shard s uses seed + s * _SHARD_SEED_STRIDE: the shards' masks differ and
# depend on s alone, never on the rank that computes the shard.
_SHARD_SEED_STRIDE = 1 << 32


def _group_info(group):
    """(rank, world size, backend) of the process group; (0, 1, None) without one."""
    dist = torch.distributed
    if not dist.is_available() or not dist.is_initialized():
        if group is not None:
            raise ValueError("reproblas.torch.data_parallel_backward: a process group was "
                             "given but torch.distributed is not initialised")
        return 0, 1, None
    return dist.get_rank(group), dist.get_world_size(group), dist.get_backend(group)


def _check_shards(shards, world, routine):
    if isinstance(shards, bool) or not isinstance(shards, int) or shards < 1:
        raise ValueError(f"reproblas.torch.{routine}: shards must be a positive int, got "
                         f"{shards!r}")
    if shards % world:
        raise ValueError(f"reproblas.torch.{routine}: shards ({shards}) must be a multiple of "
                         f"the number of processes ({world})")


def shard_slices(n, shards, rank=0, world_size=1):
    """The row ranges of the shards that process ``rank`` of ``world_size`` computes.

    Shard s of a batch of n rows is ``torch.tensor_split``'s s-th part (the first ``n % shards``
    shards have one row more); process r computes shards ``r·S/P … (r+1)·S/P − 1``. Returns
    ``[(s, slice), ...]`` in shard order.
    """
    for name, v in (("n", n), ("rank", rank), ("world_size", world_size)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise ValueError(f"reproblas.torch.shard_slices: {name} must be an int >= 0, got "
                             f"{v!r}")
    if world_size < 1 or rank >= world_size:
        raise ValueError(f"reproblas.torch.shard_slices: rank {rank} is not in a world of "
                         f"{world_size}")
    _check_shards(shards, world_size, "shard_slices")
    if n < shards:
        raise ValueError(f"reproblas.torch.shard_slices: a batch of {n} rows cannot fill "
                         f"{shards} shards")
    base, extra = divmod(n, shards)
    per = shards // world_size
    out = []
    for s in range(rank * per, (rank + 1) * per):
        start = s * base + min(s, extra)
        out.append((s, slice(start, start + base + (s < extra))))
    return out


def _float_buffers(model):
    names = [(n, b) for n, b in model.named_buffers() if b.is_floating_point()]
    return [b for _, b in names]


def _exchange(local, group, backend, world):
    """all_gather of every rank's (k, m) block, concatenated in rank order: the (S, m)
    matrix in shard order, the same bits on every rank (a copy, no arithmetic)."""
    if world == 1:
        return local
    send = local
    if backend == "nccl":  # NCCL moves CUDA memory only; the copy there and back is exact
        send = local.to(torch.device("cuda", torch.cuda.current_device()))
    parts = [torch.empty_like(send) for _ in range(world)]
    torch.distributed.all_gather(parts, send.contiguous(), group=group)
    return torch.cat([p.to(local.device) for p in parts])


def data_parallel_backward(model, loss_fn, batch, *, shards, order="sequential",
                           reduction="mean", group=None):
    """Gradients of a batch cut into ``shards`` virtual shards, the same bits for any number
    of processes (docs/contract.md §5.8).

    ``batch`` is a tensor or a tuple of tensors holding the **global** batch along axis 0
    (every process passes the same one); ``loss_fn(*shard)`` returns the scalar loss of one
    shard (with its own reduction over the shard's rows). Each shard is run as if alone (the
    buffers reset to their values at the start of the call, so batch norm normalises with the
    shard's own statistics); the shards' gradients are exchanged with ``all_gather`` and summed
    over the shard index in ``order`` on every process, then divided by S
    (``reduction="mean"``) or not (``"sum"``). Floating buffers become the mean of the shards'
    updated buffers (an element equal in every shard keeps its value). Sets (replaces)
    ``p.grad`` of every parameter that requires a gradient (``None`` where no shard reached
    it) and returns the loss reduced the same way.

    Without an initialised ``torch.distributed`` this process computes all S shards; with one,
    process r of P computes shards r·S/P … (r+1)·S/P − 1 (P must divide S). Gloo (CPU) and
    NCCL (the exchange then goes through the current CUDA device) both only copy.
    """
    routine = "data_parallel_backward"
    _validate.order(order, f"torch.{routine}")
    if reduction not in ("mean", "sum"):
        raise ValueError(f"reproblas.torch.{routine}: reduction must be 'mean' or 'sum', got "
                         f"{reduction!r}")
    if not isinstance(model, torch.nn.Module):
        raise TypeError(f"reproblas.torch.{routine}: model must be a torch.nn.Module, got "
                        f"{type(model).__name__}")
    if not callable(loss_fn):
        raise TypeError(f"reproblas.torch.{routine}: loss_fn must be callable")
    if isinstance(batch, torch.Tensor):
        batch = (batch,)
    batch = tuple(batch)
    if not batch or not all(isinstance(t, torch.Tensor) and t.dim() >= 1 for t in batch):
        raise TypeError(f"reproblas.torch.{routine}: batch must be a tensor or a tuple of "
                        f"tensors with a batch axis")
    n = batch[0].shape[0]
    if any(t.shape[0] != n for t in batch):
        raise ValueError(f"reproblas.torch.{routine}: the batch tensors have different "
                         f"lengths {[t.shape[0] for t in batch]}")
    rank, world, backend = _group_info(group)
    _check_shards(shards, world, routine)
    mine = shard_slices(n, shards, rank, world)

    params = [p for p in model.parameters() if p.requires_grad]
    fbufs = _float_buffers(model)
    dtypes = {t.dtype for t in params + fbufs}
    if len(dtypes) != 1 or next(iter(dtypes)) not in (torch.float32, torch.float64):
        raise TypeError(f"reproblas.torch.{routine}: the parameters and floating buffers must "
                        f"share one dtype, float32 or float64; got "
                        f"{sorted(str(d) for d in dtypes)}")
    dtype = dtypes.pop()
    _device.same_device(routine, **{f"parameter or buffer {i}": t
                                    for i, t in enumerate(params + fbufs)})
    device = (params + fbufs)[0].device if params + fbufs else torch.device("cpu")

    start_buffers = [b.detach().clone() for b in model.buffers()]
    dropouts = [(m, m.seed, m.calls) for m in model.modules() if isinstance(m, Dropout)]
    sizes = [p.numel() for p in params]
    ng, nb = sum(sizes), sum(b.numel() for b in fbufs)
    # one row per shard: gradients, float buffers, the loss, a 0/1 flag per parameter
    local = torch.zeros((len(mine), ng + nb + 1 + len(params)), dtype=dtype, device=device)
    after = None
    for row, (s, rows) in enumerate(mine):
        with torch.no_grad():
            for b, b0 in zip(model.buffers(), start_buffers):
                b.copy_(b0)
        for m, seed, calls in dropouts:
            m.seed, m.calls = seed + s * _SHARD_SEED_STRIDE, calls
        for p in params:
            p.grad = None
        loss = loss_fn(*(t[rows] for t in batch))
        if not isinstance(loss, torch.Tensor) or loss.numel() != 1:
            raise ValueError(f"reproblas.torch.{routine}: loss_fn must return a tensor with "
                             f"one element")
        loss.backward()
        with torch.no_grad():
            at = 0
            for i, p in enumerate(params):
                if p.grad is not None:
                    local[row, at:at + sizes[i]] = p.grad.reshape(-1)
                    local[row, ng + nb + 1 + i] = 1
                at += sizes[i]
            for b in fbufs:
                local[row, at:at + b.numel()] = b.reshape(-1)
                at += b.numel()
            local[row, at] = loss.detach().reshape(())
        after = [b.detach().clone() for b in model.buffers()]
    for m, seed, _ in dropouts:
        m.seed = seed

    full = _exchange(local, group, backend, world)
    total = tensor(reproblas.sum(array(full[:, :ng + nb + 1], "gradients", routine), axis=0,
                                 order=order))
    mean = _device.div(total, shards)  # one rounding per element
    grads = mean[:ng] if reduction == "mean" else total[:ng]
    reached = full[:, ng + nb + 1:].amax(0)
    with torch.no_grad():
        at = 0
        for i, p in enumerate(params):
            p.grad = grads[at:at + sizes[i]].reshape(p.shape).clone() if reached[i] else None
            at += sizes[i]
        for b, b_after in zip(model.buffers(), after):
            if not b.is_floating_point():  # batch norm's counter: one shard's count
                b.copy_(b_after)
        # an element that no shard changed (equal in all, eval mode, frozen statistics)
        # keeps its bits: (S copies of b) ⊘ S is not always b
        unchanged = (full[:, ng:ng + nb] == full[:1, ng:ng + nb]).all(0)
        combined = torch.where(unchanged, full[0, ng:ng + nb], mean[ng:ng + nb])
        for b in fbufs:
            b.copy_(combined[at - ng:at - ng + b.numel()].reshape(b.shape))
            at += b.numel()
    return (mean if reduction == "mean" else total)[ng + nb].clone()
