"""Reading YAML text into node graphs with positions, safely.

Only composition is done (nodes with marks), never construction, so no tag
is ever turned into an object. libyaml's composer is fast but recursive in C
and crashes the interpreter on very deep nesting, so text that could nest
deeply is composed by the pure-Python composer, whose recursion limit turns
the same input into an ordinary error.

Helm and other Go templates are not YAML; `blank_templates` hides their
``{{ ... }}`` expressions without moving any offset so the rest can be
parsed.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from typing import Optional

import yaml

from sgllint.formats.linear import ShortestPair
from sgllint.formats.yaml.scalars import BREAKS

_CLoader = getattr(yaml, "CSafeLoader", None)

#: a cheap upper bound on nesting above which libyaml is not trusted
_MAX_C_NESTING_BOUND = 4000
#: replaces each character of a template expression inside a value; a
#: private-use character is printable for YAML and appears in no real value
TEMPLATE_FILLER = "\ue000"
TEMPLATE_RE = ShortestPair(r"\$?\{\{.*?\}\}", "}}")  # linear on a `{{` storm
_COMMENT_RE = re.compile(r"(?:^|(?<=[ \t]))#[^\r\n\x85\u2028\u2029]*", re.M)


@dataclass
class ParseError:
    offset: int  # in the source text
    message: str


@dataclass
class Parsed:
    """The documents of one parse. ``text`` is what was parsed (the source
    without a BOM, templates blanked); a source offset is an index into
    ``text`` plus ``shift``."""

    text: str
    shift: int
    documents: list = field(default_factory=list)
    error: Optional[ParseError] = None
    #: whole-line template statements ({{- if }}, {{- end }}) blanked out
    template_lines: list[tuple[int, int]] = field(default_factory=list)


def parse(source_text: str, blank: bool = False) -> Parsed:
    """Compose every document of ``source_text`` (stopping at the first
    error, whose documents before it are kept)."""
    shift = 1 if source_text.startswith("\ufeff") else 0
    text = source_text[shift:]
    template_lines: list[tuple[int, int]] = []
    if blank:
        text, template_lines = blank_templates(text)
    parsed = Parsed(text, shift, template_lines=[(s + shift, e + shift) for s, e in template_lines])
    loader = _CLoader if _CLoader is not None and not _may_nest_deeply(text) else yaml.SafeLoader
    try:
        _compose_into(parsed, loader)
    except (UnicodeEncodeError, ValueError):
        # libyaml could not take the text (lone surrogates): the pure reader
        # reports such characters as an ordinary YAML error
        parsed.documents.clear()
        _compose_into(parsed, yaml.SafeLoader)
    return parsed


def _compose_into(parsed: Parsed, loader) -> None:
    try:
        for document in yaml.compose_all(parsed.text, Loader=loader):
            if document is not None:
                parsed.documents.append(document)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        offset = mark.index if mark is not None else 0
        parsed.error = ParseError(min(offset, len(parsed.text)) + parsed.shift, yaml_error_message(exc))
    except yaml.YAMLError as exc:
        parsed.error = ParseError(parsed.shift, f"invalid YAML: {exc}")
    except RecursionError:
        parsed.error = ParseError(parsed.shift, "invalid YAML: nested too deeply to be read")


def yaml_error_message(exc: yaml.MarkedYAMLError) -> str:
    """PyYAML's message without its position lines (the span carries them)."""
    parts = [p for p in (exc.context, exc.problem) if p]
    return "invalid YAML: " + ", ".join(parts) if parts else f"invalid YAML: {exc}"


def _may_nest_deeply(text: str) -> bool:
    """Whether collections could nest deeper than libyaml's C recursion
    survives. Flow collections open with a bracket, so their depth is at
    most the number of brackets. A block collection nested in another starts
    further right on its line (or, for a sequence under a key, at the same
    column), or on the same line after an indicator, so block depth is at
    most twice the indentation plus the indicators of one line."""
    flow = text.count("[") + text.count("{")
    if flow > _MAX_C_NESTING_BOUND:
        return True
    if flow + _block_indicators(text) <= _MAX_C_NESTING_BOUND:
        return False
    deepest = 0
    for line in text.splitlines():
        body = line.lstrip(" ")
        indicators = body.count("- ") + body.count("-\t") + body.count("? ") + body.count(": ") + body.count(":\t")
        deepest = max(deepest, 2 * (len(line) - len(body)) + indicators + 2)
    return flow + deepest > _MAX_C_NESTING_BOUND


