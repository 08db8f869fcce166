"""Applying fixes: ``sgllint check --fix`` / ``--unsafe-fixes`` / ``--diff``
and the LSP's quick fixes.

A `Fix` is a set of span edits (code-point offsets into the text the rule
saw). Per pass, fixes are taken in diagnostic order; a fix whose edits
overlap an edit already taken waits for the next pass, which re-lints the
changed files (at most `MAX_PASSES` passes). Edits are grouped by the file
they target (``edit.span.source.path``: a ``--config`` YAML file may be
edited for a finding reported in the launch that names it) and applied
from the end of the file backwards.

Three things keep the files intact:

* `normalize` turns an edit of a token into the edit a careful human would
  make in that format: a replacement of a whole quoted literal (``"--tp"``)
  replaces only what is inside the quotes; a deletion of list elements
  (``"--port", "30000"``) takes its comma with it; a deletion of a whole
  continued shell line (``  --port 30000 \\``) or YAML sequence item takes
  the line with it.
* a file that parsed with its format's own parser before a pass (Python
  ``ast``, ``yaml.safe_load_all``, ``tomllib``, tree-sitter-bash without
  ERROR or MISSING nodes) must still parse after it; a fix that would break
  it is dropped, not applied. No program is run to decide it.
* `write_edits` changes no byte outside the edits: the encoding (a file that
  is not valid UTF-8 is edited byte for byte), a BOM, CR/CRLF line ends,
  trailing bytes and the file mode stay. It replaces the file atomically,
  never writes through a symbolic link, and the caller's ``refuse`` check
  keeps every write inside the project root (`sgllint.resolve.project`).
"""

from __future__ import annotations

import bisect
import codecs
import difflib
import os
import re
import stat
from dataclasses import dataclass, field
from typing import Callable, Iterable, Optional, Sequence

from sgllint.model.diagnostic import Diagnostic, Edit, Fix
from sgllint.model.facts import Source
from sgllint.resolve.project import replace_atomically

MAX_PASSES = 10

#: (start, end, content) in one file's current text
TextEdit = tuple[int, int, str]


def fixable(d: Diagnostic, unsafe: bool = False) -> bool:
    return d.fix is not None and (d.fix.applicability == "safe" or unsafe)


# ---------------------------------------------------------------------------
# Edit normalisation
# ---------------------------------------------------------------------------

_QUOTED = re.compile(r"""^(["'])(?:(?!\1)[^\\\n]|\\.)*\1$""", re.S)
#: formats whose launches may be bracketed, comma-separated lists (Python
#: and TOML arrays, YAML flow sequences, Dockerfile exec-form JSON)
_LIST_FORMATS = ("python", "yaml", "toml", "dockerfile", "markdown")


def _line_bounds(text: str, start: int, end: int) -> tuple[int, int, int]:
    """(start of ``start``'s line, end of ``end``'s line without its break,
    end including the break)."""
    ls = max(text.rfind("\n", 0, start), text.rfind("\r", 0, start)) + 1
    le = len(text)
    for ch in "\r\n":
        i = text.find(ch, end)
        if i >= 0:
            le = min(le, i)
    le_break = le
    if text.startswith("\r\n", le):
        le_break += 2
    elif le < len(text):
        le_break += 1
    return ls, le, le_break


