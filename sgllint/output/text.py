"""What every output format shares about text taken from the linted tree.

Paths, flag names and values in messages, and source lines come from files a
stranger may have written. A terminal obeys the control characters in them
(ESC starts colour, title and hyperlink sequences, CR overwrites the line, BEL
rings, bidi overrides reorder what the reader sees), XML 1.0 forbids most of
them, and a lone surrogate (an undecodable byte of a file name) cannot even be
encoded to UTF-8. So:

- text formats show each such character as its Python escape (``\\x1b``,
  ``\\u202e``, ``\\udcff``): `visible`;
- JSON formats keep every string exact but write these characters as JSON
  ``\\uXXXX`` escapes, so the document is plain UTF-8 that ``cat`` cannot turn
  into terminal commands: `json_text`;
- text formats show at most a per-file number of findings and then one line
  saying how many were left out: `capped`.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from typing import Sequence, Union

from sgllint.model.diagnostic import Diagnostic

#: code points no format prints raw: C0 controls but TAB, DEL and the C1
#: controls, the Arabic letter mark, LRM/RLM, line and paragraph separators,
#: the bidi embeddings/overrides/isolates (CVE-2021-42574), the surrogates and
#: the two noncharacters XML 1.0 forbids
_UNSAFE = (
    [c for c in range(0x20) if c != 0x09]
    + list(range(0x7F, 0xA0))
    + [0x061C, 0x200E, 0x200F]
    + list(range(0x2028, 0x202F))
    + list(range(0x2066, 0x206A))
    + list(range(0xD800, 0xE000))
    + [0xFFFE, 0xFFFF]
)


def _python_escape(code: int) -> str:
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


@functools.lru_cache(maxsize=None)
def _visible_table() -> dict[int, str]:
    """str.translate table: linear, and no character is looked at twice.
    Built on first use (2,300 entries): a run that prints nothing, or only
    JSON, does not build it at import."""
    return {c: _python_escape(c) for c in _UNSAFE}


@functools.lru_cache(maxsize=None)
def _json_escapes() -> dict[int, str]:
    # json.dumps already escapes C0; the rest becomes a JSON escape of itself
    return {c: f"\\u{c:04x}" for c in _UNSAFE if c >= 0x20}


def visible(text: str) -> str:
    """``text`` with every unsafe character written as its escape."""
    return text.translate(_visible_table())


def display(char: str) -> str:
    """How one character of a source line is shown in a code frame (a TAB
    as one space, as the frame always did)."""
    return " " if char == "\t" else _visible_table().get(ord(char), char)


def json_text(value: object, indent: Union[int, None] = 2) -> str:
    """``json.dumps(value, ensure_ascii=False)`` whose unsafe characters are
    JSON escapes: the decoded document is unchanged."""
    return json.dumps(value, indent=indent, ensure_ascii=False).translate(_json_escapes())


# ---------------------------------------------------------------------------
# The per-file cap of the text formats
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Omitted:
    """Stands for the findings of ``path`` a text format does not show."""

    path: str
    count: int

    def summary(self) -> str:
        noun = "diagnostic" if self.count == 1 else "diagnostics"
        return f"{self.count} more {noun} in {visible(self.path)} not shown (--max-diagnostics)"


def capped(diagnostics: Sequence[Diagnostic], max_per_file: int) -> list[Union[Diagnostic, Omitted]]:
    """The first ``max_per_file`` findings of each file (0: all), in the
    given order, and an `Omitted` where a file's last finding was."""
    if max_per_file <= 0:
        return list(diagnostics)
    total: dict[str, int] = {}
    for d in diagnostics:
        total[d.path] = total.get(d.path, 0) + 1
    if all(n <= max_per_file for n in total.values()):
        return list(diagnostics)
    seen: dict[str, int] = {}
    out: list[Union[Diagnostic, Omitted]] = []
    for d in diagnostics:
        n = seen[d.path] = seen.get(d.path, 0) + 1
        if n <= max_per_file:
            out.append(d)
        if n == total[d.path] and n > max_per_file:
            out.append(Omitted(d.path, n - max_per_file))
    return out
