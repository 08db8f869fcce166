"""Derive a release's start-up validation from its source (issue 17).

Usage::

    python -m sgllint.catalog._gen_validation WHEEL_OR_SOURCE_DIR [...] [--out DIR]

For each release (never imported: files are read and handed to :mod:`ast`) this writes
``DIR/sglang-<version>.json.gz`` (the manifest) and merges the release's AST units into the shared
store ``DIR/units-<v>.jsonl.gz`` (each unit in the shard of the newest release using it; units no
manifest in DIR names any more are dropped).  The IR is described
in ``sgllint/catalog/validation/__init__.py`` and this docstring:

* the **start-up call closure**: from the entry steps SGLang's launch runs before it loads a model
  (the oracle harness's stages: ``prepare_server_args`` -> ``ServerArgs.__post_init__``,
  ``ServerArgs.resolve_once`` (0.5.19+), ``ServerArgs.check_server_args``, ``PortArgs.init_new``;
  ``Engine.__init__`` for the engine entry) every SGLang function they reference, transitively:
  module functions, ``from m import f`` (also inside functions), ``self.m()``/``server_args.m()``,
  classes (their ``__init__``/``__post_init__``), decorator registries (model overrides, kernel
  plugins: a registry module imported for its side effects brings its decorated functions);
* every function's AST, serialized generically and shared between releases by content;
* every **rejection site** (``raise``, ``assert``, ``sys.exit``/``exit``, ``parser.error``) of the
  closure with its path condition, message template, stable id and class a/b/c/d;
* every **rewrite**: an assignment that can overwrite a ServerArgs field.

The closure is ``_gen_validation_closure``'s, the sites and rewrites of one function
``_gen_validation_sites``'s, the AST serialization ``_gen_validation_ast``'s; this module builds a
release from them and writes the data.
"""

from __future__ import annotations

import argparse
import ast
import copy
import gzip
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

from sgllint.model.unknown import has_unknown

from ._gen_eval import Project
from ._gen_extract import SERVER_ARGS, GenerationError, collect_fields, jsonable, _MISSING
from ._gen_source import Source, base_version
from ._gen_validation_ast import Encoder, canonical, schema_for, unit_id, unit_types
from ._gen_validation_closure import LATE_MODULES, LATE_ROOTS, RECORD_NAMES, Closure, Program
from ._gen_validation_sites import SiteWalker, classify, expand_locals, local_assigns, read_facts, single_string_assigns
from .validation import stable_id

GENERATOR = "sgllint.catalog._gen_validation"
FORMAT = 1
DATA_DIR = Path(__file__).resolve().parent / "data" / "validation"

#: The stages after the record exists (the oracle harness's STAGES), in SGLang's order.
_RECORD_STAGES = [
    {"call": f"{SERVER_ARGS}:ServerArgs.resolve_once", "self": True, "stage": "resolve_once"},
    {"call": f"{SERVER_ARGS}:ServerArgs.check_server_args", "self": True, "stage": "check_server_args"},
    {"call": f"{SERVER_ARGS}:PortArgs.init_new", "self": False, "stage": "PortArgs.init_new"},
]
_PREPARE = [
    {"call": f"{SERVER_ARGS}:prepare_server_args", "argv": True, "stage": "prepare_server_args"},
    {"call": f"{SERVER_ARGS}:ServerArgs.__post_init__", "self": True, "stage": "prepare_server_args"},
]
#: Entry steps in SGLang's order; a step missing from a release is skipped.
ENTRY = {
    "cli": _PREPARE + _RECORD_STAGES,
    # `sglang serve` (0.5.x's CLI): its own argv checks (--model-type, the model path), then
    # prepare_server_args and the same stages as "cli"
    "serve": [{"call": "sglang.cli.serve:serve", "argv": True, "stage": "sglang serve"}] + _PREPARE + _RECORD_STAGES,
    "engine": [
        {"call": "sglang.srt.entrypoints.engine:Engine.__init__", "kwargs": True, "shallow": True,
         "stage": "Engine.__init__"},
        {"call": f"{SERVER_ARGS}:ServerArgs.__post_init__", "self": True, "stage": "ServerArgs"},
    ] + _RECORD_STAGES,
}

# ---------------------------------------------------------------------------
# Building a release
# ---------------------------------------------------------------------------


@dataclass
class Built:
    manifest: dict
    units: dict[str, Any]
    types: set[str]


def _strip_bodies(tree: ast.Module) -> ast.Module:
    """A module's top level with function bodies emptied (they are function units)."""

    class Strip(ast.NodeTransformer):
        def visit_FunctionDef(self, node):  # noqa: N802
            node.body = []
            return node

        visit_AsyncFunctionDef = visit_FunctionDef

    return Strip().visit(copy.deepcopy(tree))


def _base_line(node: ast.AST) -> int:
    lines = [node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])]
    return min(lines)


