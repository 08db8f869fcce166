"""Issue 15 leftovers, each reproduced before its fix: terminal text that
came out raw (the flake8 plugin, the upgrade preview), an empty code frame
under SGL002, a ``--config`` file read past ``--max-file-size``, a swap of a
checked file for a symbolic link before it is opened, stale project roots
and pins in a long-lived process, an LSP document of any size, a cache
directory that leads out of the project, and a worker process that dies."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from sgllint.hosts import cli

ROOT = Path(__file__).resolve().parent.parent
LAUNCH = "python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct"
#: a flag holding control characters: clear screen, set title, ring the bell
HOSTILE_FLAG = "--x\x1b[2J\x1b]0;owned\x07"


def _check(capsys, *args) -> tuple[int, str, str]:
    code = cli.main(["check", "--no-cache", "--jobs", "1", "--isolated", "--sglang-version", "0.5.23", *args])
    out, err = capsys.readouterr()
    return code, out, err


def _raw_controls(text: str) -> list[str]:
    return sorted({c for c in text if (ord(c) < 0x20 and c not in "\n\t") or 0x7F <= ord(c) < 0xA0})


# ---------------------------------------------------------------------------
# Text for a terminal
# ---------------------------------------------------------------------------


def test_flake8_shows_control_characters_as_escapes(tmp_path):
    pytest.importorskip("flake8")
    f = tmp_path / "serve.py"
    f.write_text(f"import subprocess\nsubprocess.run({(LAUNCH + ' ' + HOSTILE_FLAG).split()!r})\n", encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    r = subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated", "--select", "SGL", str(f)],
        cwd=tmp_path, capture_output=True, text=True, env=env, timeout=120,
    )
    assert "SGL101" in r.stdout, r.stdout + r.stderr
    assert _raw_controls(r.stdout) == [], repr(r.stdout)
    assert "\\x1b[2J" in r.stdout and "\\x07" in r.stdout


def test_upgrade_preview_shows_control_characters_as_escapes(tmp_path, capsys, monkeypatch):
    name = "serve\x1b[31m\x08.sh"
    (tmp_path / name).write_text(f"{LAUNCH} --cuda-graph-max-bs 8 {HOSTILE_FLAG}\n")
    monkeypatch.chdir(tmp_path)
    code, out, _ = _check(capsys, ".", "--compare-to", "0.5.10")
    assert code == 1 and "Upgrade preview" in out
    assert "Defaults that change under launches that do not set them (0)" not in out  # the path is printed there
    assert _raw_controls(out) == [], repr(out)
    assert "serve\\x1b[31m\\x08.sh" in out


def test_sgl002_has_no_empty_code_frame(tmp_path, capsys):
    os.mkfifo(tmp_path / "pipe.sh")
    (tmp_path / "big.sh").write_text(LAUNCH + " --tp-size 2" * 400 + "\n")
    code, out, _ = _check(capsys, str(tmp_path), "--max-file-size", "1KB", "--output-format", "full")
    assert code == 1
    blocks = [b for b in out.split("\n\n") if "SGL002" in b]
    assert len(blocks) == 2, out
    for block in blocks:
        # the finding, then its help: no frame around an empty line
        assert [line.split(":")[0].strip() for line in block.strip().splitlines()[1:] if not line.startswith("Found")] == ["= help"], block


# ---------------------------------------------------------------------------
# --config files are read within --max-file-size
# ---------------------------------------------------------------------------


def test_a_config_file_larger_than_max_file_size_is_not_read(tmp_path):
    from sgllint.engine.config import Config
    from sgllint.engine.pipeline import Options, lint_file

    (tmp_path / ".git").mkdir()
    (tmp_path / "serve.sh").write_text(f"{LAUNCH} --config server.yml\n")
    # 6 KiB: a finding at its first line if it is read, then padding
    (tmp_path / "server.yml").write_text("tp_size: 2\n" + "# padding\n" * 600)

    def lint(**config):
        options = Options(config=Config(root=tmp_path, sglang_version="0.5.23", **config), use_environment=False)
        return lint_file(str(tmp_path / "serve.sh"), options)

    read = lint()
    assert "SGL101" in [d.code for d in read.diagnostics]  # read under the default limit
    capped = lint(max_file_size=4096)
    assert "SGL101" not in [d.code for d in capped.diagnostics]
    site = capped.launches[0].site
    assert [h.kind for h in site.hints if h.kind.startswith("config")] == ["config-missing"]
    assert any("not read" in o and "larger than 4 KiB (max-file-size)" in o for o in site.opaque), site.opaque


# ---------------------------------------------------------------------------
# The file opened is the file checked
# ---------------------------------------------------------------------------


def _swap_before_open(monkeypatch, path: Path, make):
    """Run ``make()`` (which swaps ``path``) just before ``path`` is opened,
    as a concurrent process could between the check and the read."""
    from sgllint.resolve import safe_read

    real_open = os.open
    done = []

    def racing_open(p, flags, *args, **kwargs):
        if not done and os.fspath(p) == str(path):
            done.append(True)
            make()
        return real_open(p, flags, *args, **kwargs)

    monkeypatch.setattr(safe_read.os, "open", racing_open)
    return done


def test_a_file_swapped_for_a_link_after_its_check_is_not_read(tmp_path, monkeypatch):
    from sgllint.resolve.safe_read import NotRead, read_regular_file

    secret = tmp_path / "outside" / "secret.yaml"
    secret.parent.mkdir()
    secret.write_text("token: hunter2\n")
    tree = tmp_path / "tree"
    tree.mkdir()
    target = tree / "serve.yaml"
    target.write_text("command: [python, -m, sglang.launch_server]\n")

    def swap():
        os.symlink(secret, tree / "tmp-link")
        os.replace(tree / "tmp-link", target)

    done = _swap_before_open(monkeypatch, target, swap)
    with pytest.raises(NotRead) as refused:
        read_regular_file(str(target))
    assert done and "changed while being read" in refused.value.message()


def test_a_file_replaced_after_its_check_is_not_read(tmp_path, monkeypatch):
    """Not a link this time: another file renamed over the checked one."""
    from sgllint.resolve.safe_read import NotRead, read_regular_file

    target = tmp_path / "serve.sh"
    target.write_text("echo checked\n")
    other = tmp_path / "other"
    other.write_text("echo swapped\n")
    done = _swap_before_open(monkeypatch, target, lambda: os.replace(other, target))
    with pytest.raises(NotRead):
        read_regular_file(str(target))
    assert done


def test_links_inside_the_tree_are_still_read(tmp_path):
    from sgllint.resolve.safe_read import NotRead, read_regular_file

    (tmp_path / "real.sh").write_text("echo hi\n")
    os.symlink("real.sh", tmp_path / "link.sh")
    os.symlink("loop-b", tmp_path / "loop-a")
    os.symlink("loop-a", tmp_path / "loop-b")
    assert read_regular_file(str(tmp_path / "link.sh"))[0] == b"echo hi\n"
    with pytest.raises(NotRead) as refused:
        read_regular_file(str(tmp_path / "loop-a"))
    assert "loop" in refused.value.message() or "symbolic" in refused.value.message()


# ---------------------------------------------------------------------------
# Long-lived processes: roots and pins are not remembered past a refusal or
# a change
# ---------------------------------------------------------------------------


def test_a_refused_pin_file_is_not_remembered(tmp_path, monkeypatch):
    """A pin file that could not be read (the LSP server's confinement
    before its workspace is established refuses every open) is read again
    next time, not remembered as "no pin"."""
    from sgllint.resolve import context
    from sgllint.resolve import project
    from sgllint.resolve import safe_read

    project.forget()
    (tmp_path / ".git").mkdir()
    (tmp_path / "requirements.txt").write_text("sglang==0.5.4\n")
    launch = tmp_path / "serve.sh"
    launch.write_text(LAUNCH + "\n")
    real_open = os.open

    def refusing_open(p, flags, *args, **kwargs):
        if os.fspath(p).endswith("requirements.txt"):
            raise PermissionError(13, "outside the sgllint lsp workspace", os.fspath(p))
        return real_open(p, flags, *args, **kwargs)

    monkeypatch.setattr(safe_read.os, "open", refusing_open)
    assert context.project_pin(launch) is None
    monkeypatch.setattr(safe_read.os, "open", real_open)
    assert context.project_pin(launch) == ("0.5.4", tmp_path / "requirements.txt")


def test_lint_paths_finds_a_root_created_after_an_earlier_run(tmp_path):
    """A program that lints, then changes the tree, then lints again: the
    second run sees the new project root (a ``.sgllint.toml`` above the
    launch makes its ``--config ../server.yaml`` part of the project)."""
    from sgllint.engine.config import Config
    from sgllint.engine.pipeline import Options
    from sgllint.engine.runner import lint_paths

    sub = tmp_path / "deploy"
    sub.mkdir()
    (sub / "serve.sh").write_text(f"{LAUNCH} --config ../server.yaml\n")
    (tmp_path / "server.yaml").write_text("tp_size: 2\n")
    options = Options(config=Config(root=tmp_path, sglang_version="0.5.23"), use_environment=False)

    def codes():
        return sorted(d.code for r in lint_paths([str(sub / "serve.sh")], options) for d in r.diagnostics)

    assert codes() == ["SGL115"]  # deploy/ is the root: ../server.yaml is outside
    (tmp_path / ".sgllint.toml").write_text("")
    assert codes() == ["SGL101"]  # now it is read: tp_size is not a flag


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX paths")
def test_the_lsp_server_finds_a_root_created_while_it_runs(tmp_path):
    """The same in the editor: the server is a process that lives across
    changes to the tree."""
    pytest.importorskip("pygls")
    from tests.test_lsp import Client
    from tests.test_lsp_hostile import _initialize

    sub = tmp_path / "deploy"
    sub.mkdir()
    text = f"{LAUNCH} --config ../server.yaml\n"
    (sub / "serve.sh").write_text(text)
    (tmp_path / "server.yaml").write_text("tp_size: 2\n")
    client = Client(tmp_path)
    try:
        _initialize(client, {"rootUri": tmp_path.as_uri()})
        uri = (sub / "serve.sh").as_uri()
        client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "shellscript", "version": 1, "text": text}})
        assert [d["code"] for d in client.diagnostics(uri)] == ["SGL115"]
        (tmp_path / ".sgllint.toml").write_text('sglang-version = "0.5.23"\n')
        client.notify("textDocument/didSave", {"textDocument": {"uri": uri}})
        assert [d["code"] for d in client.diagnostics(uri)] == []  # its finding is in server.yaml, another file
    finally:
        client.close()


# ---------------------------------------------------------------------------
# The LSP server: documents within max-file-size
# ---------------------------------------------------------------------------


def test_the_lsp_server_does_not_lint_a_document_larger_than_max_file_size(tmp_path):
    """A 3 MB document (one launch line, then a flag soup) gets SGL002 as
    the same file gets from ``sgllint check``, and the server answers the
    next document at once; a document within the limit is linted."""
    pytest.importorskip("pygls")
    from tests.test_lsp import Client
    from tests.test_lsp_hostile import _initialize, _open

    (tmp_path / ".sgllint.toml").write_text('sglang-version = "0.5.23"\nmax-file-size = "1MB"\n')
    client = Client(tmp_path)
    try:
        _initialize(client, {"rootUri": tmp_path.as_uri()})
        big = _open(client, tmp_path / "big.sh", LAUNCH + " --tp 2" * 500_000 + "\n", "shellscript")
        found = client.diagnostics(big)
        small = _open(client, tmp_path / "small.sh", LAUNCH + " --tp 2\n", "shellscript")
        assert [d["code"] for d in client.diagnostics(small)] == ["SGL109"]
    finally:
        client.close()
    assert [d["code"] for d in found] == ["SGL002"]
    assert "file too large: skipped (3.3 MiB; the limit is 1 MiB" in found[0]["message"]
    assert found[0]["range"]["start"] == {"line": 0, "character": 0}


# ---------------------------------------------------------------------------
# The result cache stays inside the project
# ---------------------------------------------------------------------------


def _run_check(cwd: Path, *args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run(
        [sys.executable, "-m", "sgllint", "check", "--isolated", "--jobs", "1", "--output-format", "concise", *args],
        cwd=cwd, capture_output=True, text=True, env=env, timeout=timeout,
    )


def _cache_tree(tmp_path: Path) -> tuple[Path, Path]:
    tree, outside = tmp_path / "tree", tmp_path / "outside"
    tree.mkdir()
    outside.mkdir()
    (tree / ".git").mkdir()
    (tree / "serve.sh").write_text(LAUNCH + " --tp 2\n")
    (tree / "notes.sh").write_text("echo no launch here\n")
    return tree, outside


def _everything(directory: Path) -> list[str]:
    return sorted(str(p.relative_to(directory)) for p in directory.rglob("*"))


def test_a_cache_directory_linking_out_of_the_project_is_not_used(tmp_path):
    tree, outside = _cache_tree(tmp_path)
    os.symlink(outside, tree / ".sgllint_cache")
    for _ in range(2):
        r = _run_check(tree, ".")
        assert r.returncode == 0 and "SGL109" in r.stdout, r.stdout + r.stderr
    assert _everything(outside) == []
    # a link that stays inside the project is the user's layout: used
    (tree / ".sgllint_cache").unlink()
    (tree / "build").mkdir()
    os.symlink("build", tree / ".sgllint_cache")
    assert _run_check(tree, ".").returncode == 0
    assert any(p.endswith(".json") for p in _everything(tree / "build"))


def test_links_planted_below_the_cache_directory_are_not_followed(tmp_path):
    from sgllint.engine.cache import build_id

    tree, outside = _cache_tree(tmp_path)
    cache = tree / ".sgllint_cache"
    cache.mkdir()
    os.symlink(outside / "gitignore", cache / ".gitignore")  # dangling: a write would create it
    os.symlink(outside, cache / build_id())
    for _ in range(2):
        r = _run_check(tree, ".")
        assert r.returncode == 0 and "SGL109" in r.stdout, r.stdout + r.stderr
    assert _everything(outside) == []


def test_a_fifo_planted_as_a_cache_file_does_not_hang_the_run(tmp_path):
    from sgllint.engine.cache import Cache, StatIndex

    tree, _ = _cache_tree(tmp_path)
    old = os.getcwd()
    os.chdir(tree)
    try:
        shard, _ = StatIndex(Cache())._shard(".")  # where the run in tree/ looks first
    finally:
        os.chdir(old)
    (tree / shard).parent.mkdir(parents=True)
    os.mkfifo(tree / shard)
    r = _run_check(tree, ".", timeout=60)
    assert r.returncode == 0 and "SGL109" in r.stdout, r.stdout + r.stderr


# ---------------------------------------------------------------------------
# A worker process that dies
# ---------------------------------------------------------------------------

#: `sgllint check` whose workers die (SIGSEGV, as a native crash does) on
#: every file named crash*: forked workers inherit the patched function
CRASHING_CHECK = r"""
import os, signal, sys
from sgllint.engine import runner as workers
from sgllint.hosts import cli

