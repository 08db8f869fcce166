"""Wrappers around a launch: ``sh -c``/``bash -c``/``eval`` scripts and heredocs parsed
again, ``env``/``docker run`` environments, container images and GPUs (the `_Wrappers`
part of the shell extractor).
"""

from __future__ import annotations

import re
from typing import Optional

from sgllint.formats.shell.words import _EXPANSION_NODES, _Field, _Fields, _UNKNOWN_NODES, _Word
from sgllint.model.facts import ContextHint, EnvVar, SourceMap, Span, Token, Unresolved
from sgllint.model.kinds import HintKind
from sgllint.model.launchers import shell_c_script
from sgllint.model.numbers import small_int


#: how deep ``bash -c "bash -c '...'"`` nesting is followed
_MAX_EMBED_DEPTH = 6


_CONTAINER_TOOLS = {"docker", "podman", "nerdctl"}


_ENV_ASSIGNMENT = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=")


#: values an inner shell would parse exactly as it would split them (no
#: quotes, escapes, expansions, operators or line breaks)
_INERT_VALUE = re.compile(r"[^'\"\\$`;|&<>(){}#\n\r]*\Z")


def _shell_c_script(values: list, stop: int) -> Optional[int]:
    """Index of the script word in ``... bash [-opts] -c SCRIPT``
    (`sgllint.model.launchers.shell_c_script`) or in ``eval SCRIPT``."""
    at = shell_c_script(values, stop)
    if at is None and len(values) >= 2 and values[-2] == "eval" and len(values) - 2 < stop:
        return len(values) - 1
    return at


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
        count = small_int(value)
        if count is not None:
            return [ContextHint(HintKind.GPU_COUNT, count, token.span)]
        if value.startswith("device="):
            return [ContextHint(HintKind.GPU_COUNT, len([d for d in value[7:].split(",") if d.strip()]), token.span)]
        return []
    return []


class _Wrappers:
    """Methods of `_ShellScript` (sgllint.formats.shell.extractor)."""

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
        whole = self._whole_variable_script(f)
        chars, offsets, expanded = whole or self._script_text(f)
        if not chars:
            return
        outer = [self.smap.outer(o) for o in offsets]
        outer.append(outer[-1] + 1)
        env = self._child_env(node, prefix, words[:script_at])
        env.update(expanded)
        known, sites = len(self.facts.comments), len(self.facts.sites)
        self._embed("".join(chars), SourceMap(self.source, 0, outer), self.facts, env, self.depth + 1)
        if whole is not None:
            # a `#` in the assigned string is text in this file, no comment
            self.facts.comments[known:] = [c for c in self.facts.comments[known:] if not outer[0] <= c[0] <= outer[-1]]
            # the launch runs at the `eval`: its span reaches it (a comment there suppresses)
            run = self._span_of(node)
            for site in self.facts.sites[sites:]:
                site.span = Span(site.span.source, min(site.span.start, run.start), max(site.span.end, run.end))

    def _whole_variable_script(self, f: _Field) -> Optional[tuple[list[str], list[int], dict]]:
        """``eval "$CMD"`` of a variable assigned one literal in this file:
        the script is that literal, at the place it is written (so every
        finding in it points into the assignment, not at ``$CMD``)."""
        if len(f.expansions) != 1 or f.unknowns:
            return None
        at, _start, _end, name, value = f.expansions[0]
        if at != 0 or len(value) != len(f.chars) or not value:
            return None
        offsets = self._assigned_offsets(name, value)
        if offsets is None:
            return None
        return list(value), offsets, {}

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
        self._embed("".join(chars), SourceMap(self.source, 0, outer), self.facts, env, self.depth + 1)

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
