"""Huge numbers anywhere a launch is read never crash a file (issue 15,
finding 8's root cause).

Python refuses ``int()`` of more than 4,300 digits with a ValueError; before
this was handled, a 5,000-digit ``sglang==`` pin skipped every file below it
("internal error") and the run still exited 0. A number no SGLang release
could use (a 5,000-digit version part, GPU count or SM) is simply not a
version or count: the file is linted as if it were absent.
"""

from __future__ import annotations

import pytest

from sgllint import catalog as catalogs
from sgllint.engine.config import ConfigError, parse_table
from sgllint.engine.pipeline import Options, lint_file, lint_source
from sgllint.hosts import cli
from sgllint.resolve import context
from sgllint.model.kinds import Provenance

HUGE = "9" * 5000
LAUNCH = "python -m sglang.launch_server --model-path m --tp-size 2\n"


def _lint(path, text):
    result = lint_source(path, text, Options(use_environment=False))
    assert result.skipped is None
    crashes = [d for d in result.diagnostics if d.code == "SGL999" or "failed" in d.message]
    assert crashes == [], [d.message[:200] for d in crashes]
    return result


@pytest.mark.parametrize(
    ("path", "text"),
    [
        ("pragma.sh", f"# sgllint: sglang=0.5.{HUGE}\n{LAUNCH}"),
        ("leading.sh", f"# sgllint: sglang={HUGE}.5.1\n{LAUNCH}"),
        ("image.yaml", f"image: lmsysorg/sglang:v0.5.{HUGE}\ncommand: {LAUNCH}"),
        ("Dockerfile", f"FROM lmsysorg/sglang:v0.{HUGE}.1\nCMD {LAUNCH}"),
        ("sbatch.sh", f"#SBATCH --gres=gpu:{HUGE}\n{LAUNCH}"),
        ("sbatch_named.sh", f"#SBATCH --gres=gpu:h100:{HUGE}\n{LAUNCH}"),
        ("gpu_pragma.sh", f"# sgllint: gpu=H100:{HUGE}\n{LAUNCH}"),
        ("docker.sh", f"docker run --gpus {HUGE} lmsysorg/sglang:latest {LAUNCH}"),
        ("docker_unicode.sh", f"docker run --gpus \u00b2 lmsysorg/sglang:latest {LAUNCH}"),
        ("tp.sh", f"python -m sglang.launch_server --model-path m --tp-size {HUGE} --nnodes {HUGE}\n"),
        ("hydra.py", f"import subprocess\nsubprocess.run(['python', '-m', 'sglang.launch_server', 'tp_size={HUGE}'])\n"),
        ("kwargs.py", f"import sglang as sgl\nsgl.Engine(model_path='m', tp_size={HUGE})\n"),
        ("task.toml", f"[tasks.serve]\nrun = 'python -m sglang.launch_server --model-path m --tp-size {HUGE}'\n"),
    ],
)
def test_huge_numbers_in_a_launch_file(path, text):
    assert [d.code for d in _lint(path, text).diagnostics if d.code == "SGL000"] == []


def test_huge_toml_integer_is_a_file_tomllib_refuses():
    """tomllib itself raises ValueError (not TOMLDecodeError) past int()'s
    digit limit: the file gets the parse error every TOML reader would give."""
    result = _lint("tp.toml", f"[tool.sglang]\nmodel-path = 'm'\ntp-size = {HUGE}\n")
    (problem,) = [d for d in result.diagnostics if d.code == "SGL000"]
    assert "4300 digits" in problem.message


@pytest.mark.parametrize("count", [HUGE, '"\u00b2"'])
def test_huge_gpu_counts_in_manifests(count):
    pod = (
        "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - image: lmsysorg/sglang:latest\n"
        "    command: [python, -m, sglang.launch_server, --model-path, m, --tp-size, '2']\n"
        f"    resources:\n      limits:\n        nvidia.com/gpu: {count}\n"
    )
    result = _lint("pod.yaml", pod)
    (launch,) = result.launches
    assert launch.context.gpu_count is None  # not a count any cluster schedules


def test_huge_skypilot_accelerator_count():
    task = f"resources:\n  accelerators: H100:{HUGE}\nrun: {LAUNCH}"
    (launch,) = _lint("sky.yaml", task).launches
    assert launch.context.gpu_count is None


@pytest.mark.parametrize("pin", [f"sglang==0.5.{HUGE}", f"sglang=={HUGE}.5.1", f"sglang==0.{HUGE}"])
def test_huge_project_pin_is_not_a_version(tmp_path, pin):
    (tmp_path / ".git").mkdir()
    (tmp_path / "requirements.txt").write_text(pin + "\n")
    script = tmp_path / "serve.sh"
    script.write_text(LAUNCH + "python -m sglang.launch_server --model-path m --bogus-flag\n")
    context._project_pin_in.cache_clear()
    result = lint_file(str(script), Options(use_environment=False))
    assert result.skipped is None
    assert [d.code for d in result.diagnostics] == ["SGL101"]  # the file's real finding survives
    assert result.launches[0].context.version.source is Provenance.NEWEST_CATALOG


def test_huge_lock_file_version(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "uv.lock").write_text(f'[[package]]\nname = "sglang"\nversion = "0.5.{HUGE}"\n')
    script = tmp_path / "serve.sh"
    script.write_text(LAUNCH)
    context._project_pin_in.cache_clear()
    result = lint_file(str(script), Options(use_environment=False))
    assert result.skipped is None and result.launches[0].context.version.source is Provenance.NEWEST_CATALOG


@pytest.mark.parametrize("requested", [f"0.5.{HUGE}", HUGE, f"v{HUGE}", "0.5." + "1" * 40, "0." * 3000 + "1"])
def test_resolve_version_refuses_numbers_no_release_has(requested):
    with pytest.raises(catalogs.UnknownVersion):
        catalogs.resolve_version(requested)


def test_plausible_future_versions_still_map_to_the_newest_catalog():
    assert catalogs.resolve_version("0.5.999") == catalogs.latest()
    assert catalogs.resolve_version("0.5.4.post3") == "0.5.4"


def test_huge_version_on_the_command_line_and_in_config(tmp_path, capsys):
    script = tmp_path / "serve.sh"
    script.write_text(LAUNCH)
    assert cli.main(["check", "--no-cache", "--sglang-version", f"0.5.{HUGE}", str(script)]) == cli.EXIT_ERROR
    assert "no catalog for SGLang" in capsys.readouterr().err
    with pytest.raises(ConfigError, match="no catalog for SGLang"):
        parse_table({"sglang-version": f"0.5.{HUGE}"}, None)


def test_huge_pin_fails_no_file_and_keeps_the_exit_code(tmp_path, capsys):
    """The reported reproduction: before, every file below the pin was
    skipped with an internal error and the run exited 0."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "requirements.txt").write_text(f"sglang==0.5.{HUGE}\n")
    (tmp_path / "serve.sh").write_text("python -m sglang.launch_server --model-path m --bogus-flag\n")
    context._project_pin_in.cache_clear()
    code = cli.main(["check", "--no-cache", "--jobs", "1", "--output-format", "concise", str(tmp_path)])
    out, err = capsys.readouterr()
    assert code == cli.EXIT_FINDINGS and "SGL101" in out
    assert "internal error" not in err and "skipped" not in err
