"""Generate the parsers of launchers that wrap SGLang, per wrapper release.

Usage::

    python -m sgllint.catalog._gen_wrappers WHEEL [...] [--out DIR]

(also reached through ``python -m sgllint.catalog.generate WHEEL``, which
hands wrapper wheels here).  A WHEEL is an ``ai_dynamo-*.whl`` or a
``sglang_router-*.whl``; it is read with :mod:`ast` through the recorder of
:mod:`._gen_argparse`, never imported.  One file per release is written,
``data/wrappers/<package>-<version>.json``, with help texts shared through
``data/wrappers/help.json``.

What a file holds (see `sgllint.catalog.wrappers` for the reader):

* ``entry_points``: per launch form (``python -m dynamo.sglang``, the 0.4-era
  ``dynamo.sglang.worker`` / ``decode_worker``, ``python -m
  sglang_router.launch_server`` / ``launch_router``, console scripts) the
  *stages* a launch's words go through, in execution order: ``parse_known``
  (the parser takes what it knows and hands the rest on), ``parse`` (the rest
  must all be known), ``remove_pair`` (a word pair cut out of argv by hand),
  or ``subcommands`` (the first word picks a branch with its own stages);
* ``parsers``: each parser's own options (strings, action, nargs, choices,
  defaults, help) and ``includes``: where SGLang's ``ServerArgs.add_cli_args``
  adds the server options (the SGLang release is the one installed: see
  ``requires_sglang``), plus ``choice_extensions`` the wrapper makes to SGLang's
  options (Dynamo's ``--load-format gms``);
* ``rejections``: the wrapper's own start-up checks around the parse (file,
  line, condition, message), read from the functions the launch runs;
* ``requires_sglang``: the wheel's ``Requires-Dist`` on SGLang, ``sglang_pin``
  its exact version when pinned.

Environment-dependent defaults are read for the default environment (no
``DYN_*``/``SGLANG_*`` variable set).
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
import zipfile
from pathlib import Path
from typing import Any, Optional

from ._gen_argparse import ParserObj, Stage, _Recorder, record, run_main_block
from ._gen_eval import _Env, has_unknown
from ._gen_extract import GenerationError
from ._gen_source import Source
from .generate import _OMITTED_DEFAULTS, dump_help_table, help_id

GENERATOR = "sgllint.catalog._gen_wrappers"
HELP_TABLE = "help.json"
_WHEEL_RE = re.compile(r"^(?P<dist>ai_dynamo|sglang_router)-(?P<version>[0-9][0-9A-Za-z.+!]*?)-(?:py|cp)\d")
PACKAGES = {"ai_dynamo": "ai-dynamo", "sglang_router": "sglang-router"}
#: module entry points per package, in the order they are documented
_MODULE_ENTRIES = {
    "ai-dynamo": ("dynamo.sglang", "dynamo.sglang.worker", "dynamo.sglang.decode_worker"),
    "sglang-router": ("sglang_router.launch_server", "sglang_router.launch_router"),
}
_OPTION_KEYS = ("strings", "dest", "action", "type", "nargs", "choices", "choices_open", "const", "default", "required")


def is_wrapper_wheel(path: str | Path) -> bool:
    return bool(_WHEEL_RE.match(Path(path).name))


class WheelInfo:
    """Metadata of one wrapper wheel."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        m = _WHEEL_RE.match(self.path.name)
        if not m:
            raise GenerationError(f"{self.path.name}: not an ai-dynamo or sglang-router wheel")
        self.package = PACKAGES[m.group("dist")]
        self.full_version = m.group("version")
        with zipfile.ZipFile(self.path) as z:
            names = z.namelist()
            meta = next((n for n in names if n.endswith(".dist-info/METADATA")), None)
            eps = next((n for n in names if n.endswith(".dist-info/entry_points.txt")), None)
            self.metadata = z.read(meta).decode("utf-8") if meta else ""
            self.entry_points_txt = z.read(eps).decode("utf-8") if eps else ""

    def requires_sglang(self) -> Optional[str]:
        for line in self.metadata.splitlines():
            if line.startswith("Requires-Dist:") and re.match(r"Requires-Dist:\s*sglang\b(?!-)", line):
                return line.split(":", 1)[1].strip()
        return None

    def sglang_pin(self) -> Optional[str]:
        spec = self.requires_sglang()
        m = re.search(r"==\s*([0-9][0-9A-Za-z.]*)", spec or "")
        return m.group(1) if m else None

    def console_scripts(self) -> dict[str, str]:
        out: dict[str, str] = {}
        section = None
        for line in self.entry_points_txt.splitlines():
            line = line.strip()
            if line.startswith("["):
                section = line.strip("[]")
            elif section == "console_scripts" and "=" in line:
                name, target = (x.strip() for x in line.split("=", 1))
                out[name] = target
        return out


