"""Training demo: python -m reproblas.torch.demo [--steps N].

A small ResNet-style CNN (convolutions, batch norm, ReLU, a residual connection, max and
average pooling, a linear head, cross-entropy, SGD with momentum) is trained on scikit-learn's
bundled 8×8 digits (``sklearn.datasets.load_digits``) with ``reproblas.torch`` and
``data_parallel_backward`` over a fixed number of virtual shards (docs/contract.md §5.8). It is
trained again on every CPU path this machine has (``REPROBLAS_ISA``, ``CRLIBM_ISA``), on 1, 2
and 3 threads (``REPROBLAS_NUM_THREADS`` and PyTorch's own), in 2 processes (Gloo), and, with
a CUDA device and CuPy, on CUDA tensors (reproblas's CUDA kernels); the SHA-256 of the
trained weights must be one. The same model unconverted, trained with stock
PyTorch from the same initial weights, gives the accuracy to compare with.

Needs PyTorch and scikit-learn (``pip install 'crlibm-py[torch]' scikit-learn``).
"""
import argparse
import hashlib
import multiprocessing
import os
import queue
import tempfile
import time

import torch

import reproblas
from reproblas.demo import cpu_paths, environ, note

from . import _modules
from ._distributed import data_parallel_backward
from ._optim import SGD

nn = torch.nn
TIMEOUT = 600  # seconds for the 2-process run before it is called a failure


class Block(nn.Module):
    """conv-BN-ReLU-conv-BN, plus the input, then ReLU."""

    def __init__(self, channels):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)
        self.relu = nn.ReLU()

    def forward(self, x):
        y = self.relu(self.bn1(self.conv1(x)))
        return self.relu(self.bn2(self.conv2(y)) + x)


class ResNet(nn.Module):
    def __init__(self, channels=16, classes=10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(1, channels, 3, padding=1, bias=False),
                                  nn.BatchNorm2d(channels), nn.ReLU())
        self.block = Block(channels)
        self.pool = nn.MaxPool2d(2)          # 8×8 -> 4×4
        self.gap = nn.AdaptiveAvgPool2d(1)   # 4×4 -> 1×1
        self.fc = nn.Linear(channels, classes)

    def forward(self, x):
        return self.fc(self.gap(self.pool(self.block(self.stem(x)))).flatten(1))


def load():
    """(x_train, y_train, x_test, y_test): the 1797 digits as float32 images in [0, 1], the
    first 1437 for training and the last 360 for testing."""
    try:
        from sklearn.datasets import load_digits
    except ImportError:
        raise SystemExit("python -m reproblas.torch.demo needs scikit-learn for its data "
                         "(load_digits): pip install scikit-learn") from None
    digits = load_digits()
    x = torch.tensor(digits.images, dtype=torch.float32)[:, None] / 16.0  # exact: 16 = 2^4
    y = torch.tensor(digits.target, dtype=torch.int64)
    return x[:1437], y[:1437], x[1437:], y[1437:]


def batches(n, batch, steps, seed=0):
    """The row indices of each step: a fixed permutation per epoch (integers only)."""
    g = torch.Generator().manual_seed(seed)
    order = torch.empty(0, dtype=torch.int64)
    for _ in range(steps):
        if order.numel() < batch:
            order = torch.cat([order, torch.randperm(n, generator=g)])
        yield order[:batch]
        order = order[batch:]


def initial_model(seed=0):
    torch.manual_seed(seed)
    return ResNet()


def bench_steps(library, batch=64):
    """{"train": one SGD step, "infer": one forward in eval mode} of the ResNet on fixed
    images, converted (library "reproblas") or stock ("torch"); tools/bench_torch_models.py
    and asv_bench time them."""
    g = torch.Generator().manual_seed(0)
    x, y = torch.rand(batch, 1, 8, 8, generator=g), torch.randint(0, 10, (batch,), generator=g)
    net = initial_model()
    if library == "reproblas":
        net, loss_fn, opt_cls = _modules.convert(net), _modules.CrossEntropyLoss(), SGD
    else:
        loss_fn, opt_cls = nn.CrossEntropyLoss(), torch.optim.SGD
    opt = opt_cls(net.parameters(), lr=0.05, momentum=0.9)

    def train_step():
        net.train()
        opt.zero_grad()
        loss_fn(net(x), y).backward()
        opt.step()

    @torch.no_grad()
    def infer():
        net.eval()
        net(x)
    return {"train": train_step, "infer": infer}


