"""The verifier's checkpoint file: every kind of damage is refused (exit 2, a
clear message, the file left as it was), and --fresh starts over."""
import copy
import json
import os
import subprocess
import sys

import pytest

pytest.importorskip("gmpy2", reason="needs gmpy2 (pip install -e '.[test]')")

from crlibm_py.verify import checkpoint, main, supported_paths  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LO, HI = 0x3F800000, 0x3F802000
BAD = supported_paths()[0]
ARGS = ["exp", "--range", f"{LO:#x}:{HI:#x}", "--jobs", "1", "--sample", "100",
        "--inject-wrong", f"{BAD}:7", "--max-wrong", "20", "--chunk", "4096",
        "--no-report"]  # last: ARGS[:-1] + ["--report", FILE] writes one
N_WRONG = len([u for u in range(LO, HI) if u % 7 == 0])


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """A valid, complete checkpoint of ARGS (an explicit --checkpoint is kept)."""
    ck = tmp_path_factory.mktemp("ck") / "ck.json"
    assert main(ARGS + ["--checkpoint", str(ck)]) == 1  # the injected wrong results
    return json.loads(ck.read_text())


def _state(d):
    return d["functions"]["exp"]


def _set(field, value):
    def f(d):
        _state(d)[field] = value
    return f


def _set_top(field, value):
    def f(d):
        d[field] = value
    return f


def _set_config(field, value):
    def f(d):
        d["config"][field] = value
    return f


def _wrong_entry(i, value):
    def f(d):
        _state(d)["wrong_inputs"][BAD][i] = value
    return f


def _del(field):
    def f(d):
        del _state(d)[field]
    return f


CORRUPTIONS = [
    # the case: no inputs done, but the counts kept (a report of twice the range)
    ("done emptied", _set("done", []), "inputs_checked is 8192, but the done intervals hold 0"),
    ("inputs doubled", _set("inputs_checked", 2 * (HI - LO)), "inputs_checked is 16384"),
    ("inputs a string", _set("inputs_checked", "8192"), "inputs_checked is not an integer"),
    ("inputs a bool", _set("inputs_checked", True), "inputs_checked is not an integer"),
    ("inputs a float", _set("inputs_checked", 8192.0), "inputs_checked is not an integer"),
    ("done not a list", _set("done", "all"), "done is not a list"),
    ("done bad pair", _set("done", [[LO, "x"]]), "not a pair [lo, hi]"),
    ("done triple", _set("done", [[LO, HI, 0]]), "not a pair [lo, hi]"),
    ("done reversed", _set("done", [[HI, LO]]), "empty interval"),
    ("done adjacent", _set("done", [[LO, LO + 16], [LO + 16, HI]]), "adjacent"),
    ("done unsorted", _set("done", [[LO + 32, HI], [LO, LO + 16]]), "not sorted"),
    ("done beyond range", _set("done", [[LO, HI + 16]]), "outside the run's range"),
    ("done negative", _set("done", [[-16, HI]]), "not a pair [lo, hi]"),
    ("undecided negative", _set("undecided", -1), "undecided is not an integer"),
    ("undecided too many", _set("undecided", HI - LO + 1), "undecided is not an integer"),
    ("wrong missing a path", lambda d: _state(d)["wrong"].pop(BAD), "exactly the paths"),
    ("wrong extra path", lambda d: _state(d)["wrong"].update(gpu=0), "exactly the paths"),
    ("wrong a float", lambda d: _state(d)["wrong"].update({BAD: 1.5}), f"wrong[{BAD}] is not"),
    ("wrong beyond inputs", lambda d: _state(d)["wrong"].update({BAD: HI - LO + 1}),
     f"wrong[{BAD}] is not"),
    ("wrong not listed", lambda d: _state(d)["wrong_inputs"].update({BAD: []}), "lists 0 inputs"),
    ("wrong count lowered", lambda d: _state(d)["wrong"].update({BAD: 3}), "lists 20 inputs"),
    ("listed unsorted", lambda d: _state(d)["wrong_inputs"][BAD].reverse(), "not sorted"),
    ("listed null", _wrong_entry(1, None), "not [input, got, expected]"),
    ("listed repeated", lambda d: _wrong_entry(1, _state(d)["wrong_inputs"][BAD][0])(d),
     "repeats one"),
    ("listed got = expected", _wrong_entry(0, [LO, 5, 5]), "equals the expected"),
    ("listed outside done", _wrong_entry(0, [LO - 7, 1, 0]), "outside the done intervals"),
    ("listed 2 values", _wrong_entry(0, [LO, 1]), "not [input, got, expected]"),
    ("listed 2^32", _wrong_entry(0, [LO, 1 << 32, 0]), "not [input, got, expected]"),
    ("listed an object", _wrong_entry(0, {"input": LO}), "not [input, got, expected]"),
    ("cpu NaN", _set("cpu_time_s", float("nan")), "cpu_time_s is not a finite number"),
    ("cpu negative", _set("cpu_time_s", -1.0), "cpu_time_s is not a finite number"),
    ("cpu a string", _set("cpu_time_s", "1"), "cpu_time_s is not a finite number"),
    ("state extra field", _set("note", 1), "unknown fields ['note']"),
    ("state missing field", _del("undecided"), "missing fields ['undecided']"),
    ("state a list", lambda d: d["functions"].update(exp=[]), "is not an object"),
    ("unknown function", lambda d: d["functions"].update(foo=_state(d)), "unknown function 'foo'"),
    ("functions a list", _set_top("functions", []), "functions is not an object"),
    ("extra top field", _set_top("extra", 1), "top-level fields"),
    ("old format", _set_top("version", 1), "format version 1"),
    ("other kind", _set_top("kind", "something"), "not a crlibm_py.verify checkpoint"),
    ("other range", _set_config("range", [LO, HI + 1]), "another configuration (range:"),
    ("other paths", _set_config("paths", ["scalar", "scalar"]), "another configuration (paths:"),
    ("other tier", _set_config("tier", "strict"), "another configuration (tier:"),
    ("other max_wrong", _set_config("max_wrong", 21), "another configuration (max_wrong:"),
    ("other build", _set_config("build", "0" * 64), "another build of crlibm_py"),
    ("config a list", _set_top("config", []), "config is not an object"),
]


