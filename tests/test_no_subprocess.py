"""sgllint starts no program but its own interpreter (for worker
processes): not git, not bash, nothing a linted tree names. Proven twice:
the source holds no way to start one (an `ast` scan of the package), and
a full check of a tree whose ``.git/config`` names a program, run under an
audit hook that sees every process start (in the test's process and as a
subprocess of it, serially and with workers), sees none."""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from sgllint.engine import runner
from sgllint.engine.fixes import parses, run_fixes
from sgllint.hosts import cli
from sgllint.model.rule import builtin_rules_dir

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "sgllint"

#: modules whose import alone means running programs
FORBIDDEN_MODULES = {"subprocess", "pty", "commands", "popen2"}
#: os functions that run a program (or replace this one)
FORBIDDEN_OS = ("system", "popen", "exec", "spawn", "posix_spawn", "fork", "forkpty", "startfile")
FORBIDDEN_ASYNCIO = ("create_subprocess_exec", "create_subprocess_shell")


def _sources() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py")) + sorted(builtin_rules_dir().glob("*.py"))


def _violations(path: Path, root: Path = ROOT) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = []
    for node in ast.walk(tree):
        where = f"{path.relative_to(root)}:{getattr(node, 'lineno', 0)}"
        if isinstance(node, ast.Import):
            found += [f"{where}: import {a.name}" for a in node.names if a.name.split(".")[0] in FORBIDDEN_MODULES]
        elif isinstance(node, ast.ImportFrom):
            module = (node.module or "").split(".")[0]
            if module in FORBIDDEN_MODULES:
                found.append(f"{where}: from {node.module} import ...")
            if module == "os":
                found += [f"{where}: from os import {a.name}" for a in node.names if a.name.startswith(FORBIDDEN_OS)]
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            if node.value.id == "os" and node.attr.startswith(FORBIDDEN_OS):
                found.append(f"{where}: os.{node.attr}")
            if node.value.id == "asyncio" and node.attr in FORBIDDEN_ASYNCIO:
                found.append(f"{where}: asyncio.{node.attr}")
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if name in ("__import__", "import_module") and str(node.args[0].value).split(".")[0] in FORBIDDEN_MODULES:
                found.append(f"{where}: {name}({node.args[0].value!r})")
    return found


def test_the_package_has_no_way_to_start_a_program():
    sources = _sources()
    assert len(sources) > 50 and any(p.name == "pipeline.py" for p in sources)
    assert [v for p in sources for v in _violations(p)] == []


def test_the_scan_finds_what_it_looks_for(tmp_path):
    """The scan itself can fail: each forbidden shape is found."""
    sample = tmp_path / "sample.py"
    sample.write_text(
        "import subprocess\nfrom pty import spawn\nimport os\nos.system('x')\nos.execvp('x', [])\n"
        "from os import posix_spawn\n__import__('subprocess')\nimport asyncio\nasyncio.create_subprocess_exec('x')\n"
    )
    found = _violations(sample, tmp_path)
    assert len(found) == 7, found


# ---------------------------------------------------------------------------
# An audit hook around a full check
# ---------------------------------------------------------------------------

#: the audit hook, as source: installed in this process and in a child
#: interpreter alike. It appends one JSON line per process event to the file
#: descriptor LOG_FD (inherited by forked workers, which report too).
HOOK = r'''
import json, os, sys

def _sgllint_audit_hook(event, args, _fd=int(os.environ["SGLLINT_AUDIT_FD"]), _state={"busy": False, "on": True}):
    if not _state["on"] or _state["busy"]:
        return
    if event not in ("subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork", "os.forkpty", "pty.spawn", "os.startfile"):
        return
    _state["busy"] = True
    try:
        if event == "subprocess.Popen":
            program = args[0] if args[0] is not None else (args[1][0] if isinstance(args[1], (list, tuple)) else args[1])
        elif event in ("os.exec", "os.posix_spawn"):
            program = args[0]
        elif event == "os.spawn":
            program = args[1]
        elif event == "os.system":
            program = args[0]
        else:
            program = None  # a fork runs this interpreter
        line = json.dumps({"event": event, "program": None if program is None else os.fsdecode(program), "pid": os.getpid()})
        os.write(_fd, (line + "\n").encode())
    finally:
        _state["busy"] = False

sys.addaudithook(_sgllint_audit_hook)
'''


