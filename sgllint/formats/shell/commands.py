"""Command recognition: a simple command's words, whether they launch SGLang, the launch
site with its environment, opaque arguments and a severed continuation (the `_Commands`
part of the shell extractor).
"""

from __future__ import annotations

import re
from typing import Optional

from sgllint.formats.shell.deployment import container_deploy_hints
from sgllint.formats.shell.markers import hydra_site
from sgllint.formats.shell.prefixed import prefixed_site
from sgllint.formats.shell.syntax import _STATEMENT_WRAPPERS, _cover, _encode, _ends_with_escaped_blank, _first_command, _line_after
from sgllint.formats.shell.variables import _Assignment
from sgllint.formats.shell.words import _Word
from sgllint.formats.shell.wrappers import _container_gpus, _container_image, _shell_c_script, _wrapper_env
from sgllint.model.facts import ContextHint, EnvVar, LaunchSite, ParseProblem, Severed, Token
from sgllint.model.kinds import HintKind, LaunchForm
from sgllint.model.launchers import find_launch


#: words that close a construct; as a command name they mean a stray token
_CLOSING_KEYWORDS = {b"fi", b"done", b"esac", b"then", b"do", b"else", b"elif"}


#: names of variables that usually hold several flags (``$EXTRA_ARGS``)
_ARGS_LIKE_NAME = re.compile(r"ARG|OPT|FLAG|PARAM|EXTRA", re.I)


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


class _Commands:
    """Methods of `_ShellScript` (sgllint.formats.shell.extractor)."""

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
        elif b".sglang." in self._bytes(node):  # verl: +actor_rollout_ref.rollout.engine_kwargs.sglang.x=1
            hydra_site([w.token for w in words], self._span_of(node), self.facts)
        elif any(isinstance(w.token.value, str) and w.token.value.startswith("--sglang-") for w in words):
            prefixed_site([w.token for w in words], self._span_of(node), self.facts)  # slime: --sglang-<flag>

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
            form=LaunchForm.ARGV,
            tokens=[w.token for w in args],
        )
        site.env = self._launch_env(node, prefix, words[: match.start])
        site.opaque = _opaque_reasons(words[match.start : match.args_start], args)
        site.severed = self._severed(node)
        image = _container_image(words[: match.start])
        if image is not None:
            site.hints.append(ContextHint(HintKind.SGLANG_IMAGE, image.value, image.span))
        site.hints.extend(_container_gpus(words[: match.start]))
        site.hints.extend(container_deploy_hints(words[: match.start]))
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
