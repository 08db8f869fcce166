"""Removed umbrella codes (SGL220, SGL222) and their successors: documented,
and selecting, ignoring or ``# noqa``-ing the old code reaches the new ones,
as ruff's rule redirects do."""

from __future__ import annotations

import pytest

from sgllint.engine.config import ConfigError, Config, parse_table, validate_selectors
from sgllint.engine.pipeline import Options, lint_source
from sgllint.hosts.docs import rules_json
from sgllint.model.rule import all_codes, builtin_rules, find_rule, predecessors, removed_codes

DFLASH = "python -m sglang.launch_server --model-path Qwen/Qwen3-8B --speculative-algorithm DFLASH --pp-size 2\n"
UNO = "python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct --speculative-algorithm UNO\n"


def codes(text: str, config: Config = Config()) -> list[str]:
    options = Options(config=config, sglang_version="0.5.23", use_environment=False)
    return [d.code for d in lint_source("serve.sh", text, options).diagnostics]


def test_each_removed_code_lists_its_successors_and_is_no_rule():
    removed = removed_codes()
    assert {"SGL220", "SGL222"} <= set(removed)
    rule_codes = {r.code for r in builtin_rules()}
    for old in removed.values():
        assert old.code not in rule_codes, f"{old.code} is removed: never reuse it"
        assert len(old.successors) >= 2
        assert all(r.replaces == (old.code, old.name) for r in old.successors)
    assert [r.code for r in removed["SGL220"].successors] == ["SGL247", "SGL248", "SGL249", "SGL250", "SGL251"]
    assert predecessors("SGL254") == {"SGL222", "speculative-draft-requirements"}


def test_removed_code_is_documented_with_pointers(run_cli):
    assert find_rule("SGL222") == all_codes()["SGL222"] == find_rule("speculative-draft-requirements")
    r = run_cli("rule", "SGL222")
    assert r.returncode == 0
    assert r.stdout.startswith("## SGL222 speculative-draft-requirements\n\nRemoved: split into SGL252 ")
    assert "[SGL256](#sgl256) uno-without-lora-path" in r.stdout
    item = next(i for i in rules_json() if i["code"] == "SGL220")
    assert item["severity"] == "removed" and "SGL251 (dflash-without-draft-model)" in item["summary"]


def test_selecting_a_removed_code_selects_its_successors():
    assert "SGL250" in codes(DFLASH)
    assert codes(DFLASH, Config(select=("SGL220",))) == ["SGL250"]
    assert codes(DFLASH, Config(select=("dflash-requirements",))) == ["SGL250"]
    assert codes(UNO, Config(select=("SGL220",))) == []  # SGL256 is SGL222's, not SGL220's
    assert codes(UNO, Config(select=("SGL222",))) == ["SGL256"]


def test_ignoring_a_removed_code_ignores_its_successors():
    assert "SGL256" in codes(UNO)
    assert "SGL256" not in codes(UNO, Config(ignore=("SGL222",)))
    # the most specific selector still wins: the new code itself beats the redirect
    assert "SGL256" in codes(UNO, Config(ignore=("SGL222",), select=("ALL", "SGL256")))


def test_noqa_with_a_removed_code_suppresses_its_successors():
    assert "SGL256" not in codes(UNO.rstrip("\n") + "  # noqa: SGL222\n")
    assert "SGL256" not in codes(UNO.rstrip("\n") + "  # sgllint: ignore[speculative-draft-requirements]\n")
    assert "SGL256" in codes(UNO.rstrip("\n") + "  # noqa: SGL220\n")


def test_configuration_accepts_removed_codes():
    validate_selectors(["SGL220", "speculative-draft-requirements"], "ignore", "pyproject.toml")
    assert parse_table({"ignore": ["SGL222"]}, None).ignore == ("SGL222",)
    with pytest.raises(ConfigError):
        validate_selectors(["SGL229"], "ignore", "pyproject.toml")
