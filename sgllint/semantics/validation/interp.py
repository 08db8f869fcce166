"""An abstract interpreter for SGLang's start-up code, compiled to closures.

Each ``ast`` node of a release's start-up modules is compiled once per release
into a Python closure (``compile_module``); a launch runs those closures
(``Run``). Values are concrete Python values or ``domain.Unknown``.
Interpreted classes are real Python classes whose methods are interpreted
functions (``Func``, a descriptor), so attribute lookup, properties,
``__getattr__``/``__setattr__``, dataclasses and exceptions behave as Python's
own; the interpreter only decides what runs and how Unknown flows:

* a branch on an Unknown condition runs both sides and joins the states (the
  mutable containers each side touched are snapshotted and joined in place);
  an exception escaping one side is a *possible* rejection, the side dies;
* an exception escaping on a definite path is the *definite* rejection;
* calls outside the interpreted code go through the environment model
  (``envmodel``); an unmodelled call answers Unknown.

Nothing here imports sglang or torch: the code is data (``ast`` trees).
"""

from __future__ import annotations

import ast
import builtins
import operator
import sys
from typing import Any, Callable

from .domain import TAINTED, Unknown, join, join_into

# --------------------------------------------------------------------------
# Signals
# --------------------------------------------------------------------------


class UnknownSignal(BaseException):
    """Python asked for the truth, hash or length of an Unknown inside native
    code; the expression that started it answers Unknown."""


class Degrade(BaseException):
    """The evaluation cannot go on precisely (an unsupported construct under
    an unknown path): nothing definite is reported after this point."""

    def __init__(self, why: str):
        super().__init__(why)
        self.why = why
        self.trace: list = []


def _unk_signal(self, *a):
    raise UnknownSignal()


def _unk_self(self, *a, **k):
    return self


def _unknown_dunders():
    for n in ("add radd sub rsub mul rmul truediv rtruediv floordiv rfloordiv mod rmod pow rpow and rand or ror "
              "xor rxor lshift rlshift rshift rrshift matmul rmatmul neg pos abs invert eq ne lt le gt ge "
              "getitem call").split():
        setattr(Unknown, f"__{n}__", _unk_self)
    for n in ("bool", "hash", "len", "iter", "contains", "index", "int", "float", "next"):
        setattr(Unknown, f"__{n}__", _unk_signal)
    Unknown.__format__ = lambda self, spec: "<?>"
    Unknown.__str__ = lambda self: "<?>"
    Unknown.__getattr__ = lambda self, name: self if not name.startswith("__") else _raise_attr(name)


def _raise_attr(name):
    raise AttributeError(name)


_unknown_dunders()

BREAK = object()
CONTINUE = object()


class Ret:
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


# --------------------------------------------------------------------------
# Runtime state of one launch
# --------------------------------------------------------------------------


class Level:
    """One open speculation (a branch on an Unknown condition): the mutable
    containers touched since it opened, with their contents at that time.
    The launch's base level also records classes (restored after it)."""

    __slots__ = ("snaps", "classes")

    def __init__(self):
        self.snaps: dict[int, tuple[object, object]] = {}
        self.classes: dict[int, tuple] = {}


def _copy(c):
    t = type(c)
    if t is list:
        return list(c)
    if t is dict:
        return dict(c)
    if t is set:
        return set(c)
    return None


def _restore(c, saved) -> None:
    t = type(c)
    if t is list:
        c[:] = saved
    elif t is dict or t is set:
        c.clear()
        c.update(saved)


