"""File selection on the command line, with ruff's option names:
``--exclude`` / ``--extend-exclude`` / ``--per-file-ignores`` /
``--extend-per-file-ignores`` as configuration overrides, and
``--force-exclude``: a path given explicitly (as pre-commit and editors
pass every changed file) is skipped when a directory walk would have
skipped it: an ``exclude`` / ``extend-exclude`` pattern, a virtualenv, or
what ``.gitignore``, ``.ignore`` and ``.git/info/exclude`` ignore (matched in
process by `sgllint.engine.ignore`, never by running git)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Optional

from sgllint.engine.config import Config


def per_file_ignore(value: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """``GLOB:CODE[,GLOB:CODE...]`` (ruff's ``--per-file-ignores``) ->
    config pairs; a code without a glob of its own takes the previous one
    (``scripts/*:SGL101,SGL109``)."""
    pairs: dict[str, list[str]] = {}
    glob: Optional[str] = None
    for item in (v.strip() for v in value.split(",")):
        if not item:
            continue
        if ":" in item:
            glob, _, code = item.rpartition(":")
        elif glob is not None:
            code = item
        else:
            raise argparse.ArgumentTypeError(f"expected GLOB:CODE (e.g. 'scripts/*:SGL101'), got {value!r}")
        if not glob or not code:
            raise argparse.ArgumentTypeError(f"expected GLOB:CODE (e.g. 'scripts/*:SGL101'), got {value!r}")
        pairs.setdefault(glob, []).append(code.strip())
    return tuple((g, tuple(c)) for g, c in pairs.items())


def _relative(path: str, config: Config) -> Path:
    """``path`` relative to the configuration's directory when inside it
    (exclude patterns match the parts of that), else as given."""
    absolute = os.path.abspath(path)
    for base in (config.root, config.project_root, Path.cwd()):
        if base is None:
            continue
        try:
            return Path(os.path.relpath(absolute, os.path.abspath(base)))
        except ValueError:
            continue
    return Path(path)


def force_excluded(path: str, config: Config) -> bool:
    """Whether a walk from the project root would have skipped ``path``."""
    rel = _relative(path, config)
    if not str(rel).startswith(os.pardir) and config.is_excluded(rel):
        return True
    return _in_virtualenv(path) or _ignored(path, config)


def _in_virtualenv(path: str) -> bool:
    directory = os.path.dirname(os.path.abspath(path))
    while True:
        if os.path.exists(os.path.join(directory, "pyvenv.cfg")):
            return True
        parent = os.path.dirname(directory)
        if parent == directory:
            return False
        directory = parent


def _ignored(path: str, config: Config) -> bool:
    """What the repository's ignore files say about ``path`` (a walk from
    its top would not reach it)."""
    from sgllint.engine.ignore import find_repository, start_rules
    from sgllint.engine.walk import _Walk

    absolute = os.path.abspath(path)
    top = find_repository(os.path.realpath(os.path.dirname(absolute)))
    if top is None:
        return False
    reader = _Walk(top, config)
    rules = start_rules(top, reader.read_ignore_file)
    rel = os.path.relpath(os.path.realpath(absolute), top)
    parts = rel.split(os.sep)
    walked = top
    for part in parts[:-1]:
        walked = os.path.join(walked, part)
        rules = rules.enter(walked, part)
        if rules is None:
            return True
    if os.path.isdir(absolute):
        return rules.enter(absolute, parts[-1]) is None
    return rules.ignores_file(parts[-1])
