"""Tests of the exhaustive verifier (crlibm_py.verify) on small ranges."""
import io
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import pytest

gmpy2 = pytest.importorskip("gmpy2", reason="needs gmpy2 (pip install -e '.[test]')")

from crlibm_py import _verify  # noqa: E402
from crlibm_py.verify import BOUNDS, FUNCTIONS, Hooks, mpfr, parse_range, run  # noqa: E402
from crlibm_py.verify import runner, supported_paths  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
mpfr.load()

# Around 1, the zeros, the infinities and the NaNs: the special table and the
# neighbourhood of the overflow/underflow thresholds of the bit patterns.
SMALL_RANGES = [(0x3F800000 - 2048, 0x3F800000 + 2048), (0x00000000, 0x00000800),
                (0x80000000, 0x80000800), (0x7F7FFC00, 0x7F800400), (0xFF7FFC00, 0xFF800400),
                (0x7FBFFFF0, 0x7FC00010)]


def _quiet(**kw):
    return dict(stream=io.StringIO(), sample_size=2000, **kw)


def _run_cli(*args, env=None, cwd=None):
    # in a folder of its own: the CLI writes its default report and checkpoint there
    with tempfile.TemporaryDirectory() as tmp:
        return subprocess.run([sys.executable, "-m", "crlibm_py.verify", *args],
                              capture_output=True, text=True, cwd=cwd or tmp,
                              env=dict(os.environ, PYTHONPATH=ROOT, **(env or {})))


@pytest.mark.parametrize("fn", FUNCTIONS)
@pytest.mark.parametrize("lo,hi", SMALL_RANGES)
def test_small_ranges_pass(fn, lo, hi):
    res = run([fn], "fast", None, 1, lo, hi, **_quiet())
    f = res["functions"][fn]
    assert res["ok"], [p["wrong_inputs"][:3] for p in f["paths"].values()]
    assert f["inputs_checked"] == hi - lo and f["complete"]
    assert set(f["paths"]) == set(supported_paths())


@pytest.mark.parametrize("fn", FUNCTIONS)
def test_strict_small_range_passes(fn):
    res = run([fn], "strict", None, 1, 0x3F7FF000, 0x3F801000, **_quiet())
    assert res["ok"] and res["functions"][fn]["inputs_checked"] == 0x2000


def _spread_inputs(n, seed):
    rng = np.random.default_rng(seed)
    specials = [0, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00001, 0x7F800001,
                0x00000001, 0x80000001, 0x3F800000, 0xBF800000, 0x7F7FFFFF, 0xFF7FFFFF]
    return [int(u) for u in rng.integers(0, 2**32, n)] + specials


@pytest.mark.parametrize("fn", FUNCTIONS)
def test_fast_tier_decisions_equal_mpfr(fn):
    """Table, bound and MPFR give the same bits as MPFR itself (strict tier)."""
    i = FUNCTIONS.index(fn)
    for u in _spread_inputs(3000, i):
        fast, how = _verify.expected(i, u, "fast", BOUNDS[fn])
        strict, _ = _verify.expected(i, u, "strict", BOUNDS[fn])
        assert fast == strict, (fn, hex(u), how, hex(fast), hex(strict))


_GMPY2 = {"exp": gmpy2.exp, "log": gmpy2.log, "sin": gmpy2.sin, "cos": gmpy2.cos,
          "tanh": gmpy2.tanh, "erf": gmpy2.erf, "rsqrt": gmpy2.rec_sqrt}


def _gmpy2_bits(fn, u):
    x = np.array([u], np.uint32).view(np.float32)[0]
    if fn == "rsqrt" and u == 0x80000000:
        return 0xFF800000  # contract §1: rsqrt(-0) = -inf, where MPFR says +inf
    ctx = gmpy2.ieee(32)
    ctx.trap_invalid = ctx.trap_divzero = ctx.trap_overflow = ctx.trap_underflow = False
    with gmpy2.context(ctx):
        y = _GMPY2[fn](gmpy2.mpfr(float(x)))
        bits = int(np.array([float(y)], np.float32).view(np.uint32)[0])
    return 0x7FC00000 if gmpy2.is_nan(y) else bits


@pytest.mark.parametrize("fn", FUNCTIONS)
def test_mpfr_from_c_matches_gmpy2_ieee32(fn):
    i = FUNCTIONS.index(fn)
    for u in _spread_inputs(1500, 100 + i):
        assert _verify.expected(i, u, "strict", 0.0)[0] == _gmpy2_bits(fn, u), (fn, hex(u))


