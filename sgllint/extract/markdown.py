"""Markdown / MDX extractor: launches in fenced code blocks.

Only fenced blocks (```` ``` ```` or ``~~~``, any fence length, indented
inside list items) whose info string starts with a known language are
linted; prose, inline code and untagged blocks never are. Positions are the
Markdown file's own: each block is linted through a `SourceMap` that drops
the fence's indentation from every line.

* ``bash``/``sh``/``shell``/``zsh``: the block is a shell script.
* ``console``/``shell-session``: only the commands after a ``$ `` or ``# ``
  prompt (and their ``\\`` continuation lines, minus a ``> `` prompt) are
  shell; output lines are not. A shell block whose lines start with ``$ ``
  is such a transcript too.
* ``yaml``/``yml``/``toml``/``dockerfile``/``python``/``py``: the block is
  given to that format's extractor as a file of its own and everything it
  finds is mapped back here. A format without a registered extractor is
  skipped.

Templates (``{{ model }}``) and ``<placeholder>`` words in shell blocks are
unknown values, not literals or redirections. Blocks that do not mention
``sglang`` are not parsed at all.

Suppression: ``<!-- sgllint: ignore[SGL101] -->`` on the lines right before
a fence (blank lines and other comments may sit between) covers every line
of that block; ``<!-- sgllint: ignore-file[...] -->`` anywhere covers the
file. In MDX, ``{/* sgllint: ... */}`` works the same.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from sgllint.extract._embedded import PLACEHOLDER_RE, TEMPLATE_RE, shell_script
from sgllint.extract._remap import remap_facts
from sgllint.model import FileFacts, ParseProblem, Source, SourceMap

__all__ = ["extract"]

_SHELL = {"bash", "sh", "shell", "zsh"}
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
_SHELL_MASKS = ((TEMPLATE_RE, "template expression"), (PLACEHOLDER_RE, "documentation placeholder"))

_OPENING_FENCE = re.compile(r"([ \t]*)(`{3,}|~{3,})(.*)$")
_HTML_COMMENT = re.compile(r"<!--(.*?)-->", re.S)
_MDX_COMMENT = re.compile(r"\{/\*(.*?)\*/\}", re.S)
_PRAGMA = re.compile(r"sgllint:|\bnoqa\b", re.I)
_PROMPT = re.compile(r"[ \t]*(?:\([^()\s]*\)[ \t]*)?[$#][ \t]")
_SECONDARY_PROMPT = re.compile(r"[ \t]*>[ \t]")
_DOLLAR_PROMPT = re.compile(r"^[ \t]*\$[ \t]", re.M)


def extract(source: Source) -> FileFacts:
    facts = FileFacts(source, "markdown")
    lines = _lines(source.text)
    blocks = _blocks(lines)
    comments = _prose_comments(source, lines, blocks)
    facts.comments.extend((c.start, c.text) for c in comments)
    for block in blocks:
        _suppress_in_block(block, lines, comments, facts)
        if "sglang" in block.text:
            _lint_block(block, source, facts)
    facts.sites.sort(key=lambda s: s.span.start)
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


def _suppress_in_block(block: _Block, lines: list[_Line], comments: list[_Comment], facts: FileFacts) -> None:
    """A pragma comment right before the fence covers each line of the block."""
    pragmas = [
        c.inner
        for c in _comments_before(block.first, lines, comments)
        if _PRAGMA.search(c.inner) and "ignore-file" not in c.inner
    ]
    last = min(block.last, len(lines) - 1)
    for text in pragmas:
        for line in lines[block.first : last + 1]:
            facts.comments.append((line.start, "# " + text))


def _comments_before(index: int, lines: list[_Line], comments: list[_Comment]) -> list[_Comment]:
    """The comments alone on the lines before line ``index`` (blank lines
    may sit between), up to the first line of prose."""
    starts = [line.start for line in lines]
    ending_on = {bisect.bisect_right(starts, c.end - 1) - 1: c for c in comments}
    found = []
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
        found.append(comment)
        i = first - 1
    return found


# ---------------------------------------------------------------------------
# Linting a block
# ---------------------------------------------------------------------------


def _lint_block(block: _Block, source: Source, facts: FileFacts) -> None:
    language = block.language
    if language in _SHELL and not _DOLLAR_PROMPT.search(block.text):
        shell_script(block.text, block.smap(source), facts, masks=_SHELL_MASKS)
    elif language in _CONSOLE or language in _SHELL:
        text, offsets = _console_commands(block)
        if text:
            shell_script(text, SourceMap(source, 0, offsets), facts, masks=_SHELL_MASKS)
    elif language in _OTHER_FORMATS:
        _lint_as(_OTHER_FORMATS[language], block, source, facts)


def _console_commands(block: _Block) -> tuple[str, list[int]]:
    """The commands of a terminal transcript, prompts stripped, and the
    offset of each character (plus the end)."""
    chars: list[str] = []
    offsets: list[int] = []
    continued = False
    for line_at, line in _block_lines(block.text):
        m = _SECONDARY_PROMPT.match(line) if continued else _PROMPT.match(line)
        if m is None and not continued:
            continue  # output
        skip = m.end() if m else 0
        stop = line_at + len(line) + (1 if line_at + len(line) < len(block.text) else 0)  # with its line break
        chars.append(block.text[line_at + skip : stop])
        offsets.extend(block.offsets[line_at + skip : stop])
        continued = line.endswith("\\")
    offsets.append(offsets[-1] + 1 if offsets else block.offsets[-1])
    return "".join(chars), offsets


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
    from sgllint.extract import EXTRACTORS, extractor

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
