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

from sgllint.extract.launchers import find_launch
from sgllint.model import ContextHint, EnvVar, FileFacts, LaunchSite, SourceMap, Span, Token, Unresolved

_SHELLS = {"sh", "bash", "zsh", "dash", "ksh", "ash"}

#: Jinja / Tera / minijinja / Helm expressions, rendered before the shell runs
TEMPLATE_RE = re.compile(r"\{\{.*?\}\}", re.S)
#: ``<model-path>``-style placeholders in documentation
PLACEHOLDER_RE = re.compile(r"<[A-Za-z_][\w.:/-]*>")

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
    if "{{" not in text and "<" not in text:
        return text
    for pattern, reason in patterns:
        text = pattern.sub(functools.partial(_masked, _MASK_CHAR[reason]), text)
    return text


def _masked(ch: str, m: re.Match) -> str:
    return ch * len(m.group())


def unmask_sites(sites: Iterable[LaunchSite]) -> None:
    """Tokens and env values holding masked text become `Unresolved`."""
    for site in sites:
        for i, token in enumerate(site.tokens):
            site.tokens[i] = _unmask_token(token)
        for var in site.env:
            value = var.value
            text = value if isinstance(value, str) else getattr(value, "raw", "")
            m = _ANY_MASK.search(text)
            if m:
                raw = var.value_span.text if var.value_span is not None else text
                var.value = Unresolved(raw, _MASKS[m.group()], known_prefix=text[: m.start()])


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
    from sgllint.extract.shell import extract_embedded  # tree-sitter only when needed

    first = len(facts.sites)
    extract_embedded(mask(text, masks), smap, facts, env)
    new = facts.sites[first:]
    unmask_sites(new)
    for site in new:
        site.hints.extend(hints)
    return new


def shell_c_index(values: Sequence) -> Optional[int]:
    """Index of SCRIPT in ``[... ]sh [-opts] -c SCRIPT``, else None."""
    for i, v in enumerate(values):
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
        return None  # the first shell word decides
    return None


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
    script_at = shell_c_index(values)
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
        form="argv",
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
