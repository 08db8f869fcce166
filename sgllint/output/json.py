"""The stable JSON schema (external tools rely on it; add keys, never
rename): an array sorted by path, line, column, code."""

from __future__ import annotations

from typing import Sequence

from sgllint.model.diagnostic import Diagnostic
from sgllint.output.positions import one_based
from sgllint.output.text import json_text


def _location(span) -> dict:
    line, col, end_line, end_col = one_based(span)
    return {"line": line, "column": col, "end_line": end_line, "end_column": end_col}


def as_dict(d: Diagnostic) -> dict:
    fix = None
    if d.fix is not None:
        fix = {
            "applicability": d.fix.applicability,
            "message": d.fix.message,
            "edits": [{**_location(e.span), "content": e.content} for e in d.fix.edits],
        }
    return {
        "code": d.code,
        "name": d.name,
        "severity": d.severity.value,
        "message": d.message,
        "path": d.path,
        **_location(d.span),
        "related": [{"path": r.span.path, **_location(r.span), "message": r.message} for r in d.related],
        "help": d.help,
        "fix": fix,
        "url": d.url,
        "context": d.context,
    }


def render(diagnostics: Sequence[Diagnostic]) -> str:
    items = [as_dict(d) for d in diagnostics]
    items.sort(key=lambda i: (i["path"], i["line"], i["column"], i["code"]))
    return json_text(items) + "\n"