def _refused(tmp_path, capsys, text, fragment):
    ck = tmp_path / "ck.json"
    ck.write_text(text)
    code = main(ARGS + ["--checkpoint", str(ck)])
    err = capsys.readouterr().err
    assert code == 2, err
    assert fragment in err and "--fresh" in err, err
    assert "inputs per path" not in err  # nothing was verified
    assert ck.read_text() == text  # left as it was


def test_the_saved_checkpoint_is_valid_and_complete(saved, tmp_path, capsys):
    st = _state(saved)
    assert st["done"] == [[LO, HI]] and st["inputs_checked"] == HI - LO
    assert st["wrong"][BAD] == N_WRONG and len(st["wrong_inputs"][BAD]) == 20
    ck = tmp_path / "ck.json"
    ck.write_text(json.dumps(saved))
    assert main(ARGS[:-1] + ["--checkpoint", str(ck), "--report", str(tmp_path / "r.json")]) == 1
    rep = json.loads((tmp_path / "r.json").read_text())
    assert rep["resumed_from_checkpoint"] and rep["inputs_from_checkpoint"] == HI - LO
    assert rep["functions"]["exp"]["paths"][BAD]["wrong"] == N_WRONG


@pytest.mark.parametrize("name,corrupt,fragment", CORRUPTIONS, ids=[c[0] for c in CORRUPTIONS])
def test_corrupt_checkpoints_are_refused(saved, tmp_path, capsys, name, corrupt, fragment):
    data = copy.deepcopy(saved)
    corrupt(data)
    assert checkpoint.validate(data, saved["config"], ["exp", "log"]) is not None
    _refused(tmp_path, capsys, json.dumps(data), fragment)


