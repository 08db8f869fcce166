"""Shell variables and arrays: assignments recorded in the first pass, exports, and the
value a name has where it is used (the `_Variables` part of the shell extractor).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from sgllint.formats.shell.syntax import _contains, _enclosing_function
from sgllint.formats.shell.words import _Field, _Fields, _IDENTIFIER, _IFS, _Word
from sgllint.model.facts import EnvVar, Token, Unresolved
from sgllint.model.launchers import is_shell

_RUNTIME_SETTERS = {b"read", b"mapfile", b"readarray", b"getopts", b"printf"}


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

#: ``$NAME`` / ``${NAME}`` and nothing else
_BARE_NAME = re.compile(r"\$(?:([A-Za-z_][A-Za-z0-9_]*)|\{([A-Za-z_][A-Za-z0-9_]*)\})")
#: characters that make a split word a pattern (or the value more than words)
_GLOB_CHARS = re.compile(r"[*?\[]")


class _Variables:
    """Methods of `_ShellScript` (sgllint.formats.shell.extractor)."""

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

    def _note_set_arguments(self, node) -> None:
        """``set -- a b c`` gives the script's arguments (``"$@"``) these
        words: recorded as an assignment of the array ``@``."""
        name = node.child_by_field_name("name")
        if name is None or self._bytes(name) != b"set":
            return
        args = node.children_by_field_name("argument")
        if args and self._bytes(args[0]) == b"--":
            self.assignments.setdefault("@", []).append(_Assignment("@", node, self._start(node), value=node))

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
            herestring = next((c.named_children[0] for c in node.children
                               if c.type == "herestring_redirect" and c.named_child_count), None)
            for k, w in enumerate(args):
                if skip:
                    skip = False
                elif w in takes_value:
                    skip = True
                elif (herestring is not None and k and args[k - 1] == "-a" and _IDENTIFIER.match(w)
                      and not any(c in self._bytes(herestring) for c in b"$`")):
                    # read -a ARR <<< "a b c" (a literal string): its words
                    self.assignments.setdefault(w, []).append(_Assignment(w, node, self._start(node), value=herestring))
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
        if name is None or not is_shell(self._raw(name)):
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

    def _assigned_offsets(self, name: str, value: str) -> Optional[list[int]]:
        """Where each character of ``$name``'s value is written, when the
        file assigns it once, to that literal (``CMD="python -m ..."``
        before ``eval "$CMD"``); else None."""
        ops = self.assignments.get(name)
        if not ops or len(ops) != 1:
            return None
        op = ops[0]
        if op.dynamic or op.append or op.is_array or op.value is None:
            return None
        out = _Fields(splitting=False)
        self._expand_into(op.value, out, quoted=False)
        fields = out.result()
        if len(fields) != 1 or fields[0].unknowns or "".join(fields[0].chars) != value:
            return None
        return list(fields[0].offsets)

    def _variable_words(self, node) -> Optional[list[_Word]]:
        """An unquoted ``$CMD``/``${CMD}`` of a variable assigned one literal
        of several words in this file (a command, a flag list): the words it
        splits into, each at its place in the assignment. None when that is
        not so (or a word would be a glob)."""
        m = _BARE_NAME.fullmatch(self._raw(node))
        if m is None:
            return None
        name = m.group(1) or m.group(2)
        value = self._scalar(name)
        if not isinstance(value, str) or not value.strip(_IFS) or _GLOB_CHARS.search(value):
            return None
        offsets = self._assigned_offsets(name, value)
        if offsets is None:
            return None
        words: list[_Word] = []
        i, n = 0, len(value)
        while i < n:
            if value[i] in _IFS:
                i += 1
                continue
            j = i
            while j < n and value[j] not in _IFS:
                j += 1
            if offsets[j - 1] < offsets[i]:
                return None
            word = value[i:j]
            span = self._span(offsets[i], offsets[j - 1] + 1)
            words.append(_Word(Token(word, span, self._value_map(word, offsets[i:j], span))))
            i = j
        # one word (`--tp $NUM_GPUS`) is reported where it is used
        return words if len(words) > 1 else None

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
        if op.value.type == "command":  # set -- a b c
            return [w for arg in op.value.children_by_field_name("argument")[1:] for w in self._expand_to_words(arg)]
        if op.node.type == "command":  # read -a ARR <<< "a b c"
            return self._herestring_words(op.value)
        if not op.is_array:  # cmd="python -m ..." used as "${cmd[@]}": one element
            return self._expand_to_words(op.value, assignment=True)
        words: list[_Word] = []
        for element in op.value.named_children:
            if element.type != "comment":
                words.extend(self._expand_to_words(element))
        return words

    def _herestring_words(self, node) -> list[_Word]:
        """The words ``read -a`` splits a here-string into, each at its own
        place; one unknown word when the string is not known."""
        out = _Fields(splitting=False)
        self._expand_into(node, out, quoted=False)
        words: list[_Word] = []
        for f in out.result():
            if f.unknowns or out.opaque:
                return [self._placeholder(node, "read from a string not known here", "read -a of an unknown string")]
            i, n = 0, len(f.chars)
            while i < n:
                if f.chars[i] in _IFS:
                    i += 1
                    continue
                j = i
                while j < n and f.chars[j] not in _IFS:
                    j += 1
                value = "".join(f.chars[i:j])
                span = self._span(f.offsets[i], f.offsets[j - 1] + 1)
                words.append(_Word(Token(value, span, self._value_map(value, f.offsets[i:j], span))))
                i = j
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
