"""One lane layer (src/c/lanes/) serves both packages: the SIMD intrinsics are wrapped there
and nowhere else, every path's header defines the same operations, and the README documents
each of them."""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LANES = ROOT / "src" / "c" / "lanes"
ISAS = ("scalar", "avx2", "avx512")
# Vector intrinsics; the MXCSR accessors (fp_env.h, order/reference.c) are not lane operations.
INTRINSIC = re.compile(r"\b_mm(?:256|512)?_(?!getcsr|setcsr)\w+\s*\(")
# Present only where the header defines V32_TREE_BLOCKS (README.md, "Optional").
OPTIONAL = {"v32_tree_blocks", "v32_tree_blocks_join", "v32_blocks_shift_of", "v32_blocks_shift"}


def operations(isa):
    """The operations a lane header defines (its own lanes_* helpers left out)."""
    text = (LANES / f"{isa}.h").read_text()
    names = set(re.findall(r"^CR_FN\s+[\w\s*]*?\b(\w+)\s*\(", text, re.M))
    # Operations stamped out by a macro of the header, e.g. LANES_LOAD_TRANSPOSED(v32, ...).
    for macro, body in re.findall(r"#define (LANES_\w+)\(P\b[^)]*\)(.*?)(?:\n\n|\n#undef)",
                                  text, re.S):
        for suffix in re.findall(r"CR_FN\s+[\w\s*]*?\bP##(\w+)\s*\(", body):
            names |= {f"{p}{suffix}" for p in re.findall(rf"^{macro}\((\w+),", text, re.M)}
    return {n for n in names if not n.startswith("lanes_")}


def test_intrinsics_only_in_the_lane_layer():
    users = sorted({p.parent.relative_to(ROOT).as_posix()
                    for p in (ROOT / "src").rglob("*")
                    if p.suffix in (".h", ".c", ".inc", ".cu", ".cuh")
                    and INTRINSIC.search(p.read_text())})
    assert users == ["src/c/lanes"]


def test_every_path_defines_the_same_operations():
    scalar = operations("scalar")
    assert {"v64_add", "v64_fma", "v64i_shl", "v64m_bits", "v32_pairadd",
            "v32_load_transposed", "v64_load_transposed"} <= scalar
    for isa in ("avx2", "avx512"):
        assert operations(isa) - OPTIONAL == scalar, isa
    assert OPTIONAL <= operations("avx512")


def test_readme_documents_every_operation():
    readme = (LANES / "README.md").read_text()
    documented = set(re.findall(r"\b((?:v32|v64|x)[im]?_\w+)", readme))
    missing = []
    for op in set().union(*map(operations, ISAS)):
        generic = re.sub(r"(^|_)v(?:32|64)", r"\1x", op)  # v64i_as_v64 -> xi_as_x
        if op not in documented and generic not in documented:
            missing.append(op)
    assert not missing, sorted(missing)
