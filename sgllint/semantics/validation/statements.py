"""The interpreter's compiler, statements (issue 17): each statement of a
release's start-up code becomes a closure run on a frame."""

from __future__ import annotations

import ast
import operator
import sys

from .domain import TAINTED, Unknown
from .operations import (
    _BINOPS,
    Unsupported,
    _at_site,
    _binop,
    _getitem,
    _truth,
    _UnknownException,
    apply_decorator,
)
from .runtime import (
    _CONTAINERS,
    _PENDING,
    BREAK,
    CONTINUE,
    CachedFunc,
    Code,
    Degrade,
    Frame,
    Func,
    Ret,
    UnknownSignal,
    _LoopUnknown,
    call_value,
    note_possible,
    speculate,
    touch,
    touch_obj,
)
from .scopes import Scope, _assigned_names, _bound_names, _outside, _resolve, _walk_scope

RT = None  # the launch being evaluated: set with interp.set_run

class StatementCompiler:
    """The statements of ``interp.Compiler``: blocks, statements, function definitions."""

    def __init__(self, modname: str, file: str, hooks):
        self.modname = modname
        self.file = file
        self.hooks = hooks  # envmodel: function replacement by qualified name

    # ---- blocks ----------------------------------------------------------------
    def block(self, stmts: list, scope: Scope):
        items = []
        for s in stmts:
            if type(s) is ast.Expr and type(s.value) is ast.Constant and type(s.value.value) is str:
                continue  # docstrings
            items.append((self.stmt(s, scope), (self.file, s.lineno, getattr(s, "end_lineno", s.lineno) or s.lineno)))
        items = tuple(items)
        if not items:
            return lambda fr: None
        if len(items) == 1:
            (f0, site0), = items

            def one(fr):
                try:
                    r = f0(fr)
                    return None if r is _PENDING else r
                except BaseException as e:
                    raise _at_site(e, site0)
            return one

        def run(fr):
            site = None
            try:
                for f, site in items:
                    r = f(fr)
                    if r is not None:
                        if r is _PENDING:
                            continue
                        return r
            except BaseException as e:
                raise _at_site(e, site)
            return None
        return run

    # ---- statements --------------------------------------------------------------
    def stmt(self, s, scope: Scope):
        m = getattr(self, "s_" + type(s).__name__, None)
        if m is None:
            name = type(s).__name__

            def unsupported(fr):
                raise Degrade(f"unsupported statement {name} at {self.file}:{s.lineno}")
            return unsupported
        return m(s, scope)

    def s_Pass(self, s, scope):
        return lambda fr: None

    def s_Break(self, s, scope):
        return lambda fr: BREAK

    def s_Continue(self, s, scope):
        return lambda fr: CONTINUE

    def s_Global(self, s, scope):
        return lambda fr: None

    s_Nonlocal = s_Global

    def s_Expr(self, s, scope):
        e = self.expr(s.value, scope)

        def run(fr):
            e(fr)
        return run

    def s_Return(self, s, scope):
        if s.value is None:
            return lambda fr: Ret(None)
        e = self.expr(s.value, scope)
        return lambda fr: Ret(e(fr))

    def s_Assign(self, s, scope):
        val = self.expr(s.value, scope)
        stores = [self.store(t, scope) for t in s.targets]
        if len(stores) == 1:
            st = stores[0]

            def run1(fr):
                st(fr, val(fr))
            return run1

        def run(fr):
            v = val(fr)
            for st in stores:
                st(fr, v)
        return run

    def s_AnnAssign(self, s, scope):
        if s.value is None:
            if scope.kind == "class":
                ann = self._annotation_text(s.annotation)
                tname = s.target.id

                def ann_only(fr):
                    fr.L.setdefault("__annotations__", {})[tname] = ann
                return ann_only
            return lambda fr: None
        val = self.expr(s.value, scope)
        st = self.store(s.target, scope)
        if scope.kind == "class" and type(s.target) is ast.Name:
            ann = self._annotation_text(s.annotation)
            tname = s.target.id

            def run_cls(fr):
                fr.L.setdefault("__annotations__", {})[tname] = ann
                st(fr, val(fr))
            return run_cls
        return lambda fr: st(fr, val(fr))

    def _annotation_text(self, node) -> str:
        return ast.unparse(node)

    def s_AugAssign(self, s, scope):
        op = _BINOPS[type(s.op)]
        iop = {operator.add: operator.iadd, operator.or_: operator.ior, operator.sub: operator.isub,
               operator.mul: operator.imul, operator.and_: operator.iand}.get(op, op)
        t = s.target
        if type(t) is ast.Name:
            load = self.expr(ast.Name(id=t.id, ctx=ast.Load(), lineno=t.lineno), scope)
            st = self.store(t, scope)

            def run(fr):
                a = load(fr)
                if type(a) in _CONTAINERS:
                    touch(a)
                st(fr, _binop(iop, a, val(fr)))
            val = self.expr(s.value, scope)
            return run
        if type(t) is ast.Attribute:
            obj = self.expr(t.value, scope)
            attr = t.attr
            val = self.expr(s.value, scope)

            def run_attr(fr):
                o = obj(fr)
                if type(o) is Unknown:
                    val(fr)
                    return
                a = getattr(o, attr)
                if type(a) in _CONTAINERS:
                    touch(a)
                v = _binop(iop, a, val(fr))
                touch_obj(o)
                setattr(o, attr, v)
            return run_attr
        if type(t) is ast.Subscript:
            obj = self.expr(t.value, scope)
            idx = self.expr(t.slice, scope)
            val = self.expr(s.value, scope)

            def run_sub(fr):
                o = obj(fr)
                i = idx(fr)
                if type(o) is Unknown:
                    return
                if type(i) is Unknown:
                    raise Degrade(f"store at an unknown index at {self.file}:{s.lineno}")
                v = _binop(iop, _getitem(o, i), val(fr))
                if type(o) in _CONTAINERS:
                    touch(o)
                o[i] = v
            return run_sub
        raise Unsupported("augassign target")

    def s_Delete(self, s, scope):
        dels = []
        for t in s.targets:
            if type(t) is ast.Name:
                r = _resolve(scope, t.id)
                name = t.id
                if r[0] in ("local", "class"):
                    def d(fr, name=name):
                        touch(fr.L)
                        fr.L.pop(name, None)
                else:
                    def d(fr, name=name):
                        touch(fr.G)
                        fr.G.pop(name, None)
                dels.append(d)
            elif type(t) is ast.Subscript:
                obj = self.expr(t.value, scope)
                idx = self.expr(t.slice, scope)

                def d(fr, obj=obj, idx=idx):
                    o, i = obj(fr), idx(fr)
                    if type(o) is Unknown:
                        return
                    if type(i) is Unknown:
                        raise Degrade("del at an unknown index")
                    if type(o) in _CONTAINERS:
                        touch(o)
                    del o[i]
                dels.append(d)
            elif type(t) is ast.Attribute:
                obj = self.expr(t.value, scope)

                def d(fr, obj=obj, attr=t.attr):
                    o = obj(fr)
                    if type(o) is not Unknown:
                        touch_obj(o)
                        delattr(o, attr)
                dels.append(d)

        def run(fr):
            for d in dels:
                d(fr)
        return run

    def s_If(self, s, scope):
        test = self.test(s.test, scope)
        body = self.block(s.body, scope)
        orelse = self.block(s.orelse, scope) if s.orelse else None
        where = f"{self.file}:{s.lineno}"

        def run(fr):
            t = test(fr)
            if t is True:
                return body(fr)
            if t is False:
                return orelse(fr) if orelse is not None else None
            return speculate(fr, body, orelse, where)
        return run

    def s_While(self, s, scope):
        test = self.test(s.test, scope)
        body = self.block(s.body, scope)
        orelse = self.block(s.orelse, scope) if s.orelse else None
        where = f"{self.file}:{s.lineno}"
        havoc_st = [self.store(ast.Name(id=n, ctx=ast.Store()), scope) for n in sorted(_assigned_names(s))]

        def havoc_loop(fr):
            u = Unknown(f"assigned in a loop on an unknown condition at {where}")
            for st_ in havoc_st:
                st_(fr, u)
            return None

        def run(fr):
            n = 0
            try:
                while True:
                    t = test(fr)
                    if t is False:
                        break
                    if t is not True:
                        return havoc_loop(fr)
                    r = body(fr)
                    if r is BREAK:
                        return None
                    if r is not None and r is not CONTINUE:
                        return r
                    n += 1
                    if n > 10000:
                        raise Degrade(f"loop over 10000 iterations at {where}")
            except _LoopUnknown:
                return havoc_loop(fr)
            if orelse is not None:
                return orelse(fr)
            return None
        return run

    def s_For(self, s, scope):
        it = self.expr(s.iter, scope)
        st = self.store(s.target, scope)
        body = self.block(s.body, scope)
        orelse = self.block(s.orelse, scope) if s.orelse else None
        where = f"{self.file}:{s.lineno}"

        assigned = sorted(_assigned_names(s))
        havoc_st = [self.store(ast.Name(id=n, ctx=ast.Store()), scope) for n in assigned]

        def havoc_loop(fr):
            # an unknown number of iterations: what the body assigns is unknown
            # (what it would raise or change elsewhere is not followed)
            u = Unknown(f"assigned in a loop over an unknown collection at {where}")
            for st_ in havoc_st:
                st_(fr, u)
            return None

        def run(fr):
            seq = it(fr)
            if type(seq) is Unknown or id(seq) in TAINTED:
                return havoc_loop(fr)
            try:
                items = list(seq) if type(seq) not in (list, tuple) else seq
            except UnknownSignal:
                return havoc_loop(fr)
            try:
                for x in items:
                    st(fr, x)
                    r = body(fr)
                    if r is BREAK:
                        return None
                    if r is not None and r is not CONTINUE:
                        return r
            except _LoopUnknown:
                return havoc_loop(fr)
            if orelse is not None:
                return orelse(fr)
            return None
        return run

    def s_With(self, s, scope):
        ctxs = [(self.expr(i.context_expr, scope), self.store(i.optional_vars, scope) if i.optional_vars else None)
                for i in s.items]
        body = self.block(s.body, scope)

        def run(fr):
            exits = []
            for ce, st in ctxs:
                cm = ce(fr)
                if type(cm) is Unknown or type(cm) is CachedFunc:
                    v = Unknown("an unmodelled context manager")
                    exits.append(None)
                else:
                    enter = getattr(cm, "__enter__", None)
                    if enter is None:
                        v = Unknown("an unmodelled context manager")
                        exits.append(None)
                    else:
                        v = call_value(enter, (), None)
                        exits.append(cm)
                if st is not None:
                    st(fr, v)
            try:
                r = body(fr)
            except (Degrade, UnknownSignal):
                raise
            except BaseException as e:
                for cm in reversed(exits):
                    if cm is not None and _truth(call_value(cm.__exit__, (type(e), e, None), None)) is True:
                        return None
                raise
            for cm in reversed(exits):
                if cm is not None:
                    call_value(cm.__exit__, (None, None, None), None)
            return r
        return run

    def s_Raise(self, s, scope):
        exc = self.expr(s.exc, scope) if s.exc is not None else None
        cause = self.expr(s.cause, scope) if s.cause is not None else None

        def run(fr):
            if exc is None:
                e = sys.exc_info()[1] or fr.L.get("$exc")
                if e is None:
                    raise RuntimeError("No active exception to reraise")
                raise e
            e = exc(fr)
            if cause is not None:
                cause(fr)
            if type(e) is Unknown:
                e = _UnknownException(e.why)
            elif isinstance(e, type):
                e = call_value(e, (), None)
                if type(e) is Unknown:
                    e = _UnknownException(e.why)
            if not isinstance(e, BaseException):
                raise TypeError("exceptions must derive from BaseException")
            RT.explicit.add(id(e))
            RT.keep.append(e)
            raise e
        return run

    def s_Assert(self, s, scope):
        test = self.test(s.test, scope)
        msg = self.expr(s.msg, scope) if s.msg is not None else None
        where = f"{self.file}:{s.lineno}"

        def run(fr):
            t = test(fr)
            if t is True:
                return None
            if t is False:
                e = AssertionError(msg(fr) if msg is not None else None)
                RT.explicit.add(id(e))
                RT.keep.append(e)
                raise e
            # unknown: a possible failure; the program goes on as if it held
            e = AssertionError(msg(fr) if msg is not None else None)
            RT.sites[id(e)] = (self.file, s.lineno, s.end_lineno or s.lineno)
            RT.keep.append(e)
            note_possible(e, f"assert on an unknown condition at {where}")
            return None
        return run

    def s_Try(self, s, scope):
        body = self.block(s.body, scope)
        handlers = []
        for h in s.handlers:
            typ = self.expr(h.type, scope) if h.type is not None else None
            st = self.store(ast.Name(id=h.name, ctx=ast.Store()), scope) if h.name else None
            handlers.append((typ, st, self.block(h.body, scope)))
        orelse = self.block(s.orelse, scope) if s.orelse else None
        final = self.block(s.finalbody, scope) if s.finalbody else None

        def run(fr):
            try:
                try:
                    r = body(fr)
                except (Degrade, UnknownSignal):
                    raise
                except BaseException as e:
                    for typ, st, hb in handlers:
                        if typ is None:
                            m = True
                        else:
                            t = typ(fr)
                            if type(t) is Unknown:
                                raise Degrade("except clause with an unknown exception class")
                            try:
                                m = isinstance(e, t)
                            except TypeError:
                                m = False
                        if m:
                            e.__traceback__ = None
                            if st is not None:
                                st(fr, e)
                            saved = fr.L.get("$exc")
                            fr.L["$exc"] = e
                            try:
                                return hb(fr)
                            finally:
                                fr.L["$exc"] = saved
                    raise
                if orelse is not None and r is None:
                    return orelse(fr)
                return r
            finally:
                if final is not None:
                    rf = final(fr)
                    if rf is not None:
                        return rf  # noqa: B012 - Python's semantics
        return run

    s_TryStar = None  # type: ignore[assignment]

    def s_Import(self, s, scope):
        stores = []
        for a in s.names:
            if a.asname:
                stores.append((a.name, self.store(ast.Name(id=a.asname, ctx=ast.Store()), scope), True))
            else:
                top = a.name.split(".")[0]
                stores.append((a.name, self.store(ast.Name(id=top, ctx=ast.Store()), scope), False))
        hooks = self.hooks

        def run(fr):
            for name, st, full in stores:
                m = hooks.import_module(name)
                if not full:
                    hooks.import_module(name)  # the submodule is loaded too
                    m = hooks.import_module(name.split(".")[0])
                st(fr, m)
        return run

    def s_ImportFrom(self, s, scope):
        if s.level:
            parts = self.modname.split(".")
            base = ".".join(parts[: len(parts) - s.level + (1 if self.file.endswith("__init__.py") else 0)])
            modname = f"{base}.{s.module}" if s.module else base
        else:
            modname = s.module
        names = [(a.name, self.store(ast.Name(id=a.asname or a.name, ctx=ast.Store()), scope) if a.name != "*"
                  else None) for a in s.names]
        hooks = self.hooks

        def run(fr):
            for name, st in names:
                if name == "*":
                    m = hooks.import_module(modname)
                    g = getattr(m, "__dict__", {}) if not hasattr(m, "G") else m.G
                    for k, v in list(g.items()):
                        if not k.startswith("_"):
                            touch(fr.L)
                            fr.L[k] = v
                    continue
                st(fr, hooks.import_from(modname, name))
        return run

    def s_FunctionDef(self, s, scope):
        make = self.function(s, scope)
        decos = [self.expr(d, scope) for d in reversed(s.decorator_list)]
        st = self.store(ast.Name(id=s.name, ctx=ast.Store()), scope)
        qual = f"{scope.qual}.{s.name}" if scope.qual else s.name
        modqual = f"{self.modname}.{qual}"
        hooks = self.hooks

        def run(fr):
            repl = hooks.replacement(modqual)
            if repl is not None:
                st(fr, repl)
                return
            f = make(fr)
            for d in decos:
                f = apply_decorator(d(fr), f)
            st(fr, f)
        return run

    s_AsyncFunctionDef = s_FunctionDef

    def s_ClassDef(self, s, scope):
        qual = f"{scope.qual}.{s.name}" if scope.qual else s.name
        cscope = Scope("class", scope, qual)
        _bound_names(s.body, cscope)
        body = self.block(s.body, cscope)
        bases = [self.expr(b, scope) for b in s.bases]
        kws = {k.arg: self.expr(k.value, scope) for k in s.keywords if k.arg}
        decos = [self.expr(d, scope) for d in reversed(s.decorator_list)]
        st = self.store(ast.Name(id=s.name, ctx=ast.Store()), scope)
        name, modname, hooks = s.name, self.modname, self.hooks
        skind = scope.kind
        modqual = f"{modname}.{qual}"

        def run(fr):
            repl = hooks.replacement(modqual)
            if repl is not None:
                st(fr, repl)
                return
            bs = [b(fr) for b in bases]
            ns = {"__module__": modname, "__qualname__": qual}
            cfr = Frame(ns, fr if skind in ("function", "comp") else (fr.outer if skind == "class" else None), fr.G)
            body(cfr)
            cls = hooks.make_class(name, bs, ns, {k: v(fr) for k, v in kws.items()}, modqual)
            for d in decos:
                cls = apply_decorator(d(fr), cls)
            st(fr, cls)
        return run

    def s_Match(self, s, scope):
        raise Unsupported("match")

    # ---- functions ----------------------------------------------------------------
    def function(self, s, scope: Scope):
        a = s.args
        qual = f"{scope.qual}.{s.name}" if scope.qual else s.name
        fscope = Scope("function", scope, qual + ".<locals>" if scope.kind != "class" else qual)
        params = [p.arg for p in a.posonlyargs + a.args]
        for p in params + [p.arg for p in a.kwonlyargs]:
            fscope.locals.add(p)
        if a.vararg:
            fscope.locals.add(a.vararg.arg)
        if a.kwarg:
            fscope.locals.add(a.kwarg.arg)
        if type(s) is ast.Lambda:
            body_nodes = [ast.Return(value=s.body, lineno=s.lineno, end_lineno=s.end_lineno)]
        else:
            body_nodes = s.body
        _bound_names(body_nodes, fscope)
        code = Code()
        code.name = getattr(s, "name", "<lambda>")
        code.qualname = qual if type(s) is not ast.Lambda else f"{scope.qual}.<lambda>"
        code.module = self.modname
        code.file = self.file
        code.line = s.lineno
        code.params = tuple(params)
        code.posonly = len(a.posonlyargs)
        code.kwonly = tuple(p.arg for p in a.kwonlyargs)
        code.nparams = frozenset(params[code.posonly:] + list(code.kwonly))
        code.vararg = a.vararg.arg if a.vararg else None
        code.kwarg = a.kwarg.arg if a.kwarg else None
        code.is_async = type(s) is ast.AsyncFunctionDef
        code.is_gen = any(type(n) in (ast.Yield, ast.YieldFrom) for n in _walk_scope(body_nodes))
        if _outside(s):
            why = Unknown(f"{code.qualname} is outside the derived start-up code")

            def outside(fr):
                # what it does to the record is not known: nothing after is definite
                if RT.watch is not None and any(type(v) is RT.watch for v in fr.L.values()):
                    RT.tainted = RT.tainted or f"{code.qualname} (outside the derived code) was handed the record"
                return Ret(why)
            code.body = outside
        else:
            code.body = self.block(body_nodes, fscope)
        defaults = [self.expr(d, scope) for d in a.defaults]
        kwd = [(p.arg, self.expr(d, scope)) for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None]
        in_class = scope.kind == "class"

        def make(fr):
            outer = fr.outer if in_class else (fr if scope.kind != "module" else None)
            return Func(code, tuple(d(fr) for d in defaults), {k: d(fr) for k, d in kwd}, outer, fr.G)
        return make