real = workers.lint_one

def crashing(path, *args, **kwargs):
    if os.path.basename(path).startswith("crash") and os.getpid() != PARENT:
        os.kill(os.getpid(), signal.SIGSEGV)
    return real(path, *args, **kwargs)

PARENT = os.getpid()
workers.lint_one = crashing
sys.exit(cli.main(sys.argv[1:]))
"""


def test_a_worker_that_dies_costs_only_its_file(tmp_path):
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / ".git").mkdir()
    for i in range(40):
        (tree / f"serve{i:02d}.sh").write_text(LAUNCH + " --tp 2\n")
    for name in ("crash_a.sh", "crash_b.sh"):
        (tree / name).write_text(LAUNCH + " --tp 2\n")
    driver = tmp_path / "driver.py"
    driver.write_text(CRASHING_CHECK)
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""), SGLLINT_MIN_FILES_PER_WORKER="1")

    def run(jobs: str) -> tuple[int, list]:
        r = subprocess.run(
            [sys.executable, str(driver), "check", "--isolated", "--no-cache", "--jobs", jobs, "--output-format", "json", "."],
            cwd=tree, capture_output=True, text=True, env=env, timeout=60,
        )
        assert "Traceback" not in r.stderr, r.stderr
        return r.returncode, json.loads(r.stdout)

    code, found = run("2")
    assert code == 2
    by_file: dict = {}
    for d in found:
        by_file.setdefault(d["path"], []).append(d["code"])
    assert by_file["crash_a.sh"] == by_file["crash_b.sh"] == ["SGL999"]
    assert all(by_file[f"serve{i:02d}.sh"] == ["SGL109"] for i in range(40)), by_file
    died = [d for d in found if d["code"] == "SGL999"]
    assert all("worker process linting it died (killed by SIGSEGV)" in d["message"] for d in died), died
    # the order is the walk's, as with one process (which does not crash)
    code1, serial = run("1")
    assert code1 == 0
    assert [d["path"] for d in found if d["code"] != "SGL999"] == [d["path"] for d in serial if not d["path"].startswith("crash")]
