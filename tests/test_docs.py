"""The README's rule table is generated; it must not go stale."""

from __future__ import annotations

from pathlib import Path

from sgllint.hosts.docs import readme_table, rules_table

ROOT = Path(__file__).resolve().parent.parent


def test_readme_rule_table_is_current():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert readme_table(readme) == rules_table(), (
        "README rule table is stale: run `sgllint rules --markdown` and replace the marked block with it"
    )
    # the generated block carries its own markers: pasting it between the old ones leaves strays
    assert readme.count("<!-- rules-table:begin") == 1 and readme.count("<!-- rules-table:end -->") == 1


def test_readme_has_the_two_commands():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "python -m pip install . && sgllint check examples/" in readme
    assert "python -m pip install -e '.[test]' && python -m pytest" in readme
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "python -m pip install -e '.[test]' && python -m pytest" in ci
