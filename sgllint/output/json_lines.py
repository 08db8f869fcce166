"""``json-lines``: one JSON object per line, each exactly an item of the
``json`` format (same keys, same order of findings)."""

from __future__ import annotations

from typing import Sequence

from sgllint.model.diagnostic import Diagnostic
from sgllint.output.json import as_dict
from sgllint.output.text import json_text


def render(diagnostics: Sequence[Diagnostic]) -> str:
    items = [as_dict(d) for d in diagnostics]
    items.sort(key=lambda i: (i["path"], i["line"], i["column"], i["code"]))
    return "".join(json_text(i, indent=None) + "\n" for i in items)
