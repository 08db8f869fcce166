"""Rules read launches, not syntax: every one-line shell INVALID example of
the flag-level rules, rewritten as a Python argv launch, gives the same code
at the same token (the string literal that holds it)."""

from __future__ import annotations

import shlex

import pytest

from sgllint.engine.pipeline import Options, lint_source
from sgllint.formats.registry import supported_formats
from sgllint.model.rule import builtin_rules

pytestmark = pytest.mark.skipif("python" not in supported_formats(), reason="no Python extractor")

FLAG_RULES = {"SGL101", "SGL102", "SGL103", "SGL104", "SGL105", "SGL106", "SGL107", "SGL108", "SGL109", "SGL110", "SGL111"}


def _cases():
    for rule in builtin_rules():
        if rule.code not in FLAG_RULES:
            continue
        for i, ex in enumerate(rule.INVALID):
            src = ex.source.strip()
            if ex.fmt != "sh" or "\n" in src or "$" in src:
                continue
            yield pytest.param(rule, ex, id=f"{rule.code}-{i + 1}")


def _as_python(words: list[str]) -> str:
    body = ", ".join(repr(w) for w in words)
    return f"import subprocess\n\nsubprocess.Popen([{body}])\n"


@pytest.mark.parametrize("rule,example", list(_cases()))
def test_shell_example_as_python_argv(rule, example):
    words = shlex.split(example.source)
    py = _as_python(words)
    options = Options(sglang_version=example.sglang, use_environment=False, rules=[rule])
    sh = lint_source("x.sh", example.source, options).diagnostics
    got = lint_source("x.py", py, options).diagnostics
    assert [d.code for d in got] == [d.code for d in sh], (py, [d.message for d in got])
    at = example.source[slice(*example.at_span())]
    text = got[0].span.text
    if rule.code == "SGL110":  # a whole-launch finding points at the call
        assert text == "subprocess.Popen"
        return
    assert text in (repr(at), at, repr(at)[1:-1]) or at in text, (text, at)
