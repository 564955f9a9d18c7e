"""The package's import structure, read from the source with ast (nothing is imported): the
library (ddblas/ but ddblas/tools/) imports nothing from the tooling, each layer of the library
imports only its own layer and the ones below (docs/architecture.md), the tools use the library
only through its public API, no library module imports `accuracy`, no library module imports
ddblas inside a function, and imports form no cycle.
"""
from __future__ import annotations

import ast
import pathlib

import pytest


PACKAGE = pathlib.Path(__file__).resolve().parent.parent / "ddblas"
# what the tools may import from the library: the package's public names and these modules
PUBLIC_MODULES = {"ddblas", "ddblas.accuracy", "ddblas.dask", "ddblas.eft", "ddblas.introspect"}


def _module_name(path: pathlib.Path, root: pathlib.Path = PACKAGE) -> str:
    parts = path.relative_to(root.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_module(name: str, root: pathlib.Path) -> bool:
    path = root.parent.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


class _Import:
    """One imported module or name: `module` (a ddblas module), `name` (the name taken from it,
    None for a whole module), whether it sits inside a function, and its line."""

    def __init__(self, module: str, name: str | None, in_function: bool, line: int):
        self.module, self.name, self.in_function, self.line = module, name, in_function, line


def _imports(path: pathlib.Path, root: pathlib.Path = PACKAGE) -> list[_Import]:
    """Every import of a ddblas module or name in one file of the package at `root`
    (third-party imports are left out)."""
    here = _module_name(path, root)
    package = here if path.name == "__init__.py" else here.rpartition(".")[0]
    found = []

    def visit(node, in_function):
        for child in ast.iter_child_nodes(node):
            inner = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                      ast.Lambda))
            if isinstance(child, ast.Import):
                found.extend(_Import(a.name, None, in_function, child.lineno)
                             for a in child.names if a.name.split(".")[0] == "ddblas")
            elif isinstance(child, ast.ImportFrom):
                if child.level:
                    base = package.rsplit(".", child.level - 1)[0] if child.level > 1 else package
                    base = base + ("." + child.module if child.module else "")
                else:
                    base = child.module or ""
                if base.split(".")[0] != "ddblas":
                    continue
                for alias in child.names:
                    full = f"{base}.{alias.name}"
                    if _is_module(full, root):
                        found.append(_Import(full, None, in_function, child.lineno))
                    else:
                        found.append(_Import(base, alias.name, in_function, child.lineno))
            visit(child, inner)

    visit(ast.parse(path.read_text()), False)
    return found


def _attribute_uses(path: pathlib.Path) -> list[tuple[str, str, int]]:
    """(bound name, attribute, line) for every `x.attr` in a file."""
    return [(n.value.id, n.attr, n.lineno) for n in ast.walk(ast.parse(path.read_text()))
            if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)]


LIBRARY = {_module_name(p): p for p in PACKAGE.rglob("*.py")
           if "tools" not in p.relative_to(PACKAGE).parts and p.name != "__main__.py"}
TOOLS = {_module_name(p): p for p in (PACKAGE / "tools").glob("*.py")}
ALL = {**LIBRARY, **TOOLS}


