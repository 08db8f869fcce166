"""Unresolved merge conflicts: a file holding ``<<<<<<<`` / ``=======`` /
``>>>>>>>`` blocks is two versions of itself.

Each conflict is reported once, at its ``<<<<<<<`` line (a parse problem:
the file's own tool rejects the markers), and each side is linted as its
own version of the file: the other side's lines, a diff3 base section
(``|||||||``) and the marker lines are left out, and every offset is mapped
back to the file's own. A launch outside the conflicts is found in both
versions and kept once.
"""

from __future__ import annotations

import re
from array import array
from typing import Callable, Optional

from sgllint.formats.remap import remap_facts
from sgllint.model.facts import FileFacts, ParseProblem, Source, SourceMap, Span

__all__ = ["extract_sides"]

_MARKER = re.compile(r"^(<{7}|\|{7}|={7}|>{7})(?:[ \t].*)?\r?$", re.M)


def _conflicts(text: str) -> list[list[tuple[str, int, int]]]:
    """The well-formed conflicts: each a list of (marker, line start, line
    end) from ``<<<<<<<`` to ``>>>>>>>``."""
    found, current = [], None
    for m in _MARKER.finditer(text):
        kind = m.group(1)[0]
        if kind == "<":
            current = [("<", m.start(), m.end())]
        elif current is not None and kind in "|=" and current[-1][0] in ("<", "|"):
            current.append((kind, m.start(), m.end()))
        elif current is not None and kind == ">" and current[-1][0] == "=":
            current.append((">", m.start(), m.end()))
            found.append(current)
            current = None
    return found


def _side(text: str, conflicts: list, keep: str) -> tuple[str, array]:
    """``text`` as the ``keep`` side ("<" ours, "=" theirs) wrote it: the
    marker lines, the other side's lines and a diff3 base section left out
    (a blank line in their place would end a ``\\``-continued command), and
    the file offset of each of its characters (plus its end; an array of
    machine integers: a list would hold an int object per character)."""
    cut = []
    for markers in conflicts:
        for (kind, start, end), (_, next_start, _) in zip(markers, markers[1:] + [(None, None, None)]):
            line_end = end + 1 if text.startswith("\n", end) else end
            cut.append((start, line_end if next_start is None or kind == keep else next_start))
    parts, offsets, at = [], array("q"), 0
    for start, end in cut:
        parts.append(text[at:start])
        offsets.extend(range(at, start))
        at = end
    parts.append(text[at:])
    offsets.extend(range(at, len(text)))
    offsets.append(len(text))
    return "".join(parts), offsets


def extract_sides(source: Source, run: Callable[[Source], FileFacts], fmt: str) -> Optional[FileFacts]:
    """The facts of a file with merge conflicts (None when it has none)."""
    if "<<<<<<<" not in source.text:
        return None
    conflicts = _conflicts(source.text)
    if not conflicts:
        return None
    facts = FileFacts(source, fmt)
    for markers in conflicts:
        _, start, end = markers[0]
        facts.problems.append(ParseProblem(
            Span(source, start, end),
            "unresolved merge conflict (<<<<<<< ... >>>>>>>): each side is linted as its own version of the file",
        ))
    seen_sites, seen_problems, seen_comments = set(), set(), set()
    for keep in ("<", "="):
        text, offsets = _side(source.text, conflicts, keep)
        side = run(Source(source.path, text))
        part = FileFacts(source, fmt)
        remap_facts(side, SourceMap(source, 0, offsets), part)
        for site in part.sites:
            key = (site.entry, site.span.start, site.span.end, tuple(repr(t.value) for t in site.tokens), len(site.kwargs))
            if key not in seen_sites:
                seen_sites.add(key)
                facts.sites.append(site)
        for problem in part.problems:
            key = (problem.span.start, problem.span.end, problem.message)
            if key not in seen_problems:
                seen_problems.add(key)
                facts.problems.append(problem)
        for comment in part.comments:
            if comment not in seen_comments:
                seen_comments.add(comment)
                facts.comments.append(comment)
    facts.sites.sort(key=lambda s: s.span.start)
    return facts
