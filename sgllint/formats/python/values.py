"""Abstract values of the Python extractor: what an expression is known to
hold, and where in the file every known character was written.

A string is a `Str`: its characters, the file offset of each, and holes for
parts that cannot be known (``f"--tp={tp}"``), so a command string can be
split into words that keep exact spans. Scalars, lists and dicts carry the
spans of the literals they came from; a value reached through a name keeps
the span of the literal where the name was assigned.
"""

from __future__ import annotations

import ast
import unicodedata
import warnings
from dataclasses import dataclass, replace
from typing import Optional, Union

from sgllint.model.facts import Source, SourceMap, Span, Unresolved


@dataclass(frozen=True)
class Hole:
    """A part of a string that is not known statically (``{tp}``)."""

    raw: str
    reason: str
    span: Span
    words: bool = False  # stands for any number of words (a joined `Splat`)


#: stands in for a hole in `Str.text` (holes are found through `Str.holes`)
HOLE_CHAR = "\x00"


@dataclass(frozen=True)
class Str:
    """A (partly) known string with the file offset of every character.

    ``offsets`` has one entry per character plus one for the end; offsets are
    non-decreasing, so any slice maps to a well-formed span.
    """

    text: str
    offsets: tuple[int, ...]
    holes: tuple[tuple[int, Hole], ...] = ()

    @staticmethod
    def spread(text: str, span: Span) -> "Str":
        """``text`` produced by the expression at ``span`` (not written there
        character by character): the characters are spread over the span."""
        return Str(text, stretch(span.start, span.end, len(text)))

    @staticmethod
    def hole(h: Hole) -> "Str":
        return Str(HOLE_CHAR, (h.span.start, h.span.end), ((0, h),))

    def __add__(self, other: "Str") -> "Str":
        shift = len(self.text)
        holes = self.holes + tuple((i + shift, h) for i, h in other.holes)
        return Str(self.text + other.text, self.offsets[:-1] + other.offsets, holes)

    def slice(self, start: int, end: int) -> "Str":
        n = len(self.text)
        start, end = max(0, min(start, n)), max(0, min(end, n))
        end = max(start, end)
        holes = tuple((i - start, h) for i, h in self.holes if start <= i < end)
        last = self.offsets[end - 1] + 1 if end > start else self.offsets[start]
        return Str(self.text[start:end], self.offsets[start:end] + (last,), holes)

    @property
    def known(self) -> bool:
        return not self.holes

    def hole_at(self, index: int) -> Optional[Hole]:
        for i, h in self.holes:
            if i == index:
                return h
        return None

    def span(self, source: Source) -> Span:
        """The source the characters came from (first to last, inclusive)."""
        if not self.text:
            return Span(source, self.offsets[0], self.offsets[0])
        chars = self.offsets[:-1]
        end = max(max(chars) + 1, max((h.span.end for _, h in self.holes), default=0))
        return Span(source, min(chars), end)  # a hole covers its whole expression

    def value_map(self, source: Source, span: Span) -> Optional[SourceMap]:
        """A map from each character to its offset, when every character lies
        in ``span`` in order (text assembled from far-apart pieces has none)."""
        chars = self.offsets[:-1]
        if any(b < a for a, b in zip(chars, chars[1:])):
            return None
        if chars and (chars[0] < span.start or chars[-1] >= span.end):
            return None
        return SourceMap(source, 0, list(self.offsets))

    def relocated(self, span: Span) -> "Str":
        """The same characters spread over ``span`` (holes keep their own)."""
        return Str(self.text, stretch(span.start, span.end, len(self.text)), self.holes)


def stretch(start: int, end: int, n: int) -> tuple[int, ...]:
    """``n`` non-decreasing offsets inside ``[start, end)`` whose last one is
    ``end - 1`` (so the whole text maps to the whole range), plus the end."""
    if n == 0:
        return (start,)
    last = max(end - 1, start)
    if n == 1:  # one character cannot cover the range: it points at its start
        return (start, last + 1)
    return tuple(min(start + i, last) for i in range(n - 1)) + (last, last + 1)


@dataclass(frozen=True)
class Scalar:
    """A str/int/float/bool/None value, or `Unresolved`.

    ``span`` is the literal as written; None means the value is not tied to
    one literal (a value that differs by branch): report it where it is used.
    ``text`` holds a string's characters with offsets (and holes).
    """

    value: object
    span: Optional[Span]
    text: Optional[Str] = None
    #: the value on each path through the branches that built it, when they
    #: differ as commands do (`Path`s, see `alternatives`); ``value`` is their join
    paths: tuple = ()

    @property
    def known(self) -> bool:
        return not isinstance(self.value, Unresolved)


