"""``path:line:col: SGL101 message [unknown-flag]``: one line per finding,
the shape grep, editors' problem matchers and the golden tests read."""

from __future__ import annotations

from typing import Sequence

from sgllint.diagnostic import Diagnostic


def line(d: Diagnostic) -> str:
    ln, col = d.span.start_line_col()
    return f"{d.path}:{ln}:{col}: {d.code} {d.message} [{d.name}]"


def render(diagnostics: Sequence[Diagnostic]) -> str:
    return "".join(line(d) + "\n" for d in diagnostics)
