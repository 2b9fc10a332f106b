"""The C ABI: a C program compiled with the system cc against the installed headers
and libraries (get_include / get_library_dir, rpath) gives the Python API's bits.

tests/capi/driver.c runs commands from a script; each case here writes its operands
to files, computes what the Python API returns for them, and checks the program's
return code, scalar result and output array bit for bit (NaNs count as equal, as in
contract §0; signed zeros do not). Invalid arguments must give LAPACK-style codes (-i for
argument i) and write nothing; bad environment knobs give the documented codes.
"""
import ctypes
import itertools
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

import crlibm_py
import reproblas
from helpers import SUPPORTED_ISAS
from test_reproblas_reference import same_bits

CC = shutil.which("cc")
pytestmark = pytest.mark.skipif(CC is None, reason="needs a C compiler (cc on PATH)")

DRIVER = Path(__file__).parent / "capi" / "driver.c"
# functions.def: the driver's table of crlibm functions is the registry's
REGISTRY_DIR = Path(__file__).resolve().parents[1] / "src" / "c" / "crlibm"
ROW, COL, NOTRANS, TRANS = 101, 102, 111, 112
UPPER, LOWER, NONUNIT, UNIT, LEFT, RIGHT = 121, 122, 131, 132, 141, 142
ORDER_NAMES = {0: "sequential", 1: "pairwise"}
ERR_ISA_UNKNOWN, ERR_ISA_UNSUPPORTED, ERR_THREADS = 1, 2, 3


@pytest.fixture(scope="module")
def driver(tmp_path_factory):
    exe = tmp_path_factory.mktemp("capi") / "driver"
    libs = [crlibm_py.get_library_dir(), reproblas.get_library_dir()]
    cmd = [CC, "-std=c11", "-O1", "-Wall", f"-I{crlibm_py.get_include()}",
           f"-I{reproblas.get_include()}", f"-I{REGISTRY_DIR}", str(DRIVER), "-o", str(exe)]
    cmd += [f"-L{d}" for d in libs] + [f"-Wl,-rpath,{d}" for d in libs]
    cmd += ["-lreproblas", "-lcrlibm", "-lm"]
    done = subprocess.run(cmd, capture_output=True, text=True)
    assert done.returncode == 0, f"{' '.join(cmd)}\n{done.stderr}"
    # Not -Werror (another compiler may warn about the driver), but the headers must be clean.
    assert "crlibm.h" not in done.stderr and "reproblas.h" not in done.stderr, done.stderr
    return exe


def values(rng, dtype, n):
    """Values with a wide exponent range, signed zeros and a subnormal."""
    x = rng.standard_normal(n) * 2.0 ** rng.integers(-12, 12, n)
    x[::11] = -0.0
    if n > 5:
        x[5] = np.finfo(dtype).smallest_subnormal
    return x.astype(dtype)


def vector_view(mem, n, inc):
    """The BLAS vector (n, inc) over the memory mem, as a NumPy view."""
    view = mem[::abs(inc)][:n]
    return view[::-1] if inc < 0 else view


def matrix_view(buf, rows, cols, layout, ld):
    """The rows x cols matrix stored in buf with leading dimension ld."""
    if layout == ROW:
        return buf.reshape(-1, ld)[:rows, :cols]
    return buf.reshape(-1, ld)[:cols, :rows].T


class Script:
    """Driver commands, their operand files and the expected outcome of each."""

    def __init__(self, folder):
        self.folder, self.cases = folder, []

    def file(self, array):
        if array is None:
            return "NULL"
        path = self.folder / f"in{len(self.cases)}_{len(list(self.folder.iterdir()))}.bin"
        np.ascontiguousarray(array).tofile(path)
        return str(path)

    def out(self):
        return str(self.folder / f"out{len(self.cases)}.bin")

    def add(self, line, rc=0, value=None, out=None, expected=None, before=None,
            knobs="reproblas"):
        """value: the expected scalar (a NumPy scalar, or an int index); out/expected:
        the output file and its expected contents; before: the operand as passed, which
        an error must leave unchanged; knobs: whose environment knobs the call reads
        ("reproblas", "crlibm" or None)."""
        self.cases.append(dict(line=line, rc=rc, value=value, out=out, expected=expected,
                               before=before, knobs=knobs))

    def run(self, exe, env=None, reproblas_rc=None, crlibm_rc=None):
        """Run every case; *_rc: the code every valid call of that library must return
        instead (a bad environment knob)."""
        text = "".join(c["line"] + "\n" for c in self.cases)
        full_env = {k: v for k, v in os.environ.items()
                    if k not in ("REPROBLAS_ISA", "REPROBLAS_NUM_THREADS", "CRLIBM_ISA")}
        full_env.update(env or {})
        done = subprocess.run([str(exe)], input=text, capture_output=True, text=True,
                              env=full_env, timeout=120)
        assert done.returncode == 0, done.stderr
        lines = done.stdout.splitlines()
        assert len(lines) == len(self.cases), done.stderr
        for case, line in zip(self.cases, lines):
            self._check(case, line.split(), reproblas_rc, crlibm_rc, env)

    @staticmethod
    def _check(case, fields, reproblas_rc, crlibm_rc, env):
        what = f"{case['line']!r} with {env}"
        override = {"reproblas": reproblas_rc, "crlibm": crlibm_rc}.get(case["knobs"])
        rc = case["rc"] if override is None or case["rc"] != 0 else override
        assert int(fields[0]) == rc, f"{what}: return code {fields[0]}, expected {rc}"
        if case["out"] is not None:
            ref = case["expected"] if rc == 0 else case["before"]
            got = np.fromfile(case["out"], dtype=ref.dtype)
            assert same_bits(got, ref.ravel()), f"{what}: output differs"
        if rc == 0 and case["value"] is not None:
            value = case["value"]
            if isinstance(value, int):
                assert int(fields[1]) == value, f"{what}: index {fields[1]}, expected {value}"
            else:
                got = np.array([int(fields[1], 16)], dtype=np.uint64).astype(
                    np.uint32 if value.dtype == np.float32 else np.uint64).view(value.dtype)
                assert same_bits(got[0], value), f"{what}: got {got[0]!r}, expected {value!r}"


