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