def train(data, steps, batch, shards, group=None, device=None):
    """The converted model trained with data_parallel_backward (on `device`: None for the
    CPU, a CUDA device for reproblas's CUDA kernels); returns it."""
    x, y = data[0].to(device), data[1].to(device)
    model = _modules.convert(initial_model()).to(device)
    loss_fn = _modules.CrossEntropyLoss()
    opt = SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-4)
    model.train()
    for rows in batches(len(x), batch, steps):
        opt.zero_grad()
        rows = rows.to(x.device)
        data_parallel_backward(model, lambda a, b: loss_fn(model(a), b), (x[rows], y[rows]),
                               shards=shards, group=group)
        opt.step()
    return model


def train_stock(data, steps, batch):
    """The same network unconverted, stock PyTorch (F.cross_entropy, torch.optim.SGD)."""
    x, y = data[0], data[1]
    model = initial_model()
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-4)
    model.train()
    for rows in batches(len(x), batch, steps):
        opt.zero_grad()
        nn.functional.cross_entropy(model(x[rows]), y[rows]).backward()
        opt.step()
    return model


def digest(model):
    """SHA-256 of the state dict (parameters and batch norm statistics) in its order."""
    h = hashlib.sha256()
    for name, t in model.state_dict().items():
        h.update(name.encode())
        h.update(t.detach().cpu().contiguous().numpy().tobytes())
    return h.hexdigest()


@torch.no_grad()
def accuracy(model, x, y):
    model.eval()
    return float((model(x).argmax(1) == y).double().mean())


def _worker(rank, world, store, steps, batch, shards, results):
    """One process of a Gloo group (1 thread each), training with the shards it owns."""
    import datetime

    import torch.distributed as dist
    os.environ["REPROBLAS_NUM_THREADS"] = "1"
    torch.set_num_threads(1)
    try:
        dist.init_process_group("gloo", init_method=f"file://{store}", rank=rank,
                                world_size=world, timeout=datetime.timedelta(seconds=TIMEOUT))
        try:
            results.put((rank, digest(train(load(), steps, batch, shards))))
        finally:
            dist.destroy_process_group()
    except BaseException as exc:  # the parent reports it
        results.put((rank, f"error: {exc!r}"))


def in_processes(world, steps, batch, shards):
    """{rank: weights digest} of a training run over `world` spawned Gloo processes."""
    return spawn_ranks(_worker, world, (steps, batch, shards))


def spawn_ranks(worker, world, args, timeout=TIMEOUT):
    """{rank: value} of worker(rank, world, store, *args, results) in `world` spawned
    processes sharing a Gloo file store (each puts (rank, value) on the results queue);
    a rank that has not answered within `timeout` seconds is missing, and its process is
    killed."""
    ctx = multiprocessing.get_context("spawn")
    results = ctx.Queue()
    with tempfile.TemporaryDirectory() as tmp, environ(GLOO_SOCKET_IFNAME="lo"):
        procs = [ctx.Process(target=worker, daemon=True,
                             args=(r, world, os.path.join(tmp, "store"), *args, results))
                 for r in range(world)]
        for p in procs:
            p.start()
        got = {}
        try:
            for _ in range(world):
                rank, value = results.get(timeout=timeout)
                got[rank] = value
        except queue.Empty:
            pass
        for p in procs:
            p.join(timeout=10)
            if p.is_alive():
                p.kill()
                p.join()
    return got


def cuda_reason():
    """Why the CUDA configuration does not run (None if it can: a CUDA device and CuPy,
    through which reproblas.torch reaches reproblas's CUDA kernels)."""
    if not torch.cuda.is_available():
        return "this PyTorch has no CUDA device (a CUDA build of PyTorch and a GPU are needed)"
    try:
        import cupy
    except ImportError:
        return ("CuPy is not installed; reproblas.torch runs CUDA tensors on reproblas's CUDA "
                "kernels through it: pip install cupy-cuda12x")
    try:
        cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:  # a driver or runtime CuPy cannot use
        return f"CuPy finds no usable CUDA device ({exc})"
    return None


def configurations():
    """[(label, environment)]: REPROBLAS_NUM_THREADS 1, 2, 3 on the default path, then each
    other CPU path (REPROBLAS_ISA and CRLIBM_ISA) on 2 threads."""
    import crlibm_py
    cr = [n for n in crlibm_py.isa_names() if crlibm_py.isa_supported(n)]
    paths = cpu_paths()
    best = paths[-1]
    out = [(f"REPROBLAS_ISA={best:6} CRLIBM_ISA={best:6} {t} thread{'s' * (t > 1)}",
            dict(REPROBLAS_ISA=best, CRLIBM_ISA=best if best in cr else cr[-1],
                 REPROBLAS_NUM_THREADS=t)) for t in (1, 2, 3)]
    for isa in paths[:-1]:
        out.append((f"REPROBLAS_ISA={isa:6} CRLIBM_ISA={isa:6} 2 threads",
                    dict(REPROBLAS_ISA=isa, CRLIBM_ISA=isa if isa in cr else cr[-1],
                         REPROBLAS_NUM_THREADS=2)))
    return out


