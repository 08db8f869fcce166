"""Baselines through the real CLI: ``--write-baseline`` records today's
findings, ``--baseline`` reports only new ones, across unrelated edits."""

from __future__ import annotations

import json

LAUNCH = "python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct"
V = ("--sglang-version", "0.5.23")
SERVE = f"#!/bin/sh\nset -e\n{LAUNCH} \\\n  --enable_metrics \\\n  --tp 2\n"
APP = 'import sglang as sgl\nengine = sgl.Engine(model_path="Qwen/Qwen2.5-7B-Instruct", tensor_parallel_size=2)\n'


def _check(run_cli, *extra, cwd=None):
    return run_cli("check", ".", "--output-format", "concise", "--no-cache", *V, *extra, cwd=cwd)


def test_baseline_survives_unrelated_edits_and_reports_new_findings(tmp_path, run_cli):
    (tmp_path / "serve.sh").write_text(SERVE)
    (tmp_path / "app.py").write_text(APP)
    r = run_cli("check", ".", "--write-baseline", "sgllint-baseline.json", *V)
    assert r.returncode == 0 and "Wrote 3 findings to the baseline sgllint-baseline.json" in r.stderr
    data = json.loads((tmp_path / "sgllint-baseline.json").read_text())
    assert data["sgllint_baseline"] == 1
    assert sorted(e["code"] for e in data["findings"]) == ["SGL101", "SGL101", "SGL109"]
    assert all("line" not in e for e in data["findings"])
    r = _check(run_cli, "--baseline", "sgllint-baseline.json")
    assert r.returncode == 0 and r.stdout == "", r.stdout

    # unrelated edits: lines inserted above, the launch re-wrapped, a good flag added
    (tmp_path / "serve.sh").write_text(
        "#!/bin/sh\n# a comment\n\nexport X=1\nset -e\n"
        f"{LAUNCH} --port 30000 \\\n      --enable_metrics --tp 2\n"
    )
    (tmp_path / "app.py").write_text("import os\n\n\n" + APP)
    r = _check(run_cli, "--baseline", "sgllint-baseline.json")
    assert r.returncode == 0 and r.stdout == "", r.stdout

    # a new finding is still reported, and only it
    (tmp_path / "serve.sh").write_text(
        "#!/bin/sh\n# a comment\n\nexport X=1\nset -e\n"
        f"{LAUNCH} --port 30000 \\\n      --enable_metrics --tp 2 --attention-backend flash_infer\n"
    )
    r = _check(run_cli, "--baseline", "sgllint-baseline.json")
    assert r.returncode == 1
    assert [line.split()[1] for line in r.stdout.splitlines()] == ["SGL103"]

    # the same flag again in the same launch is new too (an occurrence the baseline lacks)
    (tmp_path / "app.py").write_text(APP + 'other = sgl.Engine(model_path="Qwen/Qwen2.5-7B-Instruct", tensor_parallel_size=4)\n')
    r = _check(run_cli, "--baseline", "sgllint-baseline.json")
    assert sorted(line.split(":")[0] + " " + line.split()[1] for line in r.stdout.splitlines()) == ["app.py SGL101", "serve.sh SGL103"]


def test_stale_entries_and_other_directories(tmp_path, run_cli):
    (tmp_path / ".git").mkdir()
    sub = tmp_path / "deploy"
    sub.mkdir()
    (sub / "serve.sh").write_text(SERVE)
    r = run_cli("check", ".", "--write-baseline", "base.json", *V)
    assert r.returncode == 0
    # fixed: its entry is stale
    (sub / "serve.sh").write_text(SERVE.replace("--enable_metrics", "--enable-metrics"))
    r = _check(run_cli, "--baseline", "base.json")
    assert r.returncode == 0
    assert "1 baseline entry no longer matches a finding (--show-stale-baseline lists them)" in r.stderr
    r = _check(run_cli, "--baseline", "base.json", "--show-stale-baseline")
    assert "stale baseline entry: deploy/serve.sh: SGL101 '--enable_metrics'" in r.stderr
    # paths are relative to the project root: the same baseline works from a subdirectory
    (sub / "serve.sh").write_text(SERVE)
    r = run_cli("check", ".", "--output-format", "concise", "--no-cache", "--baseline", str(tmp_path / "base.json"), *V, cwd=sub)
    assert r.returncode == 0 and r.stdout == "", r.stdout + r.stderr


def test_bad_baseline_is_a_usage_error(tmp_path, run_cli):
    (tmp_path / "serve.sh").write_text(SERVE)
    r = _check(run_cli, "--baseline", "missing.json")
    assert r.returncode == 2 and "no such baseline file" in r.stderr
    (tmp_path / "bad.json").write_text("[1, 2]")
    r = _check(run_cli, "--baseline", "bad.json")
    assert r.returncode == 2 and "not an sgllint baseline" in r.stderr
