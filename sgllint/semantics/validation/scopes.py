"""Compile-time scopes of the interpreter (issue 17): which names a scope
binds and where a name is found; AST helpers of the compiler."""

from __future__ import annotations

import ast

# --------------------------------------------------------------------------
# Scopes (compile time)
# --------------------------------------------------------------------------


class Scope:
    __slots__ = ("kind", "locals", "parent", "globals", "nonlocals", "qual")

    def __init__(self, kind: str, parent: "Scope | None", qual: str = ""):
        self.kind = kind  # module | function | class | comp
        self.locals: set[str] = set()
        self.parent = parent
        self.globals: set[str] = set()
        self.nonlocals: set[str] = set()
        self.qual = qual


def _bound_names(body: list, scope: Scope) -> None:
    """The names a scope binds (not descending into nested scopes)."""
    stack = list(body)
    while stack:
        n = stack.pop()
        t = type(n)
        if t in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
            scope.locals.add(n.name)
            stack.extend(n.decorator_list)
            if t is not ast.ClassDef:
                stack.extend(d for d in n.args.defaults + n.args.kw_defaults if d is not None)
            else:
                stack.extend(n.bases)
            continue
        if t is ast.Lambda:
            stack.extend(n.args.defaults)
            continue
        if t in (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp):
            stack.append(n.generators[0].iter)
            for g in n.generators:  # walrus inside binds here
                for sub in ast.walk(g):
                    if type(sub) is ast.NamedExpr:
                        scope.locals.add(sub.target.id)
            continue
        if t is ast.Global:
            scope.globals.update(n.names)
            continue
        if t is ast.Nonlocal:
            scope.nonlocals.update(n.names)
            continue
        if t is ast.Name and type(n.ctx) in (ast.Store, ast.Del):
            scope.locals.add(n.id)
        elif t in (ast.Import, ast.ImportFrom):
            for a in n.names:
                if a.name != "*":
                    scope.locals.add((a.asname or a.name).split(".")[0])
        elif t is ast.ExceptHandler and n.name:
            scope.locals.add(n.name)
        elif t is ast.NamedExpr:
            scope.locals.add(n.target.id)
        elif t is ast.MatchAs and n.name:
            scope.locals.add(n.name)
        stack.extend(ast.iter_child_nodes(n))
    scope.locals -= scope.globals
    scope.locals -= scope.nonlocals


def _resolve(scope: Scope, name: str):
    """How a Name load finds its value: ("local",) in this frame,
    ("class", then) in a class body's namespace then ``then``, ("free", depth)
    ``depth`` frames out, or ("global",). Every frame's ``outer`` is the
    nearest enclosing function/comprehension frame (class frames are skipped
    by the chain, as Python's closures skip class scopes)."""
    if scope.kind == "class":
        if name in scope.locals:
            return ("class", _resolve_outside(scope, name))
        return _resolve_outside(scope, name)
    if name in scope.locals:
        return ("local",)
    return _resolve_outside(scope, name)


def _resolve_outside(scope: Scope, name: str):
    if name in scope.globals:
        return ("global",)
    depth = 0
    s = scope.parent
    while s is not None and s.kind != "module":
        if s.kind == "class":
            s = s.parent
            continue
        depth += 1
        if name in s.locals:
            return ("free", depth)
        s = s.parent
    return ("global",)


def _assigned_names(loop) -> set:
    s = Scope("function", None)
    _bound_names([loop], s)
    return s.locals


def _outside(f) -> bool:
    """A def whose body the IR left out (``...``): calling it answers Unknown."""
    body = getattr(f, "body", None)
    if type(body) is not list or not body:
        return False
    last = body[-1]
    rest = body[:-1]
    doc_only = all(type(b) is ast.Expr and type(b.value) is ast.Constant and type(b.value.value) is str
                   for b in rest)
    return doc_only and len(rest) <= 1 and type(last) is ast.Expr and type(last.value) is ast.Constant \
        and last.value.value is Ellipsis


def _walk_scope(nodes):
    stack = list(nodes)
    while stack:
        n = stack.pop()
        yield n
        for c in ast.iter_child_nodes(n):
            if type(c) not in (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef):
                stack.append(c)
