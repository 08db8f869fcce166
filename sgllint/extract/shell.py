"""Shell extractor: find SGLang server launches in shell scripts.

The script is parsed with tree-sitter-bash. Every simple command is expanded
the way bash would expand it (quote removal, escapes, variables assigned in
the same file, arrays), and `find_launch` decides whether the resulting word
list starts a server. Wrappers need no special case because `find_launch`
looks for the launcher anywhere in the words; only the environment they set
(``A=1 cmd``, ``env A=1``, ``docker run -e A=1``) is read here.

Anything that cannot be known statically becomes `Unresolved`, and words that
may expand to any number of arguments (``"$@"``, ``$EXTRA_ARGS``, arrays of
unknown content) make the launch opaque. Scripts inside scripts (``bash -c
"..."``, ``eval "..."``, ``bash <<EOF``) are parsed again, mapped back to the
outer text. A continuation that does not continue (``\\`` + space) is
reported as `Severed`, with the flags that then run as their own command.

Offsets: tree-sitter reports UTF-8 byte offsets; the model uses code-point
offsets into the (inner) text, which a `SourceMap` maps to the outer file.
`extract_embedded` lints a script embedded in another file (a ``bash -c``
string, a YAML ``run: |`` block) with such a map.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from typing import Optional

from sgllint.extract.launchers import find_launch
from sgllint.model import (
    ContextHint,
    EnvVar,
    FileFacts,
    LaunchSite,
    ParseProblem,
    Severed,
    Source,
    SourceMap,
    Span,
    Token,
    Unresolved,
)

__all__ = ["extract", "extract_embedded"]

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

#: how deep ``bash -c "bash -c '...'"`` nesting is followed
_MAX_EMBED_DEPTH = 6

_SHELLS = {"sh", "bash", "zsh", "dash", "ksh", "ash"}
_RUNTIME_SETTERS = {b"read", b"mapfile", b"readarray", b"getopts", b"printf"}
_CONTAINER_TOOLS = {"docker", "podman", "nerdctl"}
#: words that close a construct; as a command name they mean a stray token
_CLOSING_KEYWORDS = {b"fi", b"done", b"esac", b"then", b"do", b"else", b"elif"}
#: constructs whose body may run zero, one or many times
_CONDITIONAL_NODES = {
    "if_statement",
    "elif_clause",
    "else_clause",
    "case_statement",
    "case_item",
    "for_statement",
    "c_style_for_statement",
    "while_statement",
    "list",  # a && b, a || b
    "pipeline",  # runs in a subshell
    "subshell",
    "command_substitution",
    "process_substitution",
}
#: nodes that are not statements but hold one at their end (for severed lines)
_STATEMENT_WRAPPERS = {"pipeline", "redirected_statement", "list", "negated_command"}
_EXPANSION_NODES = {"simple_expansion", "expansion"}
_UNKNOWN_NODES = {
    "command_substitution": "command substitution",
    "arithmetic_expansion": "arithmetic expansion",
    "process_substitution": "process substitution",
}
_IFS = " \t\n"
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_ENV_ASSIGNMENT = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=")
_PARAMETER = re.compile(
    r"\$\{(?P<length>#?)(?P<name>[A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*#?$!0-])"
    r"(?P<subscript>\[[^\]]*\])?(?P<rest>.*)\}\Z",
    re.S,
)
#: names of variables that usually hold several flags (``$EXTRA_ARGS``)
_ARGS_LIKE_NAME = re.compile(r"ARG|OPT|FLAG|PARAM|EXTRA", re.I)
_DEFAULT_OPERATORS = (":-", ":=", "-", "=")
_ANSI_C_ESCAPES = {
    "n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "f": "\f", "v": "\v",
    "e": "\x1b", "E": "\x1b", "\\": "\\", "'": "'", '"': '"', "?": "?",
}
_NON_ASCII = re.compile(r"[^\x00-\x7f]")
_FOUR_BYTE_OR_SURROGATE = re.compile("[\U00010000-\U0010ffff\ud800-\udfff]")
_PLAIN_WORD_NODES = {"word", "number"}
#: characters that make an unquoted word more than its text
_NEEDS_EXPANSION = re.compile(r"[\\*?\[{~$`'\"]")
#: values an inner shell would parse exactly as it would split them (no
#: quotes, escapes, expansions, operators or line breaks)
_INERT_VALUE = re.compile(r"[^'\"\\$`;|&<>(){}#\n\r]*\Z")


# ---------------------------------------------------------------------------
# Public API
# ---------------------------------------------------------------------------


def extract(source: Source) -> FileFacts:
    """All launches, comments and parse problems of a whole shell script."""
    facts = FileFacts(source, "shell")
    extract_embedded(source.text, SourceMap(source), facts)
    return facts


def extract_embedded(text: str, smap: SourceMap, facts: FileFacts, env: Optional[dict] = None, _depth: int = 0) -> None:
    """Lint shell ``text`` embedded in ``smap.source``; append what it finds to
    ``facts`` with every span mapped through ``smap``.

    ``env`` holds variables the script inherits (name to `str`, `Unresolved`
    or `EnvVar`); they resolve ``$NAME`` when the script does not assign it,
    and the `EnvVar` ones are added to every launch's environment.
    """
    try:
        _ShellScript(text, smap, facts, env or {}, _depth).extract()
    except Exception as exc:  # a linter must report, never crash
        message = f"shell extractor failed: {type(exc).__name__}: {exc}"
        facts.problems.append(ParseProblem(smap.span(0, len(text)), message))


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


# ---------------------------------------------------------------------------
# Offsets
# ---------------------------------------------------------------------------


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
    original text, so the parser needs only the widths."""
    if not _FOUR_BYTE_OR_SURROGATE.search(text):
        return _encode(text)
    return _FOUR_BYTE_OR_SURROGATE.sub(_same_width_stand_in, text).encode("utf-8")


