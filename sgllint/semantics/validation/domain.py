"""The three-valued value domain of the evaluator (issue 17).

A value is a concrete Python value or an ``Unknown`` (with the reason it is
not known). Comparisons and boolean operators are three-valued: ``truth``
answers True, False or ``Unknown``; ``Unknown`` is never an error.
"""

from __future__ import annotations

from sgllint.model import unknown as model_unknown


class Unknown(model_unknown.Unknown):
    """A value the evaluator cannot know (a fact not given, an unmodelled
    call, the join of two different values). ``why`` says which.

    A kind of the one `sgllint.model.unknown.Unknown` (``isinstance`` and
    ``known`` hold), with another algebra: the evaluator runs SGLang's own
    code on it, so Python must never answer its truth, hash or length (the
    lint-time `UNKNOWN` is falsy, which here would take one side of an
    ``if`` SGLang may not take); ``interp`` makes those raise
    ``UnknownSignal`` and operators absorb. ``type(v) is Unknown`` is the
    evaluator's fast test for it."""

    __slots__ = ()

    def __init__(self, why: str = "unknown"):
        self.why = why

    def __repr__(self) -> str:
        return f"Unknown({self.why})"

    def __bool__(self):  # a bug if reached: three-valued code must use truth()
        raise TypeError("the truth of Unknown is not known: use domain.truth()")


def is_unknown(v) -> bool:
    return type(v) is Unknown


def truth(v):
    """``True``/``False`` or an ``Unknown``: the truth of ``v``."""
    if type(v) is Unknown:
        return v
    try:
        return bool(v)
    except Exception:  # noqa: BLE001 - an object whose truth is not modelled
        return Unknown("truth of an unmodelled value")


def not3(v):
    t = truth(v)
    return t if type(t) is Unknown else not t


def and3(a, b):
    """Kleene AND of two truth values (True/False/Unknown)."""
    if a is False or b is False:
        return False
    if a is True and b is True:
        return True
    return a if type(a) is Unknown else b


def or3(a, b):
    """Kleene OR (De Morgan over ``and3``)."""
    return not3(and3(not3(a), not3(b)))


def join(a, b):
    """The join of two values on two paths: equal values stay, anything else
    is Unknown (containers of the same shape are joined element-wise)."""
    if a is b:
        return a
    ta, tb = type(a), type(b)
    if ta is Unknown:
        return a
    if tb is Unknown:
        return b
    if ta is tb:
        if ta in (list, tuple) and len(a) == len(b):
            out = [join(x, y) for x, y in zip(a, b)]
            return out if ta is list else tuple(out)
        if ta is dict and a.keys() == b.keys():
            return {k: join(a[k], b[k]) for k in a}
        try:
            if a == b:
                return a
        except Exception:  # noqa: BLE001
            pass
    elif ta in (int, float, bool) and tb in (int, float, bool):
        try:
            if a == b and (ta is bool) == (tb is bool):
                return a
        except Exception:  # noqa: BLE001
            pass
    return Unknown("differs between paths")


def havoc(v):
    """``v`` with its contents unknown but its shape (keys) kept."""
    t = type(v)
    if t is dict:
        return {k: Unknown("differs between paths") for k in v}
    if t is tuple:
        return tuple(havoc(x) for x in v)
    return Unknown("differs between paths")


def join_into(container, a, b) -> None:
    """Set the mutable ``container`` (list/dict/set) to the join of its two
    path states ``a`` and ``b`` (copies), in place (its identity is shared)."""
    t = type(container)
    if len(a) == len(b) and _shallow_same(a, b, t):
        _set(container, b, t)
        return
    if t is list:
        n = 0
        while n < len(a) and n < len(b) and a[n] is b[n]:
            n += 1
        if len(a) == len(b):
            rest = [join(x, y) for x, y in zip(a[n:], b[n:])]
        else:  # one path appended more: keep the shapes, lose the values
            rest = [havoc(x) for x in a[n:]] + [havoc(x) for x in b[n:]]
        container[:] = list(a[:n]) + rest
    elif t is dict:
        out = {}
        for k in list(a) + [k for k in b if k not in a]:
            if k in a and k in b:
                out[k] = join(a[k], b[k])
            else:
                out[k] = Unknown("set on one path only")
        container.clear()
        container.update(out)
    elif t is set:
        both = a & b
        container.clear()
        container.update(both)
        if a != b:
            TAINTED.add(id(container))


def _shallow_same(a, b, t) -> bool:
    if t is dict:
        return all(k in b and a[k] is b[k] for k in a)
    if t is list:
        return all(x is y for x, y in zip(a, b))
    return a == b


def _set(container, b, t) -> None:
    if container is b:
        return
    if t is list:
        if len(container) != len(b) or any(x is not y for x, y in zip(container, b)):
            container[:] = b
    elif t is dict:
        if container.keys() != b.keys() or any(container[k] is not b[k] for k in b):
            container.clear()
            container.update(b)
    else:
        container.clear()
        container.update(b)


#: ids of containers whose contents are not known (a set joined from two
#: different paths): reading them gives Unknown
TAINTED: set[int] = set()
