"""``path:line:col: SGL101 message [unknown-flag]``: one line per finding,
the shape grep, editors' problem matchers and the golden tests read. Text
from the tree is shown through `visible`, so a finding is always one line."""

from __future__ import annotations

from typing import Sequence

from sgllint.model.diagnostic import Diagnostic
from sgllint.output.colour import paint
from sgllint.output.text import Omitted, capped, visible


def line(d: Diagnostic, color: bool = False) -> str:
    ln, col = d.span.start_line_col()
    if not color:
        return f"{visible(d.path)}:{ln}:{col}: {d.code} {visible(d.message)} [{d.name}]"
    code = paint(d.code, {"error": "red", "warning": "yellow", "info": "cyan"}[d.severity.value], True)
    return f"{paint(f'{visible(d.path)}:{ln}:{col}:', 'bold', True)} {code} {visible(d.message)} {paint(f'[{d.name}]', 'dim', True)}"


def render(diagnostics: Sequence[Diagnostic], max_per_file: int = 0, color: bool = False) -> str:
    return "".join(
        (item.summary() if isinstance(item, Omitted) else line(item, color)) + "\n"
        for item in capped(diagnostics, max_per_file)
    )