def _same_width_stand_in(m: re.Match) -> str:
    return "\u00a4\u00a4" if m.group() > "\uffff" else "\ufffd"


# ---------------------------------------------------------------------------
# Words
# ---------------------------------------------------------------------------


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


# ---------------------------------------------------------------------------
# Variables
# ---------------------------------------------------------------------------


@dataclass
class _Assignment:
    name: str
    node: object  # the variable_assignment (or the command that sets the name)
    start: int  # inner offset, for "assigned before this use"
    value: object = None  # the value node
    append: bool = False  # +=
    dynamic: str = ""  # set at run time (read, for, mapfile): why

    @property
    def is_array(self) -> bool:
        return self.value is not None and self.value.type == "array"


_IN_PROGRESS = object()


class _ShellScript:
    """One parse of one (possibly embedded) shell text.

    The first pass collects comments, parse errors, assignments and commands;
    the second expands the commands that may launch a server, now that every
    variable's assignments are known.
    """

    def __init__(self, text: str, smap: SourceMap, facts: FileFacts, env: dict, depth: int):
        self.text = text
        self.smap = smap
        self.source = smap.source
        self.facts = facts
        self.env = env
        self.depth = depth
        self.data = _parser_input(text)
        self.char_at = _ByteToChar(text) if len(self.data) != len(text) else (lambda b: b)
        self.assignments: dict[str, list[_Assignment]] = {}
        self.exports: list[tuple[int, EnvVar]] = []
        self.exported_names: list = []  # `export NAME` of a variable set elsewhere
        self.commands: list = []
        self.bash_heredocs: list = []
        self._scalars: dict[str, object] = {}
        self._arrays_in_progress: set[str] = set()
        self._launch_variables = None  # a pattern, once assignments are known

    # -- driver --------------------------------------------------------------

    def extract(self) -> None:
        bash = _Bash.load()
        tree = bash.parser.parse(self.data)
        self._collect(tree.root_node, bash.cursor_type(bash.query).captures(tree.root_node))
        for ops in self.assignments.values():
            ops.sort(key=lambda a: a.start)
        self._collect_exports()
        self._launch_variables = self._variables_mentioning_sglang()
        work = [(node.start_byte, self._command, (node,)) for node in self.commands]
        work += [(node.start_byte, self._heredoc_script, (node, body)) for node, body in self.bash_heredocs]
        work.sort(key=lambda w: w[0])  # sites in document order
        for _, fn, args in work:
            self._guarded(fn, *args)

    def _guarded(self, fn, *args) -> None:
        """One broken command must not lose the rest of the file."""
        try:
            fn(*args)
        except Exception as exc:
            node = args[0]
            self.facts.problems.append(
                ParseProblem(self._span_of(node), f"shell extractor failed here: {type(exc).__name__}: {exc}")
            )

    # -- positions -----------------------------------------------------------

    def _start(self, node) -> int:
        return self.char_at(node.start_byte)

    def _end(self, node) -> int:
        return self.char_at(node.end_byte)

    def _span(self, start: int, end: int) -> Span:
        span = self.smap.span(start, end)
        if self.smap.offsets is None or end <= start or start == 0:
            return span
        # an embedded word starting with an escaped char (\"a b\" in a bash -c
        # string) starts, as written, at the backslash the map skipped
        floor = self.smap.outer(start - 1) + 1
        text = self.source.text
        begin = span.start
        while begin > floor and text[begin - 1] == "\\":
            begin -= 1
        return span if begin == span.start else Span(self.source, begin, span.end)

    def _span_of(self, node) -> Span:
        return self._span(self._start(node), self._end(node))

    def _raw(self, node) -> str:
        return self.text[self._start(node) : self._end(node)]

    def _bytes(self, node) -> bytes:
        """The node's UTF-8 text: for cheap tests that need no offsets."""
        return self.data[node.start_byte : node.end_byte]

    # -- first pass: one walk over the tree ------------------------------------

    def _collect(self, root, captures: dict) -> None:
        """Comments, parse errors, assignments and commands, in document
        order. ``captures`` come from a query, which finds the nodes in C:
        walking every node in Python would cost as much as parsing."""
        nodes = [(n.start_byte, kind, n) for kind, found in captures.items() for n in found]
        nodes.sort(key=lambda t: t[0])
        heredocs = sorted((n.start_byte, n.end_byte) for n in captures.get("heredoc", ()))
        heredoc_starts = [b for b, _ in heredocs]
        for start, kind, node in nodes:
            k = bisect.bisect_right(heredoc_starts, start) - 1
            if k >= 0 and start < heredocs[k][1]:
                continue  # heredoc bodies are text, not commands
            if kind == "comment":
                self._comment(node)
            elif kind == "command":
                self.commands.append(node)
                self._note_runtime_assignments(node)
            elif kind == "assignment":
                self._note_assignment(node)
            elif kind == "heredoc":
                continue
            elif kind == "for":
                self._note_loop_variable(node)
            elif kind == "unset":
                for child in node.named_children:
                    self._add_dynamic(self._raw(child), node, "unset")
            elif kind == "redirected":
                self._note_heredoc_script(node)
            elif kind == "declaration" and self._is_export(node):
                self.exported_names += [c for c in node.named_children if c.type == "variable_name"]
        if root.has_error:
            self._collect_errors(root)

    def _comment(self, node) -> None:
        """A comment written in the file (not one that came out of a
        variable's value in ``eval "$CMD"``), for the suppression layer."""
        offset = self.smap.outer(self._start(node))
        if self.source.text[offset : offset + 1] == "#":
            self.facts.comments.append((offset, self._raw(node)))

    def _collect_errors(self, root) -> None:
        """One problem per ERROR region (nested ones are the same region)
        and one per MISSING token. Parents ride along on the stack:
        ``node.parent`` costs a walk down from the root."""
        stack = [(root, None)]
        while stack:
            node, parent = stack.pop()
            if node.type == "ERROR":
                self._error_region(node)
                continue
            if node.is_missing:
                self._missing(node, parent)
            elif node.has_error:
                stack.extend((child, node) for child in reversed(node.children))

    def _error_region(self, node) -> None:
        start, end = self._start(node), self._end(node)
        region = self.text[start:end].lstrip()
        if region.startswith(("${",)):
            message = "unterminated parameter expansion"
        elif region.startswith(("$(", "`")):
            message = "unterminated command substitution"
        elif region.startswith(("\"", "'", "$'", "$\"")):
            message = "unterminated quoted string"
        else:
            leaf = node
            while leaf.child_count:
                leaf = leaf.children[0]
            token = self._raw(leaf).strip()
            message = f"unexpected token '{token[:30]}'" if token else "syntax error"
        self.facts.problems.append(ParseProblem(self._span(start, end), message))

    def _missing(self, node, parent) -> None:
        opener = parent.children[0] if parent is not None and parent.child_count else node
        what = self._raw(opener).strip()[:30]
        if node.type in ('"', "'", "`"):
            message = "unterminated quoted string"
        else:
            message = f"missing '{node.type}'" + (f" to close '{what}'" if what else "")
        self.facts.problems.append(ParseProblem(self._span_of(opener), message))

    def _note_assignment(self, node) -> None:
        parent = node.parent
        if parent is not None and parent.type == "command":
            return  # A=1 cmd: only cmd sees it
        name_node = node.child_by_field_name("name")
        if name_node is None:
            return
        value = node.child_by_field_name("value")
        append = any(c.type == "+=" for c in node.children)
        if name_node.type == "subscript":  # ARR[i]=x
            base = name_node.child_by_field_name("name")
            if base is not None:
                self._add_dynamic(self._raw(base), node, "an element is assigned")
            return
        name = self._raw(name_node)
        self.assignments.setdefault(name, []).append(_Assignment(name, node, self._start(node), value, append))

    def _add_dynamic(self, name: str, node, why: str) -> None:
        if _IDENTIFIER.match(name):
            self.assignments.setdefault(name, []).append(_Assignment(name, node, self._start(node), dynamic=why))

    def _note_loop_variable(self, node) -> None:
        var = node.child_by_field_name("variable")
        if var is not None:
            self._add_dynamic(self._raw(var), node, "loop variable")

    def _note_runtime_assignments(self, node) -> None:
        """Builtins that set variables at run time: read, mapfile, getopts, printf -v."""
        name_node = node.child_by_field_name("name")
        if name_node is None or self._bytes(name_node) not in _RUNTIME_SETTERS:
            return
        words = [self._raw(c) for c in node.children if c.type in ("command_name", "word")]
        name, args = words[0], words[1:]
        if name == "read":
            takes_value = {"-d", "-n", "-N", "-p", "-t", "-u", "-i"}
            skip = False
            for w in args:
                if skip:
                    skip = False
                elif w in takes_value:
                    skip = True
                elif not w.startswith("-"):
                    self._add_dynamic(w, node, "read at run time")
        elif name in ("mapfile", "readarray") and args:
            self._add_dynamic(args[-1], node, "read at run time")
        elif name == "getopts" and len(args) >= 2:
            self._add_dynamic(args[1], node, "set by getopts")
        elif name == "printf" and len(args) >= 2 and args[0] == "-v":
            self._add_dynamic(args[1], node, "set by printf -v")

    def _note_heredoc_script(self, node) -> None:
        """``bash <<EOF ... EOF``: the heredoc is a script."""
        body_cmd = node.child_by_field_name("body")
        if body_cmd is None or body_cmd.type != "command":
            return
        name = body_cmd.child_by_field_name("name")
        if name is None or self._raw(name).rsplit("/", 1)[-1] not in _SHELLS:
            return
        if any(self._raw(c) == "-c" for c in body_cmd.children if c.type == "word"):
            return
        for redirect in node.children:
            if redirect.type == "heredoc_redirect":
                body = next((c for c in redirect.children if c.type == "heredoc_body"), None)
                if body is not None:
                    self.bash_heredocs.append((node, (redirect, body)))

    def _collect_exports(self) -> None:
        """``export A=1`` (or ``declare -x``): the launches after it see A."""
        for name, ops in self.assignments.items():
            for op in ops:
                decl = op.node.parent if op.node.type == "variable_assignment" else None
                if decl is None or decl.type != "declaration_command" or not self._is_export(decl):
                    continue
                value = self._assigned_value(op)
                value_span = self._span_of(op.value) if op.value is not None else None
                self.exports.append((op.start, EnvVar(name, value, self._span_of(op.node), value_span)))
        for node in self.exported_names:
            name = self._raw(node)
            self.exports.append((self._start(node), EnvVar(name, self._scalar(name), self._span_of(node))))
        self.exports.sort(key=lambda e: e[0])

    def _is_export(self, decl) -> bool:
        words = [self._bytes(c) for c in decl.children if c.type in ("export", "declare", "typeset", "word")]
        if words and words[0] == b"export":
            return True
        return words[:1] in ([b"declare"], [b"typeset"]) and any(w.startswith(b"-") and b"x" in w for w in words[1:])

    # -- scalars -------------------------------------------------------------

    def _scalar(self, name: str, missing_reason: str = ""):
        """The value of ``$name``: a `str` when every assignment in the file
        gives the same literal, else an `Unresolved` saying why."""
        if name not in self.assignments:
            inherited = self.env.get(name)
            if isinstance(inherited, EnvVar):
                inherited = inherited.value
            if inherited is not None:
                return inherited if isinstance(inherited, (str, Unresolved)) else str(inherited)
            return Unresolved("$" + name, missing_reason or f"variable '{name}' is not set in this file")
        cached = self._scalars.get(name)
        if cached is _IN_PROGRESS:  # MODEL=${MODEL:-x}, PATH=$PATH:/more
            return Unresolved("$" + name, missing_reason or f"variable '{name}' refers to itself")
        if cached is not None:
            return cached
        self._scalars[name] = _IN_PROGRESS
        try:
            value = self._resolve_scalar(name)
        except BaseException:
            self._scalars.pop(name, None)
            raise
        self._scalars[name] = value
        return value

    def _resolve_scalar(self, name: str):
        ops = self.assignments[name]
        values = set()
        for op in ops:
            if op.dynamic:
                return Unresolved("$" + name, f"variable '{name}' is {op.dynamic}")
            if op.append or op.is_array:
                return Unresolved("$" + name, f"variable '{name}' is built at run time")
            value = self._assigned_value(op)
            if isinstance(value, Unresolved):
                return Unresolved("$" + name, value.reason)
            values.add(value)
        if len(values) > 1:
            return Unresolved("$" + name, f"variable '{name}' has different values in this file")
        return values.pop()

    def _assigned_value(self, op: _Assignment):
        """The literal an assignment stores, or `Unresolved`."""
        if op.value is None:
            return ""
        out = _Fields(splitting=False)
        self._expand_into(op.value, out, quoted=False)
        fields = out.result()
        f = fields[0] if fields else _Field()
        if f.unknowns:
            return Unresolved(self._raw(op.value), f.unknowns[0][3])
        return "".join(f.chars)

    # -- arrays --------------------------------------------------------------

    def _array_words(self, name: str, use) -> tuple[list[_Word], list[str]]:
        """The elements of array ``name`` at ``use``, and why they may be
        incomplete. Assignments inside a branch or loop (relative to the use)
        are skipped, except a first definition, so the launch is still seen."""
        if name in self._arrays_in_progress:
            return [], [f"array '{name}' refers to itself"]
        self._arrays_in_progress.add(name)
        try:
            return self._replay_array(name, use)
        finally:
            self._arrays_in_progress.discard(name)

    def _replay_array(self, name: str, use) -> tuple[list[_Word], list[str]]:
        use_start = self._start(use)
        function = _enclosing_function(use)
        # a function body runs when called, usually after the top-level
        # assignments below its definition
        ops = [
            op
            for op in self.assignments.get(name, ())
            if op.start < use_start or (function is not None and not _contains(function, op.node))
        ]
        if not ops:
            if name in self.assignments:
                return [], [f"array '{name}' is assigned only after this use"]
            return [], [f"array '{name}' is not assigned in this file"]
        elements: Optional[list[_Word]] = None
        problems: list[str] = []
        for op in ops:
            if op.dynamic:
                problems.append(f"array '{name}' is {op.dynamic}")
                elements = None if not op.append else elements
                continue
            conditional = self._is_conditional(op.node, use)
            if conditional and (op.append or elements is not None):
                problems.append(f"array '{name}' is changed in a branch or loop")
                continue
            if conditional:
                problems.append(f"array '{name}' is assigned in a branch or loop")
            words = self._array_value_words(op)
            elements = (elements or []) + words if op.append else words
        return elements or [], problems

    def _array_value_words(self, op: _Assignment) -> list[_Word]:
        if op.value is None:
            return []
        if not op.is_array:  # cmd="python -m ..." used as "${cmd[@]}": one element
            return self._expand_to_words(op.value, assignment=True)
        words: list[_Word] = []
        for element in op.value.named_children:
            if element.type != "comment":
                words.extend(self._expand_to_words(element))
        return words

    def _is_conditional(self, node, use) -> bool:
        """Whether ``node`` runs conditionally (or repeatedly) relative to
        ``use``: a branch or loop lies between it and their common ancestor."""
        use_ancestors = set()
        n = use
        while n is not None:
            use_ancestors.add((n.start_byte, n.end_byte, n.type))
            n = n.parent
        n = node.parent
        while n is not None and (n.start_byte, n.end_byte, n.type) not in use_ancestors:
            if n.type in _CONDITIONAL_NODES:
                return True
            n = n.parent
        return False

    # -- word expansion --------------------------------------------------------

    def _expand_to_words(self, node, assignment: bool = False) -> list[_Word]:
        """Expand one word node into tokens (zero, one or several)."""
        if node.type in _PLAIN_WORD_NODES:
            plain = self._plain_word(node)
            if plain is not None:
                return [plain]
        splice = self._splice(node)
        if splice is not None:
            return splice
        out = _Fields(splitting=not assignment)
        self._expand_into(node, out, quoted=False)
        fields = out.result()
        if assignment and not fields:
            fields = [_Field(solid=True)]
        start, end = self._start(node), self._end(node)
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
        elif kind in _UNKNOWN_NODES:
            out.current.solid = True
            out.unknown(start, end, _UNKNOWN_NODES[kind])
        elif quoted:
            out.literal(self._double_quoted_text(start, end), active=False)
        else:
            out.literal(self._unquoted(start, end), active=True)

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

    # -- tokens --------------------------------------------------------------

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

    # -- commands --------------------------------------------------------------

    def _command(self, node) -> None:
        name_node = node.child_by_field_name("name")
        if name_node is not None and self._bytes(name_node) in _CLOSING_KEYWORDS:
            message = f"unexpected token '{self._raw(name_node)}'"
            self.facts.problems.append(ParseProblem(self._span_of(name_node), message))
            return
        if not self._may_launch(node):
            return
        prefix, words = self._command_words(node)
        if not words:
            return
        values = [w.token.value for w in words]
        match = find_launch(values)
        shell_at = _shell_c_script(values, match.start if match else len(values))
        if shell_at is not None:
            self._embedded_script(node, prefix, words, shell_at)
            if match is None or match.start <= shell_at:
                return
        if match is not None:
            self._launch(node, prefix, words, match)

    def _variables_mentioning_sglang(self):
        """A pattern for ``$NAME`` references to variables whose value may
        hold a launcher (CMD="python -m sglang.launch_server ...")."""
        names = [name for name, ops in self.assignments.items() if any(b"sglang" in self._bytes(op.node) for op in ops)]
        names += [name for name, v in self.env.items() if "sglang" in str(getattr(v, "value", v))]
        if not names:
            return None
        return re.compile(rb"\$\{?(?:" + b"|".join(re.escape(_encode(n)) for n in names) + rb")\b")

    def _may_launch(self, node) -> bool:
        """Cheap test before expanding a command: a launch needs "sglang" in
        its text, in an array it splices, in a variable, or in a ``-c`` script."""
        raw = self._bytes(node)
        if b"sglang" in raw or b"[@]" in raw or b"[*]" in raw:
            return True
        if b"$" in raw and self._launch_variables is not None and self._launch_variables.search(raw):
            return True
        return b"-c" in raw or b"<<" in raw or raw.startswith(b"eval")

    def _command_words(self, node) -> tuple[list, list[_Word]]:
        """Prefix assignments and the expanded words of a simple command."""
        prefix = []
        words: list[_Word] = []
        for child in node.children:
            kind = child.type
            if kind == "variable_assignment" and not words:
                prefix.append(child)
            elif kind == "comment" or kind.endswith("redirect"):
                continue
            elif kind == "command_name":
                inner = child.named_children[0] if child.named_child_count else child
                words.extend(self._expand_to_words(inner))
            else:
                words.extend(self._expand_to_words(child))
        return prefix, words

    def _launch(self, node, prefix, words: list[_Word], match) -> None:
        launcher = [w.token for w in words[match.start : match.args_start]]
        args = words[match.args_start :]
        site = LaunchSite(
            source=self.source,
            span=self._span_of(node),
            entry=match.entry,
            entry_span=_cover([t.span for t in launcher]),
            form="argv",
            tokens=[w.token for w in args],
        )
        site.env = self._launch_env(node, prefix, words[: match.start])
        site.opaque = _opaque_reasons(words[match.start : match.args_start], args)
        site.severed = self._severed(node)
        image = _container_image(words[: match.start])
        if image is not None:
            site.hints.append(ContextHint("sglang-image", image.value, image.span))
        site.hints.extend(_container_gpus(words[: match.start]))
        self.facts.sites.append(site)

    def _launch_env(self, node, prefix, wrapper_words: list[_Word]) -> list[EnvVar]:
        """What the launch inherits: the caller's env, exports before it, its
        ``A=1`` prefix, and ``env``/``docker -e`` assignments in its wrappers."""
        env = [v for v in self.env.values() if isinstance(v, EnvVar)]
        start = self._start(node)
        env += [var for at, var in self.exports if at < start]
        for assignment in prefix:
            env.append(self._prefix_env(assignment))
        env += _wrapper_env(wrapper_words)
        return env

    def _prefix_env(self, node) -> EnvVar:
        name_node = node.child_by_field_name("name")
        value_node = node.child_by_field_name("value")
        name = self._raw(name_node) if name_node is not None else self._raw(node).split("=", 1)[0]
        if value_node is None:
            return EnvVar(name, "", self._span_of(node), None)
        value = self._assigned_value(_Assignment(name, node, self._start(node), value_node))
        return EnvVar(name, value, self._span_of(node), self._span_of(value_node))

    def _severed(self, node) -> Optional[Severed]:
        """A line continuation after the command that does not continue:
        ``\\`` + space (or + comment) ends the command there; so does ``\\``
        + newline into a blank or comment line. The next lines' flags then run
        as commands of their own."""
        text = self.text
        i = self._end(node)
        n = len(text)
        if _ends_with_escaped_blank(text, i):  # "--flag x\ ": glued to the last word
            i -= 2
        while i < n and text[i] in " \t":
            i += 1
        if not (i + 1 < n and text[i] == "\\"):
            return None
        if text[i + 1] in " \t":
            j = i + 1
            while j < n and text[j] in " \t":
                j += 1
            if j < n and text[j] not in "#\r\n":
                return None  # "a \ b": an escaped space inside the command
            trailing = self._span(i + 1, j) if j >= n or text[j] != "#" else None
            return Severed(self._span(i, i + 1), self._lost_tokens(node), trailing)
        next_line = _line_after(text, i + 1)
        if next_line is not None and (not next_line.strip() or next_line.lstrip().startswith("#")):
            lost = self._lost_tokens(node)
            if lost:  # harmless when nothing meant for the server follows
                return Severed(self._span(i, i + 1), lost)
        return None

    def _lost_tokens(self, node) -> list[Token]:
        """Words of the following commands that start with ``-``: meant for
        the server, run as commands of their own."""
        statement = node
        parent = statement.parent
        while parent is not None and parent.type in _STATEMENT_WRAPPERS and parent.end_byte == statement.end_byte:
            statement, parent = parent, parent.parent
        lost: list[Token] = []
        sibling = statement.next_named_sibling
        while sibling is not None:
            if sibling.type == "comment":
                sibling = sibling.next_named_sibling
                continue
            command = _first_command(sibling)
            if command is None:
                break
            _, words = self._command_words(command)
            first = words[0].token.value if words else None
            if not (isinstance(first, str) and first.startswith("-")):
                break
            lost += [w.token for w in words]
            sibling = sibling.next_named_sibling
        return lost

    # -- embedded scripts ------------------------------------------------------

    def _embedded_script(self, node, prefix, words: list[_Word], script_at: int) -> None:
        """``bash -c "..."``: re-parse the string, mapped back to this file."""
        if self.depth >= _MAX_EMBED_DEPTH:
            return
        word = words[script_at]
        f = word.field
        if f is None and word.plain is not None:  # bash -c ls
            start, end = word.plain
            f = _Field(list(self.text[start:end]), list(range(start, end)))
        if f is None:
            return
        chars, offsets, expanded = self._script_text(f)
        if not chars:
            return
        outer = [self.smap.outer(o) for o in offsets]
        outer.append(outer[-1] + 1)
        env = self._child_env(node, prefix, words[:script_at])
        env.update(expanded)
        extract_embedded("".join(chars), SourceMap(self.source, 0, outer), self.facts, env, self.depth + 1)

    def _script_text(self, f: _Field) -> tuple[list[str], list[int], dict]:
        """The script a ``-c`` word holds, and the variables it was expanded
        with. Parts unknown here keep their raw text, so the inner parse sees
        them as expansions again; so do known ``$NAME``s whose value the inner
        shell would read the same way, so inner spans cover the reference."""
        unknowns: dict[int, list[tuple[int, int]]] = {}
        for at, start, end, _reason in f.unknowns:
            unknowns.setdefault(at, []).append((start, end))
        kept = {at: (start, end, name, value) for at, start, end, name, value in f.expansions
                if _INERT_VALUE.match(value)}
        offsets_of = list(f.offsets)
        for at, start, end, _name, value in f.expansions:
            if at not in kept and value:  # re-parsed text: point at the reference
                offsets_of[at : at + len(value)] = [start] * (len(value) - 1) + [end - 1]
        chars: list[str] = []
        offsets: list[int] = []
        expanded: dict[str, str] = {}
        i, n = 0, len(f.chars)
        while i <= n:
            for start, end in unknowns.get(i, ()):
                chars += self.text[start:end]
                offsets += range(start, end)
            if i == n:
                break
            if i in kept:
                start, end, name, value = kept[i]
                chars += self.text[start:end]
                offsets += range(start, end)
                expanded[name] = value
                i += len(value)
                if value:
                    continue
                if i == n:
                    break
            chars.append(f.chars[i])
            offsets.append(offsets_of[i])
            i += 1
        return chars, offsets, expanded

    def _child_env(self, node, prefix, wrapper_words: list[_Word]) -> dict:
        """A child shell sees exported variables and the command's env."""
        env = dict(self.env)
        for var in self._launch_env(node, prefix, wrapper_words):
            env[var.name] = var
        return env

    def _heredoc_script(self, node, redirect_and_body) -> None:
        """``bash <<'EOF'``: a quoted delimiter keeps the body literal; an
        unquoted one expands it like a double-quoted string."""
        if self.depth >= _MAX_EMBED_DEPTH:
            return
        redirect, body = redirect_and_body
        start_node = next((c for c in redirect.children if c.type == "heredoc_start"), None)
        quoted = start_node is not None and any(q in self._raw(start_node) for q in "'\"\\")
        if quoted:
            b_start, b_end = self._start(body), self._end(body)
            chars, offsets = list(self.text[b_start:b_end]), list(range(b_start, b_end))
            expanded = {}
        else:
            out = _Fields()
            self._heredoc_body(body, out)
            chars, offsets, expanded = self._script_text(out.current)
        if not chars:
            return
        outer = [self.smap.outer(o) for o in offsets]
        outer.append(outer[-1] + 1)
        command = node.child_by_field_name("body")
        prefix, words = self._command_words(command)
        env = self._child_env(command, prefix, words)
        env.update(expanded)
        extract_embedded("".join(chars), SourceMap(self.source, 0, outer), self.facts, env, self.depth + 1)

    def _heredoc_body(self, body, out: _Fields) -> None:
        pos, end = self._start(body), self._end(body)
        for child in body.children:
            c_start, c_end = self._start(child), self._end(child)
            if c_start > pos:
                out.literal(self._double_quoted_text(pos, c_start, heredoc=True), active=False)
            if child.type in _EXPANSION_NODES or child.type in _UNKNOWN_NODES:
                self._expand_into(child, out, quoted=True)
            else:
                out.literal(self._double_quoted_text(c_start, c_end, heredoc=True), active=False)
            pos = max(pos, c_end)
        if pos < end:
            out.literal(self._double_quoted_text(pos, end, heredoc=True), active=False)


