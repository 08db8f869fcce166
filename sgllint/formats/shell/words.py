"""Word expansion as bash does it: quote removal, escapes, ``$'...'``, parameters and
splicing, into `Token`s with exact spans (the `_Expansion` part of the shell extractor).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional

from sgllint.formats.shell.syntax import _enclosing_function
from sgllint.model.facts import SourceMap, Span, Token, Unresolved


_EXPANSION_NODES = {"simple_expansion", "expansion"}


_UNKNOWN_NODES = {
    "command_substitution": "command substitution",
    "arithmetic_expansion": "arithmetic expansion",
    "process_substitution": "process substitution",
}


_IFS = " \t\n"


_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


_PARAMETER = re.compile(
    r"\$\{(?P<length>#?)(?P<name>[A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*#?$!0-])"
    r"(?P<subscript>\[[^\]]*\])?(?P<rest>.*)\}\Z",
    re.S,
)


_DEFAULT_OPERATORS = (":-", ":=", "-", "=")


_ANSI_C_ESCAPES = {
    "n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "f": "\f", "v": "\v",
    "e": "\x1b", "E": "\x1b", "\\": "\\", "'": "'", '"': '"', "?": "?",
}


_PLAIN_WORD_NODES = {"word", "number"}


#: characters that make an unquoted word more than its text
_NEEDS_EXPANSION = re.compile(r"[\\*?\[{~$`'\"]")


#: the longest word expanded character by character (quotes, escapes,
#: ``$NAME``); a longer one is hostile or generated text, not an argument,
#: and stands for an unknown value (issue 15: bounded time and memory)
MAX_WORD = 16384


@dataclass
class _Field:
    """One word after expansion, before it becomes a `Token`: the known
    characters with their inner offsets, and the unknown parts in between."""

    chars: list[str] = field(default_factory=list)
    offsets: list[int] = field(default_factory=list)
    active: list[bool] = field(default_factory=list)  # unquoted: glob and brace characters count
    unknowns: list[tuple[int, int, int, str]] = field(default_factory=list)  # (at char, start, end, reason)
    # known $NAME expansions kept whole in this field: (at char, start, end, name, value)
    expansions: list[tuple[int, int, int, str, str]] = field(default_factory=list)
    solid: bool = False  # has quotes or literal text, so it survives even when empty


@dataclass
class _Word:
    """A `Token` plus what the launch builder needs to know about it."""

    token: Token
    field: Optional[_Field] = None  # None for plain words and splices
    plain: Optional[tuple[int, int]] = None  # inner range of a word that is its own value
    opaque: Optional[str] = None  # this word may stand for any number of arguments
    bare_unknown: str = ""  # an unquoted, unknown $NAME or $(...): its name or raw text


class _Fields:
    """Collects the fields one shell word expands to (word splitting can
    make several)."""

    def __init__(self, splitting: bool = True) -> None:
        self.done: list[_Field] = []
        self.current = _Field()
        self.opaque: Optional[str] = None
        self.splitting = splitting  # False in assignments: A=$B never splits

    def char(self, ch: str, offset: int, active: bool) -> None:
        f = self.current
        f.chars.append(ch)
        f.offsets.append(offset)
        f.active.append(active)

    def literal(self, text_chars: list[tuple[str, int]], active: bool) -> None:
        self.current.solid = True
        for ch, off in text_chars:
            self.char(ch, off, active)

    def unknown(self, start: int, end: int, reason: str) -> None:
        f = self.current
        f.unknowns.append((len(f.chars), start, end, reason))

    def split(self) -> None:
        """A field boundary from word splitting."""
        if self.current.chars or self.current.unknowns or self.current.solid:
            self.done.append(self.current)
        self.current = _Field()

    def result(self) -> list[_Field]:
        self.split()
        return self.done


def _pattern_kind(f: _Field) -> Optional[tuple[int, str]]:
    """Where an unquoted glob, brace or tilde expansion starts in a field."""
    chars, active = f.chars, f.active
    open_bracket = open_brace = -1
    brace_has_list = False
    for i, ch in enumerate(chars):
        if not active[i]:
            continue
        if ch in "*?":
            return i, "glob pattern"
        if ch == "[" and open_bracket < 0:
            open_bracket = i
        elif ch == "]" and open_bracket >= 0 and i > open_bracket + 1:
            return open_bracket, "glob pattern"
        elif ch == "{":
            open_brace, brace_has_list = i, False
        elif ch == "," and open_brace >= 0:
            brace_has_list = True
        elif ch == "." and open_brace >= 0 and i + 1 < len(chars) and chars[i + 1] == "." and active[i + 1]:
            brace_has_list = True
        elif ch == "}" and open_brace >= 0 and brace_has_list:
            return open_brace, "brace expansion"
    if chars and active[0] and chars[0] == "~":
        return 0, "home directory (~)"
    return None


def _own_range(f: _Field) -> Optional[tuple[int, int]]:
    """The inner range a field's characters were read from, when it has no
    unknown part."""
    if not f.offsets or f.unknowns:
        return None
    return min(f.offsets), max(f.offsets) + 1


class _Expansion:
    """Methods of `_ShellScript` (sgllint.formats.shell.extractor)."""

    def _expand_to_words(self, node, assignment: bool = False) -> list[_Word]:
        """Expand one word node into tokens (zero, one or several)."""
        if node.type in _PLAIN_WORD_NODES:
            plain = self._plain_word(node)
            if plain is not None:
                return [plain]
        if self._end(node) - self._start(node) > MAX_WORD:
            reason = f"a word of more than {MAX_WORD} characters is not analysed"
            return [self._placeholder(node, reason, reason)]
        splice = self._splice(node)
        if splice is not None:
            return splice
        if not assignment and node.type in ("simple_expansion", "expansion"):
            written = self._variable_words(node)  # $CMD: its words where the assignment writes them
            if written is not None:
                return written
        out = _Fields(splitting=not assignment)
        self._expand_into(node, out, quoted=False)
        fields = out.result()
        if assignment and not fields:
            fields = [_Field(solid=True)]
        start, end = self._start(node), self._end(node)
        if node.type == "command_substitution":  # $(echo a b): each word where it is written
            words = [_Word(self._token(f, *(_own_range(f) or (start, end)), glob=not assignment), f) for f in fields]
        else:
            words = [_Word(self._token(f, start, end, glob=not assignment), f) for f in fields]
        if out.opaque:
            for w in words:
                w.opaque = out.opaque
        bare = self._bare_unknown(node)
        if bare and len(words) == 1 and isinstance(words[0].token.value, Unresolved):
            words[0].bare_unknown = bare
        return words

    def _plain_word(self, node) -> Optional[_Word]:
        """Most words (``--tp``, ``8``, ``/models/x``) need no expansion."""
        start, end = self._start(node), self._end(node)
        raw = self.text[start:end]
        if _NEEDS_EXPANSION.search(raw):
            return None
        return _Word(Token(raw, self._span(start, end)), plain=(start, end))

    def _bare_unknown(self, node) -> str:
        """The name of an unquoted ``$NAME``/``${NAME}``/``$(...)`` word."""
        if node.type == "command_substitution":
            return self._raw(node)
        if node.type in _EXPANSION_NODES:
            raw = self._raw(node)
            m = _PARAMETER.match(raw)
            return m.group("name") if m else raw[1:]
        return ""

    def _splice(self, node) -> Optional[list[_Word]]:
        """``"${ARR[@]}"``, ``${ARR[@]}``, ``"$@"``: a word that stands for a
        list. Returns None for ordinary words."""
        inner = node
        if node.type == "string":
            parts = [c for c in node.children if c.type not in ('"',)]
            if len(parts) != 1 or parts[0].type not in _EXPANSION_NODES:
                return None
            inner = parts[0]
        elif node.type not in _EXPANSION_NODES:
            return None
        raw = self._raw(inner)
        if raw in ("$@", "${@}") and "@" in self.assignments and _enclosing_function(node) is None:
            words, problems = self._array_words("@", node)  # after `set -- ...`
            if words:
                for w in words:
                    w.opaque = w.opaque or (problems[0] if problems else None)
                return words
        if raw in ("$@", "$*", "${@}", "${*}"):
            return [self._placeholder(node, "the script's arguments", "\"$@\" passes the script's arguments through")]
        m = _PARAMETER.match(raw)
        if not m or m.group("subscript") not in ("[@]", "[*]") or m.group("length") or m.group("rest"):
            return None
        name = m.group("name")
        words, problems = self._array_words(name, node)
        if problems and not words:
            return [self._placeholder(node, problems[0], problems[0])]
        if problems:
            for w in words:
                w.opaque = w.opaque or problems[0]
        return words

    def _placeholder(self, node, reason: str, opaque: str) -> _Word:
        raw = self._raw(node)
        return _Word(Token(Unresolved(raw, reason), self._span_of(node)), opaque=opaque)

    def _expand_into(self, node, out: _Fields, quoted: bool) -> None:
        kind = node.type
        start, end = self._start(node), self._end(node)
        if kind == "string" or kind == "translated_string":
            self._double_quoted(node, out)
        elif kind == "raw_string":
            out.literal([(self.text[i], i) for i in range(start + 1, max(start + 1, end - 1))], active=False)
        elif kind == "ansi_c_string":
            out.literal(self._ansi_c(start + 2, max(start + 2, end - 1)), active=False)
        elif kind == "concatenation":
            pos = start
            for child in node.children:
                c_start = self._start(child)
                if c_start > pos:
                    out.literal(self._unquoted(pos, c_start), active=True)
                self._expand_into(child, out, quoted)
                pos = max(pos, self._end(child))
            if pos < end:
                out.literal(self._unquoted(pos, end), active=True)
        elif kind in _EXPANSION_NODES:
            self._parameter(node, out, quoted)
        elif kind == "command_substitution" and self._echo_output(node, out, quoted):
            pass
        elif kind in _UNKNOWN_NODES:
            out.current.solid = True
            out.unknown(start, end, _UNKNOWN_NODES[kind])
        elif quoted:
            out.literal(self._double_quoted_text(start, end), active=False)
        else:
            out.literal(self._unquoted(start, end), active=True)

    def _echo_output(self, node, out: _Fields, quoted: bool) -> bool:
        """``$(echo --tp-size 2)`` of literal words: their text, split like
        an unquoted expansion, each character at its place. False (nothing
        added) for any other command substitution."""
        commands = [c for c in node.named_children if c.type != "comment"]
        if len(commands) != 1 or commands[0].type != "command":
            return False
        command = commands[0]
        name = command.child_by_field_name("name")
        args = command.children_by_field_name("argument")
        if name is None or self._bytes(name) != b"echo" or len(args) + 1 != command.named_child_count:
            return False
        words = [w for arg in args for w in self._expand_to_words(arg)]
        if not words or any(not isinstance(w.token.value, str) or w.opaque for w in words):
            return False
        if words[0].token.value.startswith("-") and words[0].token.value.strip("-neE") == "":
            return False  # echo's own options
        located = []
        for w in words:
            offsets = w.field.offsets if w.field is not None else range(*w.plain) if w.plain is not None else None
            if offsets is None or len(offsets) != len(w.token.value):
                return False
            located.append((w.token.value, list(offsets)))
        out.current.solid = True
        for k, (value, offsets) in enumerate(located):
            if k:  # echo joins its arguments with one blank
                out.char(" ", offsets[0] if offsets else self._start(node), False) if quoted else out.split()
            for ch, off in zip(value, offsets):
                if ch in _IFS and not quoted:
                    out.split()
                else:
                    out.char(ch, off, False)
        return True

    def _double_quoted(self, node, out: _Fields) -> None:
        out.current.solid = True
        children = node.children
        start, end = self._start(node), self._end(node)
        pos = start + (2 if node.type == "translated_string" else 1)
        close = end - 1 if children and children[-1].type == '"' and not children[-1].is_missing else end
        for child in children:
            c_start, c_end = self._start(child), self._end(child)
            if child.type == '"' or c_end <= pos:
                continue
            if c_start > pos:
                out.literal(self._double_quoted_text(pos, min(c_start, close)), active=False)
            if child.type in _EXPANSION_NODES or child.type in _UNKNOWN_NODES:
                self._expand_into(child, out, quoted=True)
            else:
                out.literal(self._double_quoted_text(c_start, min(c_end, close)), active=False)
            pos = c_end
        if pos < close:
            out.literal(self._double_quoted_text(pos, close), active=False)

    def _unquoted(self, start: int, end: int) -> list[tuple[str, int]]:
        """Characters of unquoted text after escape removal, with offsets."""
        text = self.text
        if "\\" not in text[start:end]:
            return [(text[i], i) for i in range(start, end)]
        chars = []
        i = start
        while i < end:
            ch = text[i]
            if ch == "\\" and i + 1 < end:
                nxt = text[i + 1]
                if nxt == "\n":
                    i += 2
                    continue
                if nxt == "\r" and i + 2 < end and text[i + 2] == "\n":
                    i += 3
                    continue
                chars.append((nxt, i + 1))
                i += 2
                continue
            chars.append((ch, i))
            i += 1
        return chars

    def _double_quoted_text(self, start: int, end: int, heredoc: bool = False) -> list[tuple[str, int]]:
        """Inside double quotes only ``\\$ \\` \\" \\\\`` and ``\\``-newline are escapes."""
        text = self.text
        escapable = "$`\\\n" if heredoc else "$`\"\\\n"
        chars = []
        i = start
        while i < end:
            ch = text[i]
            if ch == "\\" and i + 1 < end and text[i + 1] in escapable:
                if text[i + 1] != "\n":
                    chars.append((text[i + 1], i + 1))
                i += 2
                continue
            chars.append((ch, i))
            i += 1
        return chars

    def _ansi_c(self, start: int, end: int) -> list[tuple[str, int]]:
        """``$'...'``: each decoded character maps to its escape sequence."""
        text = self.text
        chars = []
        i = start
        while i < end:
            ch = text[i]
            if ch != "\\" or i + 1 >= end:
                chars.append((ch, i))
                i += 1
                continue
            nxt = text[i + 1]
            if nxt in _ANSI_C_ESCAPES:
                chars.append((_ANSI_C_ESCAPES[nxt], i))
                i += 2
            elif nxt in "xuU01234567":
                value, length = self._numeric_escape(text, i + 1, end)
                chars.append((value, i))
                i += 1 + length
            elif nxt == "c" and i + 2 < end:
                chars.append((chr(ord(text[i + 2]) & 0x1F), i))
                i += 3
            else:
                chars.append(("\\", i))
                chars.append((nxt, i + 1))
                i += 2
        return chars

    @staticmethod
    def _numeric_escape(text: str, i: int, end: int) -> tuple[str, int]:
        """Decode ``\\xHH``/``\\uHHHH``/``\\UHHHHHHHH``/``\\nnn`` starting at
        the letter or first digit; returns the char and the chars consumed."""
        kind = text[i]
        if kind in "01234567":
            digits, base, first = "01234567", 8, i
            limit = 3
        else:
            digits, base, first = "0123456789abcdefABCDEF", 16, i + 1
            limit = {"x": 2, "u": 4, "U": 8}[kind]
        j = first
        while j < end and j - first < limit and text[j] in digits:
            j += 1
        if j == first:
            return "\\" + kind, 1
        try:
            return chr(int(text[first:j], base)), j - i
        except (ValueError, OverflowError):
            return "\ufffd", j - i

    def _parameter(self, node, out: _Fields, quoted: bool) -> None:
        """``$NAME``, ``${NAME}``, ``${NAME:-default}``, ``$1``, ``$@``, ..."""
        start, end = self._start(node), self._end(node)
        raw = self.text[start:end]
        if quoted:
            out.current.solid = True
        m = _PARAMETER.match(raw)
        if m:
            name, rest = m.group("name"), m.group("rest")
            if m.group("length"):
                return out.unknown(start, end, "length of a variable")
            if m.group("subscript"):
                if m.group("subscript") in ("[@]", "[*]"):
                    out.opaque = out.opaque or f"array '{name}' expanded inside a word"
                return out.unknown(start, end, f"element of array '{name}'")
        elif raw.startswith("$") and not raw.startswith("${"):
            name, rest = raw[1:], ""
        else:
            return out.unknown(start, end, "parameter expansion")
        if name in ("@", "*"):
            out.opaque = out.opaque or "\"$@\" passes the script's arguments through"
            return out.unknown(start, end, "the script's arguments")
        if not _IDENTIFIER.match(name):
            kind = "positional parameter" if name.isdigit() else "shell parameter"
            return out.unknown(start, end, f"{kind} ${name}")
        value = self._parameter_value(name, rest)
        if isinstance(value, Unresolved):
            return out.unknown(start, end, value.reason)
        if quoted or not out.splitting or not any(c in _IFS for c in value):
            out.current.expansions.append((len(out.current.chars), start, end, name, value))
        self._insert_value(value, start, end, out, quoted)

    def _parameter_value(self, name: str, rest: str):
        if not rest:
            return self._scalar(name)
        for op in _DEFAULT_OPERATORS:
            if rest.startswith(op):
                default = rest[len(op) :]
                return self._scalar(name, missing_reason=f"environment variable with default '{default}'")
        return Unresolved("${" + name + rest + "}", f"parameter expansion '{rest[:2]}'")

    def _insert_value(self, value: str, start: int, end: int, out: _Fields, quoted: bool) -> None:
        """A variable's value: its characters map to the ``$NAME`` reference
        (first character to its start, the others to its end) so a sub-span
        of the expanded text covers the reference."""
        first_of_run = True
        for ch in value:
            if not quoted and out.splitting and ch in _IFS:
                out.split()
                first_of_run = True
                continue
            out.char(ch, start if first_of_run else end - 1, active=not quoted)
            first_of_run = False

    def _token(self, f: _Field, start: int, end: int, glob: bool = True) -> Token:
        span = self._span(start, end)
        raw = self.text[start:end]
        if f.unknowns:
            at, u_start, _u_end, reason = f.unknowns[0]
            return self._unresolved_token(raw, reason, f.chars[:at], f.offsets[:at], u_start, end, span)
        if glob:
            why = _pattern_kind(f)
            if why is not None:
                at, reason = why
                return self._unresolved_token(raw, reason, f.chars[:at], f.offsets[:at], f.offsets[at], end, span)
        value = "".join(f.chars)
        return Token(value, span, self._value_map(value, f.offsets, span))

    def _unresolved_token(self, raw, reason, prefix_chars, prefix_offsets, rest_start, end, span) -> Token:
        prefix = "".join(prefix_chars)
        value = Unresolved(raw, reason, prefix)
        if not prefix or span.text.startswith(prefix):
            return Token(value, span)
        # map the known prefix exactly, then the rest of the word as written
        outer = [self.smap.outer(o) for o in prefix_offsets]
        outer += [self.smap.outer(o) for o in range(rest_start, end)]
        outer.append(span.end)
        return Token(value, span, SourceMap(self.source, 0, outer))

    def _value_map(self, value: str, offsets: list[int], span: Span) -> Optional[SourceMap]:
        """None when the value is the source text itself, else a map from
        each value character to its file offset."""
        outer = [self.smap.outer(o) for o in offsets]
        if (
            len(outer) == span.end - span.start
            and (not outer or (outer[0] == span.start and outer[-1] == span.end - 1))
            and span.text == value
        ):
            return None
        outer.append(outer[-1] + 1 if outer else span.start)
        return SourceMap(self.source, 0, outer)