# ---------------------------------------------------------------------------
# Start-up rejections
# ---------------------------------------------------------------------------


def _message(rec: _Recorder, module, node: Optional[ast.expr]) -> str:
    if node is None:
        return ""
    val = rec.evaluate(node, _Env(module, {}))
    if isinstance(val, str):
        return val
    return ast.unparse(node)


def _exit_code(node: ast.Call) -> Optional[int]:
    if node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, int):
        return node.args[0].value
    return None if node.args else 0


def _rejections_in(rec: _Recorder, module, func: ast.AST) -> list[dict]:
    out = []
    for node in ast.walk(func):
        if not isinstance(node, ast.If):
            continue
        logged: Optional[ast.expr] = None
        for stmt in node.body:
            call = stmt.value if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) else None
            kind = None
            msg_node = None
            if call is not None:
                fname = ast.unparse(call.func)
                if fname.startswith("logging.error") or fname.endswith("logger.error"):
                    logged = call.args[0] if call.args else None
                    continue
                if fname == "sys.exit" and (_exit_code(call) or 0) != 0:
                    kind, msg_node = "exit", logged
                elif fname.endswith(".error") and "parser" in fname:
                    kind, msg_node = "parser.error", call.args[0] if call.args else None
            elif isinstance(stmt, ast.Raise) and isinstance(stmt.exc, ast.Call):
                kind = "raise " + ast.unparse(stmt.exc.func)
                msg_node = stmt.exc.args[0] if stmt.exc.args else None
            if kind is None:
                continue
            out.append(
                {
                    "file": module.rel,
                    "line": stmt.lineno,
                    "when": ast.unparse(node.test),
                    "kind": kind,
                    "message": _message(rec, module, msg_node),
                }
            )
    return out


def rejections(rec: _Recorder, stages: list, dests: Optional[dict] = None) -> list[dict]:
    """Checks of the functions run from the one that ran the last parse (the
    wrapper's own validation of what it parsed); with ``dests`` (see
    `_cli_dests`), each check the launch's options decide carries its
    ``check`` (see `_checks`)."""
    last = next((s for s in reversed(stages) if isinstance(s, Stage) and s.frame is not None), None)
    if last is None:
        return []
    start, end = last.frame[0], last.frame[1]
    seen: set = set()
    out: list[dict] = []
    frame_of: dict = {}
    for frame in rec.frames:
        first, _last, module, node = frame[:4]
        if not start <= first <= end or (module.rel, node.lineno) in seen:
            continue
        seen.add((module.rel, node.lineno))
        found = _rejections_in(rec, module, node)
        for r in found:
            frame_of[(r["file"], r["line"])] = (frame, node)
        out.extend(found)
    uniq = {(r["file"], r["line"]): r for r in out}
    result = [uniq[k] for k in sorted(uniq)]
    if dests is not None:
        assigned = _assigned_attributes(rec)
        for r in result:
            frame, func = frame_of[(r["file"], r["line"])]
            site = _site_stmt(func, r["line"])
            check = _check(site, frame, last.frame, dests, assigned) if site is not None else None
            if check is not None:
                r["check"] = check
                env = sorted({d for d in _opts(check) if d in dests["env"]})
                if env:
                    r["env"] = env
    return result


