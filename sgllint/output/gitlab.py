"""``gitlab``: GitLab Code Quality (a Code Climate JSON array): each item has
``description``, ``check_name``, ``fingerprint``, ``severity`` and
``location.path`` (relative to the repository root) +
``location.positions`` (1-based lines and columns)."""

from __future__ import annotations

import os
from pathlib import PurePath
from typing import Optional, Sequence

from sgllint.model.diagnostic import Diagnostic, Severity
from sgllint.output.positions import one_based
from sgllint.output.sarif import fingerprints, relative_uri
from sgllint.output.text import json_text

SEVERITY = {Severity.ERROR: "major", Severity.WARNING: "minor", Severity.INFO: "info"}


def repository_path(path: str, root: Optional[str]) -> str:
    """GitLab reads ``location.path`` relative to the repository root."""
    if root is None:
        return relative_uri(path)
    rel = os.path.relpath(os.path.abspath(path), os.path.abspath(root))
    return PurePath(rel).as_posix() if not rel.startswith(os.pardir) else relative_uri(path)


def render(diagnostics: Sequence[Diagnostic], root: Optional[str] = None) -> str:
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
                    "path": repository_path(d.path, root),
                    "positions": {
                        "begin": {"line": ln, "column": col},
                        "end": {"line": end_ln, "column": end_col},
                    },
                },
            }
        )
    return json_text(items) + "\n"
