"""Run a rule's VALID/INVALID examples (used by the test suite, and public so
that users' own rule directories can be tested the same way)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from sgllint.engine.config import Config
from sgllint.engine.fixes import apply_edits, fix_edits
from sgllint.engine.pipeline import Options, lint_source
from sgllint.model.rule import INTERNAL_ERROR, Example, Rule

_FENCE_RE = re.compile(r"^## (Example|Use instead)\s*\n+```(\w+)\n(.*?)\n```", re.M | re.S)
FENCE_FORMATS = {"sh": "sh", "bash": "sh", "shell": "sh", "python": "py", "py": "py", "yaml": "yaml", "toml": "toml"}


def lint_example(example: Example, rules: Optional[list[type[Rule]]] = None, select_all: bool = False):
    options = Options(
        config=Config(),
        sglang_version=example.sglang,
        use_environment=False,
        rules=rules,
    )
    return lint_source(example.filename, example.source, options).diagnostics


@dataclass
class Mismatch:
    reason: str

    def __str__(self) -> str:
        return self.reason


def check_example(rule: type[Rule], example: Example) -> Optional[Mismatch]:
    """None when the example behaves as declared, else what went wrong."""
    diags = [d for d in lint_example(example, rules=[rule]) if d.code in (rule.code, INTERNAL_ERROR.code)]
    shown = "\n".join(f"  {d.span.start_line_col()} {d.code} {d.message} (at {d.span.text!r})" for d in diags)
    if example.valid:
        return Mismatch(f"expected no {rule.code}, got:\n{shown}") if diags else None
    if len(diags) != example.count:
        return Mismatch(f"expected {example.count} {rule.code}, got {len(diags)}:\n{shown}")
    if example.at is not None:
        start, end = example.at_span()
        primary = diags[0].span
        if (primary.start, primary.end) != (start, end):
            return Mismatch(f"expected the span to cover {example.source[start:end]!r} at {start}, got {primary.text!r} at {primary.start}")
    if example.message is not None and not any(example.message in d.message or example.message in d.help for d in diags):
        return Mismatch(f"expected {example.message!r} in the message or help, got:\n{shown}")
    return check_fix(rule, example, diags)


def fixed_text(example: Example, diags) -> Optional[str]:
    """The example's text after the fixes of ``diags`` (None: no fix)."""
    fixes = [d.fix for d in diags if d.fix is not None]
    if not fixes:
        return None
    edits = [e for fix in fixes for e in fix_edits(fix).get(example.filename, [])]
    return apply_edits(example.source, edits)


def check_fix(rule: type[Rule], example: Example, diags) -> Optional[Mismatch]:
    """An invalid example's fix: declared (``fix=`` or ``fix_to=``) exactly when the rule
    offers one, with the declared text and applicability (Fixit's model)."""
    got = fixed_text(example, diags)
    if not example.has_fix:
        if got is not None:
            return Mismatch(f"{rule.code} offers a fix here: declare it with fix={got!r}")
        return None
    if got is None:
        return Mismatch(f"expected a fix giving {example.fixed!r}, got none")
    if got != example.fixed:
        return Mismatch(f"expected the fix to give\n{example.fixed}\ngot\n{got}")
    want = "unsafe" if example.unsafe else "safe"
    kinds = {d.fix.applicability for d in diags if d.fix is not None}
    if kinds != {want}:
        return Mismatch(f"expected a {want} fix, got {sorted(kinds)}")
    return None


def doc_examples(rule: type[Rule]) -> list[tuple[str, Example]]:
    """The docstring's "Example" and "Use instead" code blocks, as examples:
    the documentation is executed too, so it cannot drift."""
    out = []
    for m in _FENCE_RE.finditer(rule.doc()):
        fmt = FENCE_FORMATS.get(m.group(2))
        if fmt is None:
            continue
        out.append((m.group(1), Example(code=m.group(3) + "\n", fmt=fmt, valid=m.group(1) == "Use instead", at=None)))
    return out
