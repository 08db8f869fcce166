"""Partial knowledge: the one `Unknown`, and questions that answer it.

A value sgllint cannot know statically (a shell variable, a template, a
value of the wrong type for its flag) is an `Unknown`, and so is the answer
to a question about it: three-valued (True, False, `Unknown`), never a guess.
Every kind of partial knowledge in sgllint is an instance of this one class,
so ``isinstance(x, Unknown)`` and ``known(x)`` hold across the layers:

* lint time (semantics, rules) speaks `UNKNOWN`, the one shared instance.
  It is falsy, so ``if answer:`` reads "known to be true" and a rule stays
  silent on what cannot be known; ``known(x)`` tells it apart from False,
  None or 0. It is one object, also across processes and copies.
* the catalog generators' static evaluator (`sgllint.catalog._gen_eval`)
  makes an `Unknown` with the reason it could not fold a value.
* the derived-validation evaluator runs SGLang's own code on its values and
  needs an absorbing, never-silently-true kind of unknown: its subclass
  `sgllint.semantics.validation.domain.Unknown` says why.

(`Unresolved`, in `sgllint.model.facts`, is different: the *argument text*
that could not be resolved, with its reason; its value is `UNKNOWN` here.)
"""

from __future__ import annotations

from typing import Any


class Unknown:
    """A value that cannot be known statically; ``why`` says which."""

    __slots__ = ("why",)

    def __init__(self, why: str = "") -> None:
        self.why = why

    def __bool__(self) -> bool:  # "not known to be true"
        return False

    def __repr__(self) -> str:
        return "UNKNOWN" if self is UNKNOWN else f"<Unknown {self.why}>"

    def __reduce_ex__(self, protocol: Any) -> Any:
        if self is UNKNOWN:  # one object, also across processes and copies
            return "UNKNOWN"
        return super().__reduce_ex__(protocol)


UNKNOWN: Any = Unknown()


def known(*values: Any) -> bool:
    """True when none of ``values`` is an `Unknown`."""
    return not any(isinstance(v, Unknown) for v in values)


def has_unknown(value: Any) -> bool:
    """Whether ``value`` is or holds (in a list, tuple, set or dict, at any depth) an `Unknown`."""
    if isinstance(value, Unknown):
        return True
    if isinstance(value, (list, tuple, set, frozenset)):
        return any(has_unknown(x) for x in value)
    if isinstance(value, dict):
        return any(has_unknown(k) or has_unknown(x) for k, x in value.items())
    return False


def divides(d: Any, n: Any) -> Any:
    """Whether ``d`` divides ``n`` (False for d == 0), `UNKNOWN` when either is."""
    if not known(d, n):
        return UNKNOWN
    return d != 0 and n % d == 0
