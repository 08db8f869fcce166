"""How the interpreter (`flow`) follows changes of a list, a dict or a
string in place: ``+=``, ``append``/``extend``/``insert``, ``update``,
``setdefault``, ``pop``, ``d[k] = v``. Each takes the value as it is on
one path and returns the changed value."""

from __future__ import annotations

from typing import Optional

import libcst as cst

from sgllint.formats.python.evaluate import Evaluator
from sgllint.formats.python.values import AbsVal, DictVal, Entry, ListVal, Scalar, Splat, Str, unknown


def extend(ev: Evaluator, node: cst.AugAssign, current: AbsVal) -> AbsVal:
    """``x += value``: lists grow; strings keep every piece's offsets."""
    right = ev.value(node.value)
    if isinstance(current, ListVal):
        return ListVal(current.items + tuple(_items_of(ev, right, node.value)), current.span)
    if isinstance(current, Scalar) and (isinstance(current.value, str) or current.text is not None):
        left_text = ev.as_str(current, node.target)
        right_text = ev.as_str(right, node.value, ev.ctx.span(node.value))
        if left_text is not None and right_text is not None:
            joined: Str = left_text + right_text
            return ev.string_scalar(joined, joined.span(ev.ctx.source))
    numbers = (int, float)
    if isinstance(current, Scalar) and isinstance(right, Scalar) and isinstance(current.value, numbers) and isinstance(right.value, numbers):
        return Scalar(current.value + right.value, ev.ctx.span(node))
    return unknown(ev.ctx.code(node.target), "changed by an operator")


def _items_of(ev: Evaluator, value: AbsVal, node) -> list:
    if isinstance(value, ListVal):
        return list(value.items)
    return [Splat(f"{ev.ctx.code(node)} may hold any number of arguments", ev.ctx.span(node))]


def _positional_args(call: cst.Call) -> Optional[list]:
    if any(a.keyword is not None or a.star for a in call.args):
        return None
    return [a.value for a in call.args]


def _list_append(ev: Evaluator, lst: ListVal, call: cst.Call, name: str) -> ListVal:
    args = _positional_args(call)
    if args is None or len(args) != 1:
        return ListVal(lst.items + (Splat(f"'{name}' is changed at run time"),), lst.span)
    return ListVal(lst.items + (ev.value(args[0]),), lst.span)


def _list_extend(ev: Evaluator, lst: ListVal, call: cst.Call, name: str) -> ListVal:
    args = _positional_args(call)
    if args is None or len(args) != 1:
        return ListVal(lst.items + (Splat(f"'{name}' is changed at run time"),), lst.span)
    return ListVal(lst.items + tuple(_items_of(ev, ev.value(args[0]), args[0])), lst.span)


def _list_insert(ev: Evaluator, lst: ListVal, call: cst.Call, name: str) -> ListVal:
    args = _positional_args(call)
    index = ev.value(args[0]) if args and len(args) == 2 else None
    items = list(lst.items)
    if isinstance(index, Scalar) and isinstance(index.value, int) and not any(isinstance(i, Splat) for i in items):
        items.insert(index.value, ev.value(args[1]))
        return ListVal(tuple(items), lst.span)
    return ListVal((Splat(f"'{name}' is changed at run time"),), lst.span)


def _list_reordered(ev: Evaluator, lst: ListVal, call: cst.Call, name: str) -> ListVal:
    return ListVal((Splat(f"'{name}' is changed at run time"),), lst.span)


def _dict_update(ev: Evaluator, d: DictVal, call: cst.Call, name: str) -> DictVal:
    update = ev.keywords_dict(call, call.args)
    for e in update.entries:
        d = d.with_entry(e)
    for reason in update.opaque:
        d = d.with_opaque(reason)
    return d


def _dict_setdefault(ev: Evaluator, d: DictVal, call: cst.Call, name: str) -> DictVal:
    args = _positional_args(call)
    key = ev.value(args[0]) if args else None
    if not (isinstance(key, Scalar) and isinstance(key.value, str)):
        return d.with_opaque(f"a key of '{name}' is set at run time")
    if d.get(key.value) is not None:
        return d
    value = ev.value(args[1]) if len(args) > 1 else Scalar(None, key.span)
    return d.with_entry(Entry(key.value, key.span, value))


def _dict_pop(ev: Evaluator, d: DictVal, call: cst.Call, name: str) -> DictVal:
    args = _positional_args(call)
    key = ev.value(args[0]) if args else None
    if isinstance(key, Scalar) and isinstance(key.value, str):
        return d.without(key.value)
    return d.with_opaque(f"a key of '{name}' is removed at run time")


def _dict_clear(ev: Evaluator, d: DictVal, call: cst.Call, name: str) -> DictVal:
    return DictVal((), d.opaque, d.span)


_LIST_MUTATIONS = {
    "append": _list_append,
    "extend": _list_extend,
    "insert": _list_insert,
    "sort": _list_reordered,
    "reverse": _list_reordered,
    "remove": _list_reordered,
    "pop": _list_reordered,
    "clear": lambda ev, lst, call, name: ListVal((), lst.span),
}

_DICT_MUTATIONS = {
    "update": _dict_update,
    "setdefault": _dict_setdefault,
    "pop": _dict_pop,
    "clear": _dict_clear,
}


def method_mutation(container: AbsVal, method: str):
    """How ``container.method(...)`` changes it (None: it does not)."""
    if isinstance(container, ListVal):
        return _LIST_MUTATIONS.get(method)
    if isinstance(container, DictVal):
        return _DICT_MUTATIONS.get(method)
    return None


def write_item(container: AbsVal, key: Optional[AbsVal], value: Optional[AbsVal], name: str, delete: bool) -> AbsVal:
    """``container[key] = value`` (``del container[key]`` with ``delete``)."""
    known_key = key.value if isinstance(key, Scalar) and key.known else None
    if isinstance(container, DictVal):
        if not isinstance(known_key, str):
            return container.with_opaque(f"a key of '{name}' is set at run time")
        if delete:
            return container.without(known_key)
        return container.with_entry(Entry(known_key, key.span, value))
    items = list(container.items)
    if isinstance(known_key, int) and not any(isinstance(i, Splat) for i in items) and -len(items) <= known_key < len(items):
        if delete:
            del items[known_key]
        else:
            items[known_key] = value
    else:
        items = [Splat(f"'{name}' is changed at run time")]
    return ListVal(tuple(items), container.span)
