"""``--statistics``: the number of findings per code, as ruff prints them.

With ``--output-format json`` / ``json-lines`` the counts replace the
findings as JSON (ruff's behaviour: ``code``, ``name``, ``count``, and how
many have a safe / an unsafe fix); the text formats print them after the
findings; every other machine format (SARIF, GitLab, JUnit, LSP, GitHub)
keeps its document intact and the table goes to stderr."""

from __future__ import annotations

from collections import Counter
from typing import Sequence

from sgllint.model.diagnostic import Diagnostic
from sgllint.output.text import json_text

#: formats whose stdout becomes the JSON statistics
JSON_FORMATS = ("json", "json-lines")
#: formats whose stdout is the findings for a person: the table follows them
TEXT_FORMATS = ("full", "concise")


def rows(diagnostics: Sequence[Diagnostic]) -> list[dict]:
    """One dict per code, most frequent first, then by code."""
    count: Counter = Counter()
    safe: Counter = Counter()
    unsafe: Counter = Counter()
    names: dict[str, str] = {}
    for d in diagnostics:
        count[d.code] += 1
        names[d.code] = d.name
        if d.fix is not None:
            (safe if d.fix.applicability == "safe" else unsafe)[d.code] += 1
    order = sorted(count, key=lambda c: (-count[c], c))
    return [
        {"code": c, "name": names[c], "count": count[c], "fixable_count": safe[c], "unsafe_fixable_count": unsafe[c]}
        for c in order
    ]


def render_text(diagnostics: Sequence[Diagnostic]) -> str:
    return "".join(f"{r['count']:5d}\t{r['code']}\t[{r['name']}]\n" for r in rows(diagnostics))


def render(fmt: str, diagnostics: Sequence[Diagnostic]) -> str:
    """The statistics in ``fmt``'s own way (``json`` or ``json-lines``)."""
    if fmt == "json-lines":
        return "".join(json_text(r, indent=None) + "\n" for r in rows(diagnostics))
    return json_text(rows(diagnostics)) + "\n"
