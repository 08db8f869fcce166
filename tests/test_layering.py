"""The layout of issue 16, checked from the source with `ast` so it cannot regress.

Every import of sgllint code (module level or inside a function) must go downward in LAYERS;
the module graph has no cycle; every package ships in the wheel. A violation the mechanical
move could not remove is listed in ALLOWED with the issue-16 item that removes it: that list
may only shrink, and an entry that no longer occurs fails the test too.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent

#: layer -> the layers it may import (itself included); hosts import anything
LAYERS: dict[str, set[str]] = {
    "model": {"model"},
    "formats": {"model", "formats"},
    "catalog": {"model", "catalog"},
    "resolve": {"model", "catalog", "resolve"},
    "semantics": {"model", "catalog", "resolve", "semantics"},
    "rules": {"model", "catalog", "resolve", "semantics", "rules"},
    "engine": {"model", "formats", "catalog", "resolve", "semantics", "rules", "engine"},
    "output": {"model", "output"},
    "hosts": {"model", "formats", "catalog", "resolve", "semantics", "rules", "engine", "output", "hosts"},
}

#: modules at the package root: `sgllint` holds the version only (importable from anywhere);
#: `__main__` and the rule-author kit `testing` are hosts
ROOT_MODULES = {"sgllint": "root", "sgllint.__main__": "hosts", "sgllint.testing": "hosts"}

#: (importer, imported) edges that break LAYERS today, each with the item of issue 16 that removes
#: it. Only shrinks.
ALLOWED: dict[tuple[str, str], str] = {}

#: import cycles known today, each as the sorted tuple of its modules. Only shrinks.
ALLOWED_CYCLES: dict[tuple[str, ...], str] = {}


def _modules() -> dict[str, Path]:
    mods = {}
    for p in sorted((ROOT / "sgllint").rglob("*.py")):
        parts = p.relative_to(ROOT).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        mods[".".join(parts)] = p
    for p in sorted((ROOT / "rules").glob("*.py")):
        mods[f"sgllint.rules.{p.stem}"] = p
    return mods


MODULES = _modules()


def layer(module: str) -> str:
    if module in ROOT_MODULES:
        return ROOT_MODULES[module]
    top = module.split(".")[1]
    assert top in LAYERS, f"{module}: sgllint/{top} is in no layer of LAYERS (tests/test_layering.py)"
    return top


def _imports(module: str, path: Path) -> set[str]:
    """The sgllint modules ``module`` imports, anywhere in its body."""
    is_pkg = path.name == "__init__.py"
    package = module if is_pkg else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1] + ([base] if base else []))
            # `from P import m` imports the module P.m when there is one, else names of P
            names = [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in node.names]
        else:
            continue
        for name in names:
            if name.split(".")[0] != "sgllint":
                continue
            while name not in MODULES and "." in name:  # `import sgllint.a.b` of a package's name
                name = name.rpartition(".")[0]
            if name != module:
                found.add(name)
    return found


GRAPH = {m: _imports(m, p) for m, p in MODULES.items()}


def test_every_module_is_in_a_layer():
    assert {layer(m) for m in MODULES} <= set(LAYERS) | {"root"}


def test_imports_go_only_downward():
    bad = set()
    for module, deps in GRAPH.items():
        src = layer(module)
        for dep in deps:
            dst = layer(dep)
            if dst != "root" and src != "root" and dst not in LAYERS[src]:
                bad.add((module, dep))
            elif src == "root" and dep != module:
                bad.add((module, dep))  # the root module imports nothing
    assert sorted(bad - set(ALLOWED)) == [], "imports against the layering (see README: Layout)"
    assert sorted(set(ALLOWED) - bad) == [], "fixed: remove these from ALLOWED"


def _cycles() -> set[tuple[str, ...]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: set[tuple[str, ...]] = set()

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(GRAPH.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.add(tuple(sorted(comp)))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    for v in sorted(GRAPH):
        if v not in index:
            visit(v)
    return out


def test_no_import_cycle():
    cycles = _cycles()
    assert sorted(cycles - set(ALLOWED_CYCLES)) == []
    assert sorted(set(ALLOWED_CYCLES) - cycles) == [], "fixed: remove these from ALLOWED_CYCLES"


#: modules allowed over `MAX_MODULE_LINES` today, with their length then. Only shrinks:
#: the derived-validation evaluator (issue 17) is being reworked by its own branch.
LONG_MODULES: dict[str, int] = {
}
MAX_MODULE_LINES = 700  # issue 16: "no module over 700 lines outside generated data"


def test_no_module_over_the_line_limit():
    lengths = {name: len(path.read_text(encoding="utf-8").splitlines()) for name, path in _modules().items()}
    too_long = {n: k for n, k in lengths.items() if k > MAX_MODULE_LINES and k > LONG_MODULES.get(n, 0)}
    assert too_long == {}
    assert sorted(n for n in LONG_MODULES if lengths.get(n, 0) <= MAX_MODULE_LINES) == [], "fixed: remove from LONG_MODULES"


def test_the_graph_sees_imports():
    """The scan itself can fail: known edges of each kind are found."""
    assert "sgllint.model.facts" in GRAPH["sgllint.formats.shell.extractor"]  # from M import names
    assert "sgllint.semantics.effective" in GRAPH["sgllint.rules.sgl231_chunked_prefill_not_multiple_of_page_size"]
    assert "sgllint.catalog.types" in GRAPH["sgllint.catalog.wrappers"]  # relative import
    assert "sgllint.resolve.sglang_config" in GRAPH["sgllint.engine.pipeline"]  # inside a function


@pytest.mark.parametrize("bad", ["sgllint.engine.pipeline", "sgllint.hosts.cli", "sgllint.output.full"])
def test_an_upward_import_is_reported(bad):
    saved = GRAPH["sgllint.model.facts"]
    GRAPH["sgllint.model.facts"] = saved | {bad}
    try:
        with pytest.raises(AssertionError, match="layering"):
            test_imports_go_only_downward()
    finally:
        GRAPH["sgllint.model.facts"] = saved


#: where a rule code may be written as a string outside rules/: the declaration of the
#: engine's own codes (SGL002, SGL003, SGL999)
ENGINE_CODES_MODULE = "sgllint.model.rule"
_CODE = re.compile(r"SGL\d{3}")


def _code_literals(path: Path) -> list[str]:
    """String constants that are a rule code, docstrings excepted."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        f"{path.relative_to(ROOT)}:{n.lineno}: {n.value!r}"
        for n in ast.walk(tree)
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and _CODE.fullmatch(n.value) and id(n) not in docstrings
    ]