def level1_cases(script, rng):
    for dt, p in ((np.float32, "s"), (np.float64, "d")):
        for n in (0, 1, 9, 1000):
            for inc in (1, 3, -2):
                mem = values(rng, dt, max(1, (n - 1) * abs(inc) + 1))
                mem2 = values(rng, dt, mem.size)
                x, y = vector_view(mem, n, inc), vector_view(mem2, n, inc)
                fx, fy = script.file(mem), script.file(mem2)
                for order, oname in ORDER_NAMES.items():
                    for name in ("sum", "asum", "nrm2"):
                        script.add(f"red {name} {p} {n} {inc} {order} {fx}",
                                   value=getattr(reproblas, name)(x, order=oname))
                    script.add(f"red dot {p} {n} {inc} {order} {fx} {fy} {inc}",
                               value=reproblas.dot(x, y, order=oname))
                # ReproblasKahan (2), ReproblasExact (3): docs/contract.md §5.5, §5.4
                for code, oname in ((2, "kahan"), (3, "exact")):
                    for name in ("sum", "asum", "nrm2")[:3 if code == 2 else 2]:
                        script.add(f"red {name} {p} {n} {inc} {code} {fx}",
                                   value=getattr(reproblas, name)(x, order=oname))
                    script.add(f"red dot {p} {n} {inc} {code} {fx} {fy} {inc}",
                               value=reproblas.dot(x, y, order=oname))
                if n:
                    script.add(f"iamax {p} {n} {inc} {fx}", value=reproblas.iamax(x))
                alpha = -1.5
                expected = mem2.copy()
                reproblas.axpy(alpha, x, vector_view(expected, n, inc))
                out = script.out()
                script.add(f"axpy {p} {n} {alpha.hex()} {inc} {inc} {fx} {fy} {out}",
                           out=out, expected=expected, before=mem2)
                expected = mem.copy()
                reproblas.scal(alpha, vector_view(expected, n, inc))
                out = script.out()
                script.add(f"scal {p} {n} {alpha.hex()} {inc} {fx} {out}", out=out,
                           expected=expected, before=mem)
        # NaN and infinities: iamax finds the first NaN; nrm2/asum follow contract §3.
        x = np.array([1.0, -np.inf, 3.0, np.nan, np.nan, 2.0], dtype=dt)
        fx = script.file(x)
        script.add(f"iamax {p} 6 1 {fx}", value=reproblas.iamax(x))
        for name in ("sum", "asum", "nrm2"):
            script.add(f"red {name} {p} 3 1 0 {fx}", value=getattr(reproblas, name)(x[:3]))
        # A sum long enough to be split between threads.
        x = values(rng, dt, 300_001)
        fx = script.file(x)
        for order, oname in ORDER_NAMES.items():
            script.add(f"red sum {p} {x.size} 1 {order} {fx}", value=reproblas.sum(x, oname))


def stored(rng, dt, rows, cols, layout, ld):
    """(buffer, matrix view) of a rows x cols matrix with leading dimension ld."""
    outer = rows if layout == ROW else cols
    buf = values(rng, dt, (outer + 1) * ld)  # a spare row: nothing may be written there
    return buf, matrix_view(buf, rows, cols, layout, ld)


def level23_cases(script, rng):
    for dt, p in ((np.float32, "s"), (np.float64, "d")):
        for layout in (ROW, COL):
            for ta in (NOTRANS, TRANS):
                for tb in (NOTRANS, TRANS):
                    for (m, n, k), pad in (((5, 7, 13), 0), ((17, 3, 33), 2), ((4, 0, 3), 1)):
                        gemm_case(script, rng, dt, p, layout, ta, tb, m, n, k, pad)
                gemv_case(script, rng, dt, p, layout, ta, 9, 14, 2)
                gemv_case(script, rng, dt, p, layout, ta, 6, 1, 0)
            ger_case(script, rng, dt, p, layout, 7, 5, 3)
        # A product large enough to be split between threads.
        gemm_case(script, rng, dt, p, ROW, NOTRANS, NOTRANS, 96, 80, 128, 0)


def gemm_case(script, rng, dt, p, layout, ta, tb, m, n, k, pad):
    lead = (lambda rows, cols: (cols if layout == ROW else rows) + pad)
    ar, ac = (k, m) if ta == TRANS else (m, k)
    br, bc = (n, k) if tb == TRANS else (k, n)
    lda, ldb, ldc = lead(ar, ac), lead(br, bc), lead(m, n)
    abuf, a = stored(rng, dt, ar, ac, layout, max(lda, 1))
    bbuf, b = stored(rng, dt, br, bc, layout, max(ldb, 1))
    fa, fb = script.file(abuf), script.file(bbuf)
    for order, oname in {**ORDER_NAMES, 2: "kahan", 3: "exact"}.items():  # §5.4-§5.5
        for beta in (0.0, 0.75):
            cbuf, c = stored(rng, dt, m, n, layout, max(ldc, 1))
            if beta == 0:
                c[...] = np.nan  # never read when beta is 0
            expected = cbuf.copy()
            matrix_view(expected, m, n, layout, max(ldc, 1))[...] = reproblas.gemm(
                -2.5, a, b, beta, c, trans_a=ta == TRANS, trans_b=tb == TRANS, order=oname)
            out = script.out()
            script.add(f"gemm {p} {layout} {ta} {tb} {m} {n} {k} {(-2.5).hex()} {lda} {ldb} "
                       f"{beta.hex()} {ldc} {order} {fa} {fb} {script.file(cbuf)} {out}",
                       out=out, expected=expected, before=cbuf)