# ---------------------------------------------------------------------------
# Checks the launch decides
# ---------------------------------------------------------------------------
#
# A rejection site's ``check`` is its condition, with every ``if`` around it
# and around each call that leads to it from the function that ran the last
# parse, as a small expression over the launch's options:
#
#   {"opt": dest}            the parsed value of the option with that dest
#   {"const": value}         a literal
#   {"unknown": source}      anything else (a local, a file test, a call)
#   {"and"|"or"|"xor": [..]}, {"not": x}
#   {"cmp": op, "left": x, "right": y}   ==, !=, <, <=, >, >=, is, is not, in, not in
#
# Only sites reached on every launch but for those conditions get one: a site
# inside a loop, inside ``try`` with a handler, or after a ``return`` of its
# function (or of a caller, before the call) gets none.  An attribute is an
# option only when its name is the dest of an option of the wrapper's parsers
# or of SGLang's and no code of the package stores to it (``x.dest = ...``,
# ``setattr(x, "dest", ...)``, ``d["dest"] = ...``): a value the wrapper
# rewrites is not the one on the command line.

_CMP = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=",
        ast.Is: "is", ast.IsNot: "is not", ast.In: "in", ast.NotIn: "not in"}
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def _cli_dests(rec: _Recorder, sglang_pin: Optional[str]) -> dict:
    """The dests of the options a launch can set: the wrapper's own (and
    which of them take their default from the environment) and SGLang's of
    the release the wheel pins (the newest catalog without a pin)."""
    own: set = set()
    env: set = set()
    for p in rec.parsers:
        for it in p.items:
            if "strings" in it and isinstance(it.get("dest"), str):
                own.add(it["dest"])
                if it.get("env"):
                    env.add(it["dest"])
    from . import UnknownVersion, load, resolve_version, versions

    try:
        cat = load(resolve_version(sglang_pin)) if sglang_pin else load(versions()[-1])
    except UnknownVersion:
        cat = load(versions()[-1])
    return {"own": own, "sglang": {o.dest for o in cat.options}, "env": env}


def _assigned_attributes(rec: _Recorder) -> set:
    """Names the package's loaded modules store to as attributes or constant keys."""
    out: set = set()
    for mod in list(rec._modules.values()):
        if mod is None:
            continue
        for node in ast.walk(mod.tree):
            targets: list = []
            if isinstance(node, ast.Assign):
                targets = node.targets
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
                targets = [node.target]
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr":
                if len(node.args) >= 2 and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str):
                    out.add(node.args[1].value)
            for t in targets:
                for sub in ast.walk(t):
                    if isinstance(sub, ast.Attribute) and isinstance(sub.ctx, ast.Store):
                        out.add(sub.attr)
                    elif isinstance(sub, ast.Subscript) and isinstance(sub.ctx, ast.Store):
                        if isinstance(sub.slice, ast.Constant) and isinstance(sub.slice.value, str):
                            out.add(sub.slice.value)
    return out


def _site_stmt(func: ast.AST, line: int) -> Optional[ast.stmt]:
    for node in ast.walk(func):
        if isinstance(node, (ast.Expr, ast.Raise)) and node.lineno == line:
            return node
    return None


def _walk_same_scope(node: ast.AST):
    yield node
    for child in ast.iter_child_nodes(node):
        if isinstance(child, _SCOPES):
            continue
        yield from _walk_same_scope(child)


def _contains(node: ast.AST, target: ast.AST) -> bool:
    return any(n is target for n in ast.walk(node))


_NOT_FOUND = object()