@dataclass(frozen=True)
class Splat:
    """Any number of unknown list elements (``*extra_args``, a branch)."""

    reason: str
    span: Optional[Span] = None  # the ``*name`` as written, when there is one


@dataclass(frozen=True)
class ListVal:
    items: tuple  # of AbsVal or Splat
    span: Optional[Span]
    #: the list on each path through the branches that extended it
    #: differently; ``items`` is their join (a `Splat` where they differ)
    paths: tuple = ()


@dataclass(frozen=True)
class Entry:
    key: str
    key_span: Span
    value: "AbsVal"
    #: set under a test that the installed ServerArgs has a field of this
    #: name (``if "x" in [f.name for f in fields(ServerArgs)]``): a release
    #: without the field never receives it
    only_if_field: bool = False


@dataclass(frozen=True)
class DictVal:
    entries: tuple[Entry, ...]
    opaque: tuple[str, ...]  # why the dict may hold more keys than seen
    span: Optional[Span]
    #: the dict on each path through branches that set different keys
    paths: tuple = ()

    def get(self, key: str) -> Optional[Entry]:
        for e in self.entries:
            if e.key == key:
                return e
        return None

    def with_entry(self, entry: Entry) -> "DictVal":
        """``d[key] = value``: an existing key keeps its place (dict order)."""
        if self.get(entry.key) is None:
            entries = self.entries + (entry,)
        else:
            entries = tuple(entry if e.key == entry.key else e for e in self.entries)
        return DictVal(entries, self.opaque, self.span)

    def without(self, key: str) -> "DictVal":
        return DictVal(tuple(e for e in self.entries if e.key != key), self.opaque, self.span)

    def with_opaque(self, reason: str) -> "DictVal":
        if reason in self.opaque:
            return self
        return DictVal(self.entries, self.opaque + (reason,), self.span)


@dataclass(frozen=True)
class Imported:
    """A name bound by an import: ``sgl`` -> ``sglang``."""

    qualname: str


AbsVal = Union[Scalar, ListVal, DictVal, Imported]


def unknown(raw: str, reason: str, span: Optional[Span] = None, known_prefix: str = "") -> Scalar:
    return Scalar(Unresolved(raw, reason, known_prefix), span)


# ---------------------------------------------------------------------------
# String literals
# ---------------------------------------------------------------------------

_SIMPLE_ESCAPES = {
    "\\": "\\",
    "'": "'",
    '"': '"',
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
}
_HEX_DIGITS = {"x": 2, "u": 4, "U": 8}


def decode_body(raw: str, base: int, is_raw: bool, fstring: bool = False) -> Str:
    """Decode the body of a string literal (between its quotes) written at
    file offset ``base``; each character maps to the offset of the source
    character (or escape sequence) that produced it."""
    chars: list[str] = []
    offsets: list[int] = []
    i, n = 0, len(raw)
    while i < n:
        c = raw[i]
        if c == "\r":  # Python reads \r\n and \r in source as \n
            chars.append("\n")
            offsets.append(base + i)
            i += 2 if raw.startswith("\n", i + 1) else 1
            continue
        if fstring and c in "{}" and raw.startswith(c, i + 1):
            chars.append(c)
            offsets.append(base + i)
            i += 2
            continue
        if c != "\\" or i + 1 >= n or is_raw:
            chars.append(c)
            offsets.append(base + i)
            i += 1
            continue
        decoded, used = _escape(raw, i)
        if decoded:
            chars.append(decoded)
            offsets.append(base + i)
        i += used
    end = offsets[-1] + 1 if offsets else base
    return Str("".join(chars), tuple(offsets) + (end,))


