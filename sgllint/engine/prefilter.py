"""Byte prefilter: decide from a file's raw bytes, before any decode or
parse, that it cannot hold an SGLang launch.

The shapes are the formats': each format declares its `Shapes` in its
registry line (`sgllint.formats.registry`, `sgllint.formats.shapes` says
which and why); this module compiles them once per registration and scans.
A file that merely mentions SGLang (an import, a docstring, a
``server_args: ServerArgs`` annotation) costs a scan of its bytes and
nothing more. A file the prefilter rejects is reported clean without
reading its syntax: a syntax error in a file that cannot launch is not a
finding (SGL000 reports files that launch).

A file of a format without shapes (or of no known format) is rejected only
when it lacks the word ``sglang``.
"""

from __future__ import annotations

import re
from typing import Optional, Union

from sgllint.formats.registry import FORMATS
from sgllint.formats.shapes import Shapes

#: what every launch of every format contains
WORD = b"sglang"

_WORD_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


#: the literal every match of a pattern starts with (a regex is slower to
#: scan a file for it than ``in``)
_LITERAL = re.compile(rb"(?:[A-Za-z0-9_ ]|\\\.)+")


def _literal(pattern: bytes) -> bytes:
    return _LITERAL.match(pattern).group().replace(b"\\.", b".")


def _compiled(alternatives, text: bool):
    out = []
    for p, bound in alternatives:
        literal = _literal(p)
        out.append((re.compile(p.decode("ascii") if text else p), bound, literal.decode("ascii") if text else literal))
    return out


class _Compiled:
    """One format's `Shapes`, compiled for bytes and for text."""

    def __init__(self, shapes: Shapes):
        self.shapes = shapes
        self.search = {False: _compiled(shapes.any_of, False), True: _compiled(shapes.any_of, True)}
        self.quoted = (
            {text: tuple(_compiled(a, text) for a in shapes.quoted) for text in (False, True)} if shapes.quoted else None
        )
        w = shapes.without_word
        self.without_word = {False: re.compile(w), True: re.compile(w.decode("ascii"))} if w else None


#: format name -> its compiled shapes (recompiled when the format is registered anew)
_COMPILED: dict[str, _Compiled] = {}


def _shapes_of(fmt: str) -> Optional[_Compiled]:
    f = FORMATS.get(fmt)
    shapes = f.shapes if f is not None else None
    if shapes is None:
        return None
    compiled = _COMPILED.get(fmt)
    if compiled is None or compiled.shapes is not shapes:
        compiled = _COMPILED[fmt] = _Compiled(shapes)
    return compiled


def _found(alternatives, data: Union[bytes, str]) -> bool:
    text = isinstance(data, str)
    for pattern, bound, literal in alternatives:
        if literal not in data:
            continue
        if not bound:
            if pattern.search(data) is not None:
                return True
            continue
        for m in pattern.finditer(data):
            i = m.start()
            if i == 0:
                return True
            before = data[i - 1]
            if not (before.isalnum() or before == "_") if text else before not in _WORD_BYTES:
                return True
    return False


def may_launch(fmt: str, data: Union[bytes, str]) -> bool:
    """False only when ``data`` (a file's bytes or decoded text) of format
    ``fmt`` certainly holds no launch."""
    compiled = _shapes_of(fmt)
    text = isinstance(data, str)
    if compiled is not None and compiled.without_word is not None and compiled.without_word[text].search(data):
        return True  # e.g. an SGLang --config file need not say "sglang" (a top-level model path key)
    if ("sglang" if text else WORD) not in data:
        return False
    if compiled is None or _found(compiled.search[text], data):
        return True
    quoted = compiled.quoted
    return quoted is not None and _found(quoted[text][0], data) and _found(quoted[text][1], data)
