"""The JSON report of a run (fields documented in docs/verification/README.md)."""
import json
import os
import platform
import subprocess
import sys

import numpy

from . import mpfr


def _cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _git_commit():
    here = os.path.dirname(os.path.abspath(__file__))
    try:
        out = subprocess.run(["git", "-C", here, "rev-parse", "HEAD"], capture_output=True,
                             text=True, timeout=10)
        return out.stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None


def environment():
    from .. import __version__, _ufuncs
    try:
        glibc = os.confstr("CS_GNU_LIBC_VERSION")
    except (ValueError, OSError):
        glibc = None
    return dict(mpfr.versions(), numpy=numpy.__version__, python=sys.version.split()[0],
                libc=glibc, cpu=_cpu_model(), cpu_count=os.cpu_count(),
                cpu_paths=[p for p in _ufuncs.isa_names() if _ufuncs.isa_supported(p)],
                platform=platform.platform(), crlibm_py=__version__, git_commit=_git_commit())


def _hex(bits):
    return f"0x{bits:08x}"


def function_entry(fn, state, bound, config, wall):
    """The report of one function from its state (see checkpoint.py)."""
    from .bounds import REFERENCES
    from .checkpoint import complete as _complete, config_targets
    lo, hi = config["range"]
    tier = config["tier"]
    complete = _complete(state, config_targets(config))
    paths = {}
    for p in config["paths"]:
        wrong = state["wrong"][p]
        listed = sorted(state["wrong_inputs"][p])  # the lowest inputs (by bit pattern)
        paths[p] = {
            "tier": tier,
            "inputs_checked": state["inputs_checked"],
            "wrong": wrong,
            "wrong_inputs": [{"input": _hex(i), "got": _hex(g), "expected": _hex(e)}
                             for i, g, e in listed],
            "wrong_inputs_truncated": wrong > len(listed),
            "ok": complete and wrong == 0,
        }
    if tier == "fast":
        ref = REFERENCES[fn]
    else:
        ref = "MPFR for every input"
        bound = {"applicable": False, "ok": True,
                 "note": "the strict tier uses no double reference"}
    return {
        "tier": tier,
        "range": [_hex(lo), _hex(hi)],
        "complete": complete,
        "inputs_checked": state["inputs_checked"],
        "expected_from": ref + (", MPFR where the bound does not decide" if tier == "fast"
                                else ""),
        "undecided_to_mpfr": state["undecided"] if tier == "fast" else None,
        "reference_bound": bound,
        "wall_time_s": round(wall, 3) if wall is not None else None,
        "cpu_time_s": round(state["cpu_time_s"], 3),
        "paths": paths,
        "ok": complete and bound["ok"] and all(e["ok"] for e in paths.values()),
    }


def _sampled(config):
    if not config.get("sampled"):
        return None
    block, stride = config["sampled"]
    return {"block": block, "stride": stride}


def build(functions, states, bound_results, config, jobs, wall, fn_walls, resumed):
    fns = {fn: function_entry(fn, states[fn], bound_results.get(fn), config, fn_walls.get(fn))
           for fn in functions}
    return {
        "tool": "crlibm_py.verify",
        "report_version": 1,
        "tier": config["tier"],
        "paths": config["paths"],
        "range": [_hex(r) for r in config["range"]],
        "jobs": jobs,
        "sampled": _sampled(config),
        "resumed_from_checkpoint": resumed > 0,
        "inputs_from_checkpoint": resumed,
        "self_test_hooks": config["hooks"],
        "environment": environment(),
        "wall_time_s": round(wall, 3),
        "functions": fns,
        "ok": all(f["ok"] for f in fns.values()),
    }


def problems(result):
    """One loud line per failure."""
    out = []
    for fn, f in result["functions"].items():
        b = f["reference_bound"]
        if not b["ok"]:
            out.append(f"FAIL {fn}: reference error bound exceeded: {b['reference']} has relative "
                       f"error {b['max_rel_error']:.3g} at input {b['worst_input']} > declared "
                       f"bound {b['declared_bound']:.3g}; the fast-tier results of {fn} are not "
                       f"trustworthy")
        if not f["complete"]:
            out.append(f"FAIL {fn}: incomplete, {f['inputs_checked']} inputs checked")
        for p, e in f["paths"].items():
            if e["wrong"]:
                w = e["wrong_inputs"][0]
                out.append(f"FAIL {fn} [{p}]: {e['wrong']} wrong results (first: input "
                           f"{w['input']} got {w['got']} expected {w['expected']})")
    return out


def summary_line(fn, f):
    """One line for the report entry f of function fn: its result on every path."""
    wrong = ", ".join(f"{p} {e['wrong']}" for p, e in f["paths"].items())
    extra = (f", undecided->MPFR {f['undecided_to_mpfr']}, bound "
             f"{'ok' if f['reference_bound']['ok'] else 'EXCEEDED'}"
             if f["tier"] == "fast" else "")
    wall = f"{f['wall_time_s']:.1f} s" if f["wall_time_s"] is not None else "resumed, no work"
    return (f"{fn:6s} {'OK  ' if f['ok'] else 'FAIL'} {f['inputs_checked']} inputs; "
            f"wrong: {wrong}{extra}; {wall}")


def summary_lines(result):
    return [summary_line(fn, f) for fn, f in result["functions"].items()]


def final_line(result):
    n = sum(f["inputs_checked"] for f in result["functions"].values())
    wrong = sum(e["wrong"] for f in result["functions"].values() for e in f["paths"].values())
    return (f"crlibm_py.verify {result['tier']}: {', '.join(result['functions'])} on "
            f"{'+'.join(result['paths'])}: {n} inputs per path, {wrong} wrong, "
            f"{result['wall_time_s']:.1f} s: {'OK' if result['ok'] else 'FAILED'}")


def write(result, path):
    with open(path, "w") as f:
        json.dump(result, f, indent=1)
        f.write("\n")
