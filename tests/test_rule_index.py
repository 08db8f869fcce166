"""The rule index (rules/_index.py) and the lazy rule registry built on it
(issue 21): the index is what the rule files say, and linting imports only
the rules a file's launches can trigger, with the same findings."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from sgllint.engine.pipeline import Options, lint_source
from sgllint.hosts.docs import generated_files
from sgllint.model.rule import INDEX_MODULE, RuleEntry, all_codes, builtin_index, builtin_rules, builtin_rules_dir, code_names, index_source

ROOT = Path(__file__).resolve().parents[1]


def test_the_checked_in_index_is_generated_from_the_rule_files():
    index = builtin_rules_dir() / f"{INDEX_MODULE}.py"
    assert index.read_text(encoding="utf-8") == index_source(builtin_rules()), "run `python -m sgllint.hosts.docs`"
    assert index in generated_files()  # the docs command regenerates it


def test_the_index_entries_are_the_rule_classes_entries():
    assert list(builtin_index().values()) == [RuleEntry.of(rule) for rule in builtin_rules()]
    assert all(entry.load() is rule for entry, rule in zip(builtin_index().values(), builtin_rules()))


def test_code_names_lists_what_all_codes_lists():
    assert code_names() == {code: rule.name for code, rule in all_codes().items()}


PROBE = """
import io, json, sys
from contextlib import redirect_stdout
from sgllint.hosts.cli import main
with redirect_stdout(io.StringIO()):
    main(["check", "--no-cache", *sys.argv[1:]])
print(json.dumps(sorted(m.rsplit(".", 1)[-1] for m in sys.modules if m.startswith("sgllint.rules.sgl"))))
"""


def imported_rules(*args: str) -> set[str]:
    out = subprocess.run([sys.executable, "-c", PROBE, *args], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return set(json.loads(out.splitlines()[-1]))


def test_a_run_imports_only_the_rules_its_launches_can_trigger(tmp_path):
    one = tmp_path / "serve.sh"
    one.write_text("python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct --port 30001\n")
    loaded = imported_rules(str(one))
    by_module = {e.module: e for e in builtin_index().values()}
    assert "sgl102_ambiguous_flag" in loaded  # an SGLang launch: its flags are checked
    for module, entry in by_module.items():
        if not entry.default_enabled:
            assert module not in loaded  # off unless selected
        if entry.checks_group and not entry.checks_launch and not entry.checks_file:
            assert module not in loaded  # one launch: no group to judge
        if entry.needs or entry.needs_args:
            assert module not in loaded  # every flag known, no container, no --tp-size or deterministic flag
    # a flag the release does not take brings SGL101; a docker run, the container rules
    one.write_text("docker run --gpus all lmsysorg/sglang python3 -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct --tp-sizee 2\n")
    loaded = imported_rules(str(one))
    assert {"sgl101_unknown_flag", "sgl503_probe_port_not_served"} <= loaded
    assert "sgl501_shared_memory_too_small" not in loaded  # off by default
    # selected, an off-by-default rule is imported
    assert "sgl501_shared_memory_too_small" in imported_rules("--extend-select", "SGL501", str(one))
    # a file without a launch imports no rule at all
    none = tmp_path / "notes.sh"
    none.write_text("echo hello\n")
    assert imported_rules(str(none)) == set()


def test_lazily_chosen_rules_find_what_every_rule_finds():
    """The same findings as with every rule handed over (the eager path)."""
    two = (
        "python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct --tp-sizee 2 --port 30000 &\n"
        "python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct --disaggregation-mode prefill\n"
    )
    for text in (two, two.splitlines()[0] + "\n"):
        lazy = lint_source("serve.sh", text, Options(use_environment=False))
        eager = lint_source("serve.sh", text, Options(use_environment=False, rules=[r for r in builtin_rules() if r.default_enabled]))
        found = [(d.code, d.span.start, d.span.end, d.message, d.help) for d in lazy.diagnostics]
        assert found == [(d.code, d.span.start, d.span.end, d.message, d.help) for d in eager.diagnostics]
        assert "SGL101" in {code for code, *_ in found}


def _launches_of_examples_and_fixtures():
    """Every resolved launch of the rules' own examples, examples/ and
    tests/fixtures/ (what the contract of `Rule.needs` is held to)."""
    from sgllint.engine.pipeline import decode, extract, resolve_launches
    from sgllint.formats.registry import detect_format
    from sgllint.model.facts import Source
    from sgllint.model.rule import iter_examples

    options = Options(use_environment=False)
    texts = []
    for rule in builtin_rules():
        for _, ex in iter_examples(rule):
            texts.append((ex.filename, ex.source))
    for root in (ROOT / "examples", ROOT / "tests" / "fixtures"):
        for path in sorted(root.rglob("*")):
            if path.is_file() and path.stat().st_size < 2_000_000:
                texts.append((str(path), decode(path.read_bytes())))
    for path, text in texts:
        fmt = detect_format(path, text[:256])
        if fmt is None:
            continue
        facts = extract(Source(path, text), fmt)
        yield from resolve_launches(facts, options, failures=[])


def test_a_rule_finds_nothing_on_a_launch_without_the_facts_it_needs():
    needing = [rule() for rule in builtin_rules() if rule.needs or rule.needs_args]
    assert {r.code for r in needing} >= {"SGL101", "SGL503", "SGL201", "SGL509"}
    shown = {rule.code: 0 for rule in needing}  # launches with the fact on which the rule found something
    for launch in _launches_of_examples_and_fixtures():
        for rule in needing:
            if launch.context.target not in RuleEntry.of(type(rule)).targets:
                continue
            found = list(rule.check(launch))
            holds = (not rule.needs or any(fact.holds(launch) for fact in rule.needs)) and (
                not rule.needs_args or any(launch.last(field) is not None for field in rule.needs_args))
            assert holds or not found, (
                f"{rule.code} found {found[0].message!r} on a launch without {sorted(rule.needs)} {sorted(rule.needs_args)}")
            shown[rule.code] += bool(found)
    assert all(shown.values()), shown  # each rule is seen finding something (on a launch with its facts)