class Run:
    """Per-launch state: speculation levels, sites of exceptions, the
    possible rejections, the caches of ``functools.cache``d functions."""

    def __init__(self, env):
        self.env = env
        self.levels: list[Level] = []
        self.sites: dict[int, tuple] = {}
        self.keep: list = []
        self.possible: list[tuple] = []
        self.uncertain: set[int] = set()
        self.caches: dict[int, dict] = {}
        self.steps = 0
        self.observers: dict[str, Callable] = {}
        self.writes: dict[str, tuple] = {}
        self.cur_site: tuple | None = None
        self.base: Level | None = None
        self.watch: tuple | None = None
        self.pendings: list = []
        self.active: dict = {}
        self.tainted: str | None = None  # why the record may have changed in a way not followed
        self.explicit: set[int] = set()  # exceptions SGLang's own raise/assert/sys.exit made

    def touch(self, c) -> None:
        """``c`` (list/dict/set or an object's __dict__) is about to change."""
        for lvl in reversed(self.levels):
            if id(c) in lvl.snaps:
                break
            lvl.snaps[id(c)] = (c, _copy(c))
        base = self.base
        if base is not None and id(c) not in base.snaps:
            base.snaps[id(c)] = (c, _copy(c))
        for p in self.pendings:
            if id(c) not in p.state and id(c) not in p.after:
                p.after[id(c)] = (c, _copy(c))

    def touch_class(self, cls) -> None:
        base = self.base
        if base is not None and id(cls) not in base.classes:
            base.classes[id(cls)] = (cls, dict(vars(cls)))
        if self.levels:
            raise Degrade(f"a class attribute of {cls.__name__} set under an unknown condition")

    def restore_launch(self) -> None:
        """Undo what the launch changed in state that outlives it (module
        globals, objects and classes created at import)."""
        base = self.base
        if base is None:
            return
        for c, before in base.snaps.values():
            if before is not None:
                _restore(c, before)
        for cls, before in base.classes.values():
            for k in list(vars(cls)):
                if k not in before and not k.startswith("__"):
                    try:
                        delattr(cls, k)
                    except (AttributeError, TypeError):
                        pass
            for k, v in before.items():
                if not k.startswith("__") and vars(cls).get(k, _EMPTY) is not v:
                    try:
                        setattr(cls, k, v)
                    except (AttributeError, TypeError):
                        pass
        self.base = None


RT: Run = None  # type: ignore[assignment]  # the launch being evaluated (single-threaded)


def touch(c) -> None:
    RT.touch(c)


def touch_obj(o) -> None:
    if isinstance(o, type):
        RT.touch_class(o)
        return
    try:
        d = object.__getattribute__(o, "__dict__")
    except Exception:  # noqa: BLE001 - no __dict__ (slots): not tracked
        return
    if type(d) is dict:
        RT.touch(d)


def site_of(e) -> tuple | None:
    return RT.sites.get(id(e))


# --------------------------------------------------------------------------
# Functions and classes
# --------------------------------------------------------------------------


class Frame:
    __slots__ = ("L", "outer", "G", "pending", "fn")

    def __init__(self, L, outer, G, fn=None):
        self.L = L
        self.outer = outer
        self.G = G
        self.pending = None
        self.fn = fn


class Code:
    """A compiled function body and its signature."""

    __slots__ = ("name", "qualname", "module", "file", "line", "body", "params", "posonly", "kwonly", "vararg",
                 "kwarg", "is_gen", "is_async", "nparams")


_EMPTY = object()


class Func:
    """An interpreted function (a descriptor, so it binds as a method)."""

    __slots__ = ("code", "defaults", "kwdefaults", "outer", "G", "__dict__")

    def __init__(self, code: Code, defaults, kwdefaults, outer, G):
        self.code = code
        self.defaults = defaults
        self.kwdefaults = kwdefaults
        self.outer = outer
        self.G = G
        self.__dict__["__name__"] = code.name
        self.__dict__["__qualname__"] = code.qualname
        self.__dict__["__module__"] = code.module

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return BoundMethod(self, obj)

    def __call__(self, *args, **kwargs):
        return call_func(self, args, kwargs)

    def __repr__(self):
        return f"<interpreted function {self.code.qualname}>"


class BoundMethod:
    __slots__ = ("__func__", "__self__")

    def __init__(self, func, obj):
        self.__func__ = func
        self.__self__ = obj

    def __call__(self, *args, **kwargs):
        return call_func(self.__func__, (self.__self__, *args), kwargs)

    def __getattr__(self, name):
        if name in ("__name__", "__qualname__", "__module__", "__doc__"):
            return getattr(self.__func__, name)
        raise AttributeError(name)


