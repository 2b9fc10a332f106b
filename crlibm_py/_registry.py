"""The function registry, src/c/crlibm/functions.def, on the Python side.

The .def file is the one place a function is listed; the C build compiles it into every
table, and ``_ufuncs.registry_rows()`` returns its entries' source text. This module parses
that text into `Function` records: what the verifier, the MPFR references, the benchmarks
and the demo need. It imports nothing from the package at import time, so the tools load it
by path (``parse_def`` on the .def file) without a build.
"""
import re
import struct
from collections import namedtuple

# The fields of CR_FUNCTION(...), in order (documented in functions.def).
FIELDS = ("name", "folder", "lanes", "avx2", "mpfr", "reference", "ulps", "specials",
          "mpfr_override", "saturation", "bench", "baseline", "demo", "accuracy")

# The registry's result tokens, as float32 bit patterns (None: not a special input).
RESULT_BITS = {"nan": 0x7FC00000, "pinf": 0x7F800000, "ninf": 0xFF800000, "pzero": 0x00000000,
               "nzero": 0x80000000, "one": 0x3F800000, "mone": 0xBF800000, "none": None}
# The special inputs of a CR_SPECIALS row (its last column, "negative", is every x < 0).
SPECIAL_INPUTS = {"pinf": 0x7F800000, "ninf": 0xFF800000, "pzero": 0x00000000,
                  "nzero": 0x80000000}
SPECIAL_COLUMNS = ("pinf", "ninf", "pzero", "nzero", "negative")
BENCH_KINDS = ("uniform", "normals", "huge")
DEMO_KINDS = ("uniform", "loguniform")

Function = namedtuple("Function", [
    "index",          # position in the registry: the function's id in every C table
    "name", "folder", "lanes", "avx2", "mpfr",
    "reference",      # the verifier's glibc double reference, a C expression in d
    "reference_text",  # the same in words: "glibc exp (double)"
    "glibc_ulps",     # int
    "specials",       # {"pinf": bits, "ninf": ..., "pzero": ..., "nzero": ..., "negative": bits}
    "mpfr_override",  # {input bits: result bits} where the contract replaces MPFR
    "saturation",     # None or (lo, lo result bits, hi, hi result bits), lo and hi floats
    "bench",          # [(case id, kind, args)], args the strings after the kind
    "baseline",       # "np.<f>" or "1/np.<f>"
    "demo",           # (kind, lo, hi) with float bounds
    "accuracy",       # "np.<f>", "1/np.<f>" or "scipy.special.<f>"
])


class RegistryError(ValueError):
    """A malformed functions.def entry."""


def _strip_comments(text):
    return re.sub(r"/\*.*?\*/|//[^\n]*", " ", text, flags=re.S)


def _split_top(args):
    """Split at the commas outside parentheses and string literals."""
    parts, depth, cur, in_str = [], 0, [], False
    for i, ch in enumerate(args):
        if in_str:
            cur.append(ch)
            if ch == '"' and args[i - 1] != "\\":
                in_str = False
            continue
        if ch == '"':
            in_str = True
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
            continue
        cur.append(ch)
    parts.append("".join(cur))
    return [" ".join(p.split()) for p in parts]


def parse_def(text):
    """The entries of a functions.def text: per CR_FUNCTION(...), its fields' source text
    (whitespace normalised, as the C preprocessor's # operator gives it; string fields
    with their quotes removed, as the compiled string)."""
    body = _strip_comments(text)
    rows = []
    for m in re.finditer(r"\bCR_FUNCTION\s*\(", body):
        depth, i = 1, m.end()
        while depth:
            if i >= len(body):
                raise RegistryError("unbalanced parentheses in a CR_FUNCTION entry")
            depth += {"(": 1, ")": -1}.get(body[i], 0)
            i += 1
        fields = _split_top(body[m.end():i - 1])
        if len(fields) != len(FIELDS):
            raise RegistryError(f"CR_FUNCTION({fields[0]}, ...) has {len(fields)} fields, "
                                f"expected {len(FIELDS)}: {', '.join(FIELDS)}")
        rows.append(tuple(f[1:-1] if f.startswith('"') else f for f in fields))
    return rows


