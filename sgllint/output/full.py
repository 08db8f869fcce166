"""Human output: the finding, a code frame with a caret under the span,
notes for related spans, and the help line (ruff's and rustc's shape)."""

from __future__ import annotations

from typing import Sequence

from sgllint.diagnostic import Diagnostic
from sgllint.model import Span


def _frame(span: Span, label: str = "") -> list[str]:
    line, col = span.start_line_col()
    end_line, end_col = span.end_line_col()
    text = span.source.line_text(line).replace("\t", " ")
    width = len(str(line))
    if end_line != line:
        end_col = len(text) + 1
    carets = "^" * max(1, end_col - col)
    pad = " " * width
    out = [f"{pad} |", f"{line} | {text}", f"{pad} | {' ' * (col - 1)}{carets}{(' ' + label) if label else ''}"]
    return out


def render_one(d: Diagnostic) -> str:
    line, col = d.span.start_line_col()
    lines = [f"{d.path}:{line}:{col}: {d.code} {d.severity.value}: {d.message} [{d.name}]"]
    lines += _frame(d.span)
    for r in d.related:
        rl, rc = r.span.start_line_col()
        lines.append(f"   = note: {r.message} ({r.span.path}:{rl}:{rc})")
        lines += ["     " + x for x in _frame(r.span)]
    if d.help:
        lines.append(f"   = help: {d.help}")
    if d.fix is not None:
        lines.append(f"   = fix ({d.fix.applicability}): {d.fix.message}")
    return "\n".join(lines) + "\n"


def render(diagnostics: Sequence[Diagnostic]) -> str:
    return "\n".join(render_one(d) for d in diagnostics)
