"""A user's own rule folder: ``--rule-dir DIR`` or ``rule-dirs`` of a
``--config FILE`` load it through the same loader as rules/; a configuration
discovered in the linted tree never does, because loading a rule runs its
code (SECURITY.md)."""

from __future__ import annotations

import textwrap

from sgllint.hosts import cli
from sgllint.model.rule import load_rule_dirs
from sgllint.testing import check_example

RULE = '''
"""Port 80 needs root.

## What it does
Flags `--port 80`.
"""
from pathlib import Path

from sgllint.model.rule import WARNING, Invalid, Rule, Valid

Path(__file__).with_name("IMPORTED").write_text("rule code ran")


class NoPort80(Rule):
    code = "SGL9{n}"
    name = "no-port-80-{n}"
    severity = WARNING
    VALID = [Valid.sh("python -m sglang.launch_server --model-path Qwen/Qwen3-8B --port 8080")]
    INVALID = [Invalid.sh("python -m sglang.launch_server --model-path Qwen/Qwen3-8B --port 80", at="--port 80")]

    def check(self, launch):
        arg = launch.last("port")
        if arg is not None and arg.value == 80:
            yield self.diagnostic(arg.span, "port 80 needs root", launch=launch)
'''
ARGS = ["check", "--no-cache", "--no-environment", "--jobs", "1", "--output-format", "concise"]


def _project(tmp_path, n: int, stem: str = "sgl9NN_no_port_80"):
    rules = tmp_path / "myrules"
    rules.mkdir()
    (rules / f"{stem.replace('NN', str(n))}.py").write_text(textwrap.dedent(RULE).replace("{n}", str(n)))
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "serve.sh").write_text("python -m sglang.launch_server --model-path Qwen/Qwen3-8B --port 80\n")
    return rules, proj


def test_rule_dir_on_the_command_line(tmp_path, monkeypatch, capsys):
    rules, proj = _project(tmp_path, 11)
    monkeypatch.chdir(proj)
    assert cli.main(ARGS + ["serve.sh"]) == 0
    assert cli.main(ARGS + ["--rule-dir", str(rules), "serve.sh"]) == 1
    assert "SGL911 port 80 needs root [no-port-80-11]" in capsys.readouterr().out


def test_rule_dirs_of_a_named_config_file(tmp_path, monkeypatch, capsys):
    rules, proj = _project(tmp_path, 12)
    (tmp_path / "team.toml").write_text('rule-dirs = ["myrules"]\n')
    monkeypatch.chdir(proj)
    assert cli.main(ARGS + ["--config", str(tmp_path / "team.toml"), "serve.sh"]) == 1
    assert "SGL912" in capsys.readouterr().out


def test_rule_dirs_of_a_discovered_config_are_refused_and_never_run(tmp_path, monkeypatch, capsys):
    rules, proj = _project(tmp_path, 13)
    (proj / "pyproject.toml").write_text('[tool.sgllint]\nrule-dirs = ["../myrules"]\n')
    monkeypatch.chdir(proj)
    assert cli.main(ARGS + ["serve.sh"]) == 0
    out, err = capsys.readouterr()
    assert "SGL913" not in out
    assert "'rule-dirs' is not honoured in a configuration found in the linted tree" in err
    assert not (rules / "IMPORTED").exists(), "a configuration in the linted tree ran code"


def test_a_broken_rule_folder_is_a_clean_error(tmp_path, monkeypatch, capsys):
    rules, proj = _project(tmp_path, 14)
    (rules / "sgl915_broken.py").write_text("import no_such_module_anywhere\n")
    monkeypatch.chdir(proj)
    assert cli.main(ARGS + ["--rule-dir", str(rules), "serve.sh"]) == 2
    assert "ModuleNotFoundError: No module named 'no_such_module_anywhere'" in capsys.readouterr().err
    assert cli.main(ARGS + ["--rule-dir", str(tmp_path / "missing"), "serve.sh"]) == 2
    assert "is not a directory" in capsys.readouterr().err


def test_user_rules_use_the_same_loader_and_test_kit_without_shadowing(tmp_path):
    # a user's file named like a built-in rule module imports under its own package
    rules, _ = _project(tmp_path, 16, stem="sgl101_unknown_flag")
    (rule,) = load_rule_dirs([rules])
    assert rule.code == "SGL916" and not rule.__module__.startswith("sgllint.rules.")
    from sgllint.model.rule import find_rule

    assert find_rule("SGL101").__module__ == "sgllint.rules.sgl101_unknown_flag"
    for ex in rule.VALID + rule.INVALID:
        assert check_example(rule, ex) is None


def test_user_rule_codes_and_names_are_selectable_like_built_in_ones(tmp_path, monkeypatch, capsys):
    rules, proj = _project(tmp_path, 17)
    monkeypatch.chdir(proj)
    with_dir = ARGS + ["--rule-dir", str(rules)]
    assert cli.main(with_dir + ["--select", "SGL917", "serve.sh"]) == 1
    assert capsys.readouterr().out.count("SGL9") == 1  # SGL917 alone
    assert cli.main(with_dir + ["--select", "no-port-80-17", "serve.sh"]) == 1
    assert "SGL917" in capsys.readouterr().out
    assert cli.main(with_dir + ["--ignore", "SGL917", "--select", "SGL917,SGL101", "serve.sh"]) == 0
    assert cli.main(with_dir + ["--per-file-ignores", "serve.sh:SGL917", "--select", "SGL917", "serve.sh"]) == 0
    capsys.readouterr()
    # a typo of a user rule's name is refused with the closest one, built-in or the user's
    assert cli.main(with_dir + ["--select", "no-port-80-71", "serve.sh"]) == 2
    assert "unknown rule selector 'no-port-80-71'; did you mean 'no-port-80-17'?" in capsys.readouterr().err
    # without the folder the code names no rule
    assert cli.main(ARGS + ["--select", "SGL917", "serve.sh"]) == 2
    assert "unknown rule selector 'SGL917'" in capsys.readouterr().err


def test_a_named_config_selects_the_rules_of_its_rule_dirs(tmp_path, monkeypatch, capsys):
    rules, proj = _project(tmp_path, 18)
    team = tmp_path / "team.toml"
    team.write_text('rule-dirs = ["myrules"]\nselect = ["SGL918"]\nseverity = { no-port-80-18 = "error" }\n')
    monkeypatch.chdir(proj)
    assert cli.main(ARGS + ["--config", str(team), "serve.sh"]) == 1
    out = capsys.readouterr().out
    assert "SGL918" in out and "SGL1" not in out
    team.write_text('rule-dirs = ["myrules"]\nignore = ["SGL981"]\n')
    assert cli.main(ARGS + ["--config", str(team), "serve.sh"]) == 2
    assert "'ignore' has unknown rule selector 'SGL981'" in capsys.readouterr().err


def test_a_discovered_config_cannot_select_the_rules_it_may_not_load(tmp_path, monkeypatch, capsys):
    rules, proj = _project(tmp_path, 19)
    (proj / "pyproject.toml").write_text('[tool.sgllint]\nrule-dirs = ["../myrules"]\nselect = ["SGL919"]\n')
    monkeypatch.chdir(proj)
    assert cli.main(ARGS + ["serve.sh"]) == 2
    assert "unknown rule selector 'SGL919'" in capsys.readouterr().err
    assert not (rules / "IMPORTED").exists(), "a configuration in the linted tree ran code"