def bind_args(code: Code, f: Func, args, kwargs) -> dict:
    L = {}
    params = code.params
    n = len(params)
    na = len(args)
    if na > n:
        if code.vararg is None:
            raise TypeError(f"{code.qualname}() takes {n} positional arguments but {na} were given")
        L[code.vararg] = tuple(args[n:])
        args = args[:n]
        na = n
    elif code.vararg is not None:
        L[code.vararg] = ()
    for i in range(na):
        L[params[i]] = args[i]
    extra = None
    if kwargs:
        for k, v in kwargs.items():
            if k in L and k in params:
                raise TypeError(f"{code.qualname}() got multiple values for argument '{k}'")
            if k in code.nparams:
                L[k] = v
            elif code.kwarg is not None:
                if extra is None:
                    extra = {}
                extra[k] = v
            else:
                raise TypeError(f"{code.qualname}() got an unexpected keyword argument '{k}'")
    if code.kwarg is not None:
        L[code.kwarg] = extra or {}
    if na < n:
        defaults = f.defaults
        nd = len(defaults)
        for i in range(na, n):
            p = params[i]
            if p not in L:
                j = i - (n - nd)
                if j < 0:
                    raise TypeError(f"{code.qualname}() missing required positional argument: '{p}'")
                L[p] = defaults[j]
    for p in code.kwonly:
        if p not in L:
            if p in f.kwdefaults:
                L[p] = f.kwdefaults[p]
            else:
                raise TypeError(f"{code.qualname}() missing required keyword-only argument: '{p}'")
    return L


MAX_DEPTH = 150
#: interpreted calls per launch before the evaluation gives up (a budget, not a fact)
MAX_CALLS = 30000
#: calls of one function active at once (recursion on unknown values explodes)
MAX_RECURSION = 12
_depth = [0]


def call_func(f: Func, args, kwargs):
    code = f.code
    obs = RT.observers.get(code.qualname)
    if obs is not None:
        obs(f, args, kwargs)
    if code.is_async:
        return Unknown(f"async {code.qualname}")
    L = bind_args(code, f, args, kwargs)
    RT.steps += 1
    if RT.steps > MAX_CALLS:
        raise Degrade(f"over {MAX_CALLS} calls (at {code.qualname})")
    active = RT.active
    n = active.get(code, 0)
    if n and args and all(type(a) is Unknown for a in args):
        return Unknown(f"{code.qualname} called again on unknown values")
    if n >= MAX_RECURSION:
        raise Degrade(f"recursion deeper than {MAX_RECURSION} in {code.qualname}")
    active[code] = n + 1
    fr = Frame(L, f.outer, f.G, f)
    _depth[0] += 1
    if _depth[0] > MAX_DEPTH:
        _depth[0] -= 1
        raise Degrade(f"call depth over {MAX_DEPTH} at {code.qualname}")
    try:
        if code.is_gen:
            out: list = []
            L["$yield"] = out
            _run_body(code, fr)
            return iter(out)
        return _run_body(code, fr)
    finally:
        _depth[0] -= 1
        active[code] = n


def _run_body(code: Code, fr: Frame):
    try:
        r = code.body(fr)
    except (Degrade, UnknownSignal):
        raise
    except BaseException as e:
        if fr.pending:  # another path returned before this one raised: it is only possible
            note_possible(e, "raised after an unknown branch returned")
            return _settle_pending(fr, None, dead=True)
        raise
    value = r.value if type(r) is Ret else None
    if fr.pending:
        return _settle_pending(fr, value, dead=False)
    return value


class Pending:
    """A path that returned under an unknown condition while another path of
    the same function goes on: its value, the contents of the containers it
    had changed (``state``), and the contents, at its return, of containers the
    going-on path touches later (``after``)."""

    __slots__ = ("value", "state", "after")

    def __init__(self, value, state):
        self.value = value
        self.state = state
        self.after: dict = {}


def _settle_pending(fr: Frame, value, dead: bool):
    """Join the state and result of the paths that returned under an
    unknown condition (``fr.pending``) with the path that ended here
    (``dead``: that path raised, so only the returned ones are left)."""
    for p in reversed(fr.pending):
        try:
            RT.pendings.remove(p)
        except ValueError:
            pass
    for p in reversed(fr.pending):
        items = list(p.state.items()) + [(k, v) for k, v in p.after.items() if k not in p.state]
        for key, (c, saved) in items:
            if saved is None:
                continue
            RT.touch(c)
            if dead:
                _restore(c, saved)
            else:
                join_into(c, saved, _copy(c))
        value = p.value if dead else join(p.value, value)
        dead = False
    fr.pending = None
    return value


