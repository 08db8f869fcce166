"""A rule's documentation rendered from its class: the docstring after the
summary line and the VALID/INVALID examples, as the Markdown section that
`sgllint rule CODE`, docs/rules.md and SARIF's rule help all show. Part of
the model (rule metadata as text) so that output formats need no host."""

from __future__ import annotations

import re

FENCE = re.compile(r"^\s*(```|~~~)")


def _demote(markdown: str, levels: int = 1) -> str:
    """Every heading ``levels`` deeper, code blocks left alone (a ``#``
    comment in a shell example is no heading)."""
    out, fenced = [], False
    for line in markdown.splitlines():
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced and line.startswith("#"):
            line = "#" * levels + line
        out.append(line)
    return "\n".join(out)


def explanation(rule) -> str:
    """The rule's documentation (its docstring after the summary line) and
    its examples, as Markdown with ``###`` section headings."""
    doc = rule.doc().strip()
    body = doc.split("\n", 1)[1].strip() if "\n" in doc else ""
    parts = [_demote(body)] if body else []
    examples = []
    for ex in list(getattr(rule, "VALID", [])) + list(getattr(rule, "INVALID", [])):
        kind = "valid" if ex.valid else "invalid"
        at = f" (reported at `{ex.at if isinstance(ex.at, str) else ex.at[0]}`)" if not ex.valid and ex.at else ""
        version = f" [SGLang {ex.sglang}]" if ex.sglang else ""
        fence = "````" if "```" in ex.source else "```"
        examples.append(f"#### {kind} ({ex.fmt}){version}{at}\n\n{fence}{ex.fmt}\n{ex.source.rstrip()}\n{fence}")
    if examples:
        parts.append("### Examples (run as tests)\n\n" + "\n\n".join(examples))
    return "\n\n".join(parts)


def severity_label(rule) -> str:
    """The severity column of the rule tables: "removed" for a removed code."""
    return "removed" if getattr(rule, "removed", False) else rule.severity.value


def rule_section(rule) -> str:
    """The rule's section of docs/rules.md, without its anchor: what
    `sgllint rule CODE` prints."""
    if getattr(rule, "removed", False):
        head = f"## {rule.code} {rule.name}\n\n{rule.summary()}\n"
    else:
        head = f"## {rule.code} {rule.name}\n\nSeverity: {rule.severity.value}. {rule.summary()}\n"
    body = explanation(rule)
    return head + ("\n" + body.rstrip() + "\n" if body else "")
