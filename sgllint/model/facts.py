"""The launch model: the one shape every input format is normalised to.

Extractors build `LaunchSite`s (tokens or keyword arguments with exact source
spans); the engine resolves each site against the flag catalog of the SGLang
release it targets and hands rules a `Launch` of `Arg`s. Rules read only this
module's types, never source text.

Offsets are Unicode code-point indices into the decoded file text (Python
``str`` indices). Lines and columns are derived only when rendering.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from typing import Any, Iterator, Optional, Union

from sgllint.model.kinds import ArgProblem, HintKind, LaunchForm, Origin, Resolution

_LINE_BREAK = re.compile(r"\r\n|\r|\n")

class Source:
    """A file's decoded text and the line index used to render positions.

    ``echo`` is False for a file read only because a launch references it
    (a ``--config`` YAML): its positions are reported, its text is not
    shown (it may hold secrets the linted tree does not)."""

    __slots__ = ("path", "text", "echo", "_line_starts")

    def __init__(self, path: str, text: str, echo: bool = True):
        self.path = path
        self.text = text
        self.echo = echo
        self._line_starts: Optional[list[int]] = None

    def __repr__(self) -> str:
        return f"Source({self.path!r})"

    @property
    def line_starts(self) -> list[int]:
        if self._line_starts is None:
            # \r\n, \r and \n end a line (never the other characters str.splitlines knows)
            self._line_starts = [0] + [m.end() for m in _LINE_BREAK.finditer(self.text)]
        return self._line_starts

    def line_col(self, offset: int) -> tuple[int, int]:
        """1-based line and 1-based code-point column of ``offset``."""
        starts = self.line_starts
        offset = max(0, min(offset, len(self.text)))
        line = bisect.bisect_right(starts, offset) - 1
        return line + 1, offset - starts[line] + 1

    def line_text(self, line: int) -> str:
        """The text of 1-based ``line`` without its line break."""
        starts = self.line_starts
        if line < 1 or line > len(starts):
            return ""
        start = starts[line - 1]
        end = starts[line] if line < len(starts) else len(self.text)
        return self.text[start:end].rstrip("\r\n")

    def offset_of(self, line: int, column: int) -> int:
        """Offset of 1-based ``line``/``column`` (inverse of `line_col`)."""
        starts = self.line_starts
        return starts[line - 1] + column - 1


@dataclass(frozen=True)
class Span:
    """A half-open range ``[start, end)`` of code points in one source file."""

    source: Source
    start: int
    end: int

    @property
    def path(self) -> str:
        return self.source.path

    @property
    def text(self) -> str:
        return self.source.text[self.start : self.end]

    def start_line_col(self) -> tuple[int, int]:
        return self.source.line_col(self.start)

    def end_line_col(self) -> tuple[int, int]:
        return self.source.line_col(self.end)

    def cover(self, other: "Span") -> "Span":
        return Span(self.source, min(self.start, other.start), max(self.end, other.end))

    def __repr__(self) -> str:
        line, col = self.start_line_col()
        return f"Span({self.source.path}:{line}:{col} {self.text!r})"


class SourceMap:
    """Maps offsets of an embedded text (a `bash -c` string, a YAML block
    scalar) back to offsets of the file it came from.

    ``offsets[i]`` is the outer offset of inner character ``i``; one extra
    entry maps the end of the inner text. Identity maps store nothing.
    """

    __slots__ = ("source", "base", "offsets")

    def __init__(self, source: Source, base: int = 0, offsets: Optional[list[int]] = None):
        self.source = source
        self.base = base
        self.offsets = offsets

    def outer(self, inner: int) -> int:
        if self.offsets is None:
            return self.base + inner
        if not self.offsets:
            return self.base
        inner = max(0, min(inner, len(self.offsets) - 1))
        return self.offsets[inner]

    def span(self, start: int, end: int) -> Span:
        """The outer span of inner ``[start, end)``; the end maps through the
        last included character so a span never swallows stripped syntax."""
        if end <= start:
            o = self.outer(start)
            return Span(self.source, o, o)
        return Span(self.source, self.outer(start), self.outer(end - 1) + 1)

    def compose(self, inner: "SourceMap") -> "SourceMap":
        """A map for text embedded in the text this map describes."""
        if inner.offsets is None:
            if self.offsets is None:
                return SourceMap(self.source, self.base + inner.base)
            n = len(self.offsets) - inner.base
            return SourceMap(self.source, 0, [self.outer(inner.base + i) for i in range(max(n, 0))])
        return SourceMap(self.source, 0, [self.outer(o) for o in inner.offsets])


# ---------------------------------------------------------------------------
# Values
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Unresolved:
    """A value the linter cannot know statically: a variable, a template, a
    command substitution, an expression. Rules stay silent on these."""

    raw: str
    reason: str
    # For tokens like ``--tp-size=$TP`` the literal text before the unknown part.
    known_prefix: str = ""

    def __str__(self) -> str:
        return self.raw


Value = Union[str, int, float, bool, None, list, dict, Unresolved]


def is_known(value: Any) -> bool:
    if isinstance(value, Unresolved):
        return False
    if isinstance(value, (list, tuple)):
        return all(is_known(v) for v in value)
    if isinstance(value, dict):
        return all(is_known(v) for v in value.values())
    return True


# ---------------------------------------------------------------------------
# What extractors produce
# ---------------------------------------------------------------------------


@dataclass
class Token:
    """One argv word with its exact location.

    ``value`` is the word after quote removal (or `Unresolved`); ``span``
    covers the word as written, quotes included. ``char_spans`` optionally
    maps each character of a literal value to its source span (quoted or
    escaped words), so a slice of the value (``--flag=value``) can be located.
    """

    value: Value
    span: Span
    value_map: Optional[SourceMap] = None
    # where the word comes from when not from the launch itself: a
    # ``--config`` YAML file (the span then points into it)
    origin: Optional[Origin] = None

    def sub_span(self, start: int, end: int) -> Span:
        if self.value_map is not None:
            return self.value_map.span(start, end)
        raw = self.span.text
        if isinstance(self.value, str) and raw == self.value:
            return Span(self.span.source, self.span.start + start, self.span.start + end)
        if isinstance(self.value, Unresolved) and raw.startswith(self.value.known_prefix):
            return Span(self.span.source, self.span.start + start, self.span.start + end if end <= len(self.value.known_prefix) else self.span.end)
        return self.span


@dataclass
class Kwarg:
    """A keyword argument of a Python launcher (``tp_size=2``)."""

    name: str
    value: Value
    name_span: Span
    value_span: Span
    #: passed only when the release's ServerArgs has this field (the file
    #: tests for it first): a release without it never sees the keyword
    only_if_field: bool = False


@dataclass
class EnvVar:
    name: str
    value: Value
    span: Span  # the whole assignment
    value_span: Optional[Span] = None


@dataclass
class ContextHint:
    """A fact about the launch's surroundings, found by the extractor: a
    container image tag, a GPU node selector, a pragma. The context layer
    turns hints into the launch's context."""

    kind: HintKind
    value: Value
    span: Optional[Span] = None

    def __post_init__(self) -> None:
        self.kind = HintKind(self.kind)  # a misspelt kind fails here, not in a silent comparison


