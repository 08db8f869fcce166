"""From YAML strings to argv words and shell scripts.

Deployment files substitute variables before the program sees its
arguments: Kubernetes replaces ``$(VAR)`` from the container's ``env:``,
docker compose interpolates ``${VAR:-default}`` from the host, Helm and
GitHub Actions render ``{{ ... }}``. An argv word gets these applied (known
values substituted with positions kept, unknown ones make it `Unresolved`);
a shell script gets them rewritten into shell syntax the shell extractor
already understands.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional

from sgllint.formats.linear import phased_finditer
from sgllint.formats.placeholders import FORMAT_FIELD_RE, PLACEHOLDER_RE
from sgllint.formats.yaml.load import TEMPLATE_FILLER
from sgllint.formats.yaml.scalars import MappedText
from sgllint.model.facts import EnvVar, Source, Span, Token, Unresolved
from sgllint.model.launchers import LAUNCH_TEXT_PATTERN

#: the syntaxes substituted before a program or shell runs
_REFERENCE = (
    r"(?P<dollar>\$\$)"
    r"|\$\((?P<k8s>[A-Za-z_][A-Za-z0-9_]*)\)"
    r"|(?P<template>\$?\{\{.*?\}\}|\$?" + TEMPLATE_FILLER + "+)"
    r"|\$\{(?P<name>[A-Za-z_][A-Za-z0-9_]*)(?:(?P<op>:?[-=?+])(?P<arg>[^}]*))?\}"
    r"|\$(?P<bare>[A-Za-z_][A-Za-z0-9_]*)"
    r"|(?P<field>" + FORMAT_FIELD_RE.pattern + "|" + PLACEHOLDER_RE.pattern + ")"
)
_REFERENCE_RE = re.compile(_REFERENCE, re.S)
#: the same, searched in linear time: `{{...}}` only up to the last `}}`,
#: `${...}` only up to the last `}` (unclosed, each was scanned to the end)
_NO_TEMPLATE = _REFERENCE.replace(r"\$?\{\{.*?\}\}|", "(?!)|")
_NO_BRACE = _NO_TEMPLATE.replace(r"(?P<arg>[^}]*))?\}", r"(?P<arg>(?!)))?(?!)")
_REFERENCE_PHASES = ((_REFERENCE_RE, "}}"), (re.compile(_NO_TEMPLATE, re.S), "}"), (re.compile(_NO_BRACE, re.S), ""))
_DEFAULT_OPS = (":-", "-", ":=", "=")
TEMPLATE_REASON = "template expression, rendered when the file is deployed"
#: text that makes a string worth parsing as a shell script
LAUNCH_TEXT = re.compile(LAUNCH_TEXT_PATTERN)
#: a template or variable with such a name may stand for several arguments
ARGS_LIKE_NAME = re.compile(r"ARG|OPT|FLAG|PARAM|EXTRA", re.I)
_WHITESPACE = " \t\r\n"


@dataclass
class Piece:
    """A run of a word's text: literal characters, or a reference that
    cannot be known (its source range and why)."""

    text: MappedText
    unknown: Optional[str] = None
    raw: str = ""


@dataclass
class Word:
    """One argv word found in YAML."""

    token: Token
    #: the decoded scalar it came from (a ``sh -c`` script is re-read from it)
    text: Optional[MappedText] = None
    #: the whole word is one template or variable that may expand to several words
    expansion: Optional[str] = None
    opaque: Optional[str] = None


@dataclass
class Mode:
    """Which substitutions the file's tool applies."""

    kubernetes: bool = False  # $(VAR) from the container env
    compose: bool = False  # ${VAR:-default}, $$


# ---------------------------------------------------------------------------
# Substitution
# ---------------------------------------------------------------------------


def substitute(mt: MappedText, env: dict, mode: Mode, source: Source) -> list[Piece]:
    """``mt`` cut into literal runs and unknown references."""
    pieces: list[Piece] = []
    text = mt.text
    pos = 0
    for m in phased_finditer(_REFERENCE_PHASES, text):
        literal = _reference_value(m, mt, env, mode)
        if literal is _KEEP:
            continue
        if m.start() > pos:
            chunk = MappedText()
            chunk.extend(mt, pos, m.start())
            pieces.append(Piece(chunk))
        if isinstance(literal, MappedText):
            pieces.append(Piece(literal))
        else:
            ref = MappedText()
            ref.extend(mt, m.start(), m.end())
            raw = source.text[ref.starts[0] : ref.ends[-1]] if len(ref) else m.group()
            pieces.append(Piece(ref, unknown=literal, raw=raw))
        pos = m.end()
    if pos < len(text):
        chunk = MappedText()
        chunk.extend(mt, pos, len(text))
        pieces.append(Piece(chunk))
    return pieces


_KEEP = object()


