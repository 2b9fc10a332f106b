"""The Python packages' import graph is acyclic, and no package imports another's
private modules.

Static: every import statement of every module of crlibm_py, reproblas and
repro_runtime is read with ``ast``, function-local ones included (an import inside a
function is still a dependency, and hiding a cycle there is what this forbids),
relative imports resolved. Importing ``a.b.c`` from outside ``a`` also runs ``a`` and
``a.b`` (their __init__), so those are edges too.
"""
import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("crlibm_py", "reproblas", "repro_runtime")


def modules(root, packages=PACKAGES):
    """{module name: path of its .py source, or None for a compiled (Cython) module}."""
    found = {}
    for pkg in packages:
        for path in sorted((Path(root) / pkg).rglob("*")):
            if "__pycache__" in path.parts or path.suffix not in (".py", ".pyx"):
                continue
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path if path.suffix == ".py" else None
    return found


def _ancestors(name):
    parts = name.split(".")
    return {".".join(parts[:i]) for i in range(1, len(parts))}


def imports(name, path, known):
    """The modules of `known` that module `name` (at `path`) imports."""
    tree = ast.parse(path.read_text(), str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    targets = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - (node.level - 1)]
                base = ".".join(base + ([node.module] if node.module else []))
            else:
                base = node.module
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                targets.add(sub if sub in known else base)
    edges = set()
    for t in targets:
        if t not in known:
            continue  # the standard library, NumPy, ...
        edges.add(t)
        # parents that are not already being imported around this module
        edges.update(a for a in _ancestors(t) - _ancestors(name) if a in known)
    edges.discard(name)
    return edges


def import_graph(root=ROOT, packages=PACKAGES):
    known = modules(root, packages)
    return {name: (imports(name, path, known) if path else set())
            for name, path in known.items()}


def find_cycle(graph):
    """One import cycle as [m0, m1, ..., m0], or None."""
    state, stack = {}, []

    def visit(m):
        state[m] = "open"
        stack.append(m)
        for t in sorted(graph.get(m, ())):
            if state.get(t) == "open":
                return stack[stack.index(t):] + [t]
            if t not in state:
                cycle = visit(t)
                if cycle:
                    return cycle
        stack.pop()
        state[m] = "done"
        return None

    for m in sorted(graph):
        if m not in state:
            cycle = visit(m)
            if cycle:
                return cycle
    return None


def private_imports(graph):
    """(importer, module) pairs where a module imports another package's private
    module (a name part after the package that starts with '_')."""
    return sorted((m, t) for m, targets in graph.items() for t in targets
                  if t.split(".")[0] != m.split(".")[0]
                  and any(p.startswith("_") for p in t.split(".")[1:]))


def test_the_checker_sees_cycles_and_private_imports(tmp_path):
    """A cycle closed by a function-local relative import, and a cross-package
    import of a private module, in a throwaway tree."""
    files = {
        "pa/__init__.py": "",
        "pa/_x.py": "from . import _y\n",
        "pa/_y.py": "def f():\n    from ._x import g\n",
        "pa/sub/__init__.py": "from .. import _y\nimport os\n",
        "pb/__init__.py": "from pa._x import g\nimport pa.sub\n",
        "pb/_ext.pyx": "import numpy as np\n",
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    graph = import_graph(tmp_path, ("pa", "pb"))
    assert graph["pa.sub"] == {"pa._y"}
    assert graph["pb"] == {"pa._x", "pa", "pa.sub"}
    assert graph["pb._ext"] == set()
    assert find_cycle(graph) == ["pa._x", "pa._y", "pa._x"]
    assert private_imports(graph) == [("pb", "pa._x")]
    del graph["pa._y"]
    assert find_cycle(graph) is None


def test_graph_is_read():
    graph = import_graph()
    assert "reproblas._core" in graph and "crlibm_py._ufuncs" in graph  # compiled modules
    assert "reproblas._level23" in graph["reproblas"]
    assert "crlibm_py._api" in graph["crlibm_py"]


def test_import_graph_is_acyclic():
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_no_private_module_of_another_package_is_imported():
    assert private_imports(import_graph()) == []
