"""How deep a Python source nests, measured before any parser sees it.

libcst's parser is native code that recurses once (or several times) per
nesting level on the C stack: ~2,000 nested brackets overflow an 8 MiB
stack and the interpreter dies with SIGSEGV (no exception, no output, the
whole run or the LSP server gone). So every Python source is scanned here
first, in one linear pass, and refused when it nests deeper than Python
itself allows:

* more than **200 open brackets** -- CPython's tokenizer stops at
  ``MAXLEVEL 200`` with "too many nested parentheses"
  (``Parser/tokenizer.h`` up to 3.11, ``Parser/lexer/state.h`` from 3.13;
  ``x = (((...1...)))`` with 201 levels is a ``SyntaxError`` on 3.11);
* more than **99 indentation levels** -- ``MAXINDENT 100`` in the same
  header, counting the zero level ("too many levels of indentation": 99
  nested blocks parse, 100 do not);
* an expression chain more than **3,000 levels deep** (unary operators,
  binary operators, attribute, call and subscript chains, ``lambda``,
  conditional expressions, adjacent string pieces, ``elif`` branches):
  CPython 3.11 builds no syntax tree deeper than 3 x the recursion limit
  (``COMPILER_STACK_FRAME_SCALE`` in ``Python/ast.c``: 3,000 by default)
  and its parser gives up at ``MAXSTACK`` 6,000 rule levels. libcst nests
  some chains CPython keeps flat (``a and b and ...``, adjacent strings,
  ``elif``), so those are refused a little earlier than CPython would.

The scan is an upper bound of libcst's depth: every level counted is one
token of the source, and separators (``,``, ``;``, the end of a logical
line) close what they end. Within these bounds libcst still runs on a
thread of its own with a fixed, generous stack (`call_with_stack`), so the
result does not depend on the platform's default stack (512 KiB for
secondary threads on macOS, 128 KiB on musl).
"""

from __future__ import annotations

import re
import threading
from typing import Callable, Optional, TypeVar

__all__ = ["MAX_BRACKETS", "MAX_INDENT", "MAX_CHAIN", "nesting_problem", "call_with_stack"]

#: CPython's tokenizer: ``#define MAXLEVEL 200`` (brackets open at once)
MAX_BRACKETS = 200
#: CPython's tokenizer: ``#define MAXINDENT 100`` (indentation stack, level 0 included)
MAX_INDENT = 99
#: 3 x CPython's default recursion limit: the deepest syntax tree CPython 3.11 builds
MAX_CHAIN = 3000
#: the stack libcst parses on: 3,200 levels of its hungriest construct
#: (brackets, ~6.5 KiB a level: 1,250 overflow 8 MiB) fit three times over
STACK_BYTES = 64 << 20

_TAB = 8  # CPython's tab size for indentation

# One alternative per token that matters; identifiers, numbers and blanks
# never match, so ``finditer`` skips them in C. Every string alternative is
# an unrolled loop (each character consumed one way only) that ends at its
# closing quote or at the end of the line/text: it always matches at its
# first character, so nothing is ever scanned twice.
_TOKEN = re.compile(
    r"""
      (?P<nl>\r\n?|\n)(?P<indent>[ \t\f]*)
    | (?P<cont>\\(?:\r\n?|\n))
    | (?P<comment>\#[^\r\n]*)
    | (?P<str>(?P<prefix>[rRbBuUfF]{0,2})
        (?: ''' [^'\\]* (?: (?:\\[\s\S]|\\\Z|'(?!'')) [^'\\]* )* (?:'''|\Z)
          | \"\"\" [^"\\]* (?: (?:\\[\s\S]|\\\Z|"(?!"")) [^"\\]* )* (?:\"\"\"|\Z)
          | ' [^'\\\r\n]* (?: (?:\\[\s\S]|\\\Z) [^'\\\r\n]* )* '?
          | " [^"\\\r\n]* (?: (?:\\[\s\S]|\\\Z) [^"\\\r\n]* )* "?
        ))
    | (?P<kw>\b(?:and|or|not|if|else|elif|lambda|await|in|is|for|yield)\b)
    | (?P<open>[(\[{])
    | (?P<close>[)\]}])
    | (?P<sep>[,;])
    | (?P<op>==|!=|<=|>=|[-+*/%@&|^~<>.])
    """,
    re.X,
)
#: inside an f-string: escaped braces, and brackets
_FSTRING_PART = re.compile(r"\{\{|\}\}|[{}()\[\]]")