def _reference_value(m: re.Match, mt: MappedText, env: dict, mode: Mode):
    """A `MappedText` for a reference with a known value, `_KEEP` for text
    that is no reference here, else the reason it is unknown."""
    start, end = m.start(), m.end()
    ref_start, ref_end = mt.starts[start], mt.ends[end - 1]
    if m.group("dollar"):
        if not (mode.compose or mode.kubernetes):
            return _KEEP
        return _synthetic("$", ref_start, ref_end)
    if m.group("k8s"):
        name = m.group("k8s")
        if not mode.kubernetes:
            return f"$({name}) is not substituted here; the program gets it as written"
        var = env.get(name)
        if isinstance(var, EnvVar) and isinstance(var.value, str):
            return _synthetic(var.value, ref_start, ref_end)
        if var is not None:
            return f"Kubernetes sets $({name}) at run time"
        return f"$({name}) is not defined in the container's env"
    if m.group("field"):
        # a harness's format field (``{port}``, ``%(tp)s``) or a ``<placeholder>``
        return TEMPLATE_REASON
    if m.group("template"):
        return TEMPLATE_REASON
    if m.group("name"):
        name, op = m.group("name"), m.group("op")
        if op in _DEFAULT_OPS:
            default = MappedText()
            default.extend(mt, m.start("arg"), m.end("arg"))
            return _stretched(default, ref_start, ref_end)
        return f"${{{name}}} is substituted when the file is deployed"
    return f"${m.group('bare')} is substituted when the file is deployed"


def _synthetic(value: str, start: int, end: int) -> MappedText:
    """A substituted value: every character maps to the whole reference."""
    out = MappedText()
    for ch in value:
        out.add(ch, start, end)
    return out


def _stretched(mt: MappedText, start: int, end: int) -> MappedText:
    """A default value: its characters keep their places, but the word's
    ends reach the reference's ``${`` and ``}``."""
    if not len(mt):
        return mt
    mt.starts[0] = start
    mt.ends[-1] = end
    return mt


# ---------------------------------------------------------------------------
# Argv words
# ---------------------------------------------------------------------------


def word_from_scalar(mt: MappedText, span: Span, env: dict, mode: Mode) -> Word:
    """One list item as one argv word (Kubernetes and compose exec form)."""
    pieces = substitute(mt, env, mode, span.source)
    word = _word_from_pieces(pieces, span, span.text)
    word.text = mt
    if word.expansion and not is_template(word.expansion):
        word.expansion = None  # one list item is one word, whatever the variable holds
    return word


def is_template(raw: str) -> bool:
    return "{{" in raw or TEMPLATE_FILLER in raw


def _word_from_pieces(pieces: list[Piece], span: Span, written: str) -> Word:
    known = MappedText()
    reason = None
    for piece in pieces:
        if piece.unknown is not None:
            reason = piece.unknown
            break
        known.extend(piece.text)
    if reason is None:
        value = known.text
        value_map = None if value == written and known.starts[:1] == [span.start] else known.to_map(span.source, span.end)
        return Word(Token(value, span, value_map))
    value = Unresolved(written, reason, known_prefix=known.text)
    value_map = known.to_map(span.source, span.end) if len(known) else None
    word = Word(Token(value, span, value_map))
    if len(pieces) == 1:
        word.expansion = pieces[0].raw
    return word


def split_words(mt: MappedText, env: dict, mode: Mode, source: Source) -> list[Word]:
    """A command string split into words as compose does (shell-like quotes
    and backslashes, no shell): ``command: --tp 2 --model-path "/m x"``."""
    words: list[Word] = []
    word = _SplitWord()
    quote: Optional[str] = None
    for piece in substitute(mt, env, mode, source):
        if piece.unknown is not None:
            word.add_unknown(piece, quoted=quote is not None)
            continue
        t = piece.text
        i = 0
        while i < len(t):
            ch = t.chars[i]
            if quote is None and ch in _WHITESPACE:
                word = _flush(word, words, source)
            elif quote is None and ch in "'\"":
                quote = ch
                word.add_quote(t.starts[i], t.ends[i])
            elif ch == quote:
                quote = None
                word.add_quote(t.starts[i], t.ends[i])
            elif ch == "\\" and quote != "'" and i + 1 < len(t) and (quote is None or t.chars[i + 1] in '"\\$'):
                word.add_char(t.chars[i + 1], t.starts[i], t.ends[i + 1])
                i += 1
            else:
                word.add_char(ch, t.starts[i], t.ends[i])
            i += 1
    _flush(word, words, source)
    return words


class _SplitWord:
    """One word being split out of a command string."""

    def __init__(self) -> None:
        self.pieces: list[Piece] = []
        self.start: Optional[int] = None
        self.end = 0
        self.quoted = False

    def _cover(self, start: int, end: int) -> None:
        self.start = start if self.start is None else min(self.start, start)
        self.end = max(self.end, end)

    def add_char(self, ch: str, start: int, end: int) -> None:
        if not self.pieces or self.pieces[-1].unknown is not None:
            self.pieces.append(Piece(MappedText()))
        self.pieces[-1].text.add(ch, start, end)
        self._cover(start, end)

    def add_quote(self, start: int, end: int) -> None:
        self.quoted = True
        self._cover(start, end)

    def add_unknown(self, piece: Piece, quoted: bool) -> None:
        self.pieces.append(piece)
        self.quoted = self.quoted or quoted
        if len(piece.text):
            self._cover(piece.text.starts[0], piece.text.ends[-1])

    def word(self, source: Source) -> Word:
        span = Span(source, self.start or 0, self.end)
        word = _word_from_pieces(self.pieces, span, span.text)
        unknown = [p for p in self.pieces if p.unknown is not None]
        if not unknown:  # its text, should it be the script of ``sh -c``
            word.text = MappedText()
            for piece in self.pieces:
                word.text.extend(piece.text)
        if len(unknown) == 1 and len(self.pieces) == 1 and not self.quoted:
            word.expansion = unknown[0].raw  # unquoted: may split into several words
        else:
            word.expansion = None
        return word


