"""``gitlab``: GitLab Code Quality (a Code Climate JSON array): each item has
``description``, ``check_name``, ``fingerprint``, ``severity`` and
``location.path`` + ``location.positions`` (1-based lines and columns)."""

from __future__ import annotations

import json as _json
from typing import Sequence

from sgllint.diagnostic import Diagnostic, Severity
from sgllint.output.positions import one_based
from sgllint.output.sarif import fingerprints, relative_uri

SEVERITY = {Severity.ERROR: "major", Severity.WARNING: "minor", Severity.INFO: "info"}


def render(diagnostics: Sequence[Diagnostic]) -> str:
    items = []
    for d, fp in zip(diagnostics, fingerprints(diagnostics)):
        ln, col, end_ln, end_col = one_based(d.span)
        items.append(
            {
                "type": "issue",
                "description": f"{d.code} {d.message}",
                "check_name": d.code,
                "categories": ["Bug Risk"],
                "fingerprint": fp,
                "severity": SEVERITY[d.severity],
                "location": {
                    "path": relative_uri(d.path),
                    "positions": {
                        "begin": {"line": ln, "column": col},
                        "end": {"line": end_ln, "column": end_col},
                    },
                },
            }
        )
    return _json.dumps(items, indent=2, ensure_ascii=False) + "\n"
