#!/usr/bin/env python3
"""Throughput of crlibm_py against NumPy's float32 functions, per function and CPU path.

For each function and each CPU path this machine has (forced through CRLIBM_ISA, which the
library reads at call time), prints ns/element of ``crlibm_py.<f>(x, out=y)`` on float32
arrays, next to the same for NumPy's float32 function and the ratio ours / NumPy (< 1: ours
is faster). The cases (input ranges) and baselines are each function's entry in the registry,
src/c/crlibm/functions.def (``python tools/crlibm_registry.py`` prints them):

- ``np.<f>`` on float32 where NumPy has the function (its own SIMD loops, not correctly
  rounded);
- erf: NumPy has no erf; the target named for it is ``np.tanh`` on float32 (a function of the
  same shape and cost class), and ``scipy.special.erf`` on float32 is shown as a second column;
- rsqrt: NumPy has no rsqrt; the baseline is the usual idiom ``1 / np.sqrt(x)`` in float32,
  written as two in-place passes into the output (sqrt, then divide), which is two roundings,
  not correctly rounded.

The "vs scalar" column is (scalar-call time) / (this path time), the baseline being "calling a
scalar correctly rounded libm per element": a C loop that calls, once per element, a
non-inlined ``float f(float)`` holding our own correctly rounded code on one lane, compiled for
AVX2+FMA (inline fma instructions); same bits as every path (``_ufuncs.apply_scalar_calls``,
src/c/crlibm/scalar_calls.c). It needs an x86-64 CPU with AVX2 and FMA; elsewhere the columns
stay empty.

Timing: every callable writes into a preallocated output; one warm-up call each, then
``--repeat`` rounds in which every candidate of a row (all paths and the baselines) is timed
once, in an order that rotates each round, so load from other processes hits all of them
alike. A sample runs the call enough times to last at least ``--min-time`` seconds; the
reported time is the minimum over rounds; the JSON output also keeps the median, and the
median over rounds of the per-round ratio ours / NumPy.
Everything runs on one thread: NumPy's ufuncs and crlibm_py never thread, and the BLAS
thread variables are pinned to 1 before NumPy is imported so they cannot matter.
"""
import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
             "NUMEXPR_NUM_THREADS", "REPROBLAS_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import importlib.util  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import pathlib  # noqa: E402
import platform  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

try:
    import scipy
    import scipy.special
except ImportError:  # the scipy column is then left empty
    scipy = None

ENV = "CRLIBM_ISA"
DEFAULT_SEED = 20240601
REPO = pathlib.Path(__file__).resolve().parents[1]


def _load_registry():
    """The function registry (src/c/crlibm/functions.def), parsed by crlibm_py/_registry.py
    loaded by path: no build is needed to list the cases."""
    spec = importlib.util.spec_from_file_location("crlibm_registry",
                                                  REPO / "crlibm_py" / "_registry.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.parse(module.parse_def(
        (REPO / "src" / "c" / "crlibm" / "functions.def").read_text()))


REGISTRY = _load_registry()
FUNCTIONS = tuple(f.name for f in REGISTRY)


def _positive_normals(rng, n):
    """Log-uniform positive normal float32: uniform exponent field 1..254, uniform mantissa."""
    bits = (rng.integers(1, 255, n, dtype=np.uint32) << 23) | rng.integers(
        0, 1 << 23, n, dtype=np.uint32)
    return bits.view(np.float32)


def _uniform(lo, hi):
    return lambda rng, n: rng.uniform(lo, hi, n).astype(np.float32)


def _huge(rng, n):
    """Log-uniform magnitudes in [1e6, 1e30] with random signs (Payne-Hanek territory)."""
    mag = 10.0 ** rng.uniform(6.0, 30.0, n)
    return (mag * rng.choice([-1.0, 1.0], n)).astype(np.float32)


def _case(kind, args):
    """(input label, generator) of a registry benchmark case."""
    if kind == "uniform":
        lo, hi = args
        return f"U[{lo},{hi}]", _uniform(float(lo), float(hi))
    if kind == "normals":
        return "log-uniform normals", _positive_normals
    return "+-1e6..1e30 log", _huge


# (case id, function, input label, generator), from each function's registry entry
# (sin and cos have a second, huge-argument case).
CASES = [(cid, f.name, *_case(kind, args)) for f in REGISTRY for cid, kind, args in f.bench]

_ONE = np.float32(1.0)


def case_input(case_id, size, seed=DEFAULT_SEED):
    """The float32 input array of one case (used by the asv benchmarks too)."""
    for cid, _, _, gen in CASES:
        if cid == case_id:
            return gen(np.random.default_rng(seed), size)
    raise KeyError(case_id)


def _numpy_call(expr):
    """callable(x, y) for a registry baseline "np.<f>" or "1/np.<f>": the latter is
    the usual idiom written as two in-place passes into the output (f, then divide)."""
    ufunc = getattr(np, expr.rsplit(".", 1)[1])
    if expr.startswith("1/"):
        def call(x, y):
            ufunc(x, out=y)
            np.divide(_ONE, y, out=y)
        return call
    return lambda x, y: ufunc(x, out=y)


