"""Output formats: one module each, every one a pure function of finished
diagnostics. Formatters never run rules."""

from __future__ import annotations

import importlib
from typing import Callable, Sequence

from sgllint.diagnostic import Diagnostic

#: --output-format name -> module (each exposes render(diagnostics) -> str)
FORMATS = {
    "full": "sgllint.output.full",
    "concise": "sgllint.output.concise",
    "json": "sgllint.output.json",
    "json-lines": "sgllint.output.json_lines",
    "sarif": "sgllint.output.sarif",
    "github": "sgllint.output.github",
    "gitlab": "sgllint.output.gitlab",
    "junit": "sgllint.output.junit",
    "lsp": "sgllint.output.lsp",
}


def renderer(name: str) -> Callable[[Sequence[Diagnostic]], str]:
    return importlib.import_module(FORMATS[name]).render