@dataclass
class Severed:
    """A shell line continuation that does not continue: ``\\`` followed by a
    space or a comment. The tokens on the following lines never reach the
    server."""

    backslash: Span
    lost: list[Token]
    # the spaces after the backslash, when only spaces follow it (deleting
    # them repairs the continuation)
    trailing: Optional[Span] = None


@dataclass
class LaunchSite:
    """A recognised SGLang server launch, before flag resolution."""

    source: Source
    span: Span
    entry: str  # "python -m sglang.launch_server", "sglang serve", "Engine(...)"
    entry_span: Span
    form: LaunchForm
    tokens: list[Token] = field(default_factory=list)
    kwargs: list[Kwarg] = field(default_factory=list)
    env: list[EnvVar] = field(default_factory=list)
    opaque: list[str] = field(default_factory=list)  # why args may be missing
    hints: list[ContextHint] = field(default_factory=list)
    severed: Optional[Severed] = None
    # where the words of the launch come from (a ``--config`` file's own site: that file)
    origin: Origin = Origin.CLI

    def __post_init__(self) -> None:
        self.form = LaunchForm(self.form)  # a misspelt form fails here, not in a silent comparison


@dataclass
class ParseProblem:
    """A file (or embedded text) that could not be parsed."""

    span: Span
    message: str


@dataclass
class FileFacts:
    """Everything an extractor learned from one file."""

    source: Source
    format: str
    sites: list[LaunchSite] = field(default_factory=list)
    problems: list[ParseProblem] = field(default_factory=list)
    # pragmas and comments: the suppression layer reads these
    comments: list[tuple[int, str]] = field(default_factory=list)  # (offset, text)


# ---------------------------------------------------------------------------
# What rules read
# ---------------------------------------------------------------------------


@dataclass
class Arg:
    """One server argument as SGLang will see it."""

    spelling: str  # as written: "--tp", "--attention-backend", "tp_size"
    field: Optional[str]  # canonical ServerArgs field; None when unknown
    option: Any  # sgllint.catalog.Option, or None
    value: Value  # typed value (True for store_true, list for nargs)
    raw: Value  # as written: token text, list of tokens, Python literal
    flag_span: Span
    value_span: Optional[Span]
    origin: Origin
    resolution: Resolution
    candidates: tuple[str, ...] = ()  # for ambiguous prefixes
    problem: Optional[ArgProblem] = None
    problem_detail: str = ""
    extra: list[Token] = field(default_factory=list)  # stray tokens argparse rejects
    value_spans: tuple[Span, ...] = ()

    @property
    def span(self) -> Span:
        if self.value_span is not None:
            return self.flag_span.cover(self.value_span)
        return self.flag_span

    @property
    def known(self) -> bool:
        return is_known(self.value)


@dataclass
class Launch:
    """A resolved launch: its args in order (duplicates kept) and context."""

    site: LaunchSite
    args: list[Arg]
    context: Any  # sgllint.resolve.context.LaunchContext

    @property
    def source(self) -> Source:
        return self.site.source

    @property
    def span(self) -> Span:
        return self.site.span

    @property
    def entry(self) -> str:
        return self.site.entry

    @property
    def opaque(self) -> bool:
        return bool(self.site.opaque)

    def occurrences(self, field_name: str) -> list[Arg]:
        return [a for a in self.args if a.field == field_name]

    #: (args list, its length, field -> last arg): see `last`
    _last_index = None

    def last(self, field_name: str) -> Optional[Arg]:
        """The occurrence that wins (argparse and keyword semantics: last)."""
        # every rule asks this of every launch (a hundred times a launch):
        # index the args once (again only if the list is replaced or grows),
        # and check the index with no allocation
        args = self.args
        index = self._last_index
        if index is None or index[0] is not args or index[1] != len(args):
            index = self._last_index = (args, len(args), {a.field: a for a in args})
        return index[2].get(field_name)

    def value(self, field_name: str, default: Any = None) -> Any:
        arg = self.last(field_name)
        return default if arg is None else arg.value

    def __iter__(self) -> Iterator[Arg]:
        return iter(self.args)
