"""reproblas.torch.data_parallel_backward (docs/contract.md §5.8): the shard reduction written
out, and training over 1, 2 and 4 Gloo processes (each with its own thread count) giving the
weights of one process that loops over the same S shards, bit for bit."""
import hashlib
import os

import numpy as np
import pytest

import reproblas
from test_reproblas_reference import same_bits

torch = pytest.importorskip("torch", reason="needs PyTorch (pip install -e '.[torch]')")
import reproblas.torch as rt  # noqa: E402
from reproblas.torch import demo  # noqa: E402

nn = torch.nn
SHARDS = 4
STEPS = 3
TIMEOUT = 300  # seconds for a whole multi-process run; a hang fails instead of blocking CI


def _model():
    torch.manual_seed(0)
    return rt.convert(nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4),
                                    nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                                    nn.Linear(4 * 4 * 4, 16), nn.GELU(), nn.Dropout(0.2),
                                    nn.Linear(16, 3)))


def _batch(step, n=14):  # 14 rows: shards of 4, 4, 3, 3
    g = torch.Generator().manual_seed(100 + step)
    return torch.randn(n, 1, 8, 8, generator=g), torch.randint(0, 3, (n,), generator=g)


def _train(shards=SHARDS, order="sequential", steps=STEPS, group=None):
    model = _model()
    loss_fn = rt.CrossEntropyLoss()
    opt = rt.SGD(model.parameters(), lr=0.1, momentum=0.9)
    digest = hashlib.sha256()
    for step in range(steps):
        opt.zero_grad()
        loss = rt.data_parallel_backward(model, lambda x, t: loss_fn(model(x), t),
                                         _batch(step), shards=shards, order=order, group=group)
        opt.step()
        digest.update(loss.numpy().tobytes())
    for tensor in model.state_dict().values():
        digest.update(tensor.numpy().tobytes())
    return digest.hexdigest()


def _worker(rank, world, store, results):
    """One process of a Gloo group; its thread counts differ from the other ranks'."""
    import torch.distributed as dist
    os.environ["REPROBLAS_NUM_THREADS"] = str(1 + rank % 3)
    torch.set_num_threads(1)
    try:
        dist.init_process_group("gloo", init_method=f"file://{store}", rank=rank,
                                world_size=world, timeout=__import__("datetime").timedelta(
                                    seconds=TIMEOUT))
        try:
            results.put((rank, _train()))
        finally:
            dist.destroy_process_group()
    except BaseException as exc:  # reported to the parent, which fails the test
        results.put((rank, f"error: {exc!r}"))


def _run_processes(world):
    return demo.spawn_ranks(_worker, world, (), timeout=TIMEOUT)


def test_shard_slices():
    assert rt.shard_slices(14, 4) == [(0, slice(0, 4)), (1, slice(4, 8)), (2, slice(8, 11)),
                                      (3, slice(11, 14))]
    assert rt.shard_slices(14, 4, 1, 2) == [(2, slice(8, 11)), (3, slice(11, 14))]
    x = torch.arange(14)
    assert [x[s].tolist() for _, s in rt.shard_slices(14, 4)] == \
        [t.tolist() for t in torch.tensor_split(x, 4)]
    for bad in [dict(n=14, shards=3, rank=0, world_size=2), dict(n=2, shards=4),
                dict(n=14, shards=0), dict(n=14, shards=4, rank=2, world_size=2)]:
        with pytest.raises(ValueError):
            rt.shard_slices(**bad)


