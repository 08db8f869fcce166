"""Markdown / MDX extractor: launches in fenced code blocks.

Only fenced blocks (```` ``` ```` or ``~~~``, any fence length, indented
inside list items) are linted, never prose or inline code. Positions are the
Markdown file's own: each block is linted through a `SourceMap` that drops
the fence's indentation from every line.

* ``bash``/``sh``/``shell``/``zsh``: the block is a shell script, except
  the lines that show output (log lines, tracebacks; `_OUTPUT_LINE`).
* no language at all: only the lines running a launcher, with their
  continuation lines, are shell (`_launch_commands`); ``text`` is text.
* ``console``/``shell-session``: only the commands after a ``$ `` or ``# ``
  prompt (and their ``\\`` continuation lines, minus a ``> `` prompt, and
  the lines of a quoted string left open) are shell; output lines are
  not. A shell block whose lines start with ``$ `` is such a transcript too.
* ``yaml``/``yml``/``toml``/``dockerfile``/``python``/``py``: the block is
  given to that format's extractor as a file of its own and everything it
  finds is mapped back here. A format without a registered extractor is
  skipped.

Templates (``{{ model }}``, ``{model}``, ``%(model)s``) and ``<placeholder>``
words in shell blocks are unknown values, not literals or redirections; ``...``, ``…`` and ``[other
options]`` words stand for more arguments (the launch is opaque). A file
whose commands patch SGLang marks its launches (`patched_sglang`). Blocks
that do not mention ``sglang`` are not parsed at all.

Suppression: ``<!-- sgllint: ignore[SGL101] -->`` on the lines right before
a fence (blank lines and other comments may sit between) covers every line
of that block; ``<!-- sgllint: ignore-file[...] -->`` anywhere covers the
file. In MDX, ``{/* sgllint: ... */}`` works the same.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from typing import Iterator

from sgllint.formats.linear import ShortestPair
from sgllint.formats.shell.embedded import FORMAT_FIELD_RE, MORE_ARGS_RE, PLACEHOLDER_RE, TEMPLATE_RE, shell_script
from sgllint.formats.shell.markers import patched_sglang
from sgllint.formats.remap import remap_facts
from sgllint.model.facts import FileFacts, ParseProblem, Source, SourceMap

__all__ = ["extract"]

_SHELL = {"bash", "sh", "shell", "zsh"}
#: a block naming no language: only its launch commands are read (one
#: tagged ``text`` is text, as its author said)
_UNTAGGED = {""}
#: a line of such a block that runs a launcher
_LAUNCH_LINE = re.compile(r"\bsglang(?:_router)?\.launch_server\b|\bsglang[ \t]+serve\b|\bdynamo\.sglang\b")
_CONSOLE = {"console", "shell-session"}
_OTHER_FORMATS = {
    "yaml": "yaml",
    "yml": "yaml",
    "toml": "toml",
    "dockerfile": "dockerfile",
    "containerfile": "dockerfile",
    "python": "python",
    "py": "python",
    "python3": "python",
}
_SHELL_MASKS = (
    (TEMPLATE_RE, "template expression"),
    (FORMAT_FIELD_RE, "template expression"),
    (PLACEHOLDER_RE, "documentation placeholder"),
    (MORE_ARGS_RE, "documentation placeholder"),
)

_OPENING_FENCE = re.compile(r"([ \t]*)(`{3,}|~{3,})(.*)$")
_HTML_COMMENT = ShortestPair(r"<!--(.*?)-->", "-->")  # linear on unclosed `<!--`
_MDX_COMMENT = ShortestPair(r"\{/\*(.*?)\*/\}", "*/}")
_PRAGMA = re.compile(r"sgllint:|\bnoqa\b", re.I)
#: pragma comments before one fence that cover its block (the nearest; a
#: document writes one or two, and each is copied onto every line of the block)
_MAX_BLOCK_PRAGMAS = 8
_PROMPT = re.compile(r"[ \t]*(?:\([^()\s]*\)[ \t]*)?[$#][ \t]")
_SECONDARY_PROMPT = re.compile(r"[ \t]*>[ \t]")
_DOLLAR_PROMPT = re.compile(r"^[ \t]*\$[ \t]", re.M)
#: lines a shell block shows as what a command printed, never as a command:
#: log lines (``[2025-01-01 10:00:00] INFO ...``, ``INFO:     Uvicorn ...``),
#: Python tracebacks and exceptions, interactive Python, ``ps`` rows (USER PID
#: %CPU %MEM ...) and table rows (``| 0  NVIDIA H100 ... |``, ``+-----+``),
#: which no command line starts with
_OUTPUT_LINE = re.compile(
    r"[ \t]*(?:\[\d{4}-\d\d-\d\d[ T]\d|\d{4}-\d\d-\d\d[ T]\d\d:\d\d"
    r"|[\w.-]+[ \t]+\d+[ \t]+\d+\.\d+[ \t]+\d+\.\d+[ \t]|\|[^|\n]*\||\+[-=+]{3,}"
    r"|(?:INFO|WARNING|WARN|ERROR|DEBUG|CRITICAL)(?::|[ \t]+\||[ \t]{2})"
    r"|Traceback \(most recent call last\):|File \"[^\"\n]*\", line \d"
    r"|[A-Za-z_][\w.]*(?:Error|Exception|Interrupt)(?::|[ \t]*$)|>>>[ \t])"
)
#: the same, tried at line starts only (from anywhere, a long blank run is quadratic)
_OUTPUT_LINE_START = re.compile("^" + _OUTPUT_LINE.pattern, re.M)


def extract(source: Source) -> FileFacts:
    facts = FileFacts(source, "markdown")
    lines = _lines(source.text)
    blocks = _blocks(lines)
    comments = _prose_comments(source, lines, blocks)
    facts.comments.extend((c.start, c.text) for c in comments)
    ends = _comment_ends(lines, comments)
    for block in blocks:
        _suppress_in_block(block, lines, facts, ends)
        if "sglang" in block.text:
            _lint_block(block, source, facts)
    facts.sites.sort(key=lambda s: s.span.start)
    if facts.sites:
        any(patched_sglang(b.text, b.smap(source), facts) for b in blocks if b.language in _SHELL | _CONSOLE)
    return facts


# ---------------------------------------------------------------------------
# Lines and fenced blocks
# ---------------------------------------------------------------------------


@dataclass
class _Line:
    start: int
    text: str  # without the line break

    @property
    def end(self) -> int:
        return self.start + len(self.text)


def _lines(text: str) -> list[_Line]:
    lines = []
    start = 0
    for raw in text.split("\n"):
        lines.append(_Line(start, raw[:-1] if raw.endswith("\r") else raw))
        start += len(raw) + 1
    return lines


@dataclass
class _Block:
    language: str  # lower case, first word of the info string
    first: int  # index of the opening fence line
    last: int  # index of the closing fence line (the last line when unclosed)
    text: str = ""  # the content, fence indentation removed
    offsets: list[int] = field(default_factory=list)  # of each character, plus the end

    def smap(self, source: Source) -> SourceMap:
        return SourceMap(source, 0, self.offsets)


def _blocks(lines: list[_Line]) -> list[_Block]:
    blocks = []
    i = 0
    while i < len(lines):
        m = _OPENING_FENCE.match(lines[i].text)
        if not m or (m.group(2)[0] == "`" and "`" in m.group(3)):
            i += 1
            continue
        indent, fence = len(m.group(1)), m.group(2)
        close = _closing_fence(lines, i + 1, fence)
        block = _Block(_language(m.group(3)), i, close)
        end = lines[close].start if close < len(lines) else lines[-1].end
        _fill(block, lines[i + 1 : close], indent, end)
        blocks.append(block)
        i = close + 1
    return blocks


def _closing_fence(lines: list[_Line], start: int, fence: str) -> int:
    """Index of the line closing ``fence`` (an unclosed block runs to the end)."""
    closing = re.compile(r"[ \t]*" + re.escape(fence[0]) + "{" + str(len(fence)) + r",}[ \t]*$")
    for j in range(start, len(lines)):
        if closing.match(lines[j].text):
            return j
    return len(lines)


def _language(info: str) -> str:
    words = info.strip().split()
    if not words:
        return ""
    return words[0].strip("{}.").split("{", 1)[0].lower()


def _fill(block: _Block, content: list[_Line], indent: int, end: int) -> None:
    """The block's text: each line minus up to ``indent`` blanks."""
    chars: list[str] = []
    offsets: list[int] = []
    for line in content:
        at = 0
        while at < indent and at < len(line.text) and line.text[at] in " \t":
            at += 1
        chars.append(line.text[at:])
        offsets.extend(range(line.start + at, line.end))
        if line.end < end:  # not the file's last line without a line break
            chars.append("\n")
            offsets.append(line.end)
    offsets.append(end)
    block.text = "".join(chars)
    block.offsets = offsets


