"""Command strings inside Python: split into words that keep exact spans.

Three tokenizers, because the code that runs the string decides:
``shlex.split`` and a POSIX shell (`posix_words`, or the shell extractor for
``os.system``), ``str.split()`` (`whitespace_words`), and SGLang's
``launch_server_cmd``, which replaces backslashes with spaces and splits on
whitespace without any quoting (`launch_server_cmd_words`). Hydra/OmegaConf
overrides (``...engine_kwargs.sglang.attention_backend=triton``) are read
here too.
"""

from __future__ import annotations

import re
from typing import Optional

from sgllint.formats.python.values import Str
from sgllint.model.facts import EnvVar, Kwarg, Source, Span, Token, Unresolved

_POSIX_BLANKS = " \t\n\r"
_QUOTES = "'\""


def word_token(word: Str, source: Source, span: Optional[Span] = None) -> Token:
    """An argv `Token` for one word written at ``span`` (default: where its
    characters are); `value_map` when the value is not the source text
    itself (quotes, escapes, pieces from several literals)."""
    span = span or word.span(source)
    if word.known:
        value = word.text
    else:
        at, hole = word.holes[0]
        value = Unresolved(span.text, hole.reason, word.text[:at])
    raw_equal = isinstance(value, str) and span.text == value
    return Token(value, span, None if raw_equal else word.value_map(source, span))


# ---------------------------------------------------------------------------
# Splitting
# ---------------------------------------------------------------------------


def whitespace_words(text: Str) -> list[Str]:
    """``str.split()``: runs of non-whitespace (a hole is a word character)."""
    words, start = [], None
    holes = {i for i, _ in text.holes}
    for i, ch in enumerate(text.text):
        blank = ch.isspace() and i not in holes
        if blank and start is not None:
            words.append(text.slice(start, i))
            start = None
        elif not blank and start is None:
            start = i
    if start is not None:
        words.append(text.slice(start, len(text.text)))
    return words


def posix_words(text: Str) -> list[tuple[Str, int, int]]:
    """``shlex.split``: blanks separate words; single quotes are literal;
    in double quotes a backslash escapes only ``"`` ``\\`` ``$`` and a
    backquote; outside quotes it escapes any character (and removes a line
    break). Quote characters are dropped, every other one keeps its offset.
    Each word comes with the range of ``text`` it was written in (quotes
    included)."""
    holes = dict(text.holes)
    chars = text.text
    words: list[tuple[Str, int, int]] = []
    current: Optional[list[int]] = None  # indices into text of the word's characters
    first = 0  # where the current word starts in text
    quote = None
    i, n = 0, len(chars)
    while i < n:
        c = chars[i]
        if current is None and (quote is not None or c not in _POSIX_BLANKS):
            first = i
        take = i  # the index of the character this step adds, or None
        if i in holes:
            pass
        elif quote == "'":
            if c == "'":
                quote, take = None, None
        elif quote == '"':
            if c == '"':
                quote, take = None, None
            elif c == "\\" and i + 1 < n and chars[i + 1] in '"\\$`' and i + 1 not in holes:
                i += 1
                take = i
        elif c in _POSIX_BLANKS:
            if current is not None:
                words.append((_pick(text, current, first), first, i))
                current = None
            take = None
        elif c in _QUOTES:
            quote, take = c, None
            current = current if current is not None else []
        elif c == "\\" and i + 1 < n:
            i += 1
            take = None if chars[i] == "\n" else i
        if take is not None:
            if current is None:
                current = []
            current.append(take)
        i += 1
    if current is not None:
        words.append((_pick(text, current, first), first, n))
    return words


def _pick(text: Str, indices: list[int], first: int) -> Str:
    """The characters at ``indices`` of ``text`` as one word."""
    if not indices:
        return Str("", (text.offsets[first],))  # '' : an empty word
    holes = dict(text.holes)
    picked_holes = tuple((k, holes[i]) for k, i in enumerate(indices) if i in holes)
    offsets = tuple(text.offsets[i] for i in indices)
    return Str("".join(text.text[i] for i in indices), offsets + (offsets[-1] + 1,), picked_holes)