@pytest.mark.parametrize("order", ["sequential", "pairwise"])
def test_gradient_is_the_written_shard_reduction(order):
    """Each shard's gradient alone, then one ordered reproblas sum over s and ⊘ S; buffers the
    mean of the shards' updated buffers; the loss the same reduction of the shard losses."""
    model = _model()
    loss_fn = rt.CrossEntropyLoss()
    x, t = _batch(0)
    start = {k: v.clone() for k, v in model.state_dict().items()}
    grads, bufs, losses = [], [], []
    for s, rows in rt.shard_slices(len(x), SHARDS):
        model.load_state_dict(start)
        model.zero_grad()
        drop = model[7]
        drop.seed, drop.calls = s << 32, 0
        loss = loss_fn(model(x[rows]), t[rows])
        loss.backward()
        grads.append(np.concatenate([p.grad.numpy().ravel() for p in model.parameters()]))
        bufs.append(np.concatenate([model[1].running_mean.numpy(),
                                    model[1].running_var.numpy()]))
        losses.append(loss.detach().numpy())
    model.load_state_dict(start)
    model[7].seed, model[7].calls = 0, 0
    loss = rt.data_parallel_backward(model, lambda a, b: loss_fn(model(a), b), (x, t),
                                     shards=SHARDS, order=order)
    f32 = np.float32
    want = reproblas.sum(np.stack(grads), order, axis=0) / f32(SHARDS)
    got = np.concatenate([p.grad.numpy().ravel() for p in model.parameters()])
    assert same_bits(got, want)
    want_buf = reproblas.sum(np.stack(bufs), order, axis=0) / f32(SHARDS)
    assert same_bits(np.concatenate([model[1].running_mean.numpy(),
                                     model[1].running_var.numpy()]), want_buf)
    assert int(model[1].num_batches_tracked) == 1
    assert same_bits(loss.numpy(), reproblas.sum(np.stack(losses), order) / f32(SHARDS))
    assert model[7].seed == 0 and model[7].calls == 1
    # reduction="sum": the plain sum, no division
    model.load_state_dict(start)
    model[7].calls = 0
    rt.data_parallel_backward(model, lambda a, b: loss_fn(model(a), b), (x, t),
                              shards=SHARDS, order=order, reduction="sum")
    got = np.concatenate([p.grad.numpy().ravel() for p in model.parameters()])
    assert same_bits(got, reproblas.sum(np.stack(grads), order, axis=0))


def test_unreached_parameter_keeps_no_gradient_and_bad_input():
    model = nn.Sequential(rt.Linear(3, 2), rt.Linear(3, 2))
    x = torch.randn(4, 3)
    rt.data_parallel_backward(model, lambda a: rt.sum(model[0](a)), x, shards=2)
    assert model[0].weight.grad is not None and model[1].weight.grad is None
    with pytest.raises(ValueError, match="shards"):
        rt.data_parallel_backward(model, lambda a: rt.sum(model[0](a)), x, shards=0)
    with pytest.raises(ValueError, match="reduction"):
        rt.data_parallel_backward(model, lambda a: rt.sum(model[0](a)), x, shards=2,
                                  reduction="max")
    with pytest.raises(ValueError, match="one element"):
        rt.data_parallel_backward(model, lambda a: model[0](a), x, shards=2)
    with pytest.raises(ValueError, match="lengths"):
        rt.data_parallel_backward(model, lambda a, b: rt.sum(model[0](a)), (x, x[:3]), shards=2)
    with pytest.raises(ValueError, match="not initialised"):
        rt.data_parallel_backward(model, lambda a: rt.sum(model[0](a)), x, shards=2,
                                  group=object())
    with pytest.raises(TypeError, match="dtype"):
        rt.data_parallel_backward(model.double(), lambda a: rt.sum(model[0](a)), x, shards=2)


@pytest.mark.parametrize("shards", [3, 5])
def test_buffers_no_shard_changes_keep_their_bits(shards):
    """Evaluation mode: every shard leaves the statistics as they were, and they stay so (the
    mean of 3 equal float32 values is not always the value)."""
    torch.manual_seed(0)
    model = rt.convert(nn.Sequential(nn.Linear(3, 50), nn.BatchNorm1d(50)))
    with torch.no_grad():
        model[1].running_mean.copy_(torch.randn(50))
        model[1].running_var.copy_(torch.rand(50) + 0.5)
    model.eval()
    before = [b.clone() for b in model.buffers()]
    rt.data_parallel_backward(model, lambda a: rt.sum(model(a)), torch.randn(10, 3),
                              shards=shards)
    for b, b0 in zip(model.buffers(), before):
        assert same_bits(b.numpy(), b0.numpy())
    assert model[0].weight.grad is not None


def test_shards_matter_and_orders_differ():
    """S is part of the definition: another S (or order) is another result."""
    base = _train()
    assert _train(shards=2) != base
    assert _train(order="pairwise") != base


def test_one_two_four_processes_give_one_hash():
    want = _train()
    found = {"one process, no group": {0: want}}
    for world in (1, 2, 4):
        got = _run_processes(world)
        assert sorted(got) == list(range(world)), f"world {world}: ranks missing, got {got}"
        found[world] = got
    assert {h for got in found.values() for h in got.values()} == {want}, found