def _entry(fname):
    return REGISTRY[FUNCTIONS.index(fname)]


def numpy_baseline(fname):
    """(label, callable(x, y)) of the NumPy reference for fname (the registry's baseline)."""
    expr = _entry(fname).baseline
    return expr, _numpy_call(expr)


def scipy_baseline(fname):
    """(label, callable) of the second reference, or None: the registry's accuracy
    function where it is SciPy's (erf)."""
    expr = _entry(fname).accuracy
    if not expr.startswith("scipy.special.") or scipy is None:
        return None
    func = getattr(scipy.special, expr.rsplit(".", 1)[1])
    return expr, lambda x, y: func(x, out=y)


def ours(fname):
    """crlibm_py.<fname> writing into y; the path comes from CRLIBM_ISA at call time."""
    import crlibm_py
    func = getattr(crlibm_py, fname)
    return lambda x, y: func(x, out=y)


def scalar_calls(fname):
    """The per-element scalar-call baseline writing into y, or None where unavailable."""
    from crlibm_py import _ufuncs
    if not _ufuncs.scalar_calls_available():
        return None
    index = _ufuncs.function_names().index(fname)
    return lambda x, y: _ufuncs.apply_scalar_calls(index, x, y)


def supported_paths():
    import crlibm_py
    return [name for name in crlibm_py.isa_names() if crlibm_py.isa_supported(name)]


# The clock of every sample: wall time, or this process's CPU time (--clock cpu), which on a
# machine shared with other jobs leaves out the time the process waited for a core.
CLOCKS = {"wall": time.perf_counter_ns, "cpu": time.process_time_ns}
_clock = CLOCKS["wall"]


def _sample(candidate, x, y, number):
    """Mean ns per call over number calls; candidate is (forced path or None, callable)."""
    path, call = candidate
    if path is None:
        os.environ.pop(ENV, None)
    else:
        os.environ[ENV] = path
    start = _clock()
    for _ in range(number):
        call(x, y)
    return (_clock() - start) / number


def time_candidates(candidates, x, repeat, min_time):
    """{name: [ns per call, one per round]} for candidates timed in rotating order."""
    y = np.empty_like(x)
    names = list(candidates)
    numbers = {}
    for name in names:  # warm-up, which also sizes the sample
        once = _sample(candidates[name], x, y, 1)
        numbers[name] = max(1, math.ceil(min_time * 1e9 / max(once, 1.0)))
    times = {name: [] for name in names}
    for r in range(repeat):
        shift = r % len(names)
        for name in names[shift:] + names[:shift]:
            times[name].append(_sample(candidates[name], x, y, numbers[name]))
    return times


def _paired_median(a, b):
    """Median over rounds of a[r] / b[r]: each pair was timed close together in one round."""
    return statistics.median(x / y for x, y in zip(a, b))


def run(size, repeat, min_time, functions, paths, seed):
    rows = []
    saved_env = os.environ.get(ENV)
    try:
        for cid, fname, label, gen in CASES:
            if fname not in functions:
                continue
            print(f"timing {fname} on {label} ...", file=sys.stderr, flush=True)
            x = gen(np.random.default_rng(seed), size)
            np_label, np_call = numpy_baseline(fname)
            candidates = {("ours", p): (p, ours(fname)) for p in paths}
            candidates[("numpy",)] = (None, np_call)
            sp = scipy_baseline(fname)
            if sp is not None:
                candidates[("scipy",)] = (None, sp[1])
            sc = scalar_calls(fname)
            if sc is not None:
                candidates[("scalar_calls",)] = (None, sc)
            times = time_candidates(candidates, x, repeat, min_time)
            per_el = {k: (min(v) / size, statistics.median(v) / size) for k, v in times.items()}
            numpy_ns = per_el[("numpy",)][0]
            scipy_ns = per_el[("scipy",)][0] if sp is not None else None
            scalar_ns = per_el[("scalar_calls",)][0] if sc is not None else None
            for p in paths:
                ns, med = per_el[("ours", p)]
                rows.append({
                    "case": cid, "function": fname, "input": label, "path": p,
                    "ns_per_element": ns, "ns_per_element_median": med,
                    "numpy_baseline": np_label, "numpy_ns_per_element": numpy_ns,
                    "ratio_numpy": ns / numpy_ns,
                    "ratio_numpy_paired_median": _paired_median(times[("ours", p)],
                                                                times[("numpy",)]),
                    "scipy_baseline": sp[0] if sp is not None else None,
                    "scipy_ns_per_element": scipy_ns,
                    "ratio_scipy": ns / scipy_ns if scipy_ns is not None else None,
                    "scalar_calls_ns_per_element": scalar_ns,
                    "speedup_vs_scalar": scalar_ns / ns if scalar_ns is not None else None,
                })
    finally:
        if saved_env is None:
            os.environ.pop(ENV, None)
        else:
            os.environ[ENV] = saved_env
    return rows


def cpu_model():
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            if line.startswith("Model name:"):
                return line.split(":", 1)[1].strip()
    except (OSError, subprocess.CalledProcessError):
        pass
    return platform.processor() or "unknown"