def note_possible(e, why: str) -> None:
    e.__traceback__ = None  # a possible rejection is kept for the verdict, not its trace
    site = RT.sites.get(id(e))
    if site is not None:
        RT.possible.append((site, e, why))


class CachedFunc:
    """``functools.cache``/``lru_cache`` of an interpreted function: cached per
    launch (a release's module state outlives launches)."""

    def __init__(self, f):
        self.__wrapped__ = f
        self.__name__ = getattr(f, "__name__", "f")
        self.__qualname__ = getattr(f, "__qualname__", self.__name__)

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return BoundMethod(self, obj)

    def __call__(self, *args, **kwargs):
        cache = RT.caches.setdefault(id(self), {})
        try:
            key = (args, tuple(sorted(kwargs.items())))
            hash(key)
        except (TypeError, UnknownSignal):
            return call_value(self.__wrapped__, args, kwargs)
        if key in cache:
            return cache[key]
        v = call_value(self.__wrapped__, args, kwargs)
        cache[key] = v
        return v

    def cache_clear(self):
        RT.caches.pop(id(self), None)


# --------------------------------------------------------------------------
# Calling anything
# --------------------------------------------------------------------------

#: native callables that store Unknown arguments as they are, without looking at them
_STORING = {"append", "insert", "setdefault", "get", "update", "add", "pop", "__setattr__", "setattr", "dict", "tuple",
            "list", "partial", "__setitem__", "isinstance_unknown_ok", "getattr", "Namespace", "SimpleNamespace",
            "warning", "info", "debug", "error", "warn", "print", "id", "exception", "critical", "log"}
_MUTATORS = {"append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse", "update", "setdefault",
             "popitem", "add", "discard", "difference_update", "intersection_update", "symmetric_difference_update",
             "__setitem__", "__delitem__"}
_CONTAINERS = (list, dict, set)
_builtin_method = type([].append)
_NATIVE_OK = (type(len), _builtin_method, type(str.join), type(dict.__dict__["fromkeys"]))


def call_value(fn, args, kwargs):
    t = type(fn)
    if t is Func:
        return call_func(fn, args, kwargs)
    if t is BoundMethod:
        return call_value(fn.__func__, (fn.__self__, *args), kwargs)
    if t is Unknown:
        return fn
    if t is _builtin_method and type(getattr(fn, "__self__", None)) in _CONTAINERS and fn.__name__ in _MUTATORS:
        RT.touch(fn.__self__)
    name = getattr(fn, "__name__", "")
    if name not in _STORING and not getattr(fn, "$interp", False):
        for a in args:
            if type(a) is Unknown:
                return a
        if kwargs:
            for a in kwargs.values():
                if type(a) is Unknown:
                    return a
    elif name in ("setattr", "__setattr__") and args:
        touch_obj(args[0])
    try:
        return fn(*args, **kwargs) if kwargs else fn(*args)
    except UnknownSignal:
        return Unknown(f"{name}() of an unknown value")
    except (TypeError, ValueError, AttributeError, KeyError, IndexError) as e:
        if _mentions_unknown(args, kwargs):
            return Unknown(f"{name}() on an unknown value")
        raise e


def _mentions_unknown(args, kwargs, depth=0) -> bool:
    for a in list(args) + list(kwargs.values() if kwargs else ()):
        if type(a) is Unknown:
            return True
        if depth < 3 and type(a) in (list, tuple, set, frozenset) and _mentions_unknown(a, None, depth + 1):
            return True
        if depth < 3 and type(a) is dict and _mentions_unknown(list(a.values()), None, depth + 1):
            return True
    return False


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


# --------------------------------------------------------------------------
# The compiler
# --------------------------------------------------------------------------

_BINOPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
           ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow,
           ast.LShift: operator.lshift, ast.RShift: operator.rshift, ast.BitOr: operator.or_,
           ast.BitXor: operator.xor, ast.BitAnd: operator.and_, ast.MatMult: operator.matmul}
_CMPS = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt,
         ast.GtE: operator.ge, ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b}
_BUILTINS = builtins.__dict__


class Unsupported(Exception):
    pass


def _truth(v):
    if v is True or v is False:
        return v
    if type(v) is Unknown:
        return v
    try:
        return bool(v)
    except UnknownSignal:
        return Unknown("truth of a value holding an unknown")


