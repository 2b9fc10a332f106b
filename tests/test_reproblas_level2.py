"""reproblas level 2 on symmetric, triangular, band and packed matrices
(docs/contract.md §3.6): every routine bit for bit against the executable reference
(src/c/order/reference.c rb_ref_l2*) on every CPU path, thread count 1/2/3, both
orders, every flag and layout; the identities the contract promises (symv ==
gemv(full), band/packed == full storage, syr == ger's triangle, ...); the absent
terms of band storage; closeness to scipy; bad input."""
import itertools

import numpy as np
import pytest
import scipy.linalg.blas as B

import reproblas as rb
from reproblas import _core
from level2_support import (BAND, FULL, GENERAL, PACKED, SYMMETRIC, TRIANGULAR, Reference, data,
                            layout, pack, same_bits, sym_full, to_band, unpack)

DTYPES = [np.float32, np.float64]
ORDERS = ["sequential", "pairwise"]
ISAS = [name for name in _core.isa_names() if _core.isa_code(name) >= 0]
THREADS = [1, 2, 3]
LAYOUTS = ["C", "F", "strided", "negative"]


@pytest.fixture(scope="module")
def ref(tmp_path_factory):
    try:
        return Reference(tmp_path_factory.mktemp("l2ref"))
    except FileNotFoundError as e:
        pytest.skip(f"needs a C compiler to build the reference: {e}")


def each_path(monkeypatch):
    """Every CPU path and thread count, with threads splitting even tiny calls."""
    with _core.tuning(l3={"min_work": 1}):
        for isa in ISAS:
            monkeypatch.setenv("REPROBLAS_ISA", isa)
            for t in THREADS:
                monkeypatch.setenv("REPROBLAS_NUM_THREADS", str(t))
                yield isa, t


def vector(rng, n, dtype, special):
    x = data(rng, n, dtype)
    if special and n > 3:  # non-finite x: the neutral padding must not be used there
        x[rng.integers(0, n, 2)] = [np.inf, np.nan]
    return x


def junk_matrix(rng, n, dtype, lower, keep_diag=True):
    """a with NaN in the triangle that is not stored (never read)."""
    a = data(rng, (n, n), dtype)
    mask = np.triu(np.ones((n, n), bool), 1) if lower else np.tril(np.ones((n, n), bool), -1)
    a[mask] = np.nan
    if not keep_diag:
        a[np.diag_indices(n)] = np.nan
    return a


SIZES = [0, 1, 2, 5, 31, 70]


# ---- every routine against the reference, every path and thread count ----