# ---------------------------------------------------------------------------
# Helpers on expanded words
# ---------------------------------------------------------------------------


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


def _opaque_reasons(launcher: list[_Word], args: list[_Word]) -> list[str]:
    """Why a launch's argument list may hold more (or fewer) flags than seen."""
    reasons: list[str] = [w.opaque for w in launcher if w.opaque]
    reasons = list(dict.fromkeys(reasons))
    previous = None
    for w in args:
        reason = w.opaque
        if reason is None and w.bare_unknown and _may_hold_flags(w, previous):
            reason = f"unquoted {w.token.value.raw} may expand to any number of arguments"
        if reason is not None and reason not in reasons:
            reasons.append(reason)
        previous = w.token.value
    return reasons


def _may_hold_flags(word: _Word, previous) -> bool:
    """An unquoted unknown word right after ``--flag`` is most likely its
    value (``--tp $TP``); anywhere else, or with a name like ``EXTRA_ARGS``,
    it may hold flags."""
    if _ARGS_LIKE_NAME.search(word.bare_unknown):
        return True
    if isinstance(previous, str) and previous.startswith("-") and "=" not in previous and previous != "--":
        return False
    return True


def _shell_c_script(values: list, stop: int) -> Optional[int]:
    """Index of the script word in ``... bash [-opts] -c SCRIPT`` (or in
    ``eval SCRIPT``)."""
    for i in range(min(stop, len(values))):
        v = values[i]
        if v == "eval" and i + 2 == len(values):
            return i + 1
        if not isinstance(v, str) or v.rsplit("/", 1)[-1] not in _SHELLS:
            continue
        has_c = False
        j = i + 1
        while j < len(values) and isinstance(values[j], str) and values[j][:1] in "-+" and len(values[j]) > 1:
            opt = values[j]
            if opt in ("-o", "+o", "-O", "+O"):
                j += 2
                continue
            if not opt.startswith("--") and "c" in opt[1:]:
                has_c = True
            j += 1
        if has_c and j < len(values):
            return j
    return None


