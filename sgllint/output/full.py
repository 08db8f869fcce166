"""Human output: the finding, a code frame with a caret under the span,
notes for related spans, and the help line (ruff's and rustc's shape).

Text from the tree is shown through `visible` and long lines through a
window (`excerpt`); a file read only because a launch referenced it
(``Source.echo`` false) gets its position but never its text."""

from __future__ import annotations

from typing import Sequence

from sgllint.model.diagnostic import Diagnostic
from sgllint.model.facts import Span
from sgllint.output.colour import paint
from sgllint.output.excerpt import excerpt
from sgllint.output.text import Omitted, capped, visible


SEVERITY_STYLE = {"error": "red", "warning": "yellow", "info": "cyan"}


def _frame(span: Span, carets: str = "", color: bool = False) -> list[str]:
    # no text to show: a file that was not read (SGL002), a referenced file
    # never echoed, a failure before the file was read (SGL999)
    if not getattr(span.source, "echo", True) or not span.source.text:
        return []
    shown = excerpt(span)
    pad = " " * len(str(shown.line))
    bar = paint("|", "blue", color)
    marks = paint("^" * shown.carets, carets, color) if carets else "^" * shown.carets
    return [f"{pad} {bar}", f"{paint(str(shown.line), 'blue', color)} {bar} {shown.text}", f"{pad} {bar} {' ' * shown.caret_column}{marks}"]


def render_one(d: Diagnostic, color: bool = False) -> str:
    line, col = d.span.start_line_col()
    style = SEVERITY_STYLE[d.severity.value]
    where = paint(f"{visible(d.path)}:{line}:{col}:", "bold", color)
    head = paint(f"{d.code} {d.severity.value}:", style, color)
    lines = [f"{where} {head} {visible(d.message)} {paint(f'[{d.name}]', 'dim', color)}"]
    lines += _frame(d.span, style, color)
    for r in d.related:
        rl, rc = r.span.start_line_col()
        lines.append(f"   = {paint('note', 'bold', color)}: {visible(r.message)} ({visible(r.span.path)}:{rl}:{rc})")
        lines += ["     " + x for x in _frame(r.span, "", color)]
    if d.help:
        lines.append(f"   = {paint('help', 'cyan', color)}: {visible(d.help)}")
    if d.fix is not None:
        lines.append(f"   = {paint('fix', 'green', color)} ({d.fix.applicability}): {visible(d.fix.message)}")
    return "\n".join(lines) + "\n"


def render(diagnostics: Sequence[Diagnostic], max_per_file: int = 0, color: bool = False) -> str:
    """``color``: ANSI colour for a terminal (`sgllint.output.colour`)."""
    return "\n".join(
        item.summary() + "\n" if isinstance(item, Omitted) else render_one(item, color)
        for item in capped(diagnostics, max_per_file)
    )