def _path(body: list, target: ast.AST, guards: list):
    """The ``if`` tests (with the branch taken) around ``target`` in
    ``body``; None when it is not reached on every run but for them."""
    for stmt in body:
        if not _contains(stmt, target):
            if any(isinstance(n, ast.Return) for n in _walk_same_scope(stmt)):
                return None
            continue
        if isinstance(stmt, (ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Raise, ast.Return)):
            return guards
        if isinstance(stmt, ast.If):
            if _contains(stmt.test, target):
                return guards
            if any(_contains(s, target) for s in stmt.body):
                return _path(stmt.body, target, guards + [(stmt.test, False)])
            return _path(stmt.orelse, target, guards + [(stmt.test, True)])
        if isinstance(stmt, (ast.With, ast.AsyncWith)):
            if any(_contains(i, target) for i in stmt.items):
                return guards
            return _path(stmt.body, target, guards)
        if isinstance(stmt, ast.Try) and not stmt.handlers:
            for part in (stmt.body, stmt.finalbody):
                if any(_contains(s, target) for s in part):
                    return _path(part, target, guards)
        return None
    return None


def _check(site: ast.stmt, frame: list, root: list, dests: dict, assigned: set) -> Optional[dict]:
    terms: list = []
    target: ast.AST = site
    while True:
        found = _path(frame[3].body, target, [])
        if found is None:
            return None
        here = [_translate(t, dests, assigned, frame) for t, _neg in found]
        terms = [{"not": t} if neg else t for t, (_x, neg) in zip(here, found)] + terms
        if frame is root:
            break
        parent, call = frame[4], frame[5]
        if parent is None or call is None:
            return None
        frame, target = parent, call
    if not terms:
        return None
    check = terms[0] if len(terms) == 1 else {"and": terms}
    return check if _decidable(check) and any(True for _ in _opts(check)) else None


def _decidable(ir: dict) -> bool:
    """Whether some launch can make ``ir`` definitely true (or, under a
    ``not``, definitely false): an ``unknown`` never is."""
    if "unknown" in ir:
        return False
    if "not" in ir:
        return _decidable(ir["not"])
    if "and" in ir or "xor" in ir:
        return all(_decidable(t) for t in ir.get("and") or ir["xor"])
    if "or" in ir:
        return any(_decidable(t) for t in ir["or"])
    if "cmp" in ir:
        return _decidable(ir["left"]) and _decidable(ir["right"])
    return True


# --- where a namespace comes from -------------------------------------------
#
# ``x.dest`` is the option's parsed value only when ``x`` is the namespace a
# parse returned (``parse_args``, the first item of ``parse_known_args``,
# ``Namespace(...)``) or a config the wrapper copies it into (``Cfg.from_cli_args``
# of the wrapper; SGLang's ``ServerArgs.from_cli_args`` runs its
# ``__post_init__``, which rewrites values): followed through the function's
# assignments and, for a parameter (``self`` too), the argument of the call that
# led there.

_PARSES = (".parse_args", ".parse_known_args")


def _scope_assigns(func: ast.AST, name: str) -> list:
    out = []
    for node in _walk_same_scope(func):
        if node is func:
            continue
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor, ast.With, ast.AsyncWith, ast.NamedExpr)):
            targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
            if isinstance(node, (ast.With, ast.AsyncWith)):
                targets = [i.optional_vars for i in node.items]
            for t in targets:
                if t is None:
                    continue
                if isinstance(t, ast.Name) and t.id == name:
                    out.append((node, None))
                elif isinstance(t, (ast.Tuple, ast.List)):
                    for i, e in enumerate(t.elts):
                        if isinstance(e, ast.Name) and e.id == name:
                            out.append((node, i))
    return out


def _trusted_value(value: Optional[ast.expr], index: Optional[int], frame: list, depth: int) -> bool:
    if isinstance(value, ast.Await):
        value = value.value
    if isinstance(value, ast.Name):
        return index is None and _trusted_name(value.id, frame, depth + 1)
    if not isinstance(value, ast.Call):
        return False
    fname = ast.unparse(value.func)
    if fname.endswith(".parse_args") or fname in ("Namespace", "argparse.Namespace"):
        return index is None
    if fname.endswith(".parse_known_args"):
        return index == 0
    if fname.endswith(".from_cli_args") and isinstance(value.func, ast.Attribute):
        owner = value.func.value
        return index is None and not (isinstance(owner, ast.Name) and owner.id == "ServerArgs")
    return False


