"""SGLang's start-up validation per release, derived from the release's code (issue 17).

GENERATED data under ``sgllint/catalog/data/validation/`` (by
``python -m sgllint.catalog._gen_validation``), read lazily, one release at a time:

* ``sglang-<version>.json.gz`` -- the release's manifest: the start-up entry sequence, the
  ServerArgs field defaults, the modules and functions of the start-up call closure (each naming a
  shared AST unit), every rejection site (file:line, message template, stable id, class a/b/c/d and
  why) and every assignment that can overwrite a user-given field.
* ``units-<version>.jsonl.gz`` -- the AST units, shared by all releases: each unit is stored once,
  in the shard of the *newest* release that uses it, so a release's units are all in its own shard
  and the newer ones (the newest release reads one shard).  A header line ``#schema {...}`` (the
  field list per node type) then one ``<id> <json>`` line per unit, sorted by id.

The IR is documented in the module docstring of ``sgllint/catalog/_gen_validation.py``.
Nothing here imports SGLang; this module only reads JSON and builds ``ast`` nodes.
"""

from __future__ import annotations

import ast
import gzip
import hashlib
import json
import re
from functools import lru_cache
from pathlib import Path
from typing import Any, Optional

DATA_DIR = Path(__file__).resolve().parent.parent / "data" / "validation"
UNITS_GLOB = "units-*.jsonl.gz"
FORMAT = 1
CLASSES = ("a", "b", "c", "d")
CLASS_NAMES = {
    "a": "decidable from the arguments (and the release's defaults)",
    "b": "needs model (config.json) and/or GPU facts",
    "c": "needs runtime facts (environment, packages, files, ports)",
    "d": "internal invariant",
}

_STORE_FIELDS = {"Name": ("ctx",), "Attribute": ("ctx",), "Subscript": ("ctx",), "Starred": ("ctx",),
                 "List": ("ctx",), "Tuple": ("ctx",)}
#: fields whose value is an assignment target (Store context)
_TARGET_FIELDS = {
    "Assign": ("targets",), "AugAssign": ("target",), "AnnAssign": ("target",), "For": ("target",),
    "AsyncFor": ("target",), "comprehension": ("target",), "withitem": ("optional_vars",),
    "NamedExpr": ("target",),
}


_KIND_LETTER = {"raise": "r", "assert": "a", "sys.exit": "x", "parser.error": "p", "implicit": "i"}


def stable_id(kind: str, function: str, conds: list[str], message: str) -> str:
    """A check's stable id: the same check keeps it across releases.

    ``sha256(bare function name | path condition | message template)``, no file and no line, so a
    check that moved from ``server_args.py`` into an ``arg_groups`` hook under the same function
    name keeps its id.  ``kind`` gives the first letter (``r`` raise, ``a`` assert, ``x`` sys.exit,
    ``p`` parser.error, ``i`` implicit).  The generator numbers duplicates within a release
    (``-2``, ``-3`` in source order)."""
    bare = function.split(":")[-1].split(".")[-1]
    norm = re.sub(r"\s+", " ", " && ".join(conds))
    h = hashlib.sha256(f"{bare}|{norm}|{message}".encode("utf-8")).hexdigest()[:10]
    return _KIND_LETTER.get(kind, "s") + h


def implicit_site_id(function: str, node: ast.AST) -> str:
    """Id of an implicit rejection the site list cannot enumerate: an exception raised by an
    operation rather than a ``raise`` (``TypeError`` comparing None, ``json.loads`` of a bad
    string, ``ZeroDivisionError``, ``open`` of a missing file).  The evaluator names it by the
    function and the operation's source text, so it is stable across releases like the others."""
    return stable_id("implicit", function, [], ast.unparse(node))


def _const(v: Any) -> Any:
    if isinstance(v, dict):
        if "bytes" in v:
            return bytes.fromhex(v["bytes"])
        if "ellipsis" in v:
            return Ellipsis
        if "complex" in v:
            return complex(*v["complex"])
        if "float" in v:
            return float(v["float"])
    return v


