"""``json-lines``: one JSON object per line, each exactly an item of the
``json`` format (same keys, same order of findings)."""

from __future__ import annotations

import json as _json
from typing import Sequence

from sgllint.diagnostic import Diagnostic
from sgllint.output.json import as_dict


def render(diagnostics: Sequence[Diagnostic]) -> str:
    items = [as_dict(d) for d in diagnostics]
    items.sort(key=lambda i: (i["path"], i["line"], i["column"], i["code"]))
    return "".join(_json.dumps(i, ensure_ascii=False) + "\n" for i in items)