# ---------------------------------------------------------------------------
# launch_server_cmd (sglang.utils / sglang.test.doc_patch)
# ---------------------------------------------------------------------------


def launch_server_cmd_words(text: Str) -> list[Str]:
    """``command.replace("\\\n", " ").replace("\\", " ").split()``: every
    backslash (with a line break after it, if any) becomes one space."""
    holes = dict(text.holes)
    chars: list[str] = []
    offsets: list[int] = []
    kept_holes = []
    i, n = 0, len(text.text)
    while i < n:
        c = text.text[i]
        if c == "\\" and i not in holes:
            chars.append(" ")
            offsets.append(text.offsets[i])
            i += 2 if text.text.startswith("\n", i + 1) and i + 1 not in holes else 1
            continue
        if i in holes:
            kept_holes.append((len(chars), holes[i]))
        chars.append(c)
        offsets.append(text.offsets[i])
        i += 1
    end = offsets[-1] + 1 if offsets else text.offsets[0]
    return whitespace_words(Str("".join(chars), tuple(offsets) + (end,), tuple(kept_holes)))


def split_env_words(words: list[Str], source: Source) -> tuple[list[EnvVar], list[Str]]:
    """Leading ``KEY=VALUE`` words become environment variables, exactly as
    ``execute_shell_command`` decides (quotes stay in the value)."""
    env: list[EnvVar] = []
    for index, word in enumerate(words):
        known = word.text[: word.holes[0][0]] if word.holes else word.text
        if "=" not in known or word.text.startswith(("-", "/")):
            return env, words[index:]
        key, _, _ = known.partition("=")
        if not key or not key.replace("_", "").isalnum():
            return env, words[index:]
        value = word.slice(len(key) + 1, len(word.text))
        value_token = word_token(value, source)
        env.append(EnvVar(key, value_token.value, word.span(source), value_token.span))
    return env, []


def starts_or_ends_with_quote(word: Str) -> bool:
    text = word.text
    return bool(text) and (text[0] in _QUOTES or text[-1] in _QUOTES)


# ---------------------------------------------------------------------------
# Hydra / OmegaConf overrides
# ---------------------------------------------------------------------------

#: ``[+|++]a.b.sglang.<field>=<value>``: the field must be the last key
HYDRA_OVERRIDE = re.compile(r"^(?:\+\+|\+)?(?:[A-Za-z_][\w-]*\.)+sglang\.(?P<field>[A-Za-z_]\w*)=(?P<value>.*)$", re.S)
#: a cheap test on raw file text before any Hydra scan
HYDRA_MARKER = re.compile(r"\.sglang\.[A-Za-z_]\w*=")
_HYDRA_INT = re.compile(r"^[+-]?(?:0|[1-9](?:_?\d)*)$")
_HYDRA_FLOAT = re.compile(r"^[+-]?(?:(?:\d(?:_?\d)*)?\.\d(?:_?\d)*(?:[eE][+-]?\d+)?|\d(?:_?\d)*(?:\.(?:\d(?:_?\d)*)?)?[eE][+-]?\d+|\d(?:_?\d)*\.)$")
_HYDRA_SPECIAL_FLOAT = re.compile(r"^[+-]?(?:inf|nan)$", re.I)


def hydra_kwarg(word: Str, source: Source) -> Optional[Kwarg]:
    """The keyword argument a Hydra override word sets, or None."""
    m = HYDRA_OVERRIDE.match(word.text)
    if m is None or any(i < m.start("value") for i, _ in word.holes):
        return None
    name_span = word.slice(m.start("field"), m.end("field")).span(source)
    value_str = word.slice(m.start("value"), len(word.text))
    value_span = value_str.span(source) if value_str.text else Span(source, name_span.end + 1, name_span.end + 1)
    if value_str.holes:
        at, hole = value_str.holes[0]
        value = Unresolved(value_span.text, hole.reason, value_str.text[:at])
    else:
        value = hydra_value(value_str.text)
    return Kwarg(m.group("field"), value, name_span, value_span)


