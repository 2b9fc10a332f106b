"""Running a verification: chunks of bit patterns, spread over processes."""
import hashlib
import heapq
import itertools
import multiprocessing
import os
import queue
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
# --quick: the first QUICK[0] bit patterns of every QUICK[1] (1/256 of the inputs, 8
# blocks in every binade).
QUICK = (1 << 12, 1 << 20)


class Hooks(NamedTuple):
    """Self-test hooks (see verify.h): they make correct results look wrong."""
    corrupt_path: Optional[str] = None  # flip bit 0 of this path's results ...
    corrupt_mod: int = 0                # ... for inputs whose bits are a multiple of this
    ref_shift: float = 0.0              # the glibc reference times (1 + ref_shift)

    def active(self):
        return bool(self.corrupt_path and self.corrupt_mod) or self.ref_shift != 0.0


def supported_paths():
    return [p for p in PATHS if _ufuncs.isa_supported(p)]


def build_id():
    """Identifies the checked code (the kernels are compiled into _verify): a
    checkpoint of another build is not resumed."""
    h = hashlib.sha256()
    with open(_verify.__file__, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _die_with_parent(parent):
    """Workers end when the main process dies, even by SIGKILL (they would
    otherwise finish their chunk and wait on the task queue forever)."""
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # not Linux: the pool's own shutdown still applies
        return
    if os.getppid() != parent:  # died before prctl took effect
        os._exit(1)


def _init_worker(parent):
    # Ctrl-C and SIGTERM are the parent's to handle: it saves the checkpoint
    # and terminates the workers.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _die_with_parent(parent)
    mpfr.load()


def _check_chunk(task):
    """Check the intervals of one task; the wrong inputs listed are the lowest
    max_wrong of the task (the C core lists each interval's in input order)."""
    fn, intervals, paths, tier, max_wrong, hooks = task
    t0, c0 = time.time(), time.process_time()
    corrupt = PATHS.index(hooks.corrupt_path) if hooks.corrupt_path else -1
    isas = [PATHS.index(p) for p in paths]
    out = {"checked": 0, "undecided": 0, "wrong": {i: 0 for i in isas},
           "wrong_list": {i: [] for i in isas}}
    for lo, hi in intervals:
        res = _verify.check_range(FUNCTIONS.index(fn), lo, hi, isas, tier, bounds.BOUNDS[fn],
                                  max_wrong, corrupt, hooks.corrupt_mod, hooks.ref_shift)
        out["checked"] += res["checked"]
        out["undecided"] += res["undecided"]
        for i in isas:
            out["wrong"][i] += res["wrong"][i]
            room = max_wrong - len(out["wrong_list"][i])
            out["wrong_list"][i].extend(res["wrong_list"][i][:room])
    return fn, intervals, out, t0, time.time(), time.process_time() - c0


def _check_bound(task):
    fn, sample_size, ref_shift = task
    t0 = time.time()
    out = bounds.check_bound(_verify, FUNCTIONS.index(fn), fn, sample_size, ref_shift)
    out["wall_time_s"] = round(time.time() - t0, 3)
    return fn, out


def _chunks(todo, chunk):
    """The intervals `todo`, cut and grouped into lists of at most `chunk` inputs."""
    group, n = [], 0
    for a, b in todo:
        while a < b:
            take = min(b - a, chunk - n)
            group.append((a, a + take))
            n += take
            a += take
            if n == chunk:
                yield group
                group, n = [], 0
    if group:
        yield group


def _lowest(listed, new, k):
    """The k lowest entries of two lists sorted by input (inputs are distinct)."""
    if k <= 0:
        return []
    if not new or (len(listed) >= k and new[0][0] > listed[-1][0]):
        return listed
    return list(itertools.islice(heapq.merge(listed, new), k))


def _absorb(state, paths, intervals, res, max_wrong, cpu):
    """Add a task's results. Whatever order the tasks finish in, the listed
    wrong inputs are the lowest max_wrong of all checked (by bit pattern).
    One dict.update: a Ctrl-C between two fields would leave a state the
    checkpoint's validation refuses."""
    wrong, listed = {}, {}
    for p in paths:
        i = PATHS.index(p)
        wrong[p] = state["wrong"][p] + res["wrong"][i]
        listed[p] = _lowest(state["wrong_inputs"][p], [list(w) for w in res["wrong_list"][i]],
                            max_wrong)
    state.update(done=checkpoint.merge(state["done"] + [[a, b] for a, b in intervals]),
                 inputs_checked=state["inputs_checked"] + res["checked"],
                 undecided=state["undecided"] + res["undecided"], wrong=wrong,
                 wrong_inputs=listed, cpu_time_s=state["cpu_time_s"] + cpu)


class _Serial:
    """Runs the tasks in this process, in order (--jobs 1)."""

    def __init__(self, bound_tasks, tasks_by_fn):
        self.bound_tasks, self.tasks_by_fn = bound_tasks, tasks_by_fn

    def events(self, tick):
        for fn, tasks in self.tasks_by_fn.items():
            if fn in self.bound_tasks:
                yield "bound", _check_bound(self.bound_tasks[fn])
            for t in tasks:
                yield "chunk", _check_chunk(t)

    def close(self):
        pass


class _Pooled:
    """Runs the tasks in worker processes; results arrive as they finish. A few
    tasks per worker are queued at a time (a full strict run has 10^5 tasks)."""

    def __init__(self, jobs, bound_tasks, tasks_by_fn):
        self.results = queue.Queue()
        self.pool = multiprocessing.Pool(jobs, initializer=_init_worker, initargs=(os.getpid(),))
        self.todo = self._order(bound_tasks, tasks_by_fn)
        self.count = len(bound_tasks) + sum(map(len, tasks_by_fn.values()))
        for _ in range(4 * jobs):
            self._submit_next()

    @staticmethod
    def _order(bound_tasks, tasks_by_fn):
        # per function its bound check, then its chunks: functions finish one after another
        for fn, tasks in tasks_by_fn.items():
            if fn in bound_tasks:
                yield "bound", _check_bound, bound_tasks[fn]
            for t in tasks:
                yield "chunk", _check_chunk, t

    def _submit_next(self):
        item = next(self.todo, None)
        if item is not None:
            kind, func, task = item
            self.pool.apply_async(func, (task,), callback=lambda r: self.results.put((kind, r)),
                                  error_callback=lambda e: self.results.put(("error", e)))

    def events(self, tick):
        left = self.count
        while left:
            try:
                kind, value = self.results.get(timeout=tick)
            except queue.Empty:
                yield "tick", None
                continue
            if kind == "error":
                raise value
            left -= 1
            self._submit_next()
            yield kind, value

    def close(self):
        self.pool.terminate()


def _blocking_signals():
    """Ctrl-C and SIGTERM wait (they are delivered after) while a checkpoint is written."""
    return signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})


