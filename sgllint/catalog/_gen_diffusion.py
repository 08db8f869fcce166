"""Generate SGLang's diffusion (``multimodal_gen``) parsers and routing, per release.

Usage::

    python -m sgllint.catalog._gen_diffusion WHEEL [...] [--out DIR]

(also reached through ``python -m sgllint.catalog.generate WHEEL``).  A WHEEL
is an SGLang wheel; releases without ``sglang/multimodal_gen`` (before 0.5.5)
are skipped.  Nothing is imported: the wheel is read with :mod:`ast` through
the recorder of :mod:`._gen_argparse`.  One file per release is written,
``data/diffusion/sglang-<version>.json`` (help texts in ``help.json``
beside them); `sgllint.catalog.diffusion` reads them.

What a file holds:

* ``parsers``: the options of ``add_multimodal_gen_serve_args`` (``sglang
  serve`` of a diffusion model) and ``add_multimodal_gen_generate_args``
  (``sglang generate``): ``--config`` plus multimodal_gen's own
  ``ServerArgs.add_cli_args`` (and, for generate, ``SamplingParams``'), in
  registration order, in the item shape of the wrapper data;
* ``commands``: per subcommand, how ``sglang/cli/<cmd>.py`` parses
  (``parse_known`` or ``parse``, file and line) and what happens to the words
  the parser leaves (``leftovers``): ``ignored``, or the ``extractors``
  ``ServerArgs.from_cli_args`` runs over them in order (dynamic
  ``--<component>-path``-style flags) and whether anything still left is
  refused (``reject_rest``);
* ``pipeline_options``: flags a pipeline's config adds when it is selected
  (``add_pipeline_cli_args``), by pipeline name;
* ``routing``: how ``sglang serve`` picks the diffusion server: the CLI's
  subcommands, the ``--model-type`` override and its values, whether a
  leading bare word becomes ``--model-path``, the flags the model path and
  the pipeline are read from, the ``model_index.json`` rule (file names, the
  key that must be present), the Hugging Face ``library_name`` rule, the
  registry function and the matching it does, and the registry's data: the
  registered Hugging Face ids, the non-diffusers name patterns and the
  pipeline names.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from pathlib import Path
from typing import Any, Optional

from ._gen_argparse import ParserObj, _Recorder, find_function
from sgllint.model.unknown import has_unknown

from ._gen_eval import ClassObj, FuncObj, _Env
from ._gen_extract import GenerationError
from ._gen_source import Source, base_version
from ._gen_wrappers import _Collector, load_help_table, parser_lines, prune_help_table

GENERATOR = "sgllint.catalog._gen_diffusion"
HELP_TABLE = "help.json"
MM = "sglang.multimodal_gen"
#: subcommand -> (module, function adding its options)
_PARSER_FUNCS = {
    "serve": (f"{MM}.runtime.entrypoints.cli.serve", "add_multimodal_gen_serve_args"),
    "generate": (f"{MM}.runtime.entrypoints.cli.generate", "add_multimodal_gen_generate_args"),
}
_SERVER_ARGS_MODULE = f"{MM}.runtime.server_args"
_ARGPARSE_ACTIONS = frozenset(
    {"store", "store_true", "store_false", "store_const", "append", "count", "help", "version", "boolean_optional"}
)


def has_multimodal_gen(source: Source) -> bool:
    return source.exists("sglang/multimodal_gen/registry.py")


def _walk(source: Source, prefix: str) -> list[str]:
    """Every ``.py`` file below ``prefix`` (relative paths, sorted)."""
    prefix = prefix.rstrip("/") + "/"
    if source._zip is not None:
        names = source._names
    else:
        root = source._root
        names = {str(p.relative_to(root)) for p in (root / prefix).rglob("*.py")} if root else set()
    return sorted(n for n in names if n.startswith(prefix) and n.endswith(".py"))


def _tree(source: Source, rel: str) -> Optional[ast.Module]:
    text = source.read(rel)
    return ast.parse(text) if text is not None else None


def _str_consts(node: ast.AST) -> list[str]:
    return [n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)]


def _function(tree: Optional[ast.Module], name: str) -> Optional[ast.FunctionDef]:
    if tree is None:
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return node
    return None


# ---------------------------------------------------------------------------
# Parsers
# ---------------------------------------------------------------------------


def _action_facts(rec: _Recorder, cls: ClassObj) -> dict:
    """What a local ``argparse.Action`` subclass does with its words, from its
    ``__init__`` (``nargs``/``const`` handed to ``super().__init__``) and
    ``__call__`` (``values.lower() == "true"`` tests; an unconditional raise)."""
    facts: dict[str, Any] = {}
    env = cls.env()
    init, call = env.get("__init__"), env.get("__call__")
    if isinstance(init, FuncObj):
        for node in ast.walk(init.node):
            if isinstance(node, ast.Call) and ast.unparse(node.func).endswith("__init__"):
                for kw in node.keywords:
                    if kw.arg in ("nargs", "const") and isinstance(kw.value, ast.Constant):
                        facts[kw.arg] = kw.value.value
    if isinstance(call, FuncObj):
        body = call.node.body
        words = []
        for node in ast.walk(call.node):
            if (
                isinstance(node, ast.Compare)
                and "lower()" in ast.unparse(node.left)
                and isinstance(node.comparators[0], ast.Constant)
            ):
                words.append(node.comparators[0].value)
        if words:
            facts["accepts"] = words
            facts["accepts_case"] = "lower"
        if len(body) == 1 and isinstance(body[0], ast.Raise) and isinstance(body[0].exc, ast.Call):
            facts["raises"] = ast.unparse(body[0].exc.func)
    return facts


def _record_parser(source: Source, rec: _Recorder, module: str, function: str) -> Optional[ParserObj]:
    func = find_function(rec, module, function)
    if func is None:
        return None
    parser = ParserObj(len(rec.parsers), func.module.rel, func.node.lineno)
    rec.parsers.append(parser)
    rec.current_file = func.module.rel
    rec.call_function(func, [parser], {})
    return parser


def _custom_actions(rec: _Recorder, parser: ParserObj) -> None:
    """Add `_action_facts` to options whose action is a local class."""
    for item in parser.items:
        if "strings" not in item or item["action"] in _ARGPARSE_ACTIONS:
            continue
        cls = _find_class(rec, item["action"], item.get("file", ""))
        if cls is None:
            continue
        facts = _action_facts(rec, cls)
        if "nargs" in facts:
            item["nargs"] = facts["nargs"]
        if "const" in facts:
            item["const"] = facts["const"]
        for key in ("accepts", "accepts_case", "raises"):
            if key in facts:
                item[key] = facts[key]


def _find_class(rec: _Recorder, name: str, rel_file: str) -> Optional[ClassObj]:
    module_name = rel_file[:-3].replace("/", ".").removesuffix(".__init__")
    mod = rec.module(module_name) if module_name else None
    if mod is None:
        return None
    val = mod.get(name)
    return val if isinstance(val, ClassObj) else None


# ---------------------------------------------------------------------------
# Parse stage and leftovers
# ---------------------------------------------------------------------------


def _inside_help_branch(tree: ast.Module, target: ast.AST) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "--help" in _str_consts(node.test):
            if any(n is target for stmt in node.body for n in ast.walk(stmt)):
                return True
    return False


def _parse_call(source: Source, command: str) -> Optional[dict]:
    """The ``parser.parse_known_args``/``parse_args`` of ``sglang/cli/<command>.py``
    that runs for a diffusion model (the ``--help`` branch left out)."""
    rel = f"sglang/cli/{command}.py"
    tree = _tree(source, rel)
    if tree is None:
        return None
    found = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("parse_known_args", "parse_args")
            and not _inside_help_branch(tree, node)
        ):
            found.append(node)
    if len(found) != 1:
        raise GenerationError(f"{rel}: expected one diffusion parse call, found {len(found)}")
    call = found[0]
    return {"kind": "parse_known" if call.func.attr == "parse_known_args" else "parse", "file": rel, "line": call.lineno}


def _server_args_class(rec: _Recorder) -> ClassObj:
    mod = rec.module(_SERVER_ARGS_MODULE)
    cls = mod.get("ServerArgs") if mod is not None else None
    if not isinstance(cls, ClassObj):
        raise GenerationError(f"{_SERVER_ARGS_MODULE}.ServerArgs not found")
    return cls


def _extractor(rec: _Recorder, cls: ClassObj, name: str) -> dict:
    """One ``cls._extract_<x>(remaining)`` of ``from_cli_args``: the flag
    prefixes and alias suffix it claims and how it takes values."""
    func = cls.env().get(name)
    if not isinstance(func, FuncObj):
        raise GenerationError(f"ServerArgs.{name} not found")
    node = func.node
    out: dict[str, Any] = {"method": name, "line": node.lineno, "file": func.module.rel}
    delegate = next(
        (c for c in ast.walk(node) if isinstance(c, ast.Call) and ast.unparse(c.func).startswith("cls._extract_")),
        None,
    )
    if delegate is not None:
        kwargs = {k.arg: k.value for k in delegate.keywords}
        prefixes = ast.literal_eval(kwargs["option_prefixes"]) if "option_prefixes" in kwargs else ()
        suffix = ast.literal_eval(kwargs["alias_suffix"]) if "alias_suffix" in kwargs else None
        out.update(kind="map", prefixes=list(prefixes), alias_suffix=suffix, via=ast.unparse(delegate.func))
        return out
    prefixes, suffix = [], None
    for c in ast.walk(node):
        if isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute) and c.args and isinstance(c.args[0], ast.Constant):
            value = c.args[0].value
            if c.func.attr == "startswith" and isinstance(value, str) and value.startswith("--") and len(value) > 2:
                prefixes.append(value)
            elif c.func.attr == "endswith" and isinstance(value, str):
                suffix = value
        if isinstance(c, (ast.Tuple, ast.List)) and len(c.elts) > 1 and all(isinstance(e, ast.Constant) and isinstance(e.value, str) and e.value.startswith("--") for e in c.elts):
            prefixes.extend(e.value for e in c.elts)
    consts = _str_consts(node)
    if "true" in consts and "false" in consts:
        kind = "bool"
    elif any(isinstance(w, ast.While) for loop in ast.walk(node) if isinstance(loop, ast.While) for w in ast.walk(ast.Module(body=loop.body, type_ignores=[]))):
        kind = "multi"
    else:
        kind = "map"
    if not prefixes and suffix is None:
        raise GenerationError(f"ServerArgs.{name}: no flag prefix found")
    out.update(kind=kind, prefixes=sorted(set(prefixes), key=prefixes.index), alias_suffix=suffix)
    return out


def leftovers(rec: _Recorder) -> dict:
    """What ``ServerArgs.from_cli_args`` does with the words the parser left."""
    cls = _server_args_class(rec)
    func = cls.env().get("from_cli_args")
    if not isinstance(func, FuncObj):
        raise GenerationError("ServerArgs.from_cli_args not found")
    extractors, reject = [], None
    for node in ast.walk(func.node):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr.startswith("_extract_"):
            extractors.append((node.lineno, node.func.attr))
        if isinstance(node, ast.Raise) and "unrecognized arguments" in " ".join(_str_consts(node)):
            reject = node.lineno
    extractors.sort()
    return {
        "file": func.module.rel,
        "line": func.node.lineno,
        "extractors": [_extractor(rec, cls, name) for _, name in extractors],
        "reject_rest": reject is not None,
        "reject_line": reject,
    }


# ---------------------------------------------------------------------------
# Routing
# ---------------------------------------------------------------------------


def _subcommands(source: Source) -> list[str]:
    tree = _tree(source, "sglang/cli/main.py")
    out = []
    for node in ast.walk(tree) if tree else ():
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "add_parser":
            if node.args and isinstance(node.args[0], ast.Constant):
                out.append(node.args[0].value)
    return out


def _model_type(source: Source) -> Optional[dict]:
    """``--model-type`` is cut out of argv by ``sglang/cli/serve.py``; its values:
    a literal tuple (0.5.10-0.5.17) or the backend registry's names plus "auto"."""
    rel = "sglang/cli/serve.py"
    tree = _tree(source, rel)
    if tree is None or "--model-type" not in _str_consts(tree):
        return None
    values: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare) and isinstance(node.ops[0], ast.NotIn) and isinstance(node.comparators[0], ast.Tuple):
            consts = [e.value for e in node.comparators[0].elts if isinstance(e, ast.Constant)]
            if "auto" in consts:
                values = consts
    if not values:
        for node in ast.walk(tree):
            if isinstance(node, ast.Dict) and node.values and all(
                isinstance(v, ast.Call) and ast.unparse(v.func).endswith("ServeBackend") for v in node.values
            ):
                values = ["auto"] + [k.value for k in node.keys if isinstance(k, ast.Constant)]
    line = next(n.lineno for n in ast.walk(tree) if isinstance(n, ast.Constant) and n.value == "--model-type")
    return {"strings": ["--model-type"], "values": values, "file": rel, "line": line}


