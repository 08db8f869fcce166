"""Spans and diagnostics in LSP terms, shared by ``sgllint lsp`` and
``--output-format lsp``. Plain dicts in the LSP JSON shape; no pygls import.

The one conversion: a code-point offset into ``Source.text`` <-> an LSP
``Position`` (0-based line, ``character`` counted in the negotiated position
encoding: UTF-16 code units by default, or UTF-8 bytes / code points).
Lines break at ``\\n``, ``\\r\\n`` and ``\\r``, as in both LSP and `Source`.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable, Optional
from urllib.parse import quote_from_bytes, unquote, urlparse

from sgllint.model.diagnostic import Diagnostic, Severity
from sgllint.model.facts import Source, Span

UTF8, UTF16, UTF32 = "utf-8", "utf-16", "utf-32"
ENCODINGS = (UTF8, UTF16, UTF32)

#: LSP DiagnosticSeverity
LSP_SEVERITY = {Severity.ERROR: 1, Severity.WARNING: 2, Severity.INFO: 3}


def units(text: str, encoding: str = UTF16) -> int:
    """Length of ``text`` in the encoding's code units (counted by the codec,
    in C: a diagnostic's column on a megabyte-long line is cheap)."""
    if encoding == UTF32 or text.isascii():
        return len(text)
    if encoding == UTF16:
        return len(text.encode("utf-16-le", "surrogatepass")) // 2
    return len(text.encode("utf-8", "surrogatepass"))


def offset_to_position(source: Source, offset: int, encoding: str = UTF16) -> dict:
    offset = max(0, min(offset, len(source.text)))
    line, _ = source.line_col(offset)
    start = source.line_starts[line - 1]
    if source.text.isascii():  # O(1): thousands of findings on one long line stay cheap
        return {"line": line - 1, "character": offset - start}
    return {"line": line - 1, "character": units(source.text[start:offset], encoding)}


def span_to_range(span: Span, encoding: str = UTF16) -> dict:
    """The span as an LSP ``Range`` in ``encoding``."""
    return {
        "start": offset_to_position(span.source, span.start, encoding),
        "end": offset_to_position(span.source, span.end, encoding),
    }


def position_to_offset(source: Source, line: int, character: int, encoding: str = UTF16) -> int:
    """Inverse of `offset_to_position`; clamps to the line (LSP says a
    character past the end of a line means the line's end)."""
    starts = source.line_starts
    text = source.text
    if line < 0:
        return 0
    if line >= len(starts):
        return len(text)
    start = starts[line]
    end = starts[line + 1] if line + 1 < len(starts) else len(text)
    while end > start and text[end - 1] in "\r\n":
        end -= 1
    if text[start:end].isascii():
        return start + min(max(character, 0), end - start)
    count = 0
    i = start
    while i < end and count < character:
        count += units(text[i], encoding)
        i += 1
    return i


def path_to_uri(path: str) -> str:
    if path.startswith(("file:", "untitled:")):
        return path
    absolute = os.path.abspath(path)
    try:
        return Path(absolute).as_uri()
    except UnicodeEncodeError:  # a lone surrogate no file name decodes to (an editor's buffer name)
        return "file://" + quote_from_bytes(absolute.encode("utf-8", "surrogatepass"))


def uri_to_path(uri: str) -> str:
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return parsed.path or uri
    path = unquote(parsed.path)
    if os.name == "nt" and path.startswith("/") and len(path) > 2 and path[2] == ":":
        path = path[1:]
    return path


def to_lsp_diagnostic(d: Diagnostic, encoding: str = UTF16, uri_for: Callable[[str], str] = path_to_uri) -> dict:
    """One sgllint diagnostic as an LSP ``Diagnostic`` (JSON shape)."""
    message = d.message + (f"\nhelp: {d.help}" if d.help else "")
    out: dict = {
        "range": span_to_range(d.span, encoding),
        "severity": LSP_SEVERITY[d.severity],
        "code": d.code,
        "source": "sgllint",
        "message": message,
    }
    if d.url:
        out["codeDescription"] = {"href": d.url}
    if d.related:
        out["relatedInformation"] = [
            {"location": {"uri": uri_for(r.span.path), "range": span_to_range(r.span, encoding)}, "message": r.message}
            for r in d.related
        ]
    data: dict = {"name": d.name}
    if d.fix is not None:
        data["fix"] = {"message": d.fix.message, "applicability": d.fix.applicability}
    out["data"] = data
    return out


def fix_to_workspace_edit(d: Diagnostic, encoding: str = UTF16, uri_for: Callable[[str], str] = path_to_uri) -> Optional[dict]:
    """The diagnostic's fix as an LSP ``WorkspaceEdit`` (``changes`` by URI)."""
    if d.fix is None:
        return None
    changes: dict[str, list] = {}
    for e in d.fix.edits:
        changes.setdefault(uri_for(e.span.path), []).append({"range": span_to_range(e.span, encoding), "newText": e.content})
    return {"changes": changes}
