"""File-system faults: unreadable files, dangling and looping symlinks,
directories named like files, files deleted during the run, binary files
with text extensions. Each is reported or skipped with a clear message,
never a traceback, and every other file is still linted — through the CLI
as a user runs it, with workers and the cache on and off."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from sgllint.engine import runner
from sgllint.hosts import cli

BAD = "python -m sglang.launch_server --model-path m --enable_metrics\n"
MODES = [["--no-cache", "--jobs", "1"], ["--jobs", "2"]]


def _tree(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "good.sh").write_text(BAD)
    return root


def _assert_clean_run(proc, *skipped: str) -> None:
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode == 1, (proc.returncode, proc.stdout, proc.stderr)  # the good file's finding
    assert "good.sh:1:" in proc.stdout and "SGL101" in proc.stdout
    for what in skipped:
        assert what in proc.stderr, proc.stderr


@pytest.mark.parametrize("mode", MODES, ids=["serial", "workers+cache"])
def test_dangling_and_looping_symlinks(run_cli, tmp_path, mode):
    root = _tree(tmp_path)
    (root / "dangling.sh").symlink_to(root / "missing.sh")
    (root / "loop.sh").symlink_to(root / "loop.sh")
    (root / "a.sh").symlink_to(root / "b.sh")
    (root / "b.sh").symlink_to(root / "a.sh")
    (root / "dirloop").symlink_to(root, target_is_directory=True)
    proc = run_cli("check", "--output-format", "concise", *mode, "--cache-dir", str(tmp_path / "c"), str(root))
    _assert_clean_run(proc)
    # named explicitly, they are reported
    proc = run_cli("check", "--output-format", "concise", *mode, str(root / "dangling.sh"), str(root / "loop.sh"), str(root / "good.sh"))
    _assert_clean_run(proc, "skipped", "dangling.sh", "loop.sh")


@pytest.mark.parametrize("mode", MODES, ids=["serial", "workers+cache"])
def test_directory_named_like_a_file(run_cli, tmp_path, mode):
    root = _tree(tmp_path)
    (root / "x.sh").mkdir()
    (root / "x.sh" / "inner.sh").write_text(BAD)
    (root / "Dockerfile").mkdir()
    proc = run_cli("check", "--output-format", "concise", *mode, "--cache-dir", str(tmp_path / "c"), str(root))
    _assert_clean_run(proc)
    assert "x.sh/inner.sh:1:" in proc.stdout


@pytest.mark.parametrize("mode", MODES, ids=["serial", "workers+cache"])
def test_binary_files_with_text_extensions(run_cli, tmp_path, mode):
    root = _tree(tmp_path)
    (root / "blob.sh").write_bytes(b"\x7fELF\x00\x01\x02sglang serve\x00" * 100)
    (root / "img.py").write_bytes(bytes(range(256)) * 40)
    (root / "latin1.yaml").write_bytes("command: [python3, -m, sglang.launch_server, --model-path, caf\xe9]\n".encode("latin-1"))
    proc = run_cli("check", "--output-format", "concise", *mode, "--cache-dir", str(tmp_path / "c"), str(root))
    _assert_clean_run(proc, "skipped", "binary file")


def test_unreadable_file_real(run_cli, tmp_path):
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        pytest.skip("running as root: root reads files whatever their mode (test_unreadable_file_simulated covers it)")
    root = _tree(tmp_path)
    secret = root / "secret.sh"
    secret.write_text(BAD)
    secret.chmod(0)
    try:
        proc = run_cli("check", "--output-format", "concise", "--no-cache", str(root))
    finally:
        secret.chmod(0o644)
    _assert_clean_run(proc)
    assert "secret.sh:1:1: SGL002 cannot read this file (Permission denied): skipped" in proc.stdout


@pytest.mark.parametrize("mode", MODES, ids=["serial", "workers+cache"])
def test_unreadable_file_simulated(tmp_path, monkeypatch, capsys, mode):
    """As root, chmod 000 does not stop a read: refuse it in `os.open` instead."""
    root = _tree(tmp_path)
    secret = root / "secret.sh"
    secret.write_text(BAD)
    real_open = os.open

    def guarded(file, *args, **kwargs):
        if isinstance(file, (str, os.PathLike)) and Path(file).name == "secret.sh":
            raise PermissionError(13, "Permission denied", str(file))
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(os, "open", guarded)
    monkeypatch.chdir(tmp_path)
    jobs = ["--jobs", "1"] if "--no-cache" in mode else ["--jobs", "1", "--cache-dir", str(tmp_path / "c")]
    code = cli.main(["check", "--output-format", "concise", *jobs, *(["--no-cache"] if "--no-cache" in mode else []), str(root)])
    out, err = capsys.readouterr()
    assert code == 1 and "good.sh:1:" in out
    assert "secret.sh:1:1: SGL002 cannot read this file (Permission denied): skipped" in out


@pytest.mark.parametrize("cache", [False, True])
def test_file_deleted_during_the_run(tmp_path, monkeypatch, capsys, cache):
    root = _tree(tmp_path)
    doomed = root / "doomed.sh"
    doomed.write_text(BAD)
    real_iter = runner.iter_files

    def deleting(paths, config):
        for item in real_iter(paths, config):
            if item.path.endswith("doomed.sh"):
                os.unlink(item.path)  # listed by the walk, gone before it is read
            yield item

    monkeypatch.setattr(runner, "iter_files", deleting)
    monkeypatch.chdir(tmp_path)
    args = ["--cache-dir", str(tmp_path / "c")] if cache else ["--no-cache"]
    code = cli.main(["check", "--output-format", "concise", "--jobs", "1", *args, str(root)])
    out, err = capsys.readouterr()
    assert code == 1 and "good.sh:1:" in out
    assert "skipped" in err and "doomed.sh" in err and "no such file" in err


def test_file_replaced_by_a_directory_during_the_run(tmp_path, monkeypatch, capsys):
    root = _tree(tmp_path)
    swap = root / "swap.sh"
    swap.write_text(BAD)
    real_iter = runner.iter_files

    def swapping(paths, config):
        for item in real_iter(paths, config):
            if item.path.endswith("swap.sh"):
                os.unlink(item.path)
                os.mkdir(item.path)
            yield item

    monkeypatch.setattr(runner, "iter_files", swapping)
    code = cli.main(["check", "--output-format", "concise", "--jobs", "1", "--no-cache", str(root)])
    out, err = capsys.readouterr()
    assert code == 1 and "good.sh:1:" in out
    assert "swap.sh:1:1: SGL002 not a regular file (a directory): skipped" in out
