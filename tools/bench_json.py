"""Machine description and JSON output shared by the reproblas benchmark scripts.

The JSON layout is the one tools/bench_crlibm.py writes, {"machine": {...}, "rows": [...]},
so docs/_ext/benchdocs.py renders every script's output the same way.
"""
import json
import os
import platform
import subprocess
import time

import numpy as np


def _cpu_model():
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return platform.processor() or "unknown"
    for line in out.splitlines():
        if line.startswith("Model name:"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


def machine_info(argv, **extra):
    """Where and how a benchmark ran: CPU, versions, BLAS, the command line and the date."""
    try:
        from threadpoolctl import threadpool_info
        blas = [f"{i.get('internal_api')} {i.get('version')} ({i.get('architecture')})"
                for i in threadpool_info() if i.get("user_api") == "blas"]
    except ImportError:
        blas = []
    import reproblas
    info = {"cpu": _cpu_model(), "logical_cpus": os.cpu_count(),
            "python": platform.python_version(), "numpy": np.__version__, "blas": blas,
            "reproblas": reproblas.__version__,
            "reproblas_isa": os.environ.get("REPROBLAS_ISA") or reproblas.best_isa(),
            "openblas_coretype": os.environ.get("OPENBLAS_CORETYPE"),
            "load_average": os.getloadavg()[0], "argv": list(argv),
            "date_utc": time.strftime("%Y-%m-%d %H:%M", time.gmtime())}
    info.update(extra)
    return info


def write(path, info, rows):
    with open(path, "w") as f:
        json.dump({"machine": info, "rows": rows}, f, indent=1)
        f.write("\n")


def add_run_options(ap, *, repeat, budget, dtypes, routines, routine_choices=None):
    """The options the reproblas ratio scripts share: threads, rounds, time budget, dtypes,
    routines, orders and the JSON output."""
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--repeat", type=int, default=repeat)
    ap.add_argument("--budget", type=float, default=budget, help="seconds per row, soft")
    ap.add_argument("--dtypes", nargs="+", default=dtypes)
    ap.add_argument("--routines", nargs="+", default=routines, choices=routine_choices)
    ap.add_argument("--orders", nargs="+", default=["sequential", "pairwise"])
    ap.add_argument("--json", metavar="FILE", help="also write machine info and rows as JSON")