def test_subnormal_and_saturated_results_decided():
    i = FUNCTIONS.index("exp")
    x = np.array([-100.0, -87.5, 88.5, 89.0, -104.0, 1e-30], np.float32).view(np.uint32)
    for u in x:
        assert _verify.expected(i, int(u), "fast", BOUNDS["exp"])[0] == \
            _verify.expected(i, int(u), "strict", 0.0)[0]


@pytest.mark.parametrize("tier", ["fast", "strict"])
def test_corrupted_kernel_is_detected_and_reported(tier):
    paths = supported_paths()
    bad = paths[-1]
    lo, hi, mod = 0x3F800000, 0x3F800000 + 5000, 7
    res = run(["exp"], tier, paths, 1, lo, hi, hooks=Hooks(bad, mod), max_wrong=10, **_quiet())
    f = res["functions"]["exp"]
    multiples = [u for u in range(lo, hi) if u % mod == 0]
    assert not res["ok"] and not f["ok"]
    assert f["paths"][bad]["wrong"] == len(multiples)
    listed = f["paths"][bad]["wrong_inputs"]
    assert len(listed) == 10 and f["paths"][bad]["wrong_inputs_truncated"]
    assert [int(w["input"], 16) for w in listed] == multiples[:10]
    for w in listed:
        assert int(w["got"], 16) == int(w["expected"], 16) ^ 1
    for p in paths[:-1]:
        assert f["paths"][p]["wrong"] == 0 and f["paths"][p]["ok"]


def test_broken_reference_fails_the_bound_check():
    res = run(["sin"], "fast", None, 1, 0x3F000000, 0x3F004000, hooks=Hooks(ref_shift=1e-9),
              **_quiet())
    bound = res["functions"]["sin"]["reference_bound"]
    assert not bound["ok"] and bound["max_rel_error"] > BOUNDS["sin"]
    assert not res["ok"]


def test_bound_check_measures_glibc_within_bounds():
    from crlibm_py.verify import check_bound
    for fn in FUNCTIONS:
        b = check_bound(_verify, FUNCTIONS.index(fn), fn, 4000)
        assert b["ok"] and 0 < b["max_rel_error"] <= 2.0**-51 and b["sample_size"] > 1000, (fn, b)


def test_jobs_give_the_same_result():
    lo, hi = 0x3F000000, 0x3F000000 + 3 * (1 << 14) + 5
    old = runner.CHUNK["fast"]
    runner.CHUNK["fast"] = 1 << 13  # several chunks per worker
    try:
        one = run(["exp", "rsqrt"], "fast", None, 1, lo, hi, hooks=Hooks("scalar", 1000),
                  **_quiet())
        two = run(["exp", "rsqrt"], "fast", None, 2, lo, hi, hooks=Hooks("scalar", 1000),
                  **_quiet())
    finally:
        runner.CHUNK["fast"] = old
    for fn in ("exp", "rsqrt"):
        a, b = one["functions"][fn], two["functions"][fn]
        assert a["inputs_checked"] == b["inputs_checked"] == hi - lo
        assert a["paths"] == b["paths"] and a["paths"]["scalar"]["wrong"] > 0


def test_jobs_are_capped_by_the_work():
    # one chunk and one bound check: --jobs 64 starts two processes, not 64
    res = run(["rsqrt"], "fast", None, 64, 0x3F800000, 0x3F800100, **_quiet())
    assert res["ok"] and res["jobs"] == 2


def test_checkpoint_resumes_an_interrupted_run(tmp_path, monkeypatch):
    ck = str(tmp_path / "ck.json")
    lo, hi = 0x3F800000, 0x3F800000 + 4 * (1 << 12)
    monkeypatch.setitem(runner.CHUNK, "strict", 1 << 12)
    hooks = Hooks(supported_paths()[0], 5)
    whole = run(["log"], "strict", None, 1, lo, hi, hooks=hooks, **_quiet())
    calls, real = [], runner._check_chunk

    def interrupted(task):
        if len(calls) == 2:
            raise KeyboardInterrupt
        calls.append(task)
        return real(task)

    monkeypatch.setattr(runner, "_check_chunk", interrupted)
    with pytest.raises(KeyboardInterrupt):
        run(["log"], "strict", None, 1, lo, hi, checkpoint_path=ck, hooks=hooks, **_quiet())
    saved = json.load(open(ck))["functions"]["log"]
    assert saved["done"] == [[lo, lo + 2 * (1 << 12)]]
    monkeypatch.setattr(runner, "_check_chunk", real)
    resumed = run(["log"], "strict", None, 1, lo, hi, checkpoint_path=ck, hooks=hooks, **_quiet())
    assert resumed["resumed_from_checkpoint"]
    assert resumed["functions"]["log"]["paths"] == whole["functions"]["log"]["paths"]
    assert resumed["functions"]["log"]["inputs_checked"] == hi - lo
    with pytest.raises(ValueError, match="another configuration"):
        run(["log"], "fast", None, 1, lo, hi, checkpoint_path=ck, hooks=hooks, **_quiet())