# ---------------------------------------------------------------------------
# Comments and suppression
# ---------------------------------------------------------------------------


@dataclass
class _Comment:
    start: int
    end: int
    text: str  # as written, delimiters included

    @property
    def inner(self) -> str:
        return re.sub(r"^(?:<!--|\{/\*)|(?:-->|\*/\})$", "", self.text).strip()


def _prose_comments(source: Source, lines: list[_Line], blocks: list[_Block]) -> list[_Comment]:
    """HTML (and MDX) comments outside code blocks."""
    text = source.text
    comments = []
    for start, end in _prose_regions(lines, blocks, len(text)):
        for pattern in (_HTML_COMMENT, _MDX_COMMENT):
            for m in pattern.finditer(text, start, end):
                comments.append(_Comment(m.start(), m.end(), m.group()))
    comments.sort(key=lambda c: c.start)
    return comments


def _prose_regions(lines: list[_Line], blocks: list[_Block], length: int) -> list[tuple[int, int]]:
    regions = []
    at = 0
    for block in blocks:
        regions.append((at, lines[block.first].start))
        at = lines[block.last].end if block.last < len(lines) else length
    regions.append((at, length))
    return regions


def _suppress_in_block(block: _Block, lines: list[_Line], facts: FileFacts, ends) -> None:
    """A pragma comment right before the fence covers each line of the block."""
    # each is copied onto every line of the block: distinct ones only, and
    # at most _MAX_BLOCK_PRAGMAS (the nearest), or 10,000 comments before a
    # 10,000-line block would make 10^8 copies (and 50 made a 1 MB file take 4 s);
    # the comments are read nearest first and no further than that
    pragmas: dict[str, None] = {}
    for comment in _comments_before(block.first, lines, ends):
        if len(pragmas) == _MAX_BLOCK_PRAGMAS:
            break
        if not _PRAGMA.search(comment.text):
            continue
        inner = comment.inner
        if _PRAGMA.search(inner) and "ignore-file" not in inner:
            pragmas[inner] = None
    last = min(block.last, len(lines) - 1)
    for text in pragmas:
        for line in lines[block.first : last + 1]:
            facts.comments.append((line.start, "# " + text))