def _positional_model_path(source: Source) -> bool:
    tree = _tree(source, "sglang/cli/serve.py")
    for node in ast.walk(tree) if tree else ():
        if isinstance(node, ast.FunctionDef) and "--model-path" in _str_consts(node):
            if any("[0].startswith" in ast.unparse(n) for n in ast.walk(node) if isinstance(n, ast.Call)):
                return True
    return False


def _flag_literals(func: Optional[ast.FunctionDef]) -> list[str]:
    out: list[str] = []
    for node in ast.walk(func) if func else ():
        if isinstance(node, ast.Compare) and len(node.ops) == 1:
            right = node.comparators[0]
            elts = right.elts if isinstance(right, (ast.Tuple, ast.List)) else [right]
            for e in elts:
                if isinstance(e, ast.Constant) and isinstance(e.value, str) and e.value.startswith("--") and e.value not in out:
                    out.append(e.value)
    return out


def _pipeline_flags(func: Optional[ast.FunctionDef]) -> list[str]:
    """``pipeline_flags = ("--pipeline", "--pipeline-class-name")`` of
    ``get_pipeline_class_name`` (its ``--config`` fallback is told apart)."""
    for node in ast.walk(func) if func else ():
        if (
            isinstance(node, ast.Assign)
            and any(isinstance(t, ast.Name) and "flag" in t.id for t in node.targets)
            and isinstance(node.value, (ast.Tuple, ast.List))
        ):
            return [e.value for e in node.value.elts if isinstance(e, ast.Constant)]
    return [f for f in _flag_literals(func) if f != "--config"]


