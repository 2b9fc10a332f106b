"""Shared parametrization: every test runs per function and per CPU path."""
import pytest

from helpers import FUNCTIONS, isa_params


@pytest.fixture(params=FUNCTIONS)
def fname(request):
    return request.param


@pytest.fixture(params=isa_params())
def isa(request):
    return request.param


@pytest.fixture
def use_isa(isa, monkeypatch):
    """Force the public functions and ufuncs onto the path `isa`."""
    monkeypatch.setenv("CRLIBM_ISA", isa)
    return isa


def _skip_reason(report):
    """The reason of a skipped test report, without pytest's 'Skipped: ' prefix."""
    longrepr = report.longrepr
    reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
    return reason.removeprefix("Skipped: ")


def pytest_terminal_summary(terminalreporter):
    """After the run: how many tests were skipped for each reason (what is missing, how to
    get it), so a short run still says what it did not check; `-rs` lists every test."""
    skipped = terminalreporter.stats.get("skipped", [])
    if not skipped:
        return
    counts = {}
    for report in skipped:
        reason = _skip_reason(report)
        counts[reason] = counts.get(reason, 0) + 1
    terminalreporter.section("skips, by what they need")
    for reason, n in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
        terminalreporter.write_line(f"{n} skipped: {reason}")
    terminalreporter.write_line("(pytest -rs lists each skipped test)")
