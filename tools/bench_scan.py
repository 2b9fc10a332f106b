"""Speed of reproblas's scans and segmented sums against NumPy, measured in one run.

Counterparts: np.cumsum (NumPy's add.accumulate, a sequential loop) for
cumsum in both orders, np.add.reduceat for segment_sum (its empty-segment rule
differs, so the segments here are never empty). Each pair is timed alternately
and the best of each is kept (bench_reproblas_gemm.interleaved_best). Prints
ms per call and speed = counterpart time / reproblas time (> 1: reproblas is
faster). The machine may be shared: ratios from one run, never absolute times.

    PYTHONPATH=. python tools/bench_scan.py [--log2n 24] [--dtype float32] [--repeat 7]
        [--segment 1000] [--threads 1 2]
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reproblas as rb  # noqa: E402
from bench_reproblas_gemm import interleaved_best  # noqa: E402


def cases(x, offsets, threads):
    """(name, threads, numpy call, reproblas call)."""
    starts = offsets[:-1]
    out = []
    for t in threads:
        out.append(("cumsum sequential", t, lambda: np.cumsum(x), lambda: rb.cumsum(x)))
        out.append(("cumsum pairwise", t, lambda: np.cumsum(x),
                    lambda: rb.cumsum(x, order="pairwise")))
        out.append(("cumsum kahan", t, lambda: np.cumsum(x),
                    lambda: rb.cumsum(x, order="kahan")))
        out.append(("segment_sum sequential", t, lambda: np.add.reduceat(x, starts),
                    lambda: rb.segment_sum(x, offsets)))
        out.append(("segment_sum pairwise", t, lambda: np.add.reduceat(x, starts),
                    lambda: rb.segment_sum(x, offsets, order="pairwise")))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--log2n", type=int, default=24)
    ap.add_argument("--dtype", default="float32", choices=("float32", "float64"))
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--segment", type=int, default=1000,
                    help="mean segment length (lengths uniform in [1, 2*mean))")
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    a = ap.parse_args()
    n = 1 << a.log2n
    rng = np.random.default_rng(0)
    x = rng.standard_normal(n).astype(a.dtype)
    lengths = rng.integers(1, 2 * a.segment, n // a.segment + 2)
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    offsets = offsets[offsets < n]
    offsets = np.append(offsets, n).astype(np.int64)
    print(f"n = 2^{a.log2n} {a.dtype}, {offsets.shape[0] - 1} segments (mean {a.segment}); "
          f"shared machine: ratios within one run only")
    print(f"{'routine':<26}{'threads':>8}{'numpy ms':>10}{'ours ms':>10}{'speed':>8}")
    for name, t, base, ours in cases(x, offsets, a.threads):
        os.environ["REPROBLAS_NUM_THREADS"] = str(t)
        tb, to = interleaved_best([base, ours], a.repeat, budget=20.0)
        print(f"{name:<26}{t:>8}{tb * 1e3:>10.2f}{to * 1e3:>10.2f}{tb / to:>8.2f}")


if __name__ == "__main__":
    main()
