"""``--show-settings`` (the resolved configuration for a path and where each
value came from), ``--show-files`` (the files a run would lint) and
``sgllint clean`` (remove the result cache): ruff's commands of the same
names."""

from __future__ import annotations

import enum
import json
import os
import shutil
from dataclasses import fields
from pathlib import Path
from typing import Iterable, Optional

from sgllint.engine.config import Config

#: Config field -> its key in [tool.sgllint] (fields without a key are not settings)
KEY_OF = {
    "select": "select",
    "ignore": "ignore",
    "extend_select": "extend-select",
    "per_file_ignores": "per-file-ignores",
    "severity": "severity",
    "fail_on": "fail-on",
    "exclude": "exclude",
    "extend_exclude": "extend-exclude",
    "sglang_version": "sglang-version",
    "gpu": "gpu",
    "models": "models",
    "max_diagnostics": "max-diagnostics",
    "max_file_size": "max-file-size",
    "allow_outside": "allow-outside",
    "rule_dirs": "rule-dirs",
}


#: settings that are TOML tables
TABLES = {"per-file-ignores", "severity", "models"}


def _toml(value, table: bool = False) -> str:
    if isinstance(value, enum.Enum):
        value = value.value  # Severity
    if table and not value:
        return "{}"
    if isinstance(value, Path):
        value = str(value)
    if isinstance(value, tuple) and value and all(isinstance(v, tuple) and len(v) == 2 for v in value):
        inner = ", ".join(f"{json.dumps(str(k))} = {_toml(v)}" for k, v in value)
        return "{ " + inner + " }" if inner else "{}"
    if isinstance(value, (tuple, list)):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    return json.dumps(str(value), ensure_ascii=False)


def show_settings(target: str, config: Config, sources: dict[str, str], cli: dict[str, str]) -> str:
    """The settings that apply to ``target``, one ``key = value  # source``
    line each. ``sources``: key -> the file it came from; ``cli``: key ->
    the option that overrode it."""
    default = Config()
    lines = [
        f"# Settings for {target}",
        f"# configuration file: {config.path or 'none (defaults)'}",
        f"# project root: {config.project_root or config.root}",
    ]
    rows = []
    for f in fields(Config):
        key = KEY_OF.get(f.name)
        if key is None:
            continue
        value = getattr(config, f.name)
        if key in cli:
            source = f"command line ({cli[key]})"
        elif key in sources:
            source = sources[key]
        elif value == getattr(default, f.name):
            source = "default"
        else:
            source = "derived"
        text = f"{key} = {_toml(value, key in TABLES)}" if value is not None else f"# {key} is not set"
        rows.append((text, source))
    width = min(48, max(len(r[0]) for r in rows))
    lines += [f"{text.ljust(width)}  # {source}" for text, source in rows]
    return "\n".join(lines) + "\n"


def files_to_lint(paths: Iterable[str], config: Config) -> list[str]:
    """What a run over ``paths`` would lint: explicit files, and walked files
    whose name (or, without a suffix, whose first line) is a format sgllint
    reads."""
    from sgllint.engine.pipeline import _head
    from sgllint.formats.registry import detect_format
    from sgllint.engine.walk import iter_files
    from sgllint.engine.runner import format_by_name

    out = []
    for path, explicit, refusal in iter_files(paths, config):
        if refusal is not None:
            continue
        if explicit or format_by_name(path):
            out.append(path)
        elif not Path(path).suffix and os.path.isfile(path) and detect_format(path, _head(path)):
            out.append(path)
    return out


#: the first line of the .gitignore sgllint writes into its cache directory
CACHE_MARKER = "# created by sgllint"


def clean(directory: str) -> Optional[str]:
    """Remove the result cache at ``directory``; a message saying what was
    done, or None when there is none. A directory without sgllint's marker
    (`sgllint.engine.cache` writes it) is not removed."""
    target = Path(directory)
    if os.path.islink(target) or not target.is_dir():
        return None
    marker = target / ".gitignore"
    try:
        own = marker.read_text(encoding="utf-8").startswith(CACHE_MARKER)
    except OSError:
        own = False
    if not own:
        raise OSError(f"{directory} is not an sgllint cache (no {marker.name} written by sgllint): not removed")
    shutil.rmtree(target)
    return f"Removing cache at: {target}"
