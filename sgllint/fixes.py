"""Applying fixes: ``sgllint check --fix`` / ``--unsafe-fixes`` / ``--diff``
and the LSP's quick fixes.

A `Fix` is a set of span edits (code-point offsets into the text the rule
saw). Per pass, fixes are taken in diagnostic order; a fix whose edits
overlap an edit already taken waits for the next pass, which re-lints the
changed files (at most `MAX_PASSES` passes). Edits are grouped by the file
they target (``edit.span.source.path``: a ``--config`` YAML file may be
edited for a finding reported in the launch that names it) and applied
from the end of the file backwards.

Two things keep the files intact:

* `normalize` turns an edit of a token into the edit a careful human would
  make in that format: a replacement of a whole quoted literal (``"--tp"``)
  replaces only what is inside the quotes; a deletion of list elements
  (``"--port", "30000"``) takes its comma with it; a deletion of a whole
  continued shell line (``  --port 30000 \\``) or YAML sequence item takes
  the line with it.
* a file that parsed with its format's own parser before a pass (Python
  ``ast``, ``yaml.safe_load_all``, ``tomllib``, ``bash -n``) must still
  parse after it; a fix that would break it is dropped, not applied.
"""

from __future__ import annotations

import difflib
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from typing import Callable, Iterable, Optional, Sequence

from sgllint.diagnostic import Diagnostic, Edit, Fix
from sgllint.model import Source

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
            bash = shutil.which("bash")
            if bash is None:
                return True
            proc = subprocess.run([bash, "-n"], input=text.encode("utf-8", "surrogatepass"), capture_output=True, timeout=30)
            return proc.returncode == 0
    except Exception:
        return False
    return True


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


def run_fixes(
    results: Sequence,
    relint: Callable[[str, str, Optional[str]], object],
    *,
    unsafe: bool = False,
    write: Optional[Callable[[str, str], None]] = None,
) -> tuple[FixRun, list]:
    """Fix until nothing fixable remains (or `MAX_PASSES`).

    ``results``: the `FileResult`s of the first lint. ``relint(path, text,
    fmt)`` lints a file's new text. ``write(path, text)``, when given, saves
    each pass's changes (so a re-lint that reads a ``--config`` file from
    disk sees them). A file's original text is the text its edits were
    computed on (``edit.span.source.text``), so stdin needs no re-read.
    Returns the run and the final results, in the order of ``results``.
    """
    run = FixRun()
    final = {r.path: r for r in results}
    order = [r.path for r in results]
    formats = {r.path: r.format for r in results}
    rejected: set[tuple] = set()
    to_check = list(order)
    for _ in range(MAX_PASSES):
        chosen: list[tuple[Diagnostic, dict[str, list[TextEdit]]]] = []
        taken: dict[str, list[TextEdit]] = {}
        for path in to_check:
            for d in final[path].diagnostics:
                if not fixable(d, unsafe) or _fix_key(d) in rejected:
                    continue
                edits = fix_edits(d.fix, lambda t: formats.get(t) or _format_of(t))
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
        if not chosen:
            break
        applied, changed = _apply_checked(run, chosen, formats, rejected)
        if not applied:
            break
        run.fixed += applied
        if write is not None:
            for t in changed:
                write(t, run.current[t])
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


def _apply_checked(run: FixRun, chosen, formats, rejected) -> tuple[int, set[str]]:
    """Apply the chosen fixes; per file, drop the fixes that would leave a
    file that parsed before unparsable. Returns how many were applied and
    the paths whose text changed."""
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
    changed = set()
    for target in by_file:
        edits = [e for i in good for e in chosen[i][1].get(target, [])]
        new = apply_edits(run.current[target], edits)
        if new != run.current[target]:
            changed.add(target)
        run.current[target] = new
    return len(good), changed


def _format_of(path: str) -> Optional[str]:
    from sgllint.extract import detect_format

    return detect_format(path)
