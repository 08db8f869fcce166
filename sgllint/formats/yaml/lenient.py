"""Launches in a template no YAML parser can read, found line by line.

Used only when a file with ``{{ ... }}`` is not valid YAML even with its
template expressions blanked. Two shapes are recognised:

* runs of list items (``- "--tp"``, ``- {{ .Values.x | quote }}``) and flow
  lists (``command: ["python3", "-m", ...]``), where a ``command:`` run and
  the ``args:`` run right after it form one argv;
* a line that mentions a launcher outside a list item (``command: python3
  -m sglang.launch_server``, a line of a ``run: |`` block), read as shell
  together with its continuation lines.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional

from sgllint.formats.yaml.load import TEMPLATE_FILLER, blank_templates, comments_by_line
from sgllint.formats.yaml.scalars import MappedText, decode_quoted
from sgllint.formats.yaml.words import LAUNCH_TEXT, Mode, Word, opaque_reasons, prepare_script, unplaceholder, word_from_scalar
from sgllint.model.facts import FileFacts, LaunchSite, Source, Span
from sgllint.model.kinds import LaunchForm
from sgllint.model.launchers import find_launch

_ITEM = re.compile(r"([ \t]*)-[ \t]+(\S(?:.*[^ \t])?)[ \t]*\Z")
_KEY = re.compile(r"([ \t]*)(?:-[ \t]+)?([\w.\-]+):[ \t]*((?:.*[^ \t])?)[ \t]*\Z")
_FLOW_LIST = re.compile(r"\[(.*)\]\Z")
_FLOW_ITEM = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\']|\'\')*\'|[^,\s](?:[^,]*[^,\s])?(?=\s*(?:,|\Z))')
_MODE = Mode(kubernetes=True)


@dataclass
class _Run:
    """Consecutive list items at one indentation, after a key line."""

    key: Optional[str]
    key_indent: int
    indent: int
    words: list = field(default_factory=list)
    end_line: int = 0


def extract_lines(source: Source, facts: FileFacts) -> None:
    facts.comments += comments_by_line(source.text)
    blanked, _ = blank_templates(source.text)
    lines = _lines(source.text)
    runs = _list_runs(source, blanked, lines)
    used_lines: set[int] = set()
    for argv in _joined(runs):
        if _argv_launch(source, facts, argv):
            used_lines.update(range(argv[0][0], argv[0][1] + 1))
    for n, (start, end) in enumerate(lines):
        line = blanked[start:end]
        if n in used_lines or not LAUNCH_TEXT.search(line) or _item(line):
            continue
        _shell_lines(source, facts, blanked, lines, n)


def _lines(text: str) -> list[tuple[int, int]]:
    out = []
    pos = 0
    for line in text.splitlines(keepends=True):
        out.append((pos, pos + len(line.rstrip("\r\n"))))
        pos += len(line)
    return out


def _strip_comment(line: str) -> str:
    quote = None
    for i, ch in enumerate(line):
        if quote:
            quote = None if ch == quote else quote
        elif ch in "\"'" and (i == 0 or line[i - 1] in " \t[,-:"):
            quote = ch
        elif ch == "#" and i > 0 and line[i - 1] in " \t":
            return line[:i].rstrip()
    return line


def _list_runs(source: Source, blanked: str, lines: list) -> list[tuple[tuple[int, int], _Run]]:
    """Every run of list items (with the line range it spans)."""
    runs: list[tuple[tuple[int, int], _Run]] = []
    current: Optional[_Run] = None
    first = 0
    key, key_indent = None, -1
    for n, (start, end) in enumerate(lines):
        line = _strip_comment(blanked[start:end])
        if not line.strip(" \t" + TEMPLATE_FILLER):
            continue  # blank, comment or a blanked template statement
        item = _item(line)
        if item and (current is None or item[0] == current.indent):
            indent, value_start, value_end = item
            if current is None:
                current, first = _Run(key, key_indent, indent), n
            current.words.append(_word(source, start + value_start, start + value_end))
            current.end_line = n
            continue
        if current is not None:
            runs.append(((first, current.end_line), current))
            current = None
        keyed = _KEY.match(line)
        key, key_indent = (keyed.group(2), len(keyed.group(1))) if keyed else (None, -1)
        flow = _FLOW_LIST.search(keyed.group(3)) if keyed else None
        if flow:
            run = _Run(key, key_indent, key_indent + 1, end_line=n)
            base = start + keyed.start(3) + flow.start(1)
            for m in _FLOW_ITEM.finditer(flow.group(1)):
                run.words.append(_word(source, base + m.start(), base + m.end()))
            runs.append(((n, n), run))
    if current is not None:
        runs.append(((first, current.end_line), current))
    return runs


def _item(line: str) -> Optional[tuple[int, int, int]]:
    """(indentation, value start, value end) of a list item line. A template
    in front of the dash (``{{ if .x }}- --flag{{ end }}``) makes the item
    conditional but keeps it in its list."""
    indent = len(line) - len(line.lstrip(" \t"))
    m = _ITEM.match(" " * indent + line[indent:].lstrip(TEMPLATE_FILLER + " \t"))
    if not m:
        return None
    offset = len(line) - len(m.string)
    value = m.group(2).rstrip(TEMPLATE_FILLER + " \t") or m.group(2)
    return indent, m.start(2) + offset, m.start(2) + offset + len(value)


def _word(source: Source, start: int, end: int) -> Word:
    """A list item as one word: quotes removed, templates unknown."""
    text = source.text
    mt = None
    if end - start >= 2 and text[start] in "\"'" and text[end - 1] == text[start]:
        mt = decode_quoted(text, start, end)
    if mt is None:
        mt = MappedText()
        mt.add_run(text[start:end], start)
    return word_from_scalar(mt, Span(source, start, end), {}, _MODE)


def _joined(runs: list) -> list[tuple[tuple[int, int], list[Word]]]:
    """Runs as argvs: ``command:`` followed by a sibling ``args:`` is one."""
    out = []
    i = 0
    while i < len(runs):
        (first, last), run = runs[i]
        words = list(run.words)
        if run.key == "command" and i + 1 < len(runs):
            (_, next_last), following = runs[i + 1]
            if following.key == "args" and following.key_indent == run.key_indent:
                words += following.words
                last = next_last
                i += 1
        out.append(((first, last), words))
        i += 1
    return out


def _argv_launch(source: Source, facts: FileFacts, argv: tuple) -> bool:
    _, words = argv
    values = [w.token.value for w in words]
    match = find_launch(values)
    if match is None:
        for word in words:  # sh -c "python3 -m sglang.launch_server ..."
            if word.text is not None and LAUNCH_TEXT.search(word.text.text):
                _shell(source, facts, word.text)
                return True
        return False
    launcher, args = words[match.start : match.args_start], words[match.args_start :]
    entry_span = launcher[0].token.span.cover(launcher[-1].token.span)
    facts.sites.append(
        LaunchSite(
            source=source,
            span=entry_span.cover(args[-1].token.span) if args else entry_span,
            entry=match.entry,
            entry_span=entry_span,
            form=LaunchForm.ARGV,
            tokens=[w.token for w in args],
            opaque=opaque_reasons(args) + ["a template this linter cannot render decides the rest of the file"],
        )
    )
    return True


def _shell_lines(source: Source, facts: FileFacts, blanked: str, lines: list, n: int) -> None:
    """The launch line (without a ``key:`` in front) and the lines that
    continue it: after a ``\\``, or more indented flag lines of a folded
    block, which are joined with spaces."""
    start, end = lines[n]
    line = blanked[start:end]
    launch_at = LAUNCH_TEXT.search(line).start()
    keyed = _KEY.match(line)
    begin = start + (keyed.start(3) if keyed and keyed.start(3) <= launch_at else len(line) - len(line.lstrip()))
    indent = len(line) - len(line.lstrip())
    mt = MappedText()
    mt.add_run(source.text[begin:end], begin)
    k = n + 1
    while k < len(lines):
        previous = blanked[lines[k - 1][0] : lines[k - 1][1]]
        following = blanked[lines[k][0] : lines[k][1]]
        continued = previous.rstrip().endswith("\\")
        deeper = following.strip().startswith("-") and len(following) - len(following.lstrip()) > indent
        if not (continued or deeper) or not following.strip():
            break
        brk = lines[k - 1][1]
        mt.add("\n" if continued else " ", brk, lines[k][0])
        s, e = lines[k]
        mt.add_run(source.text[s:e], s)
        k += 1
    _shell(source, facts, mt)


def _shell(source: Source, facts: FileFacts, mt: MappedText) -> None:
    from sgllint.formats.shell.extractor import extract_embedded

    script = prepare_script(mt, {}, _MODE, source)
    if not len(script.text):
        return
    before = len(facts.sites)
    extract_embedded(script.text.text, script.text.to_map(source, script.text.ends[-1]), facts, script.env)
    for site in facts.sites[before:]:
        site.tokens = [unplaceholder(t) for t in site.tokens]
        site.opaque.append("a template this linter cannot render decides the rest of the file")
