"""Python's string formatting over offset-tracked strings: format specs of
f-string fields and ``str.format`` templates, and the separators
``sep.join(...)`` places, so every produced character keeps the source
offset it was written at."""

from __future__ import annotations

import re
import string
from typing import Optional

from sgllint.formats.python.values import Hole, Scalar, Str
from sgllint.model.facts import Span

#: format specs that are safe to apply (no huge widths)
_SAFE_SPEC = re.compile(r"^[<>^=]?[+\- ]?#?0?\d{0,2}[,_]?(?:\.\d{1,2})?[bcdeEfFgGnosxX%]?$")


def join_separator(before: Str, sep: Str) -> Str:
    """A join separator placed right after the previous element (the
    separator literal itself is elsewhere), so offsets stay in order."""
    end = before.offsets[-1]
    return Str(sep.text, (end,) * len(sep.text) + (end + 1,))


def inside(span: Optional[Span], within: Span) -> bool:
    return span is not None and within.start <= span.start and span.end <= within.end


def format_value(value, conversion: Optional[str], spec: str) -> Optional[str]:
    if conversion == "r":
        value = repr(value)
    elif conversion == "a":
        value = ascii(value)
    if not spec:
        return str(value)
    if not _SAFE_SPEC.match(spec):
        return None
    try:
        return format(value, spec)
    except (ValueError, TypeError):
        return None


def str_format(ev, node, template: Scalar, args: list, kwargs: dict) -> Optional[Scalar]:
    """``"--tp {}".format(tp)`` with plain ``{}``/``{0}``/``{name}`` fields;
    ``ev`` is the calling `Evaluator` (not imported: it imports this module)."""
    text = template.text
    span = ev.ctx.span(node)
    base = text if inside(template.span, span) else text.relocated(ev.ctx.span(node.func.value))
    out = Str("", (span.start,))
    at = 0  # index into the template's characters
    auto = 0
    try:
        parsed = list(string.Formatter().parse(text.text))
    except ValueError:
        return None
    for literal, field, spec, conversion in parsed:
        out = out + _template_piece(base, at, literal)
        at += _source_length(literal)
        if field is None:
            continue
        field_len = len(field) + 2 + (len(spec) + 1 if spec else 0) + (len(conversion) + 1 if conversion else 0)
        field_str = base.slice(at, min(at + field_len, len(base.text)))
        at += field_len
        if field == "":
            field, auto = str(auto), auto + 1
        value = args[int(field)] if field.isdigit() and int(field) < len(args) else kwargs.get(field)
        rendered = None
        if isinstance(value, Scalar) and value.known and not spec:
            rendered = format_value(value.value, conversion, "")
        field_span = field_str.span(ev.ctx.source)
        if rendered is None:
            reason = value.value.reason if isinstance(value, Scalar) and not value.known else "a format argument is not known statically"
            out = out + Str.hole(Hole(field_span.text, reason, field_span))
        else:
            out = out + Str.spread(rendered, field_span)
    return ev.string_scalar(out, span)


def _template_piece(base: Str, at: int, literal: str) -> Str:
    """The template characters of ``literal`` ({{ and }} written twice)."""
    length = _source_length(literal)
    piece = base.slice(at, at + length)
    if length == len(literal):
        return piece
    chars, offsets, i = [], [], 0
    while i < length:
        chars.append(piece.text[i])
        offsets.append(piece.offsets[i])
        i += 2 if piece.text[i] in "{}" else 1
    return Str("".join(chars), tuple(offsets) + (piece.offsets[-1],))


def _source_length(literal: str) -> int:
    return len(literal) + literal.count("{") + literal.count("}")
