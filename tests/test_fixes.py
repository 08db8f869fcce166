"""`sgllint check --fix / --unsafe-fixes / --diff` on every format: fixed
files still parse with the format's own parser and re-lint with nothing
fixable left."""

from __future__ import annotations

import ast
import json
import re
import shutil
import subprocess
import tomllib

import pytest
import yaml

from sgllint.engine.fixes import _dockerfile_exec_forms_parse, normalize, run_fixes
from sgllint.engine.pipeline import Options, lint_source
from sgllint.model.diagnostic import Diagnostic, Edit, Fix, Severity
from sgllint.model.facts import Source, Span

FILES = {
    "serve.sh": (
        "#!/bin/bash\n"
        "# serve\n"
        "python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct \\\n"
        "  --port 30000 \\\n"
        "  --tp 2 --enable_metrics \\\n"
        "  --cuda-graph-max-bs 16 \\\n"
        "  --port 8000\n"
    ),
    "launch.py": (
        "import subprocess\n"
        "import sglang as sgl\n"
        "\n"
        "cmd = [\n"
        '    "python", "-m", "sglang.launch_server",\n'
        '    "--model-path", "Qwen/Qwen2.5-7B-Instruct",\n'
        '    "--port", "30000",\n'
        '    "--tp", "2", "--enable_metrics",\n'
        '    "--port", "8000",\n'
        "]\n"
        "subprocess.run(cmd)\n"
        'subprocess.run("python -m sglang.launch_server --model-path m/x --stream-output --port 1 --port 2", shell=True)\n'
        'sgl.Engine(model_path="x/y", tensor_parallel_size=2)\n'
    ),
    "k8s.yaml": (
        "apiVersion: v1\n"
        "kind: Pod\n"
        "spec:\n"
        "  containers:\n"
        "    - name: sglang\n"
        "      image: lmsysorg/sglang:v0.5.19\n"
        '      command: ["python", "-m", "sglang.launch_server"]\n'
        "      args:\n"
        "        - --model-path\n"
        "        - Qwen/Qwen2.5-7B-Instruct\n"
        "        - --port\n"
        '        - "30000"\n'
        "        - --tp\n"
        '        - "2"\n'
        '        - "--enable_metrics"\n'
        "        - --port\n"
        '        - "8000"\n'
        "    - name: other\n"
        "      image: lmsysorg/sglang:v0.5.19\n"
        '      args: ["python", "-m", "sglang.launch_server", "--model-path", "m/x", "--port", "1", "--port", "2", "--tp", "2"]\n'
        "    - name: script\n"
        "      image: lmsysorg/sglang:v0.5.19\n"
        "      command:\n"
        "        - bash\n"
        "        - -c\n"
        "        - |\n"
        "          python -m sglang.launch_server --model-path m/x \\\n"
        "            --port 1 \\\n"
        "            --tp 2 --port 2\n"
    ),
    "tasks.toml": (
        "[tasks.serve]\n"
        'cmd = "python -m sglang.launch_server --model-path m/x --tp 2 --port 1 --port 2"\n'
        'args = ["python", "-m", "sglang.launch_server", "--model-path", "m/x", "--enable_metrics", "--port", "1", "--port", "2"]\n'
    ),
    "Dockerfile": (
        "FROM lmsysorg/sglang:v0.5.19\n"
        "RUN pip list\n"
        'CMD ["python", "-m", "sglang.launch_server", "--model-path", "m/x", "--tp", "2", "--port", "1", "--port", "2"]\n'
    ),
    "README.md": (
        "# Serving\n\n```bash\n"
        "python -m sglang.launch_server --model-path m/x \\\n"
        "  --port 1 \\\n"
        "  --tp 2 --enable_metrics --port 2\n"
        "```\n"
    ),
}

EXPECTED_PY = (
    "import subprocess\n"
    "import sglang as sgl\n"
    "\n"
    "cmd = [\n"
    '    "python", "-m", "sglang.launch_server",\n'
    '    "--model-path", "Qwen/Qwen2.5-7B-Instruct",\n'
    '    "--tp-size", "2", "--enable-metrics",\n'
    '    "--port", "8000",\n'
    "]\n"
    "subprocess.run(cmd)\n"
    'subprocess.run("python -m sglang.launch_server --model-path m/x --incremental-streaming-output --port 2", shell=True)\n'
    'sgl.Engine(model_path="x/y", tp_size=2)\n'
)
EXPECTED_SH = (
    "#!/bin/bash\n"
    "# serve\n"
    "python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct \\\n"
    "  --tp-size 2 --enable-metrics \\\n"
    "  --cuda-graph-max-bs-decode 16 \\\n"
    "  --port 8000\n"
)


@pytest.fixture
def project(tmp_path):
    (tmp_path / ".sgllint.toml").write_text('sglang-version = "0.5.19"\n')
    for name, text in FILES.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    return tmp_path