def _flush(word: _SplitWord, words: list[Word], source: Source) -> _SplitWord:
    if word.start is not None:
        words.append(word.word(source))
    return _SplitWord()


def opaque_reasons(args: list[Word]) -> list[str]:
    """Why a launch's arguments may be more than the words seen: a whole
    word that is one template or unquoted variable can expand to several
    words, unless it directly follows a flag (then it is that flag's value)."""
    reasons: list[str] = []
    previous = None
    for word in args:
        reason = word.opaque
        if reason is None and word.expansion:
            after_flag = isinstance(previous, str) and previous.startswith("-") and "=" not in previous
            if ARGS_LIKE_NAME.search(word.expansion) or not after_flag:
                reason = f"{word.expansion} may expand to any number of arguments"
        if reason and reason not in reasons:
            reasons.append(reason)
        previous = word.token.value
    return reasons


# ---------------------------------------------------------------------------
# Shell scripts
# ---------------------------------------------------------------------------


@dataclass
class Script:
    """A script rewritten for the shell extractor."""

    text: MappedText
    env: dict = field(default_factory=dict)
    placeholders: dict = field(default_factory=dict)  # name -> template text


_PLACEHOLDER_PREFIX = "__SGLLINT_TPL"


def prepare_script(mt: MappedText, env: dict, mode: Mode, source: Source) -> Script:
    """Rewrite deploy-time substitutions into shell syntax: a template
    becomes ``${__SGLLINT_TPL_n}`` (unknown to the shell), Kubernetes
    ``$(VAR)`` of a container variable becomes ``${VAR}``, compose defaults
    are applied and ``$$`` becomes ``$``."""
    script = Script(MappedText(), {} if mode.compose else dict(env))
    text = mt.text
    pos = 0
    for m in phased_finditer(_REFERENCE_PHASES, text):
        replacement = _script_replacement(m, mt, env, mode, script, source)
        if replacement is None:
            continue
        script.text.extend(mt, pos, m.start())
        script.text.extend(replacement)
        pos = m.end()
    script.text.extend(mt, pos, len(text))
    return script


def _script_replacement(m: re.Match, mt: MappedText, env: dict, mode: Mode, script: Script, source: Source):
    start, end = m.start(), m.end()
    ref_start, ref_end = mt.starts[start], mt.ends[end - 1]
    if m.group("template") or m.group("field"):
        raw = source.text[ref_start:ref_end]
        kind = "_ARGS" if ARGS_LIKE_NAME.search(raw) else ""
        name = f"{_PLACEHOLDER_PREFIX}{kind}_{len(script.placeholders) + 1}"
        script.placeholders[name] = raw
        script.env[name] = Unresolved(raw, TEMPLATE_REASON)
        return _synthetic("${" + name + "}", ref_start, ref_end)
    if m.group("k8s") and mode.kubernetes and m.group("k8s") in env:
        out = MappedText()
        out.extend(mt, start, end)
        out.chars[1], out.chars[-1] = "{", "}"
        return out
    if not mode.compose:
        return None
    if m.group("dollar"):
        return _synthetic("$", ref_start, ref_end)
    name = m.group("name") or m.group("bare")
    if name is None:
        return None
    if m.group("op") in _DEFAULT_OPS:
        default = MappedText()
        default.extend(mt, m.start("arg"), m.end("arg"))
        return _stretched(default, ref_start, ref_end)
    script.env[name] = Unresolved("${" + name + "}", "compose substitutes it from the host environment")
    return None


def is_placeholder_text(value: str) -> bool:
    return _PLACEHOLDER_PREFIX in value


def placeholder_prefix(value: str) -> str:
    """The text before the first placeholder (``${__SGLLINT_TPL_1}``)."""
    at = value.find(_PLACEHOLDER_PREFIX)
    return value[: max(0, at - 2 if value[max(0, at - 2) : at] == "${" else at)]


def unplaceholder(token: Token) -> Token:
    """Templates reach the shell as placeholder variables: report them as
    written. (One inside single quotes is even a literal to the shell.)"""
    value = token.value
    if isinstance(value, str) and is_placeholder_text(value):
        token.value = Unresolved(token.span.text, TEMPLATE_REASON, placeholder_prefix(value))
    elif isinstance(value, Unresolved) and is_placeholder_text(value.raw):
        token.value = Unresolved(token.span.text, value.reason, value.known_prefix)
    return token
