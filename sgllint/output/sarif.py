"""``sarif``: SARIF 2.1.0 for GitHub code scanning and other SARIF viewers.

One run; ``tool.driver.rules`` lists each reported code once (id, name,
short and full description, helpUri, default level) and every result
points at its rule by ``ruleId`` and ``ruleIndex``. Regions are 1-based
with ``columnKind: unicodeCodePoints``; artifact URIs are percent-encoded
and relative to the repository root (``uriBaseId: %SRCROOT%``, which
``originalUriBaseIds`` maps to the root's ``file:`` URI); each rule carries
its generated docs as ``help.text`` / ``help.markdown``. ``partialFingerprints`` hash
the code, path, the flagged text and its occurrence index among equal
findings, never line numbers, so a finding keeps its identity when lines
move.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import PurePath
from urllib.parse import quote
from typing import Optional, Sequence

from sgllint import __version__
from sgllint.model.secrets import find_secrets, mask
from sgllint.model.diagnostic import Diagnostic, Severity
from sgllint.output.positions import one_based
from sgllint.output.text import json_text

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}
INFORMATION_URI = "https://github.com/sgllint/sgllint"


def _bytes(path: str) -> bytes:
    """A path's bytes: an undecodable file-name byte (a lone surrogate
    from ``surrogateescape``) as itself, any other surrogate as UTF-8 would
    write it if it could."""
    try:
        return os.fsencode(path)
    except UnicodeEncodeError:
        return path.encode("utf-8", "surrogatepass")


def artifact_uri(path: str, root: Optional[str]) -> tuple[str, bool]:
    """(URI, relative to ``root``) of a finding's file: percent-encoded
    (RFC 3986; a space is ``%20``, a ``#`` ``%23``, non-ASCII its UTF-8
    bytes, an undecodable file-name byte the byte itself), relative to the
    repository root when the file is inside it, else an absolute ``file:``
    URI."""
    absolute = os.path.abspath(path)
    base = os.path.abspath(root) if root else os.getcwd()
    try:
        rel = os.path.relpath(absolute, base)
    except ValueError:  # another drive on Windows
        rel = os.pardir
    if rel != os.pardir and not rel.startswith(os.pardir + os.sep):
        return quote(_bytes(PurePath(rel).as_posix()), safe="/"), True
    return "file://" + quote(_bytes(PurePath(absolute).as_posix()), safe="/"), False


def root_uri(root: Optional[str]) -> str:
    """``file:///abs/root/``: what ``%SRCROOT%`` stands for."""
    base = PurePath(os.path.abspath(root) if root else os.getcwd()).as_posix().rstrip("/") + "/"
    return "file://" + ("" if base.startswith("/") else "/") + quote(_bytes(base), safe="/:")


def relative_uri(path: str) -> str:
    """A forward-slash path relative to the working directory when the file
    is below it, else the absolute path as given."""
    p = path
    if os.path.isabs(p):
        try:
            rel = os.path.relpath(p)
        except ValueError:  # another drive on Windows
            rel = p
        if not rel.startswith(".."):
            p = rel
    p = PurePath(p).as_posix()
    return p[2:] if p.startswith("./") else p


def fingerprints(diagnostics: Sequence[Diagnostic]) -> list[str]:
    """Stable per-finding hashes: code + path + flagged text + the index of
    this finding among the ones with the same three (in file order). The text
    of a file read only as a launch's reference (``Source.echo`` false) is
    left out: a hash of a short value (a key, a password) gives it away."""
    seen: dict[tuple, int] = {}
    out = []
    for d in diagnostics:
        flagged = d.span.text if getattr(d.span.source, "echo", True) else ""
        for a, b in reversed(find_secrets(flagged)):  # a credential is not hashed either (SGL502)
            flagged = flagged[:a] + mask(flagged[a:b]) + flagged[b:]
        key = (d.code, relative_uri(d.path), flagged)
        n = seen.get(key, 0)
        seen[key] = n + 1
        digest = hashlib.sha256("\0".join((*key, str(n))).encode("utf-8", "surrogatepass")).hexdigest()
        out.append(digest[:32])
    return out


def _section(doc: str, title: str) -> str:
    m = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", doc, re.M | re.S)
    return " ".join(m.group(1).split()) if m else ""


def _rule_meta(code: str, name: str, url: str) -> dict:
    from sgllint.model.rule import find_rule
    from sgllint.model.rule_docs import rule_section

    rule = find_rule(code)
    summary = rule.summary() if rule is not None else name
    full = _section(rule.doc(), "What it does") if rule is not None else ""
    level = LEVEL[rule.severity] if rule is not None else "warning"
    meta = {
        "id": code,
        "name": name,
        "shortDescription": {"text": summary or name},
        "fullDescription": {"text": full or summary or name},
        "helpUri": url or (rule.url() if rule is not None else INFORMATION_URI),
        "defaultConfiguration": {"level": level},
    }
    if rule is not None:
        # code scanning shows help.markdown (else help.text) as the rule's page
        meta["help"] = {"text": rule.doc(), "markdown": rule_section(rule)}
    return meta


def _region(span) -> dict:
    line, col, end_line, end_col = one_based(span)
    return {"startLine": line, "startColumn": col, "endLine": end_line, "endColumn": end_col}


def _location(span, message: Optional[str] = None, id_: Optional[int] = None, root: Optional[str] = None) -> dict:
    loc: dict = {}
    if id_ is not None:
        loc["id"] = id_
    uri, inside = artifact_uri(span.path, root)
    artifact = {"uri": uri, "uriBaseId": "%SRCROOT%"} if inside else {"uri": uri}
    loc["physicalLocation"] = {"artifactLocation": artifact, "region": _region(span)}
    if message is not None:
        loc["message"] = {"text": message}
    return loc


def as_log(diagnostics: Sequence[Diagnostic], notices: Sequence[str] = (), root: Optional[str] = None) -> dict:
    codes: dict[str, Diagnostic] = {}
    for d in sorted(diagnostics, key=lambda d: d.code):
        codes.setdefault(d.code, d)
    rules = [_rule_meta(code, d.name, d.url) for code, d in codes.items()]
    index = {code: i for i, code in enumerate(codes)}
    results = []
    for d, fp in zip(diagnostics, fingerprints(diagnostics)):
        text = d.message + (f" (help: {d.help})" if d.help else "")
        result: dict = {
            "ruleId": d.code,
            "ruleIndex": index[d.code],
            "level": LEVEL[d.severity],
            "message": {"text": text},
            "locations": [_location(d.span, root=root)],
            "partialFingerprints": {"sgllint/v1": fp},
        }
        if d.related:
            result["relatedLocations"] = [_location(r.span, r.message, i, root) for i, r in enumerate(d.related, 1)]
        if d.fix is not None:
            result["properties"] = {"fix": {"message": d.fix.message, "applicability": d.fix.applicability}}
        results.append(result)
    return {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "sgllint",
                        "version": __version__,
                        "informationUri": INFORMATION_URI,
                        "rules": rules,
                    }
                },
                "originalUriBaseIds": {"%SRCROOT%": {"uri": root_uri(root)}},
                "columnKind": "unicodeCodePoints",
                "results": results,
                **({"properties": {"notices": list(notices)}} if notices else {}),
            }
        ],
    }


def render(diagnostics: Sequence[Diagnostic], notices: Sequence[str] = (), root: Optional[str] = None) -> str:
    return json_text(as_log(diagnostics, notices, root)) + "\n"