def _registry_match(source: Source, func_name: Optional[str]) -> list[str]:
    """The matching steps of the registry function ``sglang/cli/utils.py`` calls."""
    tree = _tree(source, "sglang/multimodal_gen/registry.py")
    seen, steps = set(), []
    todo = [func_name] if func_name else []
    while todo:
        name = todo.pop(0)
        if name in seen:
            continue
        seen.add(name)
        func = _function(tree, name)
        if func is None:
            continue
        text = ast.unparse(func)
        for step, marker in (("exact", "in _MODEL_HF_PATH_TO_NAME"), ("short_name", "get_model_short_name"),
                             ("hf_cache", "models--"), ("patterns", "KNOWN_NON_DIFFUSERS_DIFFUSION_MODEL_PATTERNS")):
            if marker in text and step not in steps:
                steps.append(step)
        for call in ast.walk(func):
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Name):
                todo.append(call.func.id)
    return steps


def _hf_paths(rec: _Recorder, source: Source) -> tuple[list[str], int]:
    """Every ``hf_model_paths=[...]`` of ``register_configs``/``register_pipeline``
    calls in multimodal_gen (evaluated in its module); (paths, calls left unread)."""
    paths: list[str] = []
    unread = 0
    for rel in _walk(source, "sglang/multimodal_gen"):
        if "/test/" in rel:
            continue
        text = source.read(rel) or ""
        if "hf_model_paths=" not in text:
            continue
        module = rec.module(rel[:-3].replace("/", ".").removesuffix(".__init__"))
        for node in ast.walk(module.tree):
            if not (isinstance(node, ast.Call) and ast.unparse(node.func).rsplit(".", 1)[-1] in ("register_configs", "register_pipeline")):
                continue
            kw = next((k.value for k in node.keywords if k.arg == "hf_model_paths"), None)
            if kw is None:
                continue
            value = rec.evaluate(kw, _Env(module, dict(module.env())))
            if isinstance(value, (list, tuple)) and not has_unknown(value):
                paths.extend(v for v in value if isinstance(v, str) and v not in paths)
            else:
                unread += 1
    return paths, unread