def _wrapper_env(words: list[_Word]) -> list[EnvVar]:
    """``env A=1 ...`` and ``docker run -e A=1 --env B=2 ...``."""
    env: list[EnvVar] = []
    in_env = False
    in_container = False
    i = 0
    n = len(words)
    while i < n:
        token = words[i].token
        value = token.value
        text = value if isinstance(value, str) else value.known_prefix
        if text.rsplit("/", 1)[-1] == "env" and text == value:
            in_env = True
        elif in_env and _ENV_ASSIGNMENT.match(text):
            env.append(_env_from_token(token))
        elif in_env and text in ("-u", "--unset", "-C", "--chdir", "-S"):
            i += 1
        elif in_env and not text.startswith("-"):
            in_env = False
        if text in _CONTAINER_TOOLS:
            in_container = True
        elif in_container and text in ("-e", "--env") and i + 1 < n:
            env.append(_env_from_token(words[i + 1].token))
            i += 1
        elif in_container and text.startswith("--env="):
            env.append(_env_from_token(token, skip=len("--env=")))
        i += 1
    return env


def _env_from_token(token: Token, skip: int = 0) -> EnvVar:
    """``A=1`` (or ``-e A`` passed through from the host) as an `EnvVar`."""
    value = token.value
    text = value if isinstance(value, str) else value.known_prefix
    text = text[skip:]
    name, eq, rest = text.partition("=")
    if not eq:
        if isinstance(value, str):
            return EnvVar(name, Unresolved(name, "passed through from the host environment"), token.span)
        return EnvVar(name, value, token.span)
    value_start = skip + len(name) + 1
    if isinstance(value, Unresolved):  # -e A=$X: the value part is unknown
        raw = value.raw.split("=", 1)[1] if "=" in value.raw else value.raw
        return EnvVar(name, Unresolved(raw, value.reason, rest), token.span)
    return EnvVar(name, rest, token.span, token.sub_span(value_start, len(value)))


