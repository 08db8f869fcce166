"""Where each character of a YAML scalar's value was written.

PyYAML gives a scalar node its decoded value and the marks of its first and
last character, nothing in between. To point a diagnostic at one word inside
a quoted string or a ``run: |`` block, the scalar is scanned again here, the
way PyYAML's scanner does it (``yaml/scanner.py``: ``scan_plain``,
``scan_flow_scalar``, ``scan_block_scalar``), recording for every value
character the range of source text it came from: escapes map to the whole
escape sequence, a folded line break's space maps to that line break.

The reconstruction is checked against the value PyYAML decoded; when they
differ (libyaml and PyYAML disagree on a few tab cases) every character maps
to the whole scalar, which is imprecise but never wrong.
"""

from __future__ import annotations

from typing import Optional

from sgllint.model.facts import Source, SourceMap, Span

#: characters PyYAML treats as line breaks
BREAKS = "\r\n\x85\u2028\u2029"
_WHITE = " \t"

#: ``\X`` escapes of double-quoted scalars (yaml/scanner.py ESCAPE_REPLACEMENTS)
_ESCAPES = {
    "0": "\0",
    "a": "\x07",
    "b": "\x08",
    "t": "\t",
    "\t": "\t",
    "n": "\n",
    "v": "\x0b",
    "f": "\x0c",
    "r": "\r",
    "e": "\x1b",
    " ": " ",
    '"': '"',
    "\\": "\\",
    "/": "/",
    "N": "\x85",
    "_": "\xa0",
    "L": "\u2028",
    "P": "\u2029",
}
_HEX_ESCAPES = {"x": 2, "u": 4, "U": 8}
_HEX = "0123456789abcdefABCDEF"


class ScalarMap(SourceMap):
    """A `SourceMap` whose characters may each come from several source
    characters (``\\n``, ``''``, ``$(VAR)``): ``offsets[i]`` is where inner
    character ``i`` starts in the file and ``ends[i]`` where it ends, so a
    span over an escape covers the whole escape."""

    __slots__ = ("ends",)

    def __init__(self, source: Source, starts: list[int], ends: list[int], end_of_text: Optional[int] = None):
        if end_of_text is None:
            end_of_text = ends[-1] if ends else 0
        super().__init__(source, 0, list(starts) + [end_of_text])
        self.ends = list(ends)

    def span(self, start: int, end: int) -> Span:
        n = len(self.ends)
        if end <= start or n == 0:
            o = self.outer(start)
            return Span(self.source, o, o)
        start = max(0, min(start, n - 1))
        end = max(start + 1, min(end, n))
        return Span(self.source, self.offsets[start], max(self.offsets[start], self.ends[end - 1]))


class MappedText:
    """Text built character by character, each with its source range."""

    __slots__ = ("chars", "starts", "ends")

    def __init__(self) -> None:
        self.chars: list[str] = []
        self.starts: list[int] = []
        self.ends: list[int] = []

    def add(self, ch: str, start: int, end: int) -> None:
        self.chars.append(ch)
        self.starts.append(start)
        self.ends.append(end)

    def add_run(self, text: str, start: int) -> None:
        """``text`` copied verbatim from ``start`` on."""
        self.chars.extend(text)
        self.starts.extend(range(start, start + len(text)))
        self.ends.extend(range(start + 1, start + len(text) + 1))

    def extend(self, other: "MappedText", lo: int = 0, hi: Optional[int] = None) -> None:
        hi = len(other.chars) if hi is None else hi
        self.chars.extend(other.chars[lo:hi])
        self.starts.extend(other.starts[lo:hi])
        self.ends.extend(other.ends[lo:hi])

    @property
    def text(self) -> str:
        return "".join(self.chars)

    def __len__(self) -> int:
        return len(self.chars)

    def to_map(self, source: Source, end_of_text: Optional[int] = None) -> ScalarMap:
        return ScalarMap(source, self.starts, self.ends, end_of_text)

    def shifted(self, delta: int) -> "MappedText":
        out = MappedText()
        out.chars = list(self.chars)
        if not delta:  # the same offsets: share them (a new int per character costs ~56 MiB per MB)
            out.starts, out.ends = list(self.starts), list(self.ends)
            return out
        out.starts = [s + delta for s in self.starts]
        out.ends = [e + delta for e in self.ends]
        return out


# ---------------------------------------------------------------------------
# Entry point
# ---------------------------------------------------------------------------


def scalar_start(text: str, start: int, end: int) -> int:
    """Skip node properties (``&anchor``, ``!tag``) and the space or comment
    after them: a node's start mark is that of its first property."""
    i = start
    while i < end and text[i] in "&!":
        while i < end and text[i] not in _WHITE + BREAKS:
            i += 1
        while i < end:
            if text[i] in _WHITE + BREAKS:
                i += 1
            elif text[i] == "#" and text[i - 1] in _WHITE + BREAKS:
                while i < end and text[i] not in BREAKS:
                    i += 1
            else:
                break
    return i


