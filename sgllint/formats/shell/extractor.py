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
from typing import Optional

from sgllint.formats.shell.commands import _Commands
from sgllint.formats.shell.markers import patched_sglang
from sgllint.formats.shell.syntax import _Bash, _ByteToChar, _parser_input
from sgllint.formats.shell.variables import _Assignment, _Variables
from sgllint.formats.shell.words import _Expansion
from sgllint.formats.shell.wrappers import _Wrappers
from sgllint.model.facts import EnvVar, FileFacts, ParseProblem, Source, SourceMap, Span

__all__ = ["extract", "extract_embedded"]


def extract(source: Source) -> FileFacts:
    """All launches, comments and parse problems of a whole shell script."""
    facts = FileFacts(source, "shell")
    extract_embedded(source.text, SourceMap(source), facts)
    if facts.sites:
        patched_sglang(source.text, SourceMap(source), facts)
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


class _ShellScript(_Commands, _Wrappers, _Variables, _Expansion):
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

    def _embed(self, text: str, smap: SourceMap, facts: FileFacts, env: dict, depth: int) -> None:
        """A script inside this one (``bash -c "..."``, a heredoc): extracted
        the same way, mapped into this file."""
        extract_embedded(text, smap, facts, env, depth)

    def _guarded(self, fn, *args) -> None:
        """One broken command must not lose the rest of the file."""
        try:
            fn(*args)
        except Exception as exc:
            node = args[0]
            self.facts.problems.append(
                ParseProblem(self._span_of(node), f"shell extractor failed here: {type(exc).__name__}: {exc}")
            )

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
                self._note_set_arguments(node)
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
