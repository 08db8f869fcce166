"""Issue 20, "Conventions to add": ruff's option names and behaviour,
through the real CLI (`run_cli` runs ``python -m sgllint``)."""

from __future__ import annotations

import json
from pathlib import Path

LAUNCH = "python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct"
BAD = f"#!/bin/bash\n{LAUNCH} --enable_metrics\n"
GOOD = f"{LAUNCH} --tp-size 2\n"
V = ("--sglang-version", "0.5.23")


def _write(root, name, text):
    p = root / name
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")
    return p


def _paths(stdout):
    return sorted({line.split(":")[0] for line in stdout.splitlines() if line})


# file selection ---------------------------------------------------------------


def test_exclude_and_extend_exclude(tmp_path, run_cli):
    for name in ("a/serve.sh", "b/serve.sh", "third_party/serve.sh", "build/serve.sh"):
        _write(tmp_path, name, BAD)
    r = run_cli("check", ".", "--output-format", "concise", *V)
    assert _paths(r.stdout) == ["a/serve.sh", "b/serve.sh", "third_party/serve.sh"]  # build/ is a default exclude
    r = run_cli("check", ".", "--output-format", "concise", "--extend-exclude", "third_party,b", *V)
    assert _paths(r.stdout) == ["a/serve.sh"]
    # --exclude replaces the list (build/ is linted again)
    r = run_cli("check", ".", "--output-format", "concise", "--exclude", "a", *V)
    assert _paths(r.stdout) == ["b/serve.sh", "build/serve.sh", "third_party/serve.sh"]


def test_per_file_ignores_on_the_command_line(tmp_path, run_cli):
    _write(tmp_path, "scripts/serve.sh", BAD)
    _write(tmp_path, "serve.sh", BAD)
    r = run_cli("check", ".", "--output-format", "concise", "--per-file-ignores", "scripts/*:SGL101", *V)
    assert _paths(r.stdout) == ["serve.sh"]
    _write(tmp_path, ".sgllint.toml", 'per-file-ignores = { "serve.sh" = ["SGL101"] }\n')
    r = run_cli("check", ".", "--output-format", "concise", "--extend-per-file-ignores", "scripts/*:SGL101", *V)
    assert r.stdout == "" and r.returncode == 0
    r = run_cli("check", ".", "--output-format", "concise", "--per-file-ignores", "scripts/*:SGL1O1", *V)
    assert r.returncode == 2 and "did you mean 'SGL101'?" in r.stderr
    r = run_cli("check", ".", "--per-file-ignores", "SGL101", *V)
    assert r.returncode == 2 and "GLOB:CODE" in r.stderr


def test_force_exclude_applies_excludes_and_gitignore_to_explicit_paths(tmp_path, run_cli):
    import subprocess

    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    _write(tmp_path, ".gitignore", "generated/\n")
    _write(tmp_path, ".sgllint.toml", 'extend-exclude = ["third_party"]\n')
    files = ["third_party/x/serve.sh", "generated/serve.sh", "src/serve.sh", ".venv/bin/serve.sh"]
    for name in files:
        _write(tmp_path, name, BAD)
    _write(tmp_path, "notes.txt", "no launch here\n")
    r = run_cli("check", "--output-format", "concise", *files, "notes.txt", *V)
    assert _paths(r.stdout) == sorted(files)  # explicit paths are linted...
    assert "notes.txt" in r.stderr
    r = run_cli("check", "--output-format", "concise", "--force-exclude", *files, "notes.txt", *V)
    assert _paths(r.stdout) == ["src/serve.sh"]  # ...unless --force-exclude
    assert r.stderr == ""  # an unsupported file a tool passed is skipped quietly


# output -------------------------------------------------------------------------

MIXED = f"{LAUNCH} --enable_metrics --tp 2 --enable-metricz\n"  # SGL101 x2 (unsafe fixes), SGL109 (safe, info)


def test_summary_counts_severity_and_fixes(tmp_path, run_cli):
    _write(tmp_path, "serve.sh", MIXED)
    r = run_cli("check", "serve.sh", *V)
    assert r.returncode == 1
    tail = r.stdout.splitlines()[-3:]
    assert tail == [
        "Found 3 diagnostics in 1 file: 2 errors, 1 info.",
        "[*] 1 fixable with --fix.",
        "2 fixes available with --unsafe-fixes.",
    ]
    r = run_cli("check", "serve.sh", "--unsafe-fixes", *V)
    assert r.stdout.splitlines()[-1] == "[*] 3 fixable with --fix --unsafe-fixes."


