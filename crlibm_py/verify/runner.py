"""Running a verification: chunks of bit patterns, spread over processes."""
import multiprocessing
import signal
import time
from typing import NamedTuple, Optional

from .. import _ufuncs, _verify
from . import bounds, checkpoint, mpfr, report
from .progress import Progress

FUNCTIONS = tuple(_ufuncs.function_names())
PATHS = tuple(_ufuncs.isa_names())
FULL_RANGE = (0, 1 << 32)
# Inputs per task: about a second of work, so progress and checkpoints are fine-grained.
CHUNK = {"fast": 1 << 22, "strict": 1 << 18}
SAVE_EVERY_S = 30.0


class Hooks(NamedTuple):
    """Self-test hooks (see verify.h): they make correct results look wrong."""
    corrupt_path: Optional[str] = None  # flip bit 0 of this path's results ...
    corrupt_mod: int = 0                # ... for inputs whose bits are a multiple of this
    ref_shift: float = 0.0              # the glibc reference times (1 + ref_shift)

    def active(self):
        return bool(self.corrupt_path and self.corrupt_mod) or self.ref_shift != 0.0


def supported_paths():
    return [p for p in PATHS if _ufuncs.isa_supported(p)]


def _init_worker():
    # Ctrl-C and SIGTERM are the parent's to handle: it saves the checkpoint
    # and terminates the workers.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    mpfr.load()


def _check_chunk(task):
    fn, lo, hi, paths, tier, max_wrong, hooks = task
    t0, c0 = time.time(), time.process_time()
    corrupt = PATHS.index(hooks.corrupt_path) if hooks.corrupt_path else -1
    res = _verify.check_range(FUNCTIONS.index(fn), lo, hi, [PATHS.index(p) for p in paths],
                              tier, bounds.BOUNDS[fn], max_wrong, corrupt, hooks.corrupt_mod,
                              hooks.ref_shift)
    return fn, lo, hi, res, t0, time.time(), time.process_time() - c0


def _check_bound(task):
    fn, sample_size, ref_shift = task
    t0 = time.time()
    out = bounds.check_bound(_verify, FUNCTIONS.index(fn), fn, sample_size, ref_shift)
    out["wall_time_s"] = round(time.time() - t0, 3)
    return fn, out


def _tasks(functions, states, lo, hi, paths, tier, max_wrong, hooks):
    for fn in functions:
        for a, b in checkpoint.subtract(lo, hi, states[fn]["done"]):
            for start in range(a, b, CHUNK[tier]):
                yield fn, start, min(start + CHUNK[tier], b), paths, tier, max_wrong, hooks


def _absorb(state, paths, lo, hi, res, max_wrong):
    state["done"] = checkpoint.merge(state["done"] + [[lo, hi]])
    state["inputs_checked"] += res["checked"]
    state["undecided"] += res["undecided"]
    for p in paths:
        i = PATHS.index(p)
        state["wrong"][p] += res["wrong"][i]
        room = max_wrong - len(state["wrong_inputs"][p])
        state["wrong_inputs"][p].extend([list(w) for w in res["wrong_list"][i][:max(room, 0)]])


def run(functions, tier="fast", paths=None, jobs=1, lo=0, hi=1 << 32, checkpoint_path=None,
        sample_size=100_000, max_wrong=1000, hooks=Hooks(), stream=None):
    """Verify `functions` over the bit patterns [lo, hi) on `paths`; returns the report dict.

    tier "fast": glibc reference + bound, MPFR for undecided inputs; "strict":
    MPFR for every input. Raises ValueError for bad arguments (or a checkpoint
    from another configuration) and mpfr.MPFRUnavailable without MPFR."""
    functions = list(functions)
    for fn in functions:
        if fn not in FUNCTIONS:
            raise ValueError(f"unknown function {fn!r}; use one of {', '.join(FUNCTIONS)}")
    if tier not in CHUNK:
        raise ValueError(f"unknown tier {tier!r}")
    paths = list(paths) if paths else supported_paths()
    for p in paths:
        if p not in PATHS:
            raise ValueError(f"unknown CPU path {p!r}; use one of {', '.join(PATHS)}")
        if not _ufuncs.isa_supported(p):
            raise ValueError(f"this CPU cannot run the {p} path (it has: "
                             f"{', '.join(supported_paths())})")
    if not 0 <= lo < hi <= 1 << 32:
        raise ValueError(f"range [{lo:#x}, {hi:#x}) is empty or outside [0, 2^32)")
    if jobs < 1:
        raise ValueError("jobs must be at least 1")
    if hooks.corrupt_path is not None and hooks.corrupt_path not in paths:
        raise ValueError(f"self-test path {hooks.corrupt_path!r} is not among the checked paths")
    mpfr.load()  # fail early, in this process, with the installation hint

    config = {"tier": tier, "paths": paths, "range": [lo, hi],
              "bounds": bounds.BOUNDS if tier == "fast" else None,
              "hooks": hooks._asdict() if hooks.active() else None}
    saved = checkpoint.load(checkpoint_path, config)
    states = {fn: saved.get(fn) or checkpoint.empty_state(paths) for fn in functions}
    all_states = dict(saved, **states)
    tasks = list(_tasks(functions, states, lo, hi, paths, tier, max_wrong, hooks))
    bound_tasks = [(fn, sample_size, hooks.ref_shift) for fn in functions] if tier == "fast" else []
    progress = Progress(sum(t[2] - t[1] for t in tasks), stream)
    span = {}  # fn -> [first chunk start, last chunk end] (wall clock)
    t_start, last_save = time.time(), time.monotonic()

    # no more processes than pieces of work (--jobs 500 on 64 inputs started 500)
    jobs = min(jobs, len(tasks) + len(bound_tasks)) if tasks else 1
    pool = multiprocessing.Pool(jobs, initializer=_init_worker) if jobs > 1 else None
    try:
        if pool is not None:
            pending_bounds = [pool.apply_async(_check_bound, (t,)) for t in bound_tasks]
            results = pool.imap_unordered(_check_chunk, tasks)
        else:
            pending_bounds = None
            results = map(_check_chunk, tasks)
        for fn, a, b, res, t0, t1, cpu in results:
            _absorb(states[fn], paths, a, b, res, max_wrong)
            states[fn]["cpu_time_s"] += cpu
            s = span.setdefault(fn, [t0, t1])
            s[0], s[1] = min(s[0], t0), max(s[1], t1)
            progress.update(b - a, fn)
            if checkpoint_path and time.monotonic() - last_save >= SAVE_EVERY_S:
                checkpoint.save(checkpoint_path, config, all_states)
                last_save = time.monotonic()
        if pending_bounds is not None:
            bound_results = dict(r.get() for r in pending_bounds)
        else:
            bound_results = dict(_check_bound(t) for t in bound_tasks)
    finally:
        if pool is not None:
            pool.terminate()
        if checkpoint_path:
            checkpoint.save(checkpoint_path, config, all_states)

    wall = time.time() - t_start
    result = report.build(functions, states, bound_results, config, jobs, wall,
                          {fn: s[1] - s[0] for fn, s in span.items()}, resumed=bool(saved))
    progress.finish(report.final_line(result))
    return result