def gemv_case(script, rng, dt, p, layout, trans, m, n, pad):
    lda = (n if layout == ROW else m) + pad
    abuf, a = stored(rng, dt, m, n, layout, lda)
    rows, cols = (n, m) if trans == TRANS else (m, n)
    incx, incy = -2, 3
    xmem = values(rng, dt, (cols - 1) * 2 + 1)
    fa, fx = script.file(abuf), script.file(xmem)
    for order, oname in {**ORDER_NAMES, 2: "kahan", 3: "exact"}.items():  # §5.4-§5.5
        ymem = values(rng, dt, (rows - 1) * 3 + 1)
        expected = ymem.copy()
        vector_view(expected, rows, incy)[...] = reproblas.gemv(
            1.25, a, vector_view(xmem, cols, incx), 0.5, vector_view(ymem, rows, incy),
            trans=trans == TRANS, order=oname)
        out = script.out()
        script.add(f"gemv {p} {layout} {trans} {m} {n} {(1.25).hex()} {lda} {incx} "
                   f"{(0.5).hex()} {incy} {order} {fa} {fx} {script.file(ymem)} {out}",
                   out=out, expected=expected, before=ymem)


def ger_case(script, rng, dt, p, layout, m, n, pad):
    lda = (n if layout == ROW else m) + pad
    abuf, a = stored(rng, dt, m, n, layout, lda)
    xmem, ymem = values(rng, dt, m), values(rng, dt, (n - 1) * 2 + 1)
    expected = abuf.copy()
    matrix_view(expected, m, n, layout, lda)[...] = reproblas.ger(
        0.5, xmem, vector_view(ymem, n, -2), a)
    out = script.out()
    script.add(f"ger {p} {layout} {m} {n} {(0.5).hex()} 1 -2 {lda} {script.file(xmem)} "
               f"{script.file(ymem)} {script.file(abuf)} {out}", out=out, expected=expected,
               before=abuf)


def triangular(rng, dt, n, layout, lda):
    """A stored n x n matrix whose diagonal is in [1, 2) (solutions stay finite)."""
    abuf, a = stored(rng, dt, n, n, layout, lda)
    a[np.diag_indices(n)] = 1 + rng.random(n)
    return abuf, a


def solve_cases(script, rng):
    for dt, p in ((np.float32, "s"), (np.float64, "d")):
        for layout in (ROW, COL):
            for uplo, trans, diag in itertools.product((UPPER, LOWER), (NOTRANS, TRANS),
                                                       (NONUNIT, UNIT)):
                flags = dict(lower=uplo == LOWER, unit_diagonal=diag == UNIT)
                for n, incx, pad in ((0, 1, 0), (1, 1, 0), (9, -2, 1), (40, 1, 3)):
                    abuf, a = triangular(rng, dt, n, layout, max(1, n + pad))
                    xmem = values(rng, dt, max(1, (n - 1) * abs(incx) + 1))
                    order = int(rng.integers(2))
                    expected = xmem.copy()
                    vector_view(expected, n, incx)[...] = reproblas.trsv(
                        a, vector_view(xmem, n, incx), trans=trans == TRANS,
                        order=ORDER_NAMES[order], **flags)
                    out = script.out()
                    script.add(f"trsv {p} {layout} {uplo} {trans} {diag} {n} {max(1, n + pad)} "
                               f"{incx} {order} {script.file(abuf)} {script.file(xmem)} {out}",
                               out=out, expected=expected, before=xmem)
                for side, (m, n), order in itertools.product((LEFT, RIGHT), ((6, 11), (19, 4)),
                                                             ORDER_NAMES):
                    na = m if side == LEFT else n
                    abuf, a = triangular(rng, dt, na, layout, na + 1)
                    ldb = (n if layout == ROW else m) + 2
                    bbuf, b = stored(rng, dt, m, n, layout, ldb)
                    expected = bbuf.copy()
                    matrix_view(expected, m, n, layout, ldb)[...] = reproblas.trsm(
                        -1.5, a, b, side="left" if side == LEFT else "right",
                        trans_a=trans == TRANS, order=ORDER_NAMES[order], **flags)
                    out = script.out()
                    script.add(f"trsm {p} {layout} {side} {uplo} {trans} {diag} {m} {n} "
                               f"{(-1.5).hex()} {na + 1} {ldb} {order} {script.file(abuf)} "
                               f"{script.file(bbuf)} {out}", out=out, expected=expected,
                               before=bbuf)


# (x shape, w shape, stride, padding, dilation, groups, bias): odd sizes, an
# asymmetric 'same', strides, dilations, groups (depthwise too), no bias.
CONV_GEOMETRIES = [((2, 4, 7, 9), (6, 2, 3, 2), (2, 1), 1, (1, 2), 2, True),
                   ((1, 3, 6, 5), (4, 3, 4, 2), 1, "same", 1, 1, True),
                   ((3, 2, 10, 11), (5, 2, 3, 3), 3, (0, 2), 1, 1, False),
                   ((1, 3, 5, 5), (3, 1, 3, 3), 1, 2, 2, 3, False)]


