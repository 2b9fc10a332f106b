"""GPU benchmark: our CUDA kernels against CuPy / cuBLAS (FP32 without TF32).

    python tools/bench_cuda.py [--n 4096] [--reps 5] [--json out.json]

Rows: gemm (reproblas.gemm vs cupy.matmul = cuBLAS SGEMM/DGEMM; CUPY_TF32 is
forced off), sum (vs cupy.sum), exp (crlibm_py.exp vs cupy.exp), trsm (vs
cuBLAS trsm) and the convolutions (vs a cuBLAS gemm of the im2col shape). Each time is
the best of --reps runs, measured with CUDA events, ours and the baseline
interleaved; the ratio is baseline time / our time (>= 0.7 is the gemm goal).
"""
import argparse
import os
import sys

os.environ["CUPY_TF32"] = "0"  # before CuPy is imported: cuBLAS in true FP32

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))


def event_best(cp, fn, reps):
    fn()  # warm-up (and NVRTC compile on first use)
    times = []
    for _ in range(reps):
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, stop) / 1e3)
    return min(times)


def _solve_conv_cases(cp, rng, n):
    """trsm (n x n, n right-hand sides) vs cupyx solve_triangular (cuBLAS trsm);
    conv2d and its gradients on a ResNet-like float32 layer vs a cuBLAS gemm of
    the same shape (K x CRS times CRS x NPQ): an implicit-gemm yardstick."""
    import reproblas
    from cupyx.scipy.linalg import solve_triangular
    cases = []
    a = np.tril(rng.standard_normal((n, n)) / n) + np.diag(1 + rng.random(n))
    for lower in (True, False):
        m = cp.asarray((a if lower else a.T).astype(np.float32))
        b = cp.asarray(rng.standard_normal((n, n)).astype(np.float32))
        cases.append((f"trsm {'lower' if lower else 'upper'} sequential", "float32", n,
                      float(n) ** 3, lambda m=m, b=b, lo=lower: reproblas.trsm(1.0, m, b, lower=lo),
                      lambda m=m, b=b, lo=lower: solve_triangular(m, b, lower=lo)))
    x = cp.asarray(rng.standard_normal((32, 64, 56, 56)).astype(np.float32))
    w = cp.asarray(rng.standard_normal((64, 64, 3, 3)).astype(np.float32))
    gy = cp.asarray(rng.standard_normal((32, 64, 56, 56)).astype(np.float32))
    lhs = cp.asarray(rng.standard_normal((64, 576)).astype(np.float32))
    rhs = cp.asarray(rng.standard_normal((576, 32 * 56 * 56)).astype(np.float32))
    work = 2.0 * 64 * 576 * 32 * 56 * 56
    for order in ("sequential", "pairwise"):
        for name, fn in (("conv2d", lambda o=order: reproblas.conv2d(x, w, padding=1, order=o)),
                         ("conv2d_grad_input", lambda o=order: reproblas.conv2d_grad_input(
                             gy, w, x.shape, padding=1, order=o)),
                         ("conv2d_grad_weight", lambda o=order: reproblas.conv2d_grad_weight(
                             x, gy, w.shape, padding=1, order=o))):
            cases.append((f"{name} {order}", "float32", x.size, work, fn,
                          lambda: cp.matmul(lhs, rhs)))
    return cases


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=4096)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--json")
    args = ap.parse_args(argv)
    try:
        import cupy as cp
        cp.cuda.runtime.getDeviceCount()
    except Exception as e:
        sys.exit(f"bench_cuda: needs CuPy and a CUDA GPU ({e})")
    import crlibm_py
    import reproblas
    rng = np.random.default_rng(0)
    n, rows = args.n, []
    cases = []
    for dtype in ("float32", "float64"):
        a = cp.asarray(rng.standard_normal((n, n)).astype(dtype))
        b = cp.asarray(rng.standard_normal((n, n)).astype(dtype))
        for order in ("sequential", "pairwise"):
            cases.append((f"gemm {order}", dtype, n, 2.0 * n ** 3,
                          lambda a=a, b=b, o=order: reproblas.gemm(1.0, a, b, order=o),
                          lambda a=a, b=b: cp.matmul(a, b)))
        v = cp.asarray(rng.standard_normal(1 << 26).astype(dtype))
        for order in ("sequential", "pairwise"):
            cases.append((f"sum {order}", dtype, v.size, float(v.size),
                          lambda v=v, o=order: reproblas.sum(v, order=o),
                          lambda v=v: cp.sum(v)))
    cases += _solve_conv_cases(cp, rng, n)
    x = cp.asarray(rng.standard_normal(1 << 26).astype(np.float32))
    for fname in crlibm_py.FUNCTIONS:
        cases.append((fname, "float32", x.size, float(x.size),
                      lambda f=getattr(crlibm_py, fname): f(x),
                      lambda f=getattr(cp, fname, None): f(x) if f else None))
    for name, dtype, size, work, ours, base in cases:
        t_ours = t_base = float("inf")
        for _ in range(2):  # interleaved
            t_ours = min(t_ours, event_best(cp, ours, args.reps))
            if base() is not None:
                t_base = min(t_base, event_best(cp, base, args.reps))
        ratio = t_base / t_ours if np.isfinite(t_base) else float("nan")
        rows.append({"routine": name, "dtype": dtype, "size": size, "ours_s": t_ours,
                     "baseline_s": t_base, "ratio": ratio, "ours_rate": work / t_ours})
        print(f"{name:22s} {dtype:8s} {size:>10d}  ours {t_ours * 1e3:9.3f} ms  "
              f"cupy {t_base * 1e3:9.3f} ms  ratio {ratio:5.2f}")
    if args.json:
        import bench_json
        info = bench_json.machine_info(sys.argv, gpu=cp.cuda.runtime.getDeviceProperties(0)
                                       ["name"].decode(), cupy=cp.__version__)
        bench_json.write(args.json, info, rows)


if __name__ == "__main__":
    main()
