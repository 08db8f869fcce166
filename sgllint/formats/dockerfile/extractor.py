"""Dockerfile extractor: launches in ``CMD``, ``ENTRYPOINT`` and ``RUN``.

Docker's rules, not bash's (BuildKit's parser):

* A line ending in the escape character (``\\``, or the one a ``# escape=``
  directive names), even with blanks after it, continues on the next line;
  the character and the line break are removed, nothing else. Full-line
  comments and blank lines inside a continuation are dropped, so a
  commented-out flag in the middle of a ``CMD`` does not end the command.
* Exec form (a JSON array of strings) runs without a shell: ``$VAR`` stays
  literal (Docker expands ``ENV`` in ``ENV``, ``ARG``, ``FROM``, ``COPY`` and
  the like, never in exec-form ``CMD``/``ENTRYPOINT``/``RUN``). Anything else
  is shell form, run as ``/bin/sh -c TEXT`` and linted by the shell
  extractor with a map that skips the dropped lines and backslashes.
* Per stage, only the last ``CMD`` and the last ``ENTRYPOINT`` count, and
  they combine as Docker does: an exec-form ``ENTRYPOINT`` receives the
  exec-form ``CMD`` as arguments (and ``docker run``'s arguments when there
  is no ``CMD``); a shell-form ``ENTRYPOINT`` ignores ``CMD``. A stage built
  ``FROM`` an earlier stage inherits its ``ENTRYPOINT``, ``CMD`` (unless it
  sets its own ``ENTRYPOINT``), ``ENV`` and image.
* ``ENV`` values are the environment of every launch of the stage (the
  container's, so ``ENV`` lines after ``CMD`` count too); ``ARG`` values
  (defaults, as written) are the environment of ``RUN`` only, since they do
  not exist when the container runs. ``FROM`` sees the ``ARG``s declared
  before the first ``FROM``.
* ``FROM lmsysorg/sglang:TAG`` gives every launch of the stage a
  ``ContextHint(HintKind.SGLANG_IMAGE, ...)``.
* Heredocs (``RUN <<EOF``) are read as Docker reads them; a ``RUN``
  heredoc, or a ``COPY <<EOF x.sh`` script, is linted as shell.

Suppression: a ``# sgllint: ignore[...]`` (or ``noqa``) comment directly
above an instruction or inside its continuation lines applies to every line
of that instruction; exec form cannot carry a trailing comment.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Optional, Union

from sgllint.formats.shell.embedded import argv_launch, cover, shell_script, string_token
from sgllint.model.facts import ContextHint, EnvVar, FileFacts, ParseProblem, Source, SourceMap, Span, Token, Unresolved
from sgllint.model.kinds import HintKind
from sgllint.model.launchers import is_shell

__all__ = ["extract"]

KNOWN_INSTRUCTIONS = {
    "FROM", "RUN", "CMD", "LABEL", "MAINTAINER", "EXPOSE", "ENV", "ADD", "COPY", "ENTRYPOINT",
    "VOLUME", "USER", "WORKDIR", "ARG", "ONBUILD", "STOPSIGNAL", "HEALTHCHECK", "SHELL",
}
_HEREDOC_INSTRUCTIONS = {"RUN", "COPY", "ADD"}
_DIRECTIVE = re.compile(r"#\s*([A-Za-z][A-Za-z0-9_-]*)\s*=\s*(.*)")  # value: group 2, rstripped
_HEREDOC = re.compile(r"<<(-?)([\"']?)([A-Za-z_][A-Za-z0-9_.-]*)\2")
_BUILDER_FLAGS = re.compile(r"(?:--[A-Za-z][A-Za-z0-9-]*(?:=\S*)?\s+)*")
_PRAGMA = re.compile(r"sgllint:|\bnoqa\b", re.I)
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SHEBANG_SH = re.compile(r"#!\s*\S*/(?:env\s+)?(?:ba|da|z|k)?sh\b")


def extract(source: Source) -> FileFacts:
    facts = FileFacts(source, "dockerfile")
    lines = _physical_lines(source.text)
    escape, first = _directives(lines, facts)
    instructions = _Reader(lines, first, escape, facts).instructions()
    _Builder(source, facts).run(instructions)
    facts.sites.sort(key=lambda s: s.span.start)
    return facts


# ---------------------------------------------------------------------------
# Lines, directives, instructions
# ---------------------------------------------------------------------------


@dataclass
class _Line:
    start: int  # offset of the first character
    text: str  # without the line break

    @property
    def end(self) -> int:
        return self.start + len(self.text)


def _physical_lines(text: str) -> list[_Line]:
    lines = []
    start = 0
    for raw in text.split("\n"):
        lines.append(_Line(start, raw[:-1] if raw.endswith("\r") else raw))
        start += len(raw) + 1
    return lines


def _is_comment(line: _Line) -> bool:
    return line.text.lstrip(" \t").startswith("#")


def _comment(line: _Line) -> tuple[int, str]:
    at = len(line.text) - len(line.text.lstrip(" \t"))
    return line.start + at, line.text[at:]


def _directives(lines: list[_Line], facts: FileFacts) -> tuple[str, int]:
    """Parser directives at the top of the file: the escape character and
    the index of the first line after them."""
    escape = "\\"
    seen: set[str] = set()
    for i, line in enumerate(lines):
        m = _DIRECTIVE.match(line.text)
        if not m or m.group(1).lower() in seen:
            return escape, i
        seen.add(m.group(1).lower())
        facts.comments.append(_comment(line))
        if m.group(1).lower() == "escape" and m.group(2).rstrip() in ("\\", "`"):
            escape = m.group(2).rstrip()
    return escape, len(lines)


@dataclass
class _Heredoc:
    word: str
    body: str
    offsets: list[int]  # offset of each body character, plus the end


@dataclass
class _Instruction:
    keyword: str  # upper case
    text: str  # the logical line, continuations joined
    offsets: list[int]  # offset of each character of `text`, plus the end
    args_at: int  # index in `text` where the arguments start
    lines: list[_Line]  # the physical lines it spans (comments included)
    pragmas: list[tuple[int, str]] = field(default_factory=list)
    heredocs: list[_Heredoc] = field(default_factory=list)

    @property
    def args(self) -> str:
        return self.text[self.args_at :]


class _Reader:
    """Splits the file into logical instructions the way BuildKit does."""

    def __init__(self, lines: list[_Line], first: int, escape: str, facts: FileFacts):
        self.lines = lines
        self.i = first
        self.escape = escape
        self.facts = facts
        self.continuation = re.compile(re.escape(escape) + r"[ \t]*$")

    def instructions(self) -> list[_Instruction]:
        out: list[_Instruction] = []
        pragmas: list[tuple[int, str]] = []  # comments directly above the next instruction
        while self.i < len(self.lines):
            line = self.lines[self.i]
            self.i += 1
            if _is_comment(line):
                comment = _comment(line)
                self.facts.comments.append(comment)
                if _PRAGMA.search(comment[1]):
                    pragmas.append(comment)
                continue
            if not line.text.strip():
                pragmas = []
                continue
            instruction = self._instruction(line)
            if instruction is not None:
                instruction.pragmas = pragmas + instruction.pragmas
                out.append(instruction)
            pragmas = []
        return out

    def _instruction(self, first: _Line) -> Optional[_Instruction]:
        lead = len(first.text) - len(first.text.lstrip(" \t"))
        chars: list[str] = []
        offsets: list[int] = []
        physical = [first]
        pragmas: list[tuple[int, str]] = []
        continues = self._append(first, lead, chars, offsets)
        while continues and self.i < len(self.lines):
            line = self.lines[self.i]
            self.i += 1
            physical.append(line)
            if _is_comment(line):  # dropped, the continuation goes on
                comment = _comment(line)
                self.facts.comments.append(comment)
                if _PRAGMA.search(comment[1]):
                    pragmas.append(comment)
                continue
            if not line.text.strip():
                continue
            continues = self._append(line, 0, chars, offsets)
        offsets.append(offsets[-1] + 1 if offsets else first.start + lead)
        text = "".join(chars)
        m = re.match(r"(\S+)[ \t]*", text)
        if not m:
            return None
        instruction = _Instruction(m.group(1).upper(), text, offsets, m.end(), physical, pragmas)
        if instruction.keyword in _HEREDOC_INSTRUCTIONS:
            self._heredocs(instruction)
        return instruction

    def _append(self, line: _Line, skip: int, chars: list[str], offsets: list[int]) -> bool:
        """Add ``line`` (minus a continuation character) to the logical line;
        True when the instruction goes on."""
        body = line.text
        m = self.continuation.search(body, skip)
        end = m.start() if m else len(body)
        for k in range(skip, end):
            chars.append(body[k])
            offsets.append(line.start + k)
        return m is not None

    def _heredocs(self, instruction: _Instruction) -> None:
        for m in _HEREDOC.finditer(instruction.args):
            word, strip_tabs = m.group(3), m.group(1) == "-"
            chars: list[str] = []
            offsets: list[int] = []
            closed = False
            while self.i < len(self.lines):
                line = self.lines[self.i]
                self.i += 1
                instruction.lines.append(line)
                text, at = line.text, 0
                if strip_tabs:
                    at = len(text) - len(text.lstrip("\t"))
                if text[at:] == word:
                    closed = True
                    break
                for k in range(at, len(text)):
                    chars.append(text[k])
                    offsets.append(line.start + k)
                if self.i < len(self.lines):  # the file's last line has no line break
                    chars.append("\n")
                    offsets.append(line.end)
            end = instruction.lines[-1].end
            offsets.append(offsets[-1] + 1 if offsets else end)
            instruction.heredocs.append(_Heredoc(word, "".join(chars), offsets))
            if not closed:
                at = instruction.offsets[instruction.args_at + m.start()]
                span = Span(self.facts.source, at, at + len(m.group()))
                self.facts.problems.append(ParseProblem(span, f"heredoc '{word}' is never terminated"))


# ---------------------------------------------------------------------------
# Docker words: ENV, ARG and FROM values, with build-time substitution
# ---------------------------------------------------------------------------

_Value = Union[str, Unresolved]


@dataclass
class _Word:
    text: str  # as written
    start: int  # index in the instruction text
    end: int


def _split_words(text: str, start: int, escape: str) -> list[_Word]:
    """Whitespace-separated words of ``text[start:]``; quotes and the escape
    character protect blanks."""
    words = []
    i, n = start, len(text)
    while i < n:
        while i < n and text[i] in " \t":
            i += 1
        if i >= n:
            break
        begin = i
        quote = ""
        while i < n and (quote or text[i] not in " \t"):
            c = text[i]
            if c == escape and quote != "'" and i + 1 < n:
                i += 2
                continue
            if quote and c == quote:
                quote = ""
            elif not quote and c in "\"'":
                quote = c
            i += 1
        words.append(_Word(text[begin:i], begin, i))
    return words


def _substitute(raw: str, variables: dict, escape: str) -> _Value:
    """Docker's build-time word processing: quote removal, the escape
    character, ``$VAR``/``${VAR}``/``${VAR:-x}``/``${VAR:+x}``. An undeclared
    variable is empty, as in Docker; an ``ARG`` without a default is unknown."""
    out: list[str] = []
    unknown: Optional[str] = None
    prefix = ""
    i, n = 0, len(raw)
    quote = ""
    while i < n:
        c = raw[i]
        if c == "'" and quote != '"':
            quote = "" if quote == "'" else "'"
            i += 1
        elif c == '"' and quote != "'":
            quote = "" if quote == '"' else '"'
            i += 1
        elif c == escape and quote != "'" and i + 1 < n:
            nxt = raw[i + 1]
            if quote == '"' and nxt not in ('"', "$", escape):
                out.append(c)
            out.append(nxt)
            i += 2
        elif c == "$" and quote != "'":
            value, i = _expand(raw, i, variables, escape)
            if isinstance(value, Unresolved):
                if unknown is None:
                    unknown, prefix = value.reason, "".join(out)
            else:
                out.append(value)
        else:
            out.append(c)
            i += 1
    if unknown is not None:
        return Unresolved(raw, unknown, prefix)
    return "".join(out)


def _expand(raw: str, i: int, variables: dict, escape: str) -> tuple[_Value, int]:
    """The value of the reference at ``raw[i] == "$"`` and the index after it."""
    if raw.startswith("${", i):
        close = raw.find("}", i)
        if close < 0:
            return Unresolved(raw[i:], "unterminated variable reference"), len(raw)
        body = raw[i + 2 : close]
        m = re.match(r"([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-+])(.*))?\Z", body, re.S)
        if not m:
            return Unresolved(raw[i : close + 1], f"variable expansion ${{{body}}}"), close + 1
        name, op, word = m.group(1), m.group(2), m.group(3)
        value = variables.get(name)
        if op is None:
            return _known(value), close + 1
        is_set = value is not None and (not op.startswith(":") or value != "")
        if isinstance(value, Unresolved):
            return Unresolved(raw[i : close + 1], value.reason), close + 1
        if op.endswith("-"):
            return (value if is_set else _substitute(word, variables, escape)), close + 1
        return (_substitute(word, variables, escape) if is_set else ""), close + 1
    m = _NAME.match(raw, i + 1)
    if not m:
        return "$", i + 1
    return _known(variables.get(m.group())), m.end()


def _known(value) -> _Value:
    return "" if value is None else value


# ---------------------------------------------------------------------------
# Stages and launches
# ---------------------------------------------------------------------------


@dataclass
class _Stage:
    name: str
    image: _Value
    image_span: Optional[Span]
    parent: Optional["_Stage"]
    env: dict[str, EnvVar] = field(default_factory=dict)  # ENV: the container's environment
    args: dict[str, EnvVar] = field(default_factory=dict)  # ARG: RUN's environment only
    entrypoint: Optional[_Instruction] = None
    cmd: Optional[_Instruction] = None
    posix_shell: bool = True
    heredoc_scripts: list[_Heredoc] = field(default_factory=list)  # COPY <<EOF x.sh

    def effective_entrypoint(self) -> Optional[_Instruction]:
        if self.entrypoint is not None:
            return self.entrypoint
        return self.parent.effective_entrypoint() if self.parent else None

    def effective_cmd(self) -> Optional[_Instruction]:
        if self.cmd is not None:
            return self.cmd
        if self.entrypoint is not None:  # setting ENTRYPOINT resets an inherited CMD
            return None
        return self.parent.effective_cmd() if self.parent else None

    def hints(self) -> list[ContextHint]:
        stage: Optional[_Stage] = self
        while stage is not None:
            if isinstance(stage.image, str) and "sglang" in stage.image.lower() and stage.parent is None:
                return [ContextHint(HintKind.SGLANG_IMAGE, stage.image, stage.image_span)]
            stage = stage.parent
        return []

    def variables(self) -> dict:
        """What ``$NAME`` means at build time in this stage."""
        out = {name: var.value for name, var in self.args.items()}
        out.update({name: var.value for name, var in self.env.items()})
        return out


class _Builder:
    """Walks the instructions stage by stage and emits the launches."""

    def __init__(self, source: Source, facts: FileFacts):
        self.source = source
        self.facts = facts
        self.global_args: dict[str, EnvVar] = {}
        self.stages: dict[str, _Stage] = {}
        self.stage: Optional[_Stage] = None
        self.escape = "\\"

    def run(self, instructions: list[_Instruction]) -> None:
        handlers = {
            "FROM": self._from,
            "ARG": self._arg,
            "ENV": self._env,
            "SHELL": self._shell,
            "CMD": self._cmd,
            "ENTRYPOINT": self._entrypoint,
            "RUN": self._run,
            "COPY": self._copy,
            "ADD": self._copy,
        }
        for instruction in instructions:
            self._propagate_pragmas(instruction)
            handler = handlers.get(instruction.keyword)
            if handler is not None:
                handler(instruction)
            elif instruction.keyword not in KNOWN_INSTRUCTIONS:
                keyword = self._span(instruction, 0, len(instruction.text.split(None, 1)[0]))
                self.facts.problems.append(ParseProblem(keyword, f"unknown instruction: {instruction.keyword}"))
        self._finish_stage()

    # -- positions -----------------------------------------------------------

    def _span(self, instruction: _Instruction, start: int, end: int) -> Span:
        return self._smap(instruction).span(start, end)

    def _smap(self, instruction: _Instruction, at: int = 0) -> SourceMap:
        return SourceMap(self.source, 0, instruction.offsets[at:])

    def _whole(self, instruction: _Instruction) -> Span:
        return self._span(instruction, 0, len(instruction.text))

    def _propagate_pragmas(self, instruction: _Instruction) -> None:
        """A pragma above or inside an instruction covers all its lines."""
        for _, text in instruction.pragmas:
            for line in instruction.lines:
                self.facts.comments.append((line.start, text))

    # -- instructions --------------------------------------------------------

    def _from(self, instruction: _Instruction) -> None:
        self._finish_stage()
        words = _split_words(instruction.text, instruction.args_at, self.escape)
        words = [w for w in words if not w.text.startswith("--")]  # --platform=...
        if not words:
            self.stage = _Stage("", "", None, None)
            return
        image_word = words[0]
        variables = {name: var.value for name, var in self.global_args.items()}
        image = _substitute(image_word.text, variables, self.escape)
        name = words[2].text.lower() if len(words) >= 3 and words[1].text.lower() == "as" else ""
        parent = self.stages.get(image.lower()) if isinstance(image, str) else None
        stage = _Stage(name, image, self._span(instruction, image_word.start, image_word.end), parent)
        if parent is not None:
            stage.env = dict(parent.env)
            stage.posix_shell = parent.posix_shell
        if name:
            self.stages[name] = stage
        self.stage = stage

    def _arg(self, instruction: _Instruction) -> None:
        scope = self.stage.args if self.stage else self.global_args
        variables = self.stage.variables() if self.stage else {n: v.value for n, v in self.global_args.items()}
        for word in _split_words(instruction.text, instruction.args_at, self.escape):
            name, eq, raw = word.text.partition("=")
            if not _NAME.fullmatch(name):
                continue
            span = self._span(instruction, word.start, word.end)
            if eq:
                value = _substitute(raw, variables, self.escape)
                value_span = self._span(instruction, word.start + len(name) + 1, word.end)
            elif name in self.global_args and self.stage is not None:
                value, value_span = self.global_args[name].value, self.global_args[name].value_span
            else:
                value, value_span = Unresolved(f"${name}", f"build argument {name} has no default"), None
            scope[name] = EnvVar(name, value, span, value_span)
            variables[name] = value

    def _env(self, instruction: _Instruction) -> None:
        if self.stage is None:
            return
        text, at = instruction.text, instruction.args_at
        words = _split_words(text, at, self.escape)
        if words and "=" not in words[0].text:  # legacy form: ENV NAME the rest of the line
            name = words[0]
            rest = words[1:]
            if not _NAME.fullmatch(name.text):
                return
            start = rest[0].start if rest else name.end
            end = rest[-1].end if rest else name.end
            value = _substitute(text[start:end], self.stage.variables(), self.escape)
            self.stage.env[name.text] = EnvVar(
                name.text, value, self._span(instruction, name.start, end), self._span(instruction, start, end)
            )
            return
        for word in words:
            name, eq, raw = word.text.partition("=")
            if not eq or not _NAME.fullmatch(name):
                continue
            value = _substitute(raw, self.stage.variables(), self.escape)
            span = self._span(instruction, word.start, word.end)
            value_span = self._span(instruction, word.start + len(name) + 1, word.end)
            self.stage.env[name] = EnvVar(name, value, span, value_span)

    def _shell(self, instruction: _Instruction) -> None:
        words = _exec_words(instruction.args)
        if self.stage is not None and words:
            self.stage.posix_shell = is_shell(words[0][0])

    def _cmd(self, instruction: _Instruction) -> None:
        if self.stage is not None:
            self.stage.cmd = instruction

    def _entrypoint(self, instruction: _Instruction) -> None:
        if self.stage is not None:
            self.stage.entrypoint = instruction

    def _run(self, instruction: _Instruction) -> None:
        stage = self.stage
        if stage is None:
            return
        env = {**stage.args, **stage.env}
        flags = _BUILDER_FLAGS.match(instruction.text, instruction.args_at)
        at = flags.end() if flags else instruction.args_at
        words = self._exec_tokens(instruction, at)
        if words is not None:
            argv_launch(words, self.facts, self._whole(instruction), list(env.values()), env, stage.hints())
            return
        if instruction.heredocs and instruction.text[at:].lstrip().startswith("<<"):
            for heredoc in instruction.heredocs:  # RUN <<EOF: the body is the script
                self._script(heredoc.body, SourceMap(self.source, 0, heredoc.offsets), env)
            return
        if stage.posix_shell:
            self._script(instruction.text[at:], self._smap(instruction, at), env)

    def _copy(self, instruction: _Instruction) -> None:
        """``COPY <<EOF /start.sh``: a script the container may run later."""
        if self.stage is None or not instruction.heredocs:
            return
        destination = instruction.args.split()[-1]
        for heredoc in instruction.heredocs:
            if destination.endswith(".sh") or _SHEBANG_SH.match(heredoc.body):
                self.stage.heredoc_scripts.append(heredoc)

    # -- launches ------------------------------------------------------------

    def _script(self, text: str, smap: SourceMap, env: dict) -> None:
        if "sglang" in text:
            shell_script(text, smap, self.facts, env, hints=self.stage.hints() if self.stage else ())

    def _exec_tokens(self, instruction: _Instruction, at: int) -> Optional[list[Token]]:
        """The words of an exec-form (JSON array) argument list, else None."""
        words = _exec_words(instruction.text[at:])
        if words is None:
            return None
        smap = self._smap(instruction)
        return [string_token(value, at + s, at + e, [at + o for o in offs], smap) for value, s, e, offs in words]

    def _finish_stage(self) -> None:
        stage = self.stage
        if stage is None:
            return
        env = dict(stage.env)
        for heredoc in stage.heredoc_scripts:
            self._script(heredoc.body, SourceMap(self.source, 0, heredoc.offsets), env)
        if stage.entrypoint is None and stage.cmd is None:
            return  # an inherited CMD/ENTRYPOINT was linted with its own stage
        entrypoint, cmd = stage.effective_entrypoint(), stage.effective_cmd()
        if entrypoint is None:
            self._launch_alone(cmd, env)
            return
        entry_words = self._exec_tokens(entrypoint, entrypoint.args_at)
        if entry_words is None:  # shell form: /bin/sh -c TEXT, CMD is ignored
            self._launch_alone(entrypoint, env)
            return
        self._exec_entrypoint(entrypoint, entry_words, cmd, env)

    def _launch_alone(self, instruction: Optional[_Instruction], env: dict) -> None:
        if instruction is None:
            return
        words = self._exec_tokens(instruction, instruction.args_at)
        if words is not None:
            argv_launch(words, self.facts, self._whole(instruction), list(env.values()), env, self.stage.hints())
        elif self.stage.posix_shell:
            self._script(instruction.args, self._smap(instruction, instruction.args_at), env)

    def _exec_entrypoint(
        self, entrypoint: _Instruction, words: list[Token], cmd: Optional[_Instruction], env: dict
    ) -> None:
        """Exec-form ENTRYPOINT: CMD (or ``docker run``'s arguments) follows."""
        span = self._whole(entrypoint)
        opaque = []
        if cmd is None:
            opaque.append("arguments given to `docker run` are appended to the exec-form ENTRYPOINT")
        else:
            cmd_words = self._exec_tokens(cmd, cmd.args_at)
            span = cover([span, self._whole(cmd)])
            if cmd_words is None:
                opaque.append("the shell-form CMD reaches the exec-form ENTRYPOINT as `/bin/sh -c ...`")
            else:
                words = words + cmd_words
        argv_launch(words, self.facts, span, list(env.values()), env, self.stage.hints(), opaque)


# ---------------------------------------------------------------------------
# Exec form
# ---------------------------------------------------------------------------

_JSON_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


def _exec_words(text: str) -> Optional[list[tuple[str, int, int, list[int]]]]:
    """``(value, start, end, offsets)`` of each string of a JSON array of
    strings (offsets: of each value character, plus the end), else None."""
    stripped = text.strip()
    if not stripped.startswith("["):
        return None
    try:
        values = json.loads(stripped)
    except ValueError:
        return None
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        return None
    words = []
    i = text.index("[") + 1
    while len(words) < len(values):
        i = text.index('"', i)
        value, end, offsets = _json_string(text, i)
        words.append((value, i, end, offsets))
        i = end
    return words


def _json_string(text: str, start: int) -> tuple[str, int, list[int]]:
    """A JSON string literal at ``text[start] == '"'``: value, end, offsets.
    An escaped character maps to the last character of its escape."""
    chars: list[str] = []
    offsets: list[int] = []
    i = start + 1
    while text[i] != '"':
        if text[i] != "\\":
            chars.append(text[i])
            offsets.append(i)
            i += 1
            continue
        kind = text[i + 1]
        if kind != "u":
            chars.append(_JSON_ESCAPES[kind])
            offsets.append(i + 1)
            i += 2
            continue
        code = int(text[i + 2 : i + 6], 16)
        i += 6
        if 0xD800 <= code < 0xDC00 and text.startswith("\\u", i):  # a surrogate pair
            low = int(text[i + 2 : i + 6], 16)
            if 0xDC00 <= low < 0xE000:
                code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                i += 6
        chars.append(chr(code))
        offsets.append(i - 1)
    offsets.append(i)
    return "".join(chars), i + 1, offsets
