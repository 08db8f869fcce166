"""An SGLang ``--config FILE.yaml`` as data: its top-level entries and the
argv words built from them.

Reading the YAML is format work (`sgllint.formats.yaml.sglang_config`);
turning the entries into a release's words and merging them into a launch is
resolution (`sgllint.resolve.sglang_config`), which receives the reader as a
`ConfigParser` so that it never imports a format.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from sgllint.model.facts import ParseProblem, Source, SourceMap, Span, Token, Unresolved
from sgllint.model.kinds import Origin

#: the opaque reason of a config file without a model path: its launch gives
#: the rest; linted only when a project launch passes it (`sgllint.resolve.config_refs`)
REFERENCED_REASON = "the launch that passes this file with --config gives the other arguments"


@dataclass
class ConfigEntry:
    """One top-level key of a config file, as ``yaml.safe_load`` builds it."""

    key: Any  # normally str
    value: Any  # bool, int, float, str, None, list, dict, date ...
    key_span: Span
    value_span: Span
    item_spans: list[Span] = field(default_factory=list)  # list values: one per item
    # where each character of a string value (or item) was written
    value_map: Optional[SourceMap] = None
    item_maps: list[Optional[SourceMap]] = field(default_factory=list)


#: the text of a config file (a `Source`) -> its entries, or the problems that
#: stop SGLang reading it (with SGLang's wording)
ConfigParser = Callable[[Source], "tuple[list[ConfigEntry], list[ParseProblem]]"]


def flag_token(e: ConfigEntry) -> Token:
    """``--{key}``, the key never normalised."""
    return config_token(f"--{e.key}", e.key_span)


def config_token(value, span: Span, value_map: Optional[SourceMap] = None) -> Token:
    return Token(value, span, value_map, origin=Origin.CONFIG_FILE)


def value_token(e: ConfigEntry) -> Token:
    """A scalar value's word, ``str(value)``, mapped when it is a string."""
    return config_token(str(e.value), e.value_span, e.value_map if isinstance(e.value, str) else None)


def item_tokens(e: ConfigEntry) -> list[Token]:
    """A list value's words, one per item."""
    spans = e.item_spans or [e.value_span] * len(e.value)
    maps = e.item_maps or [None] * len(e.value)
    return [
        config_token(str(item), span, value_map if isinstance(item, str) else None)
        for item, span, value_map in zip(e.value, spans, maps)
    ]


def dict_token(e: ConfigEntry, json_dicts: bool) -> Token:
    """A dict value's word: ``json.dumps`` (0.5.14+) or ``str``."""
    if not json_dicts:
        return config_token(str(e.value), e.value_span)
    try:
        return config_token(json.dumps(e.value), e.value_span)
    except (TypeError, ValueError) as exc:  # SGLang fails the same way
        return config_token(Unresolved(e.value_span.text, f"json.dumps fails: {exc}"), e.value_span)
