"""Issue 20's integration points with the real tools: flake8 run as flake8
(the fixtures of tests/test_flake8_plugin.py)."""

from __future__ import annotations

import pytest

pytest.importorskip("flake8")

from tests.test_flake8_plugin import _run, env, project  # noqa: E402,F401  (fixtures)


def test_flake8_reports_a_configuration_error(project, env):  # noqa: F811
    # a bad [tool.sgllint] key used to be reported by the CLI only
    (project / ".sgllint.toml").write_text('sglang-version = "0.5.23"\nignores = ["SGL109"]\n')
    flake8 = _run(["-m", "flake8", "--isolated", "--select", "SGL", "multi.py"], project, env)
    lines = flake8.stdout.splitlines()
    assert lines[0] == (
        f"multi.py:1:1: SGL003 {project / '.sgllint.toml'}: unknown key 'ignores' in [tool.sgllint]; "
        "did you mean 'ignore'? [invalid-configuration]"
    )
    assert any(" SGL109 " in line for line in lines[1:])  # still linted, with the defaults
    assert flake8.returncode == 1


# pre-commit, as pre-commit runs the hook (the fixtures of tests/test_precommit.py)

pre_commit = pytest.importorskip("pre_commit")

from tests.test_precommit import _git, _pre_commit, hook_repo  # noqa: E402,F401  (fixtures)
from tests.test_precommit import project as precommit_project  # noqa: E402,F401

LAUNCH = "python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct"


def _committed_and_run(proj, home, hook: str) -> tuple[int, str]:
    """Commit everything, run ``hook`` on all files: (exit code, output);
    skips when pre-commit cannot install the hook's environment."""
    _git(proj, "add", "-A")
    _git(proj, "commit", "-q", "-m", "files")
    proc = _pre_commit(proj, home, hook)
    out = proc.stdout + proc.stderr
    if "An unexpected error has occurred" in out and "Installing environment" in out:
        pytest.skip(f"pre-commit could not install the hook (no PyPI?): {out[-500:]}")
    return proc.returncode, out


@pytest.mark.slow
@pytest.mark.network
def test_precommit_hook_sees_mdx_and_shebang_scripts_and_honours_excludes(precommit_project, tmp_path_factory):  # noqa: F811
    proj = precommit_project
    (proj / ".sgllint.toml").write_text('sglang-version = "0.5.23"\nextend-exclude = ["third_party"]\n')
    (proj / "docs").mkdir()
    (proj / "docs" / "serve.mdx").write_text(f"# Serving\n\n```bash\n{LAUNCH} --enable_metrics\n```\n")
    (proj / "scripts").mkdir()
    (proj / "scripts" / "serve").write_text(f"#!/bin/bash\n{LAUNCH} --enable_metricz\n")  # not executable, no suffix
    (proj / "third_party").mkdir()
    (proj / "third_party" / "serve.sh").write_text(f"{LAUNCH} --enable_metrics\n")
    (proj / "notes.txt").write_text("nothing to lint\n")
    code, out = _committed_and_run(proj, tmp_path_factory.mktemp("pre-commit-home"), "sgllint")
    assert code == 1, out
    assert "docs/serve.mdx:4:" in out and "SGL101" in out
    assert "scripts/serve:2:" in out
    assert "third_party" not in out  # excluded although pre-commit passed it
    assert "notes.txt" not in out  # not a launch format: skipped quietly