def _patterns(rec: _Recorder) -> dict:
    for module_name in (f"{MM}.registry", "sglang.utils"):
        mod = rec.module(module_name)
        if mod is None or "KNOWN_NON_DIFFUSERS_DIFFUSION_MODEL_PATTERNS" not in mod.env():
            continue
        val = mod.get("KNOWN_NON_DIFFUSERS_DIFFUSION_MODEL_PATTERNS")
        if isinstance(val, dict) and not has_unknown(val):
            return {"from": mod.rel, "patterns": dict(val)}
    return {"from": None, "patterns": {}}


def _pipeline_names(source: Source) -> list[str]:
    names: list[str] = []
    for rel in _walk(source, "sglang/multimodal_gen/runtime"):
        if "/pipelines" not in rel:
            continue
        tree = _tree(source, rel)
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                for stmt in node.body:
                    if (
                        isinstance(stmt, ast.Assign)
                        and any(isinstance(t, ast.Name) and t.id == "pipeline_name" for t in stmt.targets)
                        and isinstance(stmt.value, ast.Constant)
                        and isinstance(stmt.value.value, str)
                        and stmt.value.value not in names
                    ):
                        names.append(stmt.value.value)
    return sorted(names)


def routing(rec: _Recorder, source: Source) -> dict:
    utils = _tree(source, "sglang/cli/utils.py")
    registry_func, requires_diffusers = None, False
    for func in ast.walk(utils) if utils else ():
        if not isinstance(func, ast.FunctionDef):
            continue
        for node in ast.walk(func):
            if isinstance(node, ast.ImportFrom) and node.module == f"{MM}.registry":
                for alias in node.names:
                    if alias.name.endswith("diffusion_model_path"):
                        registry_func = alias.name
                        requires_diffusers = "_diffusion_deps_available" in ast.unparse(func)
    model_dir = _function(utils, "_is_diffusers_model_dir") or _function(utils, "is_diffusers_model_path")
    files = [s for s in _str_consts(model_dir) if s.endswith("model_index.json")] if model_dir else []
    key = next((s for s in _str_consts(model_dir) if s.startswith("_diffusers")), None) if model_dir else None
    gated = _function(utils, "_is_gated_diffusion_repo")
    library = None
    if gated is not None and "library_name" in ast.unparse(gated):
        library = next((s for s in _str_consts(gated) if s == "diffusers"), None)
    model_path_func = _function(utils, "try_get_model_path") or _function(utils, "get_model_path")
    match = _registry_match(source, registry_func)
    # 0.5.10-0.5.16 test the name patterns in sglang/cli/utils.py itself
    # (``is_known_non_diffusers_diffusion_model``: a pattern anywhere in the
    # lower-cased path), before and beside the registry
    if utils is not None and "is_known_non_diffusers_diffusion_model" in ast.unparse(utils):
        match = ["substring_patterns", *match]
    # whether the registry is asked before a local directory is looked into
    # (0.5.17+: "the diffusion registry is authoritative ... including local
    # directories"); before, a local directory is judged by its files only
    detect = _function(utils, "get_is_diffusion_model")
    calls = [(n.lineno, ast.unparse(n.func)) for n in ast.walk(detect) if isinstance(n, ast.Call)] if detect else []
    registry_line = min((ln for ln, f in calls if "registered" in f or "from_registry" in f), default=None)
    isdir_line = min((ln for ln, f in calls if f.endswith("isdir")), default=None)
    registry_for_local_dirs = registry_line is not None and (isdir_line is None or registry_line < isdir_line)
    hf_paths, unread = _hf_paths(rec, source)
    patterns = _patterns(rec)
    pipeline_func = _function(utils, "get_pipeline_class_name")
    return {
        "subcommands": _subcommands(source),
        "diffusion_only": [c for c in ("generate",) if _parse_call_is_diffusion_only(source, c)],
        "model_type": _model_type(source),
        "positional_model_path": _positional_model_path(source),
        "model_path_flags": _flag_literals(model_path_func),
        "pipeline_flags": _pipeline_flags(pipeline_func),
        "pipeline_from_config": pipeline_func is not None and "--config" in _str_consts(pipeline_func),
        "pipeline_signal": "is_registered_native_pipeline" in ast.unparse(utils) if utils else False,
        "model_index": {"files": files, "key": key},
        "hf_library_name": library,
        "registry": {
            "function": registry_func,
            "requires_diffusers": requires_diffusers,
            "for_local_dirs": registry_for_local_dirs,
            "match": match,
            "hf_paths": sorted(hf_paths),
            "hf_paths_unread": unread,
            "patterns_from": patterns["from"],
            "patterns": patterns["patterns"],
            "pipeline_names": _pipeline_names(source),
        },
    }


