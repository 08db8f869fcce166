"""tree-sitter-bash for the shell extractor: loading it, byte <-> code-point offsets, and
helpers on syntax nodes.
"""

from __future__ import annotations

import bisect
import re
from typing import Optional

from sgllint.model.facts import Span


#: the nodes the first pass needs, by capture name
_COLLECT_QUERY = """
(comment) @comment
(command) @command
(variable_assignment) @assignment
(for_statement) @for
(unset_command) @unset
(redirected_statement) @redirected
(declaration_command) @declaration
(heredoc_body) @heredoc
"""


#: nodes that are not statements but hold one at their end (for severed lines)
_STATEMENT_WRAPPERS = {"pipeline", "redirected_statement", "list", "negated_command"}


_NON_ASCII = re.compile(r"[^\x00-\x7f]")


#: a run of brackets no script writes: tree-sitter-bash makes a node of each
#: one (a 1 MB ``{{`` storm costs seconds and hundreds of MiB), so the parser
#: reads such a run as letters, one plain word; its value is read from the text
_BRACKET_RUN = re.compile(r"[{}\[\]]{64,}")


#: a line with more expansion and bracket characters than any script writes
#: (a ``${a:-${a:-...`` storm): tree-sitter-bash's error recovery on it costs
#: ~150 bytes of memory per byte of input, so the parser reads those
#: characters as letters (the line is a syntax error to bash anyway)
_DENSE_LINE = 4096
_DENSE_CHARS = "${}[]()"
_DENSE = re.compile(r"[$(){}\[\]]")


_FOUR_BYTE_OR_SURROGATE = re.compile("[\U00010000-\U0010ffff\ud800-\udfff]")


#: an arithmetic expansion on one line (two levels of parentheses inside):
#: in a ``${X:-...}`` default tree-sitter-bash 0.25 reads a shift ``<<`` in
#: it as a heredoc, and ``(a + b) * c`` as broken, and then the rest of the file
_ARITHMETIC = re.compile(r"\$\(\((?:[^()\n]|\((?:[^()\n]|\([^()\n]*\))*\))*\)\)")


#: a ``$`` followed by a character that starts no expansion: bash keeps it as is
_LONE_DOLLAR = re.compile(r"\$(?=[^A-Za-z0-9_{(\[@*#?$!'\"\s-])")


#: a word that is a comment in backticks (`` `# the head node` ``, a comment
#: inside a ``\`` continuation): bash expands it to nothing
_BACKTICK_COMMENT = re.compile(r"(?<=[ \t])`[ \t]*#[^`\n]*`(?=[ \t]|$)", re.MULTILINE)


class _Bash:
    """tree-sitter-bash, loaded on first use so that importing this module
    stays cheap, then kept: building the parser and query costs more than
    parsing a script."""

    parser = None
    query = None
    cursor_type = None

    @classmethod
    def load(cls) -> type["_Bash"]:
        if cls.parser is None:
            import tree_sitter
            import tree_sitter_bash

            language = tree_sitter.Language(tree_sitter_bash.language())
            cls.query = tree_sitter.Query(language, _COLLECT_QUERY)
            cls.cursor_type = tree_sitter.QueryCursor
            cls.parser = tree_sitter.Parser(language)
        return cls


class _ByteToChar:
    """Converts UTF-8 byte offsets to code-point offsets. ASCII text needs
    no table; otherwise only the non-ASCII characters are indexed."""

    def __init__(self, text: str):
        self._starts: list[int] = []  # byte offset of each non-ASCII char
        self._extra: list[int] = []  # extra bytes up to and including it
        self._widths: list[int] = []
        extra = 0
        for m in _NON_ASCII.finditer(text):
            code = ord(m.group())
            width = 2 if code < 0x800 else 3 if code < 0x10000 else 4
            self._starts.append(m.start() + extra)
            self._widths.append(width)
            extra += width - 1
            self._extra.append(extra)

    def __call__(self, byte: int) -> int:
        if not self._starts:
            return byte
        k = bisect.bisect_left(self._starts, byte) - 1  # last char starting before `byte`
        if k < 0:
            return byte
        if byte < self._starts[k] + self._widths[k]:  # inside a character: clamp to its start
            return self._starts[k] - (self._extra[k] - self._widths[k] + 1)
        return byte - self._extra[k]


def _encode(text: str) -> bytes:
    # lone surrogates cannot come from decoded files, but must not crash either
    return text.encode("utf-8", "surrogatepass")


