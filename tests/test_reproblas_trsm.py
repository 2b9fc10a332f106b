"""reproblas trsv / trsm against a literal contract §3 reference, bit for bit, on
every CPU path, thread count and block size (diagonal blocks of 1, 4 and the
default rows; panels of 1, 3 and the default columns; tiny gemm blocks), for
every side / triangle / transpose / unit combination and operand layout."""
import itertools

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import reproblas as rb
from reproblas import _core
import test_reproblas_reference as ref
from test_reproblas_gemm import data, each_path, layout

DTYPES = [np.float32, np.float64]
ORDERS = ["sequential", "pairwise"]
ISAS = [name for name in _core.isa_names() if _core.isa_code(name) >= 0]
THREADS = [1, 2, 3, 4]
LAYOUTS = ["C", "F", "strided", "negative"]
# (trsm mb, nb), (gemm mc, nc, kc, min_work): defaults; one-row blocks and
# one-column panels; blocks of 4 rows (pairwise: r0 = 4, 8, 12 ... has 1-2
# update blocks) with 3-column panels and kc = 3 inside the updates.
TUNINGS = [((0, 0), (0, 0, 0, 0)), ((1, 1), (1, 1, 3, 1)), ((4, 3), (5, 4, 3, 1))]
FLAGS = list(itertools.product([False, True], repeat=3))  # lower, trans, unit


def _tune(tuning):
    trsm_tuning, gemm_tuning = tuning
    return {"trsm": trsm_tuning, "l3": gemm_tuning}


def each_config(monkeypatch, tunings=TUNINGS, isas=ISAS, threads=THREADS):
    return each_path(monkeypatch, _tune, tunings, isas, threads)


# ---- the reference: contract §3 as written ----

def ref_trsv(a, b, lower, trans, unit, order):
    """x_i = (b_i - S_i) / op(A)_ii, S_i over the solved j ascending (+0 if none)."""
    dtype = a.dtype.type
    opa = a.T if trans else a
    tri_lower = lower != trans  # op(A) is lower triangular: solve top-down
    n = b.shape[0]
    x = [None] * n
    with np.errstate(all="ignore"):
        for i in (range(n) if tri_lower else range(n - 1, -1, -1)):
            js = range(i) if tri_lower else range(i + 1, n)
            s = ref._ordered_products([dtype(opa[i, j]) for j in js], [x[j] for j in js], order,
                                      dtype)
            v = dtype(b[i]) - s
            x[i] = v if unit else v / dtype(opa[i, i])
    return np.array(x, dtype=a.dtype)


def ref_trsm(alpha, a, b, side, lower, trans, unit, order):
    """Left: trsv(op(A), alpha*B[:, j]) per column; right: trsv(op(A)^T, alpha*B[i, :])."""
    dtype = a.dtype.type
    with np.errstate(all="ignore"):
        ab = np.array([[dtype(alpha) * dtype(v) for v in row] for row in b], dtype=a.dtype)
    ab = ab.reshape(b.shape)
    out = np.empty(b.shape, dtype=a.dtype)
    if side == "left":
        for j in range(b.shape[1]):
            out[:, j] = ref_trsv(a, ab[:, j], lower, trans, unit, order)
    else:
        for i in range(b.shape[0]):
            out[i, :] = ref_trsv(a, ab[i, :], lower, not trans, unit, order)
    return out


def triangle(rng, n, dtype, lower, junk=np.nan):
    """A triangular matrix whose unused triangle is `junk` (never read)."""
    a = data(rng, (n, n), dtype)
    a[np.diag_indices(n)] = (rng.choice([-1, 1], n) * 2.0 ** rng.integers(-2, 3, n)).astype(dtype)
    mask = np.tril(np.ones((n, n), bool), -1) if not lower else np.triu(np.ones((n, n), bool), 1)
    a[mask] = junk
    return a


def assert_bits(got, want, what):
    if not ref.same_bits(got, want):
        bad = np.argwhere(~((got == want) | (np.isnan(got) & np.isnan(want))))
        pytest.fail(f"{what}: {len(bad)} elements differ, first at {bad[:3].tolist()}: "
                    f"got {got[tuple(bad[0])]!r}, want {want[tuple(bad[0])]!r}")