def _call(text, macro, nargs):
    m = re.fullmatch(rf"{macro}\s*\((.*)\)", text)
    args = _split_top(m.group(1)) if m else []
    if len(args) != nargs:
        raise RegistryError(f"expected {macro}(...) with {nargs} arguments, got {text!r}")
    return args


def _result(token, what):
    if token not in RESULT_BITS:
        raise RegistryError(f"{what}: unknown result {token!r} (one of {', '.join(RESULT_BITS)})")
    return RESULT_BITS[token]


def _c_float(text):
    """A C float literal (-104.0f) as a Python float (it is exactly a float32)."""
    value = float(text.rstrip("fF"))
    if struct.unpack("<f", struct.pack("<f", value))[0] != value:
        raise RegistryError(f"{text} is not a float32 value")
    return value


def _bench_cases(name, text):
    cases = []
    for k, spec in enumerate(s.split() for s in text.split(";")):
        if not spec or spec[0] not in BENCH_KINDS or len(spec) != (3 if spec[0] == "uniform"
                                                                    else 1):
            raise RegistryError(f"{name}: bad benchmark case {' '.join(spec)!r}")
        cases.append((name if k == 0 else f"{name}_{spec[0]}", spec[0], tuple(spec[1:])))
    return cases


def _demo_range(name, text):
    spec = text.split()
    if len(spec) != 3 or spec[0] not in DEMO_KINDS:
        raise RegistryError(f"{name}: bad demo range {text!r}")
    return spec[0], float(spec[1]), float(spec[2])


def parse_row(index, row):
    """A Function from one entry's fields (as parse_def or _ufuncs.registry_rows give)."""
    if len(row) != len(FIELDS):
        raise RegistryError(f"entry {index}: {len(row)} fields, expected {len(FIELDS)}")
    f = dict(zip(FIELDS, row))
    name = f["name"]
    if not re.fullmatch(r"[a-z][a-z0-9_]*", name):
        raise RegistryError(f"bad function name {name!r}")
    specials = {col: _result(tok, f"{name} specials")
                for col, tok in zip(SPECIAL_COLUMNS, _call(f["specials"], "CR_SPECIALS", 5))}
    override = {}
    if f["mpfr_override"] != "none":
        if f["mpfr_override"] not in SPECIAL_INPUTS:
            raise RegistryError(f"{name}: bad mpfr_override {f['mpfr_override']!r}")
        override[SPECIAL_INPUTS[f["mpfr_override"]]] = specials[f["mpfr_override"]]
    saturation = None
    if f["saturation"] != "CR_NO_SATURATION":
        lo, lo_res, hi, hi_res = _call(f["saturation"], "CR_SATURATES", 4)
        saturation = (_c_float(lo), _result(lo_res, name), _c_float(hi), _result(hi_res, name))
    for key in ("baseline", "accuracy"):
        if not re.fullmatch(r"(1/)?np\.\w+" + (r"|scipy\.special\.\w+" if key == "accuracy"
                                               else ""), f[key]):
            raise RegistryError(f"{name}: bad {key} {f[key]!r}")
    return Function(
        index=index, name=name, folder=f["folder"], lanes=f["lanes"], avx2=f["avx2"],
        mpfr=f["mpfr"], reference=f["reference"],
        reference_text=re.sub(r"\b(\w+)\(d\)", r"glibc \1", f["reference"]) + " (double)",
        glibc_ulps=int(f["ulps"]), specials=specials, mpfr_override=override,
        saturation=saturation, bench=_bench_cases(name, f["bench"]), baseline=f["baseline"],
        demo=_demo_range(name, f["demo"]), accuracy=f["accuracy"])


def parse(rows):
    """Functions from registry rows; names must be unique."""
    funcs = tuple(parse_row(i, r) for i, r in enumerate(rows))
    names = [fn.name for fn in funcs]
    if len(set(names)) != len(names):
        raise RegistryError(f"duplicate function names in {names}")
    return funcs


_FUNCTIONS = None


def functions():
    """The registry as compiled into this build, in index order."""
    global _FUNCTIONS
    if _FUNCTIONS is None:
        from . import _ufuncs
        _FUNCTIONS = parse(_ufuncs.registry_rows())
    return _FUNCTIONS


def function(name):
    """The registry entry of one function (KeyError for an unknown name)."""
    for fn in functions():
        if fn.name == name:
            return fn
    raise KeyError(name)
