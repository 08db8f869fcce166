"""Diagnostics: what rules report and formatters render."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Optional

from sgllint.model.facts import Span

DOCS_URL = "https://github.com/sgllint/sgllint/blob/main/docs/rules.md#{code}"


class Severity(str, enum.Enum):
    INFO = "info"
    WARNING = "warning"
    ERROR = "error"

    @property
    def rank(self) -> int:
        return {"info": 0, "warning": 1, "error": 2}[self.value]

    @classmethod
    def parse(cls, text: str) -> "Severity":
        return cls(text.strip().lower())


@dataclass(frozen=True)
class Related:
    span: Span
    message: str


@dataclass(frozen=True)
class Edit:
    span: Span
    content: str


@dataclass(frozen=True)
class Fix:
    message: str
    edits: tuple[Edit, ...]
    applicability: str = "safe"  # "safe" | "unsafe"


@dataclass
class Diagnostic:
    code: str
    name: str
    severity: Severity
    message: str
    span: Span
    related: list[Related] = field(default_factory=list)
    help: str = ""
    fix: Optional[Fix] = None
    url: str = ""
    # the first line of the launch, where a suppression comment also applies
    launch_span: Optional[Span] = None
    context: Optional[dict] = None

    @property
    def path(self) -> str:
        return self.span.path

    def sort_key(self):
        span = self.span  # every finding is sorted twice (per file, then the run): no property chains
        source = span.source
        line, col = source.line_col(span.start)
        return (source.path, line, col, self.code, self.message)
