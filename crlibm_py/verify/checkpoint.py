"""Resumable runs: a JSON file of the completed ranges and their results.

Layout: {"kind": KIND, "version": 1, "config": {tier, paths, range, bounds},
"functions": {fn: {"done": [[lo, hi], ...], "inputs_checked", "undecided",
"wrong": {path: count}, "wrong_inputs": {path: [[in, got, expected], ...]},
"cpu_time_s"}}}. It is rewritten atomically (temporary file + rename), so an
interrupted run leaves the previous complete state.
"""
import json
import os

KIND = "crlibm_py.verify checkpoint"


def merge(intervals):
    """Sorted, disjoint, non-adjacent [lo, hi) intervals covering the same set."""
    out = []
    for lo, hi in sorted(intervals):
        if out and lo <= out[-1][1]:
            out[-1][1] = max(out[-1][1], hi)
        else:
            out.append([lo, hi])
    return out


def subtract(lo, hi, done):
    """The parts of [lo, hi) not covered by the merged intervals `done`."""
    out, cur = [], lo
    for dlo, dhi in done:
        if dhi <= cur or dlo >= hi:
            continue
        if dlo > cur:
            out.append((cur, dlo))
        cur = max(cur, dhi)
    if cur < hi:
        out.append((cur, hi))
    return out


def empty_state(paths):
    return {"done": [], "inputs_checked": 0, "undecided": 0, "wrong": {p: 0 for p in paths},
            "wrong_inputs": {p: [] for p in paths}, "cpu_time_s": 0.0}


def load(path, config):
    """The per-function states saved in `path` (empty if it does not exist).
    Raises ValueError if it was written by a run with another configuration."""
    if path is None or not os.path.exists(path):
        return {}
    try:
        with open(path) as f:
            data = json.load(f)
    except (OSError, ValueError) as exc:
        raise ValueError(f"checkpoint {path}: unreadable ({exc})") from None
    if (not isinstance(data, dict) or data.get("kind") != KIND or data.get("version") != 1
            or not isinstance(data.get("functions"), dict)):
        raise ValueError(f"checkpoint {path}: not a crlibm_py.verify checkpoint")
    if data.get("config") != config:
        raise ValueError(f"checkpoint {path} was written by a run with another configuration "
                         f"({data.get('config')}, this run: {config}); use another file "
                         f"or delete it")
    return data["functions"]


def save(path, config, states):
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w") as f:
        json.dump({"kind": KIND, "version": 1, "config": config, "functions": states}, f)
    os.replace(tmp, path)