def _parse_call_is_diffusion_only(source: Source, command: str) -> bool:
    """``sglang generate`` refuses every non-diffusion model."""
    tree = _tree(source, f"sglang/cli/{command}.py")
    return tree is not None and any("not yet supported" in s for s in _str_consts(tree))


# ---------------------------------------------------------------------------
# Pipeline-selected options
# ---------------------------------------------------------------------------


def pipeline_options(rec: _Recorder, source: Source, col: _Collector) -> dict:
    """``add_pipeline_cli_args`` of a pipeline config, keyed by the pipeline
    whose ``pipeline_config_cls`` (or registered name) it belongs to."""
    out: dict[str, str] = {}
    for rel in _walk(source, "sglang/multimodal_gen/configs"):
        text = source.read(rel) or ""
        if "def add_pipeline_cli_args" not in text:
            continue
        module = rec.module(rel[:-3].replace("/", ".").removesuffix(".__init__"))
        for cls_name, cls_node in module.classes().items():
            if not any(isinstance(s, ast.FunctionDef) and s.name == "add_pipeline_cli_args" for s in cls_node.body):
                continue
            cls = module.get(cls_name)
            func = cls.env().get("add_pipeline_cli_args") if isinstance(cls, ClassObj) else None
            if not isinstance(func, FuncObj):
                continue
            parser = ParserObj(len(rec.parsers), module.rel, func.node.lineno)
            rec.call_function(func, [parser], {})
            _custom_actions(rec, parser)
            for pipeline in _pipelines_of_config(source, cls_name):
                out[pipeline] = col.parser(parser)
    return out


