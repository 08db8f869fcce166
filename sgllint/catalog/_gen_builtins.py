"""Python's builtins and pure methods applied to values folded by the
catalog generators' evaluator (:mod:`._gen_eval`): ``list``/``sorted``/
``dict``/... of known values, and non-mutating methods of ``str``, ``list``,
``dict`` and ``set``; an ``Unknown`` argument gives an ``Unknown``."""

from __future__ import annotations

from typing import Any

from sgllint.model.unknown import Unknown, has_unknown, known

#: the builtins the evaluator applies (`apply_builtin`)
BUILTINS = {
    "list",
    "set",
    "frozenset",
    "tuple",
    "sorted",
    "dict",
    "str",
    "int",
    "float",
    "bool",
    "len",
    "reversed",
    "min",
    "max",
}


def hashable(v: Any) -> bool:
    try:
        hash(v)
    except TypeError:
        return False
    return True


def sort_key(v: Any) -> tuple:
    return (type(v).__name__, str(v))


def to_set(items: list) -> Any:
    if any(not hashable(x) for x in items):
        return Unknown("set of unhashable")
    return set(items)


def apply_builtin(name: str, args: list, kwargs: dict) -> Any:
    if any(not known(a) for a in args):
        return Unknown(f"{name}(unknown)")
    if name in ("list", "tuple", "set", "frozenset", "sorted"):
        if not args:
            return {"list": [], "tuple": (), "set": set(), "frozenset": frozenset(), "sorted": []}[name]
        src = args[0]
        # an enum class of the package (a `_gen_eval.ClassObj`, which imports this
        # module, hence no isinstance): iterating it gives its members
        if getattr(src, "is_enum", False) is True:
            items = src.members()
        elif isinstance(src, dict):
            items = list(src.keys())
        elif isinstance(src, (set, frozenset)):
            items = sorted(src, key=sort_key)
        elif isinstance(src, (list, tuple, str)):
            items = list(src)
        else:
            return Unknown(f"{name}(?)")
        if name == "list":
            return items
        if name == "tuple":
            return tuple(items)
        if name == "sorted":
            if has_unknown(items):
                return Unknown("sorted unknown")
            return sorted(items, reverse=bool(kwargs.get("reverse")))
        if any(not hashable(x) for x in items):
            return Unknown("set")
        return set(items) if name == "set" else frozenset(items)
    if name in ("str", "int", "float", "bool", "len", "min", "max"):
        if has_unknown(args):
            return Unknown(name)
        return {"str": str, "int": int, "float": float, "bool": bool, "len": len, "min": min, "max": max}[name](*args)
    if name == "dict":
        if args and isinstance(args[0], dict):
            d = dict(args[0])
        else:
            d = {}
        d.update(kwargs)
        return d
    if name == "reversed" and args and isinstance(args[0], (list, tuple)):
        return list(reversed(args[0]))
    return Unknown(name)


_PURE_METHODS = {
    str: {"lower", "upper", "strip", "lstrip", "rstrip", "replace", "split", "join", "format", "startswith", "endswith", "title", "capitalize"},
    dict: {"keys", "values", "items", "get", "copy"},
    list: {"copy", "index", "count"},
    tuple: {"index", "count"},
    set: {"union", "copy", "difference", "intersection"},
    frozenset: {"union", "copy", "difference", "intersection"},
}
_MUTATING = {"extend", "append", "insert", "add", "update", "remove", "discard"}


def apply_method(obj: Any, name: str, args: list, kwargs: dict) -> Any:
    if name in _MUTATING:
        if name in ("extend", "update") and args and isinstance(args[0], dict) and isinstance(obj, list):
            args = [list(args[0])]
        if name in ("extend", "append", "insert") and args and not known(args[-1]):
            if isinstance(obj, list):
                obj.append(Unknown(f"{name}(unknown)"))
            return None
        getattr(obj, name)(*args, **kwargs)
        return None
    allowed = _PURE_METHODS.get(type(obj), set())
    if name not in allowed:
        return Unknown(f".{name}()")
    if name == "join" and args and isinstance(args[0], (list, tuple, set)):
        if has_unknown(args[0]):
            return Unknown("join")
        return obj.join(str(x) for x in args[0])
    if has_unknown(args):
        return Unknown(f".{name}()")
    res = getattr(obj, name)(*args, **kwargs)
    if name in ("keys", "values", "items"):
        return list(res)
    return res