def test_rule_codes_are_written_only_in_rules_and_the_engine_code_declaration():
    """Rule identity lives in rules/: the semantics layer returns typed
    verdicts (e.g. `deterministic.Rejection`) that rules turn into their own
    codes, and hosts name the engine codes by their declaration."""
    found = [
        hit
        for module, path in MODULES.items()
        if not module.startswith("sgllint.rules.") and module != ENGINE_CODES_MODULE
        for hit in _code_literals(path)
    ]
    assert found == []
    assert _code_literals(MODULES[ENGINE_CODES_MODULE])  # the scan sees the declared ones


def test_every_package_ships():
    """pyproject lists packages explicitly (rules/ is mapped to sgllint.rules): a new package
    directory must be added there, or the wheel silently lacks it."""
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["packages"])
    on_disk = {m for m, p in MODULES.items() if p.name == "__init__.py"} | {"sgllint.rules"}
    assert listed == on_disk


def test_readme_layout_table_names_every_layer():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## Layout"):]
    rows = set(re.findall(r"^\| `(?:sgllint/)?(\w+)/` \|", section, re.M))
    assert rows == set(LAYERS)


MAX_FUNCTION_LINES = 60  # issue 16: "no function over ~60 lines without a reason in a comment"


def test_a_long_function_says_why():
    """A function over the limit carries a ``# long on purpose: <why>`` (or
    ``lines on purpose``) comment among its first lines."""
    unexplained = []
    for name, path in _modules().items():
        lines = path.read_text(encoding="utf-8").splitlines()
        for node in ast.walk(ast.parse("\n".join(lines))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and \
                    node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES:
                head = "\n".join(lines[node.lineno - 1:node.body[0].end_lineno + 4])
                if "on purpose" not in head:
                    unexplained.append(f"{name}.{node.name} ({node.end_lineno - node.lineno + 1} lines)")
    assert not unexplained, unexplained