def conv_shape(x_shape, w_shape, y_shape, stride, padding, dilation, groups):
    """The 16 fields of reproblas_conv2d_shape, as driver tokens."""
    pair = lambda v: tuple(v) if isinstance(v, tuple) else (v, v)
    dil = pair(dilation)
    if padding == "same":  # the extra row / column of an odd total goes bottom / right
        pads = tuple(d * (k - 1) // 2 for d, k in zip(dil, w_shape[2:]))
    else:
        pads = pair(padding)
    fields = (*x_shape, w_shape[0], *w_shape[2:], *y_shape[2:], *pair(stride), *pads, *dil,
              groups)
    return " ".join(str(f) for f in fields)


def conv_cases(script, rng):
    for dt, p in ((np.float32, "s"), (np.float64, "d")):
        for xs, ws, stride, padding, dilation, groups, has_bias in CONV_GEOMETRIES:
            x, w = values(rng, dt, np.prod(xs)).reshape(xs), values(rng, dt, np.prod(ws)).reshape(ws)
            bias = values(rng, dt, ws[0]) if has_bias else None
            args = dict(stride=stride, padding=padding, dilation=dilation, groups=groups)
            ys = reproblas.conv2d(x, w, bias, **args).shape
            gy = values(rng, dt, np.prod(ys)).reshape(ys)
            shape = conv_shape(xs, ws, ys, stride, padding, dilation, groups)
            fx, fw, fgy = script.file(x), script.file(w), script.file(gy)
            for order, oname in ORDER_NAMES.items():
                runs = [("fwd", fx, fw, script.file(bias),
                         reproblas.conv2d(x, w, bias, **args, order=oname)),
                        ("gin", fgy, fw, "NULL",
                         reproblas.conv2d_grad_input(gy, w, xs, **args, order=oname)),
                        ("gw", fx, fgy, "NULL",
                         reproblas.conv2d_grad_weight(x, gy, ws, **args, order=oname)),
                        ("gb", fgy, "NULL", "NULL", reproblas.conv2d_grad_bias(gy, order=oname))]
                for fn, in1, in2, fb, expected in runs:
                    out = script.out()
                    script.add(f"conv {fn} {p} {shape} {order} {in1} {in2} {fb} {out} "
                               f"{expected.size}", out=out, expected=expected,
                               before=untouched(dt, expected.size))


def untouched(dt, n):
    """The driver's 0xAB fill of an output buffer of n elements."""
    return np.full(n * np.dtype(dt).itemsize, 0xAB, np.uint8).view(dt)


def crlibm_cases(script, rng):
    x = np.concatenate([rng.standard_normal(500).astype(np.float32) * 30, np.array(
        [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 88.8, -104.0, 3e38],
        dtype=np.float32)])
    fx = script.file(x)
    for fname in crlibm_py.FUNCTIONS:
        expected = getattr(crlibm_py, fname)(x)
        for command in ("crlibm", "crlibm1"):
            out = script.out()
            script.add(f"{command} {fname} {x.size} {fx} {out}", out=out, expected=expected,
                       before=np.full(x.size, 0xABABABAB, np.uint32).view(np.float32),
                       knobs="crlibm" if command == "crlibm" else None)


def error_cases(script):
    """Invalid arguments: -i for argument i (1-based), nothing written."""
    f4 = np.arange(1, 65, dtype=np.float32)
    x = script.file(f4)
    bad_level1 = [("red sum s -1 1 0 X", -1), ("red sum s 4 1 0 NULL", -2),
                  ("red sum s 4 0 0 X", -3), ("red asum s 4 1 4 X", -5),
                  ("red dot s 4 1 0 X NULL 1", -4), ("red dot s 4 1 0 X X 0", -5),
                  ("red dot s 4 1 -1 X X 1", -7), ("iamax s 0 1 X", -1),
                  ("iamax s 4 0 X", -3), ("red nrm2 s 4 1 0 NULL", -2),
                  ("red nrm2 s 4 1 3 X", -5), ("red dot s 4 1 5 X X 1", -7)]
    for line, rc in bad_level1:
        script.add(line.replace("X", x), rc=rc)
    for line, rc in [("axpy s -1 0x1p0 1 1 X Y OUT", -1), ("axpy s 4 0x1p0 1 1 NULL Y OUT", -3),
                     ("axpy s 4 0x1p0 0 1 X Y OUT", -4), ("axpy s 4 0x1p0 1 0 X Y OUT", -6),
                     ("scal s 4 0x1p0 0 Y OUT", -4)]:
        out = script.out()
        script.add(line.replace("X", x).replace("Y", x).replace("OUT", out), rc=rc, out=out,
                   expected=f4, before=f4)
    script.add(f"crlibm exp 4 NULL {script.out()}", rc=-1, knobs="crlibm")
    script.add(f"crlibm exp 4 {x} NULL", rc=-2, knobs="crlibm")
    # gemm 4x4x4 row-major, with one argument made invalid at a time.
    good = dict(layout=ROW, ta=NOTRANS, tb=NOTRANS, m=4, n=4, k=4, lda=4, ldb=4, ldc=4,
                order=0, a=x, b=x, c=None)
    for change, rc in [(dict(layout=100), -1), (dict(ta=0), -2), (dict(tb=114), -3),
                       (dict(m=-1), -4), (dict(n=-2), -5), (dict(k=-1), -6),
                       (dict(a="NULL"), -8), (dict(lda=3), -9), (dict(b="NULL"), -10),
                       (dict(tb=TRANS, ldb=3), -11), (dict(c="NULL"), -13), (dict(ldc=3), -14),
                       (dict(order=5), -15), (dict(order=4), -15),
                       (dict(layout=COL, m=5, lda=4, ldc=5), -9)]:
        g = dict(good, **change)
        out = script.out()
        c = script.file(f4[:16]) if g["c"] is None else g["c"]
        script.add(f"gemm s {g['layout']} {g['ta']} {g['tb']} {g['m']} {g['n']} {g['k']} 0x1p0 "
                   f"{g['lda']} {g['ldb']} 0x0p0 {g['ldc']} {g['order']} {g['a']} {g['b']} {c} "
                   f"{out}", rc=rc, out=out if c != "NULL" else None, before=f4[:16])
    good = dict(layout=COL, trans=NOTRANS, m=4, n=4, lda=4, incx=1, incy=1, order=1, a=x, x=x)
    for change, rc in [(dict(layout=0), -1), (dict(trans=3), -2), (dict(m=-1), -3),
                       (dict(n=-1), -4), (dict(a="NULL"), -6), (dict(lda=3), -7),
                       (dict(x="NULL"), -8), (dict(incx=0), -9), (dict(incy=0), -12),
                       (dict(order=-1), -13)]:
        g = dict(good, **change)
        out = script.out()
        script.add(f"gemv s {g['layout']} {g['trans']} {g['m']} {g['n']} 0x1p0 {g['lda']} "
                   f"{g['incx']} 0x1p0 {g['incy']} {g['order']} {g['a']} {g['x']} "
                   f"{script.file(f4[:4])} {out}", rc=rc, out=out, before=f4[:4])
    script.add(f"gemv s {COL} {NOTRANS} 4 4 0x1p0 4 1 0x0p0 1 0 {x} {x} NULL {script.out()}",
               rc=-11)
    good = dict(layout=ROW, m=4, n=4, incx=1, incy=1, lda=4, x=x, y=x)
    for change, rc in [(dict(layout=7), -1), (dict(m=-1), -2), (dict(n=-1), -3),
                       (dict(x="NULL"), -5), (dict(incx=0), -6), (dict(y="NULL"), -7),
                       (dict(incy=0), -8), (dict(n=5, lda=4), -10)]:
        g = dict(good, **change)
        out = script.out()
        script.add(f"ger s {g['layout']} {g['m']} {g['n']} 0x1p0 {g['incx']} {g['incy']} "
                   f"{g['lda']} {g['x']} {g['y']} {script.file(f4[:20])} {out}", rc=rc, out=out,
                   before=f4[:20])


def solve_conv_error_cases(script):
    """trsv, trsm and the convolutions: -i for argument i, nothing written."""
    f4 = np.arange(1, 65, dtype=np.float32)
    x = script.file(f4)
    good = dict(layout=ROW, uplo=LOWER, trans=NOTRANS, diag=NONUNIT, n=4, lda=4, incx=1,
                order=0, a=x)
    for change, rc in [(dict(layout=0), -1), (dict(uplo=123), -2), (dict(trans=1), -3),
                       (dict(diag=0), -4), (dict(n=-1), -5), (dict(a="NULL"), -6),
                       (dict(lda=3), -7), (dict(incx=0), -9), (dict(order=2), -10)]:
        g = dict(good, **change)
        out = script.out()
        script.add(f"trsv s {g['layout']} {g['uplo']} {g['trans']} {g['diag']} {g['n']} "
                   f"{g['lda']} {g['incx']} {g['order']} {g['a']} {script.file(f4[:4])} {out}",
                   rc=rc, out=out, before=f4[:4])
    script.add(f"trsv s {ROW} {LOWER} {NOTRANS} {UNIT} 4 4 1 0 {x} NULL {script.out()}", rc=-8)
    good = dict(layout=COL, side=LEFT, uplo=UPPER, trans=TRANS, diag=UNIT, m=4, n=3, lda=4,
                ldb=4, order=1, a=x)
    for change, rc in [(dict(layout=103), -1), (dict(side=140), -2), (dict(uplo=0), -3),
                       (dict(trans=114), -4), (dict(diag=133), -5), (dict(m=-1), -6),
                       (dict(n=-1), -7), (dict(a="NULL"), -9), (dict(lda=3), -10),
                       (dict(side=RIGHT, lda=2), -10), (dict(ldb=3), -12),
                       (dict(order=-1), -13)]:
        g = dict(good, **change)
        out = script.out()
        script.add(f"trsm s {g['layout']} {g['side']} {g['uplo']} {g['trans']} {g['diag']} "
                   f"{g['m']} {g['n']} 0x1p0 {g['lda']} {g['ldb']} {g['order']} {g['a']} "
                   f"{script.file(f4[:12])} {out}", rc=rc, out=out, before=f4[:12])
    script.add(f"trsm s {COL} {LEFT} {UPPER} {TRANS} {UNIT} 4 3 0x1p0 4 4 0 {x} NULL "
               f"{script.out()}", rc=-11)
    # x (1, 2, 4, 4), w (2, 2, 3, 3), y (1, 2, 2, 2): every array fits in f4.
    fields = dict(n=1, c=2, h=4, w=4, k=2, r=3, s=3, p=2, q=2, sh=1, sw=1, pt=0, pl=0, dh=1,
                  dw=1, groups=1)
    bad_shapes = [dict(groups=2, c=3), dict(groups=0), dict(sh=0), dict(dw=0), dict(n=-1),
                  dict(pt=-1), dict(p=0), dict(q=1), dict(p=1, sh=1), dict(r=1 << 31)]
    args = {"fwd": (x, x, "NULL", 8, 6), "gin": (x, x, "NULL", 32, 5),
            "gw": (x, x, "NULL", 36, 5), "gb": (x, "NULL", "NULL", 2, 4)}
    for fn, (in1, in2, fb, size, last) in args.items():
        cases = [(dict(fields, **bad), 0, -1) for bad in bad_shapes]
        cases += [("NULL", 0, -1), (fields, 2, -last), (fields, -1, -last)]
        for shape, order, rc in cases:
            text = " ".join(["NULL"] * 16 if shape == "NULL" else map(str, shape.values()))
            out = script.out()
            script.add(f"conv {fn} s {text} {order} {in1} {in2} {fb} {out} {size}", rc=rc,
                       out=out, before=untouched(np.float32, size))
        nulls = [(f"NULL {in2}", -2), (f"{in1} NULL", -3)][:2 if fn != "gb" else 1]
        text = " ".join(map(str, fields.values()))
        for pair, rc in nulls:
            out = script.out()
            script.add(f"conv {fn} s {text} 0 {pair} {fb} {out} {size}", rc=rc, out=out,
                       before=untouched(np.float32, size))
        script.add(f"conv {fn} s {text} 0 {in1} {in2} {fb} NULL {size}", rc=-(last - 1))
    # empty arrays may be NULL: no batch (every routine), no input channels (conv2d: y = bias)
    empty = " ".join(map(str, dict(fields, n=0).values()))
    for fn, in2 in (("fwd", x), ("gin", x)):
        script.add(f"conv {fn} s {empty} 0 NULL {in2} NULL NULL 0")
    for fn, size in (("gw", 36), ("gb", 2)):  # sums of no terms: +0
        out = script.out()
        script.add(f"conv {fn} s {empty} 0 NULL NULL NULL {out} {size}", out=out,
                   expected=np.zeros(size, np.float32), before=untouched(np.float32, size))
    no_c = dict(fields, c=0)
    out = script.out()
    script.add(f"conv fwd s {' '.join(map(str, no_c.values()))} 1 NULL NULL {script.file(f4[:2])} "
               f"{out} 8", out=out, expected=np.repeat(f4[:2], 4), before=untouched(np.float32, 8))


I64_MAX, I64_MIN = 2**63 - 1, -2**63
HALF = I64_MAX // 2  # (n - 1) * HALF + 1 elements: beyond any int64_t byte offset for n >= 3


def offset_overflow_cases(script):
    """Increments, leading dimensions and shapes whose largest offset, in bytes, is not
    an int64_t: the argument's -i and nothing written (the old code read or wrote far
    outside the operands). Next to them, calls whose operands have one row or one
    element, where any increment or leading dimension is inside the limit: accepted,
    with the Python API's bits."""
    f4 = np.arange(1, 65, dtype=np.float32)
    x, a3 = script.file(f4), script.file(f4 + 2)  # a3: a triangle with 3 on its diagonal
    for name in ("sum", "asum", "nrm2"):
        for n, inc in ((3, HALF), (3, -HALF), (2, I64_MAX), (2, I64_MIN), (2**62, 1),
                       (2**61, 1)):
            script.add(f"red {name} s {n} {inc} 0 {x}", rc=-3)
        for inc in (I64_MAX, I64_MIN, 1):  # one element: offset 0
            script.add(f"red {name} s 1 {inc} 1 {x}",
                       value=getattr(reproblas, name)(f4[:1], order="pairwise"))
        script.add(f"red {name} s 0 {I64_MAX} 0 NULL", value=np.float32(0))
    script.add(f"red dot s 3 {HALF} 0 {x} {x} 1", rc=-3)
    script.add(f"red dot s 3 1 0 {x} {x} {-HALF}", rc=-5)
    script.add(f"red dot s 1 {I64_MAX} 0 {x} {x} {I64_MIN}", value=reproblas.dot(f4[:1], f4[:1]))
    script.add(f"iamax s 3 {HALF} {x}", rc=-3)
    script.add(f"iamax s 1 {I64_MIN} {x}", value=0)
    for line, rc in [(f"axpy s 3 0x1p0 {HALF} 1 X Y OUT", -4),
                     (f"axpy s 3 0x1p0 1 {-HALF} X Y OUT", -6),
                     (f"scal s 3 0x1p0 {HALF} Y OUT", -4),
                     (f"scal s {2**62} 0x1p0 1 Y OUT", -4)]:
        out = script.out()
        script.add(line.replace("X", x).replace("Y", x).replace("OUT", out), rc=rc, out=out,
                   before=f4)
    expected = f4.copy()
    expected[0] = np.float32(f4[0] * np.float32(-2) + f4[0])  # one fma, exact here
    out = script.out()
    script.add(f"axpy s 1 -0x1p1 {I64_MAX} {I64_MIN} {x} {x} {out}", out=out, expected=expected,
               before=f4)
    script.add(f"crlibmhuge exp {2**62} {x}", rc=-3, knobs="crlibm")
    script.add(f"crlibmhuge exp {2**64 - 1} {x}", rc=-3, knobs="crlibm")

    def gemm(m, n, k, lda, ldb, ldc, rc, layout=ROW, ta=NOTRANS, expected=None):
        out = script.out()
        script.add(f"gemm s {layout} {ta} {NOTRANS} {m} {n} {k} -0x1.8p1 {lda} {ldb} 0x0p0 {ldc} "
                   f"0 {x} {x} {x} {out}", rc=rc, out=out, expected=expected, before=f4)

    gemm(3, 2, 2, HALF, 2, 2, -9)
    gemm(2, 2, 3, HALF, 2, 2, -9, ta=TRANS)  # A stored k x m
    gemm(2, 2, 3, 3, HALF, 2, -11)
    gemm(3, 2, 2, 2, 2, HALF, -14)
    gemm(2, 3, 2, 2, 3, HALF, -14, layout=COL)
    # One row of A and C, one row of B: every leading dimension is inside the limit.
    expected = f4.copy()
    expected[:4] = reproblas.gemm(-3.0, f4[:1].reshape(1, 1), f4[:4].reshape(1, 4),
                                  order="sequential").ravel()
    gemm(1, 4, 1, I64_MAX, I64_MAX, I64_MAX, 0, expected=expected)
    gemm(0, 4, 3, I64_MAX, 4, I64_MAX, 0, expected=f4)  # C empty: A never read
    for change, rc in [(dict(lda=HALF), -7), (dict(incx=HALF), -9), (dict(incy=-HALF), -12)]:
        g = dict(dict(m=3, n=3, lda=3, incx=1, incy=1), **change)
        out = script.out()
        script.add(f"gemv s {COL} {NOTRANS} {g['m']} {g['n']} 0x1p0 {g['lda']} {g['incx']} 0x0p0 "
                   f"{g['incy']} 0 {x} {x} {x} {out}", rc=rc, out=out, before=f4)
    expected = f4.copy()
    expected[:1] = reproblas.gemv(1.0, f4[:3].reshape(1, 3), f4[:3], order="sequential")
    out = script.out()  # one row of A, one element of y: lda and incy are free
    script.add(f"gemv s {ROW} {NOTRANS} 1 3 0x1p0 {I64_MAX} 1 0x0p0 {I64_MIN} 0 {x} {x} {x} "
               f"{out}", out=out, expected=expected, before=f4)
    for change, rc in [(dict(incx=HALF), -6), (dict(incy=-HALF), -8), (dict(lda=HALF), -10)]:
        g = dict(dict(m=3, n=3, incx=1, incy=1, lda=3), **change)
        out = script.out()
        script.add(f"ger s {ROW} {g['m']} {g['n']} 0x1p0 {g['incx']} {g['incy']} {g['lda']} "
                   f"{x} {x} {x} {out}", rc=rc, out=out, before=f4)
    expected = f4.copy()
    a = expected[:2].reshape(1, 2)
    a[...] = reproblas.ger(1.0, f4[:1], f4[:2], f4[:2].reshape(1, 2).copy())
    out = script.out()
    script.add(f"ger s {ROW} 1 2 0x1p0 {I64_MAX} 1 {I64_MAX} {x} {x} {x} {out}", out=out,
               expected=expected, before=f4)
    for lda, incx, rc in ((HALF, 1, -7), (3, HALF, -9)):
        out = script.out()
        script.add(f"trsv s {ROW} {LOWER} {NOTRANS} {NONUNIT} 3 {lda} {incx} 0 {x} {x} {out}",
                   rc=rc, out=out, before=f4)
    expected = f4.copy()
    expected[:1] = reproblas.trsv(f4[:1].reshape(1, 1) + 2, f4[:1], lower=True)
    out = script.out()
    script.add(f"trsv s {ROW} {LOWER} {NOTRANS} {NONUNIT} 1 {I64_MAX} {I64_MIN} 0 {a3} {x} {out}",
               out=out, expected=expected, before=f4)
    for lda, ldb, rc in ((HALF, 3, -10), (3, HALF, -12)):
        out = script.out()
        script.add(f"trsm s {ROW} {LEFT} {LOWER} {NOTRANS} {NONUNIT} 3 3 0x1p0 {lda} {ldb} 0 "
                   f"{x} {x} {out}", rc=rc, out=out, before=f4)
    expected = f4.copy()
    expected[:1] = reproblas.trsm(1.0, f4[:1].reshape(1, 1) + 2, f4[:1].reshape(1, 1)).ravel()
    out = script.out()
    script.add(f"trsm s {ROW} {LEFT} {LOWER} {NOTRANS} {NONUNIT} 1 1 0x1p0 {I64_MAX} {I64_MAX} "
               f"0 {a3} {x} {out}", out=out, expected=expected, before=f4)
    # Convolutions: fields up to 2^30, so the products of four of them overflow.
    big = 1 << 30
    base = dict(n=1, c=2, h=4, w=4, k=2, r=3, s=3, p=2, q=2, sh=1, sw=1, pt=0, pl=0, dh=1, dw=1,
                groups=1)
    huge_x = dict(base, n=big, c=big)  # x: 2^64 elements
    huge_w = dict(base, k=big, c=big, r=big, p=1, q=2)  # w: 2^92 elements
    huge_y = dict(base, n=big, k=big, p=big)  # y: 2^91 elements (p is not bounded by h)
    for fn, last in (("fwd", 6), ("gin", 5), ("gw", 5), ("gb", 4)):
        shapes = [huge_y] if fn == "gb" else [huge_x, huge_w, huge_y]
        for shape in shapes:
            out = script.out()
            in2 = "NULL" if fn == "gb" else x
            script.add(f"conv {fn} s {' '.join(map(str, shape.values()))} 0 {x} {in2} NULL "
                       f"{out} 8", rc=-1, out=out, before=untouched(np.float32, 8))
    # No batch: x and y are empty, so their huge other sizes are inside the limit.
    empty = dict(huge_x, n=0)
    script.add(f"conv fwd s {' '.join(map(str, empty.values()))} 0 NULL {x} NULL NULL 0")


def test_offsets_beyond_int64_are_invalid(driver, tmp_path):
    script = Script(tmp_path)
    offset_overflow_cases(script)
    script.run(driver, {"REPROBLAS_NUM_THREADS": "2"})


@pytest.fixture(scope="module")
def full_script(tmp_path_factory):
    script = Script(tmp_path_factory.mktemp("capi_full"))
    rng = np.random.default_rng(20261123)
    level1_cases(script, rng)
    level23_cases(script, rng)
    solve_cases(script, rng)
    conv_cases(script, rng)
    crlibm_cases(script, rng)
    error_cases(script)
    solve_conv_error_cases(script)
    return script


def test_headers_and_libraries_are_installed():
    assert os.path.isfile(os.path.join(crlibm_py.get_include(), "crlibm.h"))
    assert os.path.isfile(os.path.join(reproblas.get_include(), "reproblas.h"))
    assert os.path.isfile(os.path.join(crlibm_py.get_library_dir(), "libcrlibm.so"))
    assert os.path.isfile(os.path.join(reproblas.get_library_dir(), "libreproblas.so"))


@pytest.mark.parametrize("threads", ["1", "3"])
@pytest.mark.parametrize("isa", SUPPORTED_ISAS)
def test_c_program_matches_python(driver, full_script, isa, threads):
    full_script.run(driver, {"REPROBLAS_ISA": isa, "CRLIBM_ISA": isa,
                             "REPROBLAS_NUM_THREADS": threads})


def test_c_program_default_environment(driver, full_script):
    full_script.run(driver)


def test_c_program_ignores_the_callers_fenv(driver, full_script):
    """Rounding upward with FTZ/DAZ on in the caller: the same bits (contract §0), and the
    caller's settings restored after every call (the driver exits 3 otherwise)."""
    full_script.run(driver, {"DRIVER_HOSTILE_FENV": "1"})


@pytest.mark.parametrize("env, reproblas_rc, crlibm_rc", [
    ({"REPROBLAS_ISA": "sse9"}, ERR_ISA_UNKNOWN, 0),
    ({"CRLIBM_ISA": "AVX2"}, 0, ERR_ISA_UNKNOWN),
    ({"REPROBLAS_NUM_THREADS": "0"}, ERR_THREADS, 0),
    ({"REPROBLAS_NUM_THREADS": "two"}, ERR_THREADS, 0),
    ({"REPROBLAS_NUM_THREADS": "-1"}, ERR_THREADS, 0),
    ({"REPROBLAS_NUM_THREADS": "99999999999"}, ERR_THREADS, 0),
    ({"REPROBLAS_NUM_THREADS": " +2 ", "REPROBLAS_ISA": "", "CRLIBM_ISA": ""}, 0, 0),
])
def test_bad_environment_is_a_return_code(driver, tmp_path, env, reproblas_rc, crlibm_rc):
    """A bad knob makes every call return its code and write nothing; the scalar
    crlibm forms read no knob and still work."""
    script = Script(tmp_path)
    rng = np.random.default_rng(5)
    level1_cases(script, rng)
    crlibm_cases(script, rng)
    error_cases(script)  # argument errors are reported before the environment is read
    solve_conv_error_cases(script)
    script.run(driver, env, reproblas_rc=reproblas_rc, crlibm_rc=crlibm_rc)


@pytest.mark.parametrize("var", ["REPROBLAS_ISA", "CRLIBM_ISA"])
@pytest.mark.parametrize("isa", [i for i in crlibm_py.isa_names()
                                 if not crlibm_py.isa_supported(i)] or [pytest.param(
    None, marks=pytest.mark.skip(reason="needs a CPU that lacks a path (avx2 or avx512): this "
                                        "one has them all, so no missing path can be asked for"))])
def test_path_this_cpu_lacks_is_a_return_code(driver, tmp_path, var, isa):
    script = Script(tmp_path)
    crlibm_cases(script, np.random.default_rng(6))
    level1_cases(script, np.random.default_rng(6))
    codes = {"reproblas_rc": 0, "crlibm_rc": 0}
    codes["crlibm_rc" if var == "CRLIBM_ISA" else "reproblas_rc"] = ERR_ISA_UNSUPPORTED
    script.run(driver, {var: isa}, **codes)


def test_axpy_reads_the_old_x_when_y_overlaps_it():
    """As the Python API: x keeps its old values while y, overlapping it, is written
    (called through ctypes: the driver's operands never share memory)."""
    lib = ctypes.CDLL(os.path.join(reproblas.get_library_dir(), "libreproblas.so"))
    axpy = lib.reproblas_daxpy
    axpy.restype = ctypes.c_int
    axpy.argtypes = [ctypes.c_int64, ctypes.c_double, ctypes.c_void_p, ctypes.c_int64,
                     ctypes.c_void_p, ctypes.c_int64]
    for x_at, y_at, incx, incy in ((0, 2, 1, 1), (3, 0, 1, 1), (0, 0, 1, 1), (0, 1, 2, 1),
                                   (1, 0, -1, 1)):
        mem = np.linspace(-3.0, 7.0, 40) ** 3
        expected = mem.copy()
        reproblas.axpy(1.75, vector_view(expected[x_at:], 9, incx),
                       vector_view(expected[y_at:], 9, incy))
        assert axpy(9, 1.75, mem.ctypes.data + 8 * x_at, incx, mem.ctypes.data + 8 * y_at,
                    incy) == 0
        assert same_bits(mem, expected), (x_at, y_at, incx, incy)


def test_conj_trans_is_trans_and_empty_ger_reads_nothing():
    """CBLAS's ConjTrans (113) passes unchanged and means Trans for real data; ger
    with m or n = 0 reads neither vector, so NULL is fine there (as for gemv)."""
    lib = ctypes.CDLL(os.path.join(reproblas.get_library_dir(), "libreproblas.so"))
    i64, dbl, ptr = ctypes.c_int64, ctypes.c_double, ctypes.c_void_p
    gemv, gemm, ger = lib.reproblas_dgemv, lib.reproblas_dgemm, lib.reproblas_dger
    gemv.argtypes = [ctypes.c_int, ctypes.c_int, i64, i64, dbl, ptr, i64, ptr, i64, dbl, ptr, i64,
                     ctypes.c_int]
    gemm.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int, i64, i64, i64, dbl, ptr, i64, ptr,
                     i64, dbl, ptr, i64, ctypes.c_int]
    ger.argtypes = [ctypes.c_int, i64, i64, dbl, ptr, i64, ptr, i64, ptr, i64]
    row, no, trans, conj, seq = 101, 111, 112, 113, 0
    rng = np.random.default_rng(3)
    a, x = rng.standard_normal((5, 3)), rng.standard_normal(5)
    b = rng.standard_normal((5, 4))
    results = {}
    for t in (trans, conj):
        y, c = np.zeros(3), np.zeros((3, 4))
        assert gemv(row, t, 5, 3, 1.0, a.ctypes.data, 3, x.ctypes.data, 1, 0.0, y.ctypes.data, 1,
                    seq) == 0
        assert gemm(row, t, no, 3, 4, 5, 1.0, a.ctypes.data, 3, b.ctypes.data, 4, 0.0,
                    c.ctypes.data, 4, seq) == 0
        results[t] = (y, c)
    assert same_bits(results[conj][0], reproblas.gemv(1.0, a, x, trans=True))
    assert same_bits(results[conj][1], reproblas.gemm(1.0, a, b, trans_a=True))
    assert all(same_bits(u, v) for u, v in zip(results[trans], results[conj]))
    assert gemv(row, 114, 5, 3, 1.0, a.ctypes.data, 3, x.ctypes.data, 1, 0.0, y.ctypes.data, 1,
                seq) == -2
    m0 = np.zeros((0, 3))
    assert ger(row, 0, 3, 1.0, None, 1, None, 1, m0.ctypes.data, 3) == 0
    assert ger(row, 3, 0, 1.0, None, 1, None, 1, None, 1) == 0
    assert ger(row, 3, 2, 1.0, None, 1, x.ctypes.data, 1, a.ctypes.data, 3) == -5


def test_error_strings(driver):
    text = "".join(f"strerror {code}\n" for code in (0, 1, 2, 3, 4, 5, -3, 99))
    done = subprocess.run([str(driver)], input=text, capture_output=True, text=True)
    lines = done.stdout.splitlines()
    assert lines[0] == "success|success"
    assert "REPROBLAS_ISA" in lines[1] and "CRLIBM_ISA" in lines[1]
    assert "REPROBLAS_NUM_THREADS" in lines[3] and "memory" in lines[4]
    assert "argument" in lines[6] and "unknown" in lines[7]