def trimmed_end(text: str, start: int, end: int) -> int:
    """``end`` without the trailing whitespace and line breaks a block
    scalar's or collection's end mark includes."""
    while end > start and text[end - 1] in _WHITE + BREAKS:
        end -= 1
    return end


def decode_scalar(text: str, start: int, end: int, style: Optional[str], expected: str) -> Optional[MappedText]:
    """The value of the scalar written at ``text[start:end]`` with the source
    range of each character, or None when it cannot be reproduced exactly."""
    try:
        if style is None or style == "":
            candidates = [_plain(text, start, end)]
        elif style == "'":
            candidates = [_quoted(text, start, end, double=False)]
        elif style == '"':
            candidates = [_quoted(text, start, end, double=True)]
        elif style in ("|", ">"):
            return _block_matching(text, start, end, expected)
        else:
            return None
    except (IndexError, ValueError):
        return None
    for mapped in candidates:
        if mapped is not None and mapped.text == expected:
            return mapped
    return None


def decode_quoted(text: str, start: int, end: int) -> Optional[MappedText]:
    """A quoted word outside any parse (a line of a template): its value,
    or None when it is not a well-formed quoted scalar."""
    try:
        return _quoted(text, start, end, double=text[start] == '"')
    except (IndexError, ValueError):
        return None


def coarse_map(value: str, start: int, end: int) -> MappedText:
    """Every character maps to the whole scalar: the fallback."""
    out = MappedText()
    out.chars = list(value)
    out.starts = [start] * len(value)
    out.ends = [end] * len(value)
    return out


# ---------------------------------------------------------------------------
# Flow scalars: plain, single- and double-quoted
# ---------------------------------------------------------------------------


def _break_at(text: str, i: int) -> tuple[str, int]:
    """The line break at ``i`` as PyYAML reads it, and where it ends."""
    ch = text[i]
    if ch == "\r" and i + 1 < len(text) and text[i + 1] == "\n":
        return "\n", i + 2
    if ch in "\r\n\x85":
        return "\n", i + 1
    return ch, i + 1  # \u2028, \u2029 are kept as they are


def _fold(text: str, i: int, end: int, out: MappedText, emit_first: bool = True) -> int:
    """Line folding at the break at ``i`` (trailing whitespace already
    dropped): one break becomes a space mapped to it, each further empty
    line a newline; the next line's indentation is skipped."""
    first, j = _break_at(text, i)
    first_span = (i, j)
    extra: list[tuple[str, int, int]] = []
    while j < end:
        while j < end and text[j] in _WHITE:
            j += 1
        if j < end and text[j] in BREAKS:
            brk, k = _break_at(text, j)
            extra.append((brk, j, k))
            j = k
        else:
            break
    if emit_first:
        if first != "\n":
            out.add(first, *first_span)
        elif not extra:
            out.add(" ", *first_span)
    for brk, s, e in extra:
        out.add(brk, s, e)
    return j


def _plain(text: str, start: int, end: int) -> MappedText:
    out = MappedText()
    i = start
    while i < end:
        ch = text[i]
        if ch in _WHITE:
            j = i
            while j < end and text[j] in _WHITE:
                j += 1
            if j < end and text[j] in BREAKS:
                i = _fold(text, j, end, out)
            else:
                out.add_run(text[i:j], i)
                i = j
        elif ch in BREAKS:
            i = _fold(text, i, end, out)
        else:
            out.add(ch, i, i + 1)
            i += 1
    return out


def _quoted(text: str, start: int, end: int, double: bool) -> Optional[MappedText]:
    quote = '"' if double else "'"
    if end - start < 2 or text[start] != quote or text[end - 1] != quote:
        return None
    out = MappedText()
    i, stop = start + 1, end - 1
    while i < stop:
        ch = text[i]
        if not double and ch == "'" and i + 1 < stop and text[i + 1] == "'":
            out.add("'", i, i + 2)
            i += 2
        elif double and ch == "\\":
            i = _escape(text, i, stop, out)
        elif ch in _WHITE:
            j = i
            while j < stop and text[j] in _WHITE:
                j += 1
            if j < stop and text[j] in BREAKS:
                i = _fold(text, j, stop, out)
            else:
                out.add_run(text[i:j], i)
                i = j
        elif ch in BREAKS:
            i = _fold(text, i, stop, out)
        else:
            out.add(ch, i, i + 1)
            i += 1
    return out