def _bound_arg(func: ast.AST, call: ast.Call, name: str) -> Optional[ast.expr]:
    a = func.args
    params = [p.arg for p in a.posonlyargs + a.args]
    unbound = len(call.args) == len(params) and not any(isinstance(x, ast.Starred) for x in call.args)
    if params and params[0] in ("self", "cls") and isinstance(call.func, ast.Attribute) and not unbound:
        # ``obj.method(...)`` (``Cls.method(obj, ...)`` passes ``self`` itself)
        if name == params[0]:
            owner = call.func.value
            if isinstance(owner, ast.Call) and ast.unparse(owner.func) == "super":
                return ast.Name(id="self", ctx=ast.Load())
            return owner
        params = params[1:]
    for k in call.keywords:
        if k.arg == name:
            return k.value
    if name in params:
        i = params.index(name)
        if any(isinstance(x, ast.Starred) for x in call.args[: i + 1]):
            return None
        if i < len(call.args):
            return call.args[i]
    return None


def _trusted_name(name: str, frame: list, depth: int = 0) -> bool:
    if depth > 8:
        return False
    func = frame[3]
    a = func.args
    params = {p.arg for p in a.posonlyargs + a.args + a.kwonlyargs}
    assigns = _scope_assigns(func, name)
    if name in params:
        if assigns:
            return False
        parent, call = frame[4], frame[5]
        if parent is None or call is None:
            return False
        arg = _bound_arg(func, call, name)
        return arg is not None and _trusted_value(arg, None, parent, depth)
    if not assigns:
        return False
    return all(
        isinstance(node, (ast.Assign, ast.AnnAssign)) and _trusted_value(node.value, index, frame, depth)
        for node, index in assigns
    )


def _opts(ir: Any):
    if isinstance(ir, dict):
        if "opt" in ir:
            yield ir["opt"]
        for v in ir.values():
            yield from _opts(v)
    elif isinstance(ir, list):
        for v in ir:
            yield from _opts(v)


def _const(node: ast.expr) -> Any:
    if isinstance(node, ast.Constant) and (node.value is None or isinstance(node.value, (bool, int, float, str))):
        return node.value
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        vals = [_const(e) for e in node.elts]
        if all(v is not _NOT_FOUND for v in vals):
            return vals
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
        if isinstance(node.operand.value, (int, float)) and not isinstance(node.operand.value, bool):
            return -node.operand.value
    return _NOT_FOUND


def _translate(node: ast.expr, dests: dict, assigned: set, frame: list) -> dict:
    unknown = {"unknown": ast.unparse(node)}
    value = _const(node)
    if value is not _NOT_FOUND:
        return {"const": value}
    name = base = None
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        name, base = node.attr, node.value.id
    elif (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr"
        and len(node.args) in (2, 3) and isinstance(node.args[0], ast.Name)
        and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str)
    ):
        name, base = node.args[1].value, node.args[0].id
    if name is not None:
        if name in assigned or (name not in dests["own"] and name not in dests["sglang"]):
            return unknown
        if not _trusted_name(base, frame):
            return unknown
        return {"opt": name}
    if isinstance(node, ast.BoolOp):
        return {"and" if isinstance(node.op, ast.And) else "or": [_translate(v, dests, assigned, frame) for v in node.values]}
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return {"not": _translate(node.operand, dests, assigned, frame)}
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitXor):
        return {"xor": [_translate(node.left, dests, assigned, frame), _translate(node.right, dests, assigned, frame)]}
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _CMP:
        return {"cmp": _CMP[type(node.ops[0])], "left": _translate(node.left, dests, assigned, frame),
                "right": _translate(node.comparators[0], dests, assigned, frame)}
    return unknown