def _pipelines_of_config(source: Source, config_cls: str) -> list[str]:
    names = []
    for rel in _walk(source, "sglang/multimodal_gen/runtime"):
        tree = _tree(source, rel)
        for node in ast.walk(tree):
            if not isinstance(node, ast.ClassDef):
                continue
            attrs = {
                t.id: stmt.value
                for stmt in node.body
                if isinstance(stmt, ast.Assign)
                for t in stmt.targets
                if isinstance(t, ast.Name)
            }
            cfg = attrs.get("pipeline_config_cls")
            name = attrs.get("pipeline_name")
            if cfg is not None and ast.unparse(cfg) == config_cls and isinstance(name, ast.Constant):
                names.append(name.value)
    return sorted(set(names))


# ---------------------------------------------------------------------------
# Build / write
# ---------------------------------------------------------------------------


def build(source: Source, helps: Optional[dict]) -> dict:
    if not has_multimodal_gen(source):
        raise GenerationError(f"{source.name}: no sglang/multimodal_gen")
    col = _Collector(helps)
    commands: dict[str, dict] = {}
    rec = _Recorder(source)
    left = leftovers(rec)
    for command, (module, function) in _PARSER_FUNCS.items():
        parser = _record_parser(source, rec, module, function)
        call = _parse_call(source, command)
        if parser is None or call is None:
            continue
        _custom_actions(rec, parser)
        unresolved = [i for i in parser.items if "unresolved" in i]
        if unresolved:
            raise GenerationError(f"{command}: add_argument calls not read: {unresolved[:3]}")
        uses_leftovers = call["kind"] == "parse_known" and _passes_leftovers(source, command)
        commands[command] = {
            **call,
            "parser": col.parser(parser),
            "built_by": f"{module}.{function}",
            "leftovers": left if uses_leftovers else ("ignored" if call["kind"] == "parse_known" else None),
        }
    full = source.version()
    return {
        "notice": f"GENERATED by `python -m {GENERATOR}` from {source.name} -- DO NOT EDIT. Regenerate instead.",
        "generator": GENERATOR,
        "sglang_version": base_version(full),
        "sglang_full_version": full,
        "source": source.name,
        "help_table": HELP_TABLE if helps is not None else None,
        "commands": commands,
        "pipeline_options": pipeline_options(rec, source, col),
        "routing": routing(rec, source),
        "parsers": col.parsers,
    }


