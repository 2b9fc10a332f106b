"""Odd operands in every argument position of every routine: a result equal to the same
call on clean copies, or a TypeError/ValueError. Never a crash, another exception or a
silently different answer (developers' guide: bad input)."""
import itertools

import numpy as np
import pytest

import reproblas as rb

CLEAN_ERRORS = (TypeError, ValueError)
rng = np.random.default_rng(7)


def odd_operands(good):
    """good itself, layouts with the same values, and things that are not operands."""
    big = np.repeat(good, 2, axis=-1)
    return {
        "good": good, "fortran": np.asfortranarray(good), "strided": big[..., ::2],
        "reversed": np.flip(np.flip(good, -1).copy(), -1),
        "unaligned": np.frombuffer(b"\0" + good.tobytes(), good.dtype,
                                   offset=1).reshape(good.shape),
        "read-only": np.lib.stride_tricks.as_strided(good, writeable=False),
        "None": None, "list": good.tolist(), "float": 1.5, "int64": good.astype(np.int64),
        "other float": good.astype(np.float32 if good.dtype == np.float64 else np.float64),
        "swapped": good.astype(good.dtype.newbyteorder()), "0-d": np.array(1.0, good.dtype),
        "extra axis": good[None], "empty": good[..., :0],
        "masked": np.ma.array(good, mask=np.zeros(good.shape, bool)),
    }


def clean(v):
    return np.array(v) if isinstance(v, np.ndarray) else v


def agree(r1, r2):
    return np.array_equal(np.asarray(r1), np.asarray(r2), equal_nan=True) and \
        np.asarray(r1).shape == np.asarray(r2).shape


m, k, n = 5, 4, 3
A, B, C = (rng.standard_normal(s) for s in ((m, k), (k, n), (m, n)))
X, Y = rng.standard_normal(k), rng.standard_normal(m)
T = np.triu(rng.standard_normal((k, k))) + 4 * np.eye(k)
CALLS = {  # routine: (function of the operands, the good operands)
    "sum": (lambda x: rb.sum(x), [X]), "nrm2": (lambda x: rb.nrm2(x, order="pairwise"), [X]),
    "iamax": (lambda x: rb.iamax(x), [X]), "dot": (lambda x, y: rb.dot(x, y), [X, X]),
    "axpy": (lambda x, y: rb.axpy(2.0, x, y), [X, X.copy()]),
    "scal": (lambda x: rb.scal(2.0, x), [X.copy()]),
    "gemm": (lambda a, b: rb.gemm(1.5, a, b), [A, B]),
    "gemm_c": (lambda a, b, c: rb.gemm(1.0, a, b, 0.5, c), [A, B, C]),
    "gemv": (lambda a, x: rb.gemv(2.0, a, x, order="pairwise"), [A, X]),
    "gemv_t": (lambda a, y: rb.gemv(2.0, a, y, trans=True), [A, Y]),
    "ger": (lambda x, y, a: rb.ger(1.0, x, y, a), [Y, X, A]),
    "matmul": (lambda a, b: rb.matmul(a, b), [A, B]),
    "trsv": (lambda t, x: rb.trsv(t, x), [T, X]),
    "trsm": (lambda t, b: rb.trsm(1.0, t, b), [T, B]),
    "conv2d": (lambda x, w, b: rb.conv2d(x, w, b, padding=1, groups=2),
               [rng.standard_normal((2, 4, 5, 5)), rng.standard_normal((6, 2, 3, 3)),
                rng.standard_normal(6)]),
    "conv2d_grad_bias": (lambda g: rb.conv2d_grad_bias(g), [rng.standard_normal((2, 3, 4, 4))]),
}


@pytest.mark.parametrize("routine", list(CALLS))
def test_odd_operands_give_the_clean_result_or_a_clean_error(routine):
    fn, goods = CALLS[routine]
    for pos, good in enumerate(goods):
        for name in odd_operands(good):
            odd = odd_operands(good.copy())[name]  # fresh: axpy and scal update it
            args = [g.copy() for g in goods]
            args[pos] = odd
            ref_args = [g.copy() for g in goods]
            ref_args[pos] = clean(odd)  # its values before the call
            try:
                got = fn(*args)
            except CLEAN_ERRORS:
                continue
            assert name != "masked", routine  # its mask would be ignored: must be refused
            # accepted: must equal the call on clean copies, in-place operands included
            assert agree(got, fn(*ref_args)), (routine, pos, name)
            if isinstance(odd, np.ndarray) and routine in ("axpy", "scal"):
                assert agree(odd, ref_args[pos]), (routine, pos, name)


@pytest.mark.parametrize("routine", ["gemm", "gemv", "matmul", "dot", "conv2d"])
def test_every_operand_missing(routine):
    fn, goods = CALLS[routine]
    for pos in range(len(goods) - (routine == "conv2d")):  # conv2d's bias may be None
        args = list(goods)
        args[pos] = None
        with pytest.raises(TypeError):
            fn(*args)
