"""Extractors: one per input format, each turning a file into `FileFacts`
(launch sites with exact spans, comments, parse problems). Extractors know
the launch shapes (`launchers`) but nothing of rules or catalogs.

Modules are imported lazily so a run over files without launches never pays
for libcst or tree-sitter.
"""

from __future__ import annotations

import importlib
import re
from pathlib import PurePath
from typing import Callable, Optional

from sgllint.model import FileFacts, Source

#: format -> "module:function" of its extractor
EXTRACTORS: dict[str, str] = {
    "shell": "sgllint.extract.shell:extract",
    "yaml": "sgllint.extract.yaml:extract",
    "python": "sgllint.extract.python:extract",
    "toml": "sgllint.extract.toml:extract",
    "dockerfile": "sgllint.extract.dockerfile:extract",
    "markdown": "sgllint.extract.markdown:extract",
}

_SUFFIXES = {
    ".sh": "shell",
    ".yaml": "yaml",
    ".yml": "yaml",
    ".py": "python",
    ".bash": "shell",
    ".ksh": "shell",
    ".zsh": "shell",
    ".command": "shell",
    ".toml": "toml",
    ".md": "markdown",
    ".mdx": "markdown",
    ".markdown": "markdown",
}
#: Dockerfile, Dockerfile.rocm, gpu.Dockerfile, Containerfile (any case)
_DOCKERFILE_RE = re.compile(r"^(?:(?:docker|container)file(?:\..+)?|.+\.(?:docker|container)file)$", re.I)
_SHEBANG_RE = re.compile(r"^#!\s*(?:/usr)?(?:/local)?/bin/(?:env\s+(?:-\S+\s+)*)?(ba|da|k|z)?sh\b")


def detect_format(path: str, head: str = "") -> Optional[str]:
    """The format of ``path`` by its name, else by a shebang in ``head``."""
    p = PurePath(path)
    fmt = _SUFFIXES.get(p.suffix.lower())
    if fmt in EXTRACTORS:
        return fmt
    if _DOCKERFILE_RE.match(p.name) and "dockerfile" in EXTRACTORS:
        return "dockerfile"
    if not p.suffix and _SHEBANG_RE.match(head):
        return "shell"
    return None


def supported_formats() -> list[str]:
    return sorted(EXTRACTORS)


def extractor(fmt: str) -> Callable[[Source], FileFacts]:
    module, func = EXTRACTORS[fmt].split(":")
    return getattr(importlib.import_module(module), func)