def _comment_ends(lines: list[_Line], comments: list[_Comment]) -> tuple[list[int], dict[int, _Comment]]:
    """Each line's start, and the comment ending on each line (computed once
    per file: per block it was quadratic in a file of many blocks)."""
    starts = [line.start for line in lines]
    return starts, {bisect.bisect_right(starts, c.end - 1) - 1: c for c in comments}


def _comments_before(index: int, lines: list[_Line], ends) -> Iterator[_Comment]:
    """The comments alone on the lines before line ``index`` (blank lines
    may sit between), nearest first, up to the first line of prose."""
    starts, ending_on = ends
    i = index - 1
    while i >= 0:
        line = lines[i]
        if not line.text.strip():
            i -= 1
            continue
        comment = ending_on.get(i)
        first = bisect.bisect_right(starts, comment.start) - 1 if comment else i
        written = " ".join(line.text for line in lines[first : i + 1])
        if comment is None or written.split() != comment.text.split():
            break  # prose (or a comment sharing its line with prose)
        yield comment
        i = first - 1


# ---------------------------------------------------------------------------
# Linting a block
# ---------------------------------------------------------------------------


def _lint_block(block: _Block, source: Source, facts: FileFacts) -> None:
    language = block.language
    if language in _SHELL and not _DOLLAR_PROMPT.search(block.text):
        problems = len(facts.problems)
        shell_script(_without_output(block.text), block.smap(source), facts, masks=_SHELL_MASKS)
        # a fence that does not parse is one documentation problem: after the
        # first, bash's reading of the rest (output pasted into a `shell`
        # fence) is a cascade of the same one
        facts.problems[problems:] = sorted(facts.problems[problems:], key=lambda p: p.span.start)[:1]
    elif language in _CONSOLE or language in _SHELL:
        text, offsets = _console_commands(block)
        if text:
            shell_script(text, SourceMap(source, 0, offsets), facts, masks=_SHELL_MASKS)
    elif language in _OTHER_FORMATS:
        _lint_as(_OTHER_FORMATS[language], block, source, facts)
    elif language in _UNTAGGED:
        text, offsets = _launch_commands(block)
        if text:  # the language is a guess: what does not parse is not the document's error
            problems = len(facts.problems)
            shell_script(text, SourceMap(source, 0, offsets), facts, masks=_SHELL_MASKS)
            del facts.problems[problems:]


