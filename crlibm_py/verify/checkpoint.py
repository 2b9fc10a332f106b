"""Resumable runs: a JSON file of the completed ranges and their results.

Layout: {"kind": KIND, "version": 2, "config": {...the run's configuration...},
"functions": {fn: {"done": [[lo, hi], ...], "inputs_checked", "undecided",
"wrong": {path: count}, "wrong_inputs": {path: [[in, got, expected], ...]},
"cpu_time_s"}}}. It is rewritten atomically (temporary file + rename), so an
interrupted or killed run leaves the previous complete state.

A file is used only if every field is valid and consistent with the run
(``load``): its results go straight into the report, so a damaged or
hand-edited file must not turn into a report of inputs that were never checked.
"""
import bisect
import json
import math
import os

KIND = "crlibm_py.verify checkpoint"
VERSION = 2  # 2: wrong_inputs are the lowest inputs, sorted; the config names the build
STATE_FIELDS = ("done", "inputs_checked", "undecided", "wrong", "wrong_inputs", "cpu_time_s")


class CheckpointError(ValueError):
    """The checkpoint file cannot be used for this run (unreadable, invalid,
    or written by a run with another configuration)."""


def merge(intervals):
    """Sorted, disjoint, non-adjacent [lo, hi) intervals covering the same set."""
    out = []
    for lo, hi in sorted(intervals):
        if out and lo <= out[-1][1]:
            out[-1][1] = max(out[-1][1], hi)
        else:
            out.append([lo, hi])
    return out


def subtract(targets, done):
    """The parts of the merged intervals `targets` not covered by the merged `done`."""
    out = []
    for lo, hi in targets:
        cur = lo
        for dlo, dhi in done:
            if dhi <= cur or dlo >= hi:
                continue
            if dlo > cur:
                out.append((cur, dlo))
            cur = max(cur, dhi)
        if cur < hi:
            out.append((cur, hi))
    return out


def size(intervals):
    return sum(hi - lo for lo, hi in intervals)


def empty_state(paths):
    return {"done": [], "inputs_checked": 0, "undecided": 0, "wrong": {p: 0 for p in paths},
            "wrong_inputs": {p: [] for p in paths}, "cpu_time_s": 0.0}


def complete(state, targets):
    return state["done"] == [list(t) for t in targets]


def _is_int(v, lo, hi):
    return isinstance(v, int) and not isinstance(v, bool) and lo <= v <= hi


def _inside(x_lo, x_hi, intervals, starts):
    """[x_lo, x_hi) lies inside one of the sorted disjoint `intervals` (starts: their los)."""
    i = bisect.bisect_right(starts, x_lo) - 1
    return i >= 0 and intervals[i][1] >= x_hi


