"""Walking a tree an attacker wrote: nothing in it runs, only regular files
inside the walked directory are read (and only up to a size), an
unreadable directory or file is a diagnostic, and an internal failure on
one file is an SGL999 on that file with exit code 2 while every other file
is still linted. Each test runs the real CLI, in process or as a user runs
it, serially and with worker processes."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from sgllint.engine import pipeline as engine, runner
from sgllint.hosts import cli

ROOT = Path(__file__).resolve().parent.parent
BAD = "python -m sglang.launch_server --model-path m --enable_metrics\n"
SERIAL = ["--no-cache", "--jobs", "1"]
PARALLEL = ["--no-cache", "--jobs", "4"]
CACHED = ["--jobs", "1"]  # with --cache-dir


def _tree(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "good.sh").write_text(BAD)
    return root


def _cli(tmp_path: Path, *args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    """`python -m sgllint` in a subprocess with a deadline: a hang is a failure, not a stuck suite."""
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""), SGLLINT_MIN_FILES_PER_WORKER="1")
    return subprocess.run(
        [sys.executable, "-m", "sgllint", "check", "--output-format", "concise", *args],
        cwd=tmp_path, capture_output=True, text=True, env=env, timeout=timeout,
    )


def _main(capsys, *args: str) -> tuple[int, str, str]:
    code = cli.main(["check", "--output-format", "concise", *args])
    out, err = capsys.readouterr()
    assert "Traceback" not in err, err
    return code, out, err


@pytest.fixture
def workers_for_every_file(monkeypatch):
    monkeypatch.setattr(runner, "MIN_FILES_PER_WORKER", 1)


def _mode_args(mode: str, tmp_path: Path) -> list[str]:
    return {"serial": SERIAL, "parallel": PARALLEL, "cached": CACHED + ["--cache-dir", str(tmp_path / "cache")]}[mode]


MODES = ["serial", "parallel", "cached"]


# ---------------------------------------------------------------------------
# Finding 1: nothing from the tree runs
# ---------------------------------------------------------------------------


def _hostile_repository(root: Path, how: str) -> Path:
    """A git repository whose configuration names a program; git would run it."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    marker = root.parent / "PWNED"
    hook = root / "x.sh"
    hook.write_text(f"#!/bin/sh\necho ran >> {marker}\n")
    hook.chmod(0o755)
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    if how == "fsmonitor":
        subprocess.run(["git", "config", "core.fsmonitor", str(hook)], cwd=root, check=True)
    else:  # the same through an included file
        (root / "evil.cfg").write_text(f"[core]\n\tfsmonitor = {hook}\n")
        subprocess.run(["git", "config", "include.path", str(root / "evil.cfg")], cwd=root, check=True)
    # git itself runs it: the reproduction is real
    probe = subprocess.run(["git", "status", "--porcelain"], cwd=root, capture_output=True)
    assert probe.returncode == 0 and marker.exists(), "git did not run the configured program"
    marker.unlink()
    return marker


@pytest.mark.parametrize("how", ["fsmonitor", "include.path"])
@pytest.mark.parametrize("mode", MODES)
def test_a_program_named_in_git_config_never_runs(tmp_path, how, mode):
    root = _tree(tmp_path)
    marker = _hostile_repository(root, how)
    (root / ".gitignore").write_text("ignored/\n")
    (root / "ignored").mkdir()
    (root / "ignored" / "bad.sh").write_text(BAD)
    proc = _cli(tmp_path, *_mode_args(mode, tmp_path), str(root))
    assert not marker.exists(), "sgllint ran a program named by the tree's .git/config"
    assert proc.returncode == 1, proc.stderr
    # the ignore file still applies, without git
    assert "good.sh:1:" in proc.stdout and "ignored" not in proc.stdout