# ---------------------------------------------------------------------------
# Entry points
# ---------------------------------------------------------------------------


def _deprecation(rec: _Recorder, module_name: str) -> Optional[str]:
    mod = rec.module(module_name)
    if mod is None:
        return None
    for node in ast.walk(mod.tree):
        if isinstance(node, ast.Call) and ast.unparse(node.func) in ("logging.warning", "warnings.warn", "logger.warning"):
            text = _message(rec, mod, node.args[0] if node.args else None)
            if "deprecat" in text.lower():
                return text
    return None


class _Collector:
    """Collects parsers (deduplicated by content) across a release's entries."""

    def __init__(self, helps: Optional[dict]) -> None:
        self.helps = helps
        self.parsers: dict[str, dict] = {}
        self._by_content: dict[str, str] = {}

    def option(self, o: dict) -> dict:
        out: dict[str, Any] = {k: o[k] for k in _OPTION_KEYS}
        for key, dflt in _OMITTED_DEFAULTS:
            if key in out and out[key] == dflt and type(out[key]) is type(dflt):
                del out[key]
        if o.get("hidden"):
            out["hidden"] = True
        if o.get("positional"):
            out["positional"] = True
        if "exclusive_group" in o:
            out["exclusive_group"] = o["exclusive_group"]
        for key in ("accepts", "raises"):  # custom Actions (see _gen_diffusion)
            if key in o:
                out[key] = o[key]
        text = o.get("help") or ""
        if text and self.helps is not None:
            hid = help_id(text)
            if self.helps.setdefault(hid, text) != text:
                raise GenerationError(f"help id collision {hid}")
            out["help_id"] = hid
        elif text:
            out["help"] = text
        out["line"] = o["line"]
        if o.get("file"):
            out["file"] = o["file"]
        return out

    def parser(self, p: ParserObj) -> str:
        items = []
        for it in p.items:
            if "strings" in it:
                items.append(self.option(it))
            elif "include" in it:
                items.append({"include": it["include"], "line": it["line"]})
            else:
                items.append(it)
        body = {
            "file": p.file,
            "line": p.line,
            "add_help": p.add_help,
            "allow_abbrev": p.allow_abbrev,
            "items": items,
        }
        if p.choice_extensions:
            body["choice_extensions"] = p.choice_extensions
        key = json.dumps(body, sort_keys=True)
        if key not in self._by_content:
            ident = f"p{len(self.parsers)}"
            self._by_content[key] = ident
            self.parsers[ident] = body
        return self._by_content[key]


def _stages_json(col: _Collector, stages: list) -> list[dict]:
    out = []
    for s in stages:
        if isinstance(s, dict):
            out.append({k: v for k, v in s.items()})
        else:
            out.append({"kind": "parse_known" if s.method == "parse_known_args" else "parse", "parser": col.parser(s.parser), "file": s.file, "line": s.line})
    return out


def _first_word_rule(func: ast.FunctionDef) -> Optional[dict]:
    """``if not argv or argv[0] not in [...]`` / ``argv[0] in [...]`` early exits."""
    rule: dict = {}
    for node in ast.walk(func):
        if not isinstance(node, ast.If):
            continue
        for cmp in ast.walk(node.test):
            if not (isinstance(cmp, ast.Compare) and len(cmp.ops) == 1 and isinstance(cmp.comparators[0], (ast.List, ast.Tuple))):
                continue
            if "[0]" not in ast.unparse(cmp.left):
                continue
            words = [e.value for e in cmp.comparators[0].elts if isinstance(e, ast.Constant)]
            exits = [c for c in ast.walk(ast.Module(body=node.body, type_ignores=[])) if isinstance(c, ast.Call) and ast.unparse(c.func) == "sys.exit"]
            code = _exit_code(exits[-1]) if exits else None
            if isinstance(cmp.ops[0], ast.NotIn):
                rule["accepted_first_words"] = words
                rule["other_exit"] = code
                rule["line"] = node.lineno
            elif isinstance(cmp.ops[0], ast.In):
                rule["early_exit_words"] = {"words": words, "exit": code, "line": node.lineno}
    return rule or None


