"""Partial knowledge: the one `UNKNOWN`, and questions that answer it.

A value sgllint cannot know statically (a shell variable, a template, a
value of the wrong type for its flag) is `UNKNOWN`, and so is the answer to
a question about it: three-valued (True, False, `UNKNOWN`), never a guess.
`UNKNOWN` is falsy, so ``if answer:`` reads "known to be true" and a rule
stays silent on what cannot be known; ``known(x)`` tells `UNKNOWN` apart from
False, None or 0. The semantics layer (effective values, the parallel
layout) and the rules speak this one vocabulary.

(`Unresolved`, in `sgllint.model.facts`, is different: the *argument text*
that could not be resolved, with its reason; its value is `UNKNOWN` here.)
"""

from __future__ import annotations

from typing import Any


class _Unknown:
    __slots__ = ()

    def __repr__(self) -> str:
        return "UNKNOWN"

    def __bool__(self) -> bool:
        return False

    def __reduce__(self) -> str:  # one object, also across processes and copies
        return "UNKNOWN"


UNKNOWN: Any = _Unknown()


def known(*values: Any) -> bool:
    """True when none of ``values`` is `UNKNOWN`."""
    return all(v is not UNKNOWN for v in values)


def divides(d: Any, n: Any) -> Any:
    """Whether ``d`` divides ``n`` (False for d == 0), `UNKNOWN` when either is."""
    if not known(d, n):
        return UNKNOWN
    return d != 0 and n % d == 0
