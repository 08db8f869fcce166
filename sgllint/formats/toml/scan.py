"""A TOML scanner that keeps positions: where every key, string (character
by character, through escapes), array and table is written.

It runs only on text `tomllib` has accepted, so it need not diagnose
errors; it must merely never crash or loop on any input. Scalars other than
strings are converted by `tomllib` itself, so their values are exact.

Offsets are code-point indices into the scanned text. A decoded string
character maps to the last character of its escape sequence (``\\"`` maps
to the quote), the convention the shell extractor uses too: a span then
ends exactly after the escape.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import Optional, Union

try:  # Python >= 3.11
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

__all__ = ["TString", "TScalar", "TArray", "TTable", "TDocument", "scan", "tomllib"]

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_WS = " \t"
_SIMPLE_ESCAPES = {"b": "\b", "t": "\t", "n": "\n", "f": "\f", "r": "\r", '"': '"', "\\": "\\", "e": "\x1b"}
_HEX_ESCAPES = {"x": 2, "u": 4, "U": 8}
# a scalar runs to the next delimiter; a datetime may hold one space
_SCALAR = re.compile(r"[^\s,\]\}#]+")
_DATE_THEN_TIME = re.compile(r"\d{4}-\d{2}-\d{2} \d{2}:")
_DECIMAL_INT = re.compile(r"[+-]?(?:0|[1-9]\d*)\Z")


@dataclass
class TString:
    value: str
    start: int  # the opening quote
    end: int  # after the closing quote
    offsets: list[int]  # offset of each value character, plus one for the end


@dataclass
class TScalar:
    """An integer, float, boolean or date-time."""

    value: object
    start: int
    end: int


@dataclass
class TArray:
    items: list["Node"]
    start: int
    end: int


@dataclass
class TKey:
    parts: tuple[str, ...]
    start: int  # the whole dotted key as written
    end: int
    last_start: int  # the last part as written (``b`` in ``a.b``)
    last_end: int


@dataclass
class TEntry:
    key: TKey
    value: "Node"

    @property
    def start(self) -> int:
        return self.key.start

    @property
    def end(self) -> int:
        return self.value.end


@dataclass
class TTable:
    """A ``[header]`` section (the root has an empty path) or an inline
    table: its entries in the order written."""

    path: tuple[str, ...]
    start: int
    end: int  # after the header (for an inline table: after its closing brace)
    entries: list[TEntry] = field(default_factory=list)
    array: bool = False  # [[array of tables]]
    inline: bool = False


Node = Union[TString, TScalar, TArray, TTable]


@dataclass
class TDocument:
    tables: list[TTable]  # the root first, then every header in order
    comments: list[tuple[int, str]]


def scan(text: str) -> TDocument:
    return _Scanner(text).document()


@functools.lru_cache(maxsize=1024)
def _scalar_value(raw: str):
    if raw == "true":
        return True
    if raw == "false":
        return False
    if _DECIMAL_INT.match(raw):
        try:
            return int(raw)
        except ValueError:  # past int()'s digit limit: tomllib refuses it too
            return raw
    try:
        return tomllib.loads("v = " + raw)["v"]
    except Exception:  # not a value tomllib knows: keep the text
        return raw


class _Scanner:
    def __init__(self, text: str):
        self.text = text
        self.n = len(text)
        self.pos = 0
        self.comments: list[tuple[int, str]] = []

    # -- document ------------------------------------------------------------

    def document(self) -> TDocument:
        root = TTable((), 0, 0)
        tables = [root]
        current = root
        while self.pos < self.n:
            before = self.pos
            self._skip_blank(newlines=True)
            if self.pos >= self.n:
                break
            if self.text[self.pos] == "[":
                current = self._header()
                tables.append(current)
            else:
                entry = self._entry()
                if entry is not None:
                    current.entries.append(entry)
                self._skip_blank(newlines=False)
            if self.pos == before:  # never loop: skip what we do not understand
                self.pos += 1
        return TDocument(tables, self.comments)

    def _skip_blank(self, newlines: bool) -> None:
        """Whitespace and comments (and newlines when asked)."""
        text, n = self.text, self.n
        while self.pos < n:
            c = text[self.pos]
            if c in _WS or (newlines and c in "\r\n"):
                self.pos += 1
            elif c == "#":
                end = self.pos
                while end < n and text[end] not in "\r\n":
                    end += 1
                self.comments.append((self.pos, text[self.pos : end]))
                self.pos = end
            else:
                return

    def _header(self) -> TTable:
        start = self.pos
        array = self.text.startswith("[[", self.pos)
        self.pos += 2 if array else 1
        self._skip_blank(newlines=False)
        key = self._key()
        self._skip_blank(newlines=False)
        closing = "]]" if array else "]"
        if self.text.startswith(closing, self.pos):
            self.pos += len(closing)
        return TTable(key.parts, start, self.pos, array=array)

    def _entry(self) -> Optional[TEntry]:
        key = self._key()
        if not key.parts:
            return None
        self._skip_blank(newlines=False)
        if self.pos < self.n and self.text[self.pos] == "=":
            self.pos += 1
        self._skip_blank(newlines=False)
        return TEntry(key, self._value())

    # -- keys ----------------------------------------------------------------

    def _key(self) -> TKey:
        parts: list[str] = []
        start = self.pos
        last = (self.pos, self.pos)
        while self.pos < self.n:
            part_start = self.pos
            c = self.text[self.pos]
            if c == '"':
                parts.append(self._basic_string().value)
            elif c == "'":
                parts.append(self._literal_string().value)
            else:
                m = _BARE_KEY.match(self.text, self.pos)
                if not m:
                    break
                parts.append(m.group())
                self.pos = m.end()
            last = (part_start, self.pos)
            self._skip_blank(newlines=False)
            if self.pos < self.n and self.text[self.pos] == ".":
                self.pos += 1
                self._skip_blank(newlines=False)
            else:
                break
        return TKey(tuple(parts), start, last[1], last[0], last[1])

    # -- values --------------------------------------------------------------

    def _value(self) -> Node:
        text, pos = self.text, self.pos
        if text.startswith('"""', pos):
            return self._multiline_basic()
        if text.startswith("'''", pos):
            return self._multiline_literal()
        if pos < self.n:
            c = text[pos]
            if c == '"':
                return self._basic_string()
            if c == "'":
                return self._literal_string()
            if c == "[":
                return self._array()
            if c == "{":
                return self._inline_table()
        return self._scalar()

    def _scalar(self) -> TScalar:
        start = self.pos
        m = _SCALAR.match(self.text, self.pos)
        end = m.end() if m else self.pos
        if _DATE_THEN_TIME.match(self.text, start):
            m = _SCALAR.match(self.text, start + 11)
            end = m.end() if m else end
        self.pos = end
        return TScalar(_scalar_value(self.text[start:end]), start, end)

    def _array(self) -> TArray:
        start = self.pos
        self.pos += 1
        items: list[Node] = []
        while self.pos < self.n:
            self._skip_blank(newlines=True)
            if self.pos >= self.n or self.text[self.pos] == "]":
                break
            before = self.pos
            items.append(self._value())
            self._skip_blank(newlines=True)
            if self.pos < self.n and self.text[self.pos] == ",":
                self.pos += 1
            elif self.pos == before:
                self.pos += 1
        if self.pos < self.n:
            self.pos += 1  # ]
        return TArray(items, start, self.pos)

    def _inline_table(self) -> TTable:
        start = self.pos
        self.pos += 1
        table = TTable((), start, start, inline=True)
        while self.pos < self.n:
            self._skip_blank(newlines=True)
            if self.pos >= self.n or self.text[self.pos] == "}":
                break
            before = self.pos
            entry = self._entry()
            if entry is not None:
                table.entries.append(entry)
            self._skip_blank(newlines=True)
            if self.pos < self.n and self.text[self.pos] == ",":
                self.pos += 1
            elif self.pos == before:
                self.pos += 1
        if self.pos < self.n:
            self.pos += 1  # }
        table.end = self.pos
        return table

    # -- strings -------------------------------------------------------------

    def _literal_string(self) -> TString:
        start = self.pos
        end = self.text.find("'", start + 1)
        if end < 0 or "\n" in self.text[start:end]:
            end = self._line_end(start)
        self.pos = min(end + 1, self.n)
        return TString(self.text[start + 1 : end], start, self.pos, list(range(start + 1, end + 1)))

    def _multiline_literal(self) -> TString:
        start = self.pos
        body = self._skip_first_newline(start + 3)
        close = self.text.find("'''", body)
        if close < 0:
            close = self.n
        close += self._extra_quotes(close, "'")
        self.pos = min(close + 3, self.n)
        chars: list[str] = []
        offsets: list[int] = []
        i = body
        while i < close:
            if self.text.startswith("\r\n", i):  # tomllib reads CRLF as LF
                i += 1
            chars.append(self.text[i])
            offsets.append(i)
            i += 1
        offsets.append(close)
        return TString("".join(chars), start, self.pos, offsets)

    def _basic_string(self) -> TString:
        start = self.pos
        chars: list[str] = []
        offsets: list[int] = []
        i = start + 1
        text, n = self.text, self.n
        while i < n and text[i] not in '"\n':
            if text[i] == "\\":
                ch, i = self._escape(i)
                chars.append(ch)
                offsets.append(i - 1)
            else:
                chars.append(text[i])
                offsets.append(i)
                i += 1
        offsets.append(i)
        self.pos = min(i + 1, n) if i < n and text[i] == '"' else i
        return TString("".join(chars), start, self.pos, offsets)

    def _multiline_basic(self) -> TString:
        start = self.pos
        text, n = self.text, self.n
        i = self._skip_first_newline(start + 3)
        chars: list[str] = []
        offsets: list[int] = []
        while i < n:
            if text.startswith('"""', i):
                extra = self._extra_quotes(i, '"')
                for k in range(extra):
                    chars.append('"')
                    offsets.append(i + k)
                i += extra
                break
            c = text[i]
            if c == "\\":
                after = self._line_ending_backslash(i)
                if after is not None:
                    i = after
                    continue
                ch, i = self._escape(i)
                chars.append(ch)
                offsets.append(i - 1)
                continue
            if text.startswith("\r\n", i):
                i += 1
                c = "\n"
            chars.append(c)
            offsets.append(i)
            i += 1
        offsets.append(i)
        self.pos = min(i + 3, n)
        return TString("".join(chars), start, self.pos, offsets)

    def _escape(self, i: int) -> tuple[str, int]:
        """The character of the escape at ``i`` and the index after it."""
        text = self.text
        kind = text[i + 1] if i + 1 < self.n else ""
        if kind in _SIMPLE_ESCAPES:
            return _SIMPLE_ESCAPES[kind], i + 2
        width = _HEX_ESCAPES.get(kind)
        if width:
            digits = text[i + 2 : i + 2 + width]
            try:
                return chr(int(digits, 16)), i + 2 + len(digits)
            except ValueError:
                pass
        return "\\", i + 1  # not valid TOML; keep the backslash

    def _line_ending_backslash(self, i: int) -> Optional[int]:
        """After a ``\\`` that ends its line (trailing blanks allowed), the index
        of the next non-whitespace character; None for an ordinary escape."""
        text, n = self.text, self.n
        j = i + 1
        while j < n and text[j] in _WS:
            j += 1
        if j >= n or text[j] not in "\r\n":
            return None
        while j < n and text[j] in " \t\r\n":
            j += 1
        return j

    def _skip_first_newline(self, i: int) -> int:
        if self.text.startswith("\r\n", i):
            return i + 2
        if self.text.startswith("\n", i):
            return i + 1
        return i

    def _extra_quotes(self, close: int, quote: str) -> int:
        """Up to two quotes right before a closing delimiter belong to the
        content: ``""""`` is one quote and the end."""
        extra = 0
        while extra < 2 and self.text.startswith(quote * 4, close + extra):
            extra += 1
        return extra

    def _line_end(self, i: int) -> int:
        end = self.text.find("\n", i)
        return self.n if end < 0 else end
