"""``sarif``: SARIF 2.1.0 for GitHub code scanning and other SARIF viewers.

One run; ``tool.driver.rules`` lists each reported code once (id, name,
short and full description, helpUri, default level) and every result
points at its rule by ``ruleId`` and ``ruleIndex``. Regions are 1-based
with ``columnKind: unicodeCodePoints``; artifact URIs are relative to the
working directory (``uriBaseId: %SRCROOT%``). ``partialFingerprints`` hash
the code, path, the flagged text and its occurrence index among equal
findings, never line numbers, so a finding keeps its identity when lines
move.
"""

from __future__ import annotations

import hashlib
import json as _json
import os
import re
from pathlib import PurePath
from typing import Optional, Sequence

from sgllint import __version__
from sgllint.diagnostic import Diagnostic, Severity
from sgllint.output.positions import one_based

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}
INFORMATION_URI = "https://github.com/sgllint/sgllint"


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
    this finding among the ones with the same three (in file order)."""
    seen: dict[tuple, int] = {}
    out = []
    for d in diagnostics:
        key = (d.code, relative_uri(d.path), d.span.text)
        n = seen.get(key, 0)
        seen[key] = n + 1
        digest = hashlib.sha256("\0".join((*key, str(n))).encode("utf-8", "surrogatepass")).hexdigest()
        out.append(digest[:32])
    return out


def _section(doc: str, title: str) -> str:
    m = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", doc, re.M | re.S)
    return " ".join(m.group(1).split()) if m else ""


def _rule_meta(code: str, name: str, url: str) -> dict:
    from sgllint.rule import find_rule

    rule = find_rule(code)
    summary = rule.summary() if rule is not None else name
    full = _section(rule.doc(), "What it does") if rule is not None else ""
    level = LEVEL[rule.severity] if rule is not None else "warning"
    return {
        "id": code,
        "name": name,
        "shortDescription": {"text": summary or name},
        "fullDescription": {"text": full or summary or name},
        "helpUri": url or (rule.url() if rule is not None else INFORMATION_URI),
        "defaultConfiguration": {"level": level},
    }


def _region(span) -> dict:
    line, col, end_line, end_col = one_based(span)
    return {"startLine": line, "startColumn": col, "endLine": end_line, "endColumn": end_col}


def _location(span, message: Optional[str] = None, id_: Optional[int] = None) -> dict:
    loc: dict = {}
    if id_ is not None:
        loc["id"] = id_
    loc["physicalLocation"] = {
        "artifactLocation": {"uri": relative_uri(span.path), "uriBaseId": "%SRCROOT%"},
        "region": _region(span),
    }
    if message is not None:
        loc["message"] = {"text": message}
    return loc


def as_log(diagnostics: Sequence[Diagnostic]) -> dict:
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
            "locations": [_location(d.span)],
            "partialFingerprints": {"sgllint/v1": fp},
        }
        if d.related:
            result["relatedLocations"] = [_location(r.span, r.message, i) for i, r in enumerate(d.related, 1)]
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
                "columnKind": "unicodeCodePoints",
                "results": results,
            }
        ],
    }


def render(diagnostics: Sequence[Diagnostic]) -> str:
    return _json.dumps(as_log(diagnostics), indent=2, ensure_ascii=False) + "\n"
