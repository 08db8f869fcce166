"""Operations on three-valued values at run time (issue 17): operators,
comparisons, attribute and item reads, names, decorators, and where an
exception came from."""

from __future__ import annotations

import ast
import builtins
import operator
from typing import Any, Callable

from .domain import TAINTED, Unknown
from .runtime import BoundMethod, Degrade, Func, UnknownSignal, _LoopUnknown, _mentions_unknown, call_value

RT = None  # the launch being evaluated: set with interp.set_run

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


def _star_safe(items, fr, kind):
    try:
        out = items(fr)
    except _StarUnknown:
        return Unknown("a display with *unknown")
    return out if kind is list else tuple(out)


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