class Decoder:
    """Rebuilds ``ast`` nodes from the generic encoding of one store (its schema)."""

    def __init__(self, schema: dict[str, list[str]]) -> None:
        self.schema = schema

    def decode(self, enc: Any, base: int, ctx: Optional[ast.expr_context] = None) -> Any:
        if isinstance(enc, list) and enc and isinstance(enc[0], str) and enc[0] in self.schema:
            name, line, end = enc[0], enc[1], enc[2]
            cls = getattr(ast, name)
            node = cls()
            targets = _TARGET_FIELDS.get(name, ())
            for fname, val in zip(self.schema[name], enc[3:]):
                if name == "Constant" and fname == "value":
                    node.value = _const(val)
                    continue
                sub_ctx: Optional[ast.expr_context] = None
                if fname in targets:
                    sub_ctx = ast.Store()
                elif name == "Delete":
                    sub_ctx = ast.Del()
                elif name in ("Tuple", "List", "Starred") and ctx is not None:
                    sub_ctx = ctx  # elements of a target tuple are targets
                setattr(node, fname, self.decode(val, base, sub_ctx))
            if name in _STORE_FIELDS:
                node.ctx = ctx if ctx is not None else ast.Load()
            if name == "Constant":
                node.kind = None
            if name in ("FunctionDef", "AsyncFunctionDef", "ClassDef", "Assign", "For", "With",
                        "arg", "AsyncFor", "AsyncWith"):
                if "type_comment" in cls._fields:
                    node.type_comment = None
            if "type_params" in cls._fields:
                node.type_params = []
            if name == "Module":
                node.type_ignores = []
            if line is not None:
                node.lineno = base + line - 1
                node.end_lineno = base + (end if end is not None else line) - 1
                node.col_offset = 0
                node.end_col_offset = 0
            return node
        if isinstance(enc, list):
            return [self.decode(x, base, ctx) for x in enc]
        return enc


