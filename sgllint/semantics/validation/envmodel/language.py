"""Python itself as the interpreted code sees it: the builtins that must answer three-valued
(``hasattr``, ``getattr``, ``isinstance``, ``len`` ... of an Unknown), and class construction
(unmodelled bases, enums, dataclasses)."""

from __future__ import annotations

import builtins
import dataclasses
import enum
import types

from .. import interp
from ..domain import Unknown
from ..interp import Func, UnknownSignal
from .fake_modules import FakeModule, _noop
from .hf_config import HFConfig
from .libraries import Struct, _exit


# ---- builtins -------------------------------------------------------------------------------


def _hasattr(obj, name):
    if type(obj) is Unknown or type(name) is Unknown:
        return Unknown("hasattr of an unknown")
    try:
        v = getattr(obj, name)
    except AttributeError:
        return False
    except UnknownSignal:
        return Unknown("hasattr")
    if type(v) is Unknown and isinstance(obj, (HFConfig, FakeModule, Unknown)):
        return Unknown(f"whether {name} is set")
    if type(v) is Unknown and getattr(type(obj), "$unknown_base", False):
        return Unknown(f"whether {name} is set")
    return True


_NOARG = object()


def _getattr(obj, name, default=_NOARG):
    if type(obj) is Unknown:
        return obj
    if type(name) is Unknown:
        return name
    try:
        v = getattr(obj, name)
    except AttributeError:
        if default is _NOARG:
            raise
        return default
    if type(v) is interp.Lazy:
        v = v.force()
    if type(v) is Unknown and default is not _NOARG and isinstance(obj, HFConfig):
        return Unknown(f"config.{name} (not in config.json; default {default!r} or the class's)")
    return v


def _isinstance(obj, cls):
    if type(obj) is Unknown or type(cls) is Unknown:
        return Unknown("isinstance of an unknown")
    if type(cls) is tuple and any(type(c) is Unknown for c in cls):
        return Unknown("isinstance against an unknown class")
    try:
        return isinstance(obj, cls)
    except TypeError:
        return Unknown("isinstance against a modelled class")


def _issubclass(c, cls):
    if type(c) is Unknown or type(cls) is Unknown:
        return Unknown("issubclass of an unknown")
    try:
        return issubclass(c, cls)
    except TypeError:
        return Unknown("issubclass")


def _super(*a):
    if not a:
        raise interp.Degrade("zero-argument super() outside a compiled method")
    return super(*a)


def _open(*a, **k):
    return Unknown("a file's contents")


def _callable(x):
    if type(x) is Unknown:
        return x
    return callable(x)


def _type(*a):
    if len(a) == 1 and type(a[0]) is Unknown:
        return a[0]
    return type(*a)


def _len(x):
    if type(x) is Unknown:
        return x
    if id(x) in interp.TAINTED:
        return Unknown("the length of a collection joined from two paths")
    return len(x)


BUILTINS = dict(builtins.__dict__)
BUILTINS.update({"hasattr": _hasattr, "getattr": _getattr, "isinstance": _isinstance, "issubclass": _issubclass,
                 "print": _noop, "open": _open, "callable": _callable, "len": _len,
                 "input": _open, "exec": _open, "eval": _open, "__import__": _open, "exit": _exit, "quit": _exit})
_getattr.__name__ = "getattr"


# ---- classes -------------------------------------------------------------------------------


def _unknown_getattr(self, name):
    if name.startswith("__") and name.endswith("__"):
        raise AttributeError(name)
    return Unknown(f"{type(self).__name__}.{name} (an unmodelled base class)")


class UnknownBase:
    """Stands for a base class outside the model (torch.nn.Module...)."""


def make_class(name, bases, ns, kws, modqual):
    bases = list(bases)
    unknown_base = False
    for i, b in enumerate(bases):
        if type(b) is Unknown or isinstance(b, FakeModule) or not isinstance(b, type):
            bases[i] = None
            unknown_base = True
    bases = [b for b in bases if b is not None]
    if unknown_base and not bases:
        bases = [UnknownBase]
    if unknown_base and "__getattr__" not in ns:
        ns["__getattr__"] = _unknown_getattr
    ns.pop("__classcell__", None)
    ns.pop("__del__", None)  # finalizers would run outside any launch
    meta = kws.pop("metaclass", None)
    if any(isinstance(b, enum.EnumMeta) for b in bases):
        return _make_enum(name, bases, ns)
    try:
        cls = types.new_class(name, tuple(bases), {}, lambda d: d.update(ns))
    except TypeError:
        cls = type(name, tuple(b for b in bases if b is not Struct) or (object,), ns)
    if unknown_base:
        setattr(cls, "$unknown_base", True)
    setattr(cls, "$interp", True)
    _ = meta
    _set_class_cell(cls, ns)
    return cls


def _set_class_cell(cls, ns):
    for v in ns.values():
        f = v
        if isinstance(v, (staticmethod, classmethod)):
            f = v.__func__
        elif isinstance(v, property):
            for g in (v.fget, v.fset):
                if type(g) is Func:
                    g.__dict__["__class_cell__"] = cls
            continue
        if type(f) is Func:
            f.__dict__["__class_cell__"] = cls


def _make_enum(name, bases, ns):
    meta = type(bases[-1]) if isinstance(bases[-1], enum.EnumMeta) else enum.EnumMeta
    d = meta.__prepare__(name, tuple(bases))
    for k, v in ns.items():
        if k in ("__module__", "__qualname__"):
            dict.__setitem__(d, k, v)
            continue
        if type(v) is Unknown:
            v = f"<unknown {k}>"
        d[k] = v
    cls = meta(name, tuple(bases), d)
    setattr(cls, "$interp", True)
    _set_class_cell(cls, ns)
    return cls


def _auto():
    return enum.auto()


def _enum():
    attrs = {k: getattr(enum, k) for k in dir(enum) if not k.startswith("_")}
    return FakeModule("enum", attrs)


def _dataclass(cls=None, /, **kw):
    """``dataclasses.dataclass`` on an interpreted class: the real one, told
    the class lives in ``typing`` while it reads string annotations (the
    interpreted module is not in ``sys.modules``)."""
    def wrap(c):
        mod = c.__module__
        c.__module__ = "typing"
        try:
            out = dataclasses.dataclass(c, **kw)
        finally:
            c.__module__ = mod
        out.__module__ = mod
        return out
    return wrap if cls is None else wrap(cls)


def _dataclasses():
    attrs = {k: getattr(dataclasses, k) for k in dir(dataclasses) if not k.startswith("_")}
    attrs["dataclass"] = _dataclass
    return FakeModule("dataclasses", attrs)