def normalize(edit: Edit, fmt: Optional[str] = None) -> TextEdit:
    """The edit as applied: see the module docstring."""
    text = edit.span.source.text
    start, end, content = edit.span.start, edit.span.end, edit.content
    raw = text[start:end]
    if content and len(raw) >= 2 and _QUOTED.match(raw) and content[:1] not in ("'", '"'):
        return start + 1, end - 1, content  # replace inside the quotes only
    if content or end <= start:
        return start, end, content
    ls, le, le_break = _line_bounds(text, start, end)
    prefix, suffix = text[ls:start], text[end:le]
    dash = fmt == "yaml" and re.fullmatch(r"[ \t]*-[ \t]+", prefix) is not None
    if (prefix.strip() == "" or dash) and re.fullmatch(r"[ \t]*(\\[ \t]*)?", suffix):
        if "\\" in suffix or dash:
            return ls, le_break, ""  # the whole line goes
    if fmt in _LIST_FORMATS:
        before = re.search(r"[\[(,]\s*$", text[:start])
        after = re.match(r"\s*,\s*", text[end:])
        closing = re.match(r"\s*[\])]", text[end:])
        if before and after:
            return start, end + after.end(), ""
        if before and closing and before.group(0).startswith(","):
            return before.start(), end, ""
        if before:
            return start, end, content
    if prefix.strip() == "":
        m = re.match(r"[ \t]+", text[end:le])
        return start, end + (m.end() if m else 0), ""
    m = re.search(r"[ \t]+$", prefix)
    if m and (end == le or text[end] in " \t"):
        return ls + m.start(), end, ""
    return start, end, content


def fix_edits(fix: Fix, fmt_for: Optional[Callable[[str], Optional[str]]] = None) -> dict[str, list[TextEdit]]:
    """A fix's normalised edits, grouped by the path of the file they edit;
    ``fmt_for(path)`` names a file's format (default: detected by name)."""
    fmt_for = fmt_for or _format_of
    out: dict[str, list[TextEdit]] = {}
    for e in fix.edits:
        out.setdefault(e.span.source.path, []).append(normalize(e, fmt_for(e.span.source.path)))
    return out


def fix_spans(fix: Fix, fmt_for: Optional[Callable[[str], Optional[str]]] = None) -> list[tuple[Source, TextEdit]]:
    """Like `fix_edits`, with the `Source` each edit refers to (for the LSP)."""
    fmt_for = fmt_for or _format_of
    return [(e.span.source, normalize(e, fmt_for(e.span.source.path))) for e in fix.edits]


def _overlaps(a: TextEdit, b: TextEdit) -> bool:
    if a[0] < b[1] and b[0] < a[1]:
        return True
    # two insertions at one point, or an insertion at a replaced range's edge:
    # the order is ambiguous, so the second one waits for the next pass
    if a[0] == a[1] or b[0] == b[1]:
        return b[0] <= a[0] <= b[1] or a[0] <= b[0] <= a[1]
    return False


def apply_edits(text: str, edits: Iterable[TextEdit]) -> str:
    """Apply non-overlapping edits, from the end of the text backwards."""
    for start, end, content in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
        text = text[:start] + content + text[end:]
    return text


# ---------------------------------------------------------------------------
# Each format's own parser
# ---------------------------------------------------------------------------


def parses(text: str, fmt: Optional[str]) -> bool:
    """Whether ``text`` is valid in the format (True when no parser applies)."""
    try:
        if fmt == "python":
            import ast

            ast.parse(text)
        elif fmt == "yaml":
            import yaml

            list(yaml.safe_load_all(text))
        elif fmt == "toml":
            try:
                import tomllib
            except ImportError:  # pragma: no cover - Python 3.10
                import tomli as tomllib  # type: ignore[no-redef]
            tomllib.loads(text)
        elif fmt == "dockerfile":
            return _dockerfile_exec_forms_parse(text)
        elif fmt == "shell":
            return not _bash_syntax_errors(text)
    except Exception:
        return False
    return True


def _bash_syntax_errors(text: str) -> bool:
    """Whether tree-sitter-bash finds an ERROR or a MISSING node in ``text``
    (what the shell extractor reports as SGL000)."""
    from sgllint.formats.shell.syntax import _Bash, _parser_input

    return _Bash.load().parser.parse(_parser_input(text)).root_node.has_error


_EXEC_FORM = re.compile(r"^[ \t]*(?:CMD|ENTRYPOINT|RUN|SHELL)[ \t]+(\[.*)$", re.I)


