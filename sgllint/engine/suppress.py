"""Inline suppression, by code or rule name, never by message text.

``# sgllint: ignore[SGL101]`` or ``# noqa: SGL101`` on the line of a
diagnostic's primary span, or on the first line of its launch, silences it;
so does one alone on the line before the launch or at the end of the
launch's last line (a shell launch continued with ``\\`` has no room for a
comment on its first line);
``# sgllint: ignore-file[SGL101]`` anywhere silences it in the whole file.
A bare ``# sgllint: ignore`` / ``# noqa`` silences every code on its line.
Extractors collect comments in each format's own syntax.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterable, Optional

from sgllint.model.diagnostic import Diagnostic
from sgllint.model.facts import FileFacts
from sgllint.model.rule import predecessors

_IGNORE_RE = re.compile(r"sgllint:\s*ignore(-file)?(?:\[([^\]]*)\])?", re.I)
_CODE = r"[A-Z]+[0-9]+(?:\[[^\]]*\])?"  # SGL101, or SGL400[<check id>, ...]: one derived SGLang check
_NOQA_RE = re.compile(r"\bnoqa\b(?::\s*(" + _CODE + r"(?:\s*,?\s*" + _CODE + r")*))?", re.I)
_CHECKS_RE = re.compile(r"([A-Z]+[0-9]+)\[([^\]]*)\]", re.I)
_SEPARATORS = re.compile(r"[,\s]+")
#: the blanks `str.strip` removes (both are Unicode whitespace)
_BLANKS = re.compile(r"\s*")

ALL = "*"


@dataclass
class Suppressions:
    by_line: dict[int, set[str]] = field(default_factory=dict)
    file_wide: set[str] = field(default_factory=set)
    own_line: set[int] = field(default_factory=set)  # lines holding a comment and nothing else

    @classmethod
    def from_facts(cls, facts: FileFacts) -> "Suppressions":
        sup = cls()
        source = facts.source
        text = source.text
        starts = source.line_starts
        # per file: a comment's text is parsed once however often it repeats
        # (a Markdown pragma is copied onto every line of its block), and a
        # line's leading blanks are measured once however many comments it
        # holds (slicing the line for each was quadratic on a long line)
        parsed: dict[str, tuple] = {}
        first_word: dict[int, int] = {}
        for offset, comment in facts.comments:
            line = source.line_col(offset)[0]
            word = first_word.get(line)
            if word is None:
                word = first_word[line] = _BLANKS.match(text, starts[line - 1]).end()
            if word >= min(offset, len(text)):  # nothing but blanks before the comment on its line
                sup.own_line.add(line)
            codes = parsed.get(comment)
            if codes is None:
                codes = parsed[comment] = _parse(comment)
            file_wide, by_line = codes
            if file_wide:
                sup.file_wide |= file_wide
            if by_line is not None:
                sup.by_line.setdefault(line, set()).update(by_line)
        return sup

    def __bool__(self) -> bool:
        return bool(self.by_line or self.file_wide)

    def suppresses(self, diag: Diagnostic) -> bool:
        keys = {diag.code.upper(), diag.name.lower(), ALL} | predecessors(diag.code)
        check = (diag.context or {}).get("sglang_check")
        if check:
            keys.add(f"{diag.code.upper()}[{check.lower()}]")
        if keys & self.file_wide:
            return True
        lines = {diag.span.start_line_col()[0]}
        if diag.launch_span is not None and diag.launch_span.source is diag.span.source:
            first = diag.launch_span.start_line_col()[0]
            lines.add(first)
            lines.add(diag.launch_span.end_line_col()[0])
            if first - 1 in self.own_line:
                lines.add(first - 1)
        return any(keys & self.by_line.get(line, set()) for line in lines)

    def filter(self, diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
        if not self:
            return list(diagnostics)
        return [d for d in diagnostics if not self.suppresses(d)]


def _parse(comment: str) -> tuple[set[str], Optional[set[str]]]:
    """The codes a comment silences in the whole file, and on its line
    (None: it is no suppression comment for its line)."""
    file_wide: set[str] = set()
    by_line: Optional[set[str]] = None
    for m in _IGNORE_RE.finditer(comment):
        codes = _split(m.group(2)) if m.group(2) is not None else {ALL}
        if m.group(1):
            file_wide |= codes
        else:
            by_line = (by_line or set()) | codes
    for m in _NOQA_RE.finditer(comment):
        codes = _split(m.group(1)) if m.group(1) else {ALL}
        by_line = (by_line or set()) | codes
    return file_wide, by_line


def _split(text: str) -> set[str]:
    out = set()
    for m in _CHECKS_RE.finditer(text):
        for check in _SEPARATORS.split(m.group(2).strip()):
            if check:
                out.add(f"{m.group(1).upper()}[{check.lower()}]")
    text = _CHECKS_RE.sub(" ", text)
    if out and not text.strip(" ,"):
        return out
    for part in _SEPARATORS.split(text.strip()):
        if part:
            out.add(part.upper() if part.upper().startswith("SGL") else part.lower())
    return out or {ALL}
