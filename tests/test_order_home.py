"""The summation orders (docs/contract.md §2) are written once, in src/c/order/order.h.

Every kernel takes the binary counter (push, carries, join), the walks over the blocks of
n's binary expansion and the sequential chain's start from -0 from that header, so that
one statement of each order serves the CPU paths, CUDA and its host emulation. This test
scans the sources for hand-written copies of those patterns and lists them as file:line.

Run as a script to scan other trees, e.g. ``python tests/test_order_home.py /work/main/src``.
"""
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

# Trees scanned, and the homes that may spell the patterns out: the C/CUDA header and the
# Python side's decomposition (reproblas/_order.py, the host half of the CUDA launches).
ROOTS = [REPO / "src" / "c", REPO / "src" / "cuda", REPO / "reproblas", REPO / "repro_runtime"]
HOMES = [REPO / "src" / "c" / "order", REPO / "reproblas" / "_order.py"]
SUFFIXES = {".c", ".h", ".inc", ".cu", ".cuh", ".cpp", ".py"}

_BIT = r"\(?\s*\w+\s*>>\s*\(?\s*\w+\s*\)?\s*\)?\s*&\s*1"  # (i >> j) & 1, i >> j & 1
PATTERNS = {
    # the counter's carry loop: for (; (i >> j) & 1; ++j), while ((ch >> l) & 1) ...
    "binary-counter carry loop": re.compile(
        r"\bfor\s*\([^;]*;\s*" + _BIT + r"\s*;" + r"|\bwhile\s*\(?\s*" + _BIT + r"\s*\)?\s*[:)]"),
    # the join's search for the lowest block: while (!((n >> j) & 1)) ++j;
    "binary-counter join": re.compile(r"\bwhile\s*\(?\s*(?:!|not\s)\s*\(*\s*" + _BIT),
    # the carries as trailing ones: __builtin_ctzll(~g), __ffsll(~i)
    "binary-counter trailing ones": re.compile(r"\b(?:__builtin_ctz\w*|__ffs\w*)\s*\(\s*~"),
    # a walk over the bits of a 64-bit count: for (int b = 62; ...), for (b = 0; b <= 62; ...)
    "binary-expansion walk": re.compile(
        r"\bfor\s*\(\s*(?:int\s+)?\w+\s*=\s*6[23]\s*;|\bfor\s*\([^;]*;\s*\w+\s*<=?\s*6[23]\s*;"),
    # Python's walk over the bits of a count: range(n.bit_length() - 1, -1, -1)
    "binary-expansion walk (Python)": re.compile(r"range\(\s*\w+\.bit_length\(\)\s*-\s*1\s*,\s*-1"),
    # the chain's start: (T)-0.0, T(-0.0), acc = -0.0;
    "sequential chain start": re.compile(
        r"\(\s*T\s*\)\s*-\s*0\.0\b|\bT\s*\(\s*-\s*0\.0\s*\)|=\s*-\s*0\.0\s*;"),
}


def hand_written(roots, homes=()):
    """'file:line: pattern: text' for every match outside `homes` (folders or files)."""
    found = []
    for root in roots:
        for path in sorted(Path(root).rglob("*")):
            if path.suffix not in SUFFIXES or not path.is_file():
                continue
            if any(path == Path(h) or Path(h) in path.parents for h in homes):
                continue
            for no, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
                for name, rx in PATTERNS.items():
                    if rx.search(line):
                        found.append(f"{path}:{no}: {name}: {line.strip()}")
    return found


def test_orders_have_one_home():
    found = hand_written(ROOTS, HOMES)
    assert not found, ("hand-written summation order outside its homes "
                       "(use src/c/order/order.h or reproblas/_order.py):\n" + "\n".join(found))


def test_home_states_each_primitive():
    text = (HOMES[0] / "order.h").read_text()
    for name in ("RB_CHAIN_START", "RB_COUNTER_CARRIES", "RB_COUNTER_PUSH", "RB_COUNTER_JOIN",
                 "rb_counter_carries", "RB_BLOCKS_SMALLEST_FIRST", "RB_BLOCKS_LARGEST_FIRST",
                 "RB_JOIN_BLOCKS", "rb_pairwise_split", "rb_block_items", "RB_TREE_IN_PLACE"):
        assert re.search(r"#define " + name + r"\b|\b" + name + r"\(int64_t", text), name
    assert "docs/contract.md §2" in text


# The hand-written forms the kernels had before order/order.h (one line each), and
# lines that are not the order (a NaN mask, an ISA bit test, an abs mask, a find-first).
OLD_FORMS = [
    "    for (; (i >> j) & 1; ++j) v = stack[j] + v;",
    "    for (; (s >> l) & 1; ++l) v = vadd(stack[l], v);",
    "      for (; (u >> j) & 1; ++j) v = vpairadd(stack[j], v);",
    "    for (; (g >> lv) & 1; ++lv)",
    "            while ((ch >> l) & 1) ++l;",
    "  while (!((n >> j) & 1)) ++j;",
    "      const int carries = __builtin_ctzll(~(unsigned long long)g);",
    "  for (int b = 62; b >= 0; --b) {",
    "  for (int b = 0; b <= 62; ++b)",
    "      for (int b = 0; b < 62; ++b) {",
    "    c[j][v] = first ? vset1((T)-0.0) : vload(acc + j * MR + v * W);",
    "    for (int j = 0; j < TN; ++j) acc[i][j] = T(-0.0); /* see rb_chain */",
    "        T c = -0.0;",
    "    while (i >> j) & 1:",
    "    for b in range(n.bit_length() - 1, -1, -1):",
]
NOT_ORDER = [
    "    if (((isa_mask >> isa) & 1) && (cr_kernel(fn, isa) == NULL))",
    "    if (bits) return i + __builtin_ctz(bits);",
    "CR_FN v32 v32_abs(v32 a) { return _mm256_andnot_ps(_mm256_set1_ps(-0.0f), a); }",
    "  for (int w = 1; w < count; w *= 2)",
    "  RB_COUNTER_PUSH(stack, i, v, RB_PLUS);",
]


def test_scan_finds_the_old_forms(tmp_path):
    (tmp_path / "old.inc").write_text("\n".join(OLD_FORMS) + "\n")
    (tmp_path / "fine.c").write_text("\n".join(NOT_ORDER) + "\n")
    found = hand_written([tmp_path])
    assert [f.split(":")[1] for f in found] == [str(i) for i in range(1, len(OLD_FORMS) + 1)]
    assert all("/old.inc:" in f for f in found)


def test_home_is_excluded_only_there(tmp_path):
    home = tmp_path / "order"
    home.mkdir()
    (home / "order.h").write_text(OLD_FORMS[0] + "\n")
    (tmp_path / "kernel.inc").write_text(OLD_FORMS[0] + "\n")
    found = hand_written([tmp_path], [home])
    assert len(found) == 1 and "kernel.inc:1:" in found[0]


if __name__ == "__main__":
    roots = [Path(p) for p in sys.argv[1:]] or ROOTS
    hits = hand_written(roots, [r / "c" / "order" for r in roots] + HOMES)
    print("\n".join(hits) or "no hand-written order")
    sys.exit(1 if hits else 0)