def field_defaults(source: Source) -> tuple[str, dict, list[str]]:
    project = Project(source)
    sa = project.module(SERVER_ARGS)
    if sa is None:
        raise GenerationError(f"{source.name}: no sglang/srt/server_args.py")
    era, decls = collect_fields(project, sa)
    out: dict[str, Any] = {}
    unknown: list[str] = []
    for f in decls:
        d = f.default()
        if d is _MISSING:
            out[f.name] = None
            unknown.append(f.name)
        elif has_unknown(d) or (jsonable(d) is None and d is not None):
            out[f.name] = None
            unknown.append(f.name)
        else:
            out[f.name] = jsonable(d)
    return era, out, unknown


def release_version(source: Source) -> str:
    """The full version: ``sglang/version.py``, else ``sglang/_version.py`` or the dist-info name
    (unpacked wheels whose ``version.py`` imports ``_version``)."""
    try:
        return source.version()
    except ValueError:
        pass
    text = source.read("sglang/_version.py") or ""
    m = re.search(r"^(?:__version__|version)\s*(?::[^=]*)?=\s*['\"]([^'\"]+)['\"]", text, re.M)
    if m:
        return m.group(1)
    root = source.path
    for d in sorted(root.glob("sglang-*.dist-info")) if root.is_dir() else []:
        return d.name[len("sglang-"):-len(".dist-info")]
    raise ValueError(f"{source.path}: cannot tell the SGLang version")


def build_release(source: Source) -> Built:
    # long on purpose: the generator's steps for one release in order (closure, sites, rewrites, defaults, coverage),
    # each a call
    full = release_version(source)
    version = base_version(full)
    era, defaults, unknown = field_defaults(source)
    fields = set(defaults)
    prog = Program(source)
    clo = Closure(prog)
    entry: dict[str, list] = {}
    for name, steps in ENTRY.items():
        if prog.function_node(steps[0]["call"]) is None and name != "cli":
            continue  # the release has no such entry (`sglang serve` is 0.5.x only)
        entry[name] = []
        for st in steps:
            if prog.function_node(st["call"]) is not None:
                entry[name].append(dict(st))
                clo.add(st["call"])
    if prog.class_node(SERVER_ARGS, "ServerArgs") is not None:
        clo.add_class(SERVER_ARGS, "ServerArgs")
    clo.run()
    startup = set(clo.functions)
    for r in LATE_ROOTS:
        clo.add(r)
    for name in LATE_MODULES:
        info = prog.module(name)
        if info is not None:
            clo.add_module(info)
    clo.run()

    enc = Encoder()
    units: dict[str, Any] = {}
    functions: dict[str, dict] = {}
    sites: list[dict] = []
    rewrites: list[dict] = []
    pending: list[tuple] = []
    auto: dict[str, str] = {}  # field -> the first rewrite that sets it from model/GPU facts
    for qual in sorted(clo.functions):
        info, _cls, node = clo.functions[qual]
        base = _base_line(node)
        u = enc.encode(node, base)
        uid = unit_id(u)
        units[uid] = u
        reach = "startup" if qual in startup else "late"
        functions[qual] = {"file": info.rel, "line": base, "unit": uid}
        if reach != "startup":
            functions[qual]["reach"] = reach
        w = SiteWalker(qual, fields)
        w.strings = single_string_assigns(node)
        w.block(node.body, [], qual, 0)
        assigns = local_assigns(node)
        params = tuple(a.arg for a in node.args.posonlyargs + node.args.args + node.args.kwonlyargs
                       if a.arg not in ("self", "cls") and a.arg not in RECORD_NAMES)
        per_model = ".model_overrides." in qual.split(":")[0] + "."
        pending += [(s, info, reach, assigns, params, per_model) for s in w.sites]
        for r in w.rewrites:
            n = r.pop("node")
            rewrites.append({"field": r["field"], "file": info.rel, "line": n.lineno, "end_line": n.end_lineno,
                             **{k: r[k] for k in ("function", "how", "condition", "value")}})
            # a field SGLang sets from model/GPU facts: checks reading it need those facts
            kinds = {f.split(":")[0] for f in read_facts(expand_locals(r["conds"] + [r["value"]], assigns), fields)}
            if kinds & {"gpu", "model"} and not kinds & {"runtime"}:
                auto.setdefault(r["field"], f"{info.rel}:{n.lineno}")
    for s, info, reach, assigns, params, per_model in pending:
        cls_, reason, facts = classify(s, fields, assigns, params, per_model, auto)
        sites.append({
            "file": info.rel, "line": s.node.lineno, "end_line": s.node.end_lineno,
            "function": s.function, "kind": s.kind, "exception": s.exception, "message": s.message,
            "condition": " && ".join(s.conds), "class": cls_, "reason": reason, "facts": facts,
            "reach": reach, "_conds": s.conds,
        })
    modules: dict[str, dict] = {}
    for name in sorted(clo.modules):
        info = clo.modules[name]
        # relative to the first statement: a module that only shifted keeps its unit
        mbase = info.tree.body[0].lineno if info.tree.body else 1
        u = enc.encode(_strip_bodies(info.tree), mbase)
        uid = unit_id(u)
        units[uid] = u
        modules[name] = {"file": info.rel, "line": mbase, "unit": uid}
    # stable ids (duplicates within the release numbered in source order)
    sites.sort(key=lambda s: (s["file"], s["line"], s["end_line"], s["function"]))
    seen: dict[str, int] = {}
    for s in sites:
        sid = stable_id(s["kind"], s["function"], s.pop("_conds"), s["message"])
        seen[sid] = seen.get(sid, 0) + 1
        s["id"] = sid if seen[sid] == 1 else f"{sid}-{seen[sid]}"
    sites = [{"id": s.pop("id"), **s} for s in sites]
    rewrites.sort(key=lambda r: (r["file"], r["line"], r["field"]))
    coverage = {c: sum(1 for s in sites if s["class"] == c) for c in "abcd"}
    manifest = {
        "notice": f"GENERATED by `python -m {GENERATOR}` from {source.name} -- DO NOT EDIT. Regenerate instead.",
        "format": FORMAT,
        "generator": GENERATOR,
        "python_ast": f"{sys.version_info[0]}.{sys.version_info[1]}",
        "sglang_version": version,
        "sglang_full_version": full,
        "source": source.name,
        "era": era,
        "entry": entry,
        "fields": defaults,
        "unknown_defaults": unknown,
        "modules": modules,
        "functions": functions,
        "sites": sites,
        "rewrites": rewrites,
        "coverage": coverage,
    }
    return Built(manifest, units, enc.types)


