"""Configuration discovery, validation and precedence."""

from __future__ import annotations

import textwrap

import pytest

from sgllint.engine.config import ConfigError, discover, parse_table

BAD = "python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct --enable_metrics --tp 2\n"


def test_nearest_config_wins(tmp_path, run_cli):
    (tmp_path / "pyproject.toml").write_text('[tool.sgllint]\nignore = ["SGL101"]\n')
    sub = tmp_path / "sub"
    sub.mkdir()
    (sub / ".sgllint.toml").write_text('ignore = ["SGL109"]\n')
    (sub / "a.sh").write_text(BAD)
    assert discover(sub).path == sub / ".sgllint.toml"
    r = run_cli("check", "sub", "--output-format", "concise", "--sglang-version", "0.5.23")
    codes = [l.split()[1] for l in r.stdout.splitlines()]
    assert codes == ["SGL101"]
    r = run_cli("check", "sub", "--output-format", "concise", "--sglang-version", "0.5.23", "--ignore", "SGL101")
    assert r.stdout == ""  # the command line adds to the file's ignores


def test_pyproject_without_table_is_skipped(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[project]\nname='x'\n")
    assert discover(tmp_path).path is None


@pytest.mark.parametrize(
    "table,needle",
    [
        ({"selct": ["SGL1"]}, "unknown key 'selct' in [tool.sgllint]; did you mean 'select'?"),
        ({"ignore": ["SGL1O1"]}, "unknown rule selector 'SGL1O1'"),
        ({"fail-on": "warn"}, "'fail-on' must be one of error, warning, info"),
        ({"sglang-version": "0.1.0"}, "no catalog for SGLang '0.1.0'"),
        ({"severity": {"SGL101": "fatal"}}, "'severity.SGL101' must be one of"),
        ({"per-file-ignores": ["x"]}, "'per-file-ignores' must be a table"),
    ],
)
def test_bad_config_is_an_error(table, needle):
    with pytest.raises(ConfigError) as e:
        parse_table(table, None)
    assert needle in str(e.value)


def test_bad_config_exits_two(tmp_path, run_cli):
    (tmp_path / ".sgllint.toml").write_text('selct = ["SGL1"]\n')
    (tmp_path / "a.sh").write_text(BAD)
    r = run_cli("check", ".")
    assert r.returncode == 2
    assert "did you mean 'select'" in r.stderr


def test_per_file_ignores_and_severity(tmp_path, run_cli):
    (tmp_path / ".sgllint.toml").write_text(
        textwrap.dedent(
            """
            per-file-ignores = { "legacy/*.sh" = ["unknown-flag"] }
            severity = { SGL109 = "error" }
            sglang-version = "0.5.23"
            """
        )
    )
    (tmp_path / "legacy").mkdir()
    (tmp_path / "legacy" / "a.sh").write_text(BAD)
    (tmp_path / "b.sh").write_text(BAD)
    r = run_cli("check", ".", "--output-format", "json")
    import json

    items = json.loads(r.stdout)
    got = sorted((i["path"], i["code"], i["severity"]) for i in items)
    assert got == [
        ("b.sh", "SGL101", "error"),
        ("b.sh", "SGL109", "error"),
        ("legacy/a.sh", "SGL109", "error"),
    ]


def test_select_prefix_and_most_specific_wins():
    cfg = parse_table({"select": ["SGL1"], "ignore": ["SGL10"], "extend-select": ["SGL101"]}, None)
    assert cfg.is_enabled("SGL101", "unknown-flag")
    assert not cfg.is_enabled("SGL102", "ambiguous-flag")
    assert cfg.is_enabled("SGL110", "missing-model-path")
    assert not cfg.is_enabled("SGL001", "broken-line-continuation")
