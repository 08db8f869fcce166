"""Literal credentials in a linted file, as SGL502 reports them: apart from
`sgllint.semantics.deployment` because every file with a launch is searched
for them, with or without a container around it."""

from __future__ import annotations

from dataclasses import dataclass

from sgllint.model.facts import FileFacts, Span
from sgllint.model.secrets import find_secrets, mask


@dataclass(frozen=True)
class SecretFinding:
    span: Span  # the literal value, nothing around it
    what: str  # "a Hugging Face token", "a credential"
    shown: str  # the masked value


def _kind_of(value: str) -> str:
    if value.startswith("hf_"):
        return "a Hugging Face token"
    if value.startswith("sk-"):
        return "an API key"
    if value.startswith(("ghp_", "gho_", "ghu_", "ghs_", "ghr_")):
        return "a GitHub token"
    if value.startswith("AKIA"):
        return "an AWS access key id"
    return "a credential"


def secret_findings(facts: FileFacts) -> list[SecretFinding]:
    """Literal credentials in one file (`sgllint.model.secrets.find_secrets`:
    the same function that hides them in every code frame, so what is
    reported is never shown)."""
    text = facts.source.text
    return [SecretFinding(Span(facts.source, a, b), _kind_of(text[a:b]), mask(text[a:b])) for a, b in find_secrets(text)]
