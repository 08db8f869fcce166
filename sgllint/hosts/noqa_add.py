"""``sgllint check --add-noqa``: a ``noqa`` comment for every current
finding, in the format's own comment syntax, so a tree can adopt sgllint and
fix its findings later.

Where a comment goes, in order of preference, for each finding:

1. the first line of its launch (a multi-line launch gets one comment for
   all its findings), as a trailing ``# noqa: SGL101, SGL109``;
2. the finding's own line;
3. the launch's last line (a shell command continued with ``\\`` can take
   a comment only after its last word);
4. Dockerfile: a ``# noqa: ...`` line above the instruction; Markdown: an
   ``<!-- noqa: ... -->`` line above the fenced block.

A line that already has ``# noqa: CODES`` gets the new codes added to it.
No place is used unless linting the edited text proves that it silences the
finding and adds no finding (a comment after a ``\\`` would end the command;
one inside a Python string is no comment). So ``check`` after ``--add-noqa``
is clean, and a second ``--add-noqa`` finds nothing to add.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable, Optional

from sgllint.model.diagnostic import Diagnostic
from sgllint.model.rule import FILE_NOT_READ, INTERNAL_ERROR

#: an existing noqa comment on a line: its codes are extended
_NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*))?", re.I)
_MD_NOQA = re.compile(r"^\s*<!--\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*))?\s*-->\s*$", re.I)
_FENCE = re.compile(r"^\s*(```|~~~)")
#: codes a comment cannot silence: sgllint's own failure, a file not read
_NEVER = {INTERNAL_ERROR.code, FILE_NOT_READ.code}

Relint = Callable[[str], list[Diagnostic]]


@dataclass
class NoqaRun:
    added: int = 0  # comments written or extended
    files: int = 0  # files changed
    left: list[Diagnostic] = field(default_factory=list)  # no place silenced these
    refused: dict[str, str] = field(default_factory=dict)  # path -> why not written


@dataclass(frozen=True)
class Target:
    kind: str  # "trail" (a trailing comment), "md" / "docker" (a line above)
    line: int  # 0-based line index


class _Lines:
    def __init__(self, text: str):
        self.text = text
        self.starts = [0] + [m.end() for m in re.finditer(r"\r\n|\r|\n", text)]
        self.newline = "\r\n" if "\r\n" in text else "\n"

    def bounds(self, line: int) -> tuple[int, int]:
        start = self.starts[line]
        end = self.starts[line + 1] if line + 1 < len(self.starts) else len(self.text)
        while end > start and self.text[end - 1] in "\r\n":
            end -= 1
        return start, end

    def line(self, line: int) -> str:
        start, end = self.bounds(line)
        return self.text[start:end]

    def index(self, offset: int) -> int:
        import bisect

        return bisect.bisect_right(self.starts, offset) - 1


def _codes(existing: Optional[str], new: set[str]) -> str:
    have = [c.upper() for c in re.split(r"[\s,]+", existing or "") if c]
    return ", ".join(have + sorted(c for c in new if c not in have))


def edits_for(lines: _Lines, fmt: str, wanted: dict[Target, set[str]]) -> Optional[list[tuple[int, int, str]]]:
    """The text edits that put ``wanted`` codes at their targets (None when
    a target cannot take a comment)."""
    edits = []
    for target, codes in wanted.items():
        if not codes:
            continue
        text = lines.line(target.line)
        start, end = lines.bounds(target.line)
        if target.kind == "trail":
            found = _NOQA.search(text)
            if found is not None:
                if found.group("codes") is None:
                    return None  # a bare noqa already silences everything there
                a, b = start + found.start("codes"), start + found.end("codes")
                edits.append((a, b, _codes(found.group("codes"), codes)))
                continue
            kept = text.rstrip()
            if kept.endswith("\\") or not kept:
                return None  # a comment after a continuation would end the command
            at = start + len(kept)
            edits.append((at, at, f"  # noqa: {_codes(None, codes)}"))
        else:
            above = target.line - 1
            pattern = _MD_NOQA if target.kind == "md" else re.compile(r"^\s*" + _NOQA.pattern + r"\s*$", re.I)
            if above >= 0:
                found = pattern.match(lines.line(above))
                if found is not None and found.group("codes") is not None:
                    a, _ = lines.bounds(above)
                    edits.append((a + found.start("codes"), a + found.end("codes"), _codes(found.group("codes"), codes)))
                    continue
            indent = re.match(r"[ \t]*", text).group(0)
            comment = f"<!-- noqa: {_codes(None, codes)} -->" if target.kind == "md" else f"# noqa: {_codes(None, codes)}"
            edits.append((start, start, f"{indent}{comment}{lines.newline}"))
    return edits


def candidates(d: Diagnostic, lines: _Lines, fmt: str) -> list[Target]:
    here = lines.index(d.span.start)
    out: list[Target] = []
    if fmt == "markdown":
        line = here
        while line >= 0 and not _FENCE.match(lines.line(line)):
            line -= 1
        return [Target("md", line)] if line >= 0 else []
    launch = d.launch_span if d.launch_span is not None and d.launch_span.source is d.span.source else None
    if launch is not None:
        out.append(Target("trail", lines.index(launch.start)))
    out.append(Target("trail", here))
    if launch is not None:
        out.append(Target("trail", lines.index(max(launch.start, launch.end - 1))))
    if fmt == "dockerfile":
        first = lines.index(launch.start) if launch is not None else here
        out.append(Target("docker", first))
    return list(dict.fromkeys(out))


def _key(d: Diagnostic) -> tuple:
    return (d.code, d.message)


def suppress_file(text: str, fmt: str, found: list[Diagnostic], relint: Relint) -> tuple[list[tuple[int, int, str]], list[Diagnostic], int]:
    """(edits, findings left, comments) that silence ``found`` in ``text``."""
    from sgllint.engine.fixes import apply_edits

    lines = _Lines(text)
    todo = [d for d in found if d.code not in _NEVER]
    left = [d for d in found if d.code in _NEVER]
    before = Counter(_key(d) for d in relint(text))
    wanted: dict[Target, set[str]] = {}

    def proven(trial: dict[Target, set[str]], silenced: list[Diagnostic]) -> Optional[list]:
        edits = edits_for(lines, fmt, trial)
        if edits is None:
            return None
        after = Counter(_key(d) for d in relint(apply_edits(text, edits)))
        if after - before:
            return None  # the comment broke something: a new finding
        need = Counter(_key(d) for d in silenced)
        return edits if all(before[k] - after[k] >= n for k, n in need.items()) else None

    # first every finding at its first place, proven in one lint
    options = {id(d): candidates(d, lines, fmt) for d in todo}
    first: dict[Target, set[str]] = {}
    for d in todo:
        if options[id(d)]:
            first.setdefault(options[id(d)][0], set()).add(d.code)
    if todo and all(options[id(d)] for d in todo) and proven(first, todo) is not None:
        wanted = first
    else:  # place by place: the findings waiting for a place try it together
        step = {id(d): 0 for d in todo}
        pending = list(todo)
        while pending:
            groups: dict[Target, list[Diagnostic]] = {}
            for d in pending:
                if step[id(d)] < len(options[id(d)]):
                    groups.setdefault(options[id(d)][step[id(d)]], []).append(d)
                else:
                    left.append(d)
            pending = []
            for target, group in groups.items():
                trial = {t: set(c) for t, c in wanted.items()}
                trial.setdefault(target, set()).update(d.code for d in group)
                if proven(trial, group) is not None:
                    wanted = trial
                    continue
                for d in group:  # one at a time here, else the next place
                    single = {t: set(c) for t, c in wanted.items()}
                    single.setdefault(target, set()).add(d.code)
                    if len(group) > 1 and proven(single, [d]) is not None:
                        wanted = single
                    else:
                        step[id(d)] += 1
                        pending.append(d)
    edits = edits_for(lines, fmt, wanted) or []
    return edits, left, sum(1 for c in wanted.values() if c)


def add_noqa(results, relint_of: Callable[[str, str, str], list[Diagnostic]], refuse: Callable[[str], Optional[str]], write) -> NoqaRun:
    """Add the comments to every file of ``results`` (`engine.FileResult`s)."""
    run = NoqaRun()
    for r in results:
        own = [d for d in r.diagnostics if d.span.source.path == r.path]
        if not own or r.format is None:
            run.left += own
            continue
        text = own[0].span.source.text
        edits, left, comments = suppress_file(text, r.format, own, lambda t, r=r: relint_of(r.path, t, r.format))
        run.left += left
        if not edits:
            continue
        reason = refuse(r.path)
        if reason is None:
            try:
                write(r.path, text, edits)
            except OSError as e:
                reason = str(e.strerror or e)
        if reason is not None:
            run.refused[r.path] = reason
            run.left += [d for d in own if d not in left]
            continue
        run.added += comments
        run.files += 1
    return run
