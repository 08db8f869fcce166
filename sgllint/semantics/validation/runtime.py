"""The interpreter's run time (issue 17): the signals, the per-launch state
(``Run``, ``RT``), interpreted functions and how anything is called, and the
speculation that runs both sides of a branch on an Unknown condition and joins
them. Split out of ``interp`` (its facade) by concern."""

from __future__ import annotations

from typing import Callable

from .domain import Unknown, join, join_into

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
        if isinstance(e, ValueError) and _exact_parser(fn) and args and type(args[0]) in (str, bytes):
            # the standard JSON parser on a concrete text fails exactly as SGLang's call does:
            # SGLang's failure, not a gap of the model (an implicit error would be possible only)
            RT.explicit.add(id(e))
        raise e


def _exact_parser(fn) -> bool:
    """``json.loads`` itself, or a model function that is it (``orjson.loads``)."""
    import json

    return fn is json.loads or getattr(fn, "exact_parser", False) is True


def _mentions_unknown(args, kwargs, depth=0) -> bool:
    for a in list(args) + list(kwargs.values() if kwargs else ()):
        if type(a) is Unknown:
            return True
        if depth < 3 and type(a) in (list, tuple, set, frozenset) and _mentions_unknown(a, None, depth + 1):
            return True
        if depth < 3 and type(a) is dict and _mentions_unknown(list(a.values()), None, depth + 1):
            return True
    return False


class _LoopUnknown(BaseException):
    """break/continue under an unknown condition: the loop stops being followed."""


# --------------------------------------------------------------------------
# Speculation: a branch on an Unknown condition
# --------------------------------------------------------------------------

_PENDING = object()


def speculate(fr: Frame, body, orelse, where: str):
    """Run both branches from the same state and join them."""
    # long on purpose: the branch join (run, snapshot, restore, run, join) shares its snapshots across every step
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