def _bash_ok(text: str) -> None:
    bash = shutil.which("bash")
    if bash:
        proc = subprocess.run([bash, "-n"], input=text, capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr


def assert_parses(name: str, text: str) -> None:
    if name.endswith(".sh"):
        _bash_ok(text)
    elif name.endswith(".py"):
        ast.parse(text)
    elif name.endswith(".yaml"):
        docs = list(yaml.safe_load_all(text))
        for c in docs[0]["spec"]["containers"]:
            assert all(isinstance(a, str) for a in c.get("args", []) + c.get("command", [])), c
    elif name.endswith(".toml"):
        tomllib.loads(text)
    elif name == "Dockerfile":
        assert _dockerfile_exec_forms_parse(text)
    elif name.endswith(".md"):
        for block in re.findall(r"```bash\n(.*?)```", text, re.S):
            _bash_ok(block)


def _fixable(run_cli, cwd, unsafe: bool) -> list:
    proc = run_cli("check", "--output-format", "json", ".", cwd=cwd)
    items = json.loads(proc.stdout)
    return [i for i in items if i["fix"] and (unsafe or i["fix"]["applicability"] == "safe")]


def test_fix_every_format_keeps_files_valid(project, run_cli):
    assert len(_fixable(run_cli, project, unsafe=True)) >= 20
    proc = run_cli("check", "--fix", "--unsafe-fixes", "--output-format", "concise", ".", cwd=project)
    assert re.search(r"^Fixed \d+ diagnostics$", proc.stderr, re.M), proc.stderr
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout == ""
    for name in FILES:
        text = (project / name).read_text(encoding="utf-8")
        assert text != FILES[name], name
        assert_parses(name, text)
    assert (project / "launch.py").read_text() == EXPECTED_PY
    assert (project / "serve.sh").read_text() == EXPECTED_SH
    assert _fixable(run_cli, project, unsafe=True) == []
    # a second run has nothing left to do
    again = run_cli("check", "--fix", "--unsafe-fixes", ".", cwd=project)
    assert "Fixed 0 diagnostics" in again.stderr and again.returncode == 0


def test_safe_fixes_only_without_unsafe(project, run_cli):
    proc = run_cli("check", "--fix", "--output-format", "concise", ".", cwd=project)
    assert re.search(r"^Fixed \d+ diagnostics$", proc.stderr, re.M)
    assert proc.returncode == 1  # the unsafe SGL101 renames remain
    remaining = {line.split()[1] for line in proc.stdout.splitlines()}
    assert remaining == {"SGL101"}, proc.stdout
    assert _fixable(run_cli, project, unsafe=False) == []
    for name in FILES:
        assert_parses(name, (project / name).read_text(encoding="utf-8"))
    assert '"--enable_metrics"' in (project / "launch.py").read_text()


def test_diff_shows_without_writing(project, run_cli):
    proc = run_cli("check", "--diff", "serve.sh", cwd=project)
    assert proc.returncode == 1
    assert (project / "serve.sh").read_text() == FILES["serve.sh"]
    assert proc.stdout.startswith("--- a/serve.sh\n+++ b/serve.sh\n")
    assert "-  --tp 2 --enable_metrics \\\n" in proc.stdout and "+  --tp-size 2 --enable_metrics \\\n" in proc.stdout
    assert "Would fix 3 diagnostics" in proc.stderr
    clean = run_cli("check", "--diff", "tasks.toml", "--select", "SGL110", cwd=project)
    assert clean.returncode == 0 and clean.stdout == ""


def test_diff_reads_stdin(project, run_cli):
    proc = run_cli("check", "--diff", "-", "--stdin-filename", "x.sh", stdin=FILES["serve.sh"], cwd=project)
    assert proc.returncode == 1 and "+  --tp-size 2" in proc.stdout
    bad = run_cli("check", "--fix", "-", stdin=FILES["serve.sh"], cwd=project)
    assert bad.returncode == 2


def test_overlapping_fixes_converge_over_passes():
    text = "python -m sglang.launch_server --model-path m/x --tp 1 --tp 2 --tp 3\n"
    opts = Options(sglang_version="0.5.23", use_environment=False)
    first = lint_source("a.sh", text, opts)
    run, final = run_fixes([first], lambda p, t, f: lint_source(p, t, opts, f), unsafe=True)
    new = run.current["a.sh"]
    assert new == "python -m sglang.launch_server --model-path m/x --tp-size 3\n"
    assert not any(d.fix for d in final[0].diagnostics)


def test_a_fix_that_would_break_the_file_is_dropped():
    text = 'import sglang as sgl\nsgl.Engine(model_path="m/x", tp_size=2)\n'
    src = Source("x.py", text)
    i = text.index("(")
    bad = Diagnostic("SGL999", "internal-error", Severity.ERROR, "m", Span(src, i, i + 1), fix=Fix("break it", (Edit(Span(src, i, i + 1), ""),)))
    result = type("R", (), {"path": "x.py", "diagnostics": [bad], "format": "python"})()
    run, _ = run_fixes([result], lambda p, t, f: result)
    assert run.dropped == 1 and run.fixed == 0 and run.current["x.py"] == text


@pytest.mark.parametrize(
    "fmt, text, target, content, expected",
    [
        ("python", 'run(["--tp", "2"])', '"--tp"', "--tp-size", 'run(["--tp-size", "2"])'),
        ("python", 'run(["a", "--port", "1", "--port", "2"])', '"--port", "1"', "", 'run(["a", "--port", "2"])'),
        ("python", 'run(["a", "--port", "1"])', '"--port", "1"', "", 'run(["a"])'),
        ("shell", "s --a 1 --port 1 --b\n", "--port 1", "", "s --a 1 --b\n"),
        ("shell", "s \\\n  --port 1 \\\n  --b\n", "--port 1", "", "s \\\n  --b\n"),
        ("yaml", "args:\n  - --port\n  - '1'\n  - --b\n", "--port\n  - '1'", "", "args:\n  - --b\n"),
    ],
)
def test_normalize(fmt, text, target, content, expected):
    src = Source("f", text)
    i = text.index(target)
    start, end, new = normalize(Edit(Span(src, i, i + len(target)), content), fmt)
    assert text[:start] + new + text[end:] == expected