REPORT_FIELDS = {"tool", "report_version", "tier", "paths", "range", "sampled", "jobs",
                 "resumed_from_checkpoint", "inputs_from_checkpoint", "self_test_hooks", "environment", "wall_time_s",
                 "functions", "ok"}
ENV_FIELDS = {"mpfr_loaded", "gmpy2", "gmpy2_gmp", "gmpy2_mpfr", "numpy", "python", "libc",
              "cpu", "cpu_count", "cpu_paths", "platform", "crlibm_py", "git_commit"}
FUNCTION_FIELDS = {"tier", "range", "complete", "inputs_checked", "expected_from",
                   "undecided_to_mpfr", "reference_bound", "wall_time_s", "cpu_time_s", "paths",
                   "ok"}
PATH_FIELDS = {"tier", "inputs_checked", "wrong", "wrong_inputs", "wrong_inputs_truncated", "ok"}
BOUND_FIELDS = {"reference", "declared_bound", "declared_bound_log2", "sample_size",
                "max_rel_error", "max_rel_error_in_2^-52", "worst_input", "ok", "wall_time_s"}


def test_cli_report_has_documented_fields_and_fails_loudly(tmp_path):
    rep = tmp_path / "r.json"
    out = _run_cli("exp", "log", "--range", "0x3f800000:0x3f801000", "--jobs", "2",
                   "--sample", "500", "--report", str(rep), "--inject-wrong", "scalar:100")
    assert out.returncode == 1, out.stderr
    assert "FAIL exp [scalar]" in out.stderr and "FAIL log [scalar]" in out.stderr
    assert out.stderr.strip().splitlines()[0].startswith("crlibm_py.verify fast:")
    data = json.loads(rep.read_text())
    assert set(data) == REPORT_FIELDS and set(data["environment"]) == ENV_FIELDS
    assert data["range"] == ["0x3f800000", "0x3f801000"] and not data["ok"]
    for fn in ("exp", "log"):
        f = data["functions"][fn]
        assert set(f) == FUNCTION_FIELDS and set(f["reference_bound"]) == BOUND_FIELDS
        for p, e in f["paths"].items():
            assert set(e) == PATH_FIELDS
            assert e["wrong"] == (41 if p == "scalar" else 0)
            for w in e["wrong_inputs"]:
                assert set(w) == {"input", "got", "expected"}


def test_cli_passes_quietly_when_not_a_tty():
    out = _run_cli("rsqrt", "--range", "0x3f800000:0x3f800400", "--jobs", "1", "--sample",
                   "200")
    assert out.returncode == 0, out.stderr
    assert len(out.stderr.strip().splitlines()) == 1 and "OK" in out.stderr


def test_cli_inject_ref_error_fails():
    out = _run_cli("exp", "--range", "0x3f800000:0x3f800400", "--jobs", "1", "--sample", "500",
                   "--inject-ref-error", "1e-9")
    assert out.returncode == 1 and "reference error bound exceeded" in out.stderr


@pytest.mark.parametrize("rel", ["nan", "inf", "-1", "2", "x"])
def test_cli_inject_ref_error_rejects_no_reference(rel):
    """Values that would leave no reference (every input decided by MPFR) make the
    self-test a run that cannot fail: a usage error instead."""
    out = _run_cli("exp", "--range", "0x3f800000:0x3f800001", "--inject-ref-error", rel)
    assert out.returncode == 2 and "relative error in (-1, 1)" in out.stderr


@pytest.mark.parametrize("text,message", [
    ("12", "must be LO:HI"), ("1:2:3", "must be LO:HI"), ("abc:5", "not a decimal or 0x-hex"),
    ("0x:5", "not a decimal or 0x-hex"), ("5:5", "is empty"), ("0x20:0x10", "is empty"),
    ("0:0x100000001", "outside"), ("-1:5", "outside")])
def test_range_parsing_errors_are_clear(text, message):
    with pytest.raises(ValueError, match=message):
        parse_range(text)