def _dockerfile_exec_forms_parse(text: str) -> bool:
    """Docker reads an exec form (``CMD ["python", ...]``) that is not valid
    JSON as a shell command: every exec form must stay valid JSON."""
    import json

    logical = re.sub(r"\\[ \t]*\r?\n", " ", text)
    for line in logical.splitlines():
        m = _EXEC_FORM.match(line)
        if m:
            try:
                json.loads(m.group(1))
            except ValueError:
                return False
    return True


# ---------------------------------------------------------------------------
# The fix loop
# ---------------------------------------------------------------------------


@dataclass
class FixRun:
    """What a fix run did: the texts before and after, per path."""

    original: dict[str, str] = field(default_factory=dict)
    current: dict[str, str] = field(default_factory=dict)
    fixed: int = 0
    dropped: int = 0  # fixes refused because the file would not parse
    refused: dict[str, str] = field(default_factory=dict)  # path -> why it was not written

    def changed(self) -> list[str]:
        return sorted(p for p in self.current if self.current[p] != self.original[p])

    def diff(self) -> str:
        out = []
        for path in self.changed():
            a = self.original[path].splitlines(keepends=True)
            b = self.current[path].splitlines(keepends=True)
            for line in difflib.unified_diff(a, b, fromfile=f"a/{path}", tofile=f"b/{path}"):
                out.append(line if line.endswith(("\n", "\r")) else line + "\n\\ No newline at end of file\n")
        return "".join(out)


def _fix_key(d: Diagnostic) -> tuple:
    assert d.fix is not None
    return (d.code, d.path, d.span.text, d.message, tuple((e.span.path, e.span.text, e.content) for e in d.fix.edits))


def _text_of(result) -> Optional[str]:
    for d in result.diagnostics:
        if d.span.source.path == result.path:
            return d.span.source.text
    return None


#: ``write(path, text before, edits)``: save one pass's edits of a file
Writer = Callable[[str, str, list[TextEdit]], None]


def run_fixes(
    results: Sequence,
    relint: Callable[[str, str, Optional[str]], object],
    *,
    unsafe: bool = False,
    write: Optional[Writer] = None,
    refuse: Optional[Callable[[str], Optional[str]]] = None,
) -> tuple[FixRun, list]:
    """Fix until nothing fixable remains (or `MAX_PASSES`).

    ``results``: the `FileResult`s of the first lint. ``relint(path, text,
    fmt)`` lints a file's new text. ``write`` (`write_edits`), when given,
    saves each pass's edits (so a re-lint that reads a ``--config`` file from
    disk sees them); a file it fails to write keeps its text and gets no
    more fixes. ``refuse(path)`` names why a file must not be edited at all
    (outside the project, a symlink), or None. Both reasons end in
    ``run.refused``. A file's original text is the text its edits were
    computed on (``edit.span.source.text``), so stdin needs no re-read.
    Returns the run and the final results, in the order of ``results``.
    """
    run = FixRun()
    final = {r.path: r for r in results}
    order = [r.path for r in results]
    formats = {r.path: r.format for r in results}
    rejected: set[tuple] = set()
    writable = _WriteCheck(run, refuse)
    to_check = list(order)
    for _ in range(MAX_PASSES):
        chosen = _choose(run, final, to_check, formats, rejected, unsafe, writable)
        if not chosen:
            break
        before = dict(run.current)
        good, edits_by_file = _apply_checked(run, chosen, formats, rejected)
        failed = _write_pass(run, write, before, edits_by_file) if write is not None else set()
        applied = [i for i in good if not failed.intersection(chosen[i][1])]
        if not applied:
            break
        run.fixed += len(applied)
        changed = {t for t in edits_by_file if t not in failed and run.current[t] != before[t]}
        to_check = []
        for path in order:
            pending = any(fixable(d, unsafe) and _fix_key(d) not in rejected for d in final[path].diagnostics)
            if path in changed or pending:
                text = run.current.get(path, _text_of(final[path]))
                if text is None:
                    continue
                final[path] = relint(path, text, formats.get(path))
                to_check.append(path)
    return run, [final[p] for p in order]