def _console_commands(block: _Block) -> tuple[str, list[int]]:
    """The commands of a terminal transcript, prompts stripped, and the
    offset of each character (plus the end)."""
    chars: list[str] = []
    offsets: list[int] = []
    continued = False
    quote = ""  # the quote the command being read has left open
    for line_at, line in _block_lines(block.text):
        m = _SECONDARY_PROMPT.match(line) if continued else _PROMPT.match(line)
        if m is None and not continued:
            continue  # output
        skip = m.end() if m else 0
        stop = line_at + len(line) + (1 if line_at + len(line) < len(block.text) else 0)  # with its line break
        chars.append(block.text[line_at + skip : stop])
        offsets.extend(block.offsets[line_at + skip : stop])
        quote = _quote_after(line[skip:], quote if continued else "")
        continued = line.endswith("\\") or bool(quote)
    offsets.append(offsets[-1] + 1 if offsets else block.offsets[-1])
    return "".join(chars), offsets


def _launch_commands(block: _Block) -> tuple[str, list[int]]:
    """The launch commands of a block that names no language: each line
    holding a launcher (a ``$ `` prompt stripped), with the ``\\`` lines
    before it (``A=1 \\``) and the lines continuing it; every other line
    (output, prose, logs) is left out. Offsets as in `_console_commands`."""
    lines = _block_lines(block.text)
    chosen: dict[int, int] = {}  # line index -> characters skipped (a prompt)
    k = 0
    while k < len(lines):
        line = lines[k][1]
        prompt = _PROMPT.match(line)
        skip = prompt.end() if prompt and line.lstrip()[:1] == "$" else 0
        if _OUTPUT_LINE.match(line) or not _LAUNCH_LINE.search(line, skip):
            k += 1
            continue
        first = k
        while first > 0 and first - 1 not in chosen and lines[first - 1][1].endswith("\\"):
            first -= 1
        for j in range(first, k):
            chosen[j] = 0
        chosen[k] = skip
        quote = _quote_after(line[skip:], "")
        while k + 1 < len(lines) and (lines[k][1].endswith("\\") or quote):
            k += 1
            chosen[k] = 0
            quote = _quote_after(lines[k][1], quote)
        k += 1
    chars: list[str] = []
    offsets: list[int] = []
    for index in sorted(chosen):
        line_at, line = lines[index]
        stop = line_at + len(line) + (1 if line_at + len(line) < len(block.text) else 0)
        chars.append(block.text[line_at + chosen[index] : stop])
        offsets.extend(block.offsets[line_at + chosen[index] : stop])
    offsets.append(offsets[-1] + 1 if offsets else block.offsets[-1])
    return "".join(chars), offsets


def _quote_after(line: str, quote: str) -> str:
    """The quote left open after one line of a command that started the line
    inside ``quote`` ("" for none): while one is open, the next line is part
    of the command, not output. One pass over the line."""
    i, n = 0, len(line)
    while i < n:
        ch = line[i]
        if quote == "'":
            quote = "" if ch == "'" else quote
        elif ch == "\\":
            i += 1
        elif quote == '"':
            quote = "" if ch == '"' else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1] in " \t"):
            break  # a comment ends the line
        i += 1
    return quote


def _without_output(text: str) -> str:
    """``text`` with each line that shows output (`_OUTPUT_LINE`) blanked,
    offsets kept; a line continuing a command (after ``\\``) is kept."""
    if not _OUTPUT_LINE_START.search(text):
        return text
    lines = text.split("\n")
    traceback = False  # inside one: every line up to the exception is output
    for k, line in enumerate(lines):
        if traceback or (_OUTPUT_LINE.match(line) and not (k and lines[k - 1].endswith("\\"))):
            if line.lstrip().startswith("Traceback ("):
                traceback = True
            elif traceback and line[:1] not in (" ", "\t", ""):
                traceback = False  # the exception line ends it
            lines[k] = " " * len(line)
    return "\n".join(lines)


def _block_lines(text: str) -> list[tuple[int, str]]:
    """(index, line) of each line of ``text``, without line breaks."""
    out = []
    at = 0
    for line in text.split("\n"):
        out.append((at, line))
        at += len(line) + 1
    return out


def _lint_as(fmt: str, block: _Block, source: Source, facts: FileFacts) -> None:
    """Run another format's extractor on the block and map its findings here."""
    from sgllint.formats.registry import EXTRACTORS, extractor

    if fmt not in EXTRACTORS:
        return
    inner_source = Source(source.path, block.text)
    try:
        inner = extractor(fmt)(inner_source)
    except Exception as exc:  # one broken block must not lose the rest of the file
        span = block.smap(source).span(0, len(block.text))
        message = f"the {fmt} extractor failed on this block: {type(exc).__name__}: {exc}"
        facts.problems.append(ParseProblem(span, message))
        return
    remap_facts(inner, block.smap(source), facts)