def _state_problem(st, config, targets, starts):
    """Why the saved state of one function is invalid, or None."""
    if not isinstance(st, dict):
        return "is not an object"
    if set(st) != set(STATE_FIELDS):
        missing, extra = set(STATE_FIELDS) - set(st), set(st) - set(STATE_FIELDS)
        return (f"has missing fields {sorted(missing)}" if missing
                else f"has unknown fields {sorted(extra)}")
    done = st["done"]
    if not isinstance(done, list):
        return "done is not a list"
    prev_hi = -1
    for d in done:
        if not (isinstance(d, list) and len(d) == 2 and _is_int(d[0], 0, 1 << 32)
                and _is_int(d[1], 0, 1 << 32)):
            return f"done has an entry {d!r} that is not a pair [lo, hi] of bit patterns"
        if d[0] >= d[1]:
            return f"done has an empty interval {d!r}"
        if d[0] <= prev_hi:
            return "done is not sorted, or has overlapping or adjacent intervals"
        if not _inside(d[0], d[1], targets, starts):
            return f"done has an interval {d!r} outside the run's range"
        prev_hi = d[1]
    n = st["inputs_checked"]
    if not _is_int(n, 0, 1 << 32):
        return "inputs_checked is not an integer in 0..2^32"
    if n != size(done):
        return f"inputs_checked is {n}, but the done intervals hold {size(done)} inputs"
    if not _is_int(st["undecided"], 0, n):
        return "undecided is not an integer in 0..inputs_checked"
    if config["tier"] == "strict" and st["undecided"] != 0:
        return "undecided is not 0 in the strict tier"
    cpu = st["cpu_time_s"]
    if not (isinstance(cpu, (int, float)) and not isinstance(cpu, bool) and math.isfinite(cpu)
            and cpu >= 0):
        return "cpu_time_s is not a finite number >= 0"
    paths = config["paths"]
    for field in ("wrong", "wrong_inputs"):
        if not isinstance(st[field], dict) or sorted(st[field]) != sorted(paths):
            return f"{field} does not have exactly the paths {paths}"
    done_starts = [d[0] for d in done]
    for p in paths:
        wrong, listed = st["wrong"][p], st["wrong_inputs"][p]
        if not _is_int(wrong, 0, n):
            return f"wrong[{p}] is not an integer in 0..inputs_checked"
        if not isinstance(listed, list):
            return f"wrong_inputs[{p}] is not a list"
        if len(listed) != min(wrong, config["max_wrong"]):
            return (f"wrong_inputs[{p}] lists {len(listed)} inputs, expected "
                    f"min(wrong {wrong}, max_wrong {config['max_wrong']})")
        prev = -1
        for w in listed:
            if not (isinstance(w, list) and len(w) == 3
                    and all(_is_int(v, 0, (1 << 32) - 1) for v in w)):
                return f"wrong_inputs[{p}] has an entry {w!r} that is not [input, got, expected]"
            if w[0] <= prev:
                return f"wrong_inputs[{p}] is not sorted by input, or repeats one"
            if w[1] == w[2]:
                return f"wrong_inputs[{p}] has an entry {w!r} whose result equals the expected one"
            if not _inside(w[0], w[0] + 1, done, done_starts):
                return f"wrong_inputs[{p}] has an input {w[0]:#010x} outside the done intervals"
            prev = w[0]
    return None


def _config_difference(saved, config):
    if not isinstance(saved, dict):
        return "its config is not an object"
    keys = [k for k in config if saved.get(k, object()) != config[k]]
    keys += [k for k in saved if k not in config]
    k = keys[0]
    if k == "build":
        return "it was written for another build of crlibm_py (the checked code changed)"
    return f"{k}: {saved.get(k)!r} there, {config.get(k)!r} in this run"


def validate(data, config, functions):
    """Why `data` is not a usable checkpoint for a run with `config`, or None.
    functions: the names a checkpoint may hold states of."""
    if not isinstance(data, dict) or data.get("kind") != KIND:
        return "it is not a crlibm_py.verify checkpoint"
    if data.get("version") != VERSION:
        return (f"it has format version {data.get('version')!r}, this verifier reads "
                f"version {VERSION}")
    if set(data) != {"kind", "version", "config", "functions"}:
        return f"it has unknown or missing top-level fields ({sorted(data)})"
    if data["config"] != config:
        return "it was written by a run with another configuration (" + \
            _config_difference(data["config"], config) + ")"
    states = data["functions"]
    if not isinstance(states, dict):
        return "functions is not an object"
    targets = config_targets(config)
    starts = [t[0] for t in targets]
    for fn, st in states.items():
        if fn not in functions:
            return f"it has a state for an unknown function {fn!r}"
        why = _state_problem(st, config, targets, starts)
        if why:
            return f"the state of {fn}: {why}"
    return None


def config_targets(config):
    """The merged intervals a run with `config` checks."""
    lo, hi = config["range"]
    return targets(lo, hi, config.get("sampled"))


def targets(lo, hi, sampled=None):
    """[lo, hi), or with sampled = [block, stride] the first `block` patterns
    of every `stride` patterns from lo on."""
    if not sampled:
        return [[lo, hi]]
    block, stride = sampled
    return [[b, min(b + block, hi)] for b in range(lo, hi, stride)]


def load(path, config, functions):
    """The per-function states saved in `path` (empty if it does not exist).
    Raises CheckpointError if it cannot be read, is invalid, or was written by
    a run with another configuration."""
    if path is None or not os.path.exists(path):
        return {}
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
        raise CheckpointError(f"checkpoint {path} is unreadable ({exc})") from None
    why = validate(data, config, functions)
    if why:
        raise CheckpointError(f"checkpoint {path} cannot be used: {why}")
    return data["functions"]


def save(path, config, states):
    tmp = f"{path}.tmp{os.getpid()}"
    try:
        with open(tmp, "w") as f:
            json.dump({"kind": KIND, "version": VERSION, "config": config, "functions": states},
                      f)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
