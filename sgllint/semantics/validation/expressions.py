"""The interpreter's compiler, expressions and assignment targets (issue 17):
each becomes a closure; conditions compile to True/False/Unknown."""

from __future__ import annotations

import ast
import operator

from .domain import TAINTED, Unknown, join
from .operations import (
    _BINOPS,
    _CMPS,
    Unsupported,
    _binop,
    _getitem,
    _global,
    _kleene,
    _quiet,
    _repr,
    _star_safe,
    _StarUnknown,
    _str,
    _truth,
    _unknown_ok_cmp,
    get_attr,
)
from .runtime import _CONTAINERS, Degrade, Frame, UnknownSignal, call_value, touch_obj
from .scopes import Scope, _resolve

RT = None  # the launch being evaluated: set with interp.set_run


class ExpressionCompiler:
    """The expressions and stores of ``interp.Compiler``."""

    # ---- stores -------------------------------------------------------------------
    def store(self, t, scope: Scope):
        # long on purpose: one dispatch over assignment targets (name, attribute, subscript, tuple/list, starred)
        tt = type(t)
        if tt is ast.Name:
            r = _resolve(scope, t.id) if scope.kind != "class" else ("class",)
            name = t.id
            if scope.kind == "module" or r[0] == "global" and scope.kind != "module" and name in scope.globals:
                if scope.kind == "module":
                    def st_mod(fr, v):
                        RT.touch(fr.L)
                        fr.L[name] = v
                    return st_mod

                def st_glob(fr, v):
                    RT.touch(fr.G)
                    fr.G[name] = v
                return st_glob
            if r[0] in ("local", "class"):
                def st_local(fr, v):
                    if RT.levels:
                        RT.touch(fr.L)
                    fr.L[name] = v
                return st_local
            if r[0] == "free":
                depth = r[1]

                def st_free(fr, v):
                    f = fr
                    for _ in range(depth):
                        f = f.outer
                    if RT.levels:
                        RT.touch(f.L)
                    f.L[name] = v
                return st_free

            def st_g(fr, v):
                RT.touch(fr.G)
                fr.G[name] = v
            return st_g
        if tt in (ast.Tuple, ast.List):
            elts = t.elts
            star = next((i for i, e in enumerate(elts) if type(e) is ast.Starred), None)
            subs = [self.store(e.value if type(e) is ast.Starred else e, scope) for e in elts]
            n = len(subs)
            where = f"{self.file}:{t.lineno}"

            def st_tuple(fr, v):
                if type(v) is Unknown:
                    for s_ in subs:
                        s_(fr, v)
                    return
                try:
                    vals = list(v)
                except UnknownSignal:
                    raise Degrade(f"unpacking an unknown value at {where}")
                if star is None:
                    if len(vals) != n:
                        raise ValueError(f"cannot unpack {len(vals)} values into {n}")
                    for s_, x in zip(subs, vals):
                        s_(fr, x)
                else:
                    after = n - star - 1
                    head, mid, tail = vals[:star], vals[star:len(vals) - after], vals[len(vals) - after:]
                    for s_, x in zip(subs, head + [mid] + tail):
                        s_(fr, x)
            return st_tuple
        if tt is ast.Attribute:
            obj = self.expr(t.value, scope)
            attr = t.attr
            wsite = (self.file, t.lineno)

            def st_attr(fr, v):
                o = obj(fr)
                if type(o) is Unknown:
                    return
                touch_obj(o)
                if type(o) is RT.watch:
                    RT.writes[attr] = wsite
                setattr(o, attr, v)
            return st_attr
        if tt is ast.Subscript:
            obj = self.expr(t.value, scope)
            idx = self.expr(t.slice, scope)
            where = f"{self.file}:{t.lineno}"

            def st_sub(fr, v):
                o = obj(fr)
                if type(o) is Unknown:
                    return
                i = idx(fr)
                if type(i) is Unknown:
                    if type(o) is dict:
                        TAINTED.add(id(o))
                        return
                    raise Degrade(f"store at an unknown index at {where}")
                if type(o) in _CONTAINERS:
                    RT.touch(o)
                try:
                    o[i] = v
                except UnknownSignal:
                    if type(o) is not dict:
                        raise Degrade(f"store at an unknown key at {where}")
                    TAINTED.add(id(o))  # its contents are no longer known
            return st_sub
        if tt is ast.Starred:
            return self.store(t.value, scope)
        raise Unsupported(f"store to {tt.__name__}")

    # ---- expressions -----------------------------------------------------------------
    def expr(self, e, scope: Scope):
        m = getattr(self, "e_" + type(e).__name__, None)
        if m is None:
            name = type(e).__name__
            line = getattr(e, "lineno", 0)

            def unsupported(fr):
                raise Degrade(f"unsupported expression {name} at {self.file}:{line}")
            return unsupported
        return m(e, scope)

    def test(self, e, scope: Scope):
        """A condition: compiles to True/False/Unknown (Kleene logic)."""
        t = type(e)
        if t is ast.BoolOp:
            parts = [self.test(v, scope) for v in e.values]
            return _kleene(parts, False if type(e.op) is ast.And else True)
        if t is ast.UnaryOp and type(e.op) is ast.Not:
            inner = self.test(e.operand, scope)

            def not_(fr):
                r = inner(fr)
                if r is True:
                    return False
                if r is False:
                    return True
                return r
            return not_
        v = self.expr(e, scope)
        return lambda fr: _truth(v(fr))

    def e_Constant(self, e, scope):
        c = e.value
        return lambda fr: c

    def e_Name(self, e, scope):
        name = e.id
        r = _resolve(scope, name)
        if r[0] == "local":
            def ld_local(fr):
                try:
                    return fr.L[name]
                except KeyError:
                    raise UnboundLocalError(f"local variable '{name}' referenced before assignment") from None
            return ld_local
        if r[0] == "free":
            depth = r[1]

            def ld_free(fr):
                f = fr
                for _ in range(depth):
                    f = f.outer
                try:
                    return f.L[name]
                except KeyError:
                    raise NameError(f"free variable '{name}' referenced before assignment") from None
            return ld_free
        if r[0] == "class":
            then = r[1]
            fallback = self.e_Name(e, Scope("function", scope.parent)) if then[0] != "global" else None

            def ld_class(fr):
                L = fr.L
                if name in L:
                    return L[name]
                if fallback is not None:
                    return fallback(Frame({}, fr.outer, fr.G))
                return _global(fr.G, name)
            return ld_class
        if scope.kind == "module":
            def ld_mod(fr):
                return _global(fr.G, name)
            return ld_mod
        return lambda fr: _global(fr.G, name)

    def e_Attribute(self, e, scope):
        obj = self.expr(e.value, scope)
        attr = e.attr
        return lambda fr: get_attr(obj(fr), attr)

    def e_Subscript(self, e, scope):
        obj = self.expr(e.value, scope)
        idx = self.expr(e.slice, scope)

        def run(fr):
            return _getitem(obj(fr), idx(fr))
        return run

    def e_Slice(self, e, scope):
        lo = self.expr(e.lower, scope) if e.lower else None
        hi = self.expr(e.upper, scope) if e.upper else None
        st = self.expr(e.step, scope) if e.step else None

        def run(fr):
            a, b, c = (lo(fr) if lo else None), (hi(fr) if hi else None), (st(fr) if st else None)
            if type(a) is Unknown or type(b) is Unknown or type(c) is Unknown:
                return Unknown("slice with an unknown bound")
            return slice(a, b, c)
        return run

    def e_BinOp(self, e, scope):
        op = _BINOPS[type(e.op)]
        a = self.expr(e.left, scope)
        b = self.expr(e.right, scope)
        return lambda fr: _binop(op, a(fr), b(fr))

    def e_UnaryOp(self, e, scope):
        t = type(e.op)
        if t is ast.Not:
            inner = self.test(e.operand, scope)

            def not_(fr):
                r = inner(fr)
                if r is True:
                    return False
                if r is False:
                    return True
                return r
            return not_
        op = {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Invert: operator.invert}[t]
        v = self.expr(e.operand, scope)

        def run(fr):
            x = v(fr)
            if type(x) is Unknown:
                return x
            return call_value(op, (x,), None) if type(x) not in (int, float, bool) else op(x)
        return run

    def e_BoolOp(self, e, scope):
        parts = [self.expr(v, scope) for v in e.values]
        is_and = type(e.op) is ast.And

        def run(fr):
            v = None
            unk = None
            for p in parts:
                v = p(fr)
                t = _truth(v)
                if type(t) is Unknown:
                    unk = t
                    continue
                if is_and and t is False:
                    return v if unk is None else (Unknown("and of an unknown") if v is not False else v)
                if not is_and and t is True:
                    return v if unk is None else Unknown("or of an unknown")
            if unk is not None:
                return Unknown("boolean of an unknown") if not (is_and is False and v is False) else unk
            return v
        return run

    def e_Compare(self, e, scope):
        first = self.expr(e.left, scope)
        ops = [(type(o), self.expr(c, scope)) for o, c in zip(e.ops, e.comparators)]

        def run(fr):
            a = first(fr)
            result = True
            for ot, cf in ops:
                b = cf(fr)
                if ot is ast.Is or ot is ast.IsNot:
                    if a is b:
                        r = True
                    elif type(a) is Unknown or type(b) is Unknown:
                        r = Unknown("identity of an unknown")
                    else:
                        r = False
                    if ot is ast.IsNot and type(r) is bool:
                        r = not r
                else:
                    if type(a) is Unknown or type(b) is Unknown:
                        r = Unknown("comparison with an unknown")
                    elif ot is ast.In or ot is ast.NotIn:
                        if id(b) in TAINTED:
                            r = Unknown("membership in a collection joined from two paths")
                        else:
                            r = _unknown_ok_cmp(_CMPS[ot], a, b)
                    else:
                        r = _unknown_ok_cmp(_CMPS[ot], a, b)
                if r is False:
                    return False
                if r is not True:
                    result = r
                a = b
            return result
        return run

    def e_IfExp(self, e, scope):
        test = self.test(e.test, scope)
        body = self.expr(e.body, scope)
        orelse = self.expr(e.orelse, scope)

        def run(fr):
            t = test(fr)
            if t is True:
                return body(fr)
            if t is False:
                return orelse(fr)
            return join(_quiet(body, fr), _quiet(orelse, fr))
        return run

    def e_NamedExpr(self, e, scope):
        v = self.expr(e.value, scope)
        # the target binds in the enclosing function scope, not a comprehension's
        s = scope
        while s.kind == "comp":
            s = s.parent
        st = self.store(e.target, s) if s is scope else self._store_out(e.target.id, scope, s)

        def run(fr):
            x = v(fr)
            st(fr, x)
            return x
        return run

    def _store_out(self, name, scope, target):
        depth = 0
        s = scope
        while s is not target:
            if s.kind != "class":
                depth += 1
            s = s.parent
        if target.kind == "module":
            def st_g(fr, v):
                fr.G[name] = v
            return st_g

        def st(fr, v):
            f = fr
            for _ in range(depth):
                f = f.outer
            f.L[name] = v
        return st

    def e_List(self, e, scope):
        items = self._items(e.elts, scope)
        return lambda fr: _star_safe(items, fr, list)

    def e_Tuple(self, e, scope):
        items = self._items(e.elts, scope)
        return lambda fr: _star_safe(items, fr, tuple)

    def e_Set(self, e, scope):
        items = self._items(e.elts, scope)

        def run(fr):
            xs = items(fr)
            try:
                return set(xs)
            except UnknownSignal:
                return Unknown("a set of unknown values")
        return run

    def _items(self, elts, scope):
        parts = [(type(x) is ast.Starred, self.expr(x.value if type(x) is ast.Starred else x, scope)) for x in elts]
        if not any(s for s, _ in parts):
            fs = [f for _, f in parts]
            return lambda fr: [f(fr) for f in fs]

        def run(fr):
            out = []
            for star, f in parts:
                v = f(fr)
                if star:
                    if type(v) is Unknown or id(v) in TAINTED:
                        raise _StarUnknown()
                    try:
                        out.extend(v)
                    except UnknownSignal:
                        raise _StarUnknown() from None
                else:
                    out.append(v)
            return out
        return run

    def e_Dict(self, e, scope):
        parts = [(self.expr(k, scope) if k is not None else None, self.expr(v, scope))
                 for k, v in zip(e.keys, e.values)]

        def run(fr):
            d = {}
            for k, v in parts:
                if k is None:
                    m = v(fr)
                    if type(m) is Unknown:
                        return Unknown("a dict merged with an unknown")
                    d.update(m)
                else:
                    kk = k(fr)
                    if type(kk) is Unknown:
                        return Unknown("a dict with an unknown key")
                    d[kk] = v(fr)
            return d
        return run

    def e_JoinedStr(self, e, scope):
        parts = [self.expr(v, scope) for v in e.values]

        def run(fr):
            out = []
            unknown = False
            for p in parts:
                s = p(fr)
                if type(s) is Unknown:
                    unknown = True
                    out.append("<?>")
                else:
                    out.append(s)
            text = "".join(out)
            return Unknown(text) if unknown else text
        return run

    def e_FormattedValue(self, e, scope):
        v = self.expr(e.value, scope)
        spec = self.expr(e.format_spec, scope) if e.format_spec else None
        conv = e.conversion

        def run(fr):
            x = v(fr)
            if type(x) is Unknown:
                return x
            sp = spec(fr) if spec else ""
            if type(sp) is Unknown:
                return sp
            if conv == 114:
                x = _repr(x)
            elif conv == 115:
                x = _str(x)
            elif conv == 97:
                x = ascii(x)
            try:
                return format(x, sp)
            except UnknownSignal:
                return Unknown("format of an unknown")
        return run

    def e_Starred(self, e, scope):
        raise Unsupported("starred outside a call")

    def e_Lambda(self, e, scope):
        e.name = "<lambda>"
        make = self.function(e, scope)
        return make

    def e_Call(self, e, scope):
        if type(e.func) is ast.Name and e.func.id == "super" and not e.args and scope.kind == "function":
            def zero_arg_super(fr):
                f = fr
                while f is not None and (f.fn is None or "__class_cell__" not in f.fn.__dict__):
                    f = f.outer
                if f is None:
                    raise Degrade("zero-argument super() outside a method")
                first = f.fn.code.params[0]
                return super(f.fn.__dict__["__class_cell__"], f.L[first])
            return zero_arg_super
        fn = self.expr(e.func, scope)
        simple = not any(type(a) is ast.Starred for a in e.args) and all(k.arg for k in e.keywords)
        if simple:
            args = [self.expr(a, scope) for a in e.args]
            kws = [(k.arg, self.expr(k.value, scope)) for k in e.keywords]
            if not kws:
                if len(args) == 1:
                    a0 = args[0]
                    return lambda fr: call_value(fn(fr), (a0(fr),), None)
                return lambda fr: call_value(fn(fr), tuple(a(fr) for a in args), None)
            return lambda fr: call_value(fn(fr), tuple(a(fr) for a in args), {k: v(fr) for k, v in kws})
        items = self._items(e.args, scope)
        kwparts = [(k.arg, self.expr(k.value, scope)) for k in e.keywords]

        def run(fr):
            f = fn(fr)
            try:
                a = tuple(items(fr))
            except _StarUnknown:
                return Unknown("a call with *unknown arguments")
            kw = {}
            for k, v in kwparts:
                x = v(fr)
                if k is None:
                    if type(x) is Unknown:
                        return Unknown("a call with **unknown")
                    kw.update(x)
                else:
                    kw[k] = x
            return call_value(f, a, kw)
        return run

    def _comp(self, e, scope, kind):
        # long on purpose: comprehension semantics (generators, conditions, unknown iterables) compiled into one
        # closure
        cscope = Scope("comp", scope, scope.qual)
        for g in e.generators:
            for n in ast.walk(g.target):
                if type(n) is ast.Name:
                    cscope.locals.add(n.id)
        first_iter = self.expr(e.generators[0].iter, scope)
        gens = []
        for i, g in enumerate(e.generators):
            gens.append((None if i == 0 else self.expr(g.iter, cscope), self.store(g.target, cscope),
                         [self.test(c, cscope) for c in g.ifs]))
        if kind == "dict":
            key = self.expr(e.key, cscope)
            val = self.expr(e.value, cscope)
        else:
            elt = self.expr(e.elt, cscope)
        in_class = scope.kind == "class"
        where = f"{self.file}:{e.lineno}"

        def run(fr):
            it0 = first_iter(fr)
            cfr = Frame({}, fr.outer if in_class else fr, fr.G)
            out = [] if kind != "dict" else {}
            unknown = [None]

            def loop(level, it):
                if type(it) is Unknown:
                    unknown[0] = it
                    return
                if id(it) in TAINTED:
                    unknown[0] = Unknown("iteration over a collection joined from two paths")
                    return
                _, st, ifs = gens[level]
                try:
                    seq = list(it)
                except UnknownSignal:
                    unknown[0] = Unknown("iteration over an unknown")
                    return
                for x in seq:
                    st(cfr, x)
                    ok = True
                    for c in ifs:
                        r = c(cfr)
                        if r is False:
                            ok = False
                            break
                        if r is not True:
                            unknown[0] = r
                            ok = False
                            break
                    if not ok:
                        continue
                    if level + 1 < len(gens):
                        loop(level + 1, gens[level + 1][0](cfr))
                    elif kind == "dict":
                        k = key(cfr)
                        if type(k) is Unknown:
                            unknown[0] = k
                            continue
                        try:
                            out[k] = val(cfr)
                        except UnknownSignal:
                            unknown[0] = Unknown("unknown key")
                    else:
                        out.append(elt(cfr))
            loop(0, it0)
            if unknown[0] is not None:
                return Unknown(f"comprehension over an unknown at {where}")
            if kind == "set":
                try:
                    return set(out)
                except UnknownSignal:
                    return Unknown("a set of unknown values")
            if kind == "gen":
                return iter(out)
            return out
        return run

    def e_ListComp(self, e, scope):
        return self._comp(e, scope, "list")

    def e_SetComp(self, e, scope):
        return self._comp(e, scope, "set")

    def e_DictComp(self, e, scope):
        return self._comp(e, scope, "dict")

    def e_GeneratorExp(self, e, scope):
        return self._comp(e, scope, "gen")

    def e_Yield(self, e, scope):
        v = self.expr(e.value, scope) if e.value is not None else (lambda fr: None)

        def run(fr):
            f = fr
            while "$yield" not in f.L:
                f = f.outer
            f.L["$yield"].append(v(fr))
            return None
        return run

    def e_YieldFrom(self, e, scope):
        v = self.expr(e.value, scope)

        def run(fr):
            x = v(fr)
            if type(x) is Unknown:
                raise Degrade("yield from an unknown")
            fr.L["$yield"].extend(list(x))
            return None
        return run

    def e_Await(self, e, scope):
        v = self.expr(e.value, scope)
        return lambda fr: (v(fr), Unknown("await"))[1]