def _escape(raw: str, i: int) -> tuple[str, int]:
    """The character an escape at ``raw[i] == '\\'`` stands for, and the
    number of source characters it uses ("" for a line continuation)."""
    n = raw[i + 1]
    if n == "\n":
        return "", 2
    if n == "\r":
        return "", 3 if raw.startswith("\n", i + 2) else 2
    if n in _SIMPLE_ESCAPES:
        return _SIMPLE_ESCAPES[n], 2
    if n in "01234567":
        j = i + 1
        while j < len(raw) and j < i + 4 and raw[j] in "01234567":
            j += 1
        return chr(int(raw[i + 1 : j], 8)), j - i
    if n in _HEX_DIGITS:
        width = _HEX_DIGITS[n]
        digits = raw[i + 2 : i + 2 + width]
        try:
            return chr(int(digits, 16)), 2 + width
        except (ValueError, OverflowError):
            return "\\", 1
    if n == "N" and raw.startswith("{", i + 2):
        close = raw.find("}", i + 3)
        if close != -1:
            try:
                return unicodedata.lookup(raw[i + 3 : close]), close + 1 - i
            except KeyError:
                pass
    return "\\", 1  # an unknown escape keeps its backslash


def split_prefix(literal: str) -> tuple[str, str, int]:
    """(prefix, quote, body start) of a string literal's source text."""
    i = 0
    while i < len(literal) and literal[i] not in "'\"":
        i += 1
    quote = literal[i : i + 3] if literal[i : i + 3] in ('"""', "'''") else literal[i : i + 1]
    return literal[:i], quote, i + len(quote)


def decode_literal(literal: str, base: int) -> Optional[Str]:
    """A plain (non-f) string literal written at ``base``; None for bytes
    literals and anything Python would not accept."""
    prefix, quote, body = split_prefix(literal)
    if "b" in prefix.lower() or not quote or not literal.endswith(quote) or len(literal) < body + len(quote):
        return None
    decoded = decode_body(literal[body : len(literal) - len(quote)], base + body, "r" in prefix.lower())
    expected = _python_value(literal)
    if expected is None:
        return None
    if expected != decoded.text:  # defence: trust Python, spread the offsets
        return Str(expected, stretch(base, base + len(literal), len(expected)))
    return decoded


def _python_value(literal: str) -> Optional[str]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            value = ast.literal_eval(literal)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            return None
    return value if isinstance(value, str) else None


# ---------------------------------------------------------------------------
# Joining what branches of the code leave behind
# ---------------------------------------------------------------------------


def same(a, b) -> bool:
    """Whether two abstract values certainly hold the same thing."""
    if a is b:
        return True
    if isinstance(a, Scalar) and isinstance(b, Scalar):
        return a.known and b.known and type(a.value) is type(b.value) and a.value == b.value
    if isinstance(a, ListVal) and isinstance(b, ListVal):
        return len(a.items) == len(b.items) and all(same(x, y) for x, y in zip(a.items, b.items))
    if isinstance(a, DictVal) and isinstance(b, DictVal):
        if a.opaque != b.opaque or [e.key for e in a.entries] != [e.key for e in b.entries]:
            return False
        return all(same(x.value, y.value) for x, y in zip(a.entries, b.entries))
    if isinstance(a, Imported) and isinstance(b, Imported):
        return a.qualname == b.qualname
    return False


#: what a join adds to each side's paths: nothing
NO_SIDES: tuple = (frozenset(), frozenset())


def merge(a, b, why: str, paths: bool = True, sides: tuple = NO_SIDES):
    """What a name holds after two paths (branches, loop iterations) that
    left ``a`` and ``b``: what they agree on stays known. With ``paths``
    (branches, not loop iterations, whose count is unknown) lists and dicts
    that differ in their arguments, and command strings that differ, also
    keep the value of each path (`alternatives`), ``a``'s taken under the
    branch decisions ``sides[0]``, ``b``'s under ``sides[1]``."""
    if same(a, b):
        return a
    if isinstance(a, Imported) != isinstance(b, Imported):
        # try: import sglang / except ImportError: sglang = None
        return a if isinstance(a, Imported) else b
    if isinstance(a, ListVal) and isinstance(b, ListVal):
        joined, differ = _merge_lists(a, b, why)
    elif isinstance(a, DictVal) and isinstance(b, DictVal):
        joined, differ = _merge_dicts(a, b, why)
    else:
        joined = Scalar(Unresolved(_describe(a), f"differs by {why}: {_describe(a)} or {_describe(b)}"), None)
        if not (isinstance(a, Scalar) and isinstance(b, Scalar)):
            return joined
        differ = _command_like(a) or _command_like(b)
    if not paths or not (a.paths or b.paths or differ):
        return joined
    return with_paths(joined, [Path(a, sides[0]), Path(b, sides[1])])


#: a value is followed along at most this many paths; past that only its join is
MAX_PATHS = 16


@dataclass(frozen=True)
class Path:
    """A value on one path through the branches, and the decisions that
    lead there: (branch, side) pairs, so values of two names are combined
    only as one path can hold them."""

    value: object
    decisions: frozenset = frozenset()