def nesting_problem(text: str) -> Optional[tuple[int, str]]:
    """(offset, reason) where ``text`` first nests deeper than the limits
    above, or None. One pass, linear in ``len(text)``."""
    # long on purpose: one linear scan whose state (strings, comments, brackets, indents) stays in locals: it runs on
    # every byte
    ops = [0]  # per open bracket (and the level outside them): chained tokens since the last separator
    chain = 0  # sum(ops)
    indents = [0]  # CPython's indentation stack (columns)
    elifs = [0]  # per indentation level: `elif` branches in the chain running there
    elif_sum = 0
    line_start = True  # the next token starts a logical line
    for m in _TOKEN.finditer(text):
        kind = m.lastgroup
        if kind == "indent" or kind == "nl":
            if len(ops) > 1:
                continue  # a line break inside brackets
            chain -= ops[0]
            ops[0] = 0
            after = m.end()
            if after >= len(text) or text[after] in "\r\n#\\":
                continue  # a blank or comment-only line: no indentation
            column = 0
            for ch in m.group("indent"):
                column = column + 1 if ch == " " else (column // _TAB + 1) * _TAB if ch == "\t" else 0
            if column > indents[-1]:
                indents.append(column)
                elifs.append(0)
                if len(indents) - 1 > MAX_INDENT:
                    return after, (
                        f"more than {MAX_INDENT} levels of indentation: Python refuses this file too "
                        '("too many levels of indentation"); not analysed'
                    )
            else:
                while column < indents[-1]:
                    indents.pop()
                    elif_sum -= elifs.pop()
            line_start = True
            continue
        if kind == "cont" or kind == "comment":
            continue
        first, line_start = line_start, False
        branch = first and kind == "kw" and m.group() in ("elif", "else")
        if first and not branch and elifs[-1]:
            elif_sum -= elifs[-1]  # the chain at this level has ended
            elifs[-1] = 0
        if branch:
            if m.group() == "elif":
                elifs[-1] += 1
                elif_sum += 1
        elif kind == "op" or kind == "str" or kind == "kw":
            ops[-1] += 1
            chain += 1
            if kind == "str" and "f" in m.group("prefix").lower():
                inner = _fstring_depth(m.group())
                if len(ops) - 1 + inner > MAX_BRACKETS:
                    return m.start(), _too_many_brackets()
        elif kind == "open":
            ops[-1] += 1  # a call or subscript chains like an operator
            chain += 1
            ops.append(0)
            if len(ops) - 1 > MAX_BRACKETS:
                return m.start(), _too_many_brackets()
        elif kind == "close":
            if len(ops) > 1:
                chain -= ops.pop()
        elif kind == "sep":
            chain -= ops[-1]
            ops[-1] = 0
        if chain + elif_sum + len(ops) + len(indents) > MAX_CHAIN:
            return m.start(), (
                f"an expression nested more than {MAX_CHAIN} levels deep (operators, attribute, call or "
                "subscript chains, adjacent strings or elif branches chained together): too deep to analyse; "
                "not analysed"
            )
    return None


def _too_many_brackets() -> str:
    return (
        f"more than {MAX_BRACKETS} nested brackets: Python refuses this file too "
        '("too many nested parentheses"); not analysed'
    )


def _fstring_depth(token: str) -> int:
    """The deepest bracket nesting inside the replacement fields of one
    f-string token (``{{``/``}}`` in its literal text are not brackets)."""
    depth = deepest = 0
    for m in _FSTRING_PART.finditer(token):
        part = m.group()
        if depth == 0 and part != "{":
            continue  # literal text: an escaped brace or a bracket
        for ch in part:
            if ch in "([{":
                depth += 1
                deepest = max(deepest, depth)
            elif depth:
                depth -= 1
    return deepest


_T = TypeVar("_T")
_STACK_LOCK = threading.Lock()


def call_with_stack(fn: Callable[..., _T], *args) -> _T:
    """``fn(*args)`` on a thread with a `STACK_BYTES` stack (its result, or
    its exception re-raised here). The stack is reserved, not touched:
    only what the parser uses is ever mapped."""
    box: dict = {}

    def run() -> None:
        try:
            box["value"] = fn(*args)
        except BaseException as exc:  # handed to the caller
            box["error"] = exc

    with _STACK_LOCK:  # stack_size is process-wide: set it only for our thread
        previous = threading.stack_size(STACK_BYTES)
        try:
            thread = threading.Thread(target=run, name="sgllint-parse", daemon=True)
            thread.start()
        except RuntimeError:  # no thread to be had (a memory limit): the scan's bounds still hold
            thread = None
        finally:
            threading.stack_size(previous)
    if thread is None:
        return fn(*args)
    thread.join()
    if "error" in box:
        raise box["error"]
    return box["value"]