def _block_indicators(text: str) -> int:
    return text.count("- ") + text.count("-\t") + text.count("? ") + text.count(": ") + text.count(":\t")


# ---------------------------------------------------------------------------
# Templates
# ---------------------------------------------------------------------------


def blank_templates(text: str) -> tuple[str, list[tuple[int, int]]]:
    """``text`` with each ``{{ ... }}`` replaced, offsets unchanged: a line
    holding only template statements becomes blank, an expression inside a
    value becomes `TEMPLATE_FILLER` characters (line breaks kept)."""
    chars = list(text)
    whole_lines: list[tuple[int, int]] = []
    for line_start, line_end in _template_only_lines(text):
        for i in range(line_start, line_end):
            if chars[i] not in BREAKS:
                chars[i] = " "
        whole_lines.append((line_start, line_end))
    blanked = {i for s, e in whole_lines for i in range(s, e)}
    for m in TEMPLATE_RE.finditer(text):
        if m.start() in blanked:
            continue
        for i in range(m.start(), m.end()):
            if chars[i] not in BREAKS:
                chars[i] = TEMPLATE_FILLER
    return "".join(chars), whole_lines


def _template_only_lines(text: str) -> list[tuple[int, int]]:
    """Ranges of lines (a multi-line statement counts as one) whose only
    content is template expressions."""
    out = []
    matches = list(TEMPLATE_RE.finditer(text))
    i = 0
    while i < len(matches):
        m = matches[i]
        line_start = max(text.rfind("\n", 0, m.start()), text.rfind("\r", 0, m.start())) + 1
        j = i
        end = m.end()
        # the statement line continues with further expressions on it
        while j + 1 < len(matches) and text[end : matches[j + 1].start()].strip(" \t") == "":
            j += 1
            end = matches[j].end()
        line_end = end
        while line_end < len(text) and text[line_end] not in BREAKS:
            line_end += 1
        if text[line_start : m.start()].strip(" \t") == "" and text[end:line_end].strip(" \t") == "":
            out.append((line_start, line_end))
        i = j + 1
    return out


def has_template(value: str) -> bool:
    return "{{" in value or TEMPLATE_FILLER in value


# ---------------------------------------------------------------------------
# Comments
# ---------------------------------------------------------------------------


def comments_outside(text: str, shift: int, scalar_ranges: list[tuple[int, int]]) -> list[tuple[int, str]]:
    """``#`` comments of ``text`` that lie outside every scalar (quoted
    strings, block scalars), as ``(source offset, text)``. Comments inside a
    block scalar that is a shell script are the shell extractor's."""
    starts = [s for s, _ in scalar_ranges]
    ends = [e for _, e in scalar_ranges]
    out = []
    for m in _COMMENT_RE.finditer(text):
        at = m.start()
        k = bisect.bisect_right(starts, at) - 1
        if k >= 0 and at < ends[k]:
            continue
        out.append((at + shift, m.group().rstrip("\r")))
    return out


def comments_by_line(text: str, shift: int = 0) -> list[tuple[int, str]]:
    """Comments found line by line, for text that is not valid YAML: a ``#``
    at a line start or after whitespace, outside simple quotes."""
    out = []
    pos = 0
    for line in text.splitlines(keepends=True):
        quote = None
        prev = " "
        for i, ch in enumerate(line):
            if quote:
                if ch == quote:
                    quote = None
            elif ch in "\"'" and prev in " \t[{,:-":
                quote = ch
            elif ch == "#" and prev in " \t":
                out.append((pos + i + shift, line[i:].rstrip("\r\n")))
                break
            prev = ch
        pos += len(line)
    return out