def test_quiet_silent_verbose(tmp_path, run_cli):
    _write(tmp_path, "serve.sh", MIXED)
    _write(tmp_path, "notes.txt", "x\n")
    r = run_cli("check", "serve.sh", "notes.txt", "-q", "--sglang-version", "0.6.0")
    assert r.returncode == 1 and "SGL101" in r.stdout
    assert "Found" not in r.stdout and r.stderr == ""  # no summary, warning or notice
    r = run_cli("check", "serve.sh", "--silent", *V)
    assert r.returncode == 1 and r.stdout == "" and r.stderr == ""
    r = run_cli("check", "serve.sh", "-s", "--exit-zero", *V)
    assert r.returncode == 0 and r.stdout == ""
    r = run_cli("check", "serve.sh", "-v", *V)
    assert "configuration defaults" in r.stderr and "checked 1 file" in r.stderr


def test_colour_only_on_request_and_no_color_wins(tmp_path, run_cli, monkeypatch):
    _write(tmp_path, "serve.sh", MIXED)
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    r = run_cli("check", "serve.sh", *V)  # a pipe: no colour
    assert "\x1b[" not in r.stdout
    monkeypatch.setenv("FORCE_COLOR", "1")
    r = run_cli("check", "serve.sh", *V)
    assert "\x1b[1;31mSGL101 error:\x1b[0m" in r.stdout
    r = run_cli("check", "serve.sh", "--output-format", "json", *V)
    json.loads(r.stdout)  # machine formats never get colour
    monkeypatch.setenv("NO_COLOR", "1")
    r = run_cli("check", "serve.sh", *V)
    assert "\x1b[" not in r.stdout


def test_fix_only_show_fixes_exit_non_zero_on_fix(tmp_path, run_cli):
    path = _write(tmp_path, "serve.sh", MIXED)
    r = run_cli("check", "serve.sh", "--fix-only", "--show-fixes", *V)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "Fixed 1 diagnostic:\n- serve.sh:\n    1 × SGL109 (abbreviated-flag)\n"
    assert "--tp-size 2" in path.read_text() and "--enable_metrics" in path.read_text()
    path.write_text(MIXED)
    r = run_cli("check", "serve.sh", "--fix-only", "--exit-non-zero-on-fix", *V)
    assert r.returncode == 1 and r.stdout == ""
    r = run_cli("check", "serve.sh", "--fix-only", "--exit-non-zero-on-fix", *V)  # nothing left to fix
    assert r.returncode == 0
    path.write_text(f"{LAUNCH} --tp 2\n")
    r = run_cli("check", "serve.sh", "--fix", "--exit-non-zero-on-fix", "--show-fixes", *V)
    assert r.returncode == 1  # fixed, nothing remains, and still 1
    assert "1 × SGL109 (abbreviated-flag)" in r.stdout and r.stdout.endswith("All checks passed!\n")


# settings -------------------------------------------------------------------------


def test_config_key_value_overrides_and_extend_and_sgllint_toml(tmp_path, run_cli):
    _write(tmp_path, "serve.sh", f"{LAUNCH} --tp 2 --enable_metrics\n")
    # sgllint.toml (no dot) is found, and extends a shared pyproject.toml
    _write(tmp_path, "shared/pyproject.toml", '[tool.sgllint]\nsglang-version = "0.5.23"\nignore = ["SGL101"]\n')
    _write(tmp_path, "sgllint.toml", 'extend = "shared/pyproject.toml"\nfail-on = "info"\n')
    r = run_cli("check", "serve.sh", "--output-format", "concise")
    assert [line.split()[1] for line in r.stdout.splitlines()] == ["SGL109"]  # SGL101 ignored by the extended file
    assert r.returncode == 1  # fail-on = info from sgllint.toml
    # --config KEY=VALUE overrides one setting (ruff's inline --config)
    r = run_cli("check", "serve.sh", "--output-format", "concise", "--config", 'ignore = ["SGL109"]')
    assert [line.split()[1] for line in r.stdout.splitlines()] == ["SGL101"]
    r = run_cli("check", "serve.sh", "--config", 'fail-on = "error"', "--config", 'ignore = ["SGL101"]')
    assert r.returncode == 0
    r = run_cli("check", "serve.sh", "--config", 'ignores = ["SGL109"]')
    assert r.returncode == 2 and "did you mean 'ignore'?" in r.stderr
    r = run_cli("check", "serve.sh", "--config", "not toml at all = =")
    assert r.returncode == 2 and "neither a file nor a TOML" in r.stderr
    # a loop of extends is an error, not a hang
    _write(tmp_path, "shared/pyproject.toml", '[tool.sgllint]\nextend = "../sgllint.toml"\n')
    r = run_cli("check", "serve.sh")
    assert r.returncode == 2 and "'extend' loops back" in r.stderr