def hydra_value(text: str):
    """A Hydra override value as Hydra types it: null, bools, ints, floats,
    quoted strings, ``[...]`` lists and ``{...}`` dicts; anything else is a
    string."""
    t = text.strip()
    low = t.lower()
    if low == "null":
        return None
    if low in ("true", "false"):
        return low == "true"
    if _HYDRA_INT.match(t):
        return int(t.replace("_", ""))
    if _HYDRA_FLOAT.match(t) or _HYDRA_SPECIAL_FLOAT.match(t):
        return float(t.replace("_", ""))
    if len(t) >= 2 and t[0] in _QUOTES and t[-1] == t[0]:
        return t[1:-1].replace("\\" + t[0], t[0])
    if len(t) >= 2 and t[0] == "[" and t[-1] == "]":
        return [hydra_value(p) for p in _top_level_split(t[1:-1])] if t[1:-1].strip() else []
    if len(t) >= 2 and t[0] == "{" and t[-1] == "}":
        items = {}
        for p in _top_level_split(t[1:-1]) if t[1:-1].strip() else []:
            key, sep, value = p.partition(":")
            if not sep:
                return t
            items[key.strip()] = hydra_value(value)
        return items
    return t


def _top_level_split(text: str) -> list[str]:
    """Split at commas that are not inside brackets or quotes."""
    parts, depth, quote, start = [], 0, None, 0
    for i, c in enumerate(text):
        if quote:
            if c == quote:
                quote = None
        elif c in _QUOTES:
            quote = c
        elif c in "[{":
            depth += 1
        elif c in "]}":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


# ---------------------------------------------------------------------------
# Shell strings (os.system, shell=True)
# ---------------------------------------------------------------------------

_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$", re.ASCII)


def shell_script(text: Str) -> tuple[str, list[int], dict]:
    """``text`` as a shell script for the shell extractor: each hole becomes
    an expansion of a variable that the returned env marks unknown (kept in
    double quotes when it sits inside single quotes). Returns the script,
    the file offset of each of its characters (plus the end) and the env."""
    holes = dict(text.holes)
    out: list[str] = []
    offsets: list[int] = []
    env: dict = {}
    quote = None
    chars = text.text
    i = 0
    while i < len(chars):
        if i in holes:
            hole = holes[i]
            # a hole standing for several words gets an arguments-like name, which
            # the shell extractor reads as "may expand to any number of arguments"
            name = f"__py_args_{len(env)}" if hole.words else _hole_variable(hole.raw, len(env))
            env[name] = Unresolved(hole.raw, hole.reason)
            piece = f"'\"${{{name}}}\"'" if quote == "'" else f"${{{name}}}"
            out.append(piece)
            offsets.extend(_spread_over(hole.span, len(piece)))
            i += 1
            continue
        c = chars[i]
        if quote is None and c == "\\" and i + 1 < len(chars) and i + 1 not in holes:
            out.append(chars[i : i + 2])
            offsets.extend(text.offsets[i : i + 2])
            i += 2
            continue
        if c in _QUOTES and quote in (None, c):
            quote = None if quote == c else c
        out.append(c)
        offsets.append(text.offsets[i])
        i += 1
    offsets.append(offsets[-1] + 1 if offsets else text.offsets[-1])
    return "".join(out), offsets, env


def _hole_variable(raw: str, index: int) -> str:
    inner = raw[1:-1] if raw.startswith("{") and raw.endswith("}") else raw
    return inner if _IDENTIFIER.match(inner) and inner not in ("HOME", "PATH", "PWD") else f"__py_expr_{index}"


def _spread_over(span: Span, n: int) -> list[int]:
    last = max(span.end - 1, span.start)
    return [min(span.start + i, last) for i in range(n - 1)] + [last] if n else []