def _console_entry(source: Source, col: _Collector, target: str, sglang_strings: set, sglang_pin: Optional[str] = None) -> Optional[dict]:
    module, _, func_name = target.partition(":")
    rec = record(source, module, func_name, [], sglang_strings)
    if rec is None:
        return None
    top = next((s.parser for s in rec.stages if isinstance(s, Stage)), None)
    entry: dict[str, Any] = {"module": module, "function": func_name}
    mod = rec.module(module)
    func = mod.functions().get(func_name) if mod else None
    if top is not None and top.subcommands and func is not None:
        entry["first_word"] = _first_word_rule(func)
        entry["stages"] = _stages_json(col, [rec.stages[0]])
        subs = {}
        for sub in top.subcommands:
            branch = _branch_for(func, sub["dest"], sub["name"])
            if branch is None:
                continue
            brec = _Recorder(source, sglang_strings)
            bmod = brec.module(module)
            brec.exec_block(branch.body, _Env(bmod, {}))
            subs[sub["name"]] = {"line": branch.lineno, "stages": _stages_json(col, brec.stages), "rejections": rejections(brec, brec.stages, _cli_dests(brec, sglang_pin))}
        entry["subcommands"] = subs
    else:
        entry["stages"] = _stages_json(col, rec.stages)
        entry["rejections"] = rejections(rec, rec.stages, _cli_dests(rec, sglang_pin))
    return entry


def _branch_for(func: ast.FunctionDef, dest: Optional[str], name: str) -> Optional[ast.If]:
    for node in ast.walk(func):
        if isinstance(node, ast.If) and isinstance(node.test, ast.Compare):
            t = node.test
            if (
                isinstance(t.left, ast.Attribute)
                and (dest is None or t.left.attr == dest)
                and isinstance(t.comparators[0], ast.Constant)
                and t.comparators[0].value == name
            ):
                return node
    return None


def _sglang_strings(pin: Optional[str]) -> set:
    """Option strings of the SGLang release a wrapper pins, from the shipped
    catalogs (wrappers test them, e.g. Dynamo's ``add_sglang_cli_compat``)."""
    if not pin:
        return set()
    from . import UnknownVersion, load, resolve_version

    try:
        return set(load(resolve_version(pin)).by_string)
    except UnknownVersion:
        return set()


def build(path: str | Path, helps: Optional[dict]) -> dict:
    info = WheelInfo(path)
    source = Source(info.path)
    col = _Collector(helps)
    sglang_strings = _sglang_strings(info.sglang_pin())
    entries: dict[str, dict] = {}
    for module in _MODULE_ENTRIES[info.package]:
        main_module = module + ".__main__" if source.is_package(module) else module
        if source.module_path(main_module) is None:
            continue
        rec = run_main_block(source, main_module, sglang_strings)
        if rec is None or not rec.stages:
            continue
        entries[f"python -m {module}"] = {
            "module": module,
            "deprecated": _deprecation(rec, main_module),
            "stages": _stages_json(col, rec.stages),
            "rejections": rejections(rec, rec.stages, _cli_dests(rec, info.sglang_pin())),
        }
    for script, target in sorted(info.console_scripts().items()):
        entry = _console_entry(source, col, target, sglang_strings, info.sglang_pin())
        if entry is not None:
            entries[script] = entry
    if not entries:
        raise GenerationError(f"{info.path.name}: no SGLang entry point found")
    return {
        "notice": f"GENERATED by `python -m {GENERATOR}` from {info.path.name} -- DO NOT EDIT. Regenerate instead.",
        "generator": GENERATOR,
        "package": info.package,
        "version": info.full_version,
        "source": info.path.name,
        "requires_sglang": info.requires_sglang(),
        "sglang_pin": info.sglang_pin(),
        "help_table": HELP_TABLE if helps is not None else None,
        "entry_points": entries,
        "parsers": col.parsers,
    }