def release(source: Source):
    """The in-process ``validation.Release`` for ``source`` (no checked-in data needed)."""
    from .validation import Release

    b = build_release(source)
    return Release(b.manifest, b.units, schema_for(b.types))


# ---------------------------------------------------------------------------
# Writing
# ---------------------------------------------------------------------------


def _gz_write(path: Path, text: str) -> None:
    # mtime=0 and no file name: byte-identical output for identical input
    with open(path, "wb") as raw:
        with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=9) as gz:
            gz.write(text.encode("utf-8"))


def dump_manifest(manifest: dict) -> str:
    return json.dumps(manifest, ensure_ascii=False, separators=(",", ":")) + "\n"


def write(built: list[Built], out: Path) -> None:
    """Write the manifests of ``built`` and re-shard all units of ``out``: each unit in
    ``units-<v>.jsonl.gz`` of the newest release (manifest in ``out``) using it; units no
    manifest uses are dropped."""
    from .validation import UNITS_GLOB, manifest_units, read_store, unit_shards, version_key

    out.mkdir(parents=True, exist_ok=True)
    units: dict[str, Any] = {}
    for path in unit_shards(out).values():
        units.update(read_store(path)[1])
    for b in built:
        units.update(b.units)
        _gz_write(out / f"sglang-{b.manifest['sglang_version']}.json.gz", dump_manifest(b.manifest))
    newest: dict[str, str] = {}
    for p in out.glob("sglang-*.json.gz"):
        with gzip.open(p, "rt", encoding="utf-8") as fh:
            m = json.load(fh)
        v = m["sglang_version"]
        for uid in manifest_units(m):
            if uid not in newest or version_key(v) > version_key(newest[uid]):
                newest[uid] = v
    shards: dict[str, list[str]] = {}
    for uid, v in newest.items():
        shards.setdefault(v, []).append(uid)
    for old in out.glob(UNITS_GLOB):
        if old.name[len("units-"):-len(".jsonl.gz")] not in shards:
            old.unlink()
    for v, uids in shards.items():
        types: set[str] = set()
        for uid in uids:
            unit_types(units[uid], types)
        header = "#schema " + canonical(schema_for(types))  # only what this shard uses: deterministic
        lines = [header] + [f"{uid} {canonical(units[uid])}" for uid in sorted(uids)]
        _gz_write(out / f"units-{v}.jsonl.gz", "\n".join(lines) + "\n")


def generate_many(sources: list[str], out: Path) -> int:
    """Build every release in ``sources`` and write them (and the shared units) to ``out``;
    0, or 1 when some release failed (reported on stderr, the others still written)."""
    status = 0
    built = []
    for src in sources:
        try:
            b = build_release(Source(src))
        except (GenerationError, ValueError, SyntaxError) as exc:
            print(f"{src}: {exc}", file=sys.stderr)
            status = 1
            continue
        built.append(b)
        m = b.manifest
        print(f"{out}/sglang-{m['sglang_version']}.json.gz: {len(m['functions'])} functions, "
              f"{len(m['modules'])} modules, {len(m['sites'])} sites {m['coverage']}, {len(m['rewrites'])} rewrites")
    write(built, out)
    return status


def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog=f"python -m {GENERATOR}", description=__doc__.split("\n\n")[0])
    ap.add_argument("sources", nargs="+", help="SGLang wheels or unpacked source trees")
    ap.add_argument("--out", default=str(DATA_DIR), help="output directory")
    args = ap.parse_args(argv)
    return generate_many(args.sources, Path(args.out))


if __name__ == "__main__":
    sys.exit(main())
