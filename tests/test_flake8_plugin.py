"""The flake8 plugin as flake8 runs it: ``python -m flake8 --select SGL`` in
a subprocess on real files, compared with ``sgllint check --output-format
concise`` on the same files."""

from __future__ import annotations

import importlib.metadata
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("flake8")

ROOT = Path(__file__).resolve().parent.parent

LAUNCH = '"python", "-m", "sglang.launch_server", "--model-path", "Qwen/Qwen2.5-7B-Instruct"'

FILES = {
    # an emoji and a CJK character before the token: flake8 columns are code points, as sgllint's
    "unicode.py": (
        "import subprocess\n"
        f'subprocess.run([{LAUNCH}, "--served-model-name", "🚀模型", "--enable_metrics"])\n'
    ),
    "multi.py": (
        "import subprocess\n"
        "\n"
        "cmd = [\n"
        f"    {LAUNCH},\n"
        '    "--tp", "2",\n'
        '    "--port", "30000",\n'
        '    "--port", "8000",\n'
        "]\n"
        "subprocess.run(cmd)\n"
    ),
    "suppressed.py": (
        "import sglang as sgl\n"
        'sgl.Engine(model_path="Qwen/Qwen2.5-7B-Instruct", tensor_parallel_size=2)  # noqa: SGL101\n'
        'sgl.Engine(model_path="Qwen/Qwen2.5-7B-Instruct", mem_fraction_statc=0.8)  # sgllint: ignore[SGL101]\n'
        'sgl.Engine(model_path="Qwen/Qwen2.5-7B-Instruct", tp=2)  # noqa\n'
    ),
    "clean.py": 'import sglang as sgl\nsgl.Engine(model_path="Qwen/Qwen2.5-7B-Instruct", tp_size=2)\n',
}


def _entry_point_visible() -> bool:
    return any(ep.name == "SGL" and ep.value.startswith("sgllint.") for ep in importlib.metadata.entry_points(group="flake8.extension"))


@pytest.fixture
def env(tmp_path):
    """flake8 finds plugins through installed distributions' entry points.
    `pip install -e '.[test]'` (CI) registers ours; in a bare checkout the
    test adds a minimal dist-info that declares the same entry point."""
    env = dict(os.environ)
    paths = [str(ROOT)]
    if not _entry_point_visible():
        shim = tmp_path / "_shim"
        info = shim / "sgllint-0.0.0.dist-info"
        info.mkdir(parents=True)
        (info / "METADATA").write_text("Metadata-Version: 2.1\nName: sgllint\nVersion: 0.0.0\n")
        (info / "entry_points.txt").write_text('[flake8.extension]\nSGL = sgllint.hosts.flake8_plugin:Plugin\n')
        paths.insert(0, str(shim))
    env["PYTHONPATH"] = os.pathsep.join(paths + [env.get("PYTHONPATH", "")])
    return env


@pytest.fixture
def project(tmp_path):
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / ".sgllint.toml").write_text('sglang-version = "0.5.23"\n')
    for name, text in FILES.items():
        (proj / name).write_text(text, encoding="utf-8")
    return proj


def _run(args, cwd, env):
    return subprocess.run([sys.executable, *args], cwd=cwd, capture_output=True, text=True, env=env, timeout=120)


def test_flake8_prints_what_sgllint_concise_prints(project, env):
    names = sorted(FILES)
    flake8 = _run(["-m", "flake8", "--isolated", "--select", "SGL", *names], project, env)
    assert flake8.returncode == 1, flake8.stderr
    sgllint = _run(["-m", "sgllint", "check", "--output-format", "concise", *names], project, env)
    assert sgllint.returncode == 1, sgllint.stderr
    assert sorted(flake8.stdout.splitlines()) == sorted(sgllint.stdout.splitlines())
    lines = flake8.stdout.splitlines()
    row = FILES["unicode.py"].splitlines()[1]
    col = row.index('"--enable_metrics"') + 1
    assert f"unicode.py:2:{col}: SGL101 '--enable_metrics' is not an option of SGLang 0.5.23; SGLang flags are spelled with dashes [unknown-flag]" in lines
    assert "multi.py:5:5: SGL109 '--tp' is an abbreviation of '--tp-size' [abbreviated-flag]" in lines
    assert any(line.startswith("multi.py:7:5: SGL108 ") for line in lines)
    assert not any(line.startswith(("suppressed.py", "clean.py")) for line in lines)


def test_noqa_is_flake8s_and_sgllint_ignore_still_works(project, env):
    # a `# noqa` on the launch's first line silences a finding on a later line
    # for `sgllint check` but not for flake8, which applies noqa to the
    # reported line only: the plugin must not apply it a second time.
    (project / "launch_line.py").write_text(
        "import sglang as sgl\n"
        'sgl.Engine(  # noqa: SGL101\n'
        '    model_path="Qwen/Qwen2.5-7B-Instruct",\n'
        "    tensor_parallel_size=2,\n"
        ")\n"
    )
    flake8 = _run(["-m", "flake8", "--isolated", "--select", "SGL", "launch_line.py"], project, env)
    assert flake8.stdout.splitlines() == [
        "launch_line.py:4:5: SGL101 'tensor_parallel_size' is not a ServerArgs field in SGLang 0.5.23 [unknown-flag]"
    ]
    sgllint = _run(["-m", "sgllint", "check", "--output-format", "concise", "launch_line.py"], project, env)
    assert sgllint.stdout == "" and sgllint.returncode == 0
    # --disable-noqa turns flake8's noqa off; sgllint's own ignore comment stays in force
    flake8 = _run(["-m", "flake8", "--isolated", "--disable-noqa", "--select", "SGL", "suppressed.py"], project, env)
    where = [tuple(line.split(":")[1:2]) + (line.split()[1],) for line in flake8.stdout.splitlines()]
    assert where == [("2", "SGL101"), ("4", "SGL101")], flake8.stdout  # line 3 has `# sgllint: ignore[SGL101]`


def test_show_source_caret_lands_on_the_token(project, env):
    flake8 = _run(["-m", "flake8", "--isolated", "--select", "SGL", "--show-source", "unicode.py"], project, env)
    out = flake8.stdout.splitlines()
    row = FILES["unicode.py"].splitlines()[1]
    caret = next(line for line in out if line.strip() == "^")
    assert len(caret) - 1 == row.index('"--enable_metrics"')
