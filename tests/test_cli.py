"""The command line as users and CI run it: exit codes, formats, options."""

from __future__ import annotations

import json
import textwrap

BAD = textwrap.dedent(
    """\
    #!/bin/bash
    python -m sglang.launch_server \\
      --model-path Qwen/Qwen2.5-7B-Instruct \\
      --attention-backend flash_infer \\
      --enable_metrics
    """
)
GOOD = "python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct --tp-size 2\n"


def _write(tmp_path, name, text):
    p = tmp_path / name
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)
    return p


def test_clean_tree_exits_zero(tmp_path, run_cli):
    _write(tmp_path, "ok.sh", GOOD)
    r = run_cli("check", ".", "--sglang-version", "0.5.23")
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout == "All checks passed!\n"  # ruff's words
    r = run_cli("check", ".", "--sglang-version", "0.5.23", "--output-format", "concise")
    assert r.returncode == 0 and r.stdout == ""


def test_findings_exit_one_with_concise_lines(tmp_path, run_cli):
    _write(tmp_path, "bad.sh", BAD)
    r = run_cli("check", "bad.sh", "--output-format", "concise", "--sglang-version", "0.5.23")
    assert r.returncode == 1
    lines = r.stdout.splitlines()
    assert lines == [
        "bad.sh:4:23: SGL103 'flash_infer' is not a valid --attention-backend in SGLang 0.5.23 [invalid-choice]",
        "bad.sh:5:3: SGL101 '--enable_metrics' is not an option of SGLang 0.5.23; SGLang flags are spelled with dashes [unknown-flag]",
    ]


def test_json_schema(tmp_path, run_cli):
    _write(tmp_path, "sub/bad.sh", BAD)
    r = run_cli("check", "sub", "--output-format", "json", "--sglang-version", "0.5.23")
    items = json.loads(r.stdout)
    assert [i["code"] for i in items] == ["SGL103", "SGL101"]
    first = items[0]
    assert set(first) >= {
        "code", "name", "severity", "message", "path", "line", "column",
        "end_line", "end_column", "related", "help", "fix", "url",
    }
    assert first["path"] == "sub/bad.sh"
    assert (first["line"], first["column"], first["end_line"], first["end_column"]) == (4, 23, 4, 34)
    assert first["severity"] == "error" and first["name"] == "invalid-choice"
    assert "flashinfer" in first["help"]


def test_full_format_has_frame_and_help(tmp_path, run_cli):
    _write(tmp_path, "bad.sh", BAD)
    r = run_cli("check", "bad.sh", "--sglang-version", "0.5.23")
    assert "  --attention-backend flash_infer \\" in r.stdout
    assert "                      ^^^^^^^^^^^" in r.stdout
    assert "= help: did you mean 'flashinfer'?" in r.stdout


def test_select_ignore_exit_zero_fail_on(tmp_path, run_cli):
    _write(tmp_path, "bad.sh", BAD)
    common = ("check", "bad.sh", "--output-format", "concise", "--sglang-version", "0.5.23")
    r = run_cli(*common, "--select", "SGL101")
    assert [l.split()[1] for l in r.stdout.splitlines()] == ["SGL101"]
    r = run_cli(*common, "--ignore", "unknown-flag,SGL103")
    assert r.returncode == 0 and r.stdout == ""
    r = run_cli(*common, "--exit-zero")
    assert r.returncode == 0 and r.stdout
    _write(tmp_path, "abbrev.sh", GOOD.replace("--tp-size", "--tp"))
    r = run_cli("check", "abbrev.sh", "--output-format", "concise", "--sglang-version", "0.5.23")
    assert r.returncode == 0 and "SGL109" in r.stdout  # info does not fail by default
    r = run_cli("check", "abbrev.sh", "--fail-on", "info", "--sglang-version", "0.5.23")
    assert r.returncode == 1


def test_statistics(tmp_path, run_cli):
    _write(tmp_path, "bad.sh", BAD)
    r = run_cli("check", "bad.sh", "--output-format", "concise", "--statistics", "--sglang-version", "0.5.23")
    assert "    1\tSGL101\t[unknown-flag]" in r.stdout


def test_stdin(tmp_path, run_cli):
    r = run_cli("check", "-", "--stdin-filename", "deploy/serve.sh", "--output-format", "concise",
                "--sglang-version", "0.5.23", stdin=BAD)
    assert r.stdout.startswith("deploy/serve.sh:4:23: SGL103")


def test_usage_errors_exit_two(tmp_path, run_cli):
    assert run_cli("check", "--output-format", "xml").returncode == 2
    r = run_cli("check", ".", "--select", "SGL9x9")
    assert r.returncode == 2 and "unknown rule selector" in r.stderr
    r = run_cli("check", ".", "--sglang-version", "0.1.0")
    assert r.returncode == 2 and "no catalog" in r.stderr


def test_gitignored_and_venv_skipped(tmp_path, run_cli):
    import subprocess

    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    _write(tmp_path, ".gitignore", "ignored/\n")
    _write(tmp_path, "ignored/bad.sh", BAD)
    _write(tmp_path, ".venv/bin/bad.sh", BAD)
    _write(tmp_path, "venv2/pyvenv.cfg", "home = /usr\n")
    _write(tmp_path, "venv2/bad.sh", BAD)
    _write(tmp_path, "node_modules/x/bad.sh", BAD)
    _write(tmp_path, "scripts/bad.sh", BAD)
    r = run_cli("check", "--output-format", "concise", "--sglang-version", "0.5.23")
    paths = {l.split(":")[0] for l in r.stdout.splitlines()}
    assert paths == {"scripts/bad.sh"}


def test_rule_and_rules_commands(run_cli):
    r = run_cli("rule", "SGL101")
    assert r.returncode == 0
    assert "## What it does" in r.stdout and "invalid (sh)" in r.stdout
    assert run_cli("rule", "unknown-flag").stdout == r.stdout
    assert run_cli("rule", "SGL998").returncode == 2
    r = run_cli("rules")
    assert "SGL101  unknown-flag" in r.stdout and "SGL999  internal-error" in r.stdout


def test_version(run_cli):
    from sgllint import __version__

    assert run_cli("--version").stdout.strip() == f"sgllint {__version__}"


def test_show_context(tmp_path, run_cli):
    _write(tmp_path, "ok.sh", "# sgllint: sglang=0.5.10\n" + GOOD)
    r = run_cli("check", "ok.sh", "--show-context")
    assert "ok.sh:2:1: python -m sglang.launch_server: SGLang 0.5.10 from pragma" in r.stdout
