"""Helpers for launches embedded in another format's strings and lists:
TOML task commands, Dockerfile ``CMD``/``ENTRYPOINT``, Markdown code blocks.

* `argv_launch` turns a list of already-split words (a TOML array, a
  Dockerfile exec-form JSON array) into a launch site, or hands the script of
  a ``sh -c SCRIPT`` list to the shell extractor.
* `shell_script` runs the shell extractor over a string with a `SourceMap`,
  masking template expressions (``{{ ... }}``) and documentation
  placeholders (``<model-path>``) so they become `Unresolved` values instead
  of bogus literals or shell redirections.
"""

from __future__ import annotations

import functools
import re
from typing import Iterable, Optional, Sequence

from sgllint.formats.linear import ShortestPair
from sgllint.formats.placeholders import FORMAT_FIELD_RE, MORE_ARGS_RE, PLACEHOLDER_RE  # noqa: F401  (also read from here)
from sgllint.model.facts import ContextHint, EnvVar, FileFacts, LaunchSite, SourceMap, Span, Token, Unresolved
from sgllint.model.kinds import LaunchForm
from sgllint.model.launchers import find_launch, shell_c_script


#: Jinja / Tera / minijinja / Helm expressions, rendered before the shell runs
TEMPLATE_RE = ShortestPair(r"\{\{.*?\}\}", "}}")  # linear on a `{{` storm
# Private-use characters stand in for masked text: the shell parser takes
# them as ordinary word characters and the length (so every offset) is kept.
_MASKS = {
    "\ue000": "template expression",
    "\ue001": "documentation placeholder",
}
_MASK_CHAR = {reason: ch for ch, reason in _MASKS.items()}
_ANY_MASK = re.compile("[" + "".join(_MASKS) + "]")

#: names of variables that usually hold several flags (``$EXTRA_ARGS``, ``${@}``)
_ARGS_LIKE = re.compile(r"\$\{?(?:@|\*|[A-Za-z_]*(?:ARG|OPT|FLAG|PARAM|EXTRA)[A-Za-z0-9_]*)\}?", re.I)


def cover(spans: Iterable[Span]) -> Span:
    spans = list(spans)
    first = spans[0]
    return Span(first.source, min(s.start for s in spans), max(s.end for s in spans))


# ---------------------------------------------------------------------------
# Masking templates and placeholders
# ---------------------------------------------------------------------------


def mask(text: str, patterns: Sequence[tuple[re.Pattern, str]]) -> str:
    """``text`` with every match of each pattern replaced, character for
    character, by the mask of its reason."""
    if not any(c in text for c in ("{", "<", "...", "\u2026", "[", "%(")):
        return text
    for pattern, reason in patterns:
        text = pattern.sub(functools.partial(_masked, _MASK_CHAR[reason]), text)
    return text


def _masked(ch: str, m: re.Match) -> str:
    return ch * len(m.group())


def unmask_sites(sites: Iterable[LaunchSite]) -> None:
    """Tokens and env values holding masked text become `Unresolved`. A
    placeholder standing for arguments (``...``, ``[other options]``, or a
    ``<placeholder>`` that is no flag's value, such as ``sglang serve
    <model>``) makes the launch opaque: what it stands for is unknown."""
    for site in sites:
        for i, token in enumerate(site.tokens):
            site.tokens[i] = _unmask_token(token)
            standing = _placeholder_for_arguments(site.tokens, i)
            if standing and standing not in site.opaque:
                site.opaque.append(standing)
        for var in site.env:
            value = var.value
            text = value if isinstance(value, str) else getattr(value, "raw", "")
            m = _ANY_MASK.search(text)
            if m:
                raw = var.value_span.text if var.value_span is not None else text
                var.value = Unresolved(raw, _MASKS[m.group()], known_prefix=text[: m.start()])


def _placeholder_for_arguments(tokens: list[Token], i: int) -> str:
    """Why ``tokens[i]`` may stand for any number of arguments ("" if not)."""
    value = tokens[i].value
    if not isinstance(value, Unresolved) or value.reason != _MASKS["\ue001"]:
        return ""
    written = tokens[i].span.text
    if MORE_ARGS_RE.fullmatch(written):
        return f"{written} in the documentation stands for more arguments"
    previous = tokens[i - 1].value if i else None
    if PLACEHOLDER_RE.fullmatch(written) and not (isinstance(previous, str) and previous.startswith("-") and "=" not in previous):
        return f"{written} in the documentation stands for arguments"
    return ""