# ---------------------------------------------------------------------------
# Finding 4: only regular files are read, and only so much of them
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_a_fifo_is_skipped_with_a_diagnostic_not_waited_on(tmp_path, mode):
    root = _tree(tmp_path)
    os.mkfifo(root / "pipe.sh")
    os.mkfifo(root / "launch")  # no suffix: its format would come from its first bytes
    proc = _cli(tmp_path, *_mode_args(mode, tmp_path), str(root), timeout=60)
    assert "Traceback" not in proc.stderr, proc.stderr
    assert "good.sh:1:" in proc.stdout
    assert "pipe.sh:1:1: SGL002 not a regular file (a FIFO): skipped" in proc.stdout, proc.stdout
    assert "launch:" not in proc.stdout  # nothing says it is a launch format: no diagnostic either


@pytest.mark.parametrize("mode", MODES)
def test_a_socket_and_links_to_devices_are_skipped(tmp_path, mode):
    root = _tree(tmp_path)
    (root / "zero.sh").symlink_to("/dev/zero")
    (root / "null.yaml").symlink_to("/dev/null")
    sock = socket.socket(socket.AF_UNIX)
    here = os.getcwd()
    os.chdir(root)  # a socket path must be short
    try:
        sock.bind("sock.py")
    finally:
        os.chdir(here)
    try:
        proc = _cli(tmp_path, *_mode_args(mode, tmp_path), str(root))
    finally:
        sock.close()
    assert "Traceback" not in proc.stderr, proc.stderr
    assert "sock.py:1:1: SGL002 not a regular file (a socket): skipped" in proc.stdout, proc.stdout
    # /dev/zero and /dev/null are outside the walked directory: not followed at all
    assert "zero.sh:1:1: SGL002" in proc.stdout and "null.yaml:1:1: SGL002" in proc.stdout
    assert "good.sh:1:" in proc.stdout


def test_a_device_named_explicitly_is_not_read(tmp_path, capsys):
    """A path given on the command line is read even outside the tree, but
    only when it is a regular file."""
    root = _tree(tmp_path)
    (tmp_path / "zero.sh").symlink_to("/dev/zero")
    code, out, _ = _main(capsys, *SERIAL, str(root / "good.sh"), str(tmp_path / "zero.sh"))
    assert code == 1 and "good.sh:1:" in out
    assert "zero.sh:1:1: SGL002 not a regular file (a character device): skipped" in out, out


@pytest.mark.parametrize("mode", MODES)
def test_a_file_over_the_size_limit_is_skipped_with_a_diagnostic(tmp_path, capsys, workers_for_every_file, mode):
    root = _tree(tmp_path)
    (root / "big.sh").write_text(BAD + "#" + "x" * 3_000_000 + "\n")  # 2.9 MiB, launch in its first line
    code, out, _ = _main(capsys, *_mode_args(mode, tmp_path), str(root))
    assert "big.sh:1:1: SGL002 file too large: skipped (2.9 MiB; the limit is 2 MiB, set by max-file-size)" in out, out
    assert "big.sh:1:47:" not in out and "good.sh:1:47: SGL101" in out


def test_the_size_limit_is_configurable(tmp_path, capsys):
    root = _tree(tmp_path)
    (root / "big.sh").write_text(BAD + "#" + "x" * 3_000_000 + "\n")
    # raised on the command line, or in the configuration: linted
    code, out, _ = _main(capsys, *SERIAL, "--max-file-size", "4MB", str(root))
    assert "big.sh:1:47: SGL101" in out and "SGL002" not in out, out
    (root / ".sgllint.toml").write_text('max-file-size = "4 MiB"\n')
    code, out, _ = _main(capsys, *SERIAL, str(root))
    assert "big.sh:1:47: SGL101" in out and "SGL002" not in out, out
    # and lowered: even the small file is refused
    code, out, _ = _main(capsys, *SERIAL, "--max-file-size", "10", str(root))
    assert "good.sh:1:1: SGL002 file too large: skipped (63 bytes; the limit is 10 bytes, set by max-file-size)" in out, out


