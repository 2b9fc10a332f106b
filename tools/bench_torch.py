"""Speed of reproblas.torch's fused ops and of converted training steps against PyTorch's CPU
ops, in one run.

For each thread count (REPROBLAS_NUM_THREADS and torch.set_num_threads) three callables are
timed alternately (tools/bench_reproblas_gemm.py's interleaved_best, best time kept):
PyTorch's op, reproblas.torch's op with its C kernels, and the same op through its
composition (reproblas sums, crlibm_py calls and PyTorch's IEEE operations: what the op was
before its kernels). Prints the ratios reproblas time / PyTorch time (1.0 = as fast).

    PYTHONPATH=.:tools python tools/bench_torch.py [--threads 1 2] [--repeat 5] [--ops ...]
"""
import argparse
import contextlib
import os

import torch

import reproblas.torch as rt
from bench_reproblas_gemm import interleaved_best, settle_time
from reproblas.torch import _kernels, _prims

F = torch.nn.functional


@contextlib.contextmanager
def composition():
    """reproblas.torch without its fused kernels: every op as its composition, each sum over
    axes one reproblas call per slice (as before the kernels)."""
    usable, ones_sum = _kernels.usable, _prims._ones_sum
    _kernels.usable = lambda *t: False
    _prims._ones_sum = lambda *a: None
    try:
        yield
    finally:
        _kernels.usable, _prims._ones_sum = usable, ones_sum


def fwd_bwd(fn, x, *args):
    def run():
        xr = x.detach().requires_grad_()
        y = fn(xr, *args)
        y.backward(torch.ones_like(y))
    return run


def cnn():
    torch.manual_seed(0)
    return torch.nn.Sequential(
        torch.nn.Conv2d(3, 16, 3, padding=1), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
        torch.nn.Conv2d(16, 32, 3, padding=1), torch.nn.GELU(), torch.nn.MaxPool2d(2),
        torch.nn.Flatten(), torch.nn.Linear(32 * 8 * 8, 64), torch.nn.SiLU(),
        torch.nn.Linear(64, 10))


def cnn_bn():
    torch.manual_seed(0)
    return torch.nn.Sequential(
        torch.nn.Conv2d(3, 16, 3, padding=1), torch.nn.BatchNorm2d(16), torch.nn.ReLU(),
        torch.nn.MaxPool2d(2), torch.nn.Conv2d(16, 32, 3, padding=1), torch.nn.BatchNorm2d(32),
        torch.nn.ReLU(), torch.nn.MaxPool2d(2), torch.nn.Flatten(),
        torch.nn.Linear(32 * 8 * 8, 10))


def mlp():
    torch.manual_seed(0)
    return torch.nn.Sequential(
        torch.nn.Linear(256, 512), torch.nn.GELU(), torch.nn.LayerNorm(512),
        torch.nn.Linear(512, 512), torch.nn.SiLU(), torch.nn.Linear(512, 10))


def step(model, loss_fn, x, t, train):
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)

    def run():
        if train:
            opt.zero_grad()
            loss = loss_fn(model(x), t)
            loss.backward()
            opt.step()
        else:
            with torch.no_grad():
                model(x)
    return run


def cases():
    g = torch.Generator().manual_seed(0)
    x2 = torch.randn(512, 1024, generator=g)
    x1 = torch.randn(1 << 20, generator=g) * 3
    w, b = torch.randn(1024, generator=g), torch.randn(1024, generator=g)
    img, lab = torch.randn(32, 3, 32, 32, generator=g), torch.randint(0, 10, (32,), generator=g)
    vec, vlab = torch.randn(128, 256, generator=g), torch.randint(0, 10, (128,), generator=g)
    out = {
        "softmax": (lambda: F.softmax(x2, -1), lambda: rt.softmax(x2, -1)),
        "softmax fwd+bwd": (fwd_bwd(F.softmax, x2, -1), fwd_bwd(rt.softmax, x2, -1)),
        "log_softmax fwd+bwd": (fwd_bwd(F.log_softmax, x2, -1),
                                fwd_bwd(rt.log_softmax, x2, -1)),
        "layer_norm": (lambda: F.layer_norm(x2, (1024,), w, b),
                       lambda: rt.layer_norm(x2, (1024,), w, b)),
        "layer_norm fwd+bwd": (fwd_bwd(F.layer_norm, x2, (1024,), w, b),
                               fwd_bwd(rt.layer_norm, x2, (1024,), w, b)),
        "logsumexp fwd+bwd": (fwd_bwd(torch.logsumexp, x2, -1), fwd_bwd(rt.logsumexp, x2, -1)),
        "gelu": (lambda: F.gelu(x1), lambda: rt.gelu(x1)),
        "gelu fwd+bwd": (fwd_bwd(F.gelu, x1), fwd_bwd(rt.gelu, x1)),
        "gelu tanh": (lambda: F.gelu(x1, approximate="tanh"),
                      lambda: rt.gelu(x1, approximate="tanh")),
        "silu fwd+bwd": (fwd_bwd(F.silu, x1), fwd_bwd(rt.silu, x1)),
        "sigmoid": (lambda: torch.sigmoid(x1), lambda: rt.sigmoid(x1)),
    }
    for name, make, data, lab_ in (("cnn", cnn, img, lab), ("cnn+bn", cnn_bn, img, lab),
                                   ("mlp", mlp, vec, vlab)):
        for train in (False, True):
            theirs = make().train(train)
            ours = rt.convert(make()).train(train)
            key = f"{name} {'train step' if train else 'inference'}"
            out[key] = (step(theirs, F.cross_entropy, data, lab_, train),
                        step(ours, rt.cross_entropy, data, lab_, train))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--budget", type=float, default=10.0, help="seconds per case at most")
    ap.add_argument("--ops", nargs="+", default=None, help="names (prefixes) of the cases")
    args = ap.parse_args()
    torch_threads = torch.get_num_threads()
    all_cases = cases()
    names = [n for n in all_cases if args.ops is None or any(n.startswith(o) for o in args.ops)]
    print(f"{'case':<22} {'threads':>7} {'kernels':>8} {'composed':>9}   (time / PyTorch's)",
          flush=True)
    try:
        for threads in args.threads:
            os.environ["REPROBLAS_NUM_THREADS"] = str(threads)
            torch.set_num_threads(threads)
            for name in names:
                theirs, ours = all_cases[name]

                def composed(ours=ours):
                    with composition():
                        ours()
                best = interleaved_best([theirs, ours, composed], args.repeat, args.budget,
                                        settle=settle_time(threads))
                print(f"{name:<22} {threads:>7} {best[1] / best[0]:>8.2f} "
                      f"{best[2] / best[0]:>9.2f}", flush=True)
    finally:
        torch.set_num_threads(torch_threads)


if __name__ == "__main__":
    main()