def _unmask_token(token: Token) -> Token:
    value = token.value
    if isinstance(value, str):
        m = _ANY_MASK.search(value)
        if m is None:
            return token
        return Token(Unresolved(token.span.text, _MASKS[m.group()], value[: m.start()]), token.span, token.value_map)
    if isinstance(value, Unresolved):
        m = _ANY_MASK.search(value.raw) or _ANY_MASK.search(value.known_prefix)
        if m is None:
            return token
        prefix = _ANY_MASK.split(value.known_prefix, 1)[0]
        return Token(Unresolved(token.span.text, value.reason, prefix), token.span, token.value_map)
    return token


# ---------------------------------------------------------------------------
# Shell strings
# ---------------------------------------------------------------------------


def shell_script(
    text: str,
    smap: SourceMap,
    facts: FileFacts,
    env: Optional[dict] = None,
    masks: Sequence[tuple[re.Pattern, str]] = ((TEMPLATE_RE, "template expression"),),
    hints: Sequence[ContextHint] = (),
) -> list[LaunchSite]:
    """Lint a shell script embedded in ``smap.source``; returns the new sites
    (already appended to ``facts``)."""
    from sgllint.formats.shell.extractor import extract_embedded  # tree-sitter only when needed

    first = len(facts.sites)
    extract_embedded(mask(text, masks), smap, facts, env)
    new = facts.sites[first:]
    unmask_sites(new)
    for site in new:
        site.hints.extend(hints)
    return new




# ---------------------------------------------------------------------------
# Word lists
# ---------------------------------------------------------------------------


def argv_launch(
    words: list[Token],
    facts: FileFacts,
    span: Span,
    env: Sequence[EnvVar] = (),
    shell_env: Optional[dict] = None,
    hints: Sequence[ContextHint] = (),
    opaque: Sequence[str] = (),
) -> list[LaunchSite]:
    """The launch in an exec-style word list (no shell in between), or the
    launches of its ``sh -c SCRIPT``. Returns the new sites (already in
    ``facts``)."""
    values = [w.value for w in words]
    match = find_launch(values)
    script_at = shell_c_script(values)
    new: list[LaunchSite] = []
    if script_at is not None and (match is None or match.start > script_at):
        script = words[script_at]
        if isinstance(script.value, str):
            new += shell_script(script.value, _value_map(script), facts, shell_env, hints=hints)
        return new
    if match is None:
        return new
    launcher = words[match.start : match.args_start]
    args = words[match.args_start :]
    site = LaunchSite(
        source=span.source,
        span=span,
        entry=match.entry,
        entry_span=cover(t.span for t in launcher),
        form=LaunchForm.ARGV,
        tokens=list(args),
        env=list(env),
        opaque=list(opaque) + _opaque_reasons(args),
        hints=list(hints),
    )
    facts.sites.append(site)
    return [site]


def _value_map(token: Token) -> SourceMap:
    if token.value_map is not None:
        return token.value_map
    return SourceMap(token.span.source, token.span.start)


def _opaque_reasons(args: list[Token]) -> list[str]:
    reasons = []
    for token in args:
        if isinstance(token.value, Unresolved) and _ARGS_LIKE.fullmatch(token.value.raw.strip().strip("\"'")):
            reasons.append(f"{token.value.raw} may expand to any number of arguments")
    return list(dict.fromkeys(reasons))


def string_token(value, start: int, end: int, offsets: Optional[list[int]], smap: SourceMap) -> Token:
    """A token for a quoted string at inner ``[start, end)`` whose value
    characters sit at inner ``offsets`` (one extra entry for the end)."""
    span = smap.span(start, end)
    value_map = None
    if offsets is not None and span.text != value:
        value_map = SourceMap(smap.source, 0, [smap.outer(o) for o in offsets])
    return Token(value, span, value_map)