def _unknown_ok_cmp(op, a, b):
    try:
        r = op(a, b)
    except UnknownSignal:
        return Unknown("comparison with an unknown")
    except TypeError:
        if type(a) is Unknown or type(b) is Unknown:
            return Unknown("comparison with an unknown")
        raise
    if type(r) is not bool and type(r) is not Unknown:
        return _truth(r)
    return r


class Compiler:
    """Compiles one module's ``ast`` into closures."""

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

    # ---- stores -------------------------------------------------------------------
    def store(self, t, scope: Scope):
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


def _star_safe(items, fr, kind):
    try:
        out = items(fr)
    except _StarUnknown:
        return Unknown("a display with *unknown")
    return out if kind is list else tuple(out)


def _assigned_names(loop) -> set:
    s = Scope("function", None)
    _bound_names([loop], s)
    return s.locals


def _kleene(parts, decides: bool):
    """``and`` (``decides`` False) or ``or`` (True) of three-valued tests: the
    deciding value wins even after an unknown operand (the rest is evaluated)."""
    other = not decides

    def run(fr):
        unk = None
        for p in parts:
            r = p(fr)
            if r is decides:
                return decides
            if r is not other:
                unk = r
        return other if unk is None else unk
    return run


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


def _at_site(e, site):
    """The exception to let out of the statement at ``site``: SGLang's and
    Python's own exceptions remember the innermost statement they came from;
    the evaluator's signals gather a trace (Degrade) or become one
    (an unknown value that reached a native operation)."""
    t = type(e)
    if t is Degrade:
        e.trace.append(site)
        return e
    if t is _LoopUnknown:
        return e
    if t is UnknownSignal:
        d = Degrade(f"an unknown value reached a native operation at {site[0]}:{site[1]}")
        d.trace.append(site)
        return d
    if id(e) not in RT.sites:
        RT.sites[id(e)] = site
        RT.keep.append(e)
    # kept for the launch (its id names its site): its trace would keep every frame alive
    e.__traceback__ = None
    return e


def _walk_scope(nodes):
    stack = list(nodes)
    while stack:
        n = stack.pop()
        yield n
        for c in ast.iter_child_nodes(n):
            if type(c) not in (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef):
                stack.append(c)


def _quiet(f, fr):
    """``f(fr)`` on a path that may not be taken: an exception is Unknown."""
    try:
        return f(fr)
    except (Degrade, UnknownSignal):
        raise
    except Exception:  # noqa: BLE001
        return Unknown("a branch that may raise")


def _repr(x):
    try:
        return repr(x)
    except UnknownSignal:
        return "<?>"


def _str(x):
    try:
        return str(x)
    except UnknownSignal:
        return "<?>"


_MISSING = object()


def _global(G, name):
    v = G.get(name, _MISSING)
    if v is _MISSING:
        v = _BUILTINS_MODEL.get(name, _MISSING)
        if v is _MISSING:
            raise NameError(f"name '{name}' is not defined")
        return v
    if type(v) is Lazy:
        v = v.force()
        G[name] = v
    return v


class Lazy:
    """A name imported from a module not loaded yet (resolved on first use)."""

    __slots__ = ("hooks", "mod", "name")

    def __init__(self, hooks, mod, name):
        self.hooks = hooks
        self.mod = mod
        self.name = name

    def force(self):
        return self.hooks.import_from(self.mod, self.name, lazy=False)


def get_attr(o, attr):
    t = type(o)
    if t is Unknown:
        return o
    try:
        v = getattr(o, attr)
    except UnknownSignal:
        return Unknown(f".{attr} of an unknown")
    if type(v) is Lazy:
        return v.force()
    return v


def _getitem(o, i):
    if type(o) is Unknown:
        return o
    if type(i) is Unknown:
        return Unknown("an item at an unknown index")
    if id(o) in TAINTED:
        return Unknown("an item of a collection joined from two paths")
    try:
        return o[i]
    except UnknownSignal:
        return Unknown("an item of an unknown")


def _binop(op, a, b):
    if type(a) is Unknown:
        return a
    if type(b) is Unknown:
        return b
    try:
        return op(a, b)
    except UnknownSignal:
        return Unknown("arithmetic on an unknown")
    except TypeError:
        if _mentions_unknown((a, b), None):
            return Unknown("arithmetic on an unknown")
        raise


