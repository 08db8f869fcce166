"""SGLang ``--config`` files that a launch in the project names.

A config file that holds the model path is recognised by its shape alone
(`sgllint.formats.yaml.sglang_config.is_config_mapping`). One without it (the
launch gives ``--model-path`` on its command line) looks like many other
YAML files, so it is linted on its own only when a file of the same project
passes it with ``--config PATH`` (shell, Python argv lists, YAML, Markdown,
TOML, Dockerfiles) and every key is an SGLang option spelling.

The YAML extractor emits such a file as a candidate site (opaque with
`REFERENCED_REASON`); the engine keeps it only when `unreferenced_candidate`
says a launch passes it. `referenced_configs` reads the project's text files once per root (bounded:
regular files inside the root, no symbolic links, no hidden or vendored
directories, at most `MAX_FILES` files of at most `MAX_BYTES`), and only looks
for the literal ``--config`` followed by a ``.yaml``/``.yml`` path.
"""

from __future__ import annotations

import functools
import os
import re
import time
from typing import Optional

from sgllint.resolve.project import find_root
from sgllint.resolve.safe_read import NotRead, read_regular_file
from sgllint.model.config_file import REFERENCED_REASON

#: ``--config x.yaml``, ``--config=x.yaml``, ``"--config", "x.yaml"`` (argv lists)
_REFERENCE = re.compile(rb"""--config(?:=|[ \t]+|["'][ \t]*,[ \t]*)["']?([^\s"'\\,;)\]]+\.ya?ml)\b""")
_SUFFIXES = (".sh", ".bash", ".py", ".md", ".mdx", ".yaml", ".yml", ".toml", ".j2", ".txt")
_SKIPPED_DIRS = {"node_modules", "__pycache__", "site-packages", "venv", ".venv"}
MAX_FILES = 20_000
MAX_BYTES = 1 << 20
REFRESH_SECONDS = 30


def _texts(root: str):
    seen = 0
    for directory, dirs, files in os.walk(root, followlinks=False):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _SKIPPED_DIRS)
        for name in sorted(files):
            if not (name.endswith(_SUFFIXES) or "dockerfile" in name.lower()):
                continue
            seen += 1
            if seen > MAX_FILES:
                return
            path = os.path.join(directory, name)
            if os.path.islink(path):
                continue
            try:
                data, _ = read_regular_file(path, MAX_BYTES)
            except NotRead:
                continue
            yield directory, data


def referenced_configs(root: str) -> frozenset:
    """Normalised absolute paths that some project file passes with
    ``--config`` (relative to that file's directory or to the root). Read
    again after `REFRESH_SECONDS`, so that a long-running host (the LSP
    server) sees references added since."""
    return _referenced(root, int(time.monotonic() // REFRESH_SECONDS))


def forget() -> None:
    """Drop what was read (the next call reads the project again)."""
    _referenced.cache_clear()


@functools.lru_cache(maxsize=16)
def _referenced(root: str, _generation: int) -> frozenset:
    found = set()
    for directory, data in _texts(root):
        if b"--config" not in data:
            continue
        for m in _REFERENCE.finditer(data):
            ref = m.group(1).decode("utf-8", errors="replace")
            for base in (directory, root):
                found.add(os.path.normpath(os.path.join(base, ref)))
    return frozenset(found)


def is_referenced(path: str, root: Optional[str] = None) -> bool:
    """Whether a project file passes ``path`` with ``--config``."""
    absolute = os.path.normpath(os.path.abspath(path))
    root = root or str(find_root(absolute))
    return absolute in referenced_configs(root) or os.path.realpath(absolute) in referenced_configs(root)


def unreferenced_candidate(site, root: str) -> bool:
    """A config file without a model path (`sgllint.formats.yaml.sglang_config.
    is_model_less_config`) that no project file passes with ``--config``:
    not an SGLang config as far as the project shows."""
    return REFERENCED_REASON in site.opaque and not is_referenced(site.source.path, root)