def _container_image(words: list[_Word]) -> Optional[Token]:
    """The SGLang image of ``docker run ... IMAGE python -m ...``."""
    if not words or not any(isinstance(w.token.value, str) and w.token.value in _CONTAINER_TOOLS for w in words):
        return None
    last = words[-1].token
    if isinstance(last.value, str) and "sglang" in last.value and not last.value.startswith("-"):
        return last
    return None


def _container_gpus(words: list[_Word]) -> list[ContextHint]:
    """``docker run --gpus N`` / ``--gpus '"device=0,1"'`` as a GPU count;
    ``--gpus all`` says nothing about how many there are."""
    if not any(isinstance(w.token.value, str) and w.token.value in _CONTAINER_TOOLS for w in words):
        return []
    for i, w in enumerate(words):
        text = w.token.value
        if not isinstance(text, str):
            continue
        if text == "--gpus" and i + 1 < len(words):
            token = words[i + 1].token
            value = token.value
        elif text.startswith("--gpus="):
            token, value = w.token, text[len("--gpus="):]
        else:
            continue
        if not isinstance(value, str):
            return []
        value = value.strip("'\"")
        if value.isdigit():
            return [ContextHint("gpu-count", int(value), token.span)]
        if value.startswith("device="):
            return [ContextHint("gpu-count", len([d for d in value[7:].split(",") if d.strip()]), token.span)]
        return []
    return []


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
