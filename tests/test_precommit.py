"""The pre-commit hooks as pre-commit really runs them: a project repository
whose ``.pre-commit-config.yaml`` points at a git copy of this checkout
(pre-commit clones it, builds a virtualenv and pip-installs sgllint into
it), then ``pre-commit run --all-files`` on a failing and a clean commit."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pre_commit")

ROOT = Path(__file__).resolve().parent.parent
pytestmark = [pytest.mark.slow, pytest.mark.network]

LAUNCH = "python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct"


def _git(cwd: Path, *args: str) -> str:
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.com", GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.com")
    proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


@pytest.fixture(scope="module")
def hook_repo(tmp_path_factory) -> tuple[Path, str]:
    """This checkout's working tree (uncommitted changes included) committed
    into a fresh git repository: what pre-commit clones."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    dest = tmp_path_factory.mktemp("hook-repo")
    listing = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        timeout=60,
    )
    assert listing.returncode == 0
    for name in listing.stdout.decode().split("\0"):
        src = ROOT / name
        if not name or not src.is_file() or name.startswith((".venv", "build/", "benchmarks/")):
            continue
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, target)
    _git(dest, "init", "-q")
    _git(dest, "add", "-A")
    _git(dest, "commit", "-q", "-m", "snapshot")
    return dest, _git(dest, "rev-parse", "HEAD")


@pytest.fixture
def project(tmp_path, hook_repo, tmp_path_factory):
    repo, rev = hook_repo
    proj = tmp_path / "project"
    proj.mkdir()
    _git(proj, "init", "-q")
    (proj / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {repo}\n    rev: {rev}\n    hooks:\n      - id: sgllint\n      - id: sgllint-fix\n"
    )
    (proj / ".sgllint.toml").write_text('sglang-version = "0.5.23"\n')
    return proj


def _pre_commit(proj: Path, home: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PRE_COMMIT_HOME=str(home), PRE_COMMIT_COLOR="never", SKIP="")
    env.pop("PYTHONPATH", None)
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "run", "--all-files", *args],
        cwd=proj,
        capture_output=True,
        text=True,
        env=env,
        timeout=900,
    )


def test_failing_then_fixed_then_clean(project, tmp_path_factory):
    home = tmp_path_factory.mktemp("pre-commit-home")
    (project / "serve.sh").write_text(f"#!/bin/sh\n{LAUNCH} --enable_metrics --tp 2\n")
    (project / "ok.py").write_text("print('no launch here')\n")
    _git(project, "add", "-A")
    _git(project, "commit", "-q", "-m", "bad launch")

    proc = _pre_commit(project, home, "sgllint")
    out = proc.stdout + proc.stderr
    if "An unexpected error has occurred" in out and "Installing environment" in out:
        pytest.skip(f"pre-commit could not install the hook (no PyPI?): {out[-500:]}")
    assert proc.returncode == 1, out
    assert "sgllint" in out and "Failed" in out
    col = len(LAUNCH) + 2
    assert f"serve.sh:2:{col}: SGL101 '--enable_metrics' is not an option of SGLang 0.5.23; SGLang flags are spelled with dashes [unknown-flag]" in out
    assert f"serve.sh:2:{col + len('--enable_metrics') + 1}: SGL109 '--tp' is an abbreviation of '--tp-size' [abbreviated-flag]" in out

    # the fix hook rewrites the safe part (--tp) and still fails on SGL101
    proc = _pre_commit(project, home, "sgllint-fix")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out
    assert "files were modified by this hook" in out
    assert "Fixed 1 diagnostic" in out
    assert (project / "serve.sh").read_text() == f"#!/bin/sh\n{LAUNCH} --enable_metrics --tp-size 2\n"

    # a clean commit passes both hooks
    (project / "serve.sh").write_text(f"#!/bin/sh\n{LAUNCH} --enable-metrics --tp-size 2\n")
    _git(project, "add", "-A")
    _git(project, "commit", "-q", "-m", "fixed")
    proc = _pre_commit(project, home)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert out.count("Passed") == 2, out
    assert "SGL" not in out