def consistent(decisions) -> bool:
    """Whether no branch is taken both ways."""
    branches = [branch for branch, _ in decisions]
    return len(branches) == len(set(branches))


def alternatives(value) -> tuple:
    """What ``value`` holds on each path through the branches that built it
    (itself alone, under no decision, when they agree)."""
    return getattr(value, "paths", ()) or (Path(value),)


def with_paths(value, paths):
    """``value`` (the join) holding ``paths`` (flattened, deduplicated); none
    when they are fewer than two, more than `MAX_PATHS`, or not all of its kind."""
    flat: list = []
    for path in paths:
        for inner in alternatives(path.value):
            decisions = path.decisions | inner.decisions
            if not consistent(decisions):
                continue
            known = next((i for i, p in enumerate(flat) if p.value == inner.value), None)
            if known is None:
                flat.append(Path(inner.value, decisions))
            else:  # the same value on either path: under what both share
                flat[known] = Path(inner.value, flat[known].decisions & decisions)
    kind = type(value)
    if len(flat) < 2 or len(flat) > MAX_PATHS or kind not in (Scalar, ListVal, DictVal) or any(type(p.value) is not kind for p in flat):
        return replace(value, paths=()) if getattr(value, "paths", ()) else value
    return replace(value, paths=tuple(flat))


def _command_like(value: Scalar) -> bool:
    """A string of several words (a command), not one value."""
    return isinstance(value.value, str) and len(value.value.split()) > 1


def _describe(v) -> str:
    if isinstance(v, Scalar):
        return repr(v.value) if v.known else str(v.value)
    if isinstance(v, Imported):
        return v.qualname
    return "a list" if isinstance(v, ListVal) else "a dict"


def _merge_lists(a: ListVal, b: ListVal, why: str) -> tuple[ListVal, bool]:
    """Elements both paths share (a common head and tail) stay; a middle of
    equal length merges element by element; anything else is unknown (then
    the paths differ in their arguments: True)."""
    xs, ys = a.items, b.items
    head = 0
    while head < min(len(xs), len(ys)) and same(xs[head], ys[head]):
        head += 1
    tail = 0
    while tail < min(len(xs), len(ys)) - head and same(xs[-1 - tail], ys[-1 - tail]):
        tail += 1
    mid_x, mid_y = xs[head : len(xs) - tail], ys[head : len(ys) - tail]
    if len(mid_x) == len(mid_y) and not any(_flag_like(v) for v in mid_x + mid_y):
        middle = tuple(_merge_element(x, y, why) for x, y in zip(mid_x, mid_y))
        differ = False
    elif head and isinstance(xs[head - 1], Splat):
        middle, differ = (), True  # already "any number of arguments" here
    else:
        middle, differ = (Splat(f"arguments that differ by {why}"),), True
    return ListVal(xs[:head] + middle + xs[len(xs) - tail :], a.span), differ


def _merge_element(x, y, why: str):
    merged = merge(x, y, why, paths=False)
    if isinstance(merged, Scalar) and merged.span is None and isinstance(x, Scalar) and x.span is not None:
        # an element keeps a place to point at: the first path's literal
        return Scalar(Unresolved(x.span.text, merged.value.reason), x.span)
    return merged


def _flag_like(v) -> bool:
    return isinstance(v, Splat) or (isinstance(v, Scalar) and isinstance(v.value, str) and v.value.startswith("-"))


def _merge_dicts(a: DictVal, b: DictVal, why: str) -> tuple[DictVal, bool]:
    """Keys both paths set stay, their values merged; a key set on one path
    only makes the dict opaque (then the paths differ in their keys: True)."""
    entries = []
    differ = False
    opaque = list(a.opaque) + [r for r in b.opaque if r not in a.opaque]
    for e in a.entries:
        other = b.get(e.key)
        if other is None:
            opaque.append(f"'{e.key}' is set on some paths only ({why})")
            differ = True
            continue
        value = e.value if same(e.value, other.value) else _merge_element(e.value, other.value, why)
        entries.append(Entry(e.key, e.key_span, value, e.only_if_field and other.only_if_field))
    for e in b.entries:
        if a.get(e.key) is None:
            opaque.append(f"'{e.key}' is set on some paths only ({why})")
            differ = True
    return DictVal(tuple(entries), tuple(dict.fromkeys(opaque)), a.span), differ
