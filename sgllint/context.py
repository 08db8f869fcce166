"""A launch's context: which SGLang release it targets and why.

Precedence, most specific first: ``--sglang-version`` on the command line; a
``# sgllint: sglang=X`` pragma in the file; ``sglang-version`` in config; an
SGLang container image tag in the same document; an ``sglang==X`` pin in the
project (requirements, pyproject, lock files) near the file; the sglang
distribution installed in this environment (metadata only, never imported);
else the newest shipped catalog.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from sgllint import catalog as catalogs
from sgllint.model import FileFacts, LaunchSite, Span

PRAGMA_RE = re.compile(r"sgllint:\s*([a-z-]+)\s*=\s*([^\s,;\]]+)")
_IMAGE_TAG_RE = re.compile(r"(?:^|/)sglang(?:-[a-z0-9]+)?:v?(\d+\.\d+\.\d+(?:\.post\d+)?|latest|dev|main|nightly)")
_PIN_RE = re.compile(r"""(?<![\w-])sglang(?:\[[^\]]*\])?\s*(?:==|===)\s*v?(\d+(?:\.\d+){1,3}(?:\.?post\d+)?)""", re.I)
_LOCK_RE = re.compile(r'name\s*=\s*"sglang"\s*\n\s*version\s*=\s*"([^"]+)"')
PIN_FILES = ("requirements*.txt", "pyproject.toml", "uv.lock", "poetry.lock", "pdm.lock", "Pipfile", "setup.cfg", "environment*.yml")


@dataclass(frozen=True)
class Fact:
    """A value with the place it came from, for ``--show-context``."""

    value: object
    source: str  # "command line", "pragma", "config", "image tag", ...
    span: Optional[Span] = None
    detail: str = ""

    def describe(self) -> str:
        where = ""
        if self.span is not None:
            line, _ = self.span.start_line_col()
            where = f" at {self.span.path}:{line}"
        detail = f" ({self.detail})" if self.detail else ""
        return f"{self.value} from {self.source}{detail}{where}"


@dataclass
class LaunchContext:
    version: Fact  # the catalog release the launch is judged against
    catalog: "catalogs.Catalog"
    requested: str = ""  # what the source asked for, before mapping to a catalog
    extra: dict = field(default_factory=dict)

    def as_dict(self) -> dict:
        return {"sglang_version": self.catalog.version, "sglang_version_source": self.version.source}


def pragmas(facts: FileFacts) -> dict[str, tuple[str, Span]]:
    found: dict[str, tuple[str, Span]] = {}
    for offset, text in facts.comments:
        for m in PRAGMA_RE.finditer(text):
            key = m.group(1)
            if key in ("ignore", "ignore-file"):
                continue
            found.setdefault(key, (m.group(2), Span(facts.source, offset, offset + len(text))))
    return found


def image_version(image: str) -> Optional[str]:
    m = _IMAGE_TAG_RE.search(image)
    return m.group(1) if m else None


@functools.lru_cache(maxsize=256)
def _project_pin_in(directory: Path) -> Optional[tuple[str, str]]:
    for pattern in PIN_FILES:
        for f in sorted(directory.glob(pattern)):
            try:
                if f.stat().st_size > 4_000_000:
                    continue
                text = f.read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            m = _LOCK_RE.search(text) if f.suffix == ".lock" else None
            m = m or _PIN_RE.search(text)
            if m:
                return m.group(1), f.name
    return None


def project_pin(path: Path) -> Optional[tuple[str, Path]]:
    """An ``sglang==X`` pin in the nearest project files above ``path``,
    stopping at the repository root."""
    try:
        d = path.resolve().parent
    except OSError:
        return None
    for directory in (d, *d.parents):
        pin = _project_pin_in(directory)
        if pin:
            return pin[0], directory / pin[1]
        if (directory / ".git").exists():
            break
    return None


@functools.lru_cache(maxsize=1)
def installed_version() -> Optional[str]:
    from importlib import metadata

    try:
        return metadata.version("sglang")
    except metadata.PackageNotFoundError:
        return None
    except Exception:  # a broken environment must not break the linter
        return None


def _usable(requested: str) -> Optional[str]:
    try:
        return catalogs.resolve_version(requested)
    except catalogs.UnknownVersion:
        return None


def resolve_version(
    site: LaunchSite,
    facts: FileFacts,
    cli_version: Optional[str],
    config_version: Optional[str],
    file_pragmas: dict,
    use_environment: bool = True,
) -> tuple[Fact, str]:
    """The release ``site`` targets, as (fact, requested string)."""
    candidates: list[tuple[str, str, Optional[Span], str]] = []
    if cli_version:
        candidates.append((cli_version, "command line", None, "--sglang-version"))
    if "sglang" in file_pragmas:
        value, span = file_pragmas["sglang"]
        candidates.append((value, "pragma", span, "# sgllint: sglang="))
    if config_version:
        candidates.append((config_version, "config", None, "sglang-version"))
    for hint in site.hints:
        if hint.kind == "sglang-image" and isinstance(hint.value, str):
            v = image_version(hint.value)
            if v:
                candidates.append((v, "image tag", hint.span, hint.value))
    for requested, source, span, detail in candidates:
        usable = _usable(requested)
        if usable:
            return Fact(usable, source, span, detail), requested
    pin = project_pin(Path(facts.source.path))
    if pin:
        usable = _usable(pin[0])
        if usable:
            return Fact(usable, "project pin", None, f"sglang=={pin[0]} in {pin[1].name}"), pin[0]
    if use_environment:
        inst = installed_version()
        if inst and _usable(inst):
            return Fact(_usable(inst), "installed sglang", None, inst), inst
    newest = catalogs.latest()
    return Fact(newest, "default (newest catalog)"), newest
