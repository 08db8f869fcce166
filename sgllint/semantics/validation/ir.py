"""The derived data of a release (h17gen's IR, ``sgllint/catalog/validation``),
as the interpreter reads it: module sources and the rejection sites' ids.

Until a release's IR is checked in, the evaluator reads the unpacked wheel
(``evaluator.WHEEL_SOURCES``); ``load`` answers None then."""

from __future__ import annotations

import hashlib


def load(release: str):
    """The release's module source provider from the checked-in IR, or None."""
    try:
        from sgllint.catalog import validation as data  # h17gen's package
    except ImportError:
        return None
    loader = getattr(data, "module_source", None)
    if loader is None:
        return None
    return loader(release)


def site_id(file: str, line: int, release: str | None = None) -> str:
    """The stable id of the check at ``file:line`` (the IR's when it has
    one; else a hash of the place)."""
    try:
        from sgllint.catalog import validation as data

        find = getattr(data, "site_id", None)
        if find is not None:
            got = find(file, line, release)
            if got:
                return got
    except ImportError:
        pass
    return "S" + hashlib.sha1(f"{file}:{line}".encode()).hexdigest()[:8]