def test_max_file_size_must_be_a_size(tmp_path, capsys):
    root = _tree(tmp_path)
    (root / ".sgllint.toml").write_text('max-file-size = "two megabytes"\n')
    code, _, err = _main(capsys, *SERIAL, str(root))
    assert code == 2 and "'max-file-size' must be a size" in err
    with pytest.raises(SystemExit) as exited:
        cli.main(["check", *SERIAL, "--max-file-size", "-1", str(root / "good.sh")])
    assert exited.value.code == 2 and "argument --max-file-size: the size must be a size" in capsys.readouterr().err


# ---------------------------------------------------------------------------
# Symbolic links: never out of the walked directory, never in a loop
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_a_symlink_out_of_the_tree_is_not_followed(tmp_path, mode):
    root = _tree(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.sh").write_text("python -m sglang.launch_server --model-path SECRET --enable_secret_flag\n")
    (root / "link.sh").symlink_to(outside / "secret.sh")
    (root / "rel.sh").symlink_to(Path("..") / "outside" / "secret.sh")
    (root / "linkdir").symlink_to(outside, target_is_directory=True)
    (root / "inside.sh").symlink_to("good.sh")  # inside: followed
    proc = _cli(tmp_path, *_mode_args(mode, tmp_path), str(root))
    assert "SECRET" not in proc.stdout and "secret" not in proc.stdout.lower().replace("link.sh", ""), proc.stdout
    assert "link.sh:1:1: SGL002 symbolic link to a file outside" in proc.stdout, proc.stdout
    assert "rel.sh:1:1: SGL002" in proc.stdout
    assert "linkdir" not in proc.stdout
    assert "inside.sh:1:" in proc.stdout and "good.sh:1:" in proc.stdout


@pytest.mark.parametrize("mode", MODES)
def test_symlink_cycles_and_directory_links_end(tmp_path, mode):
    root = _tree(tmp_path)
    (root / "sub").mkdir()
    (root / "sub" / "up").symlink_to("..", target_is_directory=True)
    (root / "sub" / "self").symlink_to(".", target_is_directory=True)
    (root / "sub" / "a").symlink_to("b")
    (root / "sub" / "b").symlink_to("a")
    proc = _cli(tmp_path, *_mode_args(mode, tmp_path), str(root), timeout=60)
    assert proc.returncode == 1 and proc.stdout.count("good.sh:1:") == 1, proc.stdout


# ---------------------------------------------------------------------------
# Finding 5: unreadable directories and files
# ---------------------------------------------------------------------------


def _refuse(monkeypatch, module, name: str, victim: str) -> None:
    """As root, chmod 000 stops nothing: refuse in the call itself."""
    real = getattr(module, name)

    def guarded(path, *args, **kwargs):
        if isinstance(path, (str, os.PathLike)) and os.path.basename(os.fspath(path)) == victim:
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(module, name, guarded)


@pytest.mark.parametrize("mode", MODES)
def test_an_unreadable_directory_is_a_diagnostic(tmp_path, monkeypatch, capsys, workers_for_every_file, mode):
    root = _tree(tmp_path)
    (root / "locked").mkdir()
    (root / "locked" / "bad.sh").write_text(BAD)
    _refuse(monkeypatch, os, "scandir", "locked")
    code, out, _ = _main(capsys, *_mode_args(mode, tmp_path), str(root))
    assert code == 1 and "good.sh:1:" in out
    assert "locked:1:1: SGL002 cannot read this directory (Permission denied): its files were not linted" in out, out


def test_an_unsearchable_directory_is_a_diagnostic(tmp_path, monkeypatch, capsys):
    """Listed, but nothing inside can be stat'ed (mode r--)."""
    root = _tree(tmp_path)
    (root / "half").mkdir()
    (root / "half" / "bad.sh").write_text(BAD)
    real_stat, real_lstat = os.stat, os.lstat

    def guarded(real):
        def stat(path, *args, **kwargs):
            if "half" in Path(os.fspath(path)).parts[:-1] and Path(os.fspath(path)).parent.name == "half":
                raise PermissionError(13, "Permission denied", os.fspath(path))
            return real(path, *args, **kwargs)

        return stat

    monkeypatch.setattr(os, "stat", guarded(real_stat))
    monkeypatch.setattr(os, "lstat", guarded(real_lstat))
    code, out, _ = _main(capsys, *SERIAL, str(root))
    assert code == 1 and "good.sh:1:" in out


@pytest.mark.parametrize("mode", MODES)
def test_an_unreadable_file_is_a_diagnostic(tmp_path, monkeypatch, capsys, workers_for_every_file, mode):
    root = _tree(tmp_path)
    (root / "secret.sh").write_text(BAD)
    _refuse(monkeypatch, os, "open", "secret.sh")
    code, out, _ = _main(capsys, *_mode_args(mode, tmp_path), str(root))
    assert code == 1 and "good.sh:1:" in out
    assert "secret.sh:1:1: SGL002 cannot read this file (Permission denied): skipped" in out, out


def test_file_not_read_is_a_rule_like_any_other(tmp_path, capsys):
    root = _tree(tmp_path)
    os.mkfifo(root / "pipe.sh")
    code, out, _ = _main(capsys, *SERIAL, "--ignore", "SGL002", str(root))
    assert "SGL002" not in out and "good.sh:1:" in out
    code, out, _ = _main(capsys, *SERIAL, "--select", "SGL002", str(root))
    assert code == 1 and out.strip().endswith("SGL002 not a regular file (a FIFO): skipped [file-not-read]"), out
    code, out, _ = _main(capsys, *SERIAL, "--output-format", "json", str(root))
    assert '"code": "SGL002"' in out and '"name": "file-not-read"' in out and '"severity": "warning"' in out
    assert cli.main(["rule", "SGL002"]) == 0 and "## What it does" in capsys.readouterr().out


# ---------------------------------------------------------------------------
# Finding 8 (general part): an internal failure is SGL999 and exit code 2
# ---------------------------------------------------------------------------


def _explode_on(monkeypatch, victim: str) -> None:
    real = engine.resolve_launches

    def resolve(facts, options, *rest):
        if facts.source.path.endswith(victim):
            raise OverflowError("int too large to convert")
        return real(facts, options, *rest)

    monkeypatch.setattr(engine, "resolve_launches", resolve)


@pytest.mark.parametrize("mode", MODES)
def test_an_internal_failure_is_sgl999_and_exit_code_2(tmp_path, monkeypatch, capsys, workers_for_every_file, mode):
    root = tmp_path / "repo"
    root.mkdir()
    (root / "clean.sh").write_text("python -m sglang.launch_server --model-path m\n")
    (root / "boom.sh").write_text("python -m sglang.launch_server --model-path m\n")
    _explode_on(monkeypatch, "boom.sh")
    code, out, err = _main(capsys, *_mode_args(mode, tmp_path), str(root))
    assert code == 2, (out, err)
    assert "boom.sh:1:1: SGL999 sgllint failed on this file: OverflowError: int too large to convert" in out, out
    code, out, err = _main(capsys, *_mode_args(mode, tmp_path), "--exit-zero", str(root))
    assert code == 2, "--exit-zero hides findings, not sgllint's own failures"


def test_one_failing_launch_keeps_the_other_launches_findings(tmp_path, monkeypatch, capsys):
    text = "python -m sglang.launch_server --model-path m --enable_metrics\npython -m sglang.launch_server --model-path BOOM\n"
    (tmp_path / "two.sh").write_text(text)
    from sgllint.resolve import context  # the pipeline imports it when it resolves a launch

    real = context.resolve_gpu_count

    def resolve_gpu_count(ctx, site, facts):
        if "BOOM" in site.span.text:
            raise RecursionError("maximum recursion depth exceeded")
        return real(ctx, site, facts)

    monkeypatch.setattr(context, "resolve_gpu_count", resolve_gpu_count)
    code, out, _ = _main(capsys, *SERIAL, str(tmp_path / "two.sh"))
    assert code == 2
    assert "two.sh:1:47: SGL101" in out, out
    assert "two.sh:2:1: SGL999 sgllint failed on this launch: RecursionError: maximum recursion depth exceeded" in out, out
