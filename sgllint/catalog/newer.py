"""A requested SGLang release newer than the newest catalog sgllint ships
(``--sglang-version 0.6.0``, an image tag, a pin) is checked against the
newest catalog; users are told so once per run, in each output's own way:
stderr for the CLI's text formats, a run property in SARIF, a ``notice``
in GitHub annotations, a ``window/showMessage`` notification in the LSP."""

from __future__ import annotations

from typing import Iterable, Optional


def newer_notice(requested: Optional[str]) -> Optional[str]:
    """The notice for ``requested``, or None when a shipped catalog is that
    release (or its base, for a post release) or it is no version."""
    if not requested or not isinstance(requested, str):
        return None  # most runs: the catalogs' index is not even imported
    from sgllint import catalog as catalogs

    req = requested.strip().lstrip("vV")
    try:
        mapped = catalogs.resolve_version(req)
    except catalogs.UnknownVersion:
        return None
    newest = catalogs.latest()
    key, newest_key = catalogs.version_key(req), catalogs.version_key(newest)
    if mapped != newest or not key or key[: len(newest_key)] == newest_key or key <= newest_key:
        return None
    return f"sglang {req} is newer than the newest release sgllint knows ({newest}): checking against {newest}"


def requested_versions(results: Iterable, extra: Iterable[Optional[str]] = ()) -> list[str]:
    """What the run asked for: ``extra`` (the command line, configurations)
    and each file's requested releases (`engine.FileResult.requested`,
    which the cache and the workers keep)."""
    seen: list[str] = [v for v in extra if v]
    for r in results:
        seen.extend(getattr(r, "requested", ()) or ())
    return [v for v in seen if v]


def notices(requested: Iterable[str]) -> list[str]:
    """Each distinct notice once, in first-seen order."""
    out: list[str] = []
    for v in requested:
        n = newer_notice(v)
        if n is not None and n not in out:
            out.append(n)
    return out