class _LoopUnknown(BaseException):
    """break/continue under an unknown condition: the loop stops being followed."""


class _StarUnknown(Exception):
    """``*x`` of an unknown collection (the call's result is Unknown)."""


class _UnknownException(Exception):
    """``raise x`` where x is not known."""


def apply_decorator(d, f):
    if type(d) is Unknown:
        return f  # an unmodelled decorator: the function itself
    h = _DECORATORS.get(id(d))
    if h is not None:
        return h(f)
    return call_value(d, (f,), None) if type(d) in (Func, BoundMethod) else _native_decorate(d, f)


def _native_decorate(d, f):
    try:
        r = d(f)
    except Exception:  # noqa: BLE001
        return f
    return f if type(r) is Unknown else r


_DECORATORS: dict[int, Callable] = {}
_BUILTINS_MODEL: dict[str, Any] = {}


# --------------------------------------------------------------------------
# Speculation: a branch on an Unknown condition
# --------------------------------------------------------------------------

_PENDING = object()


def speculate(fr: Frame, body, orelse, where: str):
    """Run both branches from the same state and join them."""
    lvl = Level()
    RT.levels.append(lvl)
    dead_a = dead_b = None
    try:
        ra = body(fr)
    except (Degrade, UnknownSignal, _LoopUnknown):
        _pop(lvl)
        raise
    except BaseException as e:  # noqa: BLE001
        dead_a, ra = e, None
    state_a = {}
    for key, (c, before) in lvl.snaps.items():
        state_a[key] = _copy(c)
        _restore(c, before)
    try:
        rb = orelse(fr) if orelse is not None else None
    except (Degrade, UnknownSignal, _LoopUnknown):
        _pop(lvl)
        raise
    except BaseException as e:  # noqa: BLE001
        dead_b, rb = e, None
    if dead_a is not None and dead_b is not None:
        _pop(lvl)
        note_possible(dead_a, f"under an unknown condition at {where}")
        RT.uncertain.add(id(dead_b))
        raise dead_b
    if dead_a is not None:
        note_possible(dead_a, f"under an unknown condition at {where}")
        _pop(lvl)
        return rb
    if dead_b is not None:
        note_possible(dead_b, f"under an unknown condition at {where}")
        for key, (c, before) in lvl.snaps.items():
            _restore(c, state_a.get(key, before))
        _pop(lvl)
        return ra
    a_exits = ra is not None
    b_exits = rb is not None
    if not a_exits and not b_exits:
        for key, (c, before) in lvl.snaps.items():
            join_into(c, state_a.get(key, before), _copy(c))
        _pop(lvl)
        return None
    if type(ra) is Ret and type(rb) is Ret:
        for key, (c, before) in lvl.snaps.items():
            join_into(c, state_a.get(key, before), _copy(c))
        _pop(lvl)
        return Ret(join(ra.value, rb.value))
    if type(ra) is Ret and rb is None or type(rb) is Ret and ra is None:
        # one path returned: the other goes on; they are joined when the function ends
        if fr.pending is None:
            fr.pending = []
        if type(ra) is Ret:
            p = Pending(ra.value, {k: (lvl.snaps[k][0], v) for k, v in state_a.items()})
        else:  # the else-path returned: the if-path goes on
            p = Pending(rb.value, {key: (c, _copy(c)) for key, (c, _b) in lvl.snaps.items()})
            for key, (c, before) in lvl.snaps.items():
                _restore(c, state_a.get(key, before))
        _pop(lvl)
        fr.pending.append(p)
        RT.pendings.append(p)
        return _PENDING
    # break/continue on one path: join both paths; the loop's outcome is unknown
    for key, (c, before) in lvl.snaps.items():
        join_into(c, state_a.get(key, before), _copy(c))
    _pop(lvl)
    raise _LoopUnknown(where)


def _pop(lvl: Level) -> None:
    """Close ``lvl``: the containers it touched stay touched for the outer levels."""
    if RT.levels[-1] is not lvl:
        raise Degrade("speculation levels out of order")
    RT.levels.pop()
    if RT.levels:
        outer = RT.levels[-1]
        for key, (c, before) in lvl.snaps.items():
            if key not in outer.snaps:
                outer.snaps[key] = (c, before)
