"""Inline suppression, by code or rule name, never by message text.

``# sgllint: ignore[SGL101]`` or ``# noqa: SGL101`` on the line of a
diagnostic's primary span, or on the first line of its launch, silences it;
``# sgllint: ignore-file[SGL101]`` anywhere silences it in the whole file.
A bare ``# sgllint: ignore`` / ``# noqa`` silences every code on its line.
Extractors collect comments in each format's own syntax.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterable

from sgllint.diagnostic import Diagnostic
from sgllint.model import FileFacts

_IGNORE_RE = re.compile(r"sgllint:\s*ignore(-file)?(?:\[([^\]]*)\])?", re.I)
_NOQA_RE = re.compile(r"\bnoqa\b(?::\s*([A-Z]+[0-9]+(?:\s*,?\s*[A-Z]+[0-9]+)*))?", re.I)

ALL = "*"


@dataclass
class Suppressions:
    by_line: dict[int, set[str]] = field(default_factory=dict)
    file_wide: set[str] = field(default_factory=set)

    @classmethod
    def from_facts(cls, facts: FileFacts) -> "Suppressions":
        sup = cls()
        for offset, text in facts.comments:
            line = facts.source.line_col(offset)[0]
            for m in _IGNORE_RE.finditer(text):
                codes = _split(m.group(2)) if m.group(2) is not None else {ALL}
                if m.group(1):
                    sup.file_wide |= codes
                else:
                    sup.by_line.setdefault(line, set()).update(codes)
            for m in _NOQA_RE.finditer(text):
                codes = _split(m.group(1)) if m.group(1) else {ALL}
                sup.by_line.setdefault(line, set()).update(codes)
        return sup

    def __bool__(self) -> bool:
        return bool(self.by_line or self.file_wide)

    def suppresses(self, diag: Diagnostic) -> bool:
        keys = {diag.code.upper(), diag.name.lower(), ALL}
        if keys & self.file_wide:
            return True
        lines = {diag.span.start_line_col()[0]}
        if diag.launch_span is not None and diag.launch_span.source is diag.span.source:
            lines.add(diag.launch_span.start_line_col()[0])
        return any(keys & self.by_line.get(line, set()) for line in lines)

    def filter(self, diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
        if not self:
            return list(diagnostics)
        return [d for d in diagnostics if not self.suppresses(d)]


def _split(text: str) -> set[str]:
    out = set()
    for part in re.split(r"[,\s]+", text.strip()):
        if part:
            out.add(part.upper() if part.upper().startswith("SGL") else part.lower())
    return out or {ALL}
