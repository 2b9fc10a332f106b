#!/usr/bin/env bash
# The checks that need a CUDA GPU (or a CPU this project's machines lack), for a
# session that is lent a GPU machine: one stage per argument, each with its own
# time limit so one hang cannot eat the lease; logs and JSON go to $OUT.
#
#   bash tools/device_session.sh setup gpu-emu gpu-tests bench   # first call
#   bash tools/device_session.sh setup gpu-exhaustive cpu   # second call
#
# setup          extra wheels from .whl/ (gmpy2, highspy), then an in-place build
# gpu-tests      the tests marked cuda (every routine against the CPU), without the
#                exhaustive runs
# gpu-emu        the host-emulation tests of every CUDA kernel, run on the real device
#                (CUDA_EMU_ON_GPU=1, tests/cuda_support.py); failures listed in gpu_emu.xml
# tune           tools/tune_cuda_gemm.py: tile shapes of the sequential gemm
# bench          tools/bench_cuda.py at n = 4096 (ratios against CuPy / cuBLAS, no TF32)
# profile        Nsight Compute on one n = 4096 float32 sequential gemm (where ncu works)
# gpu-exhaustive every crlibm function, CPU == GPU on all 2^32 inputs
# cpu            the CPU test suite and the fast-tier verification on the paths this CPU
#                has (AVX-512 included), and the crlibm speed script
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/device_out}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 CUPY_TF32=0 PYTHONPATH=$PWD:/tmp/site  # /tmp/site: setup's wheels
PY=python3

stage() {  # stage NAME SECONDS COMMAND...: run with a limit, log to $OUT/NAME.log
  local name=$1 limit=$2
  shift 2
  echo "=== $name (limit ${limit}s) $(date -u +%T)"
  timeout "$limit" "$@" > "$OUT/$name.log" 2>&1
  local rc=$?
  tail -n 25 "$OUT/$name.log"
  echo "=== $name: exit $rc $(date -u +%T)"
}

for what in "$@"; do
  case $what in
    setup)
      nvidia-smi -L; nvcc --version | tail -1; nproc
      grep -o 'avx512[a-z]*\|avx2\|fma' /proc/cpuinfo | sort -u | tr '\n' ' '; echo
      if ls .whl/*.whl > /dev/null 2>&1; then
        $PY -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
          --target /tmp/site .whl/*.whl
      fi
      $PY -c "import numpy, cupy; print('numpy', numpy.__version__, 'cupy', cupy.__version__)"
      stage build 240 $PY setup.py build_ext --inplace -j "$(nproc)" ;;
    gpu-tests)
      stage gpu_tests 240 $PY -m pytest -q -p no:cacheprovider -m cuda \
        tests/test_cuda_gpu.py tests/test_cuda_emu_conv.py -k "not all_inputs" ;;
    gpu-emu)
      stage gpu_emu 300 env CUDA_EMU_ON_GPU=1 $PY -m pytest -q -p no:cacheprovider -n 8 \
        --timeout 150 -rfE --junitxml "$OUT/gpu_emu.xml" tests/test_cuda_emu_*.py \
        tests/test_reproblas_{exact,kahan,level1_blas,symm_syr2k,syrk,trmm,scan_cuda}.py ;;
    bench)
      stage bench_cuda 240 $PY tools/bench_cuda.py --n 4096 --reps 3 \
        --json "$OUT/bench_cuda.json" ;;
    tune)
      stage tune_gemm 200 $PY tools/tune_cuda_gemm.py --n 2048 4096 8192 ;;
    profile)
      stage profile_gemm 150 ncu --clock-control none --kernel-name regex:rb_gemm_seq_f32 \
        --launch-count 1 --section SpeedOfLight --section WarpStateStats --section Occupancy \
        --section MemoryWorkloadAnalysis $PY -c "import cupy as cp, reproblas
a = cp.random.standard_normal((4096, 4096), dtype=cp.float32)
reproblas.gemm(1.0, a, a); cp.cuda.Device().synchronize()" ;;
    gpu-exhaustive)
      stage gpu_exhaustive 280 $PY -m pytest -q -p no:cacheprovider -m cuda \
        tests/test_cuda_gpu.py -k all_inputs ;;
    cpu)
      stage cpu_tests 240 $PY -m pytest -q -p no:cacheprovider -n 16 -m "not cuda" \
        tests --deselect tests/test_polygen.py
      stage verify 200 $PY -m crlibm_py.verify all --isa all --jobs "$(nproc)" \
        --report "$OUT/verify_fast.json"
      stage bench_crlibm 120 $PY tools/bench_crlibm.py --repeat 3 --json "$OUT/bench_crlibm.json" ;;
    *) echo "unknown stage $what"; exit 2 ;;
  esac
done
