"""Every rule's VALID/INVALID examples, its docs, and its metadata."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from sgllint.extract import supported_formats
from sgllint.rule import DOC_SECTIONS, Rule, builtin_rules, builtin_rules_dir, iter_examples
from sgllint.testing import check_example, doc_examples, lint_example

RULES = builtin_rules()
FORMAT_OF_EXAMPLE = {"sh": "shell", "py": "python", "yaml": "yaml", "toml": "toml", "dockerfile": "dockerfile", "md": "markdown"}


def _supported(fmt: str) -> bool:
    return FORMAT_OF_EXAMPLE[fmt] in supported_formats()


EXAMPLES = [
    pytest.param(rule, ex, id=test_id)
    for rule in RULES
    for test_id, ex in iter_examples(rule)
    if _supported(ex.fmt)
]


@pytest.mark.parametrize("rule,example", EXAMPLES)
def test_example(rule: type[Rule], example):
    problem = check_example(rule, example)
    assert problem is None, f"{rule.code} {'valid' if example.valid else 'invalid'} example:\n{example.source}\n{problem}"


DOC_EXAMPLES = [
    pytest.param(rule, ex, id=f"{rule.code}-doc-{kind.replace(' ', '-').lower()}")
    for rule in RULES
    for kind, ex in doc_examples(rule)
    if _supported(ex.fmt)
]


@pytest.mark.parametrize("rule,example", DOC_EXAMPLES)
def test_docstring_examples_behave_as_documented(rule, example):
    diags = [d for d in lint_example(example, rules=[rule]) if d.code == rule.code]
    if example.valid:
        assert diags == [], f"{rule.code}'s 'Use instead' block is flagged: {[d.message for d in diags]}"
    else:
        assert diags, f"{rule.code}'s 'Example' block is not flagged"


@pytest.mark.parametrize("rule", RULES, ids=[r.code for r in RULES])
def test_rule_metadata(rule):
    path = Path(__import__("sys").modules[rule.__module__].__file__)
    assert path.name == f"{rule.code.lower()}_{rule.name.replace('-', '_')}.py"
    doc = rule.doc()
    assert doc and not doc.splitlines()[0].startswith("#"), "the docstring starts with a one-line summary"
    for section in DOC_SECTIONS:
        assert f"## {section}" in doc, f"{rule.code} docs lack '## {section}'"
    assert [e for e in rule.VALID if e.valid], f"{rule.code} has no VALID example"
    assert [e for e in rule.INVALID if not e.valid], f"{rule.code} has no INVALID example"
    for ex in rule.INVALID:
        assert ex.at is not None or ex.count == 0, f"{rule.code}: every INVALID example names `at`"
    assert rule.severity is not None


def test_codes_and_names_unique():
    codes = [r.code for r in RULES]
    names = [r.name for r in RULES]
    assert len(codes) == len(set(codes))
    assert len(names) == len(set(names))


def test_rule_files_all_load():
    files = sorted(p.stem for p in builtin_rules_dir().glob("sgl*.py"))
    loaded = sorted(Path(__import__("sys").modules[r.__module__].__file__).stem for r in RULES)
    assert files == loaded


def test_stable_codes_present():
    """Codes fixed by the issues; external tools rely on them."""
    have = {r.code: r.name for r in RULES}
    expected = {
        "SGL000": "parse-error",
        "SGL001": "broken-line-continuation",
        "SGL101": "unknown-flag",
        "SGL102": "ambiguous-flag",
        "SGL103": "invalid-choice",
        "SGL104": "invalid-value",
        "SGL105": "missing-value",
        "SGL107": "deprecated-flag",
        "SGL108": "duplicate-flag",
        "SGL109": "abbreviated-flag",
        "SGL110": "missing-model-path",
    }
    for code, name in expected.items():
        assert have.get(code) == name
