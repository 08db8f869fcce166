"""Regular expressions that stay linear on hostile text (issue 15, finding 6).

``OPEN.*?CLOSE`` (a template ``{{ ... }}``, an HTML comment ``<!-- ... -->``)
is the usual way to find delimited text, and it is quadratic: every OPEN
with no CLOSE after it scans to the end of the text before failing, so a
``{{`` storm or a run of unclosed ``<!--`` takes minutes. But an OPEN can
only match when a CLOSE starts after it: searching only up to the end of
the text's *last* CLOSE finds exactly the same matches, and every OPEN
searched then succeeds (its scan is its match) except the few that overlap
the last CLOSE. `ShortestPair` does that; `phased_finditer` does it for a
pattern in which such a pair is one alternative among others.
"""

from __future__ import annotations

import re
import sys
from typing import Callable, Iterator, Optional, Sequence, Union

__all__ = ["ShortestPair", "phased_finditer"]


class ShortestPair:
    """A compiled ``OPEN.*?CLOSE`` pattern (``re.S``) whose matches end with
    ``close``: the same matches as the plain pattern, found in linear time.
    Offers the `re.Pattern` methods the extractors use."""

    def __init__(self, pattern: str, close: str, flags: int = re.S):
        self.regex = re.compile(pattern, flags)
        self.pattern = self.regex.pattern
        self.close = close

    def _end(self, text: str, pos: int, endpos: int) -> int:
        """The end of the last ``close`` in ``text[pos:endpos]``, or -1."""
        last = text.rfind(self.close, pos, endpos)
        return last + len(self.close) if last >= 0 else -1

    def finditer(self, text: str, pos: int = 0, endpos: int = sys.maxsize) -> Iterator[re.Match]:
        end = self._end(text, pos, endpos)
        return self.regex.finditer(text, pos, end) if end >= 0 else iter(())

    def search(self, text: str, pos: int = 0, endpos: int = sys.maxsize) -> Optional[re.Match]:
        end = self._end(text, pos, endpos)
        return self.regex.search(text, pos, end) if end >= 0 else None

    def sub(self, repl: Union[str, Callable[[re.Match], str]], text: str, count: int = 0) -> str:
        end = self._end(text, 0, len(text))
        return self.regex.sub(repl, text[:end], count) + text[end:] if end >= 0 else text


def phased_finditer(phases: Sequence[tuple[re.Pattern, str]], text: str) -> Iterator[re.Match]:
    """The matches of ``phases[0][0]`` in ``text``, each alternative ending
    in a delimiter searched only where it can still close.

    ``phases`` lists the same pattern with fewer and fewer alternatives,
    each with the delimiter ending the alternative the next entry drops
    (e.g. ``}}`` for ``{{.*?}}``, then ``}`` for ``${[^}]*}``): past the last
    occurrence of that delimiter the dropped alternative can never match, so
    the rest of the text is searched without it. The patterns must not use
    ``$``/``\\Z`` (a phase's end would look like the text's end), and no
    match may span a phase boundary (each boundary is just after a delimiter
    no other alternative can contain): then the matches are the plain
    pattern's."""
    bounds = []
    for _, close in phases:
        last = text.rfind(close)
        bounds.append(last + len(close) if last >= 0 else 0)
    pos = 0
    for i, (pattern, _) in enumerate(phases):
        end = max(bounds[i], pos) if i < len(phases) - 1 else len(text)
        for m in pattern.finditer(text, pos, end):
            yield m
        pos = end
