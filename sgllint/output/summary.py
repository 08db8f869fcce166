"""The lines after the findings in the ``full`` format (``concise`` stays
one finding per line, for grep and editors' problem matchers), ruff's shape: "All checks passed!" on a clean run, else the count by
severity, how many ``--fix`` would fix and how many more fixes are
available with ``--unsafe-fixes``; and ``--show-fixes``' enumeration."""

from __future__ import annotations

from collections import Counter
from typing import Sequence

from sgllint.model.diagnostic import Diagnostic, Severity
from sgllint.output.colour import paint
from sgllint.output.text import visible

CLEAN = "All checks passed!"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else ("es" if word.endswith("x") else "s"))


def summary(diagnostics: Sequence[Diagnostic], unsafe_fixes: bool = False, color: bool = False) -> str:
    if not diagnostics:
        return paint(CLEAN, "green", color) + "\n"
    by = Counter(d.severity for d in diagnostics)
    parts = [_plural(by[s], s.value) if s is not Severity.INFO else f"{by[s]} info" for s in (Severity.ERROR, Severity.WARNING, Severity.INFO) if by[s]]
    files = len({d.path for d in diagnostics})
    lines = [f"Found {_plural(len(diagnostics), 'diagnostic')} in {_plural(files, 'file')}: {', '.join(parts)}."]
    safe = sum(1 for d in diagnostics if d.fix is not None and d.fix.applicability == "safe")
    unsafe = sum(1 for d in diagnostics if d.fix is not None and d.fix.applicability != "safe")
    if unsafe_fixes and safe + unsafe:
        lines.append(paint(f"[*] {safe + unsafe} fixable with --fix --unsafe-fixes.", "cyan", color))
    else:
        if safe:
            lines.append(paint(f"[*] {safe} fixable with --fix.", "cyan", color))
        if unsafe:
            lines.append(f"{_plural(unsafe, 'fix')} available with --unsafe-fixes.")
    return "\n".join(lines) + "\n"


def fixed(before: Sequence[Diagnostic], after: Sequence[Diagnostic]) -> str:
    """``--show-fixes``: what the fixes removed, per file and code."""
    gone = Counter((d.path, d.code, d.name) for d in before) - Counter((d.path, d.code, d.name) for d in after)
    if not gone:
        return ""
    total = sum(gone.values())
    lines = [f"Fixed {_plural(total, 'diagnostic')}:"]
    for path in sorted({p for p, _, _ in gone}):
        lines.append(f"- {visible(path)}:")
        for (p, code, name), n in sorted(gone.items()):
            if p == path:
                lines.append(f"    {n} × {code} ({name})")
    return "\n".join(lines) + "\n"
