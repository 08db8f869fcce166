"""A toy input format, to prove that a format is one module plus one registry
line (tests/test_registries.py): a ``.toy`` file holds one command per line,
words split on spaces, ``#`` starting a comment to the end of the line.

It composes through the model only: `find_launch` recognises the launch in
the words, and the words become `Token`s with their exact spans.
"""

from __future__ import annotations

import re

from sgllint.formats.registry import Format
from sgllint.formats.shapes import Shapes
from sgllint.model.facts import FileFacts, LaunchSite, Source, Span, Token
from sgllint.model.launchers import find_launch

#: the one registry line a real format adds to sgllint/formats/registry.py
TOY = Format("toy", "tests.toy_format:extract", (".toy",), languages=("toy",), shapes=Shapes(((rb"launch_server", False),)))

_WORD = re.compile(r"[^\s#]+")


def extract(source: Source) -> FileFacts:
    facts = FileFacts(source, "toy")
    offset = 0
    for line in source.text.splitlines(keepends=True):
        code, hash_, comment = line.partition("#")
        if hash_:
            facts.comments.append((offset + len(code), hash_ + comment.rstrip("\r\n")))
        words = [Token(m.group(), Span(source, offset + m.start(), offset + m.end())) for m in _WORD.finditer(code)]
        match = find_launch([w.value for w in words])
        if match is not None:
            launcher, args = words[match.start : match.args_start], words[match.args_start :]
            span = Span(source, words[0].span.start, words[-1].span.end)
            facts.sites.append(
                LaunchSite(
                    source=source,
                    span=span,
                    entry=match.entry,
                    entry_span=Span(source, launcher[0].span.start, launcher[-1].span.end),
                    form="argv",
                    tokens=args,
                )
            )
        offset += len(line)
    return facts
