"""The catalog generators' ``Unknown``: a value their static evaluator
(:mod:`._gen_eval`) could not fold, with the reason. Generators never
import SGLang, so anything they cannot fold is this, never an exception."""

from __future__ import annotations

from typing import Any


class Unknown:
    """A value the evaluator could not fold."""

    __slots__ = ("why",)

    def __init__(self, why: str = "") -> None:
        self.why = why

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return f"<Unknown {self.why}>"


def is_unknown(v: Any) -> bool:
    return isinstance(v, Unknown)


def has_unknown(v: Any) -> bool:
    if isinstance(v, Unknown):
        return True
    if isinstance(v, (list, tuple, set, frozenset)):
        return any(has_unknown(x) for x in v)
    if isinstance(v, dict):
        return any(has_unknown(k) or has_unknown(x) for k, x in v.items())
    return False