class _WriteCheck:
    """``refuse`` asked once per path; refusals recorded in the run."""

    def __init__(self, run: FixRun, refuse: Optional[Callable[[str], Optional[str]]]):
        self.run, self.refuse, self.ok = run, refuse, set()

    def __call__(self, path: str) -> bool:
        if path in self.run.refused:
            return False
        if self.refuse is None or path in self.ok:
            return True
        reason = self.refuse(path)
        if reason is None:
            self.ok.add(path)
            return True
        self.run.refused[path] = reason
        return False


def _choose(run: FixRun, final, to_check, formats, rejected, unsafe, writable) -> list[tuple[Diagnostic, dict]]:
    """This pass's fixes, in diagnostic order: fixable, not rejected, every
    target writable, computed on the current text, overlapping none taken."""
    chosen: list[tuple[Diagnostic, dict[str, list[TextEdit]]]] = []
    taken: dict[str, list[TextEdit]] = {}
    for path in to_check:
        for d in final[path].diagnostics:
            if not fixable(d, unsafe) or _fix_key(d) in rejected:
                continue
            edits = fix_edits(d.fix, lambda t: formats.get(t) or _format_of(t))
            if not all(writable(t) for t in edits):
                continue
            stale = False
            for target in edits:
                source_text = next(e.span.source.text for e in d.fix.edits if e.span.path == target)
                if target not in run.current:
                    run.original[target] = run.current[target] = source_text
                if source_text != run.current[target]:
                    stale = True  # the edit was computed on older text
            if stale or any(_overlaps(a, b) for t, g in edits.items() for a in g for b in taken.get(t, [])):
                continue
            chosen.append((d, edits))
            for t, g in edits.items():
                taken.setdefault(t, []).extend(g)
    return chosen


def _write_pass(run: FixRun, write: Writer, before: dict, edits_by_file: dict) -> set[str]:
    """Write each edited file; a file that cannot be written gets its text
    back and a reason in ``run.refused``. Returns those files."""
    failed = set()
    for target in sorted(edits_by_file):
        if run.current[target] == before[target]:
            continue
        try:
            write(target, before[target], edits_by_file[target])
        except OSError as e:
            run.refused[target] = str(e) if isinstance(e, RefusedWrite) else f"cannot write it: {e.strerror or e}"
            run.current[target] = before[target]
            failed.add(target)
    return failed


def _apply_checked(run: FixRun, chosen, formats, rejected) -> tuple[list[int], dict[str, list[TextEdit]]]:
    """Apply the chosen fixes; per file, drop the fixes that would leave a
    file that parsed before unparsable. Returns the indices of the fixes
    applied and, per file, the edits applied to it."""
    by_file: dict[str, list[int]] = {}
    for i, (_, edits) in enumerate(chosen):
        for t in edits:
            by_file.setdefault(t, []).append(i)
    bad: set[int] = set()
    for target, idxs in by_file.items():
        fmt = formats.get(target) or _format_of(target)
        before = run.current[target]
        if not parses(before, fmt):
            continue
        if parses(apply_edits(before, [e for i in idxs for e in chosen[i][1][target]]), fmt):
            continue
        kept: list[int] = []
        for i in idxs:
            trial = kept + [i]
            if parses(apply_edits(before, [e for j in trial for e in chosen[j][1][target]]), fmt):
                kept.append(i)
            else:
                bad.add(i)
    for i in bad:
        rejected.add(_fix_key(chosen[i][0]))
        run.dropped += 1
    good = [i for i in range(len(chosen)) if i not in bad]
    edits_by_file: dict[str, list[TextEdit]] = {}
    for target in by_file:
        edits = [e for i in good for e in chosen[i][1].get(target, [])]
        edits_by_file[target] = edits
        run.current[target] = apply_edits(run.current[target], edits)
    return good, edits_by_file


# ---------------------------------------------------------------------------
# Writing: every byte outside the edits stays
# ---------------------------------------------------------------------------

_BOM = b"\xef\xbb\xbf"


