"""``github``: GitHub Actions workflow commands, one annotation per finding::

    ::error file=serve.sh,line=9,col=3,endLine=9,endColumn=19,title=SGL101 (unknown-flag)::message

Severity maps to ``error`` / ``warning`` / ``notice``. Escaping follows the
Actions runner (``toolkit/packages/core/src/command.ts``): in the message
``%`` -> ``%25``, ``\\r`` -> ``%0D``, ``\\n`` -> ``%0A``; in property values
also ``:`` -> ``%3A`` and ``,`` -> ``%2C``. Columns are 1-based code points.
Text from the tree goes through `visible` first, so only sgllint's own line
break (before ``help:``) becomes ``%0A``; a file's findings past
``--max-diagnostics`` become one ``notice`` on that file.
"""

from __future__ import annotations

from typing import Sequence

from sgllint.model.diagnostic import Diagnostic, Severity
from sgllint.output.positions import one_based
from sgllint.output.text import Omitted, capped, visible

LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def line(d: Diagnostic) -> str:
    ln, col, end_ln, end_col = one_based(d.span)
    props = [
        ("file", visible(d.path)),
        ("line", str(ln)),
        ("col", str(col)),
        ("endLine", str(end_ln)),
        ("endColumn", str(end_col)),
        ("title", f"{d.code} ({d.name})"),
    ]
    message = visible(d.message) + (f"\nhelp: {visible(d.help)}" if d.help else "")
    rendered = ",".join(f"{k}={escape_property(v)}" for k, v in props)
    return f"::{LEVEL[d.severity]} {rendered}::{escape_data(message)}"


def omitted_line(o: Omitted) -> str:
    return f"::notice file={escape_property(visible(o.path))},title=sgllint::{escape_data(o.summary())}"


def render(diagnostics: Sequence[Diagnostic], max_per_file: int = 0, notices: Sequence[str] = ()) -> str:
    said = "".join(f"::notice title=sgllint::{escape_data(visible(n))}\n" for n in notices)
    return said + "".join(
        (omitted_line(item) if isinstance(item, Omitted) else line(item)) + "\n"
        for item in capped(diagnostics, max_per_file)
    )