def _passes_leftovers(source: Source, command: str) -> bool:
    """The leftovers reach ``ServerArgs.from_cli_args`` (which then checks them)
    when the command hands them on and ``from_cli_args`` is called with them."""
    rel = {"serve": "sglang/multimodal_gen/runtime/entrypoints/cli/serve.py",
           "generate": "sglang/multimodal_gen/runtime/entrypoints/cli/generate.py"}[command]
    tree = _tree(source, rel)
    for node in ast.walk(tree) if tree else ():
        if isinstance(node, ast.Call) and ast.unparse(node.func).endswith("ServerArgs.from_cli_args") and len(node.args) >= 2:
            return True
    return False


def dumps(obj: dict) -> str:
    """One option per line, like the other catalogs."""
    lines = ["{"]
    for k, v in obj.items():
        if k == "parsers":
            continue
        lines.append(f"{json.dumps(k)}: {json.dumps(v, ensure_ascii=False, separators=(',', ':'), sort_keys=k == 'routing')},")
    lines.extend(parser_lines(obj["parsers"]))
    lines.append("}")
    return "\n".join(lines) + "\n"


def generate_many(paths: list[str], out: Path) -> int:
    helps = load_help_table(out)
    status = 0
    for p in paths:
        try:
            source = Source(p)
            if not has_multimodal_gen(source):
                continue
            data = build(source, helps)
        except (GenerationError, ValueError, OSError) as exc:
            print(f"{p}: {exc}", file=sys.stderr)
            status = 1
            continue
        target = out / f"sglang-{data['sglang_version']}.json"
        target.write_text(dumps(data), encoding="utf-8")
        counts = {c: _count(data, c) for c in data["commands"]}
        print(f"{target}: {counts} option strings, {len(data['routing']['registry']['hf_paths'])} registered ids")
    prune_help_table(out, helps, "sglang-*.json")
    return status


def _count(data: dict, command: str) -> int:
    parser = data["parsers"][data["commands"][command]["parser"]]
    return sum(len(i["strings"]) for i in parser["items"] if "strings" in i)


def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog=f"python -m {GENERATOR}", description=__doc__.split("\n\n")[0])
    ap.add_argument("wheels", nargs="+", help="sglang-*.whl (releases with multimodal_gen)")
    ap.add_argument("--out", default=str(Path(__file__).parent / "data" / "diffusion"), help="output directory")
    args = ap.parse_args(argv)
    return generate_many(args.wheels, Path(args.out))


if __name__ == "__main__":
    sys.exit(main())


__all__ = ["build", "generate_many", "has_multimodal_gen", "main"]
