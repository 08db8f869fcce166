"""The same input gives byte-identical output: across runs, across worker
counts (1 vs 2 processes) and across cache states (no cache, cold, warm),
for every output format."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from sgllint.engine import runner
from sgllint.hosts import cli
from sgllint.output import FORMATS

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def tree(tmp_path_factory) -> Path:
    """Every format, good and bad launches, plus enough files for workers."""
    base = tmp_path_factory.mktemp("det")
    repo = base / "repo"
    shutil.copytree(ROOT / "examples", repo / "examples")
    for fmt_dir in sorted((ROOT / "tests" / "fixtures").iterdir()):
        if fmt_dir.is_dir() and fmt_dir.name != "e2e":
            shutil.copytree(fmt_dir, repo / "fixtures" / fmt_dir.name)
    for i in range(40):
        flag = ["--enable_metrics", "--tp 2", "--attention-backend flash_infer", "--port 1"][i % 4]
        (repo / "gen" / f"d{i % 5}").mkdir(parents=True, exist_ok=True)
        (repo / "gen" / f"d{i % 5}" / f"s{i:02d}.sh").write_text(f"# {i}\npython -m sglang.launch_server --model-path m {flag}\n")
        (repo / "gen" / f"d{i % 5}" / f"p{i:02d}.py").write_text(f"import sglang as sgl\nx = {i}\nsgl.Engine(model_path='m', tp_size={i}, enable_metric=True)\n")
    return base


def _run(base: Path, fmt: str, monkeypatch, capsys, *extra: str) -> str:
    monkeypatch.chdir(base)
    code = cli.main(["check", "--isolated", "--no-environment", "--sglang-version", "0.5.23", "--output-format", fmt, *extra, "repo"])
    out, err = capsys.readouterr()
    assert code == 1, err
    assert "Traceback" not in err
    return out


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_output_is_byte_identical_across_runs_workers_and_cache(tree, fmt, monkeypatch, capsys):
    monkeypatch.setattr(runner, "MIN_FILES_PER_WORKER", 1)  # make -j2 really fork
    cache = tree / f"cache-{fmt}"
    reference = _run(tree, fmt, monkeypatch, capsys, "--no-cache", "--jobs", "1")
    assert reference
    runs = {
        "cache cold, 2 workers": _run(tree, fmt, monkeypatch, capsys, "--cache-dir", str(cache), "--jobs", "2"),
        "cache warm, 1 process": _run(tree, fmt, monkeypatch, capsys, "--cache-dir", str(cache), "--jobs", "1"),
    }
    if fmt in ("full", "json"):  # the formats that carry every field: the whole matrix
        runs["again"] = _run(tree, fmt, monkeypatch, capsys, "--no-cache", "--jobs", "1")
        runs["2 workers, no cache"] = _run(tree, fmt, monkeypatch, capsys, "--no-cache", "--jobs", "2")
        runs["cache warm, 2 workers"] = _run(tree, fmt, monkeypatch, capsys, "--cache-dir", str(cache), "--jobs", "2")
    assert any(cache.rglob("*.json")), "the cache was not written"
    for name, out in runs.items():
        assert out == reference, f"{fmt}: output differs for {name}"


def test_warm_cache_shows_the_code_frame(tree, monkeypatch, capsys):
    cache = tree / "cache-frame"
    cold = _run(tree, "full", monkeypatch, capsys, "--cache-dir", str(cache), "--jobs", "1")
    warm = _run(tree, "full", monkeypatch, capsys, "--cache-dir", str(cache), "--jobs", "1")
    assert warm == cold and " | " in warm and "^" in warm


def test_cache_misses_when_the_file_or_a_config_file_changes(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "cfg.yaml").write_text("model-path: m\ntp-size: 2\n")
    script = tmp_path / "serve.sh"
    script.write_text("python -m sglang.launch_server --config cfg.yaml\n")
    args = ["check", "--isolated", "--no-environment", "--output-format", "concise", "--cache-dir", "c", "--jobs", "1", "serve.sh"]
    assert cli.main(args) == 0
    capsys.readouterr()
    (tmp_path / "cfg.yaml").write_text("model-path: m\ntp_size: 2\nenable_metrics: true\nbogus-flag: 1\n")
    cli.main(args)
    changed = capsys.readouterr().out
    assert "bogus" in changed or "cfg.yaml" in changed, changed
    script.write_text("python -m sglang.launch_server --model-path m --enable_metrics\n")
    assert cli.main(args) == 1
    assert "SGL101" in capsys.readouterr().out


def test_cache_misses_when_a_dspark_subfolder_appears_beside_the_model(tmp_path, monkeypatch, capsys):
    """SGL254's verdict depends on a ``dspark/`` folder next to a local
    checkpoint's config.json (SGLang 0.5.23+ loads the draft from it), so the
    cache must notice the folder appearing."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ckpt").mkdir()
    (tmp_path / "ckpt" / "config.json").write_text('{"architectures": ["LlamaForCausalLM"], "model_type": "llama"}')
    (tmp_path / "serve.sh").write_text(
        "python -m sglang.launch_server --model-path ./ckpt --speculative-algorithm DSPARK\n"
    )
    args = ["check", "--isolated", "--no-environment", "--sglang-version", "0.5.23", "--gpu", "H100",
            "--output-format", "concise", "--cache-dir", "c", "--jobs", "1", "serve.sh"]
    assert cli.main(args) == 1
    assert "SGL254" in capsys.readouterr().out
    (tmp_path / "ckpt" / "dspark").mkdir()
    (tmp_path / "ckpt" / "dspark" / "config.json").write_text('{"architectures": ["DSparkDraft"]}')
    assert cli.main(args) == 0, capsys.readouterr().out
