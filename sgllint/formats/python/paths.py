"""Following a value along each path through the branches that built it.

A list extended differently in the two branches of an ``if`` holds, besides
its join (which has "any arguments" where the branches differ), the list of
each path (`values.Path`). An evaluation that reads such values is run once
per consistent combination of their paths (`Choices`), so what is derived
from them (``cmd + extra``, ``" ".join(cmd)``, a call of a helper) keeps one
value per path too, and a launch is built once per path.
"""

from __future__ import annotations

import itertools
from typing import Callable, Optional

from sgllint.formats.python.values import MAX_PATHS, Path, consistent, with_paths


class Choices:
    """Which path of each value met one evaluation takes.

    The first run meets the values (and takes their joins); then `fix`
    selects one combination of their paths for each further run. Values are
    told apart by a key object (the value itself, or the syntax node whose
    value it is), which is kept so its identity stays unique.
    """

    def __init__(self) -> None:
        self._keys: list = []
        self._index: dict[int, int] = {}
        self._paths: list[tuple] = []  # each met value's paths, as first met
        self._fixed: Optional[tuple[int, ...]] = None

    @property
    def met(self) -> bool:
        return bool(self._keys)

    def only(self, value) -> bool:
        """Whether ``value`` is the one value met (passed on untouched)."""
        return len(self._keys) == 1 and self._keys[0] is value

    def pick(self, key, value):
        """``value`` on the path being followed (its join on the first run,
        or when it was not met then)."""
        paths = getattr(value, "paths", ())
        if not paths:
            return value
        index = self._index.get(id(key))
        if index is None:
            if self._fixed is None:
                self._index[id(key)] = len(self._keys)
                self._keys.append(key)
                self._paths.append(paths)
            return value
        if self._fixed is None or self._fixed[index] >= len(paths):
            return value
        return paths[self._fixed[index]].value

    def combinations(self) -> Optional[list[tuple[tuple[int, ...], frozenset]]]:
        """Each consistent combination of the met values' paths, with the
        decisions it takes; None when there are more than `MAX_PATHS`."""
        total = 1
        for paths in self._paths:
            total *= len(paths)
        if total > MAX_PATHS:
            return None
        out = []
        for combo in itertools.product(*(range(len(paths)) for paths in self._paths)):
            decisions = frozenset().union(*(self._paths[i][c].decisions for i, c in enumerate(combo)))
            if consistent(decisions):
                out.append((combo, decisions))
        return out

    def fix(self, combo: tuple[int, ...]) -> None:
        self._fixed = combo


def branch_sides(branch) -> tuple[frozenset, frozenset]:
    """The decisions of the two sides of one branch taken once: an ``if``
    each time it runs, a conditional expression within one evaluation."""
    return frozenset({(branch, True)}), frozenset({(branch, False)})


def over_paths(choices: Choices, compute: Callable[[], object]):
    """``compute()`` (reading values through ``choices``), and when it met
    values with paths and derived something new from them, that result
    holding the result of each consistent combination of their paths."""
    first = compute()
    if not choices.met or choices.only(first):
        return first
    combos = choices.combinations()
    if combos is None:
        return first
    outcomes = []
    for combo, decisions in combos:
        choices.fix(combo)
        outcomes.append(Path(compute(), decisions))
    return with_paths(first, outcomes)
