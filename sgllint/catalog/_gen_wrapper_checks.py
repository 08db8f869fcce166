"""The start-up checks of a wrapper (part of :mod:`._gen_wrappers`): the
rejections its code makes around the parse (``sys.exit``, ``raise``,
``parser.error``) and, for each, the condition over the launch's options
that decides it, read statically from the wrapper's own code."""

from __future__ import annotations

import ast
from typing import Any, Optional

from ._gen_argparse import Stage, _Recorder
from ._gen_eval import _Env


# ---------------------------------------------------------------------------
# Start-up rejections
# ---------------------------------------------------------------------------


def message_text(rec: _Recorder, module, node: Optional[ast.expr]) -> str:
    if node is None:
        return ""
    val = rec.evaluate(node, _Env(module, {}))
    if isinstance(val, str):
        return val
    return ast.unparse(node)


def exit_code(node: ast.Call) -> Optional[int]:
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
                if fname == "sys.exit" and (exit_code(call) or 0) != 0:
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
                    "message": message_text(rec, module, msg_node),
                }
            )
    return out


def rejections(rec: _Recorder, stages: list, dests: Optional[dict] = None) -> list[dict]:
    """Checks of the functions run from the one that ran the last parse (the
    wrapper's own validation of what it parsed); with ``dests`` (see
    `cli_dests`), each check the launch's options decide carries its
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


def cli_dests(rec: _Recorder, sglang_pin: Optional[str]) -> dict:
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
