"""Speed of reproblas conv2d (and its gradients) against PyTorch's CPU conv2d, in one run.

Layers: the 3x3 convolutions of ResNet-50 (C = K channels at H = W, padding 1,
stride 1), for each batch size; or --shapes N,C,K,H,W,R,S,PAD (stride 1), e.g. the
digits demo's stem, 64,1,16,8,8,3,3,1. For each layer, dtype, thread count and routine
the reproblas call (each order) and PyTorch's counterpart are timed alternately,
R rounds each, best time kept (interleaving keeps both under the same load on a
shared machine). Prints GFLOP/s (2 N K P Q C R S flops; grad_bias: N K P Q) and
the ratio reproblas GFLOP/s / PyTorch GFLOP/s (1.0 = as fast). Without PyTorch
only reproblas is timed. Threads: REPROBLAS_NUM_THREADS and torch.set_num_threads.

    PYTHONPATH=. python tools/bench_reproblas_conv.py [--layers 64x56 128x28 256x14 512x7]
        [--batch 1 8] [--shapes 64,16,16,8,8,3,3,1 ...] [--threads 1 2] [--repeat 5] [--dtypes float32]
        [--routines conv2d] [--orders sequential pairwise] [--json FILE]
"""
import argparse
import os
import sys

import numpy as np

import reproblas as rb
from bench_json import add_run_options, machine_info, write
from bench_reproblas_gemm import interleaved_best, settle_time

ROUTINES = ["conv2d", "conv2d_grad_input", "conv2d_grad_weight", "conv2d_grad_bias"]


def torch_calls(x, w, gy, pad):
    """routine -> PyTorch's counterpart (None when PyTorch is not installed)."""
    try:
        import torch
        import torch.nn.grad as grad
    except ImportError:
        return None, {}
    tx, tw, tgy = (torch.from_numpy(a) for a in (x, w, gy))
    return torch, {
        "conv2d": lambda: torch.nn.functional.conv2d(tx, tw, padding=pad),
        "conv2d_grad_input": lambda: grad.conv2d_input(tx.shape, tw, tgy, padding=pad),
        "conv2d_grad_weight": lambda: grad.conv2d_weight(tx, tw.shape, tgy, padding=pad),
        "conv2d_grad_bias": lambda: tgy.sum(dim=(0, 2, 3)),
    }


def ours(routine, x, w, gy, pad, order):
    return {
        "conv2d": lambda: rb.conv2d(x, w, padding=pad, order=order),
        "conv2d_grad_input": lambda: rb.conv2d_grad_input(gy, w, x.shape, padding=pad,
                                                          order=order),
        "conv2d_grad_weight": lambda: rb.conv2d_grad_weight(x, gy, w.shape, padding=pad,
                                                            order=order),
        "conv2d_grad_bias": lambda: rb.conv2d_grad_bias(gy, order=order),
    }[routine]


def cases(args):
    """(label, N, C, K, H, W, R, S, pad) of each layer to time."""
    if args.shapes:
        out = []
        for text in args.shapes:
            v = [int(t) for t in text.split(",")]
            if len(v) != 8 or min(v[:7]) < 1 or v[7] < 0:
                raise SystemExit(f"--shapes: N,C,K,H,W,R,S,PAD (8 ints), got {text!r}")
            n, c, k, h, w, r, s, pad = v
            out.append((f"{n}x{c}-{k}x{h}x{w}", n, c, k, h, w, r, s, pad))
        return out
    return [(f"{n}x{layer}",) + (n, c, c, hw, hw, 3, 3, 1)
            for layer in args.layers for n in args.batch
            for c, hw in [tuple(int(v) for v in layer.split("x"))]]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--layers", nargs="+", default=["64x56", "128x28", "256x14", "512x7"],
                    help="CxHW: C = K channels, H = W")
    ap.add_argument("--batch", type=int, nargs="+", default=[1, 8])
    ap.add_argument("--shapes", nargs="+", metavar="N,C,K,H,W,R,S,PAD",
                    help="layers given in full (stride 1), instead of --layers and --batch")
    add_run_options(ap, repeat=5, budget=20.0, dtypes=["float32"], routines=["conv2d"],
                    routine_choices=ROUTINES)
    args = ap.parse_args()
    print(f"REPROBLAS_ISA={os.environ.get('REPROBLAS_ISA', '') or rb.best_isa()}")
    print(f"{'routine':18} {'dtype':8} {'layer':>9} {'thr':>3} {'order':10} {'GFLOP/s':>8} "
          f"{'torch':>8} {'ratio':>6}", flush=True)
    rng = np.random.default_rng(0)
    rows = []
    for routine in args.routines:
        for dtype in args.dtypes:
            for label, n, c, k, h, wd, r, s, pad in cases(args):
                p, q = h + 2 * pad - r + 1, wd + 2 * pad - s + 1
                if p < 1 or q < 1:
                    raise SystemExit(f"{label}: empty output for kernel {r}x{s}, pad {pad}")
                x = rng.standard_normal((n, c, h, wd)).astype(dtype)
                w = rng.standard_normal((k, c, r, s)).astype(dtype)
                gy = rng.standard_normal((n, k, p, q)).astype(dtype)
                flops = 2.0 * n * k * p * q * c * r * s
                if routine == "conv2d_grad_bias":
                    flops = float(n * k * p * q)
                torch, base = torch_calls(x, w, gy, pad)
                mine = {o: ours(routine, x, w, gy, pad, o) for o in args.orders}
                for threads in args.threads:
                    os.environ["REPROBLAS_NUM_THREADS"] = str(threads)
                    fns = list(mine.values())
                    if torch is not None:
                        torch.set_num_threads(threads)
                        fns = [base[routine]] + fns
                    best = interleaved_best(fns, args.repeat, args.budget,
                                           settle_time(threads) if torch is not None else 0.0)
                    tbest = best.pop(0) if torch is not None else None
                    for order, t in zip(mine, best):
                        tg = flops / tbest / 1e9 if tbest else None
                        ratio = tbest / t if tbest else None
                        print(f"{routine:18} {dtype:8} {label:>9} {threads:3d} "
                              f"{order:10} {flops / t / 1e9:8.2f} "
                              f"{tg if tg is not None else float('nan'):8.2f} "
                              f"{ratio if ratio is not None else float('nan'):6.2f}",
                              flush=True)
                        rows.append({"routine": routine, "dtype": dtype, "batch": n,
                                     "channels": c, "hw": h, "out_channels": k,
                                     "width": wd, "kernel": [r, s], "padding": pad,
                                     "threads": threads,
                                     "order": order, "gflops": flops / t / 1e9,
                                     "torch_gflops": tg, "ratio": ratio})
    if args.json:
        write(args.json, machine_info(sys.argv, repeat=args.repeat, budget_s=args.budget), rows)


if __name__ == "__main__":
    main()