def _parser_input(text: str) -> bytes:
    """The bytes tree-sitter parses: ``text`` with every 4-byte character
    replaced by two 2-byte symbols (and every lone surrogate by U+FFFD), so
    byte offsets are unchanged. tree-sitter-bash 0.25 reads out of bounds,
    and on Linux segfaults, on ``{`` followed by a 4-byte character
    (tree-sitter/tree-sitter-bash#337); values are always read from the
    original text, so the parser needs only the widths.

    Things bash accepts and tree-sitter-bash 0.25 reports as errors are
    given to the parser in a form it reads the same way: a ``$`` that starts
    no expansion (``$HOST$:5757``, ``a$/b``) is a literal character, and a
    ``\\`` ending the script continues the last line into nothing, a
    comment in backticks is blanks (tree-sitter-bash reads it as an
    unterminated string), and an arithmetic expansion is ``$((0))`` padded
    to its width (inside ``${X:-$((1 << 30))}`` tree-sitter-bash reads the
    shift as a heredoc, and it rejects ``$(())``; the value of an arithmetic
    expansion is unknown to the extractor anyway)."""
    text = _LONE_DOLLAR.sub("%", text)
    if "$((" in text:
        text = _ARITHMETIC.sub(_zero, text)
    text = _BACKTICK_COMMENT.sub(_blanks, text)
    text = _BRACKET_RUN.sub(_letters, text)
    if sum(map(text.count, _DENSE_CHARS)) > _DENSE_LINE:
        text = "".join(_DENSE.sub("_", line) if sum(map(line.count, _DENSE_CHARS)) > _DENSE_LINE else line
                       for line in text.splitlines(keepends=True))
    stripped = text[:-1] if text.endswith("\n") else text
    if stripped.endswith("\\") and (len(stripped) - len(stripped.rstrip("\\"))) % 2:
        text = stripped[:-1] + " " + text[len(stripped):]
    if not _FOUR_BYTE_OR_SURROGATE.search(text):
        return _encode(text)
    return _FOUR_BYTE_OR_SURROGATE.sub(_same_width_stand_in, text).encode("utf-8")


def _blanks(m: re.Match) -> str:
    """Spaces as wide as the match in UTF-8 (byte offsets must not move)."""
    return " " * len(_encode(m.group()))


def _zero(m: re.Match) -> str:
    """``$((0))`` as wide as the arithmetic expansion in UTF-8; the empty
    ``$(())`` (which tree-sitter-bash rejects too) is the same width's
    ``$[00]``, the old spelling of an arithmetic expansion."""
    width = len(_encode(m.group()))
    return "$((0" + " " * (width - 6) + "))" if width >= 6 else "$[00]"


def _letters(m: re.Match) -> str:
    return "_" * len(m.group())


def _same_width_stand_in(m: re.Match) -> str:
    return "\u00a4\u00a4" if m.group() > "\uffff" else "\ufffd"


def _ends_with_escaped_blank(text: str, end: int) -> bool:
    """Whether ``text[:end]`` ends with ``\\`` + space or tab, the backslash
    itself unescaped."""
    if end < 2 or text[end - 1] not in " \t" or text[end - 2] != "\\":
        return False
    slashes = 0
    i = end - 2
    while i >= 0 and text[i] == "\\":
        slashes += 1
        i -= 1
    return slashes % 2 == 1


def _line_after(text: str, i: int) -> Optional[str]:
    """The line after the line break at ``i`` (``\\n`` or ``\\r\\n``)."""
    if text.startswith("\r\n", i):
        i += 2
    elif text.startswith("\n", i):
        i += 1
    else:
        return None
    end = text.find("\n", i)
    return text[i:] if end < 0 else text[i:end]


def _enclosing_function(node):
    while node is not None and node.type != "function_definition":
        node = node.parent
    return node


def _contains(outer, node) -> bool:
    return outer.start_byte <= node.start_byte and node.end_byte <= outer.end_byte


def _first_command(node):
    """The first simple command of a statement (through pipes, lists, redirects)."""
    while node is not None and node.type in _STATEMENT_WRAPPERS:
        node = node.named_children[0] if node.named_child_count else None
    return node if node is not None and node.type == "command" else None


def _cover(spans: list[Span]) -> Span:
    first = spans[0]
    return Span(first.source, min(s.start for s in spans), max(s.end for s in spans))
