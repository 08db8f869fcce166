"""Move what an extractor found in an embedded text (a Markdown code block
linted as its own file) into the file that embeds it."""

from __future__ import annotations

from typing import Optional

from sgllint.model.facts import (
    ContextHint,
    EnvVar,
    FileFacts,
    Kwarg,
    LaunchSite,
    ParseProblem,
    Severed,
    SourceMap,
    Span,
    Token,
)

__all__ = ["remap_facts"]


def remap_facts(inner: FileFacts, smap: SourceMap, into: FileFacts) -> None:
    """Append ``inner``'s sites, problems and comments to ``into`` with every
    span (and every token's character map) mapped through ``smap``, whose
    inner text is ``inner.source.text``."""
    for site in inner.sites:
        into.sites.append(_site(site, smap))
    for problem in inner.problems:
        into.problems.append(ParseProblem(_span(problem.span, smap), problem.message))
    for offset, text in inner.comments:
        into.comments.append((smap.outer(offset), text))


def _span(span: Span, smap: SourceMap) -> Span:
    if span.source is smap.source:  # already in the outer file
        return span
    return smap.span(span.start, span.end)


def _opt_span(span: Optional[Span], smap: SourceMap) -> Optional[Span]:
    return None if span is None else _span(span, smap)


def _token(token: Token, smap: SourceMap) -> Token:
    value_map = token.value_map
    if value_map is not None and value_map.source is not smap.source:
        value_map = smap.compose(value_map)
    return Token(token.value, _span(token.span, smap), value_map, token.origin)


def _site(site: LaunchSite, smap: SourceMap) -> LaunchSite:
    return LaunchSite(
        source=smap.source,
        span=_span(site.span, smap),
        entry=site.entry,
        entry_span=_span(site.entry_span, smap),
        form=site.form,
        tokens=[_token(t, smap) for t in site.tokens],
        kwargs=[Kwarg(k.name, k.value, _span(k.name_span, smap), _span(k.value_span, smap)) for k in site.kwargs],
        env=[EnvVar(e.name, e.value, _span(e.span, smap), _opt_span(e.value_span, smap)) for e in site.env],
        opaque=list(site.opaque),
        hints=[ContextHint(h.kind, h.value, _opt_span(h.span, smap)) for h in site.hints],
        severed=None
        if site.severed is None
        else Severed(
            _span(site.severed.backslash, smap),
            [_token(t, smap) for t in site.severed.lost],
            _opt_span(site.severed.trailing, smap),
        ),
        origin=site.origin,
    )