def run_digits(steps=300, batch=64, shards=2, processes=2, stock=True):
    """Train in every configuration, print the table; returns {label: digest}. Raises
    AssertionError when two configurations give different weights."""
    data = load()
    print(f"digits: ResNet-style CNN ({sum(p.numel() for p in initial_model().parameters())} "
          f"parameters: conv, batch norm, ReLU, residual, max and average pooling, linear), "
          f"cross-entropy, SGD with momentum;")
    print(f"  {steps} steps of {batch} images from load_digits ({len(data[0])} train, "
          f"{len(data[2])} test), {shards} virtual shards (docs/contract.md §5.8)\n")
    print(f"{'configuration':48} {'weights SHA-256 (start)':24} {'seconds':>7}")
    found, model = {}, None
    threads = torch.get_num_threads()
    try:
        for label, env in configurations():
            start = time.perf_counter()
            with environ(**env):
                torch.set_num_threads(int(env["REPROBLAS_NUM_THREADS"]))
                model = train(data, steps, batch, shards)
            found[label] = digest(model)
            print(f"{label:48} {found[label][:24]} {time.perf_counter() - start:7.1f}")
    finally:
        torch.set_num_threads(threads)
    if processes > 1:
        start = time.perf_counter()
        got = in_processes(processes, steps, batch, shards)
        label = f"{processes} processes (Gloo), 1 thread each"
        bad = [v for v in got.values() if v.startswith("error")]
        if bad or len(got) < processes:
            raise RuntimeError(f"the {processes}-process run failed: {bad or 'timed out'}")
        for rank in sorted(got):
            found[f"{label}, rank {rank}"] = got[rank]
        print(f"{label:48} {got[0][:24]} {time.perf_counter() - start:7.1f}"
              f"{'' if len(set(got.values())) == 1 else '  (ranks differ!)'}")
    reason = cuda_reason()
    if reason is None:  # the same training on CUDA tensors: reproblas's CUDA kernels
        start = time.perf_counter()
        label = f"CUDA ({torch.cuda.get_device_name()})"[:48]
        found[label] = digest(train(data, steps, batch, shards, device=torch.device("cuda")))
        print(f"{label:48} {found[label][:24]} {time.perf_counter() - start:7.1f}")
    else:
        note(f"CUDA: not run: {reason}.")
    distinct = set(found.values())
    print(f"\n{len(distinct)} distinct result{'s' * (len(distinct) > 1)} over "
          f"{len(found)} runs")
    assert len(distinct) == 1, f"the trained weights changed with the configuration: {found}"
    acc = accuracy(model, data[2], data[3])
    line = f"test accuracy: reproblas.torch {acc:.4f}"
    if stock:
        plain = train_stock(data, steps, batch)
        line += (f"; the same network unconverted, stock PyTorch (one batch, no shards), "
                 f"{accuracy(plain, data[2], data[3]):.4f}")
    print(line)
    return found


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m reproblas.torch.demo",
        description="Trains a small ResNet on load_digits with reproblas.torch on every CPU "
                    "path, 1-3 threads, 2 processes and CUDA (with a GPU and CuPy), and checks "
                    "that the trained weights are the same bits in each.")
    parser.add_argument("--steps", type=int, default=300, help="SGD steps (default 300)")
    parser.add_argument("--batch", type=int, default=64, help="images per step (default 64)")
    parser.add_argument("--shards", type=int, default=2,
                        help="virtual shards per batch, a multiple of --processes (default 2)")
    parser.add_argument("--processes", type=int, default=2,
                        help="processes of the data-parallel run; 1 skips it (default 2)")
    args = parser.parse_args(argv)
    if args.steps < 1 or args.batch < args.shards or args.processes < 1 \
            or args.shards % args.processes:
        parser.error("need steps >= 1, batch >= shards, and processes dividing shards")
    run_digits(args.steps, args.batch, args.shards, args.processes)
    print(f"\nPyTorch {torch.__version__}; reproblas {reproblas.__version__}; "
          f"{os.cpu_count()} CPUs.")


if __name__ == "__main__":
    main()