class RefusedWrite(OSError):
    """A file `write_edits` will not write; the message says why."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class _DecodedBytes:
    """A file's bytes decoded as the engine decodes them (a BOM dropped,
    UTF-8 with each invalid sequence as one U+FFFD), with the byte offset of
    every character."""

    def __init__(self, data: bytes):
        self.data = data
        self.bom = len(_BOM) if data.startswith(_BOM) else 0
        # (first character, first byte, valid UTF-8 run or one replacement)
        self.segments: list[tuple[int, int, bool]] = []
        self.replaced = False
        parts: list[str] = []
        view = memoryview(data)[self.bom :]
        pos = chars = 0
        while pos < len(view):
            try:
                text = codecs.utf_8_decode(view[pos:], "strict", True)[0]
                bad = None
            except UnicodeDecodeError as exc:
                text = codecs.utf_8_decode(view[pos : pos + exc.start], "strict", True)[0]
                bad = exc
            if text:
                self.segments.append((chars, self.bom + pos, True))
                parts.append(text)
                chars += len(text)
            if bad is None:
                break
            self.segments.append((chars, self.bom + pos + bad.start, False))
            parts.append("\ufffd")
            chars += 1
            pos += bad.end
            self.replaced = True
        self.text = "".join(parts)
        self._starts = [seg[0] for seg in self.segments]

    def byte_offsets(self, offsets: list[int]) -> list[int]:
        """Byte offsets of ascending character offsets (linear in the text)."""
        out = []
        seg_index, done_char, done_byte = -1, 0, self.bom
        for offset in offsets:
            if offset >= len(self.text):
                out.append(len(self.data))
                continue
            i = bisect.bisect_right(self._starts, offset) - 1
            first_char, first_byte, valid = self.segments[i]
            if not valid:
                out.append(first_byte)
                continue
            if i != seg_index:
                seg_index, done_char, done_byte = i, first_char, first_byte
            done_byte += len(self.text[done_char:offset].encode("utf-8"))
            done_char = offset
            out.append(done_byte)
        return out


def edited_bytes(data: bytes, before: str, edits: list[TextEdit]) -> bytes:
    """``data`` with ``edits`` (code-point offsets into ``before``, the text
    ``data`` decodes to) applied byte for byte. Raises `RefusedWrite` when
    ``data`` no longer decodes to ``before``, or when a file that is not
    valid UTF-8 would receive text other than ASCII (the result would mix
    two encodings)."""
    decoded = _DecodedBytes(data)
    if decoded.text != before:
        raise RefusedWrite("it changed on disk since it was linted")
    ordered = sorted(edits, key=lambda e: (e[0], e[1]))
    if decoded.replaced and not all(content.isascii() for _, _, content in ordered):
        raise RefusedWrite("it is not valid UTF-8, and the fix would write other text than ASCII into it")
    points = sorted({p for start, end, _ in ordered for p in (start, end)})
    at = dict(zip(points, decoded.byte_offsets(points)))
    out, done = [], 0
    for start, end, content in ordered:
        out += [data[done : at[start]], content.encode("utf-8")]
        done = at[end]
    out.append(data[done:])
    return b"".join(out)


def write_edits(path: str, before: str, edits: list[TextEdit]) -> None:
    """Write ``edits`` into the file at ``path`` (see `edited_bytes`): read
    without following a symbolic link, replaced atomically (a hard link to
    the old contents keeps them), with the old mode (and owner, where
    allowed). Raises `RefusedWrite` or OSError."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError as e:
        if os.path.islink(path):
            raise RefusedWrite("it is a symbolic link; sgllint writes only the file itself") from None
        raise e
    with os.fdopen(fd, "rb") as f:
        info = os.fstat(f.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise RefusedWrite("it is not a regular file")
        data = f.read()
    replace_atomically(path, edited_bytes(data, before, edits), like=info)


def _format_of(path: str) -> Optional[str]:
    from sgllint.formats.registry import detect_format

    return detect_format(path)
