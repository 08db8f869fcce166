"""``lsp``: per file, the LSP ``Diagnostic`` objects exactly as ``sgllint
lsp`` publishes them (``{"uri": ..., "diagnostics": [...]}``, ranges in
UTF-16 code units, the protocol's default encoding)."""

from __future__ import annotations

from itertools import groupby
from typing import Sequence

from sgllint.model.diagnostic import Diagnostic
from sgllint.output.lsp_convert import UTF16, path_to_uri, to_lsp_diagnostic
from sgllint.output.text import json_text


def render(diagnostics: Sequence[Diagnostic]) -> str:
    files = []
    for path, group in groupby(sorted(diagnostics, key=Diagnostic.sort_key), key=lambda d: d.path):
        files.append({"uri": path_to_uri(path), "diagnostics": [to_lsp_diagnostic(d, UTF16) for d in group]})
    return json_text(files) + "\n"
