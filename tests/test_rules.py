"""Every rule's VALID/INVALID examples, its docs, and its metadata."""

from __future__ import annotations

from pathlib import Path

import pytest

from sgllint.formats.registry import supported_formats
from sgllint.model.rule import DOC_SECTIONS, Rule, builtin_rules, builtin_rules_dir, iter_examples
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


def _evaluator_gate(rule: type[Rule], example) -> None:
    """Rules built on SGLang's derived validation (``needs_evaluator``, SGL400/SGL401) have examples
    only the evaluator can decide: skipped while ``sgllint.semantics.validation`` is not installed or
    not ready for linting (``LINT_READY``, see ``launch_validation.evaluator``),
    and (invalid ones) while it cannot decide that launch yet (its verdict says why)."""
    if not getattr(rule, "needs_evaluator", False):
        return
    from sgllint.engine.pipeline import Options, lint_source
    from sgllint.engine.config import Config
    from sgllint.semantics import launch_validation as lv

    if lv.evaluator() is None:
        pytest.skip("needs sgllint.semantics.validation (issue 17): not installed, or not LINT_READY")
    if not example.valid:
        res = lint_source(example.filename, example.source, Options(config=Config(), sglang_version=example.sglang,
                                                                    use_environment=False, rules=[]))
        for launch in res.launches:
            v = lv.verdict(launch)
            if v is not None and v.degraded and v.rejection is None:
                pytest.skip(f"the evaluator cannot decide this launch yet: {v.degraded}")


@pytest.mark.parametrize("rule,example", EXAMPLES)
def test_example(rule: type[Rule], example):
    _evaluator_gate(rule, example)
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
    _evaluator_gate(rule, example)
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


def test_fix_expectations_are_enforced():
    """`fix=` is checked both ways: a fixable example must declare its fix,
    with the text and the applicability the rule produces."""
    from dataclasses import replace

    rule = next(r for r in RULES if r.code == "SGL109")
    ex = next(e for e in rule.INVALID if e.has_fix)
    assert check_example(rule, ex) is None
    assert "declare it with fix=" in str(check_example(rule, replace(ex, fix=None, fix_to=None)))
    assert "expected the fix to give" in str(check_example(rule, replace(ex, fix=ex.fixed + " --port 1", fix_to=None)))
    assert "expected the fix to give" in str(check_example(rule, replace(ex, fix=None, fix_to="--tp-size --port 1")))
    assert "expected a unsafe fix" in str(check_example(rule, replace(ex, unsafe=True)))
    unfixable = next(r for r in RULES if r.code == "SGL110")
    assert "got none" in str(check_example(unfixable, replace(unfixable.INVALID[0], fix="x")))
    fixable = {r.code for r in RULES for e in r.INVALID if e.has_fix}
    assert {"SGL001", "SGL101", "SGL107", "SGL108", "SGL109", "SGL201", "SGL202", "SGL203", "SGL204"} <= fixable


def test_fix_to_is_the_at_text_replaced():
    from sgllint.model.rule import Invalid

    ex = Invalid.sh("python -m sglang.launch_server --model-path m --tp 2", at="--tp", fix_to="--tp-size")
    assert ex.has_fix and ex.fixed == "python -m sglang.launch_server --model-path m --tp-size 2"
    with pytest.raises(TypeError, match="not both"):
        Invalid.sh("x --tp 2", at="--tp", fix="x --tp-size 2", fix_to="--tp-size")
    with pytest.raises(TypeError, match="give at="):
        Invalid.sh("x --tp 2", fix_to="--tp-size")
