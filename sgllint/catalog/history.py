"""Facts across releases: in which SGLang releases an option string, a
ServerArgs field or a choice value exists. Built from the shipped catalogs
the first time a rule asks (only for flags the target release lacks).
"""

from __future__ import annotations

import functools
from typing import Optional

from sgllint.catalog import load, version_key, versions


@functools.lru_cache(maxsize=1)
def _index():
    options: dict[str, list[str]] = {}
    fields: dict[str, list[str]] = {}
    choices: dict[tuple[str, str], list[str]] = {}
    for v in versions():
        cat = load(v)
        for s, opt in cat.by_string.items():
            options.setdefault(s, []).append(v)
            for c in opt.choices or ():
                choices.setdefault((s, str(c)), []).append(v)
        for name in cat.fields:
            fields.setdefault(name, []).append(v)
    return options, fields, choices


def option_versions(option_string: str) -> list[str]:
    """Releases whose parser accepts exactly ``option_string``."""
    return list(_index()[0].get(option_string, ()))


def field_versions(name: str) -> list[str]:
    return list(_index()[1].get(name, ()))


def choice_versions(option_string: str, value: str) -> list[str]:
    return list(_index()[2].get((option_string, value), ()))


def span_text(found: list[str]) -> str:
    """``0.5.14 to 0.5.19`` for a list of releases (assumed contiguous)."""
    if not found:
        return ""
    if len(found) == 1:
        return found[0]
    return f"{found[0]} to {found[-1]}"


def before(found: list[str], version: str) -> list[str]:
    """The releases in ``found`` older than ``version``."""
    return [v for v in found if version_key(v) < version_key(version)]


def after(found: list[str], version: str) -> list[str]:
    """The releases in ``found`` newer than ``version``."""
    return [v for v in found if version_key(v) > version_key(version)]


def previous_release(version: str) -> Optional[str]:
    vs = versions()
    i = vs.index(version) if version in vs else -1
    return vs[i - 1] if i > 0 else None


def next_release(version: str) -> Optional[str]:
    vs = versions()
    i = vs.index(version) if version in vs else -1
    return vs[i + 1] if 0 <= i < len(vs) - 1 else None
