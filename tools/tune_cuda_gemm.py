"""Tile shapes of the sequential CUDA gemm (src/cuda/reproblas/gemm_seq.cuh), timed
on a GPU in one process: every shape is compiled into one module (NVRTC, the
contract's options, linted), checked bit for bit against reproblas.gemm on the
same GPU, and timed against cupy.matmul (cuBLAS, TF32 off).

    python tools/tune_cuda_gemm.py [--n 4096 ...] [--reps 5]

Rows: dtype, shape (BM, BN, BK, TM, TN), k-loop unroll, minimum blocks per SM of
__launch_bounds__, registers and spill bytes per thread, GFLOP/s, baseline / ours.
The shapes that reproblas.cu uses are RB_GEMM_SEQ_F32 / _F64.
"""
import argparse
import os
import sys
import tempfile

os.environ["CUPY_TF32"] = "0"  # before CuPy is imported: cuBLAS in true FP32

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))
from bench_cuda import event_best  # noqa: E402

SHAPES = {  # BM, BN, BK, TM, TN, k-loop unroll, min blocks per SM
    "float32": [(128, 128, 16, 8, 8, 2, 2), (128, 128, 8, 8, 8, 2, 2), (128, 128, 16, 8, 8, 1, 2),
                (128, 128, 16, 8, 8, 4, 1), (128, 128, 8, 8, 8, 8, 1), (128, 64, 16, 8, 8, 2, 2),
                (64, 128, 16, 8, 8, 2, 2), (128, 64, 16, 8, 8, 4, 3)],
    "float64": [(64, 64, 16, 4, 4, 2, 2), (64, 64, 8, 4, 4, 2, 2), (64, 64, 16, 4, 4, 4, 2),
                (128, 64, 8, 8, 4, 2, 1), (64, 128, 8, 4, 8, 2, 1)],
}
CTYPE = {"float32": "float", "float64": "double"}


def _source():
    lines = ['#include "cuda_prelude.cuh"', '#include "reproblas/gemm_seq.cuh"']
    for dtype, shapes in SHAPES.items():
        t = CTYPE[dtype]
        for i, (bm, bn, bk, tm, tn, unroll, minb) in enumerate(shapes):
            nt = (bm // tm) * (bn // tn)
            lines.append(
                f'extern "C" __global__ void __launch_bounds__({nt}, {minb}) '
                f'tune_{dtype}_{i}(long long m, long long n, long long k, {t} alpha, '
                f'const {t} *a, long long a_rs, long long a_cs, const {t} *b, long long b_rs, '
                f'long long b_cs, {t} beta, {t} *c, long long c_rs, long long c_cs) {{ '
                f'rb_gemm_seq_body<{t}, {bm}, {bn}, {bk}, {tm}, {tn}, {unroll}>(m, n, k, alpha, '
                f'a, a_rs, a_cs, b, b_rs, b_cs, beta, c, c_rs, c_cs); }}')
    return "\n".join(lines) + "\n"


def _module(cp):
    from repro_runtime import nvrtc, ptx
    arch = cp.cuda.Device().compute_capability
    text = nvrtc.cupy_nvrtc(_source(), nvrtc.nvrtc_options()
                            + (f"--gpu-architecture=compute_{arch}",))
    bad = ptx.lint(text)
    if bad:
        sys.exit(f"tune_cuda_gemm: the PTX breaks the contract: {bad[:3]}")
    path = os.path.join(tempfile.mkdtemp(), "tune.ptx")
    with open(path, "w") as f:
        f.write(text)
    return cp.RawModule(path=path)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, nargs="+", default=[4096])
    ap.add_argument("--reps", type=int, default=5)
    args = ap.parse_args(argv)
    import cupy as cp
    import reproblas
    mod = _module(cp)
    rng = np.random.default_rng(0)
    for n in args.n:
        for dtype, shapes in SHAPES.items():
            a = cp.asarray(rng.standard_normal((n, n)).astype(dtype))
            b = cp.asarray(rng.standard_normal((n, n)).astype(dtype))
            expected = cp.asnumpy(reproblas.gemm(1.0, a, b))
            t_base = event_best(cp, lambda: cp.matmul(a, b), args.reps)
            t = np.dtype(dtype).type
            for i, (bm, bn, bk, tm, tn, unroll, minb) in enumerate(shapes):
                f = mod.get_function(f"tune_{dtype}_{i}")
                c = cp.empty((n, n), dtype)
                grid, block = (-(-n // bm), -(-n // bn)), ((bm // tm) * (bn // tn),)
                call = (lambda f=f, c=c, grid=grid, block=block: f(grid, block, (
                    np.int64(n), np.int64(n), np.int64(n), t(1), a, np.int64(n), np.int64(1),
                    b, np.int64(n), np.int64(1), t(0), c, np.int64(n), np.int64(1))))
                secs = event_best(cp, call, args.reps)
                same = np.array_equal(cp.asnumpy(c).view(f"u{c.itemsize}"),
                                      expected.view(f"u{c.itemsize}"))
                print(f"n={n} {dtype} {(bm, bn, bk, tm, tn)} u{unroll} min{minb}: "
                      f"regs {f.num_regs:3d} spill {f.local_size_bytes:4d}  "
                      f"{2 * n ** 3 / secs / 1e9:8.0f} GFLOP/s  "
                      f"cuBLAS {2 * n ** 3 / t_base / 1e9:8.0f}  ratio {t_base / secs:5.2f}  "
                      f"{'same bits' if same else 'BITS DIFFER'}", flush=True)


if __name__ == "__main__":
    main()