def test_range_parsing_accepts_hex_decimal_and_full_range():
    assert parse_range("0x3f800000:0x40000000") == (0x3F800000, 0x40000000)
    assert parse_range("10:20") == (10, 20)
    assert parse_range("0:0x100000000") == (0, 1 << 32)


@pytest.mark.parametrize("args,message", [
    (["--max-wrong", str(1 << 62)], "--max-wrong at most"),  # once an overflowed malloc size
    (["--max-wrong", str(10 ** 11)], "--max-wrong at most"),
    (["--sample", str(10 ** 11)], "--sample must be at most"),
    (["--inject-wrong", "avx2:4294967296"], "1 <= N < 2^32"),
    (["--inject-wrong", "avx2:0"], "1 <= N < 2^32")])
def test_cli_limits_are_usage_errors(args, message):
    out = _run_cli("exp", "--range", "0x3f800000:0x3f800100", "--jobs", "1", "--sample", "10",
                   *args)
    assert out.returncode == 2 and message in out.stderr, out.stderr


def test_check_range_lists_at_most_its_inputs():
    """max_wrong beyond the range's size (here 2^62, whose product with the path
    count once overflowed the buffer size) lists every wrong input, no more."""
    lo, hi, bad = 0x3F800000, 0x3F800000 + 64, 0  # path index 0: scalar
    res = _verify.check_range(FUNCTIONS.index("exp"), lo, hi, [bad], "fast", BOUNDS["exp"],
                              1 << 62, bad, 1)
    assert res["wrong"][bad] == 64 and len(res["wrong_list"][bad]) == 64


def test_cli_path_named_twice_is_checked_once():
    out = _run_cli("exp", "--isa", "scalar,scalar", "--range", "0x3f800000:0x3f810000",
                   "--jobs", "1", "--sample", "100", "--inject-wrong", "scalar:1000")
    assert out.returncode == 1 and "wrong: scalar 65," in out.stdout + out.stderr, out.stdout


def test_cli_range_error_exit_code():
    out = _run_cli("exp", "--range", "9:3")
    assert out.returncode == 2 and "--range" in out.stderr and "is empty" in out.stderr


@pytest.mark.parametrize("text,message", [
    ("garbage{", "unreadable"), ("[]", "not a crlibm_py.verify checkpoint"),
    ('{"kind": 1}', "not a crlibm_py.verify checkpoint")])
def test_foreign_checkpoint_files_are_usage_errors(tmp_path, text, message):
    ck = tmp_path / "ck.json"
    ck.write_text(text)
    out = _run_cli("exp", "--range", "0:16", "--jobs", "1", "--checkpoint", str(ck))
    assert out.returncode == 2 and message in out.stderr and "Traceback" not in out.stderr


@pytest.mark.parametrize("option", ["--report", "--checkpoint"])
def test_cli_unwritable_paths_are_refused_before_the_run(tmp_path, option):
    for path, message in ((tmp_path / "no" / "r.json", "does not exist"), (tmp_path, "is a folder")):
        out = _run_cli("exp", "--range", "0:16", "--jobs", "1", option, str(path))
        assert out.returncode == 2 and option in out.stderr and message in out.stderr
        assert "inputs per path" not in out.stderr  # nothing was verified


def test_missing_mpfr_is_a_clear_error():
    out = _run_cli("exp", "--range", "0:16", "--jobs", "1",
                   env={"CRLIBM_VERIFY_LIBMPFR": "/nonexistent/libmpfr.so"})
    assert out.returncode == 3 and "install gmpy2" in out.stderr


def test_sigterm_saves_the_checkpoint(tmp_path):
    import signal
    import time
    ck = tmp_path / "ck.json"
    proc = subprocess.Popen([sys.executable, "-m", "crlibm_py.verify", "sin", "--strict",
                             "--jobs", "2", "--checkpoint", str(ck)], cwd=ROOT,
                            env=dict(os.environ, PYTHONPATH=ROOT), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    time.sleep(4)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and "resume with --checkpoint" in err
    state = json.loads(ck.read_text())["functions"]["sin"]
    assert state["inputs_checked"] == sum(b - a for a, b in state["done"])


def test_versions_have_the_same_fields_without_gmpy2(monkeypatch):
    """MPFR may be found without gmpy2 (a system libmpfr): the report's fields stay."""
    with_gmpy2 = set(mpfr.versions())
    monkeypatch.setitem(sys.modules, "gmpy2", None)  # import gmpy2 -> ImportError
    without = mpfr.versions()
    assert set(without) == with_gmpy2 == ENV_FIELDS & with_gmpy2
    assert without["gmpy2"] is None and without["gmpy2_mpfr"] is None
