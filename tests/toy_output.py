"""A toy output format, to prove that an output format is one module plus one
registry line (tests/test_registries.py): one ``code@path:line`` per finding."""

from __future__ import annotations

from typing import Sequence

from sgllint.model.diagnostic import Diagnostic


def render(diagnostics: Sequence[Diagnostic]) -> str:
    return "".join(f"{d.code}@{d.span.path}:{d.span.start_line_col()[0]}\n" for d in diagnostics)
