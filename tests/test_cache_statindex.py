"""The warm-run fast path (`sgllint.engine.cache.StatIndex`): files the prefilter
rejected are reported clean from their stat alone, and any change to such a
file — even one that keeps its size and modification time — is linted again."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from sgllint.engine import cache as cachemod
from sgllint.engine.pipeline import Options
from sgllint.engine.runner import lint_paths

LAUNCH = "python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct --enable_metrics\n"
QUIET = "echo 'talks to an sglang server started elsewhere'\n"


def _age(path: Path, seconds: float = 10) -> None:
    """Make ``path`` look older than the racy window (mtime only: the change
    time stays now, so only the mtime moves back)."""
    old = time.time() - seconds
    os.utime(path, (old, old))


@pytest.fixture
def tree(tmp_path, monkeypatch):
    monkeypatch.setattr(cachemod, "RACY_NS", 0)  # the files were just written
    root = tmp_path / "tree"
    root.mkdir()
    for i in range(5):
        (root / f"quiet{i}.sh").write_text(QUIET)
        _age(root / f"quiet{i}.sh")
    (root / "serve.sh").write_text(LAUNCH)
    return root


def _run(root: Path, cache_dir: Path):
    options = Options(use_environment=False)
    return [(r.path, [(d.code, d.span.start) for d in r.diagnostics]) for r in lint_paths([str(root)], options, jobs=1, cache_dir=str(cache_dir))]


def _shards(cache_dir: Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in cache_dir.glob("*/stat/*/*.json")]


def test_rejected_files_are_indexed_and_reused(tree, tmp_path, monkeypatch):
    cache_dir = tmp_path / "cache"
    cold = _run(tree, cache_dir)
    (shard,) = _shards(cache_dir)
    assert sorted(shard["files"]) == [f"quiet{i}.sh" for i in range(5)]  # the launch file is not in it
    # a warm run does not open the indexed files at all
    opened = []
    real_open = open

    def spy(file, *a, **k):
        opened.append(str(file))
        return real_open(file, *a, **k)

    monkeypatch.setattr("builtins.open", spy)
    assert _run(tree, cache_dir) == cold
    assert not [p for p in opened if Path(p).name.startswith("quiet")]


def test_an_edit_that_keeps_size_and_mtime_is_still_seen(tree, tmp_path):
    cache_dir = tmp_path / "cache"
    _run(tree, cache_dir)
    target = tree / "quiet0.sh"
    st = target.stat()
    launch = "python -m sglang.launch_server --tp 2 #"
    same_size = launch + "x" * (len(QUIET) - len(launch) - 1) + "\n"
    assert len(same_size) == len(QUIET)
    target.write_text(same_size)
    os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns))  # mtime set back: the ctime moved
    assert target.stat().st_size == st.st_size and target.stat().st_mtime_ns == st.st_mtime_ns
    warm = dict(_run(tree, cache_dir))
    assert warm[str(target)], "the edited file was linted again and its launch found"


def test_fresh_files_are_not_indexed(tmp_path):
    """A file changed within the racy window is linted, not indexed."""
    root = tmp_path / "tree"
    root.mkdir()
    (root / "quiet.sh").write_text(QUIET)
    _run(root, tmp_path / "cache")
    assert all(not s["files"] for s in _shards(tmp_path / "cache"))


def test_workers_fill_and_use_the_index(tree, tmp_path, monkeypatch):
    monkeypatch.setenv("SGLLINT_MIN_FILES_PER_WORKER", "1")
    monkeypatch.setattr("sgllint.engine.runner.MIN_FILES_PER_WORKER", 1)
    cache_dir = tmp_path / "cache"
    options = Options(use_environment=False)

    def run():
        return [(r.path, [d.code for d in r.diagnostics]) for r in lint_paths([str(tree)], options, jobs=2, cache_dir=str(cache_dir))]

    cold = run()
    assert [p for p, _ in cold] == sorted(p for p, _ in cold)  # walk order kept
    assert len(_shards(cache_dir)[0]["files"]) == 5
    assert run() == cold