@pytest.mark.parametrize("text", ["", "garbage{", "\xff\xfe", "[" * 100_000 + "]" * 100_000,
                                  "NaN", '"text"'])
def test_unreadable_or_foreign_files_are_refused(tmp_path, capsys, text):
    ck = tmp_path / "ck.json"
    ck.write_text(text, encoding="latin-1")
    code = main(ARGS + ["--checkpoint", str(ck)])
    err = capsys.readouterr().err
    assert code == 2 and ("unreadable" in err or "not a crlibm_py.verify checkpoint" in err), err


def test_emptied_done_is_refused_by_the_command_without_a_traceback(saved, tmp_path):
    """The issue's case end to end: before, a report of twice the range, 'OK'."""
    data = copy.deepcopy(saved)
    _state(data)["done"] = []
    ck = tmp_path / "ck.json"
    ck.write_text(json.dumps(data))
    args = ARGS[:-1] + ["--checkpoint", str(ck)]
    out = subprocess.run([sys.executable, "-m", "crlibm_py.verify", *args], cwd=tmp_path,
                         capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=ROOT))
    assert out.returncode == 2 and "Traceback" not in out.stderr, out.stderr
    assert "cannot be used" in out.stderr and "inputs_checked is 8192" in out.stderr
    assert not (tmp_path / "verify-report.json").exists()


@pytest.mark.parametrize("option", ["report", "checkpoint"])
def test_an_option_and_its_negation_are_refused(tmp_path, capsys, option):
    with pytest.raises(SystemExit) as exc:
        main(ARGS[:-1] + [f"--{option}", str(tmp_path / "x.json"), f"--no-{option}"])
    assert exc.value.code == 2 and "contradict" in capsys.readouterr().err


def test_wrong_types_in_the_default_checkpoint_are_refused(saved, tmp_path, monkeypatch,
                                                           capsys):
    monkeypatch.chdir(tmp_path)
    data = copy.deepcopy(saved)
    _state(data)["wrong"] = {p: "0" for p in saved["config"]["paths"]}
    (tmp_path / "verify-checkpoint.json").write_text(json.dumps(data))
    assert main(ARGS) == 2
    assert "verify-checkpoint.json cannot be used" in capsys.readouterr().err


def test_fresh_starts_over_on_an_invalid_checkpoint(saved, tmp_path, capsys):
    ck = tmp_path / "ck.json"
    ck.write_text("garbage{")
    assert main(ARGS + ["--checkpoint", str(ck), "--fresh"]) == 1
    st = _state(json.loads(ck.read_text()))  # rewritten, valid
    assert st["inputs_checked"] == HI - LO and st["wrong"][BAD] == N_WRONG


def test_fresh_checks_again_what_a_checkpoint_holds(saved, tmp_path, capsys):
    ck = tmp_path / "ck.json"
    ck.write_text(json.dumps(saved))
    rep = tmp_path / "r.json"
    assert main(ARGS[:-1] + ["--checkpoint", str(ck), "--fresh", "--report", str(rep)]) == 1
    data = json.loads(rep.read_text())
    assert not data["resumed_from_checkpoint"] and data["inputs_from_checkpoint"] == 0
    assert data["functions"]["exp"]["inputs_checked"] == HI - LO


def test_a_partial_checkpoint_is_valid(saved):
    """What an interrupted run leaves passes: a prefix of the range, its counts."""
    data = copy.deepcopy(saved)
    st = _state(data)
    half = LO + 4096
    listed = [w for w in st["wrong_inputs"][BAD] if w[0] < half]
    st.update(done=[[LO, half]], inputs_checked=4096, undecided=0,
              wrong={p: 0 for p in data["config"]["paths"]},
              wrong_inputs={p: [] for p in data["config"]["paths"]})
    st["wrong"][BAD] = len([u for u in range(LO, half) if u % 7 == 0])
    st["wrong_inputs"][BAD] = listed
    assert checkpoint.validate(data, saved["config"], ["exp"]) is None
