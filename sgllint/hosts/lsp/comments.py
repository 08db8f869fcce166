"""Where the language server's "ignore" code actions put their comments: the
end of a launch's line, the line above it, the top of the file, the start
of a Dockerfile instruction or of a Markdown fence -- pure text scanning,
split from `sgllint.hosts.lsp.server`."""

from __future__ import annotations

import io
import re
import tokenize
from typing import Optional


# Text scanning for code actions and completion: every pattern is matched at
# a position (``pattern.match(text, pos)``), never on a copied tail of the
# document, and none can backtrack over a long line.
_NEWLINE = re.compile(r"[\r\n]")
_INDENT = re.compile(r"[ \t]*")
_FENCE = re.compile(r"[ \t]*(```|~~~)")
_COMMENT_LINE = re.compile(r"[ \t]*#")


def _line_end(text: str, offset: int) -> int:
    found = _NEWLINE.search(text, offset)
    return found.start() if found else len(text)


def _line_start(text: str, offset: int) -> int:
    return max(text.rfind("\n", 0, offset), text.rfind("\r", 0, offset)) + 1


def _trailing_comment_edit(text: str, offset: int, comment: str, fmt: str) -> Optional[tuple[int, int, str]]:
    start, end = _line_start(text, offset), _line_end(text, offset)
    kept = text[start:end].rstrip()
    if kept.endswith("\\"):
        return None  # a comment after a continuation would end the command
    pos = start + len(kept)
    new = text[:pos] + f"  {comment}" + text[end:]
    if fmt == "python" and not _comment_token_at(new, text[:pos].count("\n") + 1):
        return None  # the line ends inside a string literal
    return pos, end, f"  {comment}"


def _comment_token_at(text: str, line: int) -> bool:
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.COMMENT and tok.start[0] == line and "sgllint:" in tok.string:
                return True
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return False
    return False


def _line_above_edit(text: str, line_offset: int, comment: str) -> tuple[int, int, str]:
    start = _line_start(text, line_offset)
    indent = _INDENT.match(text, start).group(0)
    newline = "\r\n" if "\r\n" in text else "\n"
    return start, start, f"{indent}{comment}{newline}"


def _instruction_start(text: str, offset: int) -> int:
    """Dockerfile: the first line of the instruction holding ``offset``."""
    start = _line_start(text, offset)
    while start > 0:
        prev = _line_start(text, start - 1)
        prev_line = text[prev : start].rstrip("\r\n")
        if prev_line.rstrip().endswith("\\") or prev_line.lstrip().startswith("#"):
            start = prev
            continue
        break
    # skip comment lines at the top of what we walked over
    while _COMMENT_LINE.match(text, start):
        start = _line_end(text, start) + 1
    return start


def _fence_start(text: str, offset: int) -> Optional[int]:
    """Markdown: the line of the fence that opens the block holding ``offset``."""
    start = _line_start(text, offset)
    while start > 0:
        start = _line_start(text, start - 1)
        if _FENCE.match(text, start):
            return start
    return None


def _file_top(text: str, fmt: str) -> int:
    pos = 0
    if text.startswith("#!"):
        pos = _line_end(text, 0) + 1
    if fmt == "python":
        while re.match(r"#.*coding[:=]", text[pos : _line_end(text, pos)]):
            pos = _line_end(text, pos) + 1
    if fmt == "dockerfile":
        while re.match(r"#\s*\w+\s*=", text[pos : _line_end(text, pos)]):
            pos = _line_end(text, pos) + 1
    return min(pos, len(text))
