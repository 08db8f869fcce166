"""The source line a code frame shows under a finding.

Characters are shown as `text.display` renders them (control characters as
escapes), so the caret is placed by display columns. A line wider than
`WIDTH` columns is cut to a window around the span, marked with `CUT` on the
side(s) where text was left out: a launch of 8,000 flags on one line then
costs 200 columns per finding, not the whole line each time. A span wider
than the window is shown from its start, its carets running on under the
closing `CUT`.

Only `WIDTH` characters either side of the span's start are ever looked at
(every character is at least one column wide), so an excerpt costs the same
on a 2 MB line as on a short one.
"""

from __future__ import annotations

from dataclasses import dataclass

from sgllint.model.facts import Span
from sgllint.model.secrets import secret_offsets
from sgllint.output.text import display

WIDTH = 200
CUT = "..."
#: columns of the line kept before a span too wide for the window
CONTEXT_BEFORE_WIDE_SPAN = 20


@dataclass(frozen=True)
class Excerpt:
    line: int  # 1-based
    text: str
    caret_column: int  # 0-based display column of the first caret
    carets: int  # >= 1


def _line_bounds(span: Span, line: int) -> tuple[int, int]:
    """Offsets of ``line``'s first character and of its end (before the
    line break)."""
    starts = span.source.line_starts
    text = span.source.text
    start = starts[line - 1]
    end = starts[line] if line < len(starts) else len(text)
    while end > start and text[end - 1] in "\r\n":
        end -= 1
    return start, end


def excerpt(span: Span) -> Excerpt:
    line, col = span.start_line_col()
    end_line, end_col = span.end_line_col()
    line_start, line_end = _line_bounds(span, line)
    start = line_start + col - 1
    # a span running onto later lines is marked to the end of its first line
    end = line_start + end_col - 1 if end_line == line else line_end
    lo, hi = max(line_start, start - WIDTH), min(line_end, start + WIDTH)
    hidden = secret_offsets(span.source.text, lo, hi)  # a credential is never shown (SGL502)
    shown = {i: "*" if i in hidden else display(span.source.text[i]) for i in range(lo, hi)}

    def width(a: int, b: int) -> int:
        # a position past the line's end (a span ending in its line break) is one column
        return sum(len(shown[i]) if i in shown else 1 for i in range(a, b))

    if lo == line_start and hi == line_end and width(lo, hi) <= WIDTH:
        text = "".join(shown[i] for i in range(lo, hi))
        return Excerpt(line, text, width(lo, start), max(1, width(start, end)))
    return _window(line, shown, start, end, lo, hi, line_start, line_end)


def _window(line: int, shown: dict, start: int, end: int, lo: int, hi: int, line_start: int, line_end: int) -> Excerpt:
    budget = WIDTH - 2 * len(CUT)
    span_width = sum(len(shown[i]) for i in range(start, min(end, hi)))
    room_before = max(CONTEXT_BEFORE_WIDE_SPAN, (budget - span_width) // 2)
    left, used = start, 0
    while left > lo and used + len(shown[left - 1]) <= room_before:
        left -= 1
        used += len(shown[left])
    right = start
    while right < hi and used + len(shown[right]) <= budget:
        used += len(shown[right])
        right += 1
    while right == line_end and left > lo and used + len(shown[left - 1]) <= budget:
        left -= 1  # the line ends early: spend the rest of the budget before the span
        used += len(shown[left])
    cut_left, cut_right = left > line_start, right < line_end
    prefix = CUT if cut_left else ""
    text = prefix + "".join(shown[i] for i in range(left, right)) + (CUT if cut_right else "")
    caret_column = len(prefix) + sum(len(shown[i]) for i in range(left, start))
    carets = sum(len(shown[i]) for i in range(start, min(end, right)))
    if end > right:
        # the span goes on past the window, or into the line break
        carets += len(CUT) if cut_right else end - right
    return Excerpt(line, text, caret_column, max(1, carets))