def _graph(modules: dict) -> dict[str, set[str]]:
    """Module -> the modules it imports (the package itself, its façade, left out)."""
    return {m: {i.module for i in _imports(p) if i.module in modules and i.module != "ddblas"}
            for m, p in modules.items() if m != "ddblas"}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on_stack, out = {}, {}, [], set(), []

    def connect(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            connect(v)
    return out


# ---- the checker on its own inputs ----

def test_cycles_found():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_imports_resolved(tmp_path):
    root = tmp_path / "ddblas"
    (root / "tools").mkdir(parents=True)
    (root / "blas").mkdir()
    for name in ("__init__.py", "blas/__init__.py", "blas/gemm.py", "tools/__init__.py"):
        (root / name).write_text("")
    (root / "tools" / "x.py").write_text(
        "from ..blas import gemm\nfrom .. import rgemm\nfrom ddblas.accuracy import bound\n"
        "def f():\n    from ..blas.gemm import _plan\n    import cupy\n")
    got = [(i.module, i.name, i.in_function) for i in _imports(root / "tools" / "x.py", root)]
    assert got == [("ddblas.blas.gemm", None, False), ("ddblas", "rgemm", False),
                   ("ddblas.accuracy", "bound", False), ("ddblas.blas.gemm", "_plan", True)]


def test_layers_ranked():
    assert _layer("ddblas.engines.cpu") < _layer("ddblas.core.array") == _layer("ddblas.eft")
    assert _layer("ddblas.core.ops") < _layer("ddblas.blas.gemm") < _layer("ddblas.accuracy")
    assert _layer("ddblas.accuracy") < _layer("ddblas")


# ---- the package ----

def test_library_imports_no_tooling():
    bad = [f"{m}:{i.line} imports {i.module}" for m, p in LIBRARY.items() for i in _imports(p)
           if i.module.startswith("ddblas.tools")]
    assert bad == []


def test_no_library_module_imports_accuracy():
    """The bounds the library needs come from ddblas.core.bounds; accuracy is for users and tools."""
    bad = [f"{m}:{i.line}" for m, p in LIBRARY.items() if m not in ("ddblas", "ddblas.accuracy")
           for i in _imports(p) if i.module == "ddblas.accuracy"
           or (i.module == "ddblas" and i.name == "accuracy")]
    assert bad == []


def test_tools_use_only_the_public_library_api():
    bad = []
    for m, p in TOOLS.items():
        library_names = set()
        for i in _imports(p):
            if i.module.startswith("ddblas.tools"):
                continue
            if i.module not in PUBLIC_MODULES:
                bad.append(f"{m}:{i.line} imports {i.module}")
            elif i.name is not None and i.name.startswith("_") and not i.name.startswith("__"):
                bad.append(f"{m}:{i.line} imports {i.module}.{i.name}")
            else:
                library_names.add(i.name or i.module.rpartition(".")[2])
        bad += [f"{m}:{line} uses {name}.{attr}" for name, attr, line in _attribute_uses(p)
                if name in library_names and attr.startswith("_") and not attr.startswith("__")]
    assert bad == []


def test_no_import_cycle_involving_the_tools():
    assert [c for c in _cycles(_graph(ALL)) if any(m in TOOLS for m in c)] == []


# The library's layers, lowest first (docs/architecture.md): a module imports from its own layer
# and the ones below. ddblas.eft (public) belongs to the DD core; the public modules on top of
# the routines (accuracy, introspect) sit below the package's facade, ddblas/__init__.py.
LAYERS = (("ddblas.engines",), ("ddblas.core", "ddblas.eft"), ("ddblas.blas",), ("ddblas.linalg",),
          ("ddblas.dask",), ("ddblas.accuracy", "ddblas.introspect"))


def _layer(module: str) -> int:
    if module == "ddblas":
        return len(LAYERS)
    for rank, prefixes in enumerate(LAYERS):
        if any(module == p or module.startswith(p + ".") for p in prefixes):
            return rank
    raise AssertionError(f"{module} is in no layer of tests/test_imports.py's LAYERS")


def test_each_layer_imports_only_its_own_and_lower_layers():
    bad = [f"{m}:{i.line} imports {i.module}" for m, p in LIBRARY.items() for i in _imports(p)
           if i.module in LIBRARY and _layer(i.module) > _layer(m)]
    assert bad == []


def test_library_has_no_import_cycle():
    assert _cycles(_graph(LIBRARY)) == []


def test_library_imports_only_at_module_level():
    bad = [f"{m}:{i.line} imports {i.module}" for m, p in LIBRARY.items() for i in _imports(p)
           if i.in_function]
    assert bad == []


def test_the_wheel_lists_every_package():
    """pyproject's explicit package list names every package under ddblas/ (ddblas.linalg was
    missing: an installed ddblas failed at `import ddblas` outside the source tree)."""
    tomllib = pytest.importorskip("tomllib")
    config = tomllib.loads((PACKAGE.parent / "pyproject.toml").read_text())
    listed = set(config["tool"]["setuptools"]["packages"])
    found = {_module_name(init) for init in PACKAGE.rglob("__init__.py")}
    assert found <= listed, f"not in pyproject's packages: {sorted(found - listed)}"