def dumps(obj: dict) -> str:
    """One option per line, like the SGLang catalogs."""
    lines = ["{"]
    head = {k: v for k, v in obj.items() if k not in ("entry_points", "parsers")}
    for k, v in head.items():
        lines.append(f"{json.dumps(k)}: {json.dumps(v, ensure_ascii=False)},")
    lines.append('"entry_points": {')
    eps = list(obj["entry_points"].items())
    for i, (k, v) in enumerate(eps):
        sep = "," if i < len(eps) - 1 else ""
        lines.append(f"{json.dumps(k)}: {json.dumps(v, ensure_ascii=False, separators=(',', ':'))}{sep}")
    lines.append("},")
    lines.extend(parser_lines(obj["parsers"]))
    lines.append("}")
    return "\n".join(lines) + "\n"


def parser_lines(parsers: dict) -> list[str]:
    """``"parsers": {...}`` with one option per line (also for the diffusion data)."""
    lines = ['"parsers": {']
    ps = list(parsers.items())
    for i, (k, p) in enumerate(ps):
        head_p = {x: y for x, y in p.items() if x != "items"}
        lines.append(f"{json.dumps(k)}: {{{json.dumps(head_p, ensure_ascii=False, separators=(',', ':'))[1:-1]},\"items\":[")
        items = p["items"]
        for j, it in enumerate(items):
            lines.append(json.dumps(it, ensure_ascii=False, separators=(",", ":")) + ("," if j < len(items) - 1 else ""))
        lines.append("]}" + ("," if i < len(ps) - 1 else ""))
    lines.append("}")
    return lines


def prune_help_table(out: Path, helps: dict, pattern: str = "*.json") -> None:
    """Write ``out/help.json`` with the texts some parser in ``out`` still refers to."""
    used: set = set()
    for f in sorted(out.glob(pattern)):
        if f.name == HELP_TABLE:
            continue
        raw = json.loads(f.read_text(encoding="utf-8"))
        for parser in raw.get("parsers", {}).values():
            used.update(i["help_id"] for i in parser["items"] if "help_id" in i)
    (out / HELP_TABLE).write_text(dump_help_table({k: v for k, v in helps.items() if k in used}), encoding="utf-8")


def file_name(package: str, version: str) -> str:
    return f"{package}-{version}.json"


def load_help_table(out: Path) -> dict:
    """``out/help.json`` as it is (``out`` is made when missing)."""
    out.mkdir(parents=True, exist_ok=True)
    table_path = out / HELP_TABLE
    return json.loads(table_path.read_text(encoding="utf-8")) if table_path.exists() else {}


def generate_many(paths: list[str], out: Path) -> int:
    helps = load_help_table(out)
    status = 0
    for p in paths:
        try:
            data = build(p, helps)
        except (GenerationError, OSError, zipfile.BadZipFile) as exc:
            print(f"{p}: {exc}", file=sys.stderr)
            status = 1
            continue
        target = out / file_name(data["package"], data["version"])
        target.write_text(dumps(data), encoding="utf-8")
        n = sum(len([i for i in p["items"] if "strings" in i]) for p in data["parsers"].values())
        print(f"{target}: {len(data['entry_points'])} entry points, {len(data['parsers'])} parsers, {n} options")
    prune_help_table(out, helps)
    return status


def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog=f"python -m {GENERATOR}", description=__doc__.split("\n\n")[0])
    ap.add_argument("wheels", nargs="+", help="ai_dynamo-*.whl / sglang_router-*.whl")
    ap.add_argument("--out", default=str(Path(__file__).parent / "data" / "wrappers"), help="output directory")
    args = ap.parse_args(argv)
    return generate_many(args.wheels, Path(args.out))


if __name__ == "__main__":
    sys.exit(main())


__all__ = ["build", "generate_many", "is_wrapper_wheel", "main", "has_unknown"]