def test_show_settings_says_where_each_value_came_from(tmp_path, run_cli):
    _write(tmp_path, "serve.sh", GOOD)
    _write(tmp_path, "base.toml", '[tool.sgllint]\nsglang-version = "0.5.4"\n')
    _write(tmp_path, ".sgllint.toml", 'extend = "base.toml"\nignore = ["SGL109"]\n')
    r = run_cli("check", "serve.sh", "--show-settings", "--config", 'fail-on = "error"', "--extend-exclude", "vendor")
    assert r.returncode == 0
    lines = {line.split(" = ")[0]: line for line in r.stdout.splitlines() if " = " in line and not line.startswith("#")}
    assert lines["sglang-version"].endswith(f"# {tmp_path / 'base.toml'}")
    assert lines["ignore"].startswith('ignore = ["SGL109"]') and lines["ignore"].endswith(f"# {tmp_path / '.sgllint.toml'}")
    assert lines["fail-on"].startswith('fail-on = "error"') and lines["fail-on"].endswith("# command line (--config)")
    assert lines["extend-exclude"].endswith("# command line (--extend-exclude)")
    assert lines["max-diagnostics"].endswith("# default")


def test_show_files(tmp_path, run_cli):
    for name in ("a.sh", "b/app.py", "b/notes.txt", "build/x.sh", "serve"):
        _write(tmp_path, name, "#!/bin/bash\necho\n" if name == "serve" else "x\n")
    r = run_cli("check", ".", "--show-files")
    assert r.returncode == 0
    assert r.stdout.splitlines() == ["a.sh", "serve", "b/app.py"]


def test_clean_and_version(tmp_path, run_cli):
    from sgllint import __version__

    _write(tmp_path, "serve.sh", BAD)
    run_cli("check", ".", *V)
    assert (tmp_path / ".sgllint_cache").is_dir()
    r = run_cli("clean")
    assert r.returncode == 0 and not (tmp_path / ".sgllint_cache").exists()
    (tmp_path / "other").mkdir()
    r = run_cli("clean", "--cache-dir", "other")  # not sgllint's: left alone
    assert r.returncode == 2 and (tmp_path / "other").is_dir()
    assert run_cli("version").stdout == f"sgllint {__version__}\n"
    assert json.loads(run_cli("version", "--output-format", "json").stdout)["version"] == __version__


def test_colour_on_a_terminal(tmp_path):
    """A real pseudo-terminal as stdout: coloured unless NO_COLOR."""
    import os
    import pty
    import subprocess
    import sys

    _write(tmp_path, "serve.sh", MIXED)
    root = Path(__file__).resolve().parent.parent

    def run(**extra):
        env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
        env.update(extra, PYTHONPATH=str(root), TERM="xterm")
        leader, follower = pty.openpty()
        proc = subprocess.run([sys.executable, "-m", "sgllint", "check", "serve.sh", *V], cwd=tmp_path, env=env,
                              stdout=follower, stderr=subprocess.PIPE, timeout=120)
        os.close(follower)
        chunks = []
        while True:
            try:
                data = os.read(leader, 65536)
            except OSError:
                break
            if not data:
                break
            chunks.append(data)
        os.close(leader)
        return proc.returncode, b"".join(chunks).decode("utf-8", "replace")

    code, out = run()
    assert code == 1 and "\x1b[1;31mSGL101 error:\x1b[0m" in out
    code, out = run(NO_COLOR="1", FORCE_COLOR="1")
    assert code == 1 and "SGL101 error:" in out and "\x1b[" not in out
