"""The exit codes as documented in the README: 0 clean, 1 findings, 2 usage,
configuration or internal error, each through the real CLI."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LAUNCH = "python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct"

CASES = [
    # (what, files, argv, exit code)
    ("clean", {"ok.sh": f"{LAUNCH} --tp-size 2\n"}, ["check", "."], 0),
    ("findings", {"bad.sh": f"{LAUNCH} --enable_metrics\n"}, ["check", "."], 1),
    ("findings below --fail-on", {"i.sh": f"{LAUNCH} --tp 2\n"}, ["check", "."], 0),
    ("findings with --exit-zero", {"bad.sh": f"{LAUNCH} --enable_metrics\n"}, ["check", ".", "--exit-zero"], 0),
    ("a fix with --exit-non-zero-on-fix", {"i.sh": f"{LAUNCH} --tp 2\n"}, ["check", ".", "--fix", "--exit-non-zero-on-fix"], 1),
    ("usage: unknown option", {}, ["check", "--output-fromat", "json"], 2),
    ("usage: unknown format", {}, ["check", "--output-format", "xml"], 2),
    ("usage: unknown rule", {}, ["check", "--select", "SGL1O1"], 2),
    ("usage: missing path", {}, ["check", "no-such-dir/"], 2),
    ("usage: no command", {}, [], 2),
    ("configuration: unknown key", {".sgllint.toml": "ignores = []\n"}, ["check", "."], 2),
    ("configuration: bad TOML", {".sgllint.toml": "ignore = [\n"}, ["check", "."], 2),
    ("configuration: missing baseline", {}, ["check", ".", "--baseline", "nope.json"], 2),
]


@pytest.mark.parametrize("what,files,argv,code", CASES, ids=[c[0] for c in CASES])
def test_exit_code(what, files, argv, code, tmp_path, run_cli):
    (tmp_path / ".sgllint.toml").write_text('sglang-version = "0.5.23"\n')
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    r = run_cli(*argv)
    assert r.returncode == code, (what, r.stdout, r.stderr)
    if code == 2:
        assert r.stderr.strip(), "an error says why on stderr"


def test_internal_error_exits_two_even_with_exit_zero(tmp_path, monkeypatch, capsys):
    from sgllint.engine import pipeline as engine
    from sgllint.hosts.cli import main

    (tmp_path / "boom.sh").write_text(f"{LAUNCH}\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(engine, "resolve_launches", lambda *a, **k: (_ for _ in ()).throw(OverflowError("boom")))
    assert main(["check", ".", "--no-cache", "-j", "1", "--sglang-version", "0.5.23"]) == 2
    assert "SGL999" in capsys.readouterr().out
    assert main(["check", ".", "--no-cache", "-j", "1", "--exit-zero"]) == 2


def test_readme_documents_the_exit_codes():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    said = " ".join(readme.split())
    assert "Exit codes: 0 clean, 1 a diagnostic at or above `--fail-on` remains" in said
    assert "2 usage, configuration or internal error" in said