def machine_info(args, paths):
    import crlibm_py
    return {
        "cpu": cpu_model(), "logical_cpus": os.cpu_count(), "python": platform.python_version(),
        "numpy": np.__version__, "scipy": scipy.__version__ if scipy is not None else None,
        "crlibm_py": crlibm_py.__version__, "best_path": crlibm_py.best_isa(), "paths": paths,
        "size": args.size, "repeat": args.repeat, "min_time_s": args.min_time,
        "seed": args.seed, "clock": args.clock, "date_utc": time.strftime("%Y-%m-%d %H:%M", time.gmtime()),
    }


COLUMNS = [  # header, row key, format
    ("function", "function", "{}"), ("input", "input", "{}"), ("path", "path", "{}"),
    ("ns/el", "ns_per_element", "{:.3f}"), ("numpy ref", "numpy_baseline", "{}"),
    ("numpy ns/el", "numpy_ns_per_element", "{:.3f}"), ("ours/numpy", "ratio_numpy", "{:.2f}"),
    ("scipy ns/el", "scipy_ns_per_element", "{:.3f}"), ("ours/scipy", "ratio_scipy", "{:.2f}"),
    ("scalar-call ns/el", "scalar_calls_ns_per_element", "{:.3f}"),
    ("vs scalar", "speedup_vs_scalar", "{:.2f}x"),
]


def _cells(row):
    return [fmt.format(row[key]) if row[key] is not None else "-" for _, key, fmt in COLUMNS]


def format_text(rows):
    table = [[h for h, _, _ in COLUMNS]] + [_cells(r) for r in rows]
    widths = [max(len(line[i]) for line in table) for i in range(len(COLUMNS))]
    numeric = [i >= 3 and COLUMNS[i][1] != "numpy_baseline" for i in range(len(COLUMNS))]
    lines = []
    for line in table:
        lines.append("  ".join(c.rjust(w) if num else c.ljust(w)
                               for c, w, num in zip(line, widths, numeric)).rstrip())
    return "\n".join(lines)


def format_markdown(rows, info):
    out = [f"Machine: {info['cpu']} ({info['logical_cpus']} logical CPUs), Python "
           f"{info['python']}, NumPy {info['numpy']}, SciPy {info['scipy']}, crlibm_py "
           f"{info['crlibm_py']}; {info['size']} float32 elements per call, single thread, "
           f"minimum of {info['repeat']} rounds; {info['date_utc']} UTC.", ""]
    out.append("| " + " | ".join(h for h, _, _ in COLUMNS) + " |")
    out.append("|" + "|".join("---" if i < 3 or i == 4 else "---:"
                              for i in range(len(COLUMNS))) + "|")
    out.extend("| " + " | ".join(_cells(r)) + " |" for r in rows)
    return "\n".join(out)


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--size", type=int, default=1 << 24, help="elements per array (2^24)")
    p.add_argument("--repeat", type=int, default=7, help="timed rounds per candidate (7)")
    p.add_argument("--min-time", type=float, default=0.02,
                   help="seconds a single sample lasts at least (0.02)")
    p.add_argument("--functions", default=",".join(FUNCTIONS),
                   help="comma-separated subset of " + ",".join(FUNCTIONS))
    p.add_argument("--paths", default=None,
                   help="comma-separated CPU paths (default: all this CPU supports)")
    p.add_argument("--seed", type=int, default=DEFAULT_SEED)
    p.add_argument("--clock", choices=sorted(CLOCKS), default="wall",
                   help="wall time (default) or process CPU time (steadier on a busy machine)")
    p.add_argument("--markdown", action="store_true", help="print a Markdown table (for docs)")
    p.add_argument("--json", metavar="FILE", help="also write machine info and rows as JSON")
    args = p.parse_args(argv)
    args.functions = [f for f in args.functions.split(",") if f]
    unknown = sorted(set(args.functions) - set(FUNCTIONS))
    if unknown:
        p.error(f"unknown function(s) {unknown}; choose from {list(FUNCTIONS)}")
    if args.size < 1 or args.repeat < 1 or args.min_time < 0:
        p.error("--size and --repeat must be positive, --min-time non-negative")
    return args


def main(argv=None):
    args = parse_args(argv)
    global _clock
    _clock = CLOCKS[args.clock]
    os.environ.pop(ENV, None)  # so the import-time check sees no stale forced path
    paths = supported_paths()
    if args.paths:
        wanted = [p for p in args.paths.split(",") if p]
        missing = [p for p in wanted if p not in paths]
        if missing:
            sys.exit(f"path(s) {missing} unknown or not supported by this CPU (have {paths})")
        paths = wanted
    rows = run(args.size, args.repeat, args.min_time, args.functions, paths, args.seed)
    info = machine_info(args, paths)
    if args.markdown:
        print(format_markdown(rows, info))
    else:
        print(f"# {info['cpu']}; NumPy {info['numpy']}; {args.size} float32 elements; "
              f"min of {args.repeat} rounds; ratio < 1 means crlibm_py is faster")
        print(format_text(rows))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"machine": info, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
