"""Span -> (line, column, end_line, end_column), 1-based code points: the
one conversion the text formats share."""

from __future__ import annotations

from sgllint.model.facts import Span


def one_based(span: Span) -> tuple[int, int, int, int]:
    line, col = span.start_line_col()
    end_line, end_col = span.end_line_col()
    return line, col, end_line, end_col