def run(functions, tier="fast", paths=None, jobs=1, lo=0, hi=1 << 32, checkpoint_path=None,
        sample_size=100_000, max_wrong=1000, hooks=Hooks(), stream=None, *, out=None,
        quick=False, fresh=False, remove_complete_checkpoint=False, progress_every=30.0,
        checkpoint_every=SAVE_EVERY_S, chunk=None):
    """Verify `functions` over the bit patterns [lo, hi) on `paths`; returns the report dict.

    tier "fast": glibc reference + bound, MPFR for undecided inputs; "strict":
    MPFR for every input. quick: only the first QUICK[0] patterns of every QUICK[1].
    Progress goes to `stream` (stderr by default): a bar on a terminal, else a
    line every `progress_every` s; a line per function as it finishes goes to `out`
    (if given). checkpoint_path: resumed (unless fresh) and saved every
    `checkpoint_every` s, on interruption and at the end (removed instead if
    remove_complete_checkpoint and every function it holds is complete).
    Raises ValueError for bad arguments, checkpoint.CheckpointError for a
    checkpoint that cannot be used, and mpfr.MPFRUnavailable without MPFR."""
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
    chunk = chunk or CHUNK[tier]
    mpfr.load()  # fail early, in this process, with the installation hint

    config = {"tier": tier, "paths": paths, "range": [lo, hi],
              "sampled": list(QUICK) if quick else None, "max_wrong": max_wrong,
              "bounds": bounds.BOUNDS if tier == "fast" else None,
              "hooks": hooks._asdict() if hooks.active() else None, "build": build_id()}
    targets = checkpoint.config_targets(config)
    saved = {} if fresh else checkpoint.load(checkpoint_path, config, FUNCTIONS)
    states = {fn: saved.get(fn) or checkpoint.empty_state(paths) for fn in functions}
    all_states = dict(saved, **states)
    resumed = sum(states[fn]["inputs_checked"] for fn in functions)
    tasks_by_fn = {fn: [(fn, group, paths, tier, max_wrong, hooks) for group in
                        _chunks(checkpoint.subtract(targets, states[fn]["done"]), chunk)]
                   for fn in functions}
    bound_tasks = {fn: (fn, sample_size, hooks.ref_shift) for fn in functions} \
        if tier == "fast" else {}
    n_tasks = sum(map(len, tasks_by_fn.values()))
    total = checkpoint.size(targets) * len(functions)
    progress = Progress(total - resumed, stream, every=progress_every)
    if resumed:
        progress.note(f"resuming from checkpoint {checkpoint_path}: {resumed} of {total} inputs "
                      f"already checked")
    pending = {fn: len(tasks_by_fn[fn]) + (fn in bound_tasks) for fn in functions}
    bound_results = {}
    span = {}  # fn -> [first chunk start, last chunk end] (wall clock)
    t_start, last_save = time.time(), time.monotonic()

    def finished(fn):
        entry = report.function_entry(fn, states[fn], bound_results.get(fn), config,
                                      span[fn][1] - span[fn][0] if fn in span else None)
        if out is not None:
            progress.message(report.summary_line(fn, entry), out)

    def save(final=False):
        if not checkpoint_path:
            return
        old = _blocking_signals()
        try:
            if final and remove_complete_checkpoint and all(
                    checkpoint.complete(s, targets) for s in all_states.values()):
                if os.path.exists(checkpoint_path):
                    os.remove(checkpoint_path)
            else:
                checkpoint.save(checkpoint_path, config, all_states)
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, old)

    # no more processes than pieces of work (--jobs 500 on 64 inputs started 500)
    jobs = min(jobs, n_tasks + len(bound_tasks)) if n_tasks else 1
    runner, completed = None, False
    try:
        for fn in functions:
            if not pending[fn]:
                finished(fn)
        runner = (_Pooled(jobs, bound_tasks, tasks_by_fn) if jobs > 1
                  else _Serial(bound_tasks, tasks_by_fn))
        for kind, value in runner.events(tick=min(1.0, max(progress_every, 0.01))):
            if kind == "chunk":
                fn, intervals, res, t0, t1, cpu = value
                _absorb(states[fn], paths, intervals, res, max_wrong, cpu)
                s = span.setdefault(fn, [t0, t1])
                s[0], s[1] = min(s[0], t0), max(s[1], t1)
                progress.update(res["checked"], fn)
            elif kind == "bound":
                bound_results[value[0]] = value[1]
            if kind != "tick":
                fn = value[0]
                pending[fn] -= 1
                if not pending[fn]:
                    finished(fn)
            progress.tick()
            if checkpoint_path and time.monotonic() - last_save >= checkpoint_every:
                save()
                last_save = time.monotonic()
        completed = True
    finally:
        if runner is not None:
            runner.close()
        save(final=completed)

    wall = time.time() - t_start
    result = report.build(functions, states, bound_results, config, jobs, wall,
                          {fn: s[1] - s[0] for fn, s in span.items()}, resumed=resumed)
    progress.finish(report.final_line(result))
    return result
