"""Reproducibility demo: ``python -m crlibm_py.demo [--n N]``.

For each function, on random float32 inputs of a typical range:
* how often the float32 baseline (NumPy's function; scipy.special.erf for erf,
  1/np.sqrt for rsqrt) differs from the correctly rounded result (MPFR through
  gmpy2), and how often crlibm_py does;
* the SHA-256 of crlibm_py's output bits on every CPU path this machine has:
  one digest per function, whatever the path.
"""
import argparse
import hashlib
import os

import numpy as np

import crlibm_py

from ._registry import function as _entry

# Each function's typical argument range (log-uniform where the function lives on
# magnitudes) and the float32 function whose errors are counted come from its entry in
# the registry (src/c/crlibm/functions.def).


def sample(fname, n, rng):
    kind, lo, hi = _entry(fname).demo
    if kind == "uniform":
        return rng.uniform(lo, hi, n).astype(np.float32)
    return np.exp(rng.uniform(np.log(lo), np.log(hi), n)).astype(np.float32)


def numpy_float32(fname, x):
    """The registry's accuracy baseline at x, or None where SciPy is missing."""
    expr = _entry(fname).accuracy
    if expr.startswith("scipy.special."):
        try:
            import scipy.special
        except ImportError:
            return None
        return getattr(scipy.special, expr.rsplit(".", 1)[1])(x)
    ufunc = getattr(np, expr.rsplit(".", 1)[1])
    if expr.startswith("1/"):
        return np.float32(1) / ufunc(x)
    return ufunc(x)


def mpfr_reference(fname, x):
    import gmpy2

    ctx = gmpy2.ieee(32)
    ctx.subnormalize = True
    f = getattr(gmpy2, _entry(fname).mpfr)
    with gmpy2.context(ctx):
        return np.array([float(f(gmpy2.mpfr(float(v)))) for v in x], dtype=np.float32)


def digest(y):
    return hashlib.sha256(np.ascontiguousarray(y).view(np.uint32).tobytes()).hexdigest()[:16]


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m crlibm_py.demo",
        description="Reproducibility demo: on random float32 inputs, how often NumPy's "
                    "float32 functions and crlibm_py differ from the correctly rounded result "
                    "(MPFR), and crlibm_py's output digest on every CPU path.")
    parser.add_argument("--n", type=int, default=20000, help="inputs per function")
    args = parser.parse_args(argv)
    if args.n < 1:
        parser.error(f"--n must be at least 1, got {args.n}")
    rng = np.random.default_rng(2026)
    paths = [p for p in crlibm_py.isa_names() if crlibm_py.isa_supported(p)]
    try:
        import gmpy2  # noqa: F401
        have_mpfr = True
    except ImportError:
        have_mpfr = False
        print("gmpy2 is not installed: skipping the MPFR comparison (pip install '.[verify]')")

    print(f"{'function':8} {'baseline (float32)':19} {'baseline wrong':>14} "
          f"{'crlibm wrong':>12}  sha256 of crlibm bits per path")
    saved = os.environ.get("CRLIBM_ISA")
    try:
        for fname in crlibm_py.FUNCTIONS:
            x = sample(fname, args.n, rng)
            digests = []
            for path in paths:
                os.environ["CRLIBM_ISA"] = path
                y = getattr(crlibm_py, fname)(x)
                digests.append(f"{path}={digest(y)}")
            wrong_np = wrong_cr = "-"
            if have_mpfr:
                ref = mpfr_reference(fname, x)
                same = lambda a: np.array_equal(a.view(np.uint32), ref.view(np.uint32))  # noqa: E731
                ours = getattr(crlibm_py, fname)(x)
                wrong_cr = f"{np.count_nonzero(ours.view(np.uint32) != ref.view(np.uint32))}"
                theirs = numpy_float32(fname, x)
                if theirs is not None:
                    pct = 100.0 * np.count_nonzero(theirs.view(np.uint32) != ref.view(np.uint32)) / len(x)
                    wrong_np = f"{pct:.1f} %"
                assert same(ours), f"crlibm_py.{fname} differs from MPFR"
            print(f"{fname:8} {_entry(fname).accuracy:19} {wrong_np:>14} {wrong_cr:>12}  "
                  f"{' '.join(digests)}")
    finally:
        if saved is None:
            os.environ.pop("CRLIBM_ISA", None)
        else:
            os.environ["CRLIBM_ISA"] = saved
    print(f"\n{args.n} inputs per function; NumPy {np.__version__}. Wrong: bits that differ "
          "from MPFR's correctly rounded float32\n(baseline: share of the inputs; crlibm: count). "
          "Equal digests across paths = the same bits on every CPU path.")


if __name__ == "__main__":
    main()