def test_reference_small_case():
    # 2x2 lower: x0 = b0/a00, x1 = (b1 - a10*x0)/a11; upper mirrors it
    a = np.array([[2.0, 0.0], [3.0, 4.0]])
    assert ref.same_bits(ref_trsv(a, np.array([4.0, 10.0]), True, False, False, "sequential"),
                         np.array([2.0, 1.0]))
    assert ref.same_bits(ref_trsv(a.T, np.array([10.0, 4.0]), False, False, False, "pairwise"),
                         np.array([3.5, 1.0]))
    # no term: x0 = b0 exactly, even -0 (S = +0 would not change it; -0 - (-0) would)
    assert ref.same_bits(ref_trsv(a, np.array([-0.0, 1.0]), True, False, True, "sequential"),
                         np.array([-0.0, 1.0]))


SHAPES = [(1, 1), (2, 3), (7, 5), (9, 1), (13, 17), (20, 6)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order", ORDERS)
def test_trsm_matches_reference(order, dtype, monkeypatch):
    rng = np.random.default_rng([ORDERS.index(order), dtype(0).nbytes])
    for idx, ((m, n), side, (lower, trans, unit)) in enumerate(
            itertools.product(SHAPES, ["left", "right"], FLAGS)):
        if idx % 3 and (m, n) not in ((7, 5), (13, 17)):
            continue  # every flag combination on two shapes, a third of them on the rest
        size = m if side == "left" else n
        a = layout(triangle(rng, size, dtype, lower), LAYOUTS[idx % 4])
        b = layout(data(rng, (m, n), dtype), LAYOUTS[(idx + 1) % 4])
        alpha = [1.0, -0.75, 3.0][idx % 3]
        want = ref_trsm(alpha, a, b, side, lower, trans, unit, order)
        b_before = b.copy()
        for cfg in each_config(monkeypatch):
            got = rb.trsm(alpha, a, b, side=side, lower=lower, trans_a=trans,
                          unit_diagonal=unit, order=order)
            assert_bits(got, want, f"{(m, n)} {side} lower={lower} trans={trans} unit={unit} "
                                   f"{cfg}")
        assert ref.same_bits(b, b_before)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order", ORDERS)
def test_trsv_matches_reference(order, dtype, monkeypatch):
    rng = np.random.default_rng([7, ORDERS.index(order), dtype(0).nbytes])
    for idx, (n, (lower, trans, unit)) in enumerate(itertools.product([1, 2, 5, 16, 23], FLAGS)):
        a = layout(triangle(rng, n, dtype, lower), LAYOUTS[idx % 4])
        b = layout(data(rng, n, dtype), LAYOUTS[(idx + 2) % 4])
        want = ref_trsv(a, b, lower, trans, unit, order)
        for cfg in each_config(monkeypatch, threads=[1, 3]):
            got = rb.trsv(a, b, lower=lower, trans=trans, unit_diagonal=unit, order=order)
            assert_bits(got, want, f"n={n} lower={lower} trans={trans} unit={unit} {cfg}")


@pytest.mark.parametrize("order", ORDERS)
def test_blocked_lower_larger(order, monkeypatch):
    """Many diagonal blocks (r0 with several bits: pairwise joins 2-3 update blocks)
    and several panels per thread, against the reference."""
    rng = np.random.default_rng(11)
    dtype = np.float32
    a = triangle(rng, 45, dtype, True, junk=0.0)
    a[np.tril_indices(45, -1)] *= dtype(2.0 ** -16)  # no overflow: every row is compared
    b = data(rng, (45, 21), dtype)
    want = ref_trsm(1.0, a, b, "left", True, False, False, order)
    for cfg in each_config(monkeypatch, tunings=[((4, 8), (3, 8, 2, 1)), ((8, 5), (0, 0, 0, 1))],
                           threads=[1, 2, 4]):
        got = rb.trsm(1.0, a, b, lower=True, order=order)
        assert_bits(got, want, f"{cfg}")
    assert np.isfinite(want).all()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order", ORDERS)
def test_special_values(order, dtype, monkeypatch):
    """Signed zeros, infinities, NaN, subnormals, zero diagonals (inf/NaN per IEEE)."""
    rng = np.random.default_rng(5)
    fi = np.finfo(dtype)
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, fi.smallest_subnormal,
                         -fi.smallest_subnormal, fi.max, fi.tiny], dtype=dtype)
    for idx, (lower, trans, unit) in enumerate(FLAGS):
        n = 9
        a = triangle(rng, n, dtype, lower, junk=np.nan)
        b = data(rng, (n, 4), dtype)
        tri = np.tril_indices(n) if lower else np.triu_indices(n)
        pick = rng.random(len(tri[0])) < 0.3
        a[tri[0][pick], tri[1][pick]] = rng.choice(specials, pick.sum())
        pick = rng.random(b.shape) < 0.3
        b[pick] = rng.choice(specials, pick.sum())
        if idx % 2:
            a[3, 3] = [0.0, -0.0][idx % 4 // 2]  # singular
        b[:, 0] = [0.0, -0.0][idx % 2]
        for side in ("left", "right"):
            bb = b if side == "left" else np.ascontiguousarray(b.T)
            want = ref_trsm(1.0, a, bb, side, lower, trans, unit, order)
            for cfg in each_config(monkeypatch, tunings=TUNINGS[::2], threads=[1, 2]):
                got = rb.trsm(1.0, a, bb, side=side, lower=lower, trans_a=trans,
                              unit_diagonal=unit, order=order)
                assert_bits(got, want, f"{side} lower={lower} trans={trans} unit={unit} {cfg}")


def test_only_the_triangle_is_read():
    rng = np.random.default_rng(3)
    for lower, trans in itertools.product([False, True], repeat=2):
        clean = triangle(rng, 11, np.float64, lower, junk=0.0)
        dirty = clean.copy()
        other = np.triu_indices(11, 1) if lower else np.tril_indices(11, -1)
        dirty[other] = np.nan
        b = data(rng, (11, 3), np.float64)
        for unit in (False, True):
            if unit:
                dirty[np.diag_indices(11)] = np.nan
            want = rb.trsm(2.0, clean, b, lower=lower, trans_a=trans, unit_diagonal=unit)
            got = rb.trsm(2.0, dirty, b, lower=lower, trans_a=trans, unit_diagonal=unit)
            assert not np.isnan(want).any()
            assert ref.same_bits(got, want)


@pytest.mark.parametrize("kind", LAYOUTS)
def test_overwrite_b_in_place(kind):
    rng = np.random.default_rng(4)
    a = triangle(rng, 6, np.float32, True, junk=0.0)
    b = layout(data(rng, (6, 5), np.float32), kind)
    want = rb.trsm(0.5, a, b, lower=True)
    got = rb.trsm(0.5, a, b, lower=True, overwrite_b=True)
    assert got is b and ref.same_bits(b, want)
    v = layout(data(rng, 6, np.float32), kind)
    want = rb.trsv(a, v, lower=True)
    assert rb.trsv(a, v, lower=True, overwrite_b=True) is v and ref.same_bits(v, want)


def test_b_overlapping_a():
    """overwrite_b with b a view into a: X uses the old a (it is copied first)."""
    rng = np.random.default_rng(8)
    a = triangle(rng, 6, np.float64, True, junk=0.0)
    big = np.zeros((6, 12))
    big[:, :6] = a
    big[:, 6:] = data(rng, (6, 6), np.float64)
    view = big[:, 3:9]
    want = rb.trsm(1.0, big[:, :6].copy(), view.copy(), lower=True)
    assert ref.same_bits(rb.trsm(1.0, big[:, :6], view, lower=True, overwrite_b=True), want)


def test_empty_shapes():
    for m, n in ((0, 0), (0, 3), (3, 0)):
        for side in ("left", "right"):
            size = m if side == "left" else n
            out = rb.trsm(1.0, np.eye(size), np.ones((m, n)), side=side)
            assert out.shape == (m, n) and out.dtype == np.float64
    assert rb.trsv(np.eye(0, dtype=np.float32), np.ones(0, np.float32)).shape == (0,)


def test_bad_arguments():
    a, b = np.eye(3), np.ones((3, 2))
    with pytest.raises(TypeError, match="float32 or float64"):
        rb.trsm(1.0, a.astype(np.int64), b)
    with pytest.raises(TypeError, match="mixed dtypes"):
        rb.trsm(1.0, a.astype(np.float32), b)
    with pytest.raises(ValueError, match="square"):
        rb.trsm(1.0, np.ones((3, 2)), b)
    with pytest.raises(ValueError, match="square"):
        rb.trsm(1.0, a, b, side="right")
    for side in ("up", [0], np.array([0]), 1.0, True):  # a str or a true int only
        with pytest.raises(ValueError, match="side"):
            rb.trsm(1.0, a, b, side=side)
    with pytest.raises(TypeError, match="lower"):
        rb.trsm(1.0, a, b, lower="yes")
    with pytest.raises(ValueError, match="order"):
        rb.trsv(a, b[:, 0], order="fast")
    with pytest.raises(ValueError, match="1-D"):
        rb.trsv(a, b)
    with pytest.raises(ValueError, match="square"):
        rb.trsv(a, np.ones(4))
    with pytest.raises(ValueError, match="read-only"):
        ro = b.copy()
        ro.flags.writeable = False
        rb.trsm(1.0, a, ro, overwrite_b=True)
    # scipy's integer spellings
    a = np.tril(np.arange(1.0, 10.0).reshape(3, 3))
    b = np.arange(6.0).reshape(2, 3)
    assert ref.same_bits(rb.trsm(1.0, a, b, side=1, lower=1, trans_a=2),
                         rb.trsm(1.0, a, b, side="right", lower=True, trans_a=True))


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_columns_and_rows_are_independent(draw):
    """Batch invariance: a column (left) or row (right) of trsm is the trsv of that
    column or row alone, for any shape, flags, layout, path and thread count."""
    d = draw.draw
    dtype = d(st.sampled_from(DTYPES))
    m, n = d(st.integers(1, 24)), d(st.integers(1, 24))
    side = d(st.sampled_from(["left", "right"]))
    lower, trans, unit = d(st.sampled_from(FLAGS))
    order = d(st.sampled_from(ORDERS))
    rng = np.random.default_rng(d(st.integers(0, 2**32 - 1)))
    size = m if side == "left" else n
    a = triangle(rng, size, dtype, lower)
    a[~np.eye(size, dtype=bool)] *= dtype(2.0 ** -10)  # finite solutions up to 24 x 24
    a = layout(a, d(st.sampled_from(LAYOUTS)))
    b = layout(data(rng, (m, n), dtype), d(st.sampled_from(LAYOUTS)))
    alpha = dtype(d(st.sampled_from([1.0, -2.0, 0.375])))
    tuning = (d(st.sampled_from([0, 1, 2, 4, 8])), d(st.integers(0, 9)))
    with pytest.MonkeyPatch.context() as mp, _core.tuning(trsm=tuning):
        mp.setenv("REPROBLAS_ISA", d(st.sampled_from(ISAS)))
        mp.setenv("REPROBLAS_NUM_THREADS", str(d(st.integers(1, 4))))
        x = rb.trsm(alpha, a, b, side=side, lower=lower, trans_a=trans, unit_diagonal=unit,
                    order=order)
        k = d(st.integers(0, (n if side == "left" else m) - 1))
        with np.errstate(all="ignore"):
            rhs = alpha * (b[:, k] if side == "left" else b[k, :])
        one = rb.trsv(a, rhs, lower=lower, trans=trans != (side == "right"), unit_diagonal=unit,
                      order=order)
    assert ref.same_bits(x[:, k] if side == "left" else x[k, :], one)
    assert np.isfinite(one).all()