def _hostile_tree(tmp_path: Path) -> tuple[Path, Path]:
    """A repository whose .git/config names a program (git runs it on
    `git status`/`git ls-files`), with enough files for workers."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    root = tmp_path / "repo"
    root.mkdir()
    marker = tmp_path / "PWNED"
    program = root / "x.sh"
    program.write_text(f"#!/bin/sh\necho ran >> {marker}\n")
    program.chmod(0o755)
    env = dict(os.environ, HOME=str(tmp_path), GIT_CONFIG_NOSYSTEM="1")
    subprocess.run(["git", "init", "-q"], cwd=root, check=True, env=env)
    subprocess.run(["git", "config", "core.fsmonitor", str(program)], cwd=root, check=True, env=env)
    (root / ".gitignore").write_text("ignored/\n")
    (root / "ignored").mkdir()
    (root / "ignored" / "bad.sh").write_text("python -m sglang.launch_server --model-path m --enable_metrics\n")
    for i in range(6):
        (root / f"serve{i}.sh").write_text(f"#!/bin/bash\npython -m sglang.launch_server --model-path m{i} --enable_metrics \\\n  --tp 2\n")
    (root / "app.py").write_text("import sglang as sgl\nsgl.Engine(model_path='m', enable_metric=True)\n")
    (root / "deploy.yaml").write_text("command: [python3, -m, sglang.launch_server, --model-path, m, --tp, '2']\n")
    return root, marker


def _events(log: Path) -> list[dict]:
    return [json.loads(line) for line in log.read_text().splitlines() if line.strip()]


def _started_programs(events: list[dict]) -> list[dict]:
    """Every event that started a program other than this interpreter."""
    return [e for e in events if e["event"] != "os.fork" and e["program"] != sys.executable]


_INSTALLED: dict = {}


def _install_hook_here(log: Path) -> dict:
    """The hook in this (the test's) process; once per session, as an audit
    hook cannot be removed: later calls point it at a new log."""
    fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    if not _INSTALLED:
        os.environ["SGLLINT_AUDIT_FD"] = str(fd)
        namespace: dict = {}
        exec(compile(HOOK, "<audit hook>", "exec"), namespace)
        _INSTALLED["hook"] = namespace["_sgllint_audit_hook"]
    else:
        os.dup2(fd, int(os.environ["SGLLINT_AUDIT_FD"]))
        os.close(fd)
    state = _INSTALLED["hook"].__defaults__[1]
    state["on"] = True
    return state


MODES = {"serial": ["--jobs", "1"], "workers": ["--jobs", "4"]}


@pytest.mark.parametrize("mode", list(MODES))
def test_a_full_check_in_process_starts_no_program(tmp_path, monkeypatch, capsys, mode):
    root, marker = _hostile_tree(tmp_path)
    monkeypatch.setattr(runner, "MIN_FILES_PER_WORKER", 1)
    monkeypatch.chdir(tmp_path)
    log = tmp_path / "audit.log"
    state = _install_hook_here(log)
    try:
        code = cli.main(["check", "--no-cache", "--output-format", "concise", *MODES[mode], str(root)])
        diff = cli.main(["check", "--diff", "--unsafe-fixes", str(root)])  # fixes check each shell script's syntax
    finally:
        state["on"] = False
    out = capsys.readouterr().out
    assert code == 1 and "serve0.sh:2:" in out and "ignored/bad.sh" not in out, out
    assert diff == 1 and "+++ b/" in out
    events = _events(log)
    assert _started_programs(events) == []
    assert not marker.exists()
    if mode == "workers":
        assert any(e["event"] == "os.fork" for e in events), "no worker process started: the parallel path was not tested"


@pytest.mark.parametrize("mode", list(MODES))
def test_a_full_check_as_a_program_starts_no_program_but_itself(tmp_path, mode):
    """The CLI from its first import on, in a fresh interpreter with the hook
    installed before sgllint is imported."""
    root, marker = _hostile_tree(tmp_path)
    log = tmp_path / "audit.log"
    fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    wrapper = HOOK + "\nfrom sgllint.hosts.cli import main\nsys.exit(main(sys.argv[1:]))\n"
    env = dict(
        os.environ,
        PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
        SGLLINT_AUDIT_FD=str(fd),
        SGLLINT_MIN_FILES_PER_WORKER="1",
    )
    try:
        proc = subprocess.run(
            [sys.executable, "-c", wrapper, "check", "--no-cache", "--output-format", "concise", *MODES[mode], str(root)],
            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120, pass_fds=(fd,),
        )
    finally:
        os.close(fd)
    assert proc.returncode == 1 and "serve0.sh:2:" in proc.stdout, (proc.stdout, proc.stderr)
    assert "ignored/bad.sh" not in proc.stdout
    events = _events(log)
    assert _started_programs(events) == []
    assert not marker.exists()
    if mode == "workers":
        assert any(e["event"] == "os.fork" for e in events), "no worker process started: the parallel path was not tested"


def test_the_hook_sees_a_program_start(tmp_path):
    """The hook itself can fail: a program started under it is recorded."""
    log = tmp_path / "audit.log"
    fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    code = HOOK + "\nimport subprocess\nsubprocess.run(['true'])\nos.system('true')\n"
    try:
        subprocess.run([sys.executable, "-c", code], env=dict(os.environ, SGLLINT_AUDIT_FD=str(fd)), pass_fds=(fd,), check=True, timeout=60)
    finally:
        os.close(fd)
    started = _started_programs(_events(log))
    assert [e["event"] for e in started] == ["subprocess.Popen", "os.system"], started


# ---------------------------------------------------------------------------
# Fixes: a script's syntax is checked in process
# ---------------------------------------------------------------------------


def test_a_fix_that_would_break_a_script_is_dropped_without_bash(monkeypatch, tmp_path):
    """The syntax check of a fixed shell script is tree-sitter-bash's, so it
    holds with no bash on PATH (it used to be skipped then)."""
    from sgllint.model.diagnostic import Diagnostic, Edit, Fix, Severity
    from sgllint.model.facts import Source, Span

    monkeypatch.setenv("PATH", str(tmp_path / "nothing"))
    text = 'python -m sglang.launch_server --model-path "m/x" --tp 2\n'
    assert parses(text, "shell")
    src = Source("x.sh", text)
    i = text.index('"m/x"') + 4  # the closing quote
    breaking = Diagnostic("SGL101", "unknown-flag", Severity.ERROR, "m", Span(src, i, i + 1), fix=Fix("drop the quote", (Edit(Span(src, i, i + 1), ""),), "safe"))
    result = type("R", (), {"path": "x.sh", "diagnostics": [breaking], "format": "shell"})()
    run, _ = run_fixes([result], lambda p, t, f: result)
    assert run.dropped == 1 and run.fixed == 0 and run.current["x.sh"] == text


@pytest.mark.parametrize(
    "text, ok",
    [
        ("python -m sglang.launch_server --tp 2\n", True),
        ("if true; then\n  echo x\nfi\n", True),
        ("if true; then\n  echo x\n", False),  # MISSING fi
        ('echo "unterminated\n', False),
        ("x=$(echo\n", False),
        ("case $a in\n  x) echo ;;\nesac\n", True),
        ("echo 𝔘 {𝔘\n", True),  # 4-byte characters (tree-sitter-bash#337) do not crash it
    ],
)
def test_shell_syntax_check(text, ok):
    assert parses(text, "shell") is ok