def cases(rng, ref, dtype, n, special):
    """(name, call(order), expected(order)) for every routine and flag combination."""
    x = vector(rng, n, dtype, special)
    y = data(rng, n, dtype)
    out = []
    for lower in (False, True):
        a = junk_matrix(rng, n, dtype, lower)
        for lay in LAYOUTS:
            al = layout(a, lay)
            out.append((f"symv lower={lower} {lay}",
                        lambda o, al=al, lower=lower: rb.symv(1.5, al, x, -0.5, y, lower=lower,
                                                              order=o),
                        lambda o, lower=lower, a=a: ref.mv(o, SYMMETRIC, FULL, lower, 0, 0, n, n,
                                                           0, 0, 1.5, a, x, -0.5, y)))
        full = sym_full(np.nan_to_num(a, nan=0.0), lower)
        ap = pack(full, lower)
        out.append((f"spmv lower={lower}",
                    lambda o, ap=ap, lower=lower: rb.spmv(n, 2.0, ap, x, lower=lower, order=o),
                    lambda o, ap=ap, lower=lower: ref.mv(o, SYMMETRIC, PACKED, lower, 0, 0, n, n,
                                                         0, 0, 2.0, ap, x)))
        for k in sorted({0, 1, 3, max(n - 1, 0)}):
            ab = to_band(full, k if lower else 0, 0 if lower else k)[(0 if not lower else 0):]
            ab = ab[:k + 1] if lower else ab[ab.shape[0] - k - 1:]
            out.append((f"sbmv k={k} lower={lower}",
                        lambda o, ab=ab, k=k, lower=lower: rb.sbmv(k, 1.0, ab, x, 3.0, y,
                                                                   lower=lower, order=o),
                        lambda o, ab=ab, k=k, lower=lower: ref.mv(
                            o, SYMMETRIC, BAND, lower, 0, 0, n, n, k if lower else 0,
                            0 if lower else k, 1.0, ab, x, 3.0, y)))
        for trans, unit in itertools.product((False, True), repeat=2):
            at = junk_matrix(rng, n, dtype, lower, keep_diag=not unit)
            flags = dict(lower=lower, trans=trans, unit_diagonal=unit)
            code = (lower, trans, unit)
            for lay in LAYOUTS:
                al = layout(at, lay)
                out.append((f"trmv {code} {lay}",
                            lambda o, al=al, flags=flags: rb.trmv(al, x, order=o, **flags),
                            lambda o, at=at, code=code: ref.mv(o, TRIANGULAR, FULL, *code, n, n,
                                                               0, 0, 1.0, at, x)))
            tri = np.nan_to_num(at, nan=0.0)
            tap = pack(tri, lower)
            out.append((f"tpmv {code}",
                        lambda o, tap=tap, flags=flags: rb.tpmv(n, tap, x, order=o, **flags),
                        lambda o, tap=tap, code=code: ref.mv(o, TRIANGULAR, PACKED, *code, n, n,
                                                             0, 0, 1.0, tap, x)))
            xs = data(rng, n, dtype)
            # a well-conditioned diagonal for the solves
            dtri = tri.copy()
            dtri[np.diag_indices(n)] = (rng.choice([-1, 1], n) * 2.0 ** rng.integers(-1, 2, n))
            dap = pack(dtri, lower)
            out.append((f"tpsv {code}",
                        lambda o, dap=dap, flags=flags, xs=xs: rb.tpsv(n, dap, xs, order=o,
                                                                       **flags),
                        lambda o, dap=dap, code=code, xs=xs: ref.sv(o, PACKED, *code, n, 0, dap,
                                                                    xs)))
            for k in sorted({0, 2, max(n - 1, 0)}):
                kl, ku = (k, 0) if lower else (0, k)
                ab = to_band(tri, kl, ku)
                dab = to_band(dtri, kl, ku)
                if unit:
                    ab[ku] = np.nan
                    dab[ku] = np.nan
                out.append((f"tbmv k={k} {code}",
                            lambda o, ab=ab, k=k, flags=flags: rb.tbmv(k, ab, x, order=o,
                                                                       **flags),
                            lambda o, ab=ab, code=code, kl=kl, ku=ku: ref.mv(
                                o, TRIANGULAR, BAND, *code, n, n, kl, ku, 1.0, ab, x)))
                out.append((f"tbsv k={k} {code}",
                            lambda o, dab=dab, k=k, flags=flags, xs=xs: rb.tbsv(
                                k, layout(dab, "F"), xs, order=o, **flags),
                            lambda o, dab=dab, code=code, k=k, xs=xs: ref.sv(o, BAND, *code, n,
                                                                             k, dab, xs)))
        xr, yr = data(rng, n, dtype), data(rng, n, dtype)
        a0 = junk_matrix(rng, n, dtype, lower)
        for lay in ("C", "F", "negative"):
            out.append((f"syr lower={lower} {lay}",
                        lambda o, a0=a0, lower=lower, lay=lay: rb.syr(
                            0.75, xr, lower=lower, a=layout(a0, lay)),
                        lambda o, a0=a0, lower=lower: ref.rank(FULL, lower, n, 0.75, xr, None,
                                                               a0)))
            out.append((f"syr2 lower={lower} {lay}",
                        lambda o, a0=a0, lower=lower, lay=lay: rb.syr2(
                            0.75, xr, yr, lower=lower, a=layout(a0, lay)),
                        lambda o, a0=a0, lower=lower: ref.rank(FULL, lower, n, 0.75, xr, yr,
                                                               a0)))
        ap0 = data(rng, n * (n + 1) // 2, dtype)
        out.append((f"spr lower={lower}",
                    lambda o, ap0=ap0, lower=lower: rb.spr(n, 0.75, xr, ap0, lower=lower),
                    lambda o, ap0=ap0, lower=lower: ref.rank(PACKED, lower, n, 0.75, xr, None,
                                                             ap0)))
        out.append((f"spr2 lower={lower}",
                    lambda o, ap0=ap0, lower=lower: rb.spr2(n, 0.75, xr, yr, ap0, lower=lower),
                    lambda o, ap0=ap0, lower=lower: ref.rank(PACKED, lower, n, 0.75, xr, yr,
                                                             ap0)))
    return out


def gbmv_cases(rng, ref, dtype, m, n, special):
    out = []
    for kl, ku in sorted({(0, 0), (1, 2), (3, 0), (max(m - 1, 0), max(n - 1, 0))}):
        a = data(rng, (m, n), dtype)
        ab = to_band(a, kl, ku)
        for trans in (False, True):
            rows, cols = (n, m) if trans else (m, n)
            x, y = vector(rng, cols, dtype, special), data(rng, rows, dtype)
            for lay in ("C", "F", "negative"):
                out.append((f"gbmv {m}x{n} kl={kl} ku={ku} trans={trans} {lay}",
                            lambda o, ab=ab, x=x, y=y, kl=kl, ku=ku, trans=trans, lay=lay: rb.gbmv(
                                m, n, kl, ku, -1.25, layout(ab, lay), x, 0.5, y, trans=trans,
                                order=o),
                            lambda o, ab=ab, x=x, y=y, kl=kl, ku=ku, trans=trans: ref.mv(
                                o, GENERAL, BAND, 0, trans, 0, m, n, kl, ku, -1.25, ab, x, 0.5,
                                y)))
    return out


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", SIZES)
def test_every_routine_every_path(ref, monkeypatch, dtype, n):
    rng = np.random.default_rng(n + 100 * (dtype == np.float64))
    todo = []
    for special in (False, True):  # special: NaN and inf in x
        todo += [(f"{name} special={special}", call, exp)
                 for name, call, exp in cases(rng, ref, dtype, n, special)
                 + gbmv_cases(rng, ref, dtype, n, max(n - 3, 0), special)
                 + gbmv_cases(rng, ref, dtype, max(n - 2, 0), n, special)]
    want = {(name, o): exp(o) for name, _, exp in todo for o in ORDERS}
    for isa, t in each_path(monkeypatch):
        for name, call, _ in todo:
            for o in ORDERS:
                with np.errstate(all="ignore"):
                    got = call(o)
                same_bits(got, want[name, o], f"{name} {o} isa={isa} threads={t}")


def test_large_panels(ref, monkeypatch):
    """Sizes past several row panels and the gemv kernels' groups, with NaN/inf in x."""
    rng = np.random.default_rng(7)
    for dtype, n in ((np.float32, 300), (np.float64, 300), (np.float32, 1024),
                     (np.float64, 512)):  # 1024 / 512: rows 4 KiB apart (the lagged groups)
        x = vector(rng, n, dtype, n < 500)
        for lower in (False, True):
            a = junk_matrix(rng, n, dtype, lower)
            for trans in (False, True):
                for o in ORDERS:
                    w_sym = ref.mv(o, SYMMETRIC, FULL, lower, 0, 0, n, n, 0, 0, 1.0, a, x)
                    w_tri = ref.mv(o, TRIANGULAR, FULL, lower, trans, 0, n, n, 0, 0, 1.0, a, x)
                    for isa, t in each_path(monkeypatch):
                        what = f"{dtype.__name__} lower={lower} {o} isa={isa} threads={t}"
                        same_bits(rb.symv(1.0, a, x, lower=lower, order=o), w_sym, "symv " + what)
                        same_bits(rb.trmv(a, x, lower=lower, trans=trans, order=o), w_tri,
                                  f"trmv trans={trans} " + what)


# ---- the identities of docs/contract.md §3.6 ----

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order", ORDERS)
def test_identities(dtype, order):
    rng = np.random.default_rng(3)
    n = 45
    x, y = data(rng, n, dtype), data(rng, n, dtype)
    for lower in (False, True):
        a = junk_matrix(rng, n, dtype, lower)
        full = sym_full(np.nan_to_num(a, nan=0.0), lower)
        s = rb.symv(1.0, a, x, lower=lower, order=order)
        same_bits(s, rb.gemv(1.0, full, x, order=order), "symv == gemv(full)")
        same_bits(rb.spmv(n, 1.0, pack(full, lower), x, lower=lower, order=order), s,
                  "spmv == symv")
        band = to_band(full, n - 1 if lower else 0, 0 if lower else n - 1)
        same_bits(rb.sbmv(n - 1, 1.0, band, x, lower=lower, order=order), s,
                  "sbmv(k = n-1) == symv")
        for trans in (False, True):
            t = rb.trmv(a, x, lower=lower, trans=trans, order=order)
            tri = np.nan_to_num(a, nan=0.0)
            same_bits(rb.tpmv(n, pack(tri, lower), x, lower=lower, trans=trans, order=order), t,
                      "tpmv == trmv")
            kl, ku = (n - 1, 0) if lower else (0, n - 1)
            same_bits(rb.tbmv(n - 1, to_band(tri, kl, ku), x, lower=lower, trans=trans,
                              order=order), t, "tbmv(k = n-1) == trmv")
            ones = a.copy()
            ones[np.diag_indices(n)] = 1
            same_bits(rb.trmv(a, x, lower=lower, trans=trans, unit_diagonal=True, order=order),
                      rb.trmv(ones, x, lower=lower, trans=trans, order=order),
                      "unit diagonal == a stored 1")
            d = tri.copy()
            d[np.diag_indices(n)] = 2.0 ** rng.integers(-1, 2, n)
            sol = rb.trsv(d, y, lower=lower, trans=trans, order=order)
            same_bits(rb.tpsv(n, pack(d, lower), y, lower=lower, trans=trans, order=order), sol,
                      "tpsv == trsv")
            same_bits(rb.tbsv(n - 1, to_band(d, kl, ku), y, lower=lower, trans=trans,
                              order=order), sol, "tbsv(k = n-1) == trsv")
        mask = np.tril(np.ones((n, n), bool)) if lower else np.triu(np.ones((n, n), bool))
        base = np.nan_to_num(a, nan=0.0)
        g = rb.ger(0.5, x, x, base)
        r = rb.syr(0.5, x, lower=lower, a=base)
        same_bits(r[mask], g[mask], "syr == ger's triangle")
        same_bits(r[~mask], base[~mask], "syr leaves the other triangle")
        g2 = rb.ger(0.5, y, x, rb.ger(0.5, x, y, base))
        r2 = rb.syr2(0.5, x, y, lower=lower, a=base)
        same_bits(r2[mask], g2[mask], "syr2 == ger(y, x, ger(x, y))'s triangle")
        same_bits(rb.spr(n, 0.5, x, pack(base, lower), lower=lower), pack(r, lower),
                  "spr == syr packed")
        same_bits(rb.spr2(n, 0.5, x, y, pack(base, lower), lower=lower), pack(r2, lower),
                  "spr2 == syr2 packed")
    m, k = 30, 20
    ad = data(rng, (m, k), dtype)
    same_bits(rb.gbmv(m, k, m - 1, k - 1, 1.0, to_band(ad, m - 1, k - 1), x[:k], order=order),
              rb.gemv(1.0, ad, x[:k], order=order), "gbmv(whole band) == gemv")


def test_band_terms_are_absent():
    """Outside the band there is no term: an inf there changes nothing (a dense gemv
    with zeros would give NaN from 0*inf), and the pairwise tree counts only the
    present terms."""
    n = 6
    a = np.diag(np.full(n, 2.0))
    x = np.array([1.0, 2.0, np.inf, 4.0, 5.0, 6.0])
    ab = to_band(a, 0, 0)
    got = rb.gbmv(n, n, 0, 0, 1.0, ab, x)
    assert np.isinf(got[2]) and np.array_equal(np.delete(got, 2), 2 * np.delete(x, 2))
    with np.errstate(invalid="ignore"):
        dense = rb.gemv(1.0, a, x)
    assert np.isnan(dense).sum() == n - 1
    # row 1 has the three terms [2^53, 1, 1] (k = 0 is outside the band): their tree
    # (2^53 + 1) + 1 = 2^53, where the dense row's four terms give (0 + 2^53) + (1 + 1)
    a2 = np.array([[1.0, 1.0, 1.0, 0.0], [0.0, 2.0 ** 53, 1.0, 1.0]])
    ones = np.ones(4)
    band = rb.gbmv(2, 4, 0, 2, 1.0, to_band(a2, 0, 2), ones, order="pairwise")
    assert band[1] == 2.0 ** 53
    assert rb.gemv(1.0, a2, ones, order="pairwise")[1] == 2.0 ** 53 + 2


# ---- values close to scipy's (OpenBLAS) ----

@pytest.mark.parametrize("dtype", DTYPES)
def test_close_to_scipy(dtype):
    rng = np.random.default_rng(9)
    n, k = 40, 3
    p = "s" if dtype == np.float32 else "d"
    f = lambda name: getattr(B, p + name)  # noqa: E731
    tol = dict(rtol=1e-4 if dtype == np.float32 else 1e-12, atol=1e-4 if dtype == np.float32
               else 1e-12)
    a = rng.standard_normal((n, n)).astype(dtype)
    x, y = rng.standard_normal(n).astype(dtype), rng.standard_normal(n).astype(dtype)
    for lower in (0, 1):
        ap = pack(sym_full(a, lower), lower)
        band = to_band(sym_full(a, lower), k if lower else 0, 0 if lower else k, junk=0)
        band = band[:k + 1] if lower else band[-(k + 1):]
        for o in ORDERS:
            np.testing.assert_allclose(rb.symv(1.5, a, x, 0.5, y, lower=lower, order=o),
                                       f("symv")(1.5, a, x, 0.5, y, lower=lower), **tol)
            np.testing.assert_allclose(rb.spmv(n, 1.5, ap, x, lower=lower, order=o),
                                       f("spmv")(n, 1.5, ap, x, lower=lower), **tol)
            np.testing.assert_allclose(rb.sbmv(k, 1.0, band, x, lower=lower, order=o),
                                       f("sbmv")(k, 1.0, band, x, lower=lower), **tol)
            for trans, unit in itertools.product((0, 1), repeat=2):
                kw = dict(lower=lower, trans=trans)
                tri = np.tril(a) if lower else np.triu(a)
                tri = tri + n * np.eye(n, dtype=dtype)
                tap = pack(tri, lower)
                tb = to_band(tri, k if lower else 0, 0 if lower else k, junk=0)
                tb = tb[:k + 1] if lower else tb[-(k + 1):]
                np.testing.assert_allclose(
                    rb.trmv(tri, x, unit_diagonal=unit, order=o, **kw),
                    f("trmv")(tri, x, diag=unit, **kw), **tol)
                np.testing.assert_allclose(
                    rb.tpmv(n, tap, x, unit_diagonal=unit, order=o, **kw),
                    f("tpmv")(n, tap, x, diag=unit, **kw), **tol)
                np.testing.assert_allclose(
                    rb.tbmv(k, tb, x, unit_diagonal=unit, order=o, **kw),
                    f("tbmv")(k, tb, x, diag=unit, **kw), **tol)
                if not unit:
                    np.testing.assert_allclose(rb.tbsv(k, tb, x, order=o, **kw),
                                               f("tbsv")(k, tb, x, **kw), **tol)
                    np.testing.assert_allclose(rb.tpsv(n, tap, x, order=o, **kw),
                                               f("tpsv")(n, tap, x, **kw), **tol)
        np.testing.assert_allclose(rb.syr(0.5, x, lower=lower, a=a),
                                   f("syr")(0.5, x, lower=lower, a=a), **tol)
        np.testing.assert_allclose(rb.syr2(0.5, x, y, lower=lower, a=a),
                                   f("syr2")(0.5, x, y, lower=lower, a=a), **tol)
        np.testing.assert_allclose(rb.spr(n, 0.5, x, ap, lower=lower),
                                   f("spr")(n, 0.5, x, ap, lower=lower), **tol)
        np.testing.assert_allclose(rb.spr2(n, 0.5, x, y, ap, lower=lower),
                                   f("spr2")(n, 0.5, x, y, ap, lower=lower), **tol)
    g = rng.standard_normal((30, n)).astype(dtype)
    gb = to_band(g, 2, 4, junk=0)
    for trans in (0, 1):
        xx = x[:30] if trans else x
        np.testing.assert_allclose(rb.gbmv(30, n, 2, 4, 1.0, gb, xx, trans=trans),
                                   f("gbmv")(30, n, 2, 4, 1.0, gb, xx, trans=trans), **tol)


# ---- in place, out=, bad input ----

def test_outputs_in_place_and_out():
    rng = np.random.default_rng(4)
    n = 9
    a, x, y = data(rng, (n, n), np.float64), data(rng, n, np.float64), data(rng, n, np.float64)
    want = rb.symv(2.0, a, x, 1.0, y)
    yy = y.copy()[::-1][::-1]
    assert rb.symv(2.0, a, x, 1.0, yy, overwrite_y=True) is yy
    same_bits(yy, want, "overwrite_y")
    out = np.empty(n)
    assert rb.symv(2.0, a, x, 1.0, y, out=out) is out
    same_bits(out, want, "out")
    xx = x.copy()
    assert rb.trmv(a, xx, overwrite_x=True) is xx
    same_bits(xx, rb.trmv(a, x), "trmv overwrite_x")
    aa = a.copy(order="F")
    assert rb.syr(1.0, x, a=aa, overwrite_a=True) is aa
    same_bits(aa, rb.syr(1.0, x, a=a), "syr overwrite_a")
    ap = pack(a, False)
    app = ap.copy()
    assert rb.spr2(n, 1.0, x, y, app, overwrite_ap=True) is app
    same_bits(app, rb.spr2(n, 1.0, x, y, ap), "spr2 overwrite_ap")
    # beta == 0: y is never read, NaN included
    same_bits(rb.symv(1.0, a, x, 0.0, np.full(n, np.nan)), rb.symv(1.0, a, x), "beta 0")
    # empty
    e = np.zeros(0)
    same_bits(rb.symv(1.0, np.zeros((0, 0)), e), e, "empty symv")
    same_bits(rb.tpsv(0, e, e), e, "empty tpsv")
    same_bits(rb.gbmv(0, 3, 0, 0, 1.0, np.zeros((1, 3)), np.ones(3)), e, "gbmv m = 0")
    same_bits(rb.gbmv(3, 0, 0, 0, 1.0, np.zeros((1, 0)), e), np.zeros(3), "gbmv n = 0: +0")


def test_bad_input():
    a, x = np.ones((4, 4)), np.ones(4)
    with pytest.raises(ValueError, match="square"):
        rb.symv(1.0, np.ones((3, 4)), x)
    with pytest.raises(TypeError, match="dtype"):
        rb.symv(1.0, a, x.astype(np.float32))
    with pytest.raises(TypeError, match="dtype"):
        rb.trmv(a.astype(np.int64), x)
    with pytest.raises(TypeError, match="lower"):
        rb.symv(1.0, a, x, lower="L")
    with pytest.raises(TypeError, match="unit_diagonal"):
        rb.trmv(a, x, unit_diagonal="U")
    with pytest.raises(ValueError, match="order"):
        rb.trmv(a, x, order="fast")
    with pytest.raises(ValueError, match="beta"):
        rb.symv(1.0, a, x, 1.0)
    with pytest.raises(ValueError, match="y has shape"):
        rb.symv(1.0, a, x, 1.0, np.ones(3))
    with pytest.raises(ValueError, match="1-D"):
        rb.trmv(a, a)
    with pytest.raises(ValueError, match="band storage"):
        rb.sbmv(2, 1.0, np.ones((2, 4)), x)
    with pytest.raises(ValueError, match="band storage"):
        rb.gbmv(4, 4, 1, 1, 1.0, np.ones((3, 5)), x)
    with pytest.raises(ValueError, match="op\\(A\\)"):
        rb.gbmv(4, 3, 1, 1, 1.0, np.ones((3, 3)), x)
    with pytest.raises(ValueError, match="n\\*\\(n\\+1\\)/2"):
        rb.spmv(4, 1.0, np.ones(9), x)
    with pytest.raises(ValueError, match=">= 0"):
        rb.tbmv(-1, np.ones((1, 4)), x)
    with pytest.raises(TypeError, match="int"):
        rb.tpmv(4.0, np.ones(10), x)
    with pytest.raises(TypeError, match="int"):
        rb.sbmv(True, 1.0, np.ones((2, 4)), x)
    with pytest.raises(ValueError, match="read-only"):
        ro = x.copy()
        ro.flags.writeable = False
        rb.trmv(a, ro, overwrite_x=True)
    with pytest.raises(ValueError, match="both name"):
        rb.trmv(a, x, overwrite_x=True, out=np.empty(4))
    with pytest.raises(ValueError, match="same|elements"):
        rb.syr2(1.0, x, np.ones(3))
    with pytest.raises(TypeError, match="alpha"):
        rb.syr("1", x)
    with pytest.raises(OverflowError):
        rb.symv(1e300, a.astype(np.float32), x.astype(np.float32))
    # NaN and inf compute as IEEE says, never an exception
    with np.errstate(all="ignore"):
        r = rb.trmv(np.full((3, 3), np.inf), np.array([1.0, np.nan, 0.0]), lower=True)
    assert np.isinf(r[0]) and np.isnan(r[1:]).all()


def _line_offset(a, offset):
    """A copy of a whose rows start `offset` elements past a 64-byte line."""
    n = a.shape[0]
    buf = np.empty(n * n + 64, a.dtype)
    first = (-buf.ctypes.data % 64) // a.itemsize + offset
    view = buf[first:first + n * n].reshape(n, n)
    view[...] = a
    assert view.ctypes.data % 64 == offset * a.itemsize
    return view


@pytest.mark.parametrize("dtype", DTYPES)
def test_rows_off_cache_lines(ref, monkeypatch, dtype):
    """The sequential symv / trmv kernels run their chunks on the rows' cache lines
    and take a row's head, tail and diagonal block from single W x W blocks with
    lane selects: every offset of the rows in a line, sizes with rows a whole
    number of lines apart (the aligned chunks) and not, a part boundary inside
    the rows (3 threads), NaN / inf in x and in the triangle not stored."""
    rng = np.random.default_rng(11)
    for n in (48, 96, 100) if dtype == np.float32 else (24, 72, 75):
        for special in (False, True):
            x = vector(rng, n, dtype, special)
            for lower in (False, True):
                a0 = junk_matrix(rng, n, dtype, lower, keep_diag=False)
                w_sym = ref.mv("sequential", SYMMETRIC, FULL, lower, 0, 0, n, n, 0, 0, 1.0,
                               np.where(np.isnan(a0) & ~np.eye(n, dtype=bool), np.nan,
                                        np.nan_to_num(a0, nan=0.5)), x)
                for offset in range(0, 64 // np.dtype(dtype).itemsize, 3):
                    a = _line_offset(a0, offset)
                    a_sym = _line_offset(np.where(np.eye(n, dtype=bool), 0.5, a0), offset)
                    for unit in (False, True):
                        w_tri = ref.mv("sequential", TRIANGULAR, FULL, lower, 0, unit, n, n, 0,
                                       0, 1.0, a, x)
                        for isa, t in each_path(monkeypatch):
                            what = f"n={n} lower={lower} offset={offset} isa={isa} threads={t}"
                            with np.errstate(all="ignore"):
                                same_bits(rb.trmv(a, x, lower=lower, unit_diagonal=unit), w_tri,
                                          f"trmv unit={unit} " + what)
                                if not unit:
                                    same_bits(rb.symv(1.0, a_sym, x, lower=lower), w_sym,
                                              "symv " + what)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("order", ["sequential", "pairwise"])
def test_small_call_fast_path_has_the_general_paths_bits(dtype, order):
    """symv/trmv without y, out or overwrite go through _core.level2_plain; out= takes the
    general path: the same bits for every flag, layout and an alpha float32 rounds."""
    rng = np.random.default_rng(40)
    for n in (1, 7, 67):
        x = rng.standard_normal(n).astype(dtype)
        for layout in ("C", "F"):
            a = np.asarray(rng.standard_normal((n, n)).astype(dtype), order=layout)
            for lower in (False, True):
                got = rb.symv(0.1, a, x, lower=lower, order=order)
                want = rb.symv(0.1, a, x, lower=lower, order=order, out=np.empty(n, dtype))
                assert got.tobytes() == want.tobytes()
                for trans in (False, True):
                    for unit in (False, True):
                        f = dict(lower=lower, trans=trans, unit_diagonal=unit, order=order)
                        got = rb.trmv(a, x, **f)
                        want = rb.trmv(a, x, out=np.empty(n, dtype), **f)
                        assert got.tobytes() == want.tobytes()
    with pytest.raises(ValueError, match="beta"):
        rb.symv(1.0, np.eye(3, dtype=dtype), np.ones(3, dtype), beta=1.0)
    with pytest.raises(ValueError, match="square"):
        rb.trmv(np.ones((2, 3), dtype), np.ones(3, dtype))


def test_small_call_skips_the_general_path(monkeypatch):
    def general(*args):
        raise AssertionError("the small call took the general path")
    monkeypatch.setattr(_core, "level2", general)
    a, x = np.eye(4, dtype=np.float32) * 2, np.ones(4, np.float32)
    assert rb.symv(1.0, a, x).tolist() == [2.0] * 4
    assert rb.trmv(a, x, trans=True).tolist() == [2.0] * 4
    with pytest.raises(AssertionError, match="general path"):
        rb.symv(1.0, a, x, out=np.empty(4, np.float32))