class Release:
    """One release's derived start-up validation: ``manifest`` (dict) plus the AST units it names."""

    def __init__(self, manifest: dict, units: dict[str, Any], schema: dict[str, list[str]]) -> None:
        self.manifest = manifest
        self.units = units
        self.decoder = Decoder(schema)
        self._ast: dict[str, Any] = {}
        self._site_index: Optional[dict[str, list[dict]]] = None

    @property
    def version(self) -> str:
        return self.manifest["sglang_version"]

    @property
    def entry(self) -> dict:
        return self.manifest["entry"]

    @property
    def fields(self) -> dict:
        return self.manifest["fields"]

    @property
    def sites(self) -> list[dict]:
        return self.manifest["sites"]

    @property
    def rewrites(self) -> list[dict]:
        return self.manifest["rewrites"]

    @property
    def functions(self) -> dict[str, dict]:
        return self.manifest["functions"]

    @property
    def modules(self) -> dict[str, dict]:
        return self.manifest["modules"]

    def _build(self, key: str, info: dict) -> Any:
        if key not in self._ast:
            self._ast[key] = self.decoder.decode(self.units[info["unit"]], info["line"])
        return self._ast[key]

    def function(self, qualname: str) -> Optional[ast.AST]:
        """The ``FunctionDef`` of ``module:Class.name`` with absolute line numbers, or None."""
        info = self.functions.get(qualname)
        return None if info is None else self._build("f:" + qualname, info)

    def module_body(self, module: str) -> Optional[ast.Module]:
        """A closure module's top level (function bodies emptied: see ``function``), or None."""
        info = self.modules.get(module)
        return None if info is None else self._build("m:" + module, info)

    def module_ast(self, module: str) -> Optional[ast.Module]:
        """The module's whole top level, the way Python runs it on import, with every closure
        function's body filled in (``function``) and the body of every other ``def`` replaced by
        ``...`` (outside the start-up closure: its result is Unknown).  Methods of top-level
        classes likewise.  A fresh tree on each call (callers may transform it)."""
        info = self.modules.get(module)
        if info is None:
            return None
        tree = self.decoder.decode(self.units[info["unit"]], info["line"])

        def fill(body: list, prefix: str) -> None:
            for i, st in enumerate(body):
                if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    f = self.functions.get(f"{module}:{prefix}{st.name}")
                    if f is not None:
                        body[i] = self.decoder.decode(self.units[f["unit"]], f["line"])
                elif isinstance(st, ast.ClassDef) and not prefix:
                    fill(st.body, st.name + ".")

        fill(tree.body, "")
        # every other def (outside the closure; also those under `if _is_cuda:`, `try:` ...): `...`
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not node.body:
                pos = {"lineno": node.lineno, "end_lineno": node.lineno, "col_offset": 0, "end_col_offset": 0}
                node.body = [ast.Expr(ast.Constant(Ellipsis, **pos), **pos)]
        return tree

    def site_at(self, file: str, line: int) -> Optional[dict]:
        """The site whose statement spans ``file:line`` (innermost when nested), or None."""
        if self._site_index is None:
            self._site_index = {}
            for st in self.sites:
                self._site_index.setdefault(st["file"], []).append(st)
        hits = [st for st in self._site_index.get(file, ()) if st["line"] <= line <= st["end_line"]]
        return min(hits, key=lambda st: st["end_line"] - st["line"]) if hits else None

    def coverage(self) -> dict[str, int]:
        """Rejection sites per class (``{"a": n, "b": n, "c": n, "d": n}``)."""
        out = {c: 0 for c in CLASSES}
        for s in self.sites:
            out[s["class"]] += 1
        return out

    def coverage_table(self) -> list[dict]:
        """What ``sgllint sglang-coverage`` starts from, one row per class: how many sites, how many
        on the start-up path the oracle runs (``reach`` startup) and after it (late), and the
        classification reasons by frequency.  Which of them the evaluator can decide is the
        evaluator's to add (``sgllint.semantics.validation``)."""
        rows = []
        for c in CLASSES:
            sites = [s for s in self.sites if s["class"] == c]
            reasons: dict[str, int] = {}
            for s in sites:
                key = s["reason"].split(":")[0]
                reasons[key] = reasons.get(key, 0) + 1
            rows.append({
                "class": c,
                "meaning": CLASS_NAMES[c],
                "sites": len(sites),
                "startup": sum(1 for s in sites if s.get("reach", "startup") == "startup"),
                "late": sum(1 for s in sites if s.get("reach") == "late"),
                "reasons": dict(sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0]))),
            })
        return rows


def read_store(path: Path, wanted: Optional[set[str]] = None) -> tuple[dict[str, list[str]], dict[str, Any]]:
    """``(schema, units)`` of a units store; with ``wanted`` only those ids are parsed."""
    schema: dict[str, list[str]] = {}
    units: dict[str, Any] = {}
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            if line.startswith("#schema "):
                schema = json.loads(line[len("#schema "):])
                continue
            uid, _, body = line.partition(" ")
            if wanted is None or uid in wanted:
                units[uid] = json.loads(body)
    return schema, units


def version_key(version: str) -> tuple:
    return tuple(int(x) if x.isdigit() else x for x in version.split("."))


def available(data_dir: Path = DATA_DIR) -> list[str]:
    """Base versions with derived validation data."""
    return sorted((p.name[len("sglang-"):-len(".json.gz")] for p in data_dir.glob("sglang-*.json.gz")), key=version_key)


def unit_shards(data_dir: Path = DATA_DIR) -> dict[str, Path]:
    """``{version: units-<version>.jsonl.gz}`` in version order."""
    shards = {p.name[len("units-"):-len(".jsonl.gz")]: p for p in data_dir.glob(UNITS_GLOB)}
    return {v: shards[v] for v in sorted(shards, key=version_key)}


