"""The wheel carries rules/ as sgllint/rules/ and installs no top-level
`rules` package (PyPI's django-rules owns that name); an installed wheel and
an editable install both find the rules."""

from __future__ import annotations

import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    out = tmp_path_factory.mktemp("dist")
    proc = subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--outdir", str(out), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    if proc.returncode != 0:
        pytest.fail(f"building the wheel failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    return next(out.glob("sgllint-*.whl"))


def test_wheel_layout(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    rule_files = {Path(n).name for n in names if n.startswith("sgllint/rules/")}
    source_rules = {p.name for p in (ROOT / "rules").glob("*.py")}
    assert source_rules <= rule_files
    assert not any(n.startswith("rules/") for n in names), "a top-level rules package would shadow django-rules"
    assert any(n.startswith("sgllint/catalog/data/sglang-") for n in names)


def _venv(path: Path) -> Path:
    venv.EnvBuilder(with_pip=True, system_site_packages=False).create(path)
    return path / "bin" / "python"


def _run(py, *args, cwd=None):
    return subprocess.run([str(py), *args], capture_output=True, text=True, timeout=900, cwd=cwd)


def _rules_seen(py, cwd) -> str:
    code = (
        "import sgllint.model.rule as r, importlib.util as u;"
        "print(len(r.builtin_rules()), r.builtin_rules_dir(), u.find_spec('rules'))"
    )
    proc = _run(py, "-c", code, cwd=cwd)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.mark.slow
def test_installed_wheel_and_editable_find_rules(wheel, tmp_path):
    n_rules = len(list((ROOT / "rules").glob("sgl*.py")))
    py = _venv(tmp_path / "wheel-env")
    proc = _run(py, "-m", "pip", "install", "--quiet", str(wheel))
    assert proc.returncode == 0, proc.stderr
    out = _rules_seen(py, cwd=tmp_path)
    count, where, spec = out.split(" ", 2)
    assert int(count) == n_rules and "site-packages/sgllint/rules" in where and spec.strip() == "None"
    proc = _run(py, "-m", "sgllint", "check", str(ROOT / "examples"), "--output-format", "concise", cwd=tmp_path)
    assert proc.returncode in (0, 1), proc.stderr

    py2 = _venv(tmp_path / "editable-env")
    proc = _run(py2, "-m", "pip", "install", "--quiet", "-e", str(ROOT))
    assert proc.returncode == 0, proc.stderr
    out = _rules_seen(py2, cwd=tmp_path)
    count, where, spec = out.split(" ", 2)
    assert int(count) == n_rules and where.strip() == str(ROOT / "rules") and spec.strip() == "None"
