"""The type stubs (`__init__.pyi`) against the modules they describe, without mypy: the same
public names, and for each function and class the same parameters (names, kinds, defaults),
so a change to the API that leaves the stubs behind fails here. mypy itself checks the stubs
and tests/typing/usage.py in CI (.ci/run)."""
import ast
import importlib
import inspect
import sys
import types
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MODULES = ["crlibm_py", "reproblas", "reproblas.torch"]
# Public-looking names a module imports for its own use, not part of its API.
NOT_API = {"crlibm_py": {"package_path"}, "reproblas": {"package_path"}}


def _module(name):
    if name == "reproblas.torch":
        pytest.importorskip("torch", reason="reproblas.torch needs PyTorch: pip install "
                                            "-e '.[torch]'")
    return importlib.import_module(name)


def _stub(name):
    path = ROOT / name.replace(".", "/") / "__init__.pyi"
    return ast.parse(path.read_text(), str(path))


def _stub_all(tree):
    for node in tree.body:
        if isinstance(node, ast.Assign) and [t.id for t in node.targets] == ["__all__"]:
            return ast.literal_eval(node.value)
    raise AssertionError("the stub has no __all__")


def _stub_names(tree):
    """Names the stub defines at top level (functions, classes, annotated names)."""
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign):
            names.add(node.target.id)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets)
    return {n for n in names if not n.startswith("_")}


def _stub_functions(body):
    """name -> list of its FunctionDef nodes (several for an overloaded function)."""
    out = {}
    for node in body:
        if isinstance(node, ast.FunctionDef) and not node.name.startswith("_"):
            out.setdefault(node.name, []).append(node)
    return out


def _default(node):
    """A stub default as a value; Ellipsis when the stub writes `...`."""
    return ast.literal_eval(node)


def _stub_params(fn, drop_first):
    """[(name, kind, has_default, default)] of a stub function, as inspect spells kinds."""
    a = fn.args
    P = inspect.Parameter
    positional = a.posonlyargs + a.args
    defaults = [None] * (len(positional) - len(a.defaults)) + list(a.defaults)
    params = []
    for i, (arg, d) in enumerate(zip(positional, defaults)):
        kind = P.POSITIONAL_ONLY if i < len(a.posonlyargs) else P.POSITIONAL_OR_KEYWORD
        params.append((arg.arg, kind, d is not None, None if d is None else _default(d)))
    if a.vararg:
        params.append((a.vararg.arg, P.VAR_POSITIONAL, False, None))
    for arg, d in zip(a.kwonlyargs, a.kw_defaults):
        params.append((arg.arg, P.KEYWORD_ONLY, d is not None, None if d is None else _default(d)))
    if a.kwarg:
        params.append((a.kwarg.arg, P.VAR_KEYWORD, False, None))
    return params[1:] if drop_first else params


def _runtime_params(obj, drop_first):
    params = [(p.name, p.kind, p.default is not p.empty, p.default)
              for p in inspect.signature(obj).parameters.values()]
    return params[1:] if drop_first else params


def _check_function(where, runtime, stub_defs, method=False):
    """method: stub_defs are methods (self or cls first); runtime is then the attribute of
    the class (a plain function with self, or a classmethod already bound)."""
    expected = _runtime_params(runtime, method and not isinstance(runtime, types.MethodType))
    overloaded = len(stub_defs) > 1
    for fn in stub_defs:
        got = _stub_params(fn, method)
        assert [(n, k) for n, k, _, _ in got] == [(n, k) for n, k, _, _ in expected], \
            f"{where}: the stub's parameters {got} differ from the module's {expected}"
        for (name, _, has, value), (_, _, rt_has, rt_value) in zip(got, expected):
            # an overload may leave out a default (`out` given); a written one must be right
            assert has == rt_has or (overloaded and not has), \
                f"{where}: parameter {name}: default in the stub {has}, in the module {rt_has}"
            if has and value is not Ellipsis:
                assert value == rt_value and type(value) is type(rt_value), \
                    f"{where}: parameter {name}: stub default {value!r}, module {rt_value!r}"


@pytest.mark.parametrize("name", MODULES)
def test_stub_names_are_the_module_names(name):
    module, tree = _module(name), _stub(name)
    assert _stub_all(tree) == module.__all__
    public = {n for n in dir(module) if not n.startswith("_")
              and not isinstance(getattr(module, n), types.ModuleType)}
    stray = public - set(module.__all__) - NOT_API.get(name, set())
    assert not stray, f"{name}: public names missing from __all__ (and the stub): {stray}"
    defined = _stub_names(tree)
    assert defined == set(module.__all__), (
        f"{name}: in the module only {set(module.__all__) - defined}, "
        f"in the stub only {defined - set(module.__all__)}")


@pytest.mark.parametrize("name", MODULES)
def test_stub_signatures_are_the_module_signatures(name):
    module, tree = _module(name), _stub(name)
    functions = _stub_functions(tree.body)
    for fname, defs in functions.items():
        _check_function(f"{name}.{fname}", getattr(module, fname), defs)
    classes = [n for n in tree.body if isinstance(n, ast.ClassDef)
               and not n.name.startswith("_")]
    for cls in classes:
        methods = _stub_functions(cls.body) | {
            n.name: [n] for n in cls.body if isinstance(n, ast.FunctionDef)
            and n.name == "__init__"}
        assert "__init__" in methods, f"{name}.{cls.name}: the stub has no __init__"
        for mname, defs in methods.items():
            runtime = getattr(getattr(module, cls.name), mname)
            _check_function(f"{name}.{cls.name}.{mname}", runtime, defs, method=True)
    assert functions or classes


def test_stubs_and_marker_ship_with_the_packages():
    for package in ("crlibm_py", "reproblas"):
        assert (ROOT / package / "py.typed").is_file()
    text = (ROOT / "pyproject.toml").read_text()
    assert '"py.typed"' in text and '"*.pyi"' in text


@pytest.mark.parametrize("part", ["crlibm_usage", "reproblas_usage", "torch_usage"])
def test_typed_usage_runs(part):
    """The file mypy checks is real code: each of its calls runs and its asserts hold."""
    if part == "torch_usage":
        pytest.importorskip("torch", reason="reproblas.torch needs PyTorch: pip install "
                                            "-e '.[torch]'")
    sys.path.insert(0, str(ROOT / "tests" / "typing"))
    try:
        usage = importlib.import_module("usage")
    finally:
        sys.path.pop(0)
    getattr(usage, part)()
