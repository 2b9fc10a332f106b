"""GPU benchmark: our CUDA kernels against CuPy / cuBLAS (FP32 without TF32).

    python tools/bench_cuda.py [--n 4096] [--reps 5] [--json out.json]

Rows: gemm (reproblas.gemm vs cupy.matmul = cuBLAS SGEMM/DGEMM; CUPY_TF32 is
forced off), sum (vs cupy.sum), exp (crlibm_py.exp vs cupy.exp). Each time is
the best of --reps runs, measured with CUDA events, ours and the baseline
interleaved; the ratio is baseline time / our time (>= 0.7 is the gemm goal).
"""
import argparse
import os
import sys

os.environ["CUPY_TF32"] = "0"  # before CuPy is imported: cuBLAS in true FP32

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))


def _best(cp, fn, reps):
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
    x = cp.asarray(rng.standard_normal(1 << 26).astype(np.float32))
    for fname in crlibm_py.FUNCTIONS:
        cases.append((fname, "float32", x.size, float(x.size),
                      lambda f=getattr(crlibm_py, fname): f(x),
                      lambda f=getattr(cp, fname, None): f(x) if f else None))
    for name, dtype, size, work, ours, base in cases:
        t_ours = t_base = float("inf")
        for _ in range(2):  # interleaved
            t_ours = min(t_ours, _best(cp, ours, args.reps))
            if base() is not None:
                t_base = min(t_base, _best(cp, base, args.reps))
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