def _escape(text: str, i: int, stop: int, out: MappedText) -> int:
    """One ``\\`` escape of a double-quoted scalar starting at ``i``."""
    ch = text[i + 1]
    if ch in _ESCAPES:
        out.add(_ESCAPES[ch], i, i + 2)
        return i + 2
    if ch in _HEX_ESCAPES:
        n = _HEX_ESCAPES[ch]
        digits = text[i + 2 : i + 2 + n]
        if len(digits) != n or any(d not in _HEX for d in digits):
            raise ValueError("bad escape")
        out.add(chr(int(digits, 16)), i, i + 2 + n)
        return i + 2 + n
    if ch in BREAKS:
        # an escaped line break joins the lines; empty lines after it stay
        return _fold(text, i + 1, stop, out, emit_first=False)
    raise ValueError("unknown escape")


# ---------------------------------------------------------------------------
# Block scalars: | and >
# ---------------------------------------------------------------------------


def _block_header(text: str, start: int) -> tuple[bool, Optional[bool], Optional[int], int]:
    """(folded, chomping, increment, index of the first content line)."""
    folded = text[start] == ">"
    i = start + 1
    chomping: Optional[bool] = None
    increment: Optional[int] = None
    for _ in range(2):
        if i < len(text) and text[i] in "+-":
            chomping = text[i] == "+"
            i += 1
        elif i < len(text) and text[i] in "123456789":
            increment = int(text[i])
            i += 1
    while i < len(text) and text[i] in _WHITE:
        i += 1
    if i < len(text) and text[i] == "#":
        while i < len(text) and text[i] not in BREAKS:
            i += 1
    if i < len(text) and text[i] in BREAKS:
        _, i = _break_at(text, i)
    return folded, chomping, increment, i


def _block_matching(text: str, start: int, end: int, expected: str) -> Optional[MappedText]:
    """Block scalars depend on the parent's indentation, which the node does
    not record: try each possible indentation, keep the one that reproduces
    the value."""
    folded, chomping, increment, body = _block_header(text, start)
    if increment is None:
        first = _auto_indent(text, body)
        candidates = [max(1, first)] + [n for n in range(1, first + 2) if n != max(1, first)]
    else:
        line_start = max(text.rfind("\n", 0, start), text.rfind("\r", 0, start)) + 1
        header_col = start - line_start
        candidates = [p + increment for p in range(0, header_col + 2)]
    for indent in candidates:
        mapped = _block(text, body, folded, chomping, indent)
        if mapped.text == expected:
            return mapped
    return None


def _auto_indent(text: str, i: int) -> int:
    """PyYAML's ``scan_block_scalar_indentation``: the deepest column reached
    by the leading empty lines and the first content line."""
    col = max_indent = 0
    n = len(text)
    while i < n and (text[i] == " " or text[i] in BREAKS):
        if text[i] == " ":
            i += 1
            col += 1
            max_indent = max(max_indent, col)
        else:
            _, i = _break_at(text, i)
            col = 0
    return max_indent


def _skip_indent(text: str, i: int, col: int, indent: int) -> tuple[int, int]:
    while col < indent and i < len(text) and text[i] == " ":
        i += 1
        col += 1
    return i, col


def _block_breaks(text: str, i: int, col: int, indent: int) -> tuple[list[tuple[str, int, int]], int, int]:
    """``scan_block_scalar_breaks``: empty lines before the next content line."""
    breaks = []
    i, col = _skip_indent(text, i, col, indent)
    while i < len(text) and text[i] in BREAKS:
        brk, j = _break_at(text, i)
        breaks.append((brk, i, j))
        i, col = _skip_indent(text, j, 0, indent)
    return breaks, i, col


def _block(text: str, body: int, folded: bool, chomping: Optional[bool], indent: int) -> MappedText:
    out = MappedText()
    n = len(text)
    breaks, i, col = _block_breaks(text, body, 0, indent)
    line_break: Optional[tuple[str, int, int]] = None
    while col == indent and i < n:
        for brk in breaks:
            out.add(*brk)
        leading_non_space = text[i] not in _WHITE
        j = i
        while j < n and text[j] not in BREAKS:
            j += 1
        out.add_run(text[i:j], i)
        line_break = None
        if j < n:
            brk, k = _break_at(text, j)
            line_break = (brk, j, k)
            j = k
        breaks, i, col = _block_breaks(text, j, 0, indent)
        if col == indent and i < n:
            if folded and line_break and line_break[0] == "\n" and leading_non_space and text[i] not in _WHITE:
                if not breaks:
                    out.add(" ", line_break[1], line_break[2])
            elif line_break:
                out.add(*line_break)
        else:
            break
    if chomping is not False and line_break:
        out.add(*line_break)
    if chomping is True:
        for brk in breaks:
            out.add(*brk)
    return out
