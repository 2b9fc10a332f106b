"""Regenerate a coefficient header: python tools/polygen.py <target> [args...]

Targets are discovered, not listed here: every module tools/polygen/<m>.py
(other than core) that defines TARGETS = {"name": function(argv)} adds its
names. `python tools/polygen.py --list` prints them. See docs/polygen.md.
"""
import importlib
import os
import sys

TOOLS = os.path.dirname(os.path.abspath(__file__))
PACKAGE = os.path.join(TOOLS, "polygen")


def discover():
    """{target: (module name, function)} over tools/polygen/*.py."""
    sys.path[:0] = [TOOLS, PACKAGE]  # modules may import `polygen.core` or `core`
    targets = {}
    for fname in sorted(os.listdir(PACKAGE)):
        mod_name, ext = os.path.splitext(fname)
        if ext != ".py" or mod_name in ("__init__", "core") or mod_name.startswith("_"):
            continue
        module = importlib.import_module(f"polygen.{mod_name}")
        for name, fn in getattr(module, "TARGETS", {}).items():
            if name in targets:
                raise SystemExit(f"target {name!r} defined by both {targets[name][0]} and {mod_name}")
            targets[name] = (mod_name, fn)
    return targets


def main(argv):
    targets = discover()
    if len(argv) < 1 or argv[0] in ("-h", "--help", "--list"):
        print(__doc__)
        for name, (mod, _) in sorted(targets.items()):
            print(f"  {name:20s} (tools/polygen/{mod}.py)")
        return 0 if argv else 2
    if argv[0] not in targets:
        print(f"unknown target {argv[0]!r}; known: {', '.join(sorted(targets))}", file=sys.stderr)
        return 2
    # Each target starts from gmpy2's default context, whatever other modules
    # did at import: the regenerated headers must not depend on that.
    import gmpy2
    with gmpy2.context():
        targets[argv[0]][1](argv[1:])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