def read_manifest(version: str, data_dir: Path = DATA_DIR) -> Optional[dict]:
    path = data_dir / f"sglang-{version}.json.gz"
    if not path.is_file():
        return None
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        return json.load(fh)


def manifest_units(manifest: dict) -> set[str]:
    return {i["unit"] for i in manifest["functions"].values()} | {i["unit"] for i in manifest["modules"].values()}


def pick_version(version: str, data_dir: Path = DATA_DIR) -> tuple[Optional[str], Optional[str]]:
    """``(release with data, note)`` for an SGLang version: itself when it has data (note None);
    a version newer than every release gets the newest one, any other the closest older one, with a
    note saying so (never silence); ``(None, note)`` when nothing applies."""
    have = available(data_dir)
    m = re.match(r"^(\d+(?:\.\d+)*)", version)
    base = m.group(1) if m else version
    if base in have:
        return base, None
    if not have or not m:
        return None, f"no derived SGLang start-up validation for {version}"
    older = [v for v in have if version_key(v) < version_key(base)]
    if not older:
        return None, f"SGLang {version} is older than every release with derived validation ({have[0]})"
    pick = older[-1]
    if pick == have[-1]:
        return pick, f"SGLang {version} is newer than the newest derived validation: using {pick}'s"
    return pick, f"no derived validation for SGLang {version}: using the closest older release, {pick}"


@lru_cache(maxsize=4)
def load(version: str, data_dir: Path = DATA_DIR) -> Optional[Release]:
    """The checked-in derived validation of base version ``version`` (``0.5.23``), or None."""
    manifest = read_manifest(version, data_dir)
    if manifest is None:
        return None
    wanted = manifest_units(manifest)
    schema: dict[str, list[str]] = {}
    units: dict[str, Any] = {}
    for v, path in unit_shards(data_dir).items():
        if version_key(v) < version_key(version):
            continue  # a unit lives in the shard of its newest user: never older than this release
        sch, got = read_store(path, wanted - set(units))
        schema.update(sch)
        units.update(got)
        if len(units) == len(wanted):
            break
    missing = wanted - set(units)
    if missing:
        raise ValueError(f"validation data for {version}: {len(missing)} units missing from {data_dir}")
    return Release(manifest, units, schema)


class ModuleSource:
    """A release's closure modules in the shape a module loader asks for them (h17eval's
    ``Program``): ``find(name) -> (file, ast.Module, is_package) | None``, ``exists(name)``.  A module
    outside the start-up closure is not found (its names are Unknown to the interpreter)."""

    def __init__(self, release: Release) -> None:
        self.release = release
        self._cache: dict[str, Optional[tuple[str, ast.Module, bool]]] = {}

    def find(self, modname: str) -> Optional[tuple[str, ast.Module, bool]]:
        if modname not in self._cache:
            tree = self.release.module_ast(modname)
            file = self.release.modules[modname]["file"] if tree is not None else ""
            self._cache[modname] = None if tree is None else (file, tree, file.endswith("/__init__.py"))
        return self._cache[modname]

    def exists(self, modname: str) -> bool:
        return modname in self.release.modules


_LAST: list[Release] = []


def module_source(version: str, data_dir: Path = DATA_DIR) -> Optional[ModuleSource]:
    """The checked-in closure of base version ``version`` as a module source, or None."""
    rel = load(version, data_dir)
    if rel is None:
        return None
    _LAST[:] = [rel]
    return ModuleSource(rel)


def site_id(file: str, line: int, release: Optional[str] = None) -> Optional[str]:
    """The stable id of the rejection site at ``file:line`` of ``release`` (default: the release
    ``module_source`` last loaded), or None when no listed site spans that line."""
    rel = load(release) if release is not None else (_LAST[0] if _LAST else None)
    hit = rel.site_at(file, line) if rel is not None else None
    return hit["id"] if hit else None
