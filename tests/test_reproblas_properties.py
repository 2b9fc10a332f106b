"""Hypothesis: every routine equals the contract reference for any length, stride
and value (finite or not), on every path and thread count."""
import os
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import reproblas as rb
from reproblas import _core
import test_reproblas_reference as ref

ISAS = [name for name in _core.isa_names() if _core.isa_code(name) >= 0]


@pytest.fixture(autouse=True, scope="module")
def small_splits():
    with _core.tuning(l1=(8, 16)):  # thread splits and piece trees on short vectors
        yield


def vectors(dtype):
    width = 32 if dtype is np.float32 else 64
    elem = st.floats(width=width, allow_nan=True, allow_infinity=True, allow_subnormal=True)
    finite = st.floats(width=width, min_value=-1e6, max_value=1e6, allow_subnormal=True)
    return st.lists(st.one_of(finite, finite, finite, elem), max_size=300)


@st.composite
def cases(draw):
    dtype = draw(st.sampled_from([np.float32, np.float64]))
    xs = draw(vectors(dtype))
    ys = draw(st.lists(st.floats(width=32 if dtype is np.float32 else 64, allow_nan=False),
                       min_size=len(xs), max_size=len(xs)))
    stride = draw(st.sampled_from([1, 1, 2, 3, -1, -2]))
    order = draw(st.sampled_from(["sequential", "pairwise"]))
    isa = draw(st.sampled_from(ISAS))
    threads = draw(st.integers(1, 4))
    return np.array(xs, dtype), np.array(ys, dtype), stride, order, isa, threads


def _view(values, stride):
    base = np.full(max(1, len(values) * abs(stride)), np.nan, values.dtype)
    view = base[::stride][:len(values)]
    view[...] = values
    return view


@settings(max_examples=150, deadline=None)
@given(cases())
def test_matches_reference(case):
    x, y, stride, order, isa, threads = case
    env = {"REPROBLAS_ISA": isa, "REPROBLAS_NUM_THREADS": str(threads)}
    with mock.patch.dict(os.environ, env):
        xv, yv = _view(x, stride), _view(y, -stride)
        for routine in ("sum", "asum", "nrm2"):
            got = getattr(rb, routine)(xv, order=order)
            assert ref.same_bits(got, ref.reduce(routine, x, None, order)), routine
        assert ref.same_bits(rb.dot(xv, yv, order=order), ref.reduce("dot", x, y, order))
        if len(x):
            assert rb.iamax(xv) == ref.iamax(x)
            alpha = x.dtype.type(y[0])
            assert ref.same_bits(rb.axpy(alpha, xv, yv), ref.axpy(alpha, x, y))  # strided y
            assert ref.same_bits(rb.scal(alpha, xv), ref.scal(alpha, x))
