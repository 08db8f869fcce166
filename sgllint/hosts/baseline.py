"""A baseline: the findings a tree has today, recorded so that only new ones
are reported (``--write-baseline FILE``, then ``--baseline FILE``).

A finding is recorded by a fingerprint that survives unrelated edits:
its code, its file (relative to the project root), its launch normalised
(the command or call up to its first option, whitespace and line
continuations collapsed, and the model it serves) and the flagged text,
plus its index among findings with the same four, in file order. No line
number or column: inserting lines above a finding, reformatting the
launch or adding other flags to it keep the fingerprint.

Entries no current finding matches are *stale* (the finding was fixed or
its file removed); ``--show-stale-baseline`` lists them. The file is JSON::

    {"sgllint_baseline": 1,
     "findings": [{"fingerprint": "...", "code": "SGL101", "path": "serve.sh",
                   "message": "..."}, ...]}
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Sequence

from sgllint.model.diagnostic import Diagnostic
from sgllint.model.rule import INTERNAL_ERROR

FORMAT = 1
#: the most characters of a launch's head that enter its fingerprint
HEAD_CHARS = 200


class BaselineError(Exception):
    pass


def _relative(path: str, root: Optional[str]) -> str:
    absolute = os.path.abspath(path)
    if root:
        try:
            rel = os.path.relpath(absolute, os.path.abspath(root))
        except ValueError:
            rel = absolute
        if not rel.startswith(os.pardir):
            return Path(rel).as_posix()
    return Path(path).as_posix()


def launch_head(text: str) -> str:
    """``python -m sglang.launch_server`` of a launch's text, ``sgl.Engine``
    of a call: up to its first option or parenthesis, whitespace and ``\\``
    line continuations collapsed."""
    flat = " ".join(text.replace("\\\r\n", " ").replace("\\\n", " ").split())
    m = re.search(r"\s-{1,2}[\w]|\(", flat)
    return (flat[: m.start()] if m else flat)[:HEAD_CHARS].strip()


def _parts(d: Diagnostic, root: Optional[str]) -> tuple[str, str, str, str]:
    echo = getattr(d.span.source, "echo", True)
    launch = ""
    if d.launch_span is not None and echo:
        launch = launch_head(d.launch_span.text)
    model = (d.context or {}).get("model") if isinstance(d.context, dict) else None
    if model:
        launch += f" [{model}]"
    flagged = " ".join(d.span.text.split()) if echo else ""
    return d.code, _relative(d.path, root), launch, flagged


def fingerprints(diagnostics: Sequence[Diagnostic], root: Optional[str]) -> list[str]:
    """One fingerprint per finding, in the given (file) order."""
    seen: Counter = Counter()
    out = []
    for d in diagnostics:
        key = _parts(d, root)
        n = seen[key]
        seen[key] += 1
        data = "\0".join((*key, str(n))).encode("utf-8", "surrogatepass")
        out.append(hashlib.sha256(data).hexdigest()[:32])
    return out


#: sgllint's own failure is never accepted into a baseline
NEVER = INTERNAL_ERROR.code


def write(path: str, diagnostics: Sequence[Diagnostic], root: Optional[str]) -> int:
    diagnostics = [d for d in diagnostics if d.code != NEVER]
    items = [
        {"fingerprint": fp, "code": d.code, "path": _relative(d.path, root), "message": d.message}
        for d, fp in zip(diagnostics, fingerprints(diagnostics, root))
    ]
    from sgllint.output.text import json_text

    Path(path).write_text(json_text({"sgllint_baseline": FORMAT, "findings": items}) + "\n", encoding="utf-8")
    return len(items)


@dataclass
class Applied:
    new: list[Diagnostic]  # findings the baseline does not hold
    known: int  # findings it holds
    stale: list[dict]  # its entries no finding matched


def load(path: str) -> list[dict]:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BaselineError(f"{path}: no such baseline file (write one with --write-baseline {path})") from None
    except (OSError, UnicodeDecodeError, ValueError) as e:
        raise BaselineError(f"{path}: not a baseline file: {e}") from None
    if not isinstance(data, dict) or data.get("sgllint_baseline") != FORMAT or not isinstance(data.get("findings"), list):
        raise BaselineError(f"{path}: not an sgllint baseline (version {FORMAT})")
    entries = [e for e in data["findings"] if isinstance(e, dict) and isinstance(e.get("fingerprint"), str)]
    return entries


def apply(entries: list[dict], diagnostics: Sequence[Diagnostic], root: Optional[str]) -> Applied:
    """Split ``diagnostics`` into new ones and ones the baseline holds."""
    remaining = Counter(e["fingerprint"] for e in entries)
    new = []
    known = 0
    for d, fp in zip(diagnostics, fingerprints(diagnostics, root)):
        if remaining[fp] > 0 and d.code != NEVER:
            remaining[fp] -= 1
            known += 1
        else:
            new.append(d)
    stale = []
    for e in entries:
        if remaining[e["fingerprint"]] > 0:
            remaining[e["fingerprint"]] -= 1
            stale.append(e)
    return Applied(new, known, stale)
