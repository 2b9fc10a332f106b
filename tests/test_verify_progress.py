"""The verifier as a long job: it reports as it goes, lists the same wrong
inputs for any --jobs, keeps a report and a checkpoint by default, and resumes
after SIGKILL or Ctrl-C."""
import io
import json
import os
import re
import signal
import subprocess
import sys
import time

import pytest

pytest.importorskip("gmpy2", reason="needs gmpy2 (pip install -e '.[test]')")

from crlibm_py.verify import checkpoint, run, runner, supported_paths  # noqa: E402
from crlibm_py.verify import Hooks  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BAD = supported_paths()[0]
PROGRESS = re.compile(r"^progress: (\d+) of (\d+) inputs \(\d+\.\d%\), \d+\.\d M inputs/s, "
                      r"elapsed \S+, ETA \S+(, now \w+)?$")


def _cli(args, cwd, **kw):
    return subprocess.Popen([sys.executable, "-m", "crlibm_py.verify", *args], cwd=cwd,
                            env=dict(os.environ, PYTHONPATH=ROOT), text=True, **kw)


def _run(args, cwd):
    p = _cli(args, cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = p.communicate(timeout=300)
    return p.returncode, out, err


# --- 2. the listed wrong inputs are the lowest, for any --jobs -------------------------------

@pytest.mark.parametrize("jobs", ["1", "2"])
def test_listed_wrong_inputs_are_the_lowest_for_any_jobs(tmp_path, jobs):
    lo, hi = 0x3F800000, 0x3F800000 + 8 * 4096
    code, out, err = _run(["exp", "log", "--range", f"{lo:#x}:{hi:#x}", "--jobs", jobs,
                           "--chunk", "4096", "--sample", "100", "--max-wrong", "5",
                           "--inject-wrong", f"{BAD}:3", "--report", "r.json"], tmp_path)
    assert code == 1, err
    multiples = [u for u in range(lo, hi) if u % 3 == 0]
    rep = json.loads((tmp_path / "r.json").read_text())
    for fn in ("exp", "log"):
        e = rep["functions"][fn]["paths"][BAD]
        assert e["wrong"] == len(multiples) and e["wrong_inputs_truncated"]
        assert [int(w["input"], 16) for w in e["wrong_inputs"]] == multiples[:5]
    assert f"first: input {multiples[0]:#010x}" in err


_REAL_CHECK_CHUNK = runner._check_chunk
_SLOW_START = 0x3F800000


def _first_chunk_last(task):
    """Runs in a worker: the lowest chunk finishes after the others."""
    if task[1][0][0] == _SLOW_START:
        time.sleep(1.5)
    return _REAL_CHECK_CHUNK(task)


def test_lowest_inputs_listed_when_the_lowest_chunk_finishes_last(monkeypatch):
    lo, hi = _SLOW_START, _SLOW_START + 4 * 4096
    monkeypatch.setattr(runner, "_check_chunk", _first_chunk_last)  # the workers are forked
    res = run(["rsqrt"], "fast", None, 2, lo, hi, stream=io.StringIO(), sample_size=100,
              max_wrong=4, hooks=Hooks(BAD, 5), chunk=4096)
    listed = res["functions"]["rsqrt"]["paths"][BAD]["wrong_inputs"]
    assert [int(w["input"], 16) for w in listed] == [u for u in range(lo, hi) if u % 5 == 0][:4]


def test_lowest_merges_sorted_lists():
    a = [[1, 0, 1], [5, 0, 1], [9, 0, 1]]
    b = [[2, 0, 1], [3, 0, 1], [10, 0, 1]]
    assert runner._lowest(a, b, 4) == [[1, 0, 1], [2, 0, 1], [3, 0, 1], [5, 0, 1]]
    assert runner._lowest(a, [[11, 0, 1]], 3) == a
    assert runner._lowest([], b, 9) == b
    assert runner._lowest([], b, 0) == [] and runner._lowest(a, b, 0) == []


# --- 3. reporting as it goes ----------------------------------------------------------------

@pytest.mark.parametrize("jobs", ["1", "2"])
def test_lines_per_function_and_progress_arrive_before_the_end(tmp_path, jobs):
    """stdout and stderr into one pipe, read line by line as they are written."""
    p = _cli(["exp", "log", "--range", "0x3f800000:0x40000000", "--jobs", jobs,
              "--chunk", str(1 << 20), "--sample", "200", "--progress-every", "0.05"],
             tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    lines = []
    for line in p.stdout:
        lines.append((time.monotonic(), line.rstrip("\n")))
    assert p.wait(timeout=60) == 0
    text = [t for _, t in lines]
    i_exp = next(i for i, t in enumerate(text) if t.startswith("exp    OK   8388608 inputs"))
    i_log = next(i for i, t in enumerate(text) if t.startswith("log    OK   8388608 inputs"))
    i_end = next(i for i, t in enumerate(text) if t.startswith("crlibm_py.verify fast:"))
    progress = [i for i, t in enumerate(text) if t.startswith("progress:")]
    assert i_exp < i_log < i_end and text[i_end + 1] == "report: verify-report.json", text
    # exp's line came while log was still being checked: progress lines follow it
    assert any(i_exp < i < i_log for i in progress), text
    assert lines[i_exp][0] < lines[i_log][0]
    for i in progress:
        m = PROGRESS.match(text[i])
        assert m and int(m.group(2)) == 2 * 8388608 and int(m.group(1)) <= int(m.group(2)), text[i]
    assert len(text) == len(progress) + 4  # nothing else


def test_no_progress_lines_before_their_interval(tmp_path):
    code, out, err = _run(["rsqrt", "--range", "0x3f800000:0x3f900000", "--jobs", "1",
                           "--sample", "200", "--chunk", "4096"], tmp_path)
    assert code == 0 and "progress:" not in err and out.startswith("rsqrt  OK")


def test_a_terminal_gets_the_bar(tmp_path):
    import pty
    master, slave = pty.openpty()
    p = _cli(["rsqrt", "--range", "0x3f800000:0x3f900000", "--jobs", "1", "--sample", "200",
              "--chunk", "4096", "--progress-every", "0.01"], tmp_path,
             stdout=subprocess.PIPE, stderr=slave)
    os.close(slave)
    out, _ = p.communicate(timeout=60)
    chunks = []
    while True:
        try:
            data = os.read(master, 1 << 16)
        except OSError:  # EIO: the child closed its end
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    tty = b"".join(chunks).decode()
    assert p.returncode == 0 and out.startswith("rsqrt  OK")
    assert "\r[" in tty and "% rsqrt" in tty and "progress:" not in tty
    assert tty.rstrip().splitlines()[-1].split("\r")[-1].startswith("\x1b[Kcrlibm_py.verify fast")


# --- 4. report and checkpoint by default ----------------------------------------------------

def test_default_report_and_checkpoint(tmp_path):
    code, out, err = _run(["rsqrt", "--range", "0x3f800000:0x3f810000", "--jobs", "1",
                           "--sample", "200", "--checkpoint-every", "0", "--chunk", "4096"],
                          tmp_path)
    assert code == 0, err
    rep = json.loads((tmp_path / "verify-report.json").read_text())
    assert rep["ok"] and rep["functions"]["rsqrt"]["inputs_checked"] == 0x10000
    assert out.splitlines()[-1] == "report: verify-report.json"
    assert not (tmp_path / "verify-checkpoint.json").exists()  # removed once complete
    assert not [f for f in os.listdir(tmp_path) if f != "verify-report.json"]


def test_no_report_and_no_checkpoint(tmp_path):
    code, out, err = _run(["rsqrt", "--range", "0x3f800000:0x3f810000", "--jobs", "1",
                           "--sample", "200", "--no-report", "--no-checkpoint"], tmp_path)
    assert code == 0 and os.listdir(tmp_path) == [] and "report:" not in out


def test_a_named_checkpoint_is_kept_complete(tmp_path):
    code, _, err = _run(["rsqrt", "--range", "0x3f800000:0x3f810000", "--jobs", "1",
                         "--sample", "200", "--checkpoint", "mine.json"], tmp_path)
    assert code == 0, err
    st = json.loads((tmp_path / "mine.json").read_text())["functions"]["rsqrt"]
    assert st["done"] == [[0x3F800000, 0x3F810000]]


def test_default_checkpoint_of_other_functions_is_kept(tmp_path):
    """A complete run of exp leaves the default checkpoint alone while it holds
    an unfinished function of an earlier run (same configuration)."""
    args = ["--range", "0x3f800000:0x3f810000", "--jobs", "1", "--sample", "200"]
    run(["log"], "fast", None, 1, 0x3F800000, 0x3F810000,
        checkpoint_path=str(tmp_path / "verify-checkpoint.json"), stream=io.StringIO(),
        sample_size=200)
    ck = tmp_path / "verify-checkpoint.json"
    data = json.loads(ck.read_text())
    data["functions"]["log"].update(done=[], inputs_checked=0, undecided=0)  # unfinished
    ck.write_text(json.dumps(data))
    code, _, err = _run(["exp", *args], tmp_path)
    assert code == 0, err
    assert set(json.loads(ck.read_text())["functions"]) == {"log", "exp"}


KILL_ARGS = ["exp", "sin", "--range", "0x3f000000:0x40000000", "--chunk", "65536",
             "--sample", "200", "--max-wrong", "7", "--inject-wrong", f"{BAD}:1000",
             "--checkpoint-every", "0"]


def _wait_for_checkpoint(path, proc, timeout=120):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        assert proc.poll() is None, "the run finished before it could be interrupted"
        try:
            data = json.loads(path.read_text())
            if data["functions"]["exp"]["inputs_checked"] > 0:
                return
        except (OSError, ValueError, KeyError):
            pass
        time.sleep(0.01)
    raise AssertionError("no checkpoint written")


def _group_gone(pgid, timeout=10):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    return False


def _counts(report):
    return {fn: {k: f[k] for k in ("inputs_checked", "complete", "undecided_to_mpfr", "paths",
                                   "ok")}
            for fn, f in report["functions"].items()}


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory):
    d = tmp_path_factory.mktemp("whole")
    code, _, err = _run(KILL_ARGS + ["--jobs", "2", "--no-checkpoint"], d)
    assert code == 1, err
    return json.loads((d / "verify-report.json").read_text())


@pytest.mark.parametrize("how", ["SIGKILL", "SIGINT"])
def test_a_killed_or_interrupted_run_resumes(tmp_path, uninterrupted, how):
    ck = tmp_path / "verify-checkpoint.json"
    p = _cli(KILL_ARGS + ["--jobs", "2"], tmp_path, stdout=subprocess.PIPE,
             stderr=subprocess.PIPE, start_new_session=True)
    _wait_for_checkpoint(ck, p)
    t0 = time.monotonic()
    os.killpg(p.pid, getattr(signal, how))  # the whole group, as a terminal's Ctrl-C
    out, err = p.communicate(timeout=30)
    if how == "SIGINT":
        assert p.returncode == 130 and time.monotonic() - t0 < 10
        assert err.strip().splitlines()[-1] == ("crlibm_py.verify: interrupted; progress kept in "
                                                "verify-checkpoint.json: rerun the same command "
                                                "to resume")
        assert "Traceback" not in err
    else:
        assert p.returncode == -signal.SIGKILL
    assert _group_gone(p.pid)  # no worker left behind
    assert not (tmp_path / "verify-report.json").exists()
    saved = json.loads(ck.read_text())
    done = sum(s["inputs_checked"] for s in saved["functions"].values())
    assert 0 < done < 2 * 0x1000000
    code, out, err = _run(KILL_ARGS + ["--jobs", "2"], tmp_path)
    assert code == 1, err
    rep = json.loads((tmp_path / "verify-report.json").read_text())
    assert rep["resumed_from_checkpoint"] and rep["inputs_from_checkpoint"] == done
    assert f"resuming from checkpoint verify-checkpoint.json: {done} of {2 * 0x1000000}" in err
    assert _counts(rep) == _counts(uninterrupted)
    assert not ck.exists()


def test_workers_end_with_a_killed_main_process(tmp_path):
    """SIGKILL to the main process only: its workers end too (none left waiting)."""
    ck = tmp_path / "verify-checkpoint.json"
    p = _cli(KILL_ARGS + ["--jobs", "2"], tmp_path, stdout=subprocess.PIPE,
             stderr=subprocess.PIPE, start_new_session=True)
    _wait_for_checkpoint(ck, p)
    p.kill()
    p.communicate(timeout=30)
    assert _group_gone(p.pid)


# --- --quick ---------------------------------------------------------------------------------

def test_quick_checks_a_block_of_every_stride(tmp_path):
    block, stride = runner.QUICK
    lo, hi = 0x3F800000, 0x3F800000 + 4 * stride
    code, out, err = _run(["erf", "--quick", "--range", f"{lo:#x}:{hi:#x}", "--jobs", "2",
                           "--sample", "200", "--inject-wrong", f"{BAD}:1024",
                           "--max-wrong", "100"], tmp_path)
    assert code == 1, err
    rep = json.loads((tmp_path / "verify-report.json").read_text())
    f = rep["functions"]["erf"]
    assert rep["sampled"] == {"block": block, "stride": stride}
    assert f["inputs_checked"] == 4 * block and f["complete"]
    expected = [u for b in range(lo, hi, stride) for u in range(b, b + block) if u % 1024 == 0]
    assert [int(w["input"], 16) for w in f["paths"][BAD]["wrong_inputs"]] == expected


def test_quick_checkpoint_holds_the_blocks(tmp_path):
    block, stride = runner.QUICK
    lo = 0x3F800000
    ck = str(tmp_path / "ck.json")
    run(["erf"], "fast", None, 1, lo, lo + 3 * stride, checkpoint_path=ck, quick=True,
        stream=io.StringIO(), sample_size=100)
    data = json.loads(open(ck).read())
    assert data["functions"]["erf"]["done"] == [[b, b + block] for b in range(lo, lo + 3 * stride,
                                                                            stride)]
    assert checkpoint.validate(data, data["config"], ["erf"]) is None
    data["functions"]["erf"]["done"][0][1] += 1  # beyond its block
    data["functions"]["erf"]["inputs_checked"] += 1
    assert "outside the run's range" in checkpoint.validate(data, data["config"], ["erf"])


def test_an_interruption_inside_a_result_update_leaves_a_valid_checkpoint(tmp_path, monkeypatch):
    """Ctrl-C may land between any two bytecodes of the main loop: here while a
    chunk's wrong inputs are merged, after other counts were computed."""
    ck = str(tmp_path / "ck.json")
    lo, hi = 0x3F800000, 0x3F800000 + 4 * 4096
    kw = dict(stream=io.StringIO(), sample_size=100, max_wrong=1000, hooks=Hooks(BAD, 11),
              chunk=4096)
    whole = run(["exp"], "fast", None, 1, lo, hi, **kw)
    calls, real = [], runner._lowest

    def interrupted(*a):
        calls.append(1)
        if len(calls) == len(supported_paths()) + 1:  # the second chunk's first path (BAD)
            raise KeyboardInterrupt
        return real(*a)

    monkeypatch.setattr(runner, "_lowest", interrupted)
    with pytest.raises(KeyboardInterrupt):
        run(["exp"], "fast", None, 1, lo, hi, checkpoint_path=ck, **kw)
    data = json.loads(open(ck).read())
    assert checkpoint.validate(data, data["config"], ["exp"]) is None
    assert data["functions"]["exp"]["inputs_checked"] == 4096
    monkeypatch.setattr(runner, "_lowest", real)
    resumed = run(["exp"], "fast", None, 1, lo, hi, checkpoint_path=ck, **kw)
    assert resumed["inputs_from_checkpoint"] == 4096
    assert resumed["functions"]["exp"]["paths"] == whole["functions"]["exp"]["paths"]
